"""The table decoded jointly under the set's one tile of each kind
(``vision.table.counts.decode``)."""

from __future__ import annotations

import dataclasses

from table_fixtures import ENGINE, SEAT0_DOWN, kinds, lengthwise

from vision.readings import TileReading
from vision.table import TableReading, reconstruct


def _tiles(reading: TableReading, owner: int) -> tuple[tuple[int, int], ...]:
    assert reading.table is not None
    train = reading.table.train(owner)
    assert train is not None
    return train.tiles


def _seat1(third_sure: float, fourth_sure: float) -> list[TileReading]:
    """Seat 1's train, leftwards: 9-5, 5-3, then a 3-6 and a 6-8 whose facing 6s were read
    4 (a 3-4 lies on seat 0's train)."""
    third = lengthwise((-168, 0), (-192, 0), (3, 4))
    fourth = lengthwise((-216, 0), (-240, 0), (4, 8))
    return [lengthwise((-72, 0), (-96, 0), (9, 5)), lengthwise((-120, 0), (-144, 0), (5, 3)),
            dataclasses.replace(third, half_certainty=(1.0, third_sure),
                                ranges=((3, 3), (4, 6))),
            dataclasses.replace(fourth, half_certainty=(fourth_sure, 1.0),
                                ranges=((3, 6), (8, 8)))]


def test_a_repeat_read_with_doubt_takes_the_likeliest_counts_no_tile_repeats() -> None:
    tiles = [ENGINE, *SEAT0_DOWN, *_seat1(0.5, 0.6)]
    reading = reconstruct(tiles, None, 3)
    assert reading.table is not None
    # 5 would repeat the 5-3: the joint takes 6, and both tiles it joins follow
    assert _tiles(reading, 1) == ((9, 5), (5, 3), (3, 6), (6, 8))
    assert _tiles(reading, 0) == tuple(t.values for t in SEAT0_DOWN)
    assert reading.decoded == {7: (3, 6), 8: (6, 8)}
    assert kinds(reading) == ["set-decoded", "set-decoded"]
    assert reading.doubted(1, 2) and reading.doubted(1, 3) and not reading.doubted(0, 3)
    assert reading.to_json()["decoded"] == [{"tile": 7, "taken": [3, 6]},
                                           {"tile": 8, "taken": [6, 8]}]


def test_a_repeat_read_surely_stays_for_the_rules() -> None:
    for sure in ((0.95, 0.6), (0.5, 0.95)):  # either half sure: the joint cannot move
        reading = reconstruct([ENGINE, *SEAT0_DOWN, *_seat1(*sure)], None, 3)
        assert reading.table is not None
        assert _tiles(reading, 1) == ((9, 5), (5, 3), (3, 4), (4, 8))
        assert reading.decoded == {}
        assert "set-decoded" not in kinds(reading)


def test_the_decoder_keeps_what_a_trains_end_forces() -> None:
    # the only count the doubted joint's halves share that repeats nothing breaks no match
    tiles = [ENGINE, *SEAT0_DOWN, *_seat1(0.5, 0.6)]
    tiles[-1] = dataclasses.replace(tiles[-1], ranges=((4, 5), (8, 8)))
    reading = reconstruct(tiles, None, 3)
    assert reading.table is not None
    # 5 is the one count both halves could be, and it would repeat the 5-3: nothing moves
    assert _tiles(reading, 1) == ((9, 5), (5, 3), (3, 4), (4, 8))
    assert reading.decoded == {}


def test_no_repeat_no_change() -> None:
    tiles = [ENGINE, *SEAT0_DOWN, *_seat1(0.5, 0.6)]
    tiles[4] = lengthwise((0, 216), (0, 240), (3, 7))  # seat 0 ends 3-7: no 3-4 twice
    reading = reconstruct(tiles, None, 3)
    assert reading.table is not None
    assert _tiles(reading, 1) == ((9, 5), (5, 3), (3, 4), (4, 8))
    assert reading.decoded == {}


def test_an_engine_with_a_half_misread_is_the_count_its_trains_leave_with() -> None:
    # the 9-9 read 9-8 with doubt, no mat: two trains leave it with 9
    misread = dataclasses.replace(ENGINE, values=(9, 8), uncertain=True,
                                  half_certainty=(0.97, 0.5), ranges=((9, 9), (8, 9)))
    tiles = [misread, *SEAT0_DOWN, *_seat1(0.97, 0.97)[:2]]
    reading = reconstruct(tiles, None, 3)
    assert reading.table is not None and reading.table.engine == 9
    assert _tiles(reading, 0) == tuple(t.values for t in SEAT0_DOWN)
    assert _tiles(reading, 1) == ((9, 5), (5, 3))
    assert "engine-read" in kinds(reading)
    # read so surely that no 9-9 is allowed, it is no engine
    sure = dataclasses.replace(misread, ranges=((9, 9), (8, 8)))
    reading = reconstruct([sure, *SEAT0_DOWN, *_seat1(0.97, 0.97)[:2]], None, 3)
    assert reading.table is None
