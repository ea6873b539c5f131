"""vision.table.look_again: a train that stops by a loose box is read again where its
next tile could lie (``reread-tile``)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace

import numpy as np
from table_fixtures import (
    ENGINE,
    SEAT0_DOWN,
    crosswise,
    kinds,
    lengthwise,
    looked,
    one_by_one,
    oracle_look,
    turned_box,
)

from engine import MEXICAN
from vision.readings import TileReading
from vision.table import Look, reconstruct


def test_of_two_tiles_continuing_a_train_as_well_the_one_it_goes_on_from_is_taken() -> None:
    # seat 0: 9-1 1-2 2-3 3-4, the 2-3 found 4 mm further on; a spurious box read 2-5
    # (a shadow's) lies on the 1-2's end, turned 20 degrees: it fits the end a little
    # better, but nothing goes on from its 5, while the 3-4 goes on from the 2-3
    true_23 = lengthwise((0, 172), (0, 196), (2, 3))
    on = lengthwise((0, 216), (0, 240), (3, 4))
    a = math.radians(20)
    spurious = lengthwise((24 * math.sin(a), 144 + 24 * math.cos(a)),
                           (48 * math.sin(a), 144 + 48 * math.cos(a)), (2, 5))
    tiles = [ENGINE, SEAT0_DOWN[0], SEAT0_DOWN[1], spurious, true_23, on]
    reading = reconstruct(tiles, None, 3)
    assert reading.table is not None
    assert reading.table.train(0).tiles == (  # type: ignore[union-attr]
        (9, 1), (1, 2), (2, 3), (3, 4))
    assert reading.assignment[3] is None
    assert "branch" in kinds(reading)  # still told: two tiles could continue it
    # with nothing beyond either, the one fitting the end better is taken
    alone = reconstruct(tiles[:-1], None, 3)
    assert alone.table is not None
    assert alone.table.train(0).tiles[-1] == (2, 5)  # type: ignore[union-attr]


def test_a_train_stopping_at_an_askew_box_is_read_again_where_it_goes_on() -> None:
    # seat 0: 9-1 1-2 2-3 3-4, the 2-3 found as a box turned 45 degrees (read 6-0)
    askew = TileReading((6, 0), turned_box(SEAT0_DOWN[2], 45).corners)
    tiles = [ENGINE, SEAT0_DOWN[0], SEAT0_DOWN[1], askew, SEAT0_DOWN[3]]
    reading = reconstruct(tiles, None, 3, look=oracle_look([ENGINE, *SEAT0_DOWN]))
    assert reading.table is not None
    assert reading.table.train(0).tiles == (  # type: ignore[union-attr]
        (9, 1), (1, 2), (2, 3), (3, 4))
    assert kinds(reading) == ["reread-tile"]
    assert reading.positions[0][2] == len(tiles)  # read again: past the input tiles
    assert reading.doubted(0, 2) and not reading.inferred(0, 2)
    assert reading.assignment[3] is None  # the askew box was no tile of its own
    # without looking again the 2-3 is only inferred from the tiles either side ...
    blind = reconstruct(tiles, None, 3)
    assert kinds(blind) == ["inferred-tile"] * 2
    # ... and with nothing beyond it the train stops at the askew box
    blind = reconstruct(tiles[:-1], None, 3)
    assert blind.table is not None
    assert blind.table.train(0).tiles == ((9, 1), (1, 2))  # type: ignore[union-attr]
    reading = reconstruct(tiles[:-1], None, 3, look=oracle_look([ENGINE, *SEAT0_DOWN]))
    assert reading.table is not None
    assert reading.table.train(0).tiles == ((9, 1), (1, 2), (2, 3))  # type: ignore[union-attr]


def test_the_places_a_train_could_go_on_are_read_in_one_look() -> None:
    # as above: the train stops at the askew box, and every outline its next tile could
    # have (straight on, a double across, turned either way) is read in one batch
    askew = TileReading((6, 0), turned_box(SEAT0_DOWN[2], 45).corners)
    oracle = oracle_look([ENGINE, *SEAT0_DOWN])
    batches: list[int] = []

    def look(corners: np.ndarray) -> Sequence[TileReading | None]:
        batches.append(len(corners))
        return oracle(corners)

    reading = reconstruct([ENGINE, *SEAT0_DOWN[:2], askew], None, 3, look=look)
    assert reading.table is not None
    assert reading.table.train(0).tiles[-1] == (2, 3)  # type: ignore[union-attr]
    assert max(batches) >= 4  # the outlines about the 1-2's end, at once


def sure_looked(values: tuple[int, int], sure: tuple[float, float] = (1.0, 0.95)
                ) -> TileReading:
    """A reading sure of each half's count, within wide ranges (a blurred tile)."""
    return replace(looked(values), half_certainty=sure,
                   ranges=((max(values[0] - 3, 0), values[0] + 3),
                           (max(values[1] - 8, 0), 12)))


