"""vision.table.reconstruct: from read tiles (no pixels) back to the table: the
engine, trains grown from the hub, gaps, markers."""

from __future__ import annotations

import numpy as np
import pytest
from table_fixtures import (
    ENGINE,
    MEXICAN_TO_11,
    SEAT0_DOWN,
    crosswise,
    crosswise_read,
    doubted,
    kinds,
    lengthwise,
    norm_trains,
    ranged,
    read_layout,
)

from engine import MEXICAN
from vision.models.detections import Detections
from vision.readings import TileReading
from vision.table import reconstruct

CASES = [(100 + i, 2 + i % 7, (i * 13) % 61, bool(i % 2)) for i in range(28)]


@pytest.mark.parametrize(("seed", "players", "n_tiles", "mat"), CASES)
def test_laid_out_tables_read_back_exactly(seed: int, players: int, n_tiles: int,
                                           mat: bool) -> None:
    truth, reading = read_layout(seed, players, n_tiles, mat)
    assert reading.table is not None
    assert reading.uncertainties == []
    assert reading.table.engine == truth.engine
    assert norm_trains(reading.table) == norm_trains(truth)


def test_every_seat_and_the_mexican_train_are_listed() -> None:
    _, reading = read_layout(3, 4, 0, False)
    assert reading.table is not None
    assert [t.owner for t in reading.table.trains] == [0, 1, 2, 3, MEXICAN]


def test_no_tiles_means_no_table() -> None:
    reading = reconstruct([], None, 4)
    assert reading.table is None
    assert [u.kind for u in reading.uncertainties] == ["no-engine"]


def test_hand_made_train_with_turn_and_doubles() -> None:
    tiles = [ENGINE,
             lengthwise((72, 0), (96, 0), (9, 3)),  # Mexican, to the right
             crosswise((120, 0), (0, 1), 3),  # a double inside the train
             lengthwise((144, 0), (168, 0), (3, 4)),
             lengthwise((168, 24), (168, 48), (4, 5)),  # turns down
             crosswise((168, 72), (1, 0), 5)]  # a double at the end, waiting
    reading = reconstruct(tiles, None, 3)
    assert reading.table is not None
    assert reading.uncertainties == []
    mexican = reading.table.train(MEXICAN)
    assert mexican is not None
    assert mexican.tiles == ((9, 3), (3, 3), (3, 4), (4, 5), (5, 5))


def test_a_tile_that_fits_two_trains_is_reported() -> None:
    seat0 = [lengthwise((0, 72), (0, 96), (9, 1)), lengthwise((24, 96), (48, 96), (1, 2))]
    mexican = [lengthwise((72, 0), (96, 0), (9, 3)), lengthwise((120, 0), (144, 0), (3, 4)),
               lengthwise((144, 24), (144, 48), (4, 5)), lengthwise((144, 72), (144, 96), (5, 8)),
               lengthwise((120, 96), (96, 96), (8, 6))]
    between = crosswise((72, 96), (0, 1), 2)  # head to head between both ends
    reading = reconstruct([ENGINE, *seat0, *mexican, between], None, 3)
    assert "fits-two-trains" in kinds(reading)
    report = next(u for u in reading.uncertainties if u.tiles == (8,))
    assert report.kind == "fits-two-trains"
    assert set(report.owners) == {0, MEXICAN}
    assert reading.table is not None
    assert reading.table.train(0).tiles == ((9, 1), (1, 2), (2, 2))  # type: ignore[union-attr]
    assert reading.table.train(MEXICAN).tiles[-1] == (8, 6)  # type: ignore[union-attr]


def test_a_gap_of_one_unseen_tile_is_bridged_with_an_inferred_tile() -> None:
    tiles = [ENGINE, SEAT0_DOWN[0], SEAT0_DOWN[1], SEAT0_DOWN[3]]  # 2-3 unseen
    reading = reconstruct(tiles, None, 3)
    assert reading.table is not None
    assert reading.table.train(0).tiles == (  # type: ignore[union-attr]
        (9, 1), (1, 2), (2, 3), (3, 4))
    assert kinds(reading) == ["inferred-tile"]
    assert reading.inferred(0, 2) and not reading.inferred(0, 3)
    assert reading.doubted(0, 2)
    assert reading.positions[0][2] == len(tiles)  # past the input tiles
    assert reading.assignment == ["engine", 0, 0, 0]
    # told not to infer, the gap is reported and the train stops at it
    reading = reconstruct(tiles, None, 3, infer_gaps=False)
    assert reading.table is not None
    assert reading.table.train(0).tiles == ((9, 1), (1, 2))  # type: ignore[union-attr]
    assert kinds(reading) == ["gap"]


