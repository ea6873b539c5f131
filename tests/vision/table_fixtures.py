"""Hand-made and laid-out tables for the tests of ``vision.table`` (millimetres as
pixels), and fake readers: tiles read with ranges or doubt, and ``look`` oracles."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from datasets.table_layout import layout_table, overhead_homography, random_table, seen_tiles
from engine import TableState
from vision.mat.hub_mat import MatView
from vision.models.detections import Detections
from vision.readings import TileReading
from vision.table import Look, TableReading, reconstruct


def norm_trains(table: TableState) -> list[tuple[str, tuple[tuple[int, int], ...], bool]]:
    return sorted((str(t.owner), t.tiles, t.marker) for t in table.trains if t.tiles or t.marker)


def read_layout(seed: int, players: int, n_tiles: int, mat: bool,
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


def lengthwise(near: tuple[float, float], far: tuple[float, float],
                values: tuple[int, int]) -> TileReading:
    """A tile whose near-half centre is ``near`` and far-half centre ``far``."""
    n, f = np.array(near, float), np.array(far, float)
    a = (f - n) / np.linalg.norm(f - n)
    p = np.array([-a[1], a[0]])
    ne, fe = n - 12 * a, f + 12 * a
    return TileReading(values, np.array([ne - 12 * p, ne + 12 * p, fe + 12 * p, fe - 12 * p]))


def crosswise(centre: tuple[float, float], axis: tuple[float, float], value: int) -> TileReading:
    c, a = np.array(centre, float), np.array(axis, float)
    p = np.array([-a[1], a[0]])
    return TileReading((value, value), np.array([c - 24 * a - 12 * p, c - 24 * a + 12 * p,
                                              c + 24 * a + 12 * p, c + 24 * a - 12 * p]))


ENGINE = crosswise((0, 0), (1, 0), 9)
#: Three players: slots at 90 (seat 0), 180 (seat 1), 270 (seat 2) and 0 (Mexican) degrees.


SEAT0_DOWN = [lengthwise((0, 72), (0, 96), (9, 1)), lengthwise((0, 120), (0, 144), (1, 2)),
              lengthwise((0, 168), (0, 192), (2, 3)), lengthwise((0, 216), (0, 240), (3, 4))]


def kinds(reading: TableReading) -> list[str]:
    return sorted(u.kind for u in reading.uncertainties)


class MatScene(NamedTuple):
    """A laid-out 3-player mat table as a camera sees it, and its reading as laid."""

    good: TableReading
    tiles: list[TileReading]
    markers: Detections
    view: MatView
    mat_to_image: np.ndarray


def mat_scene(seed: int, n_tiles: int = 10) -> MatScene:
    """The table ``read_layout(seed, 3, n_tiles, True)`` reads, before it is read."""
    _, good = read_layout(seed, 3, n_tiles, True)
    assert good.table is not None
    rng = np.random.default_rng(seed)
    table = random_table(rng, 3, 12, n_tiles, marker_rate=0.4)
    layout = layout_table(table, 3, rng, mat=True)
    to_image = overhead_homography(layout.size, (1280, 720), rng, tilt=0.03)
    tiles, marker_corners = seen_tiles(layout, to_image, rng, noise_px=0.7)
    mat_to_image = to_image @ layout.hub.mat_matrix
    n = len(marker_corners)
    return MatScene(good, tiles, Detections(marker_corners, np.ones(n), np.ones(n)),
                     MatView(3, np.linalg.inv(mat_to_image), (), 0.0), mat_to_image)


def ranged(tile: TileReading, ranges: tuple[tuple[int, int], tuple[int, int]]
           ) -> TileReading:
    """``tile`` with the counts each half could be (``TileReading.ranges``), each half
    read surely."""
    return TileReading(tile.values, tile.corners, ranges=ranges)


def doubted(tile: TileReading, ranges: tuple[tuple[int, int], tuple[int, int]]
            ) -> TileReading:
    """:func:`ranged`, and the reader doubted it (``TileReading.uncertain``)."""
    return TileReading(tile.values, tile.corners, uncertain=True, ranges=ranges)


def crosswise_read(centre: tuple[float, float], values: tuple[int, int]) -> TileReading:
    """A tile lying across a train running along x, read ``values``."""
    return TileReading(values, crosswise(centre, (0, 1), 0).corners)


MEXICAN_TO_11 = [ENGINE, lengthwise((72, 0), (96, 0), (9, 3)),
                 lengthwise((120, 0), (144, 0), (3, 11))]
#: ... and on past the tile at 168 (the one each test varies): 11-8.


ELEVEN_EIGHT = lengthwise((192, 0), (216, 0), (11, 8))


def looked(values: tuple[int, int], uncertain: bool = False) -> TileReading:
    """What a reader gives for a box read again: ``values`` in corner order, neither
    half read surely (``half_certainty`` 0)."""
    return TileReading(values, np.zeros((4, 2)), 0.2 if uncertain else 1.0, uncertain,
                       half_certainty=(0.0, 0.0),
                       ranges=((values[0], values[0]), (values[1], values[1])))


def one_by_one(look: Callable[[np.ndarray], TileReading | None]) -> Look:
    """A ``Look`` that reads each outline it is given with ``look`` (one outline ``(4, 2)``
    -> a tile read there, or ``None``)."""

    def each(corners: np.ndarray) -> list[TileReading | None]:
        return [look(c) for c in np.asarray(corners, float).reshape(-1, 4, 2)]

    return each


def oracle_look(truth: list[TileReading], calls: list[np.ndarray] | None = None) -> Look:
    """A ``look`` that reads the true tile lying in the outline asked for, and doubted
    junk where none lies so."""

    @one_by_one
    def look(corners: np.ndarray) -> TileReading:
        c = np.asarray(corners, float)
        if calls is not None:
            calls.append(c)
        a_end, b_end = (c[0] + c[1]) / 2, (c[2] + c[3]) / 2
        for t in truth:
            tc = np.asarray(t.corners, float)
            ta, tb = (tc[0] + tc[1]) / 2, (tc[2] + tc[3]) / 2
            if np.linalg.norm(ta - a_end) < 6 and np.linalg.norm(tb - b_end) < 6:
                return looked((int(t.values[0]), int(t.values[1])))
            if np.linalg.norm(tb - a_end) < 6 and np.linalg.norm(ta - b_end) < 6:
                return looked((int(t.values[1]), int(t.values[0])))
        return looked((0, 5), uncertain=True)

    return look


def turned_box(tile: TileReading, degrees: float,
            about: tuple[float, float] | None = None) -> TileReading:
    """``tile``'s box turned about its centre (or ``about``): a box the detector laid
    askew."""
    c = np.asarray(tile.corners, float)
    m = c.mean(axis=0) if about is None else np.array(about, float)
    a = math.radians(degrees)
    rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    return TileReading(tile.values, (c - m) @ rot.T + m)
