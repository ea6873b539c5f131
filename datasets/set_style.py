"""Sets of one fixed look, and photos of a whole set laid out face up.

A player's own set has one look: its face, its pip colours, its pip layouts.
``set_look`` draws one such look from a seed; ``UNSEEN`` looks use a colour
code and 10-12 layouts that no training scene shows (``UNSEEN_COLOURS``,
``UNSEEN_LAYOUTS``), to measure how a reader copes with a set it never saw and
what calibrating to it (``vision.calibration.calibrate``) wins back.

``set_photos`` lays every tile of a double-N set face up in a few photos, the
way a player shows a set to the camera; ``hand_photo`` and ``table_photo``
paint hands and tables in a given look.
"""

from __future__ import annotations

from typing import Literal

import numpy as np

from datasets.camera import Camera
from datasets.pip_layouts import _grid
from datasets.render import Scene, _inside, _paint, render_hands, render_table
from datasets.table_scene import PlaneScene, PlaneTile, tile_corners
from datasets.textures import FACE_COLOURS, RGB, STANDARD_COLOURS, TileStyle

#: A colour code no training scene uses (RGB): pastel, neon and earth tones.
UNSEEN_COLOURS: dict[int, RGB] = {
    1: (240, 90, 170),
    2: (0, 185, 235),
    3: (140, 190, 0),
    4: (230, 170, 0),
    5: (95, 20, 205),
    6: (0, 110, 115),
    7: (250, 95, 80),
    8: (70, 75, 170),
    9: (170, 95, 10),
    10: (20, 95, 20),
    11: (185, 0, 75),
    12: (95, 55, 25),
    13: (120, 160, 200),
    14: (200, 120, 220),
    15: (60, 140, 100),
    16: (150, 150, 60),
    17: (210, 60, 20),
    18: (40, 40, 90),
}

Layout = list[tuple[float, float, float]]


def _ring(count: int, inner: list[tuple[float, float]], radius: float = 0.33) -> Layout:
    """``count`` pips on a circle round the half's middle, and pips at ``inner``."""
    pip = 0.38 * min(2 * np.pi * radius / count, 0.3)
    pips = [(0.5 + radius * float(np.sin(2 * np.pi * k / count)),
             0.5 - radius * float(np.cos(2 * np.pi * k / count)), pip) for k in range(count)]
    return pips + [(x, y, pip) for x, y in inner]


#: 10-12 pips in rings round the middle, and a 2-4-4 / 3-5-3... staggered grid: layouts
#: no training scene shows.
UNSEEN_LAYOUTS: dict[int, list[Layout]] = {
    10: [_ring(8, [(0.5, 0.4), (0.5, 0.6)]),
         _grid(4, 4, [(0, 0.5), (0, 1.5), (0, 2.5), (1, 0), (1, 3), (2, 0), (2, 3),
                      (3, 0.5), (3, 1.5), (3, 2.5)])],
    11: [_ring(10, [(0.5, 0.5)]),
         _grid(4, 4, [(0, 0), (0, 1), (0, 2), (0, 3), (1.5, 0.5), (1.5, 1.5), (1.5, 2.5),
                      (3, 0), (3, 1), (3, 2), (3, 3)])],
    12: [_ring(12, []), _grid(4, 4, [(float(r), float(c)) for r in (0, 3) for c in range(4)]
                             + [(float(r), float(c)) for r in (1, 2) for c in (0, 3)])],
}

Look = Literal["standard", "unseen"]


def set_look(seed: int, look: Look = "unseen") -> TileStyle:
    """One set's look, the same for every photo of it: ``"standard"`` (the common colour
    code and layouts) or ``"unseen"`` (``UNSEEN_COLOURS`` and ``UNSEEN_LAYOUTS``)."""
    rng = np.random.default_rng([seed, 0x5E7])
    face = np.array(FACE_COLOURS[int(rng.integers(len(FACE_COLOURS)))][::-1], np.float32)
    colours = UNSEEN_COLOURS if look == "unseen" else STANDARD_COLOURS
    pips = {v: np.clip(np.array(c[::-1], np.float32) * rng.uniform(0.92, 1.06, 3), 0, 255)
            for v, c in colours.items()}
    return TileStyle(
        face=face, pips=pips,
        divider=np.array([int(rng.integers(15, 60))] * 3, np.float32),
        spinner=bool(rng.random() < 0.5),
        corner=float(rng.uniform(0.06, 0.16)),
        bevel=float(rng.uniform(0.08, 0.25)),
        recess=float(rng.uniform(0.2, 0.6)),
        pip_scale=float(rng.uniform(0.95, 1.05)),
        thickness=float(rng.uniform(0.3, 0.42)),
        layouts=UNSEEN_LAYOUTS if look == "unseen" else None,
    )


