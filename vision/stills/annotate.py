"""Drawing detections and readings on an image (``mtrain read --annotate``).

Annotators follow supervision: the style is set in ``__init__``, one
``annotate(scene, ...)`` method draws on a copy and returns it, and nothing
is remembered between frames.
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

from vision.models.detections import Detections
from vision.readings import FrameReading, TileReading, TileReadings

Color = tuple[int, int, int]  # BGR


class PolygonAnnotator:
    """Outlines each detection's quadrilateral."""

    def __init__(self, color: Color = (255, 160, 0), thickness: int = 2) -> None:
        self.color = color
        self.thickness = thickness

    def annotate(self, scene: np.ndarray, detections: Detections) -> np.ndarray:
        out = scene.copy()
        for corners, _, _ in detections:
            cv2.polylines(out, [np.round(corners).astype(np.int32)], True, self.color,
                          self.thickness, cv2.LINE_AA)
        return out


class ReadingAnnotator:
    """Draws each tile's outline, its divider and its values; markers as polygons.

    Sure readings are drawn in ``color``, uncertain ones in ``uncertain_color``
    with a question mark; tiles lying face down as grey outlines marked "down". Text
    scales with the image so it stays legible on a 12 MP photo.
    """

    def __init__(self, color: Color = (40, 200, 40), uncertain_color: Color = (0, 0, 255),
                 marker_color: Color = (255, 160, 0), thickness: int | None = None,
                 text_scale: float | None = None, show_confidence: bool = True,
                 face_down_color: Color = (128, 128, 128)) -> None:
        self.color = color
        self.uncertain_color = uncertain_color
        self.marker_color = marker_color
        self.face_down_color = face_down_color
        self.thickness = thickness
        self.text_scale = text_scale
        self.show_confidence = show_confidence

    def annotate(self, scene: np.ndarray,
                 readings: FrameReading | TileReadings | Sequence[TileReading]) -> np.ndarray:
        out = scene.copy()
        side = max(scene.shape[:2])
        thickness = self.thickness or max(1, round(side / 600))
        scale = self.text_scale or max(0.4, side / 1800)
        given = readings.tiles if isinstance(readings, FrameReading) else readings
        tiles = given.each() if isinstance(given, TileReadings) else list(given)
        for tile in tiles:
            color = self.uncertain_color if tile.uncertain else self.color
            c = np.asarray(tile.corners, dtype=np.float32)
            cv2.polylines(out, [np.round(c).astype(np.int32)], True, color, thickness, cv2.LINE_AA)
            mid_a, mid_b = (c[0] + c[3]) / 2, (c[1] + c[2]) / 2
            cv2.line(out, _point(mid_a), _point(mid_b), color, thickness, cv2.LINE_AA)
            # a small dot on the a end, so the order of the values can be seen
            cv2.circle(out, _point((c[0] + c[1]) / 2), thickness + 2, color, -1, cv2.LINE_AA)
            label = f"{tile.values[0]}-{tile.values[1]}" + ("?" if tile.uncertain else "")
            if self.show_confidence:
                label += f" {tile.confidence:.2f}"
            _label(out, label, c.mean(axis=0), color, scale, thickness)
        for back in readings.backs if isinstance(readings, FrameReading) else ():
            c = np.asarray(back, dtype=np.float32)
            cv2.polylines(out, [np.round(c).astype(np.int32)], True, self.face_down_color,
                          thickness, cv2.LINE_AA)
            _label(out, "down", c.mean(axis=0), self.face_down_color, scale, thickness)
        if isinstance(readings, FrameReading) and len(readings.markers):
            out = PolygonAnnotator(self.marker_color, thickness).annotate(out, readings.markers)
        return out


def _point(p: np.ndarray) -> tuple[int, int]:
    return int(round(float(p[0]))), int(round(float(p[1])))


def _label(image: np.ndarray, text: str, center: np.ndarray, color: Color,
           scale: float, thickness: int) -> None:
    font = cv2.FONT_HERSHEY_SIMPLEX
    (w, h), base = cv2.getTextSize(text, font, scale, thickness)
    x, y = int(center[0] - w / 2), int(center[1] + h / 2)
    cv2.rectangle(image, (x - 2, y - h - 2), (x + w + 2, y + base), (255, 255, 255), -1)
    cv2.putText(image, text, (x, y), font, scale, color, thickness, cv2.LINE_AA)
