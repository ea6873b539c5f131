"""vision.change.known_table's marker candidates and the missed tiles among them, on a
mottled cloth drawn here: a coin or toy train by a train's end is a marker, pieces of a
pale tile or a tile-long change are a tile, cloth hemmed in by tiles is neither."""

from __future__ import annotations

import cv2
import numpy as np
from known_table_fakes import box

from vision.change.known_table import EMPTY_FRAMES, KnownTable
from vision.change.table_view import tile_scale
from vision.models.detections import Detections, polygon_iou


def _cloth_and_tiles() -> tuple[np.ndarray, np.ndarray]:
    """A mottled bare cloth (1280x720) and two tile outlines (60 by 30 px) of a train."""
    rng = np.random.default_rng(9)
    noise = cv2.GaussianBlur(rng.normal(0, 1, (720, 1280)).astype(np.float32), (0, 0), 3)
    grey = np.clip(150 + 400 * noise, 0, 255).astype(np.uint8)
    cloth = cv2.merge([grey, (grey * 0.8).astype(np.uint8), (grey * 0.6).astype(np.uint8)])
    tiles = np.array([box((500, 360), 60, 0.0), box((560, 360), 60, 0.0)], np.float32)
    return cloth, tiles


def knowing(cloth: np.ndarray) -> KnownTable:
    """A known table that has seen ``cloth`` bare."""
    known = KnownTable()
    for _ in range(EMPTY_FRAMES):
        known.see_empty(cloth)
    return known


def _with_discs(frame: np.ndarray, centres: list[tuple[int, int]]) -> np.ndarray:
    out = frame.copy()
    for c in centres:
        cv2.circle(out, c, 14, (40, 90, 200), -1)  # a coin of about half a tile's length
    return out


def test_a_lone_marker_sized_change_is_a_marker_and_pieces_are_not() -> None:
    cloth, tiles = _cloth_and_tiles()
    known = knowing(cloth)
    scale = tile_scale(tiles)
    beyond = (640, 360)  # beyond the train's end, by its last tile

    def found(frame: np.ndarray) -> np.ndarray:
        return known.marker_candidates(known.view(frame), tiles, tiles, scale)

    lone = found(_with_discs(cloth, [beyond]))
    assert len(lone) == 1
    assert np.linalg.norm(lone[0].mean(axis=0) - np.array(beyond)) < 6
    # two marker-sized changes two thirds of a tile apart are pieces of one thing
    assert not len(found(_with_discs(cloth, [beyond, (640, 400)])))
    # far from every tile it is no marker either
    assert not len(found(_with_discs(cloth, [(1100, 100)])))


def test_dark_cloth_hemmed_in_by_tiles_is_no_marker_and_a_coin_there_is() -> None:
    # on a dark cloth, the detail of a patch with pale tiles all round it moves with
    # their glow in the shading it is measured against; its brightness and colour stay
    rng = np.random.default_rng(3)
    noise = cv2.GaussianBlur(rng.normal(0, 1, (720, 1280)).astype(np.float32), (0, 0), 1.5)
    grey = np.clip(60 + 6 * noise, 0, 255).astype(np.uint8)
    cloth = cv2.merge([(grey * 0.8).astype(np.uint8), (grey * 0.85).astype(np.uint8), grey])
    known = knowing(cloth)
    laid = [((500, 300), (60, 30)), ((560, 300), (60, 30)), ((620, 300), (60, 30)),
            ((650, 345), (30, 60)), ((555, 345), (30, 60)), ((560, 390), (60, 30)),
            ((620, 390), (60, 30))]
    frame = cloth.copy()
    for centre, size in laid:
        outline = cv2.boxPoints((centre, size, 0.0)).astype(np.int32)
        cv2.fillPoly(frame, [outline], (225, 230, 235))
        cv2.polylines(frame, [outline], True, (60, 50, 40), 2)
    tiles = np.array([cv2.boxPoints((c, size, 0.0)) for c, size in laid], np.float32)

    def found(frame: np.ndarray) -> np.ndarray:
        return known.marker_candidates(known.view(frame), tiles, tiles, tile_scale(tiles))

    assert not len(found(frame))
    coin = found(_with_discs(frame, [(800, 345)]))
    assert len(coin) == 1 and np.linalg.norm(coin[0].mean(axis=0) - (800, 345)) < 6


def test_a_marker_as_large_as_a_tile_but_shorter_is_a_marker_and_a_tile_is_not() -> None:
    # a toy train seen from above with its cab and shadow: nearly a tile's area
    cloth, tiles = _cloth_and_tiles()
    known = knowing(cloth)
    beyond = (640, 360)

    def laid(length: float, width: float) -> np.ndarray:
        frame = cloth.copy()
        outline = cv2.boxPoints((beyond, (length, width), 0.0)).astype(np.int32)
        cv2.fillPoly(frame, [outline], (40, 90, 200))
        return known.marker_candidates(known.view(frame), tiles, tiles, tile_scale(tiles))

    train = laid(52, 28)  # 0.87 of the 60 by 30 px tile's length, 0.81 of its area
    assert len(train) == 1
    assert np.linalg.norm(train[0].mean(axis=0) - np.array(beyond)) < 6
    assert not len(laid(60, 30))  # a tile the detector missed is the tile candidates' to find