def test_a_half_read_surely_as_another_count_is_no_double_across_a_trains_end() -> None:
    # seat 0: 9-1 1-2 2-3, the 2-3 found as an askew box; then 3-4 turned beside its 3
    # half. Read again where a 2-2 would lie across the end, the 2-3's near half and
    # what lies beside it show a sure 2 and a sure 3 (the 3's range, blurred, reaches
    # 2); where it lies, the reading is doubted. A half sure of another count is no half
    # of the end's double: the 2-3 is inferred between the 1-2 and the 3-4
    askew = TileReading((6, 0), turned_box(SEAT0_DOWN[2], 45).corners)
    turned = lengthwise((24, 192), (48, 192), (3, 4))
    tiles = [ENGINE, SEAT0_DOWN[0], SEAT0_DOWN[1], askew, turned]
    truth_look = oracle_look([ENGINE, *SEAT0_DOWN[:3], turned])

    def looker(across_reads: TileReading) -> Look:
        @one_by_one
        def look(corners: np.ndarray) -> TileReading | None:
            c = np.asarray(corners, float)
            axis = c[2] + c[3] - c[0] - c[1]
            if abs(axis[0]) > abs(axis[1]) and np.linalg.norm(c.mean(axis=0) - [0, 168]) < 6:
                return across_reads  # where a double would lie across the 1-2's end
            if np.linalg.norm(c.mean(axis=0) - [0, 180]) < 6:  # where the 2-3 lies
                return looked((2, 3), uncertain=True)
            return truth_look(c[None])[0]
        return look

    reading = reconstruct(tiles, None, 3, look=looker(sure_looked((2, 3))))
    assert reading.table is not None
    assert reading.table.train(0).tiles == (  # type: ignore[union-attr]
        (9, 1), (1, 2), (2, 3), (3, 4))
    assert reading.assignment[4] == 0
    # a reading unsure of the half that is not the end's count may still be its double
    unsure = sure_looked((2, 3), (1.0, 0.5))
    doubted = reconstruct(tiles, None, 3, look=looker(unsure))
    assert doubted.table is not None
    assert doubted.table.train(0).tiles[2] == (2, 2)  # type: ignore[union-attr]


def test_an_outline_with_no_box_in_it_is_taken_only_when_read_surely() -> None:
    # seat 0: 9-1 1-2 2-3 and nothing beyond; a loose 5-6 lies off to the side, near
    # enough to where a next tile could lie that the train's end is read again. Read
    # there, the bare table shows a 3-6 the reader is half sure of: no box lies in that
    # outline, so it is no tile; read surely, it is (the box may have been missed)
    aside = lengthwise((12, 236), (36, 236), (5, 6))
    tiles = [ENGINE, *SEAT0_DOWN[:3], aside]

    def looker(confidence: float) -> Look:
        @one_by_one
        def look(corners: np.ndarray) -> TileReading:
            c = np.asarray(corners, float)
            axis = c[2] + c[3] - c[0] - c[1]
            if abs(axis[1]) > abs(axis[0]) and np.linalg.norm(c.mean(axis=0) - [0, 228]) < 6:
                return replace(looked((3, 6) if axis[1] > 0 else (6, 3)),
                               confidence=confidence)
            return looked((0, 5), uncertain=True)
        return look

    half_sure = reconstruct(tiles, None, 3, look=looker(0.5))
    assert half_sure.table is not None
    assert half_sure.table.train(0).tiles == (  # type: ignore[union-attr]
        (9, 1), (1, 2), (2, 3))
    sure = reconstruct(tiles, None, 3, look=looker(0.9))
    assert sure.table is not None
    assert sure.table.train(0).tiles == (  # type: ignore[union-attr]
        (9, 1), (1, 2), (2, 3), (3, 6))


