"""vision.table.reconstruct: from read tiles (no pixels) back to the table."""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import numpy as np
import pytest

from datasets.table_layout import (
    SeenTile,
    layout_table,
    overhead_homography,
    random_table,
    seen_tiles,
)
from engine import MEXICAN, TableState
from vision.detections import Detections
from vision.mat import MatView
from vision.mat_geometry import (
    SLOT_RADIUS_MM,
    apply_homography,
    marker_corners_mm,
    slot_angles,
)
from vision.table import TableReading, TileLike, reconstruct


def _norm(table: TableState) -> list[tuple[str, tuple[tuple[int, int], ...], bool]]:
    return sorted((str(t.owner), t.tiles, t.marker) for t in table.trains if t.tiles or t.marker)


def _read_layout(seed: int, players: int, n_tiles: int, mat: bool,
                 noise_px: float = 0.7) -> tuple[TableState, TableReading]:
    rng = np.random.default_rng(seed)
    table = random_table(rng, players, 12, n_tiles, marker_rate=0.4)
    layout = layout_table(table, players, rng, mat=mat)
    to_image = overhead_homography(layout.size, (1280, 720), rng, tilt=0.03)
    tiles, marker_corners = seen_tiles(layout, to_image, rng, noise_px=noise_px)
    n = len(marker_corners)
    markers = Detections(marker_corners, np.ones(n), np.ones(n))
    view = None
    if mat:
        mat_to_image = to_image @ layout.hub.mat_matrix
        view = MatView(players, np.linalg.inv(mat_to_image), (), 0.0)
    return table, reconstruct(tiles, markers, players, view)


CASES = [(100 + i, 2 + i % 7, (i * 13) % 61, bool(i % 2)) for i in range(28)]


@pytest.mark.parametrize(("seed", "players", "n_tiles", "mat"), CASES)
def test_laid_out_tables_read_back_exactly(seed: int, players: int, n_tiles: int,
                                           mat: bool) -> None:
    truth, reading = _read_layout(seed, players, n_tiles, mat)
    assert reading.table is not None
    assert reading.uncertainties == []
    assert reading.table.engine == truth.engine
    assert _norm(reading.table) == _norm(truth)


def test_every_seat_and_the_mexican_train_are_listed() -> None:
    _, reading = _read_layout(3, 4, 0, False)
    assert reading.table is not None
    assert [t.owner for t in reading.table.trains] == [0, 1, 2, 3, MEXICAN]


def test_no_tiles_means_no_table() -> None:
    reading = reconstruct([], None, 4)
    assert reading.table is None
    assert [u.kind for u in reading.uncertainties] == ["no-engine"]


# --- hand-made tables (millimetres as pixels) ---------------------------------------


def _lengthwise(near: tuple[float, float], far: tuple[float, float],
                values: tuple[int, int]) -> SeenTile:
    """A tile whose near-half centre is ``near`` and far-half centre ``far``."""
    n, f = np.array(near, float), np.array(far, float)
    a = (f - n) / np.linalg.norm(f - n)
    p = np.array([-a[1], a[0]])
    ne, fe = n - 12 * a, f + 12 * a
    return SeenTile(values, np.array([ne - 12 * p, ne + 12 * p, fe + 12 * p, fe - 12 * p]))


def _crosswise(centre: tuple[float, float], axis: tuple[float, float], value: int) -> SeenTile:
    c, a = np.array(centre, float), np.array(axis, float)
    p = np.array([-a[1], a[0]])
    return SeenTile((value, value), np.array([c - 24 * a - 12 * p, c - 24 * a + 12 * p,
                                              c + 24 * a + 12 * p, c + 24 * a - 12 * p]))


ENGINE = _crosswise((0, 0), (1, 0), 9)
#: Three players: slots at 90 (seat 0), 180 (seat 1), 270 (seat 2) and 0 (Mexican) degrees.
SEAT0_DOWN = [_lengthwise((0, 72), (0, 96), (9, 1)), _lengthwise((0, 120), (0, 144), (1, 2)),
              _lengthwise((0, 168), (0, 192), (2, 3)), _lengthwise((0, 216), (0, 240), (3, 4))]


def _kinds(reading: TableReading) -> list[str]:
    return sorted(u.kind for u in reading.uncertainties)


def test_hand_made_train_with_turn_and_doubles() -> None:
    tiles = [ENGINE,
             _lengthwise((72, 0), (96, 0), (9, 3)),  # Mexican, to the right
             _crosswise((120, 0), (0, 1), 3),  # a double inside the train
             _lengthwise((144, 0), (168, 0), (3, 4)),
             _lengthwise((168, 24), (168, 48), (4, 5)),  # turns down
             _crosswise((168, 72), (1, 0), 5)]  # a double at the end, waiting
    reading = reconstruct(tiles, None, 3)
    assert reading.table is not None
    assert reading.uncertainties == []
    mexican = reading.table.train(MEXICAN)
    assert mexican is not None
    assert mexican.tiles == ((9, 3), (3, 3), (3, 4), (4, 5), (5, 5))


def test_a_tile_that_fits_two_trains_is_reported() -> None:
    seat0 = [_lengthwise((0, 72), (0, 96), (9, 1)), _lengthwise((24, 96), (48, 96), (1, 2))]
    mexican = [_lengthwise((72, 0), (96, 0), (9, 3)), _lengthwise((120, 0), (144, 0), (3, 4)),
               _lengthwise((144, 24), (144, 48), (4, 5)), _lengthwise((144, 72), (144, 96), (5, 8)),
               _lengthwise((120, 96), (96, 96), (8, 6))]
    between = _crosswise((72, 96), (0, 1), 2)  # head to head between both ends
    reading = reconstruct([ENGINE, *seat0, *mexican, between], None, 3)
    assert "fits-two-trains" in _kinds(reading)
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
    assert _kinds(reading) == ["inferred-tile"]
    assert reading.inferred(0, 2) and not reading.inferred(0, 3)
    assert reading.doubted(0, 2)
    assert reading.positions[0][2] == len(tiles)  # past the input tiles
    assert reading.assignment == ["engine", 0, 0, 0]
    # told not to infer, the gap is reported and the train stops at it
    reading = reconstruct(tiles, None, 3, infer_gaps=False)
    assert reading.table is not None
    assert reading.table.train(0).tiles == ((9, 1), (1, 2))  # type: ignore[union-attr]
    assert _kinds(reading) == ["gap"]


def test_a_gap_of_an_unseen_double_is_bridged_with_that_double() -> None:
    # Mexican train 9-3 [3-3 across, unseen] 3-4: the tile beyond matches the end
    tiles = [ENGINE, _lengthwise((72, 0), (96, 0), (9, 3)),
             _lengthwise((144, 0), (168, 0), (3, 4))]
    reading = reconstruct(tiles, None, 3)
    assert reading.table is not None
    assert reading.table.train(MEXICAN).tiles == (  # type: ignore[union-attr]
        (9, 3), (3, 3), (3, 4))
    assert _kinds(reading) == ["inferred-tile"]


def test_a_gap_of_two_tiles_or_a_tile_already_on_the_table_is_not_bridged() -> None:
    two = [ENGINE, SEAT0_DOWN[0], _lengthwise((0, 216), (0, 240), (3, 4))]
    reading = reconstruct(two, None, 3)
    assert reading.table is not None
    assert reading.table.train(0).tiles == ((9, 1),)  # type: ignore[union-attr]
    assert _kinds(reading) == ["gap"]
    # the gap would be a 1-2, and the Mexican train holds the set's 1-2
    taken = [ENGINE, SEAT0_DOWN[0], SEAT0_DOWN[2],
             _lengthwise((72, 0), (96, 0), (9, 2)), _lengthwise((120, 0), (144, 0), (2, 1))]
    reading = reconstruct(taken, None, 3)
    assert reading.table is not None
    assert reading.table.train(0).tiles == ((9, 1),)  # type: ignore[union-attr]
    assert "inferred-tile" not in _kinds(reading)


def test_a_tile_touching_nothing_is_reported() -> None:
    tiles = [ENGINE, *SEAT0_DOWN, _lengthwise((-300, -300), (-300, -276), (7, 8))]
    reading = reconstruct(tiles, None, 3)
    assert _kinds(reading) == ["loose-tile"]
    assert reading.assignment[-1] is None
    assert reading.table.train(0).tiles == tuple(t.values for t in SEAT0_DOWN)  # type: ignore[union-attr]


def test_two_tiles_continuing_one_end_are_reported() -> None:
    tiles = [ENGINE, *SEAT0_DOWN, _lengthwise((24, 240), (48, 240), (4, 6))]
    reading = reconstruct(tiles, None, 3)
    # The straight continuation and the turn are both plausible.
    tiles.append(_lengthwise((0, 264), (0, 288), (4, 7)))
    reading = reconstruct(tiles, None, 3)
    assert "branch" in _kinds(reading)


def test_a_mismatched_tile_stays_on_its_train_for_the_rules_to_judge() -> None:
    tiles = [ENGINE, SEAT0_DOWN[0], _lengthwise((0, 120), (0, 144), (6, 2))]
    reading = reconstruct(tiles, None, 3)
    assert reading.table is not None
    assert reading.table.train(0).tiles == ((9, 1), (6, 2))  # type: ignore[union-attr]
    assert reading.table.problems(12, 3) != []


