"""A marker boxed as a tile too is the marker when the tile box reads blank
(vision.reading.boxes.blank_markers)."""

from __future__ import annotations

import numpy as np

from vision.models.detections import Detections
from vision.reading.boxes.blank_markers import SAME_AS_MARKER_IOU, blank_on_markers
from vision.readings import TileReading, TileReadings


def _box(cx: float, cy: float, w: float = 40.0, h: float = 20.0) -> np.ndarray:
    return np.array([[cx - w / 2, cy - h / 2], [cx + w / 2, cy - h / 2],
                     [cx + w / 2, cy + h / 2], [cx - w / 2, cy + h / 2]], np.float32)


def _markers(*boxes: np.ndarray) -> Detections:
    return Detections(np.array(boxes), np.full(len(boxes), 0.6), np.ones(len(boxes), np.int64))


def test_a_blank_reading_on_a_marker_is_the_marker_and_nothing_else_is() -> None:
    tiles = TileReadings.of([
        TileReading((0, 0), _box(100, 100)),  # the pawn, boxed as a tile: dropped
        TileReading((3, 5), _box(300, 100)),  # a tile read with pips there: stays
        TileReading((0, 0), _box(500, 100)),  # the double blank beside a marker: stays
        TileReading((0, 0), _box(700, 100)),  # a double blank, no marker near: stays
    ])
    markers = _markers(_box(102, 101), _box(300, 100), _box(530, 100))
    assert blank_on_markers(tiles, markers).tolist() == [True, False, False, False]
    # the overlap that decides: a marker box slid along the tile until it no longer is one
    slid = _markers(_box(100 + 40 * (1 - SAME_AS_MARKER_IOU) / (1 + SAME_AS_MARKER_IOU) + 2,
                         100))
    assert not blank_on_markers(tiles, slid).any()


def test_no_tiles_or_no_markers() -> None:
    tiles = TileReadings.of([TileReading((0, 0), _box(100, 100))])
    assert blank_on_markers(tiles, Detections.empty()).tolist() == [False]
    assert blank_on_markers(TileReadings.empty(), _markers(_box(100, 100))).tolist() == []