def test_bare_table_read_as_a_blank_double_is_no_tile() -> None:
    # seat 0: 9-1 1-2 2-0 and nothing beyond; a loose 5-6 lies off to the side, near
    # enough that the train's end is read again. Bare table shows no pips, so it reads
    # as blank halves, surely: a 0-0 read where no box lies is no tile (rendered no-mat
    # seed 1100013: a 0-0 read at 0.99 past a 9-0 end); with a box in it, it is
    ends_blank = [ENGINE, *SEAT0_DOWN[:2], lengthwise((0, 168), (0, 192), (2, 0))]
    aside = lengthwise((38, 204), (62, 204), (5, 6))  # beside where a turn would go

    @one_by_one
    def blank(corners: np.ndarray) -> TileReading:
        return looked((0, 0))

    bare = reconstruct([*ends_blank, aside], None, 3, look=blank)
    assert bare.table is not None
    assert bare.table.train(0).tiles == (  # type: ignore[union-attr]
        (9, 1), (1, 2), (2, 0))
    assert "reread-tile" not in kinds(bare)
    boxed = TileReading((5, 6), crosswise((0, 228), (1, 0), 0).corners)
    seen = reconstruct([*ends_blank, boxed], None, 3, look=blank)
    assert seen.table is not None
    assert seen.table.train(0).tiles == (  # type: ignore[union-attr]
        (9, 1), (1, 2), (2, 0), (0, 0))


def turned_double() -> tuple[TileReading, TileReading, list[TileReading]]:
    """Seat 0: 9-1 1-2, then a 2-2 laid beside the far half of the 1-2 (the train turns
    towards +x), then 2-5 on along x; the 2-2 was found as a squarish box off its
    place, read 5-6. The 2-2, the 2-5 and the tiles found."""
    double = crosswise((24, 144), (0, 1), 2)
    on = lengthwise((48, 144), (72, 144), (2, 5))
    squarish = TileReading((5, 6), np.array([[15, 141], [45, 141], [45, 171], [15, 171]], float))
    return double, on, [ENGINE, SEAT0_DOWN[0], SEAT0_DOWN[1], squarish, on]


def test_a_double_turned_beside_a_trains_end_is_read_again_there() -> None:
    double, on, tiles = turned_double()
    truth = [ENGINE, SEAT0_DOWN[0], SEAT0_DOWN[1], double, on]
    reading = reconstruct(tiles, None, 3, look=oracle_look(truth))
    assert reading.table is not None
    assert reading.table.train(0).tiles == (  # type: ignore[union-attr]
        (9, 1), (1, 2), (2, 2), (2, 5))
    assert "reread-tile" in kinds(reading) and "inferred-tile" not in kinds(reading)
    # without looking again, the 2-2 is inferred from the 2-5 turned a double's width on
    blind = reconstruct(tiles, None, 3)
    assert blind.table is not None
    assert blind.table.train(0).tiles == (  # type: ignore[union-attr]
        (9, 1), (1, 2), (2, 2), (2, 5))
    assert blind.inferred(0, 2)