def test_values_read_in_either_order_give_the_same_table() -> None:
    flipped = [SeenTile((t.values[1], t.values[0]), np.roll(t.corners, 2, axis=0))
               for t in SEAT0_DOWN]
    a = reconstruct([ENGINE, *SEAT0_DOWN], None, 3)
    b = reconstruct([ENGINE, *flipped], None, 3)
    assert a.table == b.table


def test_engine_is_the_lonely_double_not_one_inside_a_train() -> None:
    tiles = [_lengthwise((0, 72), (0, 96), (9, 1)), _crosswise((0, 120), (1, 0), 1),
             _lengthwise((0, 144), (0, 168), (1, 2)), ENGINE]
    reading = reconstruct(tiles, None, 3)
    assert reading.table is not None and reading.table.engine == 9
    assert reading.assignment[3] == "engine"


def test_a_known_engine_picks_its_double_among_others() -> None:
    # a lonely 4-4 lies further out; without knowing the engine the most central wins
    other = _crosswise((300, 0), (0, 1), 4)
    tiles = [other, ENGINE, *SEAT0_DOWN]
    assert reconstruct(tiles, None, 3, engine=9).assignment[1] == "engine"
    assert reconstruct(tiles, None, 3, engine=4).assignment[0] == "engine"
    # a known engine that is not on the table as read: the likeliest double, reported
    reading = reconstruct(tiles, None, 3, engine=10)
    assert reading.table is not None and reading.table.engine == 10
    assert "engine-read" in _kinds(reading)


class _MatScene(NamedTuple):
    """A laid-out 3-player mat table as a camera sees it, and its reading as laid."""

    good: TableReading
    tiles: list[SeenTile]
    markers: Detections
    view: MatView
    mat_to_image: np.ndarray


def _mat_scene(seed: int, n_tiles: int = 10) -> _MatScene:
    """The table ``_read_layout(seed, 3, n_tiles, True)`` reads, before it is read."""
    _, good = _read_layout(seed, 3, n_tiles, True)
    assert good.table is not None
    rng = np.random.default_rng(seed)
    table = random_table(rng, 3, 12, n_tiles, marker_rate=0.4)
    layout = layout_table(table, 3, rng, mat=True)
    to_image = overhead_homography(layout.size, (1280, 720), rng, tilt=0.03)
    tiles, marker_corners = seen_tiles(layout, to_image, rng, noise_px=0.7)
    mat_to_image = to_image @ layout.hub.mat_matrix
    n = len(marker_corners)
    return _MatScene(good, tiles, Detections(marker_corners, np.ones(n), np.ones(n)),
                     MatView(3, np.linalg.inv(mat_to_image), (), 0.0), mat_to_image)


def test_with_the_mat_a_known_engine_read_wrong_is_still_the_engine() -> None:
    good, tiles, markers, view, _ = _mat_scene(101, 12)
    assert good.table is not None
    table = good.table
    hub = [i for i, t in enumerate(tiles) if tuple(t.values) == (table.engine, table.engine)]
    assert len(hub) == 1
    misread = list(tiles)
    misread[hub[0]] = SeenTile((table.engine, 17), tiles[hub[0]].corners)
    reading = reconstruct(misread, markers, 3, view, engine=table.engine)
    assert reading.table == good.table
    assert "engine-read" in _kinds(reading)
    # not told the engine, the count the trains leaving the hub start with tells it
    unknown = reconstruct(misread, markers, 3, view)
    assert unknown.table == good.table
    assert "engine-read" in _kinds(unknown)
    # nothing on the mat's centre: no engine
    off = [t for i, t in enumerate(misread) if i != hub[0]]
    assert reconstruct(off, markers, 3, view).table is None


def test_with_the_mat_its_printed_markers_are_not_tiles() -> None:
    good, tiles, markers, view, mat_to_image = _mat_scene(103)
    # the detector took the four printed ArUco squares for tiles
    fake = []
    for p in range(4):
        centre = marker_corners_mm(p).mean(axis=0)
        rect = centre + np.array([[-8.5, -17], [8.5, -17], [8.5, 17], [-8.5, 17]], float)
        fake.append(SeenTile((p, (p + 1) % 4), apply_homography(mat_to_image, rect)))
    reading = reconstruct([*fake, *tiles], markers, 3, view)
    assert reading.table == good.table
    assert _kinds(reading) == _kinds(good)  # nothing more to report
    assert reading.assignment[:4] == [None] * 4


def test_with_the_mat_a_box_on_the_engine_is_a_piece_of_it() -> None:
    # a short box over a third of the engine, askew, read 9-0 (the games benchmark's video
    # frames): only the engine lies on the hub, so it is no tile
    good, tiles, markers, view, mat_to_image = _mat_scene(103)
    for centre, values in (((6.0, -9.0), (9, 0)), ((-4.0, 5.0), (12, 5))):
        a = np.array([math.cos(1.2), math.sin(1.2)])
        p = np.array([-a[1], a[0]])
        rect = np.array(centre) + np.array([-14 * a - 8 * p, -14 * a + 8 * p,
                                            14 * a + 8 * p, 14 * a - 8 * p])
        piece = SeenTile(values, apply_homography(mat_to_image, rect))
        reading = reconstruct([*tiles, piece], markers, 3, view)
        assert reading.table == good.table
        assert reading.assignment[-1] is None
        assert _kinds(reading) == _kinds(good)


def _mat_with_fakes(seed: int, fake_radius: float) -> tuple[TableReading, TableReading]:
    """A mat table read as laid, and read again with a tile-sized box lying radially
    ``fake_radius`` mm out in every slot (read 0-1, the 0 towards the hub)."""
    good, tiles, markers, view, mat_to_image = _mat_scene(seed)
    fake = []
    for angle in slot_angles(3):
        a = np.array([math.cos(angle), math.sin(angle)])
        p = np.array([-a[1], a[0]])
        near, far = (fake_radius - 24) * a, (fake_radius + 24) * a
        rect = np.array([near - 12 * p, near + 12 * p, far + 12 * p, far - 12 * p])
        fake.append(SeenTile((0, 1), apply_homography(mat_to_image, rect)))
    return good, reconstruct([*fake, *tiles], markers, 3, view)


def test_with_the_mat_its_printed_seat_arrows_and_labels_are_not_tiles() -> None:
    # the detector took the print between the engine and the slots (arrows and labels,
    # 88-99 mm out) for tiles
    for radius in (90.0, 118.0):  # centred on the print, or reaching in over the arrows
        good, reading = _mat_with_fakes(103, radius)
        assert reading.table == good.table
        assert _kinds(reading) == _kinds(good)
        assert reading.assignment[:4] == [None] * 4
    # the same boxes where a train's first tile lies are taken as tiles
    _, at_slots = _mat_with_fakes(103, SLOT_RADIUS_MM + 24)
    assert any(owner is not None for owner in at_slots.assignment[:4])


def test_markers_attach_to_the_train_end_they_lie_by() -> None:
    marker = np.array([[[-10, 254], [10, 254], [10, 274], [-10, 274]]], float)
    reading = reconstruct([ENGINE, *SEAT0_DOWN], Detections(marker, np.ones(1), np.ones(1)), 3)
    assert reading.table is not None
    assert reading.table.train(0).marker  # type: ignore[union-attr]
    assert reading.marker_owners == [0]


def test_a_marker_far_from_every_train_is_reported() -> None:
    marker = np.array([[[400, 400], [420, 400], [420, 420], [400, 420]]], float)
    reading = reconstruct([ENGINE, *SEAT0_DOWN], Detections(marker, np.ones(1), np.ones(1)), 3)
    assert _kinds(reading) == ["loose-marker"]


def test_a_mat_for_other_players_wins_and_is_reported() -> None:
    view = MatView(3, np.eye(3), (12, 13, 14, 15), 0.0)
    reading = reconstruct([ENGINE, *SEAT0_DOWN], None, 5, view)
    assert "players-mismatch" in _kinds(reading)
    assert reading.table is not None and len(reading.table.trains) == 4


class _Ranged:
    """A read tile with the counts each half could be (``TileReading.ranges``)."""

    def __init__(self, tile: SeenTile, ranges: tuple[tuple[int, int], tuple[int, int]]) -> None:
        self.values, self.corners, self.ranges = tile.values, tile.corners, ranges


def test_misread_halves_are_settled_by_their_neighbours_within_the_readers_doubt() -> None:
    # the true Mexican train is 9-3 3-11 11-11 11-8; a blurred 11 was read 12 and 10
    three_eleven = _lengthwise((120, 0), (144, 0), (3, 11))
    tiles: list[TileLike] = [ENGINE,
             _lengthwise((72, 0), (96, 0), (9, 3)),
             # read far end first (either order), 12 where 11 or 12 could be
             _Ranged(SeenTile((12, 3), np.roll(three_eleven.corners, 2, axis=0)),
                     ((11, 12), (3, 3))),
             _Ranged(_crosswise((168, 0), (0, 1), 10), ((10, 11), (10, 11))),
             _Ranged(_lengthwise((192, 0), (216, 0), (10, 8)), ((10, 11), (8, 8)))]
    reading = reconstruct(tiles, None, 3)
    assert reading.table is not None
    assert reading.table.train(MEXICAN).tiles == (  # type: ignore[union-attr]
        (9, 3), (3, 11), (11, 11), (11, 8))
    assert _kinds(reading) == ["matched-read"] * 3
    assert "read 12-3; taken as 3-11" in reading.uncertainties[0].message


