"""The reader's two tile detectors: the table one for tables, the close-up one, loaded on
first need, for close-ups and hands (``vision.reading.detector_pair``)."""

from __future__ import annotations

from typing import Any, cast

import numpy as np
from reader_fixtures import MODELS, needs_trained_models

from datasets.render import render_closeup, render_table, scene_rng
from vision.models.onnx_models import ObbDetector
from vision.reading.detector_pair import DetectorPair
from vision.reading.look_sizes import CLOSE_UP_TILE_PX, tile_width
from vision.reading.reader import TileReader


def _fake(name: str) -> ObbDetector:
    return cast(ObbDetector, type(name, (), {})())


def test_the_closeup_detector_is_made_once_on_first_need() -> None:
    made: list[Any] = []
    table = _fake("table")

    def load() -> ObbDetector:
        made.append(_fake("closeup"))
        return cast(ObbDetector, made[-1])

    pair = DetectorPair(table, load)
    assert pair.pairs(table) and made == []
    closeup = pair.closeup_for(table)
    assert closeup is not table and pair.closeup_for(table) is closeup and len(made) == 1
    other = _fake("replaced")  # a reader whose detector was replaced reads with it alone
    assert not pair.pairs(other) and pair.closeup_for(other) is other
    assert not pair.pairs(closeup) and pair.closeup_for(closeup) is closeup


def test_without_a_closeup_model_the_table_detector_does_everything() -> None:
    table = _fake("table")
    pair = DetectorPair(table, None)
    assert not pair.pairs(table) and pair.closeup_for(table) is table


def _same(a: Any, b: Any) -> bool:
    return bool(np.array_equal(a.tiles.corners, b.tiles.corners)
                and [t.values for t in a.tiles.each()] == [t.values for t in b.tiles.each()])


@needs_trained_models
def test_a_table_is_read_by_the_table_detector_and_a_close_up_by_the_closeup_one() -> None:
    reader = TileReader(MODELS)
    assert reader.closeup_detector is not reader.detector
    alone = TileReader(MODELS)
    alone.detector = TileReader(MODELS).detector  # another's: no close-up detector beside it
    assert alone.closeup_detector is alone.detector
    table = render_table(scene_rng(8301, 0)).image
    first = reader.detector(table)
    width = tile_width(first[first.class_id == reader.tile_class])
    assert width is not None and width < CLOSE_UP_TILE_PX
    assert _same(reader.read(table), alone.read(table))
    closeup = render_closeup(scene_rng(8302, 0)).image
    first = reader.detector(closeup)
    width = tile_width(first[first.class_id == reader.tile_class])
    assert width is None or width >= CLOSE_UP_TILE_PX
    reader.reset()
    by_closeup = TileReader(MODELS)
    by_closeup.detector = by_closeup.closeup_detector
    assert _same(reader.read(closeup), by_closeup.read(closeup))


@needs_trained_models
def test_a_hand_is_read_by_the_closeup_detector_whatever_its_tiles_size() -> None:
    reader = TileReader(MODELS)
    hands = reader.for_hands()
    assert hands.detector is reader.closeup_detector
    assert reader.detector is not hands.detector  # the reader itself is unchanged
    assert hands.closeup_detector is hands.detector


def _boxes(found: Any, cls: int) -> np.ndarray:
    return np.asarray(found.corners[found.class_id == cls])


@needs_trained_models
def test_the_closeup_detector_names_the_markers_of_every_table_look() -> None:
    """A whole frame's look and a window's (a tracker's) by the table detector keep its
    tiles and take the close-up detector's markers at the same scale."""
    reader = TileReader(MODELS)
    table = render_table(scene_rng(8301, 0)).image
    found = reader.detect(table)
    side = int(round(float(found.metadata["gain"]) * max(table.shape[:2])))
    closeup = reader.closeup_detector.unchecked(table, long_side=side)
    mark = reader.marker_class
    assert np.array_equal(_boxes(found, mark), _boxes(closeup, mark))
    gain = reader.window_gain(table.shape[:2])
    assert gain is not None
    h, w = table.shape[:2]
    window = (w // 4, h // 4, w // 4 + 640, h // 4 + 640 * h // w)
    core = (window[0] + 20.0, window[1] + 20.0, window[2] - 20.0, window[3] - 20.0)
    looked = reader.detect_window(table, window, gain, core)
    by_table = reader.detector.detect_window(table, window, gain, core)
    by_closeup = reader.closeup_detector.unchecked_window(table, window, gain, core)
    assert np.array_equal(_boxes(looked, reader.tile_class), _boxes(by_table, reader.tile_class))
    assert np.array_equal(_boxes(looked, mark), _boxes(by_closeup, mark))
