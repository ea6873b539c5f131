"""vision.change.tile_fit: a tile fitted to what changed between two grey frames of a
fixed camera, half of it pale on a pale square of a checked cloth."""

from __future__ import annotations

import cv2
import numpy as np

from vision.change.tile_fit import fit_tile
from vision.models.detections import polygon_iou

SCALE = (24.0, 48.0)  # the known tiles' (short, long) side
TILE = np.array([[76, 88], [124, 88], [124, 112], [76, 112]], np.float32)


def _cloth() -> np.ndarray:
    """A checked cloth: dark left of x = 100, pale right of it."""
    grey = np.full((200, 200), 200.0, np.float32)
    grey[:, :100] = 60.0
    return grey


def _laid(grey: np.ndarray, pip_grey: float) -> np.ndarray:
    """``grey`` with a tile laid on it: a face as pale as the pale squares, its right
    half on one with four pips a little darker (blurred, as a camera shows small pips)."""
    out = grey.copy()
    out[88:112, 76:124] = 200.0
    for x in (108, 118):
        for y in (94, 106):
            cv2.circle(out, (x, y), 3, pip_grey, -1)
    return out


def _seen(grey: np.ndarray) -> np.ndarray:
    return np.asarray(np.clip(cv2.GaussianBlur(grey, (0, 0), 1.0), 0, 255), np.uint8)


def _fit(before: np.ndarray, now: np.ndarray) -> np.ndarray | None:
    # about the change the coarse view saw: the half on the dark square, and a little
    # more (``KnownTable`` looks a quarter of a tile around it)
    return fit_tile(_seen(before), _seen(now), (62.0, 74.0, 52.0, 52.0), SCALE, least=0.9)


def test_a_half_changed_at_its_pips_only_is_part_of_the_tile() -> None:
    before = _cloth()
    # pips darker than the cloth by about as much as a shadow darkens it (15 %, seen)
    box = _fit(before, _laid(before, 140.0))
    assert box is not None
    assert float(polygon_iou(box[None], TILE[None])[0, 0]) > 0.75


def test_a_broad_shadow_beside_the_tile_is_not_part_of_it() -> None:
    before = _cloth()
    now = _laid(before, 140.0)
    now[112:128, 100:140] *= 0.85  # a shadow below its pale half, as dark as the pips
    box = _fit(before, now)
    # taken as part of the tile, it would make the outline wider than a tile can be
    assert box is not None
    assert float(polygon_iou(box[None], TILE[None])[0, 0]) > 0.65