def test_a_gap_of_an_unseen_double_is_bridged_with_that_double() -> None:
    # Mexican train 9-3 [3-3 across, unseen] 3-4: the tile beyond matches the end
    tiles = [ENGINE, lengthwise((72, 0), (96, 0), (9, 3)),
             lengthwise((144, 0), (168, 0), (3, 4))]
    reading = reconstruct(tiles, None, 3)
    assert reading.table is not None
    assert reading.table.train(MEXICAN).tiles == (  # type: ignore[union-attr]
        (9, 3), (3, 3), (3, 4))
    assert kinds(reading) == ["inferred-tile"]


def test_a_gap_of_two_tiles_or_a_tile_already_on_the_table_is_not_bridged() -> None:
    two = [ENGINE, SEAT0_DOWN[0], lengthwise((0, 216), (0, 240), (3, 4))]
    reading = reconstruct(two, None, 3)
    assert reading.table is not None
    assert reading.table.train(0).tiles == ((9, 1),)  # type: ignore[union-attr]
    assert kinds(reading) == ["gap"]
    # the gap would be a 1-2, and the Mexican train holds the set's 1-2
    taken = [ENGINE, SEAT0_DOWN[0], SEAT0_DOWN[2],
             lengthwise((72, 0), (96, 0), (9, 2)), lengthwise((120, 0), (144, 0), (2, 1))]
    reading = reconstruct(taken, None, 3)
    assert reading.table is not None
    assert reading.table.train(0).tiles == ((9, 1),)  # type: ignore[union-attr]
    assert "inferred-tile" not in kinds(reading)


def test_a_tile_touching_nothing_is_reported() -> None:
    tiles = [ENGINE, *SEAT0_DOWN, lengthwise((-300, -300), (-300, -276), (7, 8))]
    reading = reconstruct(tiles, None, 3)
    assert kinds(reading) == ["loose-tile"]
    assert reading.assignment[-1] is None
    assert reading.table.train(0).tiles == tuple(t.values for t in SEAT0_DOWN)  # type: ignore[union-attr]


def test_two_tiles_continuing_one_end_are_reported() -> None:
    tiles = [ENGINE, *SEAT0_DOWN, lengthwise((24, 240), (48, 240), (4, 6))]
    reading = reconstruct(tiles, None, 3)
    # The straight continuation and the turn are both plausible.
    tiles.append(lengthwise((0, 264), (0, 288), (4, 7)))
    reading = reconstruct(tiles, None, 3)
    assert "branch" in kinds(reading)


def test_a_mismatched_tile_stays_on_its_train_for_the_rules_to_judge() -> None:
    tiles = [ENGINE, SEAT0_DOWN[0], lengthwise((0, 120), (0, 144), (6, 2))]
    reading = reconstruct(tiles, None, 3)
    assert reading.table is not None
    assert reading.table.train(0).tiles == ((9, 1), (6, 2))  # type: ignore[union-attr]
    assert reading.table.problems(12, 3) != []


def test_a_tile_a_little_off_a_trains_end_is_laid_on_it_in_doubt() -> None:
    # the 6-2 lies 0.75 widths further on than touching: no room for a tile between
    off = 24 * 1.75
    tiles = [ENGINE, SEAT0_DOWN[0], lengthwise((0, 96 + off), (0, 120 + off), (6, 2)),
             lengthwise((0, 144 + off), (0, 168 + off), (2, 5))]
    reading = reconstruct(tiles, None, 3)
    assert reading.table is not None
    assert reading.table.train(0).tiles == ((9, 1), (6, 2), (2, 5))  # type: ignore[union-attr]
    assert kinds(reading) == ["short-gap"]
    assert reading.doubted(0, 1) and not reading.doubted(0, 2)
    assert reading.table.problems(12, 3) != []  # the mismatch reaches the rules
    # further off, a tile could lie between: the gap stays reported
    far = [ENGINE, SEAT0_DOWN[0], lengthwise((0, 96 + 24 * 2.2), (0, 120 + 24 * 2.2), (6, 2))]
    reading = reconstruct(far, None, 3)
    assert reading.table.train(0).tiles == ((9, 1),)  # type: ignore[union-attr]
    assert kinds(reading) == ["gap"]


def test_a_short_gap_is_closed_only_for_a_domino_in_line_pointing_on() -> None:
    off = 24 * 1.75
    turned = lengthwise((0, 96 + off), (24, 96 + off), (6, 2))
    not_a_domino = TileReading((6, 2), lengthwise((0, 96 + off), (0, 120 + off), (6, 2)).corners,
                               uncertain=True, doubt="not-a-domino?")
    for loose in (turned, not_a_domino):
        reading = reconstruct([ENGINE, SEAT0_DOWN[0], loose], None, 3)
        assert reading.table is not None
        assert reading.table.train(0).tiles == ((9, 1),)  # type: ignore[union-attr]
        assert "short-gap" not in kinds(reading)