def test_a_gap_of_an_unseen_double_where_the_train_turns_is_bridged() -> None:
    # seat 0: 9-1 1-2, a 2-2 unseen beside the far half of the 1-2, then 2-5 on along x
    on = lengthwise((48, 144), (72, 144), (2, 5))
    reading = reconstruct([ENGINE, SEAT0_DOWN[0], SEAT0_DOWN[1], on], None, 3)
    assert reading.table is not None
    assert reading.table.train(0).tiles == (  # type: ignore[union-attr]
        (9, 1), (1, 2), (2, 2), (2, 5))
    assert kinds(reading) == ["inferred-tile"]
    assert reading.inferred(0, 2) and not reading.inferred(0, 3)
    # the other way too
    left = lengthwise((-48, 144), (-72, 144), (2, 5))
    reading = reconstruct([ENGINE, SEAT0_DOWN[0], SEAT0_DOWN[1], left], None, 3)
    assert reading.table is not None
    assert reading.table.train(0).tiles[-2:] == ((2, 2), (2, 5))  # type: ignore[union-attr]
    # not when the tile turned on does not start with the end's count (no double of
    # the end's count between them), nor for a tile a single's length off at a right
    # angle (an unseen single lies straight on before the train turns), nor past a
    # double (a train does not turn twice at once)
    for tile in (lengthwise((48, 144), (72, 144), (3, 5)),
                 lengthwise((72, 144), (96, 144), (3, 5))):
        reading = reconstruct([ENGINE, SEAT0_DOWN[0], SEAT0_DOWN[1], tile], None, 3)
        assert reading.table is not None
        assert reading.table.train(0).tiles == ((9, 1), (1, 2))  # type: ignore[union-attr]
        assert "inferred-tile" not in kinds(reading)
    past_double = [ENGINE, SEAT0_DOWN[0], crosswise((0, 120), (1, 0), 1),
                   lengthwise((48, 120), (72, 120), (1, 5))]
    reading = reconstruct(past_double, None, 3)
    assert reading.table is not None
    assert reading.table.train(0).tiles == ((9, 1), (1, 1))  # type: ignore[union-attr]


def test_a_single_read_as_the_double_it_lies_on_is_not_that_double_again() -> None:
    # Mexican train 9-3 3-3 (across), then a 3-5 lying on along the train read 3-3: a set
    # holds one 3-3, so the box is read again where the train puts its next tile
    along = lengthwise((144, 0), (168, 0), (3, 5))
    misread = TileReading((3, 3), along.corners)
    tiles = [ENGINE, lengthwise((72, 0), (96, 0), (9, 3)), crosswise((120, 0), (0, 1), 3),
             misread]
    reading = reconstruct(tiles, None, 3, look=oracle_look([*tiles[:3], along]))
    assert reading.table is not None
    assert reading.table.train(MEXICAN).tiles == (  # type: ignore[union-attr]
        (9, 3), (3, 3), (3, 5))
    assert kinds(reading) == ["reread-tile"]
    # a tile read as a double lying on along a single still continues it, for the rules
    inline = [ENGINE, lengthwise((72, 0), (96, 0), (9, 3)),
              lengthwise((120, 0), (144, 0), (3, 3))]
    reading = reconstruct(inline, None, 3)
    assert reading.table is not None
    assert reading.table.train(MEXICAN).tiles == ((9, 3), (3, 3))  # type: ignore[union-attr]


def test_looking_again_takes_no_doubted_reading_nor_a_double_lying_lengthwise() -> None:
    askew = TileReading((6, 0), turned_box(SEAT0_DOWN[2], 45).corners)
    tiles = [ENGINE, SEAT0_DOWN[0], SEAT0_DOWN[1], askew]
    calls: list[np.ndarray] = []
    # nothing true lies there: every look is doubted junk
    reading = reconstruct(tiles, None, 3, look=oracle_look([], calls))
    assert reading.table is not None
    assert reading.table.train(0).tiles == ((9, 1), (1, 2))  # type: ignore[union-attr]
    assert calls and "reread-tile" not in kinds(reading)
    # a lengthwise outline read 2-2 spans halves of two tiles (a 2-2 lies across)

    @one_by_one
    def along_reads_a_double(corners: np.ndarray) -> TileReading:  # straight on, lengthwise
        axis = (corners[2] + corners[3] - corners[0] - corners[1]) / 2
        straight = abs(axis[1]) > abs(axis[0]) and abs(corners.mean(axis=0)[0]) < 6
        return looked((2, 2)) if straight else looked((0, 5), True)

    reading = reconstruct(tiles, None, 3, look=along_reads_a_double)
    assert reading.table is not None
    assert (2, 2) not in reading.table.train(0).tiles  # type: ignore[union-attr]


def test_no_look_where_no_loose_box_lies_by_a_trains_end() -> None:
    calls: list[np.ndarray] = []
    reading = reconstruct([ENGINE, *SEAT0_DOWN], None, 3, look=oracle_look([], calls))
    assert reading.certain
    assert calls == []


