"""vision.tracking.table_vote: a train read shorter while the tiles it lost lie on no
train is a train read broken, not tiles taken away; a doubtful tile read otherwise is
read again; the tiles a settled table showed without doubt are known by their tracks."""

from __future__ import annotations

import numpy as np

from engine import Owner, TableState
from vision.readings import TileReading, TileReadings
from vision.table import TableReading, Uncertainty
from vision.tracking.table_vote import (
    breaks_a_train,
    rereadings,
    settled_inputs,
    sure_tracks,
)

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


def doubting(text: str, doubted: dict[Owner, list[int]]) -> TableReading:
    """``text`` read from its trains' tiles, in order, those ``doubted`` names (train ->
    places) read with doubt."""
    table = TableState.parse(text)
    positions: dict[Owner, list[int]] = {}
    doubts = []
    n = 0
    for train in table.trains:
        positions[train.owner] = list(range(n, n + len(train.tiles)))
        doubts += [Uncertainty("unsure-tile", "", (n + k,)) for k in doubted.get(train.owner, [])]
        n += len(train.tiles)
    return TableReading(table, {}, doubts, [None] * n, positions=positions)


def test_a_doubtful_tile_read_otherwise_is_read_again_beside_a_train_read_shorter() -> None:
    old = doubting("12 | 0: 12-5 5-6 6-1 | 1: 12-3 3-9 | mexican:", {0: [2]})
    # train 0's open end, read 6-1 with doubt, is 6-2; train 1 lost its 3-9
    new = doubting("12 | 0: 12-5 5-6 6-2 2-8 | 1: 12-3 | mexican:", {})
    assert rereadings(old, new) == {(0, 2): ((6, 1), (6, 2))}
    # a tile read without doubt both times, read otherwise: another tile, no re-reading
    sure = doubting("12 | 0: 12-5 5-6 6-1 | 1: 12-3 3-9 | mexican:", {})
    assert rereadings(sure, new) == {}


def test_the_tiles_a_settled_table_shows_without_doubt_are_known_by_track() -> None:
    reading = doubting("12 | 0: 12-5 5-6 | 1: 12-3 | mexican:", {0: [1]})
    tiles = TileReadings.of([TileReading(p, np.zeros((4, 2))) for p in
                             [(12, 5), (5, 6), (3, 12)]], [7, 8, 9])
    sure = sure_tracks(reading, tiles)
    assert sure == {7: (5, 12), 9: (3, 12)}  # the 5-6 was read with doubt
    # a later frame: the 12-5 read so again (track 7), the 12-3 read otherwise (track 9),
    # a new tile (track 10), an untracked box
    later = TileReadings.of([TileReading(p, np.zeros((4, 2))) for p in
                             [(3, 11), (5, 12), (6, 1), (12, 3)]], [9, 7, 10, -1])
    assert settled_inputs(later, sure) == {1}