def test_a_count_the_reader_is_sure_of_is_not_matched() -> None:
    # 6-2 laid on 1: the reader could see 6 or 7 pips, never 1: a mismatch for the rules
    tiles: list[TileLike] = [ENGINE, SEAT0_DOWN[0],
             _Ranged(_lengthwise((0, 120), (0, 144), (6, 2)), ((6, 7), (2, 2)))]
    reading = reconstruct(tiles, None, 3)
    assert reading.table is not None
    assert reading.table.train(0).tiles == ((9, 1), (6, 2))  # type: ignore[union-attr]
    assert "matched-read" not in _kinds(reading)


def test_a_doubtful_open_end_does_not_repeat_a_tile_on_the_table() -> None:
    # seat 0's train starts 9-1; the Mexican train's new tile is a blurred 9-2 read 9-1
    tiles: list[TileLike] = [ENGINE, *SEAT0_DOWN,  # 9-1 1-2 2-3 3-4
             _Ranged(_lengthwise((72, 0), (96, 0), (9, 1)), ((9, 9), (1, 2)))]
    reading = reconstruct(tiles, None, 3)
    assert reading.table is not None
    assert reading.table.train(MEXICAN).tiles == ((9, 2),)  # type: ignore[union-attr]
    assert _kinds(reading) == ["matched-read"]
    # read without doubt, the repeat stays for the rules to report
    sure = [ENGINE, *SEAT0_DOWN, _lengthwise((72, 0), (96, 0), (9, 1))]
    reading = reconstruct(sure, None, 3)
    assert reading.table is not None
    assert reading.table.train(MEXICAN).tiles == ((9, 1),)  # type: ignore[union-attr]
    assert reading.table.problems(12, 3) != []


class _Doubted(_Ranged):
    """A read tile the reader doubted (``TileReading.uncertain``)."""

    uncertain = True


def _crosswise_read(centre: tuple[float, float], values: tuple[int, int]) -> SeenTile:
    """A tile lying across a train running along x, read ``values``."""
    return SeenTile(values, _crosswise(centre, (0, 1), 0).corners)


MEXICAN_TO_11 = [ENGINE, _lengthwise((72, 0), (96, 0), (9, 3)),
                 _lengthwise((120, 0), (144, 0), (3, 11))]
#: ... and on past the tile at 168 (the one each test varies): 11-8.
ELEVEN_EIGHT = _lengthwise((192, 0), (216, 0), (11, 8))


def _mexican_across(middle: Any) -> tuple[TableReading, tuple[tuple[int, int], ...]]:
    """The reading of MEXICAN_TO_11, ``middle`` at 168, 11-8, and its Mexican train."""
    reading = reconstruct([*MEXICAN_TO_11, middle, ELEVEN_EIGHT], None, 3)
    assert reading.table is not None
    train = reading.table.train(MEXICAN)
    assert train is not None
    return reading, train.tiles


def test_a_tile_lying_crosswise_that_could_be_the_ends_double_is_that_double() -> None:
    # a blurred 11-11 across the train read 12-11 (either half could be 11), then 11-8
    reading, mexican = _mexican_across(
        _Ranged(_crosswise_read((168, 0), (12, 11)), ((11, 12), (11, 11))))
    assert mexican == ((9, 3), (3, 11), (11, 11), (11, 8))
    assert _kinds(reading) == ["matched-read"]
    assert "lies crosswise" in reading.uncertainties[0].message


def test_a_doubted_tile_lying_crosswise_is_the_ends_double() -> None:
    # over-counted: 12-13, neither 11 within the band, but the reader doubted it
    doubted = _Doubted(_crosswise_read((168, 0), (12, 13)), ((12, 12), (13, 14)))
    _, mexican = _mexican_across(doubted)
    assert mexican == ((9, 3), (3, 11), (11, 11), (11, 8))


def test_a_double_across_its_train_matched_to_its_end_stays_a_double() -> None:
    # a blurred 11-11 across the train read 10-10, the near half could be 11, the far
    # half not: it lies across, so it is the 11-11 (the 11-8 lies on it), not an 11-10
    for kind in (_Ranged, _Doubted):
        reading, mexican = _mexican_across(
            kind(_crosswise_read((168, 0), (10, 10)), ((9, 10), (10, 11))))
        assert mexican == ((9, 3), (3, 11), (11, 11), (11, 8))
        assert "taken as 11-11" in reading.uncertainties[-1].message
    # the same reading at the train's end: the double waiting there is the 11-11 too
    reading = reconstruct([*MEXICAN_TO_11, _Ranged(_crosswise_read((168, 0), (10, 10)),
                                                   ((9, 10), (10, 11)))], None, 3)
    assert reading.table is not None
    assert reading.table.train(MEXICAN).tiles == (  # type: ignore[union-attr]
        (9, 3), (3, 11), (11, 11))


def test_a_sure_single_lying_crosswise_is_not_taken_for_a_double() -> None:
    sure = _Ranged(_crosswise_read((168, 0), (5, 6)), ((5, 5), (6, 6)))
    reading = reconstruct([*MEXICAN_TO_11, sure], None, 3)
    assert reading.table is not None
    assert reading.table.train(MEXICAN).tiles == ((9, 3), (3, 11))  # type: ignore[union-attr]
    assert reading.assignment[3] is None


def test_a_marker_boxed_as_a_doubted_tile_too_is_only_the_marker() -> None:
    # a toy train (40 x 18) crosswise just beyond the Mexican train's 11 end, found as a
    # marker and as a doubted tile: without the marker it would be the end's double
    box = _Doubted(_crosswise_read((168, 0), (2, 0)), ((2, 3), (0, 1)))
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


def test_a_double_in_a_train_read_as_the_engine_is_the_double_of_its_end() -> None:
    # the engine is 9-9: a 11-11 inside the Mexican train read 9-9 cannot be a second 9-9
    reading, mexican = _mexican_across(_crosswise((168, 0), (0, 1), 9))
    assert mexican == ((9, 3), (3, 11), (11, 11), (11, 8))
    assert _kinds(reading) == ["matched-read"]
    assert "engine's twin" in reading.uncertainties[0].message
    # laid on a 9, a 9-9 is still the engine's twin: nothing to take it for; the rules see it
    on_nine = [ENGINE, _lengthwise((72, 0), (96, 0), (9, 3)),
               _lengthwise((120, 0), (144, 0), (3, 9)), _crosswise((168, 0), (0, 1), 9)]
    reading = reconstruct(on_nine, None, 3)
    assert reading.table is not None
    assert reading.table.train(MEXICAN).tiles == (  # type: ignore[union-attr]
        (9, 3), (3, 9), (9, 9))
    assert "matched-read" not in _kinds(reading)


def test_an_engine_twin_and_its_misread_neighbours_take_a_count_they_could_all_be() -> None:
    # true Mexican train 9-3 3-8 8-8 8-5; every 8 was over-counted 9 (engine 9-9), and the
    # singles' ranges allow 8: the double and both neighbours become 8
    tiles: list[TileLike] = [ENGINE, _lengthwise((72, 0), (96, 0), (9, 3)),
             _Ranged(_lengthwise((120, 0), (144, 0), (3, 9)), ((3, 3), (8, 9))),
             _crosswise((168, 0), (0, 1), 9),
             _Ranged(_lengthwise((192, 0), (216, 0), (9, 5)), ((8, 9), (5, 5)))]
    reading = reconstruct(tiles, None, 3)
    assert reading.table is not None
    assert reading.table.train(MEXICAN).tiles == (  # type: ignore[union-attr]
        (9, 3), (3, 8), (8, 8), (8, 5))
    assert _kinds(reading) == ["matched-read"]


def test_a_single_read_as_a_double_is_matched_by_whichever_half_could_be_the_end() -> None:
    # 11-8 read 8-8: the 8 is sure, the other half could be 7 to 12, so it is the 11
    tiles: list[TileLike] = [*MEXICAN_TO_11,
             _Ranged(_lengthwise((168, 0), (192, 0), (8, 8)), ((8, 8), (7, 12)))]
    reading = reconstruct(tiles, None, 3)
    assert reading.table is not None
    assert reading.table.train(MEXICAN).tiles == (  # type: ignore[union-attr]
        (9, 3), (3, 11), (11, 8))
    assert _kinds(reading) == ["matched-read"]


# --- looking again where a train goes on -------------------------------------------


class _Looked:
    """What a reader gives for a box read again: ``values`` in corner order."""

    def __init__(self, values: tuple[int, int], uncertain: bool = False) -> None:
        self.values, self.uncertain, self.confidence = values, uncertain, 0.2 if uncertain else 1.0
        self.ranges = ((values[0], values[0]), (values[1], values[1]))


def _looker(truth: list[SeenTile], calls: list[np.ndarray] | None = None) -> Any:
    """A ``look`` that reads the true tile lying in the outline asked for, and doubted
    junk where none lies so."""

    def look(corners: np.ndarray) -> _Looked:
        c = np.asarray(corners, float)
        if calls is not None:
            calls.append(c)
        a_end, b_end = (c[0] + c[1]) / 2, (c[2] + c[3]) / 2
        for t in truth:
            tc = np.asarray(t.corners, float)
            ta, tb = (tc[0] + tc[1]) / 2, (tc[2] + tc[3]) / 2
            if np.linalg.norm(ta - a_end) < 6 and np.linalg.norm(tb - b_end) < 6:
                return _Looked((int(t.values[0]), int(t.values[1])))
            if np.linalg.norm(tb - a_end) < 6 and np.linalg.norm(ta - b_end) < 6:
                return _Looked((int(t.values[1]), int(t.values[0])))
        return _Looked((0, 5), uncertain=True)

    return look