def test_looking_again_takes_no_outline_over_a_half_of_a_sure_box() -> None:
    # the 2-2 turned beside the 1-2 again: read lengthwise where the train turns, the
    # 2-2's half and the 2-5's near half show as a sure 2-6
    double, on, tiles = turned_double()
    truth_look = oracle_look([ENGINE, SEAT0_DOWN[0], SEAT0_DOWN[1], double, on])

    @one_by_one
    def look(corners: np.ndarray) -> TileReading | None:
        c = np.asarray(corners, float)
        axis = (c[2] + c[3] - c[0] - c[1]) / 2
        if abs(axis[0]) > abs(axis[1]) and np.linalg.norm(c.mean(axis=0) - [36, 144]) < 6:
            return looked((2, 6))  # the turned lengthwise outline: two tiles' halves
        return truth_look(c[None])[0]

    reading = reconstruct(tiles, None, 3, look=look)
    assert reading.table is not None
    assert reading.table.train(0).tiles == (  # type: ignore[union-attr]
        (9, 1), (1, 2), (2, 2), (2, 5))


def test_a_sure_box_slid_half_off_a_trains_end_does_not_stop_the_look() -> None:
    # seat 0: 9-1 1-2 2-5, the 2-5 found only as a box slid half a tile back over the
    # 1-2's far half, read 2-2 without doubt: that box lies over the train's end, and
    # the 2-5 is read where the train puts it
    slid = TileReading((2, 2), lengthwise((0, 144), (0, 168), (2, 2)).corners)
    tiles = [ENGINE, SEAT0_DOWN[0], SEAT0_DOWN[1], slid]
    truth = [ENGINE, SEAT0_DOWN[0], SEAT0_DOWN[1], lengthwise((0, 168), (0, 192), (2, 5))]
    reading = reconstruct(tiles, None, 3, look=oracle_look(truth))
    assert reading.table is not None
    assert reading.table.train(0).tiles == ((9, 1), (1, 2), (2, 5))  # type: ignore[union-attr]
    assert kinds(reading) == ["reread-tile"]
    assert reading.assignment[3] is None


def test_a_gap_of_an_unseen_single_before_the_train_turns_is_bridged() -> None:
    # seat 0: 9-1 1-2, a 2-3 unseen straight on, then 3-4 turned a right angle beside the
    # 2-3's far half, either way
    for side in (1, -1):
        turned = lengthwise((24 * side, 192), (48 * side, 192), (3, 4))
        reading = reconstruct([ENGINE, SEAT0_DOWN[0], SEAT0_DOWN[1], turned], None, 3)
        assert reading.table is not None
        assert reading.table.train(0).tiles == (  # type: ignore[union-attr]
            (9, 1), (1, 2), (2, 3), (3, 4))
        assert kinds(reading) == ["inferred-tile"]
        assert reading.inferred(0, 2)
    # not when it lies off that place, or points back along the train
    for tile in (lengthwise((24, 210), (48, 210), (3, 4)),
                 lengthwise((24, 192), (24, 216), (3, 4))):
        reading = reconstruct([ENGINE, SEAT0_DOWN[0], SEAT0_DOWN[1], tile], None, 3)
        assert reading.table is not None
        assert reading.table.train(0).tiles == ((9, 1), (1, 2))  # type: ignore[union-attr]


def test_a_box_slid_half_a_tile_on_past_a_turn_does_not_stop_the_look() -> None:
    # seat 0: 9-1 1-2, then 2-5 turned beside the 1-2's far half; the 2-5 was found as a
    # box slid half a tile on (over its 5 and the next tile's half), read 5-7 without
    # doubt: its near half is no 2, so it is no tile laid on a 2-2 where the train turns
    slid = TileReading((5, 7), lengthwise((48, 144), (72, 144), (5, 7)).corners)
    turned = lengthwise((24, 144), (48, 144), (2, 5))
    tiles = [ENGINE, SEAT0_DOWN[0], SEAT0_DOWN[1], slid]
    reading = reconstruct(tiles, None, 3, look=oracle_look([ENGINE, *SEAT0_DOWN[:2], turned]))
    assert reading.table is not None
    assert reading.table.train(0).tiles == ((9, 1), (1, 2), (2, 5))  # type: ignore[union-attr]
    assert "reread-tile" in kinds(reading)


