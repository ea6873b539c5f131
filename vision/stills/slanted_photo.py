"""A photo taken at a slant, looked at again as if from straight above the table.

The tile detector gives oriented rectangles, and a tile seen at a slant has a
face that perspective makes a trapezium: the rectangle takes in table and the
tile's side at two corners and cuts the face at the others, and the half crops
cut from it are sheared. On 200 rendered hands scenes (seed 9101), tiles seen at
a slant read right 91.8 % of the time through the reader and 98.7 % at their true
corners; tiles seen from above, 98.0 % either way.

All the tiles lie on one plane, the table, and all are the same size. Where the
camera is nearer, they look bigger: the image area of a patch of the plane is
proportional to the cube of ``a*u + b*v + c`` (``u, v``: the patch's position in
the image, in focal lengths from its middle), a plane's vanishing line, and the
plane's normal in the camera's frame is ``(a, b, c)``. So the cube roots of the
tiles' areas, fitted as a linear function of their positions, give the table's
tilt; the image turned by that tilt (``K R K^-1``, with a phone's field of view,
``FOV_DEG``) shows the table from straight above, where a face is a rectangle
again. :func:`read_from_above` reads the photo as it is, and again from above
when it is tilted ``MIN_TILT``-``MAX_TILT`` degrees; each tile keeps the more
confident of its two readings (its corners taken back into the photo).

For still photos of hands (``mtrain score``, the app's end-of-round photos), not
for tables: a table's camera hangs above it, and its reading has rules of its own.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import cv2
import numpy as np

from vision.models.detections import match_boxes, polygon_areas
from vision.readings import FrameReading, TileReading, TileReadings

#: Field of view (degrees) across the image's long side assumed for the camera:
#: a phone's main camera is 65-75, the renderer draws 55-75.
FOV_DEG = 65.0
#: Tilts (degrees from straight down) read again from above. Below, a photo is
#: taken from above already (the fit's noise on rendered top-down hands reaches
#: 15-24); above, the fit is taken for noise: before the readings were merged,
#: three rendered hands whose fit said 59, 62 and 77 degrees lost every tile when
#: looked at from "above" (the renderer's steepest phone view is 55).
MIN_TILT = 15.0
MAX_TILT = 55.0
#: Tiles needed to fit the tilt (three points fix a plane).
MIN_TILES = 3
#: Longest side of the view from above (pixels).
MAX_SIDE = 2600
#: The view covers the tiles read, and this many of their median lengths around them.
REACH = 2.0
#: Two readings overlapping this much (IoU) in the photo are the same tile.
SAME_TILE_IOU = 0.3


def _camera(shape: tuple[int, int], fov_deg: float) -> np.ndarray:
    h, w = shape
    f = 0.5 * max(w, h) / np.tan(np.radians(fov_deg) / 2)
    return np.array([[f, 0.0, w / 2], [0.0, f, h / 2], [0.0, 0.0, 1.0]])


def plane_normal(corners: np.ndarray, shape: tuple[int, int],
                 fov_deg: float = FOV_DEG) -> np.ndarray | None:
    """The table's normal in the camera's frame (unit, pointing at the camera) from the
    tiles' image corners ``(N, 4, 2)``, or None when they cannot tell it (fewer than
    ``MIN_TILES``, or all in a line)."""
    corners = np.asarray(corners, np.float64).reshape(-1, 4, 2)
    if len(corners) < MIN_TILES:
        return None
    k = _camera(shape, fov_deg)
    centres = (corners.mean(axis=1) - k[:2, 2]) / k[0, 0]
    design = np.column_stack([centres, np.ones(len(centres))])
    spread = np.linalg.svd(centres - centres.mean(axis=0), compute_uv=False)
    size = float(np.median(np.sqrt(polygon_areas(corners)))) / k[0, 0]
    if spread[-1] < size:  # a line of tiles tells nothing across it
        return None
    line, *_ = np.linalg.lstsq(design, np.cbrt(polygon_areas(corners)), rcond=None)
    norm = float(np.linalg.norm(line))
    if not np.isfinite(norm) or norm == 0.0:
        return None
    normal = line / norm
    return normal if normal[2] > 0 else -normal


def tilt_degrees(normal: np.ndarray) -> float:
    """How far a plane with ``normal`` (camera frame) is turned from facing the camera."""
    return float(np.degrees(np.arccos(np.clip(abs(normal[2]), 0.0, 1.0))))


def view_from_above(corners: np.ndarray, shape: tuple[int, int], normal: np.ndarray,
                    fov_deg: float = FOV_DEG) -> tuple[np.ndarray, tuple[int, int]] | None:
    """The homography from the photo to a view of the table from straight above, and
    that view's size (width, height): the tiles ``corners`` and ``REACH`` tile lengths
    round them, at about the tiles' size in the photo. None if they do not map to a
    finite view."""
    k = _camera(shape, fov_deg)
    axis = np.cross(normal, [0.0, 0.0, 1.0])
    sine = float(np.linalg.norm(axis))
    if sine < 1e-9:
        return None
    turn, _ = cv2.Rodrigues(axis / sine * np.arctan2(sine, float(normal[2])))
    to_above = k @ turn @ np.linalg.inv(k)
    corners = np.asarray(corners, np.float64).reshape(-1, 4, 2)
    seen = cv2.perspectiveTransform(corners.reshape(-1, 1, 2), to_above).reshape(-1, 4, 2)
    if not np.all(np.isfinite(seen)):
        return None
    sizes, seen_sizes = np.sqrt(polygon_areas(corners)), np.sqrt(polygon_areas(seen))
    scale = float(np.median(sizes) / np.median(seen_sizes))
    reach = REACH * float(np.median(np.linalg.norm(seen[:, 2] - seen[:, 1], axis=1)))
    low, high = seen.reshape(-1, 2).min(axis=0) - reach, seen.reshape(-1, 2).max(axis=0) + reach
    # no further than the photo itself reaches
    h, w = shape
    frame = cv2.perspectiveTransform(np.array([[[0.0, 0.0]], [[w, 0.0]], [[w, h]], [[0.0, h]]]),
                                     to_above).reshape(-1, 2)
    if np.all(np.isfinite(frame)):
        low, high = np.maximum(low, frame.min(axis=0)), np.minimum(high, frame.max(axis=0))
    span = high - low
    if not (np.all(np.isfinite(span)) and np.all(span > 0) and np.isfinite(scale) and scale > 0):
        return None
    scale = min(scale, MAX_SIDE / float(span.max()))
    shift = np.array([[scale, 0.0, -low[0] * scale], [0.0, scale, -low[1] * scale],
                      [0.0, 0.0, 1.0]])
    size = (max(int(np.ceil(span[0] * scale)), 32), max(int(np.ceil(span[1] * scale)), 32))
    return shift @ to_above, size


def _back(tile: TileReading, from_above: np.ndarray) -> TileReading:
    corners = cv2.perspectiveTransform(np.asarray(tile.corners, np.float64).reshape(-1, 1, 2),
                                       from_above)
    return replace(tile, corners=corners.reshape(4, 2).astype(np.float32))


def merge(first: list[TileReading], second: list[TileReading]) -> list[TileReading]:
    """``first``, each tile replaced by the reading of it in ``second`` when that one is
    at least as confident (the same tile: boxes overlapping ``SAME_TILE_IOU``, pairs
    taken best overlap first, one to one). Best first."""
    out = list(first)
    pairs = match_boxes(np.array([t.corners for t in first], np.float64).reshape(-1, 4, 2),
                        np.array([t.corners for t in second], np.float64).reshape(-1, 4, 2),
                        SAME_TILE_IOU)
    for i, j in pairs:
        if second[j].confidence >= first[i].confidence:
            out[i] = second[j]
    return sorted(out, key=lambda t: -t.confidence)


def read_from_above(reader: Any, image: np.ndarray, fov_deg: float = FOV_DEG) -> FrameReading:
    """``reader.read(image)``, and when the tiles show the table tilted ``MIN_TILT`` to
    ``MAX_TILT`` degrees, read again from straight above (module docstring)."""
    reset = getattr(reader, "reset", None)
    if reset is not None:
        reset()  # a still: read as a fresh reader would
    frame: FrameReading = reader.read(image)
    shape = (int(image.shape[0]), int(image.shape[1]))
    corners = np.asarray(frame.tiles.corners, np.float64).reshape(-1, 4, 2)
    normal = plane_normal(corners, shape, fov_deg)
    if normal is None or not MIN_TILT <= tilt_degrees(normal) <= MAX_TILT:
        return frame
    view = view_from_above(corners, shape, normal, fov_deg)
    if view is None:
        return frame
    to_above, size = view
    above = cv2.warpPerspective(image, to_above, size, flags=cv2.INTER_LINEAR)
    if reset is not None:
        reset()  # no closer look carried from the photo
    seen = reader.read(above)
    from_above = np.linalg.inv(to_above)
    tiles = merge(frame.tiles.each(), [_back(t, from_above) for t in seen.tiles.each()])
    return FrameReading(TileReadings.of(tiles), frame.markers, shape, frame.backs)