def _turned(tile: SeenTile, degrees: float,
            about: tuple[float, float] | None = None) -> SeenTile:
    """``tile``'s box turned about its centre (or ``about``): a box the detector laid
    askew."""
    c = np.asarray(tile.corners, float)
    m = c.mean(axis=0) if about is None else np.array(about, float)
    a = math.radians(degrees)
    rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    return SeenTile(tile.values, (c - m) @ rot.T + m)


def test_of_two_tiles_continuing_a_train_as_well_the_one_it_goes_on_from_is_taken() -> None:
    # seat 0: 9-1 1-2 2-3 3-4, the 2-3 found 4 mm further on; a spurious box read 2-5
    # (a shadow's) lies on the 1-2's end, turned 20 degrees: it fits the end a little
    # better, but nothing goes on from its 5, while the 3-4 goes on from the 2-3
    true_23 = _lengthwise((0, 172), (0, 196), (2, 3))
    on = _lengthwise((0, 216), (0, 240), (3, 4))
    a = math.radians(20)
    spurious = _lengthwise((24 * math.sin(a), 144 + 24 * math.cos(a)),
                           (48 * math.sin(a), 144 + 48 * math.cos(a)), (2, 5))
    tiles = [ENGINE, SEAT0_DOWN[0], SEAT0_DOWN[1], spurious, true_23, on]
    reading = reconstruct(tiles, None, 3)
    assert reading.table is not None
    assert reading.table.train(0).tiles == (  # type: ignore[union-attr]
        (9, 1), (1, 2), (2, 3), (3, 4))
    assert reading.assignment[3] is None
    assert "branch" in _kinds(reading)  # still told: two tiles could continue it
    # with nothing beyond either, the one fitting the end better is taken
    alone = reconstruct(tiles[:-1], None, 3)
    assert alone.table is not None
    assert alone.table.train(0).tiles[-1] == (2, 5)  # type: ignore[union-attr]


def test_a_train_stopping_at_an_askew_box_is_read_again_where_it_goes_on() -> None:
    # seat 0: 9-1 1-2 2-3 3-4, the 2-3 found as a box turned 45 degrees (read 6-0)
    askew = SeenTile((6, 0), _turned(SEAT0_DOWN[2], 45).corners)
    tiles = [ENGINE, SEAT0_DOWN[0], SEAT0_DOWN[1], askew, SEAT0_DOWN[3]]
    reading = reconstruct(tiles, None, 3, look=_looker([ENGINE, *SEAT0_DOWN]))
    assert reading.table is not None
    assert reading.table.train(0).tiles == (  # type: ignore[union-attr]
        (9, 1), (1, 2), (2, 3), (3, 4))
    assert _kinds(reading) == ["reread-tile"]
    assert reading.positions[0][2] == len(tiles)  # read again: past the input tiles
    assert reading.doubted(0, 2) and not reading.inferred(0, 2)
    assert reading.assignment[3] is None  # the askew box was no tile of its own
    # without looking again the 2-3 is only inferred from the tiles either side ...
    blind = reconstruct(tiles, None, 3)
    assert _kinds(blind) == ["inferred-tile"] * 2
    # ... and with nothing beyond it the train stops at the askew box
    blind = reconstruct(tiles[:-1], None, 3)
    assert blind.table is not None
    assert blind.table.train(0).tiles == ((9, 1), (1, 2))  # type: ignore[union-attr]
    reading = reconstruct(tiles[:-1], None, 3, look=_looker([ENGINE, *SEAT0_DOWN]))
    assert reading.table is not None
    assert reading.table.train(0).tiles == ((9, 1), (1, 2), (2, 3))  # type: ignore[union-attr]


class _SureLooked(_Looked):
    """A reading sure of each half's count, within wide ranges (a blurred tile)."""

    def __init__(self, values: tuple[int, int]) -> None:
        super().__init__(values)
        self.ranges = ((max(values[0] - 3, 0), values[0] + 3), (max(values[1] - 8, 0), 12))
        self.half_certainty = (1.0, 0.95)


def test_a_half_read_surely_as_another_count_is_no_double_across_a_trains_end() -> None:
    # seat 0: 9-1 1-2 2-3, the 2-3 found as an askew box; then 3-4 turned beside its 3
    # half. Read again where a 2-2 would lie across the end, the 2-3's near half and
    # what lies beside it show a sure 2 and a sure 3 (the 3's range, blurred, reaches
    # 2); where it lies, the reading is doubted. A half sure of another count is no half
    # of the end's double: the 2-3 is inferred between the 1-2 and the 3-4
    askew = SeenTile((6, 0), _turned(SEAT0_DOWN[2], 45).corners)
    turned = _lengthwise((24, 192), (48, 192), (3, 4))
    tiles = [ENGINE, SEAT0_DOWN[0], SEAT0_DOWN[1], askew, turned]
    truth_look = _looker([ENGINE, *SEAT0_DOWN[:3], turned])

    def looker(across_reads: _Looked) -> Any:
        def look(corners: np.ndarray) -> _Looked:
            c = np.asarray(corners, float)
            axis = c[2] + c[3] - c[0] - c[1]
            if abs(axis[0]) > abs(axis[1]) and np.linalg.norm(c.mean(axis=0) - [0, 168]) < 6:
                return across_reads  # where a double would lie across the 1-2's end
            if np.linalg.norm(c.mean(axis=0) - [0, 180]) < 6:  # where the 2-3 lies
                return _Looked((2, 3), uncertain=True)
            return truth_look(c)
        return look

    reading = reconstruct(tiles, None, 3, look=looker(_SureLooked((2, 3))))
    assert reading.table is not None
    assert reading.table.train(0).tiles == (  # type: ignore[union-attr]
        (9, 1), (1, 2), (2, 3), (3, 4))
    assert reading.assignment[4] == 0
    # a reading unsure of the half that is not the end's count may still be its double
    unsure = _SureLooked((2, 3))
    unsure.half_certainty = (1.0, 0.5)
    doubted = reconstruct(tiles, None, 3, look=looker(unsure))
    assert doubted.table is not None
    assert doubted.table.train(0).tiles[2] == (2, 2)  # type: ignore[union-attr]


def test_an_outline_with_no_box_in_it_is_taken_only_when_read_surely() -> None:
    # seat 0: 9-1 1-2 2-3 and nothing beyond; a loose 5-6 lies off to the side, near
    # enough to where a next tile could lie that the train's end is read again. Read
    # there, the bare table shows a 3-6 the reader is half sure of: no box lies in that
    # outline, so it is no tile; read surely, it is (the box may have been missed)
    aside = _lengthwise((12, 236), (36, 236), (5, 6))
    tiles = [ENGINE, *SEAT0_DOWN[:3], aside]

    def looker(confidence: float) -> Any:
        def look(corners: np.ndarray) -> _Looked:
            c = np.asarray(corners, float)
            axis = c[2] + c[3] - c[0] - c[1]
            if abs(axis[1]) > abs(axis[0]) and np.linalg.norm(c.mean(axis=0) - [0, 228]) < 6:
                seen = _Looked((3, 6) if axis[1] > 0 else (6, 3))
                seen.confidence = confidence
                return seen
            return _Looked((0, 5), uncertain=True)
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
    ends_blank = [ENGINE, *SEAT0_DOWN[:2], _lengthwise((0, 168), (0, 192), (2, 0))]
    aside = _lengthwise((38, 204), (62, 204), (5, 6))  # beside where a turn would go

    def blank(corners: np.ndarray) -> _Looked:
        return _Looked((0, 0))

    bare = reconstruct([*ends_blank, aside], None, 3, look=blank)
    assert bare.table is not None
    assert bare.table.train(0).tiles == (  # type: ignore[union-attr]
        (9, 1), (1, 2), (2, 0))
    assert "reread-tile" not in _kinds(bare)
    boxed = SeenTile((5, 6), _crosswise((0, 228), (1, 0), 0).corners)
    seen = reconstruct([*ends_blank, boxed], None, 3, look=blank)
    assert seen.table is not None
    assert seen.table.train(0).tiles == (  # type: ignore[union-attr]
        (9, 1), (1, 2), (2, 0), (0, 0))


def _turned_double() -> tuple[SeenTile, SeenTile, list[SeenTile]]:
    """Seat 0: 9-1 1-2, then a 2-2 laid beside the far half of the 1-2 (the train turns
    towards +x), then 2-5 on along x; the 2-2 was found as a squarish box off its
    place, read 5-6. The 2-2, the 2-5 and the tiles found."""
    double = _crosswise((24, 144), (0, 1), 2)
    on = _lengthwise((48, 144), (72, 144), (2, 5))
    squarish = SeenTile((5, 6), np.array([[15, 141], [45, 141], [45, 171], [15, 171]], float))
    return double, on, [ENGINE, SEAT0_DOWN[0], SEAT0_DOWN[1], squarish, on]


