"""vision.table.counts.consistency: counts settled by a tile's neighbours, the set's one
tile of each kind and the reader's ranges (``matched-read``)."""

from __future__ import annotations

from typing import Any

import numpy as np
from table_fixtures import (
    ELEVEN_EIGHT,
    ENGINE,
    MEXICAN_TO_11,
    SEAT0_DOWN,
    crosswise,
    crosswise_read,
    doubted,
    kinds,
    lengthwise,
    ranged,
)

from engine import MEXICAN
from vision.readings import TileReading
from vision.table import TableReading, reconstruct


def test_misread_halves_are_settled_by_their_neighbours_within_the_readers_doubt() -> None:
    # the true Mexican train is 9-3 3-11 11-11 11-8; a blurred 11 was read 12 and 10
    three_eleven = lengthwise((120, 0), (144, 0), (3, 11))
    tiles: list[TileReading] = [ENGINE,
             lengthwise((72, 0), (96, 0), (9, 3)),
             # read far end first (either order), 12 where 11 or 12 could be
             ranged(TileReading((12, 3), np.roll(three_eleven.corners, 2, axis=0)),
                     ((11, 12), (3, 3))),
             ranged(crosswise((168, 0), (0, 1), 10), ((10, 11), (10, 11))),
             ranged(lengthwise((192, 0), (216, 0), (10, 8)), ((10, 11), (8, 8)))]
    reading = reconstruct(tiles, None, 3)
    assert reading.table is not None
    assert reading.table.train(MEXICAN).tiles == (  # type: ignore[union-attr]
        (9, 3), (3, 11), (11, 11), (11, 8))
    assert kinds(reading) == ["matched-read"] * 3
    assert "read 12-3; taken as 3-11" in reading.uncertainties[0].message


def test_a_count_the_reader_is_sure_of_is_not_matched() -> None:
    # 6-2 laid on 1: the reader could see 6 or 7 pips, never 1: a mismatch for the rules
    tiles: list[TileReading] = [ENGINE, SEAT0_DOWN[0],
             ranged(lengthwise((0, 120), (0, 144), (6, 2)), ((6, 7), (2, 2)))]
    reading = reconstruct(tiles, None, 3)
    assert reading.table is not None
    assert reading.table.train(0).tiles == ((9, 1), (6, 2))  # type: ignore[union-attr]
    assert "matched-read" not in kinds(reading)


def test_a_doubtful_open_end_does_not_repeat_a_tile_on_the_table() -> None:
    # seat 0's train starts 9-1; the Mexican train's new tile is a blurred 9-2 read 9-1
    tiles: list[TileReading] = [ENGINE, *SEAT0_DOWN,  # 9-1 1-2 2-3 3-4
             ranged(lengthwise((72, 0), (96, 0), (9, 1)), ((9, 9), (1, 2)))]
    reading = reconstruct(tiles, None, 3)
    assert reading.table is not None
    assert reading.table.train(MEXICAN).tiles == ((9, 2),)  # type: ignore[union-attr]
    assert kinds(reading) == ["matched-read"]
    # read without doubt, the repeat stays for the rules to report
    sure = [ENGINE, *SEAT0_DOWN, lengthwise((72, 0), (96, 0), (9, 1))]
    reading = reconstruct(sure, None, 3)
    assert reading.table is not None
    assert reading.table.train(MEXICAN).tiles == ((9, 1),)  # type: ignore[union-attr]
    assert reading.table.problems(12, 3) != []


def mexican_across(middle: Any) -> tuple[TableReading, tuple[tuple[int, int], ...]]:
    """The reading of MEXICAN_TO_11, ``middle`` at 168, 11-8, and its Mexican train."""
    reading = reconstruct([*MEXICAN_TO_11, middle, ELEVEN_EIGHT], None, 3)
    assert reading.table is not None
    train = reading.table.train(MEXICAN)
    assert train is not None
    return reading, train.tiles


def test_a_tile_lying_crosswise_that_could_be_the_ends_double_is_that_double() -> None:
    # a blurred 11-11 across the train read 12-11 (either half could be 11), then 11-8
    reading, mexican = mexican_across(
        ranged(crosswise_read((168, 0), (12, 11)), ((11, 12), (11, 11))))
    assert mexican == ((9, 3), (3, 11), (11, 11), (11, 8))
    assert kinds(reading) == ["matched-read"]
    assert "lies crosswise" in reading.uncertainties[0].message