def full_set(top: int) -> list[tuple[int, int]]:
    """Every tile of a double-``top`` set, each once."""
    return [(a, b) for a in range(top + 1) for b in range(a, top + 1)]


def set_photos(style: TileStyle, top: int, seed: int, photos: int = 3,
               size: tuple[int, int] = (1280, 960)) -> list[Scene]:
    """Every tile of a double-``top`` set lying face up in rows, spread over ``photos``
    photos taken from above (a little tilted), shuffled and turned either way."""
    rng = np.random.default_rng([seed, 0xCA1])
    tiles = full_set(top)
    order = rng.permutation(len(tiles))
    shares = np.array_split(order, photos)
    return [_laid_out([tiles[int(i)] for i in share], style, rng, size) for share in shares]


def _laid_out(values: list[tuple[int, int]], style: TileStyle, rng: np.random.Generator,
              size: tuple[int, int]) -> Scene:
    width = float(rng.uniform(21, 26))
    cols = int(np.ceil(np.sqrt(len(values) * 2.2)))
    gap = float(rng.uniform(4, 9))
    plane_tiles = []
    for k, v in enumerate(values):
        row, col = divmod(k, cols)
        centre = np.array([col * (width + gap), row * (2 * width + gap)])
        centre = centre + rng.normal(0, 0.8, 2)
        angle = np.pi / 2 + rng.normal(0, 0.03) + (np.pi if rng.random() < 0.5 else 0.0)
        plane_tiles.append(PlaneTile(v, tile_corners(centre, angle, width)))
    points = np.concatenate([t.corners for t in plane_tiles])
    middle = (points.min(0) + points.max(0)) / 2
    fov = float(rng.uniform(55, 70))
    tilt, azimuth = float(abs(rng.normal(0, 8))), float(rng.uniform(0, 360))
    focal = 0.5 * max(size) / np.tan(np.radians(fov) / 2)
    distance = focal * float(np.ptp(points, axis=0).max()) / (0.85 * min(size))
    cam = Camera.look_at(size[0], size[1], fov, (float(middle[0]), float(middle[1])),
                         distance, tilt, azimuth)
    for _ in range(15):  # back off until every tile shows
        cam = Camera.look_at(size[0], size[1], fov, (float(middle[0]), float(middle[1])),
                             distance, tilt, azimuth)
        if _inside(cam.project(points), size[0], size[1], 0.03 * min(size)):
            break
        distance *= 1.1
    plane = PlaneScene(plane_tiles, [], set_size=max(max(v) for v in values))
    return _paint(plane, cam, rng, width, "set", 0, style=style)


def hand_photo(style: TileStyle, seed: int, top: int = 12) -> Scene:
    """Loose tiles of a double-``top`` set in ``style`` (as ``render_hands`` lays them)."""
    for attempt in range(50):
        rng = np.random.default_rng([seed, attempt, 0x4A1])
        scene = render_hands(rng, style=style)
        if scene.tiles and all(max(t.values) <= top for t in scene.tiles):
            return scene
    raise ValueError(f"no hand of a double-{top} set drawn from seed {seed}")


def table_photo(style: TileStyle, seed: int, top: int = 12) -> Scene:
    """A Mexican Train table of a double-``top`` set in ``style`` (``render_table``)."""
    for attempt in range(50):
        rng = np.random.default_rng([seed, attempt, 0x7AB])
        scene = render_table(rng, style=style)
        if scene.tiles and all(max(t.values) <= top for t in scene.tiles):
            return scene
    raise ValueError(f"no table of a double-{top} set drawn from seed {seed}")