def test_a_double_turned_beside_a_trains_end_is_read_again_there() -> None:
    double, on, tiles = _turned_double()
    truth = [ENGINE, SEAT0_DOWN[0], SEAT0_DOWN[1], double, on]
    reading = reconstruct(tiles, None, 3, look=_looker(truth))
    assert reading.table is not None
    assert reading.table.train(0).tiles == (  # type: ignore[union-attr]
        (9, 1), (1, 2), (2, 2), (2, 5))
    assert "reread-tile" in _kinds(reading) and "inferred-tile" not in _kinds(reading)
    # without looking again, the 2-2 is inferred from the 2-5 turned a double's width on
    blind = reconstruct(tiles, None, 3)
    assert blind.table is not None
    assert blind.table.train(0).tiles == (  # type: ignore[union-attr]
        (9, 1), (1, 2), (2, 2), (2, 5))
    assert blind.inferred(0, 2)


def test_a_gap_of_an_unseen_double_where_the_train_turns_is_bridged() -> None:
    # seat 0: 9-1 1-2, a 2-2 unseen beside the far half of the 1-2, then 2-5 on along x
    on = _lengthwise((48, 144), (72, 144), (2, 5))
    reading = reconstruct([ENGINE, SEAT0_DOWN[0], SEAT0_DOWN[1], on], None, 3)
    assert reading.table is not None
    assert reading.table.train(0).tiles == (  # type: ignore[union-attr]
        (9, 1), (1, 2), (2, 2), (2, 5))
    assert _kinds(reading) == ["inferred-tile"]
    assert reading.inferred(0, 2) and not reading.inferred(0, 3)
    # the other way too
    left = _lengthwise((-48, 144), (-72, 144), (2, 5))
    reading = reconstruct([ENGINE, SEAT0_DOWN[0], SEAT0_DOWN[1], left], None, 3)
    assert reading.table is not None
    assert reading.table.train(0).tiles[-2:] == ((2, 2), (2, 5))  # type: ignore[union-attr]
    # not when the tile turned on does not start with the end's count (no double of
    # the end's count between them), nor for a tile a single's length off at a right
    # angle (an unseen single lies straight on before the train turns), nor past a
    # double (a train does not turn twice at once)
    for tile in (_lengthwise((48, 144), (72, 144), (3, 5)),
                 _lengthwise((72, 144), (96, 144), (3, 5))):
        reading = reconstruct([ENGINE, SEAT0_DOWN[0], SEAT0_DOWN[1], tile], None, 3)
        assert reading.table is not None
        assert reading.table.train(0).tiles == ((9, 1), (1, 2))  # type: ignore[union-attr]
        assert "inferred-tile" not in _kinds(reading)
    past_double = [ENGINE, SEAT0_DOWN[0], _crosswise((0, 120), (1, 0), 1),
                   _lengthwise((48, 120), (72, 120), (1, 5))]
    reading = reconstruct(past_double, None, 3)
    assert reading.table is not None
    assert reading.table.train(0).tiles == ((9, 1), (1, 1))  # type: ignore[union-attr]


def test_a_single_read_as_the_double_it_lies_on_is_not_that_double_again() -> None:
    # Mexican train 9-3 3-3 (across), then a 3-5 lying on along the train read 3-3: a set
    # holds one 3-3, so the box is read again where the train puts its next tile
    along = _lengthwise((144, 0), (168, 0), (3, 5))
    misread = SeenTile((3, 3), along.corners)
    tiles = [ENGINE, _lengthwise((72, 0), (96, 0), (9, 3)), _crosswise((120, 0), (0, 1), 3),
             misread]
    reading = reconstruct(tiles, None, 3, look=_looker([*tiles[:3], along]))
    assert reading.table is not None
    assert reading.table.train(MEXICAN).tiles == (  # type: ignore[union-attr]
        (9, 3), (3, 3), (3, 5))
    assert _kinds(reading) == ["reread-tile"]
    # a tile read as a double lying on along a single still continues it, for the rules
    inline = [ENGINE, _lengthwise((72, 0), (96, 0), (9, 3)),
              _lengthwise((120, 0), (144, 0), (3, 3))]
    reading = reconstruct(inline, None, 3)
    assert reading.table is not None
    assert reading.table.train(MEXICAN).tiles == ((9, 3), (3, 3))  # type: ignore[union-attr]


def test_looking_again_takes_no_doubted_reading_nor_a_double_lying_lengthwise() -> None:
    askew = SeenTile((6, 0), _turned(SEAT0_DOWN[2], 45).corners)
    tiles = [ENGINE, SEAT0_DOWN[0], SEAT0_DOWN[1], askew]
    calls: list[np.ndarray] = []
    # nothing true lies there: every look is doubted junk
    reading = reconstruct(tiles, None, 3, look=_looker([], calls))
    assert reading.table is not None
    assert reading.table.train(0).tiles == ((9, 1), (1, 2))  # type: ignore[union-attr]
    assert calls and "reread-tile" not in _kinds(reading)
    # a lengthwise outline read 2-2 spans halves of two tiles (a 2-2 lies across)

    def along_reads_a_double(corners: np.ndarray) -> _Looked:  # straight on, lengthwise
        axis = (corners[2] + corners[3] - corners[0] - corners[1]) / 2
        straight = abs(axis[1]) > abs(axis[0]) and abs(corners.mean(axis=0)[0]) < 6
        return _Looked((2, 2)) if straight else _Looked((0, 5), True)

    reading = reconstruct(tiles, None, 3, look=along_reads_a_double)
    assert reading.table is not None
    assert (2, 2) not in reading.table.train(0).tiles  # type: ignore[union-attr]


def test_no_look_where_no_loose_box_lies_by_a_trains_end() -> None:
    calls: list[np.ndarray] = []
    reading = reconstruct([ENGINE, *SEAT0_DOWN], None, 3, look=_looker([], calls))
    assert reading.certain
    assert calls == []


def test_the_same_double_twice_at_a_trains_end_is_one_tile() -> None:
    # Mexican train 9-3 3-3, and a second box on the 3-3 read 3-3 beyond it
    tiles = [ENGINE, _lengthwise((72, 0), (96, 0), (9, 3)), _crosswise((120, 0), (0, 1), 3),
             _lengthwise((144, 0), (168, 0), (3, 3))]
    reading = reconstruct(tiles, None, 3)
    assert reading.table is not None
    assert reading.table.train(MEXICAN).tiles == ((9, 3), (3, 3))  # type: ignore[union-attr]
    assert _kinds(reading) == ["loose-tile"]
    assert reading.assignment[3] is None


def test_a_tile_at_a_mismatch_is_read_again_where_its_train_puts_it() -> None:
    # seat 0: 9-1 1-2 2-3 3-4; the 2-3's box slid 6 px along the train cut the 2 off its
    # crop, read 5-3 without doubt (no range to settle it by its neighbours)
    slid = SeenTile((5, 3), np.asarray(SEAT0_DOWN[2].corners, float) + [0, 6])
    tiles = [ENGINE, SEAT0_DOWN[0], SEAT0_DOWN[1], slid, SEAT0_DOWN[3]]
    reading = reconstruct(tiles, None, 3, look=_looker([ENGINE, *SEAT0_DOWN]))
    assert reading.table is not None
    assert reading.table.train(0).tiles == (  # type: ignore[union-attr]
        (9, 1), (1, 2), (2, 3), (3, 4))
    assert _kinds(reading) == ["reread-tile"]
    assert reading.doubted(0, 2) and reading.positions[0][2] == 3
    # without looking again it is a mismatch for the rules
    blind = reconstruct(tiles, None, 3)
    assert blind.table is not None
    assert blind.table.train(0).tiles[2] == (5, 3)  # type: ignore[union-attr]
    # a tile that really does not match reads the same again, and stays; so does the
    # tile before it, read again
    really = SeenTile((6, 3), SEAT0_DOWN[2].corners)
    laid = [ENGINE, SEAT0_DOWN[0], SEAT0_DOWN[1], really, SEAT0_DOWN[3]]
    reading = reconstruct(laid, None, 3, look=_looker([ENGINE, *laid[1:]]))
    assert reading.table is not None
    assert reading.table.train(0).tiles[1:3] == ((1, 2), (6, 3))  # type: ignore[union-attr]
    assert "reread-tile" not in _kinds(reading)


def test_the_tile_before_a_mismatch_is_read_again_when_the_one_after_reads_the_same() -> None:
    # seat 0: 9-1 1-2 2-3 3-4; the 1-2's box slid 6 px towards the hub cut pips off its
    # far half, read 1-5 without doubt: the 2-3 laid on it reads 2-3 again, the 1-2 read
    # again where the train puts it is 1-2
    slid = SeenTile((1, 5), np.asarray(SEAT0_DOWN[1].corners, float) - [0, 6])
    tiles = [ENGINE, SEAT0_DOWN[0], slid, SEAT0_DOWN[2], SEAT0_DOWN[3]]
    reading = reconstruct(tiles, None, 3, look=_looker([ENGINE, *SEAT0_DOWN]))
    assert reading.table is not None
    assert reading.table.train(0).tiles == (  # type: ignore[union-attr]
        (9, 1), (1, 2), (2, 3), (3, 4))
    assert _kinds(reading) == ["reread-tile"]
    assert "far end" in reading.uncertainties[0].message
    assert reading.doubted(0, 1) and not reading.doubted(0, 2)
    # without looking again it is a mismatch for the rules
    blind = reconstruct(tiles, None, 3)
    assert blind.table is not None
    assert blind.table.train(0).tiles[1] == (1, 5)  # type: ignore[union-attr]