def test_a_doubted_tile_lying_crosswise_is_the_ends_double() -> None:
    # over-counted: 12-13, neither 11 within the band, but the reader doubted it
    doubtful = doubted(crosswise_read((168, 0), (12, 13)), ((12, 12), (13, 14)))
    _, mexican = mexican_across(doubtful)
    assert mexican == ((9, 3), (3, 11), (11, 11), (11, 8))


def test_a_double_across_its_train_matched_to_its_end_stays_a_double() -> None:
    # a blurred 11-11 across the train read 10-10, the near half could be 11, the far
    # half not: it lies across, so it is the 11-11 (the 11-8 lies on it), not an 11-10
    for kind in (ranged, doubted):
        reading, mexican = mexican_across(
            kind(crosswise_read((168, 0), (10, 10)), ((9, 10), (10, 11))))
        assert mexican == ((9, 3), (3, 11), (11, 11), (11, 8))
        assert "taken as 11-11" in reading.uncertainties[-1].message
    # the same reading at the train's end: the double waiting there is the 11-11 too
    reading = reconstruct([*MEXICAN_TO_11, ranged(crosswise_read((168, 0), (10, 10)),
                                                   ((9, 10), (10, 11)))], None, 3)
    assert reading.table is not None
    assert reading.table.train(MEXICAN).tiles == (  # type: ignore[union-attr]
        (9, 3), (3, 11), (11, 11))


def test_a_double_in_a_train_read_as_the_engine_is_the_double_of_its_end() -> None:
    # the engine is 9-9: a 11-11 inside the Mexican train read 9-9 cannot be a second 9-9
    reading, mexican = mexican_across(crosswise((168, 0), (0, 1), 9))
    assert mexican == ((9, 3), (3, 11), (11, 11), (11, 8))
    assert kinds(reading) == ["matched-read"]
    assert "engine's twin" in reading.uncertainties[0].message
    # laid on a 9, a 9-9 is still the engine's twin: nothing to take it for; the rules see it
    on_nine = [ENGINE, lengthwise((72, 0), (96, 0), (9, 3)),
               lengthwise((120, 0), (144, 0), (3, 9)), crosswise((168, 0), (0, 1), 9)]
    reading = reconstruct(on_nine, None, 3)
    assert reading.table is not None
    assert reading.table.train(MEXICAN).tiles == (  # type: ignore[union-attr]
        (9, 3), (3, 9), (9, 9))
    assert "matched-read" not in kinds(reading)


def test_an_engine_twin_and_its_misread_neighbours_take_a_count_they_could_all_be() -> None:
    # true Mexican train 9-3 3-8 8-8 8-5; every 8 was over-counted 9 (engine 9-9), and the
    # singles' ranges allow 8: the double and both neighbours become 8
    tiles: list[TileReading] = [ENGINE, lengthwise((72, 0), (96, 0), (9, 3)),
             ranged(lengthwise((120, 0), (144, 0), (3, 9)), ((3, 3), (8, 9))),
             crosswise((168, 0), (0, 1), 9),
             ranged(lengthwise((192, 0), (216, 0), (9, 5)), ((8, 9), (5, 5)))]
    reading = reconstruct(tiles, None, 3)
    assert reading.table is not None
    assert reading.table.train(MEXICAN).tiles == (  # type: ignore[union-attr]
        (9, 3), (3, 8), (8, 8), (8, 5))
    assert kinds(reading) == ["matched-read"]


def test_a_single_read_as_a_double_is_matched_by_whichever_half_could_be_the_end() -> None:
    # 11-8 read 8-8: the 8 is sure, the other half could be 7 to 12, so it is the 11
    tiles: list[TileReading] = [*MEXICAN_TO_11,
             ranged(lengthwise((168, 0), (192, 0), (8, 8)), ((8, 8), (7, 12)))]
    reading = reconstruct(tiles, None, 3)
    assert reading.table is not None
    assert reading.table.train(MEXICAN).tiles == (  # type: ignore[union-attr]
        (9, 3), (3, 11), (11, 8))
    assert kinds(reading) == ["matched-read"]