def test_values_read_in_either_order_give_the_same_table() -> None:
    flipped = [TileReading((t.values[1], t.values[0]), np.roll(t.corners, 2, axis=0))
               for t in SEAT0_DOWN]
    a = reconstruct([ENGINE, *SEAT0_DOWN], None, 3)
    b = reconstruct([ENGINE, *flipped], None, 3)
    assert a.table == b.table


def test_engine_is_the_lonely_double_not_one_inside_a_train() -> None:
    tiles = [lengthwise((0, 72), (0, 96), (9, 1)), crosswise((0, 120), (1, 0), 1),
             lengthwise((0, 144), (0, 168), (1, 2)), ENGINE]
    reading = reconstruct(tiles, None, 3)
    assert reading.table is not None and reading.table.engine == 9
    assert reading.assignment[3] == "engine"


def test_a_known_engine_picks_its_double_among_others() -> None:
    # a lonely 4-4 lies further out; without knowing the engine the most central wins
    other = crosswise((300, 0), (0, 1), 4)
    tiles = [other, ENGINE, *SEAT0_DOWN]
    assert reconstruct(tiles, None, 3, engine=9).assignment[1] == "engine"
    assert reconstruct(tiles, None, 3, engine=4).assignment[0] == "engine"
    # a known engine that is not on the table as read: the likeliest double, reported
    reading = reconstruct(tiles, None, 3, engine=10)
    assert reading.table is not None and reading.table.engine == 10
    assert "engine-read" in kinds(reading)


def test_markers_attach_to_the_train_end_they_lie_by() -> None:
    marker = np.array([[[-10, 254], [10, 254], [10, 274], [-10, 274]]], float)
    reading = reconstruct([ENGINE, *SEAT0_DOWN], Detections(marker, np.ones(1), np.ones(1)), 3)
    assert reading.table is not None
    assert reading.table.train(0).marker  # type: ignore[union-attr]
    assert reading.marker_owners == [0]


def test_a_marker_far_from_every_train_is_reported() -> None:
    marker = np.array([[[400, 400], [420, 400], [420, 420], [400, 420]]], float)
    reading = reconstruct([ENGINE, *SEAT0_DOWN], Detections(marker, np.ones(1), np.ones(1)), 3)
    assert kinds(reading) == ["loose-marker"]


def test_a_sure_single_lying_crosswise_is_not_taken_for_a_double() -> None:
    sure = ranged(crosswise_read((168, 0), (5, 6)), ((5, 5), (6, 6)))
    reading = reconstruct([*MEXICAN_TO_11, sure], None, 3)
    assert reading.table is not None
    assert reading.table.train(MEXICAN).tiles == ((9, 3), (3, 11))  # type: ignore[union-attr]
    assert reading.assignment[3] is None


def test_a_doubted_box_across_a_trains_double_is_not_that_double_again() -> None:
    # the Mexican train ends in its 11-11, laid across; a doubted box lies across one
    # width on (read 7-11): across a train's end it would be taken for the end's double,
    # but the one 11-11 of the set is laid already
    double = crosswise((168, 0), (0, 1), 11)
    box = doubted(crosswise_read((192, 0), (7, 11)), ((6, 8), (10, 12)))
    reading = reconstruct([*MEXICAN_TO_11, double, box], None, 3)
    assert reading.table is not None
    assert reading.table.train(MEXICAN).tiles == (  # type: ignore[union-attr]
        (9, 3), (3, 11), (11, 11))
    assert "matched-read" not in kinds(reading)  # the box is left loose, not made 11-11
    assert reading.assignment[4] is None


def test_a_marker_boxed_as_a_doubted_tile_too_is_only_the_marker() -> None:
    # a toy train (40 x 18) crosswise just beyond the Mexican train's 11 end, found as a
    # marker and as a doubted tile: without the marker it would be the end's double
    box = doubted(crosswise_read((168, 0), (2, 0)), ((2, 3), (0, 1)))
    toy = np.array([[[159, -20], [177, -20], [177, 20], [159, 20]]], float)
    reading = reconstruct([*MEXICAN_TO_11, box], Detections(toy, np.ones(1), np.ones(1)), 3)
    assert reading.table is not None
    mexican = reading.table.train(MEXICAN)
    assert mexican is not None
    assert mexican.tiles == ((9, 3), (3, 11)) and mexican.marker
    assert reading.assignment[3] is None
    # a coin laid on a doubted tile covers less than half of it: the tile stays
    coin = np.array([[[156.5, -11.5], [179.5, -11.5], [179.5, 11.5], [156.5, 11.5]]], float)
    under = reconstruct([*MEXICAN_TO_11, box], Detections(coin, np.ones(1), np.ones(1)), 3)
    assert under.table is not None
    assert under.table.train(MEXICAN).tiles[-1] == (11, 11)  # type: ignore[union-attr]