def test_a_box_the_last_tile_read_again_took_in_still_leads_to_the_double_beside_it() -> None:
    # seat 0: 9-1 1-2 2-3, then a 3-3 laid beside the 2-3's far half (the train turns
    # towards +x) and nothing beyond. The 2-3 was found only as two boxes askew, one of
    # them reaching over the 3-3, and the 3-3 as no box of its own. Read again where
    # the train goes on, the 2-3 takes both boxes in; the one reaching over the 3-3
    # still says something lies there: the 3-3 is read again beside the end
    double = crosswise((24, 192), (0, 1), 3)
    askew = TileReading((5, 6), turned_box(SEAT0_DOWN[2], 40, about=(4, 172)).corners,
                     confidence=0.2, uncertain=True)
    over = TileReading((6, 6), turned_box(double, 50, about=(12, 192)).corners,
                    confidence=0.2, uncertain=True)
    truth = [ENGINE, *SEAT0_DOWN[:3], double]
    reading = reconstruct([ENGINE, *SEAT0_DOWN[:2], askew, over], None, 3,
                          look=oracle_look(truth))
    assert reading.table is not None
    assert reading.table.train(0).tiles == (  # type: ignore[union-attr]
        (9, 1), (1, 2), (2, 3), (3, 3))
    assert kinds(reading).count("reread-tile") == 2


def test_a_trains_end_read_again_is_looked_beyond_anew() -> None:
    # seat 0: 9-1 1-2 2-3 3-4, then a 4-4 laid beside the 3-4's far half (the train
    # turns towards +x). The 2-3 was found only as a box askew, so the train goes on
    # past the 1-2 by reading it again; the 3-4 was read a sure 5-6 and then laid on
    # the 2-3; the 4-4 was found as a box askew, read as junk. The train's end is the
    # 6 of a 5-6 until the 3-4 is read again where the train puts it: from the 4
    # there, the 4-4 beside it is read again too
    double = crosswise((24, 240), (0, 1), 4)
    askew = TileReading((5, 6), turned_box(SEAT0_DOWN[2], 40, about=(4, 172)).corners,
                     confidence=0.2, uncertain=True)
    misread = TileReading((5, 6), SEAT0_DOWN[3].corners)
    junk = TileReading((0, 5), turned_box(double, 45).corners, confidence=0.2, uncertain=True)
    truth = [ENGINE, *SEAT0_DOWN, double]
    reading = reconstruct([ENGINE, *SEAT0_DOWN[:2], askew, misread, junk], None, 3,
                          look=oracle_look(truth))
    assert reading.table is not None
    assert reading.table.train(0).tiles == (  # type: ignore[union-attr]
        (9, 1), (1, 2), (2, 3), (3, 4), (4, 4))


def read_again_ranged(values: tuple[int, int], reach: int) -> TileReading:
    """A reading again whose ranges of counts reach past its values."""
    return TileReading(values, np.zeros((4, 2)), half_certainty=(0.0, 0.0),
                       ranges=((min(values[0], reach), max(values[0], reach)),
                               (min(values[1], reach), max(values[1], reach))))


def test_a_double_read_again_as_another_count_is_not_the_ends_double() -> None:
    # seat 0: 9-1 1-2 2-4, a loose 5-6 beside where a turn would go. Read again across
    # the 4 end, a double shows 2-2 with ranges reaching 4: not the end's 4-4 (rendered
    # no-mat seed 1400047, a 4-7 laid as 4-4); read 4-4 there, it is.
    ends_four = [ENGINE, *SEAT0_DOWN[:2], lengthwise((0, 168), (0, 192), (2, 4))]
    aside = lengthwise((38, 204), (62, 204), (5, 6))

    @one_by_one
    def twos(corners: np.ndarray) -> TileReading:
        return read_again_ranged((2, 2), reach=4)

    reading = reconstruct([*ends_four, aside], None, 3, look=twos)
    assert reading.table is not None
    assert reading.table.train(0).tiles == (  # type: ignore[union-attr]
        (9, 1), (1, 2), (2, 4))
    assert "reread-tile" not in kinds(reading)

    @one_by_one
    def fours(corners: np.ndarray) -> TileReading:
        return read_again_ranged((4, 4), reach=2)

    seen = reconstruct([*ends_four, aside], None, 3, look=fours)
    assert seen.table is not None
    assert seen.table.train(0).tiles == (  # type: ignore[union-attr]
        (9, 1), (1, 2), (2, 4), (4, 4))
