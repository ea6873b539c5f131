"""vision.table on the printed hub mat: its print is no tiles or markers, the engine
and a train's first tile read again where they lie (``vision.table.hub``,
``vision.table.rereads.look_at_slots``)."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from table_fixtures import (
    ENGINE,
    SEAT0_DOWN,
    kinds,
    looked,
    mat_scene,
    one_by_one,
    oracle_look,
)

from vision.mat.geometry import SLOT_RADIUS_MM, apply_homography, marker_corners_mm, slot_angles
from vision.mat.hub_mat import MatView
from vision.models.detections import Detections
from vision.readings import TileReading
from vision.table import TableReading, reconstruct


def test_with_the_mat_a_known_engine_read_wrong_is_still_the_engine() -> None:
    good, tiles, markers, view, _ = mat_scene(101, 12)
    assert good.table is not None
    table = good.table
    hub = [i for i, t in enumerate(tiles) if tuple(t.values) == (table.engine, table.engine)]
    assert len(hub) == 1
    misread = list(tiles)
    misread[hub[0]] = TileReading((table.engine, 17), tiles[hub[0]].corners)
    reading = reconstruct(misread, markers, 3, view, engine=table.engine)
    assert reading.table == good.table
    assert "engine-read" in kinds(reading)
    # not told the engine, the count the trains leaving the hub start with tells it
    unknown = reconstruct(misread, markers, 3, view)
    assert unknown.table == good.table
    assert "engine-read" in kinds(unknown)
    # nothing on the mat's centre: no engine
    off = [t for i, t in enumerate(misread) if i != hub[0]]
    assert reconstruct(off, markers, 3, view).table is None


def test_with_the_mat_its_printed_markers_are_not_tiles() -> None:
    good, tiles, markers, view, mat_to_image = mat_scene(103)
    # the detector took the four printed ArUco squares for tiles
    fake = []
    for p in range(4):
        centre = marker_corners_mm(p).mean(axis=0)
        rect = centre + np.array([[-8.5, -17], [8.5, -17], [8.5, 17], [-8.5, 17]], float)
        fake.append(TileReading((p, (p + 1) % 4), apply_homography(mat_to_image, rect)))
    reading = reconstruct([*fake, *tiles], markers, 3, view)
    assert reading.table == good.table
    assert kinds(reading) == kinds(good)  # nothing more to report
    assert reading.assignment[:4] == [None] * 4


def test_with_the_mat_a_box_on_the_engine_is_a_piece_of_it() -> None:
    # a short box over a third of the engine, askew, read 9-0 (the games benchmark's video
    # frames): only the engine lies on the hub, so it is no tile
    good, tiles, markers, view, mat_to_image = mat_scene(103)
    for centre, values in (((6.0, -9.0), (9, 0)), ((-4.0, 5.0), (12, 5))):
        a = np.array([math.cos(1.2), math.sin(1.2)])
        p = np.array([-a[1], a[0]])
        rect = np.array(centre) + np.array([-14 * a - 8 * p, -14 * a + 8 * p,
                                            14 * a + 8 * p, 14 * a - 8 * p])
        piece = TileReading(values, apply_homography(mat_to_image, rect))
        reading = reconstruct([*tiles, piece], markers, 3, view)
        assert reading.table == good.table
        assert reading.assignment[-1] is None
        assert kinds(reading) == kinds(good)


def mat_with_fakes(seed: int, fake_radius: float) -> tuple[TableReading, TableReading]:
    """A mat table read as laid, and read again with a tile-sized box lying radially
    ``fake_radius`` mm out in every slot (read 0-1, the 0 towards the hub)."""
    good, tiles, markers, view, mat_to_image = mat_scene(seed)
    fake = []
    for angle in slot_angles(3):
        a = np.array([math.cos(angle), math.sin(angle)])
        p = np.array([-a[1], a[0]])
        near, far = (fake_radius - 24) * a, (fake_radius + 24) * a
        rect = np.array([near - 12 * p, near + 12 * p, far + 12 * p, far - 12 * p])
        fake.append(TileReading((0, 1), apply_homography(mat_to_image, rect)))
    return good, reconstruct([*fake, *tiles], markers, 3, view)


def test_with_the_mat_its_printed_seat_arrows_and_labels_are_not_tiles() -> None:
    # the detector took the print between the engine and the slots (arrows and labels,
    # 88-99 mm out) for tiles
    for radius in (90.0, 118.0):  # centred on the print, or reaching in over the arrows
        good, reading = mat_with_fakes(103, radius)
        assert reading.table == good.table
        assert kinds(reading) == kinds(good)
        assert reading.assignment[:4] == [None] * 4
    # the same boxes where a train's first tile lies are taken as tiles: at seat 2's
    # empty slot (seed 106) nothing else lies there
    good, at_slots = mat_with_fakes(106, SLOT_RADIUS_MM + 24)
    assert good.table is not None and not good.table.train(2).tiles  # type: ignore[union-attr]
    assert at_slots.assignment[2] == 2


def test_a_mat_for_other_players_wins_and_is_reported() -> None:
    view = MatView(3, np.eye(3), (12, 13, 14, 15), 0.0)
    reading = reconstruct([ENGINE, *SEAT0_DOWN], None, 5, view)
    assert "players-mismatch" in kinds(reading)
    assert reading.table is not None and len(reading.table.trains) == 4


def test_with_the_mat_a_marker_on_its_print_is_not_a_marker() -> None:
    good, tiles, markers, view, mat_to_image = mat_scene(103)
    # the detector took a seat arrow and its label (88-99 mm out) for a marker
    arrow = np.array([[-9, 84], [9, 84], [9, 102], [-9, 102]], float)
    fake = Detections(apply_homography(mat_to_image, arrow)[None], np.ones(1), np.ones(1))
    both = Detections.merge([markers, fake]) if len(markers) else fake
    reading = reconstruct(tiles, both, 3, view)
    assert reading.table == good.table
    assert reading.marker_owners[-1] is None
    assert kinds(reading) == sorted([*kinds(good), "loose-marker"])
    assert "print" in reading.uncertainties[-1].message
    # the same marker beside seat 0's slot, where its empty train would start, marks it
    beside = arrow + [0, SLOT_RADIUS_MM + 20 - 93]
    near = Detections(apply_homography(mat_to_image, beside)[None], np.ones(1), np.ones(1))
    assert reconstruct([t for t in tiles], near, 3, view).marker_owners[0] is not None


def test_on_the_mat_an_engine_missed_or_misread_is_read_again_on_the_hub() -> None:
    good, tiles, markers, view, mat_to_image = mat_scene(101, 12)
    assert good.table is not None
    e = good.table.engine
    to_mat = np.linalg.inv(mat_to_image)
    k = next(i for i, t in enumerate(tiles) if tuple(t.values) == (e, e))
    truth_mm = [TileReading(t.values, apply_homography(to_mat, np.asarray(t.corners)))
                for t in tiles]
    oracle = oracle_look(truth_mm)

    def look(corners: np.ndarray) -> Sequence[TileReading | None]:  # oracle: mat millimetres
        return oracle(apply_homography(to_mat, corners))

    missed = [t for i, t in enumerate(tiles) if i != k]  # no box on the engine at all
    assert reconstruct(missed, markers, 3, view).table is None
    reading = reconstruct(missed, markers, 3, view, look=look)
    assert reading.table == good.table
    assert "reread-tile" in kinds(reading)
    # its box slid 30 mm off the hub and read as no double: the same
    in_mat = apply_homography(to_mat, np.asarray(tiles[k].corners, float))
    slid = list(tiles)
    slid[k] = TileReading((e, (e + 3) % 13), apply_homography(mat_to_image, in_mat + [30, 0]))
    reading = reconstruct(slid, markers, 3, view, look=look)
    assert reading.table == good.table
    # only the engine laid: the width of the tiles the mat is drawn for is taken
    alone = reconstruct([], None, 3, view, look=look)
    assert alone.table is not None and alone.table.engine == e


def test_on_the_mat_a_first_tile_slid_over_the_print_is_read_again_at_its_slot() -> None:
    good, tiles, markers, view, mat_to_image = mat_scene(103)
    assert good.table is not None
    to_mat = np.linalg.inv(mat_to_image)
    # the first tile of some train, found slid 20 mm in over the printed arrow, read 1-7
    owner, first = next((t.owner, t.tiles[0]) for t in good.table.trains if t.tiles)
    k = next(i for i, t in enumerate(tiles) if sorted(t.values) == sorted(first))
    in_mat = apply_homography(to_mat, np.asarray(tiles[k].corners, float))
    inward = -in_mat.mean(axis=0) / np.linalg.norm(in_mat.mean(axis=0))
    slid = list(tiles)
    slid[k] = TileReading((1, 7), apply_homography(mat_to_image, in_mat + 20 * inward))
    truth_mm = [TileReading(t.values, apply_homography(to_mat, np.asarray(t.corners)))
                for t in tiles]
    oracle = oracle_look(truth_mm)

    def look(corners: np.ndarray) -> Sequence[TileReading | None]:  # oracle: mat millimetres
        return oracle(apply_homography(to_mat, corners))

    reading = reconstruct(slid, markers, 3, view, look=look)
    assert reading.table == good.table
    assert "reread-tile" in kinds(reading)
    blind = reconstruct(slid, markers, 3, view)
    assert blind.table is not None
    assert blind.table.train(owner) != good.table.train(owner)


def test_on_the_mat_a_box_astride_a_trains_first_two_tiles_is_read_again_at_its_slot(
        ) -> None:
    good, tiles, markers, view, mat_to_image = mat_scene(103)
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
    astride[k] = TileReading((first[1], first[1]),
                          apply_homography(mat_to_image, in_mat + 24 * outward))
    truth_mm = [TileReading(t.values, apply_homography(to_mat, np.asarray(t.corners)))
                for t in tiles]
    oracle = oracle_look(truth_mm)

    def look(corners: np.ndarray) -> Sequence[TileReading | None]:  # oracle: mat millimetres
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
                        look=one_by_one(lambda corners: looked((0, 5), uncertain=True)))
    assert blank.table is not None
    assert blank.table.train(owner) == blind.table.train(owner)
    # the first tile's own box read as the double of its far count (12-4 read 4-4): the
    # train goes on from it, the engine's count at neither end; it is read again too
    misread = list(tiles)
    misread[k] = TileReading((first[1], first[1]), tiles[k].corners)
    blind = reconstruct(misread, markers, 3, view)
    assert blind.table is not None
    blind_train = blind.table.train(owner)
    assert blind_train is not None and len(blind_train.tiles) >= 2
    assert blind_train != good.table.train(owner)
    assert reconstruct(misread, markers, 3, view, look=look).table == good.table