def test_a_tile_matching_neither_neighbour_is_the_tile_they_both_say() -> None:
    # seat 0: 9-1 1-2 2-3 3-4; the 1-2's box slid along it, both halves misread: 0-1
    both = SeenTile((0, 1), SEAT0_DOWN[1].corners)
    reading = reconstruct([ENGINE, SEAT0_DOWN[0], both, SEAT0_DOWN[2], SEAT0_DOWN[3]], None, 3)
    assert reading.table is not None
    assert reading.table.train(0).tiles == (  # type: ignore[union-attr]
        (9, 1), (1, 2), (2, 3), (3, 4))
    assert _kinds(reading) == ["matched-read"]
    assert "neither" in reading.uncertainties[0].message
    assert reading.table.problems(12, 3) == []
    # a train's first tile lies on the engine's count
    first = SeenTile((8, 0), SEAT0_DOWN[0].corners)
    start = reconstruct([ENGINE, first, *SEAT0_DOWN[1:]], None, 3)
    assert start.table is not None
    assert start.table.train(0).tiles[0] == (9, 1)  # type: ignore[union-attr]
    # a tile laid wrong matches what is laid on it: it stays, for the rules to judge
    wrong = SeenTile((6, 2), SEAT0_DOWN[1].corners)
    laid = reconstruct([ENGINE, SEAT0_DOWN[0], wrong, SEAT0_DOWN[2], SEAT0_DOWN[3]], None, 3)
    assert laid.table is not None
    assert laid.table.train(0).tiles[1] == (6, 2)  # type: ignore[union-attr]
    assert "matched-read" not in _kinds(laid)
    # nor is a train's last tile, which nothing is laid on, changed
    last = SeenTile((0, 5), SEAT0_DOWN[3].corners)
    open_end = reconstruct([ENGINE, *SEAT0_DOWN[:3], last], None, 3)
    assert open_end.table is not None
    assert open_end.table.train(0).tiles[3] == (0, 5)  # type: ignore[union-attr]
    # nor is it taken as a tile already on the table (the Mexican train holds a 1-2)
    mexican = [_lengthwise((72, 0), (96, 0), (9, 12)), _lengthwise((120, 0), (144, 0), (12, 1)),
               _lengthwise((168, 0), (192, 0), (1, 2))]
    seen = reconstruct([ENGINE, SEAT0_DOWN[0], both, *SEAT0_DOWN[2:], *mexican], None, 3)
    assert seen.table is not None
    assert seen.table.train(MEXICAN).tiles[2] == (1, 2)  # type: ignore[union-attr]
    assert seen.table.train(0).tiles[1] == (0, 1)  # type: ignore[union-attr]


def test_with_the_mat_a_marker_on_its_print_is_not_a_marker() -> None:
    good, tiles, markers, view, mat_to_image = _mat_scene(103)
    # the detector took a seat arrow and its label (88-99 mm out) for a marker
    arrow = np.array([[-9, 84], [9, 84], [9, 102], [-9, 102]], float)
    fake = Detections(apply_homography(mat_to_image, arrow)[None], np.ones(1), np.ones(1))
    both = Detections.merge([markers, fake]) if len(markers) else fake
    reading = reconstruct(tiles, both, 3, view)
    assert reading.table == good.table
    assert reading.marker_owners[-1] is None
    assert _kinds(reading) == sorted([*_kinds(good), "loose-marker"])
    assert "print" in reading.uncertainties[-1].message
    # the same marker beside seat 0's slot, where its empty train would start, marks it
    beside = arrow + [0, SLOT_RADIUS_MM + 20 - 93]
    near = Detections(apply_homography(mat_to_image, beside)[None], np.ones(1), np.ones(1))
    assert reconstruct([t for t in tiles], near, 3, view).marker_owners[0] is not None


def test_on_the_mat_an_engine_missed_or_misread_is_read_again_on_the_hub() -> None:
    good, tiles, markers, view, mat_to_image = _mat_scene(101, 12)
    assert good.table is not None
    e = good.table.engine
    to_mat = np.linalg.inv(mat_to_image)
    k = next(i for i, t in enumerate(tiles) if tuple(t.values) == (e, e))
    truth_mm = [SeenTile(t.values, apply_homography(to_mat, np.asarray(t.corners)))
                for t in tiles]
    oracle = _looker(truth_mm)

    def look(corners: np.ndarray) -> _Looked:  # the oracle works in mat millimetres
        return oracle(apply_homography(to_mat, corners))

    missed = [t for i, t in enumerate(tiles) if i != k]  # no box on the engine at all
    assert reconstruct(missed, markers, 3, view).table is None
    reading = reconstruct(missed, markers, 3, view, look=look)
    assert reading.table == good.table
    assert "reread-tile" in _kinds(reading)
    # its box slid 30 mm off the hub and read as no double: the same
    in_mat = apply_homography(to_mat, np.asarray(tiles[k].corners, float))
    slid = list(tiles)
    slid[k] = SeenTile((e, (e + 3) % 13), apply_homography(mat_to_image, in_mat + [30, 0]))
    reading = reconstruct(slid, markers, 3, view, look=look)
    assert reading.table == good.table
    # only the engine laid: the width of the tiles the mat is drawn for is taken
    alone = reconstruct([], None, 3, view, look=look)
    assert alone.table is not None and alone.table.engine == e


def test_on_the_mat_a_first_tile_slid_over_the_print_is_read_again_at_its_slot() -> None:
    good, tiles, markers, view, mat_to_image = _mat_scene(103)
    assert good.table is not None
    to_mat = np.linalg.inv(mat_to_image)
    # the first tile of some train, found slid 20 mm in over the printed arrow, read 1-7
    owner, first = next((t.owner, t.tiles[0]) for t in good.table.trains if t.tiles)
    k = next(i for i, t in enumerate(tiles) if sorted(t.values) == sorted(first))
    in_mat = apply_homography(to_mat, np.asarray(tiles[k].corners, float))
    inward = -in_mat.mean(axis=0) / np.linalg.norm(in_mat.mean(axis=0))
    slid = list(tiles)
    slid[k] = SeenTile((1, 7), apply_homography(mat_to_image, in_mat + 20 * inward))
    truth_mm = [SeenTile(t.values, apply_homography(to_mat, np.asarray(t.corners)))
                for t in tiles]
    oracle = _looker(truth_mm)

    def look(corners: np.ndarray) -> _Looked:  # the oracle works in mat millimetres
        return oracle(apply_homography(to_mat, corners))

    reading = reconstruct(slid, markers, 3, view, look=look)
    assert reading.table == good.table
    assert "reread-tile" in _kinds(reading)
    blind = reconstruct(slid, markers, 3, view)
    assert blind.table is not None
    assert blind.table.train(owner) != good.table.train(owner)


def test_on_the_mat_a_box_astride_a_trains_first_two_tiles_is_read_again_at_its_slot(
        ) -> None:
    good, tiles, markers, view, mat_to_image = _mat_scene(103)
    assert good.table is not None
    to_mat = np.linalg.inv(mat_to_image)
    # a train's first tile found as one box astride its far half and the next tile's
    # near half, the two touching halves read as a double: the train starts with a tile
    # not showing the engine's count and goes on from nothing
    owner, (first, second) = next((t.owner, t.tiles[:2]) for t in good.table.trains
                                  if len(t.tiles) >= 2 and t.tiles[1][0] != t.tiles[1][1])
    k = next(i for i, t in enumerate(tiles) if sorted(t.values) == sorted(first))
    in_mat = apply_homography(to_mat, np.asarray(tiles[k].corners, float))
    outward = in_mat.mean(axis=0) / np.linalg.norm(in_mat.mean(axis=0))
    astride = list(tiles)
    astride[k] = SeenTile((first[1], first[1]),
                          apply_homography(mat_to_image, in_mat + 24 * outward))
    truth_mm = [SeenTile(t.values, apply_homography(to_mat, np.asarray(t.corners)))
                for t in tiles]
    oracle = _looker(truth_mm)

    def look(corners: np.ndarray) -> _Looked:  # the oracle works in mat millimetres
        return oracle(apply_homography(to_mat, corners))

    blind = reconstruct(astride, markers, 3, view)
    assert blind.table is not None
    assert blind.table.train(owner) != good.table.train(owner)
    reading = reconstruct(astride, markers, 3, view, look=look)
    assert reading.table == good.table
    assert any(u.kind == "reread-tile" and u.owners == (owner,) and "at its slot" in u.message
               for u in reading.uncertainties)
    # a train of one tile read so, the engine's count at neither end, is not read again
    # when nothing shows a tile at its slot: it stays as read
    blank = reconstruct(astride, markers, 3, view,
                        look=lambda corners: _Looked((0, 5), uncertain=True))
    assert blank.table is not None
    assert blank.table.train(owner) == blind.table.train(owner)
    # the first tile's own box read as the double of its far count (12-4 read 4-4): the
    # train goes on from it, the engine's count at neither end; it is read again too
    misread = list(tiles)
    misread[k] = SeenTile((first[1], first[1]), tiles[k].corners)
    blind = reconstruct(misread, markers, 3, view)
    assert blind.table is not None
    blind_train = blind.table.train(owner)
    assert blind_train is not None and len(blind_train.tiles) >= 2
    assert blind_train != good.table.train(owner)
    assert reconstruct(misread, markers, 3, view, look=look).table == good.table