def test_a_marker_sized_change_longer_than_any_marker_is_a_missed_tile() -> None:
    # a pale tile on a pale cloth: its middle changes the view, its ends only at their
    # pips and edges, so the small copy sees a change the size of a coin
    cloth, tiles = _cloth_and_tiles()
    known = knowing(cloth)
    known.settle(cloth)
    none = Detections(np.zeros((0, 4, 2), np.float32), np.zeros(0), np.zeros(0))
    beyond = (640, 360)
    outline = box(beyond, 60, 0.0)
    frame = cloth.copy()
    cv2.rectangle(frame, (610, 346), (669, 374), (60, 50, 40), 2)  # its edge and side
    cv2.rectangle(frame, (626, 346), (654, 374), (235, 235, 230), -1)
    for x, y in ((616, 353), (616, 367), (663, 353), (663, 367)):
        cv2.circle(frame, (x, y), 3, (30, 30, 30), -1)
    assert len(known.marker_candidates(known.view(frame), tiles, tiles, tile_scale(tiles))) == 1
    # the train's tiles held: the tiles' size, and taken
    got = known.screen(frame, none, 0, tiles, marker_class=1)
    assert len(got) == 1 and got.class_id[0] == 0 and known.added == 1
    assert polygon_iou(outline[None], got.corners)[0, 0] > 0.6
    # a coin there stays a marker
    known = knowing(cloth)
    known.settle(cloth)
    got = known.screen(_with_discs(cloth, [beyond]), none, 0, tiles, marker_class=1)
    assert len(got) == 1 and got.class_id[0] == 1 and known.added == 0


def _with_tiles(frame: np.ndarray, centres: list[tuple[int, int]]) -> np.ndarray:
    out = frame.copy()
    for x, y in centres:  # a pale 60 by 30 px tile, its rim and divider dark
        cv2.rectangle(out, (x - 30, y - 15), (x + 29, y + 14), (235, 235, 230), -1)
        cv2.rectangle(out, (x - 30, y - 15), (x + 29, y + 14), (60, 50, 40), 2)
        cv2.line(out, (x, y - 15), (x, y + 14), (60, 50, 40), 2)
    return out


def test_a_marker_set_on_beyond_a_tile_laid_where_it_stood_stays_a_marker() -> None:
    # a toy train stood at the train's end; a tile is laid there and the toy set on
    # beyond it: what changed by the toy runs on into the new tile's end, as long as a
    # tile together, but a tile fitted there would lie on the tile found
    cloth, tiles = _cloth_and_tiles()
    known = knowing(cloth)

    def toy(frame: np.ndarray, centre: tuple[int, int]) -> np.ndarray:
        out = frame.copy()
        cv2.fillPoly(out, [cv2.boxPoints((centre, (40, 22), 0.0)).astype(np.int32)],
                     (40, 90, 200))
        return out

    train = _with_tiles(cloth, [(500, 360), (560, 360)])
    known.settle(toy(train, (620, 360)), tiles)
    laid = np.concatenate([tiles, box((620, 360), 60, 0.0)[None]])
    frame = toy(_with_tiles(train, [(620, 360)]), (676, 360))
    got = known.screen(frame, Detections(laid, np.ones(3), np.zeros(3)), 0, tiles,
                       marker_class=1)
    assert known.added == 0 and (got.class_id == 1).sum() == 1
    assert np.linalg.norm(got.corners[got.class_id == 1][0].mean(axis=0) - (676, 360)) < 6
    # a box the detector scores low there may be junk over a tile it missed: the change
    # is fitted as a tile after all
    scored = Detections(laid, np.array([1.0, 1.0, 0.4]), np.zeros(3))
    got = known.screen(frame, scored, 0, tiles, marker_class=1)
    assert known.added == 1 and not (got.class_id == 1).any()


def test_a_pale_tile_half_on_a_pale_square_is_fitted_by_its_pips() -> None:
    # a checked cloth: the tile's far half lies on a pale square as pale as its face,
    # where only its pips change the view; its near half lies on the cloth and changes
    cloth, tiles = _cloth_and_tiles()
    cv2.rectangle(cloth, (596, 330), (639, 390), (235, 235, 230), -1)
    known = knowing(cloth)
    known.settle(cloth)
    none = Detections.empty()
    outline = box((640, 360), 60, 0.0)
    frame = cloth.copy()
    cv2.rectangle(frame, (640, 346), (669, 374), (235, 235, 230), -1)
    cv2.line(frame, (640, 346), (640, 374), (60, 50, 40), 2)  # the divider
    for x, y in ((616, 352), (625, 368)):  # a 2: the far half's only change
        cv2.circle(frame, (x, y), 3, (30, 30, 30), -1)
    got = known.screen(frame, none, 0, tiles, marker_class=1)
    assert len(got) == 1 and got.class_id[0] == 0
    assert polygon_iou(outline[None], got.corners)[0, 0] > 0.6