def test_the_same_double_twice_at_a_trains_end_is_one_tile() -> None:
    # Mexican train 9-3 3-3, and a second box on the 3-3 read 3-3 beyond it
    tiles = [ENGINE, lengthwise((72, 0), (96, 0), (9, 3)), crosswise((120, 0), (0, 1), 3),
             lengthwise((144, 0), (168, 0), (3, 3))]
    reading = reconstruct(tiles, None, 3)
    assert reading.table is not None
    assert reading.table.train(MEXICAN).tiles == ((9, 3), (3, 3))  # type: ignore[union-attr]
    assert kinds(reading) == ["loose-tile"]
    assert reading.assignment[3] is None


def test_a_tile_matching_neither_neighbour_is_the_tile_they_both_say() -> None:
    # seat 0: 9-1 1-2 2-3 3-4; the 1-2's box slid along it, both halves misread: 0-1
    both = TileReading((0, 1), SEAT0_DOWN[1].corners)
    reading = reconstruct([ENGINE, SEAT0_DOWN[0], both, SEAT0_DOWN[2], SEAT0_DOWN[3]], None, 3)
    assert reading.table is not None
    assert reading.table.train(0).tiles == (  # type: ignore[union-attr]
        (9, 1), (1, 2), (2, 3), (3, 4))
    assert kinds(reading) == ["matched-read"]
    assert "neither" in reading.uncertainties[0].message
    assert reading.table.problems(12, 3) == []
    # a train's first tile lies on the engine's count
    first = TileReading((8, 0), SEAT0_DOWN[0].corners)
    start = reconstruct([ENGINE, first, *SEAT0_DOWN[1:]], None, 3)
    assert start.table is not None
    assert start.table.train(0).tiles[0] == (9, 1)  # type: ignore[union-attr]
    # a tile laid wrong matches what is laid on it: it stays, for the rules to judge
    wrong = TileReading((6, 2), SEAT0_DOWN[1].corners)
    laid = reconstruct([ENGINE, SEAT0_DOWN[0], wrong, SEAT0_DOWN[2], SEAT0_DOWN[3]], None, 3)
    assert laid.table is not None
    assert laid.table.train(0).tiles[1] == (6, 2)  # type: ignore[union-attr]
    assert "matched-read" not in kinds(laid)
    # nor is a train's last tile, which nothing is laid on, changed
    last = TileReading((0, 5), SEAT0_DOWN[3].corners)
    open_end = reconstruct([ENGINE, *SEAT0_DOWN[:3], last], None, 3)
    assert open_end.table is not None
    assert open_end.table.train(0).tiles[3] == (0, 5)  # type: ignore[union-attr]
    # nor is it taken as a tile already on the table (the Mexican train holds a 1-2)
    mexican = [lengthwise((72, 0), (96, 0), (9, 12)), lengthwise((120, 0), (144, 0), (12, 1)),
               lengthwise((168, 0), (192, 0), (1, 2))]
    seen = reconstruct([ENGINE, SEAT0_DOWN[0], both, *SEAT0_DOWN[2:], *mexican], None, 3)
    assert seen.table is not None
    assert seen.table.train(MEXICAN).tiles[2] == (1, 2)  # type: ignore[union-attr]
    assert seen.table.train(0).tiles[1] == (0, 1)  # type: ignore[union-attr]


def test_a_double_read_twice_on_the_table_is_settled_by_its_neighbours() -> None:
    # Mexican train 9-3 3-5 5-5 5-6, the 3-5 (lengthwise) read 5-5: a set has one 5-5,
    # and the one lying across after it matches, so the first is the 3-5
    tiles = [ENGINE, lengthwise((72, 0), (96, 0), (9, 3)),
             lengthwise((120, 0), (144, 0), (5, 5)), crosswise((168, 0), (0, 1), 5),
             lengthwise((192, 0), (216, 0), (5, 6))]
    reading = reconstruct(tiles, None, 3)
    assert reading.table is not None
    assert reading.table.train(MEXICAN).tiles == (  # type: ignore[union-attr]
        (9, 3), (3, 5), (5, 5), (5, 6))
    assert kinds(reading) == ["matched-read"]
    # with no twin, a double read lengthwise that does not match stays, for the rules
    tiles[3:] = [lengthwise((168, 0), (192, 0), (5, 6))]
    reading = reconstruct(tiles, None, 3)
    assert reading.table is not None
    assert reading.table.train(MEXICAN).tiles == (  # type: ignore[union-attr]
        (9, 3), (5, 5), (5, 6))