def test_a_trains_last_tile_is_read_again_before_the_train_goes_on() -> None:
    # seat 0: 9-1 1-2 2-3, the 2-3 read 5-8 without doubt (a box slid along it); then a
    # 3-3 unseen where the train turns, and 3-4 on: the train goes on from the 3 only
    # once the 2-3 is read again where it lies
    truth = [ENGINE, SEAT0_DOWN[0], SEAT0_DOWN[1], SEAT0_DOWN[2]]
    misread = SeenTile((5, 8), SEAT0_DOWN[2].corners)
    on = _lengthwise((48, 192), (72, 192), (3, 4))
    tiles = [ENGINE, SEAT0_DOWN[0], SEAT0_DOWN[1], misread, on]
    reading = reconstruct(tiles, None, 3, look=_looker(truth))
    assert reading.table is not None
    assert reading.table.train(0).tiles == (  # type: ignore[union-attr]
        (9, 1), (1, 2), (2, 3), (3, 3), (3, 4))
    assert _kinds(reading) == ["inferred-tile", "reread-tile"]
    # a tile read the same again stays, and the train stops at it
    reading = reconstruct(tiles, None, 3, look=_looker([ENGINE, *SEAT0_DOWN[:2], misread]))
    assert reading.table is not None
    assert reading.table.train(0).tiles == ((9, 1), (1, 2), (5, 8))  # type: ignore[union-attr]


def test_a_trains_last_tile_read_again_moves_its_end_to_where_the_train_puts_it() -> None:
    # seat 0: 9-1 1-2 2-3, then the train turns towards +x: 3-4 beside the 3 half. The
    # 2-3 was found as a box turned 25 degrees about its near half (its far half 10 mm
    # aside) and read 6-3: read again where the train puts it, it is the 2-3, and the
    # train goes on from its far half there, not from the box's
    askew = SeenTile((6, 3), _turned(SEAT0_DOWN[2], 25, about=(0, 168)).corners)
    turned = _lengthwise((24, 192), (48, 192), (3, 4))
    truth = [ENGINE, *SEAT0_DOWN[:3], turned]
    tiles = [ENGINE, SEAT0_DOWN[0], SEAT0_DOWN[1], askew, turned]
    reading = reconstruct(tiles, None, 3, look=_looker(truth))
    assert reading.table is not None
    assert reading.table.train(0).tiles == (  # type: ignore[union-attr]
        (9, 1), (1, 2), (2, 3), (3, 4))
    assert reading.assignment[4] == 0
    assert "reread-tile" in _kinds(reading) and "loose-tile" not in _kinds(reading)


def test_looking_again_takes_no_outline_over_a_half_of_a_sure_box() -> None:
    # the 2-2 turned beside the 1-2 again: read lengthwise where the train turns, the
    # 2-2's half and the 2-5's near half show as a sure 2-6
    double, on, tiles = _turned_double()
    truth_look = _looker([ENGINE, SEAT0_DOWN[0], SEAT0_DOWN[1], double, on])

    def look(corners: np.ndarray) -> _Looked:
        c = np.asarray(corners, float)
        axis = (c[2] + c[3] - c[0] - c[1]) / 2
        if abs(axis[0]) > abs(axis[1]) and np.linalg.norm(c.mean(axis=0) - [36, 144]) < 6:
            return _Looked((2, 6))  # the turned lengthwise outline: two tiles' halves
        return truth_look(c)

    reading = reconstruct(tiles, None, 3, look=look)
    assert reading.table is not None
    assert reading.table.train(0).tiles == (  # type: ignore[union-attr]
        (9, 1), (1, 2), (2, 2), (2, 5))


def test_a_sure_box_slid_half_off_a_trains_end_does_not_stop_the_look() -> None:
    # seat 0: 9-1 1-2 2-5, the 2-5 found only as a box slid half a tile back over the
    # 1-2's far half, read 2-2 without doubt: that box lies over the train's end, and
    # the 2-5 is read where the train puts it
    slid = SeenTile((2, 2), _lengthwise((0, 144), (0, 168), (2, 2)).corners)
    tiles = [ENGINE, SEAT0_DOWN[0], SEAT0_DOWN[1], slid]
    truth = [ENGINE, SEAT0_DOWN[0], SEAT0_DOWN[1], _lengthwise((0, 168), (0, 192), (2, 5))]
    reading = reconstruct(tiles, None, 3, look=_looker(truth))
    assert reading.table is not None
    assert reading.table.train(0).tiles == ((9, 1), (1, 2), (2, 5))  # type: ignore[union-attr]
    assert _kinds(reading) == ["reread-tile"]
    assert reading.assignment[3] is None


def test_a_gap_of_an_unseen_single_before_the_train_turns_is_bridged() -> None:
    # seat 0: 9-1 1-2, a 2-3 unseen straight on, then 3-4 turned a right angle beside the
    # 2-3's far half, either way
    for side in (1, -1):
        turned = _lengthwise((24 * side, 192), (48 * side, 192), (3, 4))
        reading = reconstruct([ENGINE, SEAT0_DOWN[0], SEAT0_DOWN[1], turned], None, 3)
        assert reading.table is not None
        assert reading.table.train(0).tiles == (  # type: ignore[union-attr]
            (9, 1), (1, 2), (2, 3), (3, 4))
        assert _kinds(reading) == ["inferred-tile"]
        assert reading.inferred(0, 2)
    # not when it lies off that place, or points back along the train
    for tile in (_lengthwise((24, 210), (48, 210), (3, 4)),
                 _lengthwise((24, 192), (24, 216), (3, 4))):
        reading = reconstruct([ENGINE, SEAT0_DOWN[0], SEAT0_DOWN[1], tile], None, 3)
        assert reading.table is not None
        assert reading.table.train(0).tiles == ((9, 1), (1, 2))  # type: ignore[union-attr]


def test_a_box_slid_half_a_tile_on_past_a_turn_does_not_stop_the_look() -> None:
    # seat 0: 9-1 1-2, then 2-5 turned beside the 1-2's far half; the 2-5 was found as a
    # box slid half a tile on (over its 5 and the next tile's half), read 5-7 without
    # doubt: its near half is no 2, so it is no tile laid on a 2-2 where the train turns
    slid = SeenTile((5, 7), _lengthwise((48, 144), (72, 144), (5, 7)).corners)
    turned = _lengthwise((24, 144), (48, 144), (2, 5))
    tiles = [ENGINE, SEAT0_DOWN[0], SEAT0_DOWN[1], slid]
    reading = reconstruct(tiles, None, 3, look=_looker([ENGINE, *SEAT0_DOWN[:2], turned]))
    assert reading.table is not None
    assert reading.table.train(0).tiles == ((9, 1), (1, 2), (2, 5))  # type: ignore[union-attr]
    assert "reread-tile" in _kinds(reading)


def test_a_double_read_twice_on_the_table_is_settled_by_its_neighbours() -> None:
    # Mexican train 9-3 3-5 5-5 5-6, the 3-5 (lengthwise) read 5-5: a set has one 5-5,
    # and the one lying across after it matches, so the first is the 3-5
    tiles = [ENGINE, _lengthwise((72, 0), (96, 0), (9, 3)),
             _lengthwise((120, 0), (144, 0), (5, 5)), _crosswise((168, 0), (0, 1), 5),
             _lengthwise((192, 0), (216, 0), (5, 6))]
    reading = reconstruct(tiles, None, 3)
    assert reading.table is not None
    assert reading.table.train(MEXICAN).tiles == (  # type: ignore[union-attr]
        (9, 3), (3, 5), (5, 5), (5, 6))
    assert _kinds(reading) == ["matched-read"]
    # with no twin, a double read lengthwise that does not match stays, for the rules
    tiles[3:] = [_lengthwise((168, 0), (192, 0), (5, 6))]
    reading = reconstruct(tiles, None, 3)
    assert reading.table is not None
    assert reading.table.train(MEXICAN).tiles == (  # type: ignore[union-attr]
        (9, 3), (5, 5), (5, 6))


def test_a_count_beyond_its_range_is_taken_within_it() -> None:
    # Mexican train 9-3 3-12 12-12: the 3-12's 12 read 13 (beyond a double-12 set: its
    # range is the set's top counts), and the 12-12 across it read 10-12 with doubt;
    # the train holds no 13 (no 13-13 taken for the doubted double)
    over = _Doubted(_lengthwise((120, 0), (144, 0), (3, 13)), ((3, 3), (9, 12)))
    double = _Doubted(_crosswise_read((168, 0), (10, 12)), ((10, 10), (12, 12)))
    tiles: list[TileLike] = [ENGINE, _lengthwise((72, 0), (96, 0), (9, 3)), over, double]
    reading = reconstruct(tiles, None, 3)
    assert reading.table is not None
    assert reading.table.train(MEXICAN).tiles == (  # type: ignore[union-attr]
        (9, 3), (3, 12), (12, 12))


