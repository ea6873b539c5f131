"""What a composited photo of one player's hand shows: the hand's tiles face up on the
table, as a player lays them out for the end-of-round photo, and the phone that takes it.

The tiles lie in a row (long sides touching, as the compositor's table frames lay a
hand), in two rows, or loose, each turned its own way; a tile's values are ones the
sprite library shows, so that every tile is a rendered sprite. The phone is held over
the hand, straight down or tilted up to ``MAX_TILT`` degrees, at the height that makes
a tile ``TILE_PX`` pixels long. No pixels here: :mod:`datasets.composite.compose` draws
the plan (``Options(hands=True)``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from datasets.camera import Camera
from datasets.composite.plan import FramePlan, Placed
from datasets.table_layout import TILE_WIDTH_MM
from datasets.table_scene import overlaps, tile_corners

#: A phone photo, scaled to a 1280-pixel long side (4:3).
HAND_FRAME = (1280, 960)
#: The hand's size: tiles left at the end of a round.
TILES = (1, 12)
#: A tile's length in the photo (pixels), drawn log-uniformly: the sprites are rendered
#: 70-240 px long, so a tile is never blown up much beyond its render; a hand too long
#: to fit at that size is seen from further away.
TILE_PX = (120.0, 320.0)
#: The phone's tilt from straight down (degrees): half the photos straight down (a few
#: degrees off), the rest tilted up to this.
MAX_TILT = 40.0


def _row(rng: np.random.Generator, count: int, start: np.ndarray, angle: float
         ) -> list[np.ndarray]:
    step = np.array([np.cos(angle + np.pi / 2), np.sin(angle + np.pi / 2)])
    gap = TILE_WIDTH_MM + float(rng.uniform(0.5, 6.0))
    return [tile_corners(start + k * gap * step, angle + float(rng.normal(0, 0.03)),
                         TILE_WIDTH_MM) for k in range(count)]


def _loose(rng: np.random.Generator, count: int) -> list[np.ndarray]:
    spread = 1.6 * TILE_WIDTH_MM * np.sqrt(count)
    out: list[np.ndarray] = []
    for _ in range(60 * count):
        if len(out) >= count:
            break
        corners = tile_corners(rng.normal(0, spread / 2, 2), float(rng.uniform(0, np.pi)),
                               TILE_WIDTH_MM)
        if not any(overlaps(corners, other, 3.0) for other in out):
            out.append(corners)
    return out


def _footprints(rng: np.random.Generator, count: int) -> list[np.ndarray]:
    angle = float(rng.uniform(0, np.pi))
    pick = rng.random()
    if pick < 0.45 or count < 4:
        return _row(rng, count, np.zeros(2), angle)
    if pick < 0.7:  # two rows, one above the other
        first = (count + 1) // 2
        along = np.array([np.cos(angle), np.sin(angle)]) * (2.3 * TILE_WIDTH_MM)
        return _row(rng, first, np.zeros(2), angle) + _row(rng, count - first, along, angle)
    return _loose(rng, count)


def plan_hand(rng: np.random.Generator, tiles: Sequence[tuple[int, int]], set_max: int,
              size: tuple[int, int] = HAND_FRAME) -> FramePlan:
    """A hand of tiles whose values are drawn from ``tiles`` (each of a set up to
    ``set_max``), laid out face up, and the phone over it."""
    if not tiles:
        raise ValueError("no tile values to lay out")
    count = int(rng.integers(TILES[0], TILES[1] + 1))
    feet = _footprints(rng, count)
    objects = []
    for corners in feet:
        a, b = tiles[int(rng.integers(len(tiles)))]
        if rng.random() < 0.5:
            a, b = b, a
        objects.append(Placed("tile", corners, (int(a), int(b)), part="hand"))
    centre = np.mean([c.mean(axis=0) for c in feet], axis=0)
    reach = float(np.ptp(np.concatenate(feet), axis=0).max())
    w, h = size
    fov = float(rng.uniform(60, 75))
    focal = 0.5 * max(w, h) / np.tan(np.radians(fov) / 2)
    tile_px = float(np.exp(rng.uniform(*np.log(TILE_PX))))
    # no nearer than keeps the whole hand in the photo, with a margin
    distance = max(focal * 2 * TILE_WIDTH_MM / tile_px, focal * reach / (0.8 * min(w, h)))
    tilt = float(rng.uniform(8, MAX_TILT) if rng.random() < 0.5 else abs(rng.normal(0, 3)))
    camera = Camera.look_at(w, h, fov, (float(centre[0]), float(centre[1])), distance, tilt,
                            float(rng.uniform(0, 360)), float(rng.normal(0, 3)))
    return FramePlan(objects=objects, camera=camera, set_max=set_max, players=1, table=None,
                     mat=None, tile_px=focal * 2 * TILE_WIDTH_MM / distance,
                     extras={"tilt": round(tilt, 1)})
