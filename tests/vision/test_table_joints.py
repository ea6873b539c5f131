"""Boxes that are no tile of their own: across the joint of two tiles, a tile boxed twice,
and a double laid in line with its train."""

from __future__ import annotations

import numpy as np
from table_fixtures import ENGINE, SEAT0_DOWN, crosswise, kinds, lengthwise

from vision.readings import TileReading
from vision.table import TableReading, reconstruct


def _tiles(reading: TableReading, owner: int) -> tuple[tuple[int, int], ...]:
    assert reading.table is not None
    train = reading.table.train(owner)
    assert train is not None
    return train.tiles


def test_a_phantom_double_across_a_joint_is_dropped() -> None:
    # the 9-1 and the 1-2 meet at y = 108: a box across the joint reads their facing 1s
    phantom = lengthwise((0, 96), (0, 120), (1, 1))
    reading = reconstruct([ENGINE, *SEAT0_DOWN, phantom], None, 3)
    assert reading.table is not None
    assert _tiles(reading, 0) == tuple(t.values for t in SEAT0_DOWN)
    assert reading.assignment[-1] is None
    assert kinds(reading) == []


def test_a_box_across_a_joint_reading_a_single_is_dropped_too() -> None:
    shifted = lengthwise((3, 150), (2, 174), (2, 2))  # a little off the 1-2 | 2-3 joint
    reading = reconstruct([ENGINE, *SEAT0_DOWN, shifted], None, 3)
    assert reading.table is not None
    assert _tiles(reading, 0) == tuple(t.values for t in SEAT0_DOWN)


def test_a_double_laid_in_line_is_one_tile_however_often_boxed() -> None:
    train = [lengthwise((0, 72), (0, 96), (9, 1)), lengthwise((0, 120), (0, 144), (1, 1)),
             lengthwise((0, 168), (0, 192), (1, 2)), lengthwise((0, 216), (0, 240), (2, 3))]
    joints = [lengthwise((0, 96), (0, 120), (1, 1)), lengthwise((0, 144), (0, 168), (1, 1))]
    for extra in ([], joints[:1], joints[1:], joints):
        reading = reconstruct([ENGINE, *extra, *train], None, 3)
        assert reading.table is not None
        assert _tiles(reading, 0) == ((9, 1), (1, 1), (1, 2), (2, 3)), extra
        assert kinds(reading) == []


def test_a_double_boxed_twice_is_counted_once() -> None:
    double = crosswise((0, 120), (1, 0), 1)  # one width on from the 9-1's far half
    again = TileReading((1, 1), double.corners + np.array([2.0, -1.5]), confidence=0.8)
    after = lengthwise((0, 144), (0, 168), (1, 2))
    reading = reconstruct([ENGINE, SEAT0_DOWN[0], double, again, after], None, 3)
    assert reading.table is not None
    assert _tiles(reading, 0) == ((9, 1), (1, 1), (1, 2))
    assert reading.assignment[3] is None  # the less sure box is the one left out


def test_a_tile_boxed_twice_half_a_tile_apart_keeps_the_box_its_neighbours_agree_with() -> None:
    # the 1-2 boxed twice, each box slipped along the train: the surer one slipped back
    # reads the 9-1's facing 1 (1-1), the other the tile as it is
    back = TileReading((1, 1), lengthwise((0, 110), (0, 134), (1, 1)).corners, confidence=0.9)
    ahead = TileReading((1, 2), lengthwise((0, 126), (0, 150), (1, 2)).corners, confidence=0.7)
    for boxes in ([back, ahead], [ahead, back]):
        reading = reconstruct([ENGINE, SEAT0_DOWN[0], *boxes, *SEAT0_DOWN[2:]], None, 3)
        assert _tiles(reading, 0) == tuple(t.values for t in SEAT0_DOWN)
        assert kinds(reading) == []  # the slipped-back box is no loose tile


def test_tiles_side_by_side_are_not_joints() -> None:
    # a train turning beside itself keeps every tile: no box's halves lie in two others
    turn = [lengthwise((0, 72), (0, 96), (9, 1)), lengthwise((24, 96), (48, 96), (1, 2)),
            lengthwise((48, 120), (48, 144), (2, 3))]
    reading = reconstruct([ENGINE, *turn], None, 3)
    assert reading.table is not None
    assert len(_tiles(reading, 0)) == 3


