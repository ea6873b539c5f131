"""vision.reading.boxes.fragments: pieces of one tile found as several boxes are joined into it."""

from __future__ import annotations

import numpy as np

from vision.models.detections import Detections
from vision.reading.boxes.fragments import join_fragments


def _box(cx: float, cy: float, w: float, h: float) -> np.ndarray:
    """An axis-aligned box as 4 corners."""
    return np.array([[cx - w / 2, cy - h / 2], [cx + w / 2, cy - h / 2],
                     [cx + w / 2, cy + h / 2], [cx - w / 2, cy + h / 2]], np.float32)


#: A row of four tiles 64 x 32 (tile-shaped: they set the frame's tile size).
ROW = [_box(100 + 70 * i, 100, 64, 32) for i in range(4)]


def _detections(boxes: list[np.ndarray], scores: list[float] | None = None) -> Detections:
    n = len(boxes)
    return Detections(np.array(boxes), np.array(scores or [0.9] * n), np.zeros(n))


def _sides(corners: np.ndarray) -> tuple[float, float]:
    s = np.linalg.norm(np.roll(corners, -1, axis=0) - corners, axis=1)
    return float(min(s)), float(max(s))


def test_overlapping_pieces_of_a_standing_tile_become_that_tile() -> None:
    # a tile 32 x 64 standing at (400, 100), found as its top and bottom pieces
    pieces = [_box(400, 86, 34, 40), _box(400, 114, 32, 36)]
    out = join_fragments(_detections([*ROW, *pieces], [0.9] * 4 + [0.4, 0.6]))
    assert len(out) == 5
    joined = out.corners[-1]
    short, long_ = _sides(joined)
    assert 30 <= short <= 36 and 62 <= long_ <= 72
    assert np.allclose(joined.mean(axis=0), [400, 99], atol=2)
    assert out.confidence[-1] == np.float32(0.6)
    assert np.array_equal(out.corners[:4], np.array(ROW))


def test_a_lone_piece_lying_on_a_whole_tile_is_dropped() -> None:
    out = join_fragments(_detections([*ROW, _box(110, 100, 30, 30)]))
    assert len(out) == 4
    assert np.array_equal(out.corners, np.array(ROW))


def test_pieces_that_make_no_tile_and_a_lone_piece_elsewhere_stay() -> None:
    # two overlapping squares whose union is far longer than a tile, and one square alone
    stays = [_box(400, 300, 40, 40), _box(460, 300, 100, 40), _box(600, 300, 30, 30)]
    boxes = [*ROW, *stays]
    out = join_fragments(_detections(boxes))
    assert len(out) == len(boxes)


def test_without_enough_whole_tiles_nothing_is_joined() -> None:
    pieces = [_box(400, 86, 34, 40), _box(400, 114, 32, 36)]
    out = join_fragments(_detections([ROW[0], *pieces]))
    assert len(out) == 3
