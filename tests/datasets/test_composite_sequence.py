"""A round composited from sprites through one fixed camera (``datasets.composite.sequence``)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from datasets.composite import SpriteLibrary
from datasets.composite.sequence import composite_pictures
from datasets.table_game import camera_view, play_round
from datasets.table_layout import layout_sequence
from datasets.table_sequence import Picture

SPRITES = Path(__file__).resolve().parent / "sprites"
PLAYERS = 3


def _round(seed: int, mat: bool, tables: int = 6) -> tuple[list, list[Picture]]:
    truth = camera_view(play_round(seed, PLAYERS))[:tables]
    layouts = layout_sequence(truth, PLAYERS, np.random.default_rng(seed), mat=mat)
    return layouts, composite_pictures(layouts, SpriteLibrary([SPRITES]), "checks", seed)


@pytest.fixture(scope="module")
def plain() -> tuple[list, list[Picture]]:
    return _round(41, mat=False)


def _mask(size: tuple[int, int], polygons: list[np.ndarray], grow: int) -> np.ndarray:
    mask = np.zeros(size, np.uint8)
    for corners in polygons:
        cv2.fillConvexPoly(mask, np.round(corners).astype(np.int32), 255)
    return cv2.dilate(mask, np.ones((2 * grow + 1, 2 * grow + 1), np.uint8)) > 0


def test_every_picture_shows_the_rounds_tiles(plain: tuple[list, list[Picture]]) -> None:
    """The bare table first, then each layout: its tiles with their own values (a tile no
    sprite shows is painted), each face in the frame."""
    layouts, pictures = plain
    assert len(pictures) == len(layouts) + 1 and pictures[0].tiles == []
    for layout, picture in zip(layouts, pictures[1:], strict=True):
        assert sorted(tuple(sorted(v)) for v, _ in picture.tiles) == sorted(
            tuple(sorted((int(a), int(b)))) for a, b in (t.values for t in layout.tiles))
        assert picture.image.shape == (720, 1280, 3)
        for _, corners in picture.tiles:
            assert np.all(corners >= 0) and np.all(corners < [1280, 720])


def test_only_what_changed_looks_different(plain: tuple[list, list[Picture]]) -> None:
    """Against the bare table, a picture differs on its tiles' faces (labels on the
    pixels) and hardly anywhere away from them (same cloth, light, finish)."""
    _, pictures = plain
    bare = pictures[0].image.astype(np.int16)
    for picture in pictures[1:]:
        diff = np.abs(picture.image.astype(np.int16) - bare).max(axis=2)
        faces = [c for _, c in picture.tiles] + list(picture.markers)
        away = ~_mask(diff.shape, faces, 14)
        if picture.printed is not None:
            away &= ~_mask(diff.shape, [picture.printed], 4)
        assert np.percentile(diff[away], 99) <= 12
        for _, corners in picture.tiles:
            inside = _mask(diff.shape, [corners], 0)
            inside &= ~_mask(diff.shape, [c for _, c in picture.tiles if c is not corners], 0)
            assert diff[inside].mean() > 20


def test_a_tile_looks_the_same_in_every_picture(plain: tuple[list, list[Picture]]) -> None:
    _, pictures = plain
    first = {tuple(sorted(v)): c for v, c in pictures[1].tiles}
    later = pictures[-1]
    for values, corners in later.tiles:
        if tuple(sorted(values)) in first:
            assert np.abs(first[tuple(sorted(values))] - corners).max() < 1e-6
            inside = _mask(later.image.shape[:2], [corners], 0)
            a = pictures[1].image[inside].astype(int)
            b = later.image[inside].astype(int)
            assert np.abs(a - b).mean() < 6


def test_same_seed_same_round_and_the_mat_is_drawn() -> None:
    """The same seed gives the same frames; with the mat, the bare table shows it round
    the hub (against the same round laid out without it)."""
    layouts, once = _round(42, mat=True, tables=3)
    _, again = _round(42, mat=True, tables=3)
    for a, b in zip(once, again, strict=True):
        assert np.array_equal(a.image, b.image)
    hub = layouts[0].hub
    assert hub.mat
    no_mat = [replace(lay, hub=replace(lay.hub, mat=False)) for lay in layouts]
    plain_bare = composite_pictures(no_mat, SpriteLibrary([SPRITES]), "checks", 42)[0].image
    diff = np.abs(once[0].image.astype(int) - plain_bare.astype(int)).max(axis=2)
    centre = np.mean([c.mean(axis=0) for _, c in once[1].tiles], axis=0).astype(int)
    x, y = centre
    assert (diff[y - 40:y + 40, x - 40:x + 40] > 25).mean() > 0.3  # the mat's print there
    assert (diff[:60, :60] > 25).mean() < 0.05  # the cloth beyond it as it was