def _turned(tile: TileReading, degrees: float) -> TileReading:
    """``tile`` turned about its centre: a box the detector placed badly."""
    c, a = tile.corners.mean(axis=0), np.radians(degrees)
    turn = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    return TileReading(tile.values, (tile.corners - c) @ turn.T + c, uncertain=True)


def test_a_train_goes_on_past_a_bad_box_before_a_double() -> None:
    nine_one, one_two = lengthwise((0, 72), (0, 96), (9, 1)), lengthwise((0, 120), (0, 144), (1, 2))
    double, after = crosswise((0, 168), (1, 0), 2), lengthwise((0, 192), (0, 216), (2, 3))
    for gap in ([_turned(one_two, 45)], []):  # a box turned askew, or none at all
        reading = reconstruct([ENGINE, nine_one, *gap, double, after], None, 3)
        assert _tiles(reading, 0) == ((9, 1), (1, 2), (2, 2), (2, 3))
        assert reading.inferred(0, 1) and reading.doubted(0, 1)
        assert not reading.doubted(0, 2)


def test_a_train_goes_on_across_two_unseen_tiles_a_box_between_shows_the_count() -> None:
    straddling = lengthwise((0, 144), (0, 168), (2, 2))  # across the 1-2 | 2-3 joint
    for between in (straddling, _turned(SEAT0_DOWN[1], 45)):
        reading = reconstruct([ENGINE, SEAT0_DOWN[0], between, SEAT0_DOWN[3]], None, 3)
        assert _tiles(reading, 0) == tuple(t.values for t in SEAT0_DOWN)
        assert reading.inferred(0, 1) and reading.inferred(0, 2)
    # with nothing between, the count where they meet is unknown: the gap stays reported
    reading = reconstruct([ENGINE, SEAT0_DOWN[0], SEAT0_DOWN[3]], None, 3)
    assert _tiles(reading, 0) == ((9, 1),)
    assert kinds(reading) == ["gap"]


def test_a_table_on_a_mat_turned_45_degrees_reads_exactly() -> None:
    from datasets.table_layout import layout_table, overhead_homography, random_table, seen_tiles
    from vision.mat.geometry import apply_homography
    from vision.mat.hub_mat import MatView
    from vision.models.detections import Detections

    for seed in (7, 8, 9):
        rng = np.random.default_rng(seed)
        truth = random_table(rng, 4, 12, 30, marker_rate=0.5)
        layout = layout_table(truth, 4, rng, mat=True)
        # turn the whole table about the hub so that the mat lies turned 45 degrees
        turn = np.radians(45.0) - layout.hub.rotation
        c, s = np.cos(turn), np.sin(turn)
        centre = layout.hub.centre
        about = np.array([[c, -s, centre[0] - c * centre[0] + s * centre[1]],
                          [s, c, centre[1] - s * centre[0] - c * centre[1]], [0, 0, 1]])
        to_image = overhead_homography(layout.size, (1280, 720), rng, tilt=0.03) @ about
        tiles, marker_corners = seen_tiles(layout, to_image, rng, noise_px=0.7)
        n = len(marker_corners)
        markers = Detections(marker_corners, np.ones(n), np.ones(n))
        view = MatView(4, np.linalg.inv(to_image @ layout.hub.mat_matrix), (), 0.0)
        reading = reconstruct(tiles, markers, 4, view)
        assert reading.table is not None
        assert reading.table.engine == truth.engine
        assert sorted(map(str, reading.table.trains)) == sorted(map(str, truth.trains)), seed
        # the mat's seat 0 (its +y) lies well round from the image's (+y, 90 degrees)
        hub, seat0 = apply_homography(to_image @ layout.hub.mat_matrix,
                                      np.array([[0.0, 0.0], [0.0, 100.0]]))
        way = seat0 - hub
        assert abs(float(np.degrees(np.arctan2(way[1], way[0]))) - 90.0) > 20.0