def test_a_tile_read_as_one_also_on_the_table_is_settled_by_its_neighbours() -> None:
    # seat 0: 9-1 1-2 2-3; Mexican 9-3 3-5 5-6, the 3-5 read 3-2: a set has one 2-3, and
    # this one does not match the 5-6 laid on it
    mexican = [_lengthwise((72, 0), (96, 0), (9, 3)), _lengthwise((120, 0), (144, 0), (3, 2)),
               _lengthwise((168, 0), (192, 0), (5, 6))]
    reading = reconstruct([ENGINE, *SEAT0_DOWN[:3], *mexican], None, 3)
    assert reading.table is not None
    assert reading.table.train(MEXICAN).tiles == (  # type: ignore[union-attr]
        (9, 3), (3, 5), (5, 6))
    assert reading.table.train(0).tiles == ((9, 1), (1, 2), (2, 3))  # type: ignore[union-attr]
    assert _kinds(reading) == ["matched-read"]
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
    mexican[1:] = [_lengthwise((120, 0), (144, 0), (1, 2)),
                   _lengthwise((168, 0), (192, 0), (2, 6))]
    reading = reconstruct([ENGINE, *SEAT0_DOWN[:2], *mexican], None, 3)
    assert reading.table is not None
    assert reading.table.train(MEXICAN).tiles == (  # type: ignore[union-attr]
        (9, 3), (1, 2), (2, 6))
    assert reading.uncertainties == []


def test_a_double_read_lying_along_its_train_is_taken_as_the_single_its_neighbours_say() -> None:
    # Mexican train 9-3 3-5 5-6, the 3-5 read 3-3: doubles lie across a train, so a 3-3
    # lying along it, not matching the 5-6 laid on it, is the 3-5
    mexican = [_lengthwise((72, 0), (96, 0), (9, 3)), _lengthwise((120, 0), (144, 0), (3, 3)),
               _lengthwise((168, 0), (192, 0), (5, 6))]
    reading = reconstruct([ENGINE, *mexican], None, 3)
    assert reading.table is not None
    assert reading.table.train(MEXICAN).tiles == (  # type: ignore[union-attr]
        (9, 3), (3, 5), (5, 6))
    assert _kinds(reading) == ["matched-read"]
    assert "lying along its train" in reading.uncertainties[0].message
    # a 3-3 lying across it stays a double, and the 5-6 laid wrong on it, for the rules
    mexican[1:] = [_crosswise((120, 0), (0, 1), 3), _lengthwise((144, 0), (168, 0), (5, 6))]
    reading = reconstruct([ENGINE, *mexican], None, 3)
    assert reading.table is not None
    assert reading.table.train(MEXICAN).tiles == (  # type: ignore[union-attr]
        (9, 3), (3, 3), (5, 6))
    assert "matched-read" not in _kinds(reading)


def test_a_box_the_last_tile_read_again_took_in_still_leads_to_the_double_beside_it() -> None:
    # seat 0: 9-1 1-2 2-3, then a 3-3 laid beside the 2-3's far half (the train turns
    # towards +x) and nothing beyond. The 2-3 was found only as two boxes askew, one of
    # them reaching over the 3-3, and the 3-3 as no box of its own. Read again where
    # the train goes on, the 2-3 takes both boxes in; the one reaching over the 3-3
    # still says something lies there: the 3-3 is read again beside the end
    double = _crosswise((24, 192), (0, 1), 3)
    askew = SeenTile((5, 6), _turned(SEAT0_DOWN[2], 40, about=(4, 172)).corners,
                     confidence=0.2, uncertain=True)
    over = SeenTile((6, 6), _turned(double, 50, about=(12, 192)).corners,
                    confidence=0.2, uncertain=True)
    truth = [ENGINE, *SEAT0_DOWN[:3], double]
    reading = reconstruct([ENGINE, *SEAT0_DOWN[:2], askew, over], None, 3,
                          look=_looker(truth))
    assert reading.table is not None
    assert reading.table.train(0).tiles == (  # type: ignore[union-attr]
        (9, 1), (1, 2), (2, 3), (3, 3))
    assert _kinds(reading).count("reread-tile") == 2


def test_a_trains_end_read_again_is_looked_beyond_anew() -> None:
    # seat 0: 9-1 1-2 2-3 3-4, then a 4-4 laid beside the 3-4's far half (the train
    # turns towards +x). The 2-3 was found only as a box askew, so the train goes on
    # past the 1-2 by reading it again; the 3-4 was read a sure 5-6 and then laid on
    # the 2-3; the 4-4 was found as a box askew, read as junk. The train's end is the
    # 6 of a 5-6 until the 3-4 is read again where the train puts it: from the 4
    # there, the 4-4 beside it is read again too
    double = _crosswise((24, 240), (0, 1), 4)
    askew = SeenTile((5, 6), _turned(SEAT0_DOWN[2], 40, about=(4, 172)).corners,
                     confidence=0.2, uncertain=True)
    misread = SeenTile((5, 6), SEAT0_DOWN[3].corners)
    junk = SeenTile((0, 5), _turned(double, 45).corners, confidence=0.2, uncertain=True)
    truth = [ENGINE, *SEAT0_DOWN, double]
    reading = reconstruct([ENGINE, *SEAT0_DOWN[:2], askew, misread, junk], None, 3,
                          look=_looker(truth))
    assert reading.table is not None
    assert reading.table.train(0).tiles == (  # type: ignore[union-attr]
        (9, 1), (1, 2), (2, 3), (3, 4), (4, 4))


class _ReadAgainRanged:
    """A reading again whose ranges of counts reach past its values."""

    def __init__(self, values: tuple[int, int], reach: int) -> None:
        self.values, self.uncertain, self.confidence = values, False, 1.0
        self.ranges = tuple((min(v, reach), max(v, reach)) for v in values)


def test_a_double_read_again_as_another_count_is_not_the_ends_double() -> None:
    # seat 0: 9-1 1-2 2-4, a loose 5-6 beside where a turn would go. Read again across
    # the 4 end, a double shows 2-2 with ranges reaching 4: not the end's 4-4 (rendered
    # no-mat seed 1400047, a 4-7 laid as 4-4); read 4-4 there, it is.
    ends_four = [ENGINE, *SEAT0_DOWN[:2], _lengthwise((0, 168), (0, 192), (2, 4))]
    aside = _lengthwise((38, 204), (62, 204), (5, 6))

    def twos(corners: np.ndarray) -> _ReadAgainRanged:
        return _ReadAgainRanged((2, 2), reach=4)

    reading = reconstruct([*ends_four, aside], None, 3, look=twos)
    assert reading.table is not None
    assert reading.table.train(0).tiles == (  # type: ignore[union-attr]
        (9, 1), (1, 2), (2, 4))
    assert "reread-tile" not in _kinds(reading)

    def fours(corners: np.ndarray) -> _ReadAgainRanged:
        return _ReadAgainRanged((4, 4), reach=2)

    seen = reconstruct([*ends_four, aside], None, 3, look=fours)
    assert seen.table is not None
    assert seen.table.train(0).tiles == (  # type: ignore[union-attr]
        (9, 1), (1, 2), (2, 4), (4, 4))


class _HalfSure:
    """A reading again, with how surely each half was read (doubted when either is
    under 0.5)."""

    def __init__(self, values: tuple[int, int], certainty: tuple[float, float]) -> None:
        self.values, self.half_certainty = values, certainty
        self.confidence = min(certainty)
        self.uncertain = self.confidence < 0.5
        self.ranges = tuple((v, v) for v in values)


def _across_looker(across: _HalfSure, along: _HalfSure | None = None) -> Any:
    """A ``look`` reading ``across`` in an outline lying across x, and ``along`` (by
    default a doubted 5-1) in one lying along it."""
    along = along or _HalfSure((5, 1), (0.2, 0.2))

    def look(corners: np.ndarray) -> _HalfSure:
        c = np.asarray(corners, float)
        axis = (c[2] + c[3]) / 2 - (c[0] + c[1]) / 2
        return across if abs(axis[1]) > abs(axis[0]) else along

    return look


def test_a_mismatched_box_is_read_again_across_as_the_ends_double() -> None:
    # the Mexican train ends 3-11; an 11-11 across it was found as a box lying along the
    # train, read 5-1 (the table benchmark's first trained game without the mat found
    # the double as two such boxes). Read along the train it stays doubtful; read across,
    # one half is surely 11 and the other 11 with doubt: the end's double
    split = _lengthwise((168, 0), (192, 0), (5, 1))
    tiles = [*MEXICAN_TO_11, split]
    reading = reconstruct(tiles, None, 3, look=_across_looker(_HalfSure((11, 11), (0.2, 1.0))))
    assert reading.table is not None
    assert reading.table.train(MEXICAN).tiles == (  # type: ignore[union-attr]
        (9, 3), (3, 11), (11, 11))
    assert "reread-tile" in _kinds(reading)
    # with neither half sure, or read as another double, the tile stays as read
    for across in (_HalfSure((11, 11), (0.2, 0.6)), _HalfSure((12, 12), (0.2, 1.0))):
        kept = reconstruct(tiles, None, 3, look=_across_looker(across))
        assert kept.table is not None
        assert kept.table.train(MEXICAN).tiles[-1] == (5, 1)  # type: ignore[union-attr]


def test_a_double_read_again_lengthwise_is_not_laid_along_the_train() -> None:
    # as above, the box lying along the train a little aside, and the 11-8 beyond the
    # double: read along the train, the outline shows 11-11 surely (the double's half and
    # the 11-8's near half). A double lies across: read so, the train goes on to the 11-8
    split = _lengthwise((166, -8), (190, -8), (5, 1))
    look = _across_looker(_HalfSure((11, 11), (0.2, 1.0)), along=_HalfSure((11, 11), (1.0, 1.0)))
    reading = reconstruct([*MEXICAN_TO_11, split, ELEVEN_EIGHT], None, 3, look=look)
    assert reading.table is not None
    assert reading.table.train(MEXICAN).tiles == (  # type: ignore[union-attr]
        (9, 3), (3, 11), (11, 11), (11, 8))
