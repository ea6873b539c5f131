"""Annotators draw on a copy and show each reading."""

from __future__ import annotations

import numpy as np

from vision.models.detections import Detections
from vision.readings import FrameReading, TileReading, TileReadings
from vision.stills.annotate import PolygonAnnotator, ReadingAnnotator

TILE = np.array([[100, 140], [100, 100], [180, 100], [180, 140]], np.float32)


def is_colour(pixel: np.ndarray, bgr: tuple[int, int, int]) -> bool:
    """Close to ``bgr`` (lines are anti-aliased)."""
    return bool(np.abs(pixel.astype(int) - bgr).max() < 60)


def scene() -> np.ndarray:
    return np.full((300, 400, 3), 50, np.uint8)


def test_polygon_annotator_outlines_each_detection() -> None:
    image = scene()
    drawn = PolygonAnnotator(color=(0, 255, 0), thickness=1).annotate(
        image, Detections(TILE[None], np.array([0.9]), np.array([0])))
    assert np.array_equal(image, scene())  # input untouched
    assert is_colour(drawn[100, 140], (0, 255, 0))  # on the top edge
    assert is_colour(drawn[120, 140], (50, 50, 50))  # inside stays


def test_reading_annotator_colours_by_certainty() -> None:
    sure = TileReading((3, 5), TILE, 0.9, False)
    doubtful = TileReading((1, 2), TILE + [0, 120], 0.2, True)
    marker = Detections((TILE + [200, 0])[None], np.array([0.8]), np.array([1]))
    frame = FrameReading(TileReadings.of([sure, doubtful]), marker)
    annotator = ReadingAnnotator(color=(0, 255, 0), uncertain_color=(0, 0, 255),
                                 marker_color=(255, 0, 0), thickness=1)
    drawn = annotator.annotate(scene(), frame)
    assert drawn.shape == (300, 400, 3)
    assert is_colour(drawn[100, 110], (0, 255, 0))
    assert is_colour(drawn[220, 110], (0, 0, 255))
    assert is_colour(drawn[100, 330], (255, 0, 0))
    # the label is drawn inside the tile: white box behind the text
    assert (drawn[110:130, 110:170] == 255).all(axis=2).any()


def test_reading_annotator_accepts_a_list_of_readings() -> None:
    drawn = ReadingAnnotator().annotate(scene(), [TileReading((0, 0), TILE, 0.9, False)])
    assert not np.array_equal(drawn, scene())


def test_tiles_face_down_are_outlined_apart() -> None:
    frame = FrameReading(TileReadings.empty(), Detections.empty(), (300, 400), (TILE + [0, 120],))
    drawn = ReadingAnnotator(face_down_color=(200, 0, 200), thickness=1).annotate(scene(), frame)
    assert is_colour(drawn[220, 110], (200, 0, 200))
    assert (drawn[230:250, 110:170] == 255).all(axis=2).any()  # its "down" label