def test_a_count_beyond_its_range_is_taken_within_it() -> None:
    # Mexican train 9-3 3-12 12-12: the 3-12's 12 read 13 (beyond a double-12 set: its
    # range is the set's top counts), and the 12-12 across it read 10-12 with doubt;
    # the train holds no 13 (no 13-13 taken for the doubted double)
    over = doubted(lengthwise((120, 0), (144, 0), (3, 13)), ((3, 3), (9, 12)))
    double = doubted(crosswise_read((168, 0), (10, 12)), ((10, 10), (12, 12)))
    tiles: list[TileReading] = [ENGINE, lengthwise((72, 0), (96, 0), (9, 3)), over, double]
    reading = reconstruct(tiles, None, 3)
    assert reading.table is not None
    assert reading.table.train(MEXICAN).tiles == (  # type: ignore[union-attr]
        (9, 3), (3, 12), (12, 12))


def test_a_tile_read_as_one_also_on_the_table_is_settled_by_its_neighbours() -> None:
    # seat 0: 9-1 1-2 2-3; Mexican 9-3 3-5 5-6, the 3-5 read 3-2: a set has one 2-3, and
    # this one does not match the 5-6 laid on it
    mexican = [lengthwise((72, 0), (96, 0), (9, 3)), lengthwise((120, 0), (144, 0), (3, 2)),
               lengthwise((168, 0), (192, 0), (5, 6))]
    reading = reconstruct([ENGINE, *SEAT0_DOWN[:3], *mexican], None, 3)
    assert reading.table is not None
    assert reading.table.train(MEXICAN).tiles == (  # type: ignore[union-attr]
        (9, 3), (3, 5), (5, 6))
    assert reading.table.train(0).tiles == ((9, 1), (1, 2), (2, 3))  # type: ignore[union-attr]
    assert kinds(reading) == ["matched-read"]
    assert "also read elsewhere" in reading.uncertainties[0].message
    # read once on the table, a tile that matches one side only stays, for the rules
    reading = reconstruct([ENGINE, *SEAT0_DOWN[:2], *mexican], None, 3)
    assert reading.table is not None
    assert reading.table.train(MEXICAN).tiles == (  # type: ignore[union-attr]
        (9, 3), (3, 2), (5, 6))
    assert reading.uncertainties == []
    # a 1-2 under a 2-6 on a 3, a 1-2 on seat 0's train too: the tile the next player
    # laid on matches, so it is a second set's 1-2 laid wrong as much as a misread 3-2;
    # it stays, for the rules (a tracker saw it laid: a duplicate and a mismatch)
    mexican[1:] = [lengthwise((120, 0), (144, 0), (1, 2)),
                   lengthwise((168, 0), (192, 0), (2, 6))]
    reading = reconstruct([ENGINE, *SEAT0_DOWN[:2], *mexican], None, 3)
    assert reading.table is not None
    assert reading.table.train(MEXICAN).tiles == (  # type: ignore[union-attr]
        (9, 3), (1, 2), (2, 6))
    assert reading.uncertainties == []


def test_a_double_read_lying_along_its_train_is_taken_as_the_single_its_neighbours_say() -> None:
    # Mexican train 9-3 3-5 5-6, the 3-5 read 3-3: doubles lie across a train, so a 3-3
    # lying along it, not matching the 5-6 laid on it, is the 3-5
    mexican = [lengthwise((72, 0), (96, 0), (9, 3)), lengthwise((120, 0), (144, 0), (3, 3)),
               lengthwise((168, 0), (192, 0), (5, 6))]
    reading = reconstruct([ENGINE, *mexican], None, 3)
    assert reading.table is not None
    assert reading.table.train(MEXICAN).tiles == (  # type: ignore[union-attr]
        (9, 3), (3, 5), (5, 6))
    assert kinds(reading) == ["matched-read"]
    assert "lying along its train" in reading.uncertainties[0].message
    # a 3-3 lying across it stays a double, and the 5-6 laid wrong on it, for the rules
    mexican[1:] = [crosswise((120, 0), (0, 1), 3), lengthwise((144, 0), (168, 0), (5, 6))]
    reading = reconstruct([ENGINE, *mexican], None, 3)
    assert reading.table is not None
    assert reading.table.train(MEXICAN).tiles == (  # type: ignore[union-attr]
        (9, 3), (3, 3), (5, 6))
    assert "matched-read" not in kinds(reading)
