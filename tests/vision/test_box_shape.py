"""Small tiles' boxes given their neighbours' shape (``vision.reading.boxes.box_shape``)."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest
from reader_fixtures import untrained_dir

from vision.models.detections import Detections
from vision.reading.boxes.box_shape import (
    axis_degrees,
    box_sizes,
    neighbour_shapes,
    reshape_box,
    to_neighbour_shape,
    turned_boxes,
)
from vision.reading.reader import TileReader


def _box(cx: float, cy: float, width: float, length: float, turn: float = 0.0) -> np.ndarray:
    """Corner convention: 0-1 the short edge at the first end, the tile along ``turn``."""
    u = np.array([np.cos(turn), np.sin(turn)])
    v = np.array([-u[1], u[0]])
    c = np.array([cx, cy])
    a, b = length / 2, width / 2
    return np.array([c - a * u - b * v, c - a * u + b * v, c + a * u + b * v,
                     c + a * u - b * v], np.float32)


def _train(n: int = 9, width: float = 16.0, length: float = 32.0) -> np.ndarray:
    """``n`` tiles end to end along x, as a train seen from above."""
    return np.stack([_box(40 + i * (length + 2), 100, width, length) for i in range(n)])


def test_box_sizes_and_reshape_keep_centre_axis_and_corner_order() -> None:
    box = _box(50, 60, 10, 17, turn=0.7)
    widths, lengths = box_sizes(box[None])
    assert widths[0] == pytest.approx(10, abs=1e-3) and lengths[0] == pytest.approx(17, abs=1e-3)
    out = reshape_box(box, 12, 24)
    w, n = box_sizes(out[None])
    assert w[0] == pytest.approx(12, abs=1e-3) and n[0] == pytest.approx(24, abs=1e-3)
    assert np.allclose(out.mean(0), box.mean(0), atol=1e-3)
    # the same first end and the same turn: corner k moved along its own diagonal
    for k in range(4):
        assert np.dot(out[k] - out.mean(0), box[k] - box.mean(0)) > 0


def test_neighbour_shapes_are_medians_of_the_nearest_boxes() -> None:
    boxes = _train()
    cx, cy = boxes[4].mean(0)
    boxes[4] = _box(cx, cy, 16, 26)  # one short box among 2:1 tiles
    shapes = neighbour_shapes(boxes)
    assert shapes is not None and shapes.shape == (9, 2)
    assert np.allclose(shapes, [16, 32], atol=1e-3)
    assert neighbour_shapes(boxes[:4]) is None  # too few boxes to go by


def test_a_short_or_wide_box_takes_its_neighbours_shape() -> None:
    shape = np.array([16.0, 32.0])
    short = _box(10, 10, 16, 28)
    wide = _box(10, 10, 19, 32)
    for box in (short, wide):
        out = to_neighbour_shape(box, shape)
        assert out is not None
        w, n = box_sizes(out[None])
        assert (w[0], n[0]) == (pytest.approx(16, abs=1e-3), pytest.approx(32, abs=1e-3))
    assert to_neighbour_shape(_box(10, 10, 16, 31.5), shape) is None  # near enough


def test_boxes_that_are_not_a_tile_gone_astray_are_left_alone() -> None:
    shape = np.array([16.0, 32.0])
    assert to_neighbour_shape(_box(10, 10, 16, 14), shape) is None  # a piece of a tile
    assert to_neighbour_shape(_box(10, 10, 32, 32), shape) is None  # two tiles side by side
    # foreshortened neighbours (a slanted photo): no top-down shape to go by
    assert to_neighbour_shape(_box(10, 10, 10, 28), np.array([10.0, 36.0])) is None


class _Found:
    input_size = (384, 384)  # a 640x360 frame goes in at 0.6: 16 px tiles are small

    def __init__(self, detections: Detections) -> None:
        self.detections = detections

    def __call__(self, image: np.ndarray, zoom_out: float = 1.0) -> Detections:
        return self.detections


class _Pips:
    def __call__(self, crops: list[np.ndarray]) -> list[Detections]:
        return [Detections.empty() for _ in crops]


@pytest.fixture(scope="module")
def untrained_models(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return untrained_dir(tmp_path_factory)


@pytest.mark.parametrize("reshape", [True, False])
def test_reader_reads_a_short_small_box_in_its_neighbours_shape(
    untrained_models: Path, reshape: bool
) -> None:
    boxes = _train()
    cx, cy = boxes[4].mean(0)
    short = _box(cx, cy, 16, 26)
    boxes[4] = short
    # the picture is plain grey: every box would be a tile lying face down (no divider)
    reader = TileReader(untrained_models, reshape_small=reshape, spot_face_down=False)
    vars(reader)["detector"] = _Found(
        Detections(boxes, np.full(len(boxes), 0.9, np.float32), np.zeros(len(boxes), int)))
    vars(reader)["pip_detector"] = _Pips()
    frame = reader.read(np.full((360, 640, 3), 90, np.uint8))  # small tiles: 16 px wide
    assert len(frame.tiles) == 9
    centre = short.mean(0)
    tile = min(frame.tiles.each(), key=lambda t: float(np.linalg.norm(t.corners.mean(0) - centre)))
    _, length = box_sizes(tile.corners[None])
    assert length[0] == pytest.approx(32 if reshape else 26, abs=0.01)


def test_a_nearly_square_box_is_turned_along_and_across_its_neighbours() -> None:
    boxes = _train()
    cx, cy = boxes[4].mean(0)
    boxes[4] = _box(cx, cy, 30, 36, turn=np.radians(50))  # a double boxed askew
    shape = np.array([16.0, 32.0])
    turned = turned_boxes(boxes, 4, shape)
    assert sorted(round(float(a)) for a in axis_degrees(np.array(turned))) == [0, 90]
    for box in turned:
        w, n = box_sizes(box[None])
        assert (w[0], n[0]) == (pytest.approx(16, abs=1e-3), pytest.approx(32, abs=1e-3))
        assert np.allclose(box.mean(0), (cx, cy), atol=1e-3)


def test_boxes_with_a_clear_axis_are_not_turned() -> None:
    boxes = _train()
    shape = np.array([16.0, 32.0])
    assert turned_boxes(boxes, 4, shape) == []  # a tile's own 2:1 box
    cx, cy = boxes[4].mean(0)
    boxes[4] = _box(cx, cy, 30, 36, turn=np.radians(3))
    assert turned_boxes(boxes, 4, shape) != []
    boxes[4] = _box(cx, cy, 30, 36, turn=0.0)  # square, but on the train's axis already:
    assert [round(float(a)) for a in axis_degrees(np.array(turned_boxes(boxes, 4, shape)))] \
        == [90]  # only across
    # foreshortened neighbours (a slanted photo): no top-down shape to go by
    assert turned_boxes(boxes, 4, np.array([10.0, 36.0])) == []


def test_a_nearly_square_box_in_a_hand_laid_side_by_side_is_not_turned() -> None:
    hand = np.stack([_box(40 + i * 18, 100, 16, 32, turn=np.pi / 2) for i in range(9)])
    cx, cy = hand[4].mean(0)
    hand[4] = _box(cx, cy, 30, 36, turn=np.radians(50))
    assert turned_boxes(hand, 4, np.array([16.0, 32.0])) == []


class _FaceClassifier:
    """Sure of a half crop that shows tile face (bright) all over, doubtful of one
    that shows the dark table: a stand-in for the ``halves`` model reading pips."""

    names = tuple(f"{v:02d}" for v in range(19))

    def __call__(self, crops: list[np.ndarray]) -> np.ndarray:
        rows = np.full((len(crops), 19), 0.0, np.float32)
        for k, crop in enumerate(crops):
            h, w = crop.shape[:2]
            face = float((crop[h // 4:3 * h // 4, w // 4:3 * w // 4] > 128).mean())
            rows[k, 5] = face ** 4
            rows[k, 0] = 1.0 - rows[k, 5]
        return rows


@pytest.mark.parametrize("turn", [True, False])
def test_reader_reads_a_double_across_a_train_from_an_askew_box(
    untrained_models: Path, turn: bool
) -> None:
    """A double laid across a train, boxed nearly square and 45 degrees off: turned
    across the train, the box shows the double's face and is read with confidence."""
    boxes = _train(width=24, length=48)
    image = np.full((360, 640, 3), 40, np.uint8)
    for box in boxes:
        cv2.fillPoly(image, [np.round(box).astype(np.int32)], (235, 235, 235))
    cx, cy = boxes[4].mean(0)
    double = _box(cx, cy, 24, 48, turn=np.pi / 2)
    cv2.fillPoly(image, [np.round(boxes[4]).astype(np.int32)], (40, 40, 40))
    cv2.fillPoly(image, [np.round(double).astype(np.int32)], (235, 235, 235))
    boxes[4] = _box(cx, cy, 40, 44, turn=np.radians(45))
    reader = TileReader(untrained_models, turn_squarish=turn, even_halves=False)
    vars(reader)["detector"] = _Found(
        Detections(boxes, np.full(len(boxes), 0.9, np.float32), np.zeros(len(boxes), int)))
    vars(reader)["half_classifier"] = _FaceClassifier()
    vars(reader)["pip_detector"] = _Pips()
    frame = reader.read(image)
    tile = min(frame.tiles.each(),
               key=lambda t: float(np.linalg.norm(t.corners.mean(0) - (cx, cy))))
    across = abs(float(axis_degrees(tile.corners[None])[0]) - 90) < 1
    assert across == turn
    assert (tile.values == (5, 5) and not tile.uncertain) == turn
