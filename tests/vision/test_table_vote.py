"""vision.tracking.table_vote: a train read shorter while the tiles it lost lie on no
train is a train read broken, not tiles taken away."""

from __future__ import annotations

import numpy as np

from engine import TableState
from vision.table import TableReading, Uncertainty
from vision.tracking.table_vote import breaks_a_train

SETTLED = TableState.parse("12 | 0: 12-5 5-6 6-1 | 1: 12-3 | mexican:")
SHORTER = "12 | 0: 12-5 | 1: 12-3 3-9 | mexican:"


def read(text: str, unplaced: dict[str, tuple[int, int]]) -> tuple[TableReading, np.ndarray]:
    """``text`` read from its trains' tiles and more tiles read on no train (kind ->
    values), and the counts of every input tile."""
    table = TableState.parse(text)
    values = [pair for train in table.trains for pair in train.tiles]
    doubts = []
    for kind, pair in unplaced.items():
        doubts.append(Uncertainty(kind, f"tile {len(values)} {list(pair)}", (len(values),)))
        values.append(pair)
    reading = TableReading(table, {}, doubts, [None] * len(values))
    return reading, np.array(values, dtype=np.int64).reshape(-1, 2)


def test_a_tile_gone_from_a_train_and_read_on_none_breaks_the_train() -> None:
    for kind in ("gap", "loose-tile"):
        # 6-1 (read 1-6, either way round) lies beyond train 0's end: the train is broken
        assert breaks_a_train(SETTLED, *read(SHORTER, {kind: (1, 6)}))


def test_a_tile_taken_away_is_not_a_broken_train() -> None:
    assert not breaks_a_train(SETTLED, *read(SHORTER, {}))
    # a tile on no train that is not one the trains lost: a new tile laid off a train
    assert not breaks_a_train(SETTLED, *read(SHORTER, {"loose-tile": (2, 8)}))


def test_a_tile_on_no_train_breaks_nothing_while_every_train_is_whole() -> None:
    whole = "12 | 0: 12-5 5-6 6-1 | 1: 12-3 3-9 | mexican:"
    assert not breaks_a_train(SETTLED, *read(whole, {"loose-tile": (5, 6)}))
