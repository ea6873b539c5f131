"""datasets.composite.pairs: a photo of the bare table and one of the tiles, shot by hand;
the bare one shows the same table top with nothing on it, moved as its labels say."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from datasets.composite import SpriteLibrary
from datasets.composite.pairs import GAIN, PAIR_SURFACES, Shot, compose_pair
from datasets.composite.plan import SETS, set_shown

SPRITES = Path(__file__).resolve().parent / "sprites"


@pytest.fixture(scope="module")
def library() -> SpriteLibrary:
    return SpriteLibrary([SPRITES])


def _fill(polys: list[np.ndarray], shape: tuple[int, ...], grow: int = 0) -> np.ndarray:
    mask = np.zeros(shape[:2], np.uint8)
    for poly in polys:
        cv2.fillConvexPoly(mask, np.round(np.asarray(poly)).astype(np.int32), 1)
    if grow:
        mask = np.asarray(cv2.dilate(mask, np.ones((2 * grow + 1, 2 * grow + 1), np.uint8)),
                          np.uint8)
    return mask.astype(bool)


def _laid(bare: np.ndarray, homography: np.ndarray, gain: float, shape: tuple[int, ...]
          ) -> tuple[np.ndarray, np.ndarray]:
    """The bare photo laid on the table photo's pixels by ``homography``, its exposure
    undone (grey, blurred), and where it sees the table photo's frame."""
    h, w = shape[:2]
    grey = np.asarray(cv2.GaussianBlur(cv2.cvtColor(bare, cv2.COLOR_BGR2GRAY)
                                       .astype(np.float32), (0, 0), 2.0) / gain, np.float32)
    laid = cv2.warpPerspective(grey, homography, (w, h), flags=cv2.INTER_LINEAR)
    seen = cv2.warpPerspective(np.ones(bare.shape[:2], np.uint8), homography, (w, h),
                               flags=cv2.INTER_NEAREST)
    return laid, cv2.erode(seen, np.ones((9, 9), np.uint8)).astype(bool)


@pytest.mark.parametrize("surface,mat,seed", [("checks", False, 3), ("gingham", True, 4),
                                              ("leather", False, 5)])
def test_the_bare_photo_shows_the_table_without_its_tiles_where_the_plan_says(
        library: SpriteLibrary, surface: str, mat: bool, seed: int) -> None:
    bare, photo, labels = compose_pair(library, seed, 0, surface, mat)
    assert labels["tiles"] and bare.shape == photo.shape
    pair = labels["pair"]
    homography = np.array(pair["homography"])
    laid, seen = _laid(bare, homography, pair["gain"], photo.shape)
    grey = cv2.GaussianBlur(cv2.cvtColor(photo, cv2.COLOR_BGR2GRAY).astype(np.float32),
                            (0, 0), 2.0)
    diff = np.abs(grey - laid)
    objects = [t["corners"] for key in ("tiles", "face_down", "markers") for t in labels[key]]
    clear = seen & ~_fill(objects, photo.shape, grow=25)
    faces = [_fill([np.mean(t["corners"], axis=0) + 0.6 * (np.asarray(t["corners"])
                    - np.mean(t["corners"], axis=0))], photo.shape) & seen
             for t in labels["tiles"]]
    on_tiles = [float(np.mean(diff[f])) for f in faces if f.sum() > 30]
    assert clear.mean() > 0.2 and on_tiles
    # the cloth lies where the plan says: it matches there, a few pixels off it does not
    # (on checks and gingham; leather is smooth)
    cloth = float(np.median(diff[clear]))
    assert np.median(on_tiles) > 3 * cloth + 5
    if surface != "leather":
        moved = np.array([[1, 0, 4], [0, 1, 3], [0, 0, 1]], np.float64) @ homography
        off, _ = _laid(bare, moved, pair["gain"], photo.shape)
        assert float(np.median(np.abs(grey - off)[clear])) > 1.5 * cloth
    assert GAIN[0] <= pair["gain"] <= GAIN[1]


def test_the_second_shot_is_a_small_hand_held_move() -> None:
    rng = np.random.default_rng(1)
    w, h = 1280, 720
    corners = np.array([[[0, 0], [w, 0], [w, h], [0, h]]], np.float32)
    moves = []
    for _ in range(50):
        shot = Shot.hand_held(rng, (w, h))
        moves.append(np.abs(cv2.perspectiveTransform(corners, shot.homography) - corners).max())
    assert np.median(moves) > 5 and max(moves) < 0.15 * w


def test_a_seed_makes_the_same_pair_and_surfaces_differ(library: SpriteLibrary) -> None:
    one = compose_pair(library, 9, 2, PAIR_SURFACES[0], False)
    again = compose_pair(library, 9, 2, PAIR_SURFACES[0], False)
    assert np.array_equal(one[0], again[0]) and np.array_equal(one[1], again[1])
    assert one[2]["composite"]["surface"] == PAIR_SURFACES[0]
    other = compose_pair(library, 9, 2, "felt", False)
    assert other[2]["composite"]["surface"] == "felt"
    hand = compose_pair(library, 9, 3, "wood", True, hands=True)
    assert hand[2]["kind"] == "hands-composite" and not hand[2]["composite"]["mat"]


def test_a_tile_shown_beyond_the_tables_set_names_the_set_it_comes_from() -> None:
    assert set_shown(12, [{"values": [3, 12]}]) == 12
    assert set_shown(9, [{"values": [3, 11]}, {"values": [0, 0]}]) == 12
    assert set_shown(12, [{"values": [14, 2]}]) == 15
    assert set_shown(6, []) == 6


def test_every_labelled_tile_is_of_the_photos_set(library: SpriteLibrary) -> None:
    tops = set()
    for index in range(16):
        _, _, labels = compose_pair(library, 5101, index, PAIR_SURFACES[index % 5], False)
        assert labels["set"] in SETS
        assert all(max(t["values"]) <= labels["set"] for t in labels["tiles"])
        tops.add(max(max(t["values"]) for t in labels["tiles"]))
    assert max(tops) > 12  # a double-15 set or a stand-in beyond double-12 was shown
