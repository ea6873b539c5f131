"""Procedural pixels: table backgrounds and tile faces (BGR, uint8 or float32 0-255)."""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from datasets.pip_layouts import pip_layout

RGB = tuple[int, int, int]

#: Pip colours of the common double-12 colour-coded sets (RGB), 13-18 as double-18 sets.
STANDARD_COLOURS: dict[int, RGB] = {
    1: (0, 150, 165),
    2: (35, 145, 60),
    3: (205, 30, 40),
    4: (125, 72, 40),
    5: (30, 75, 190),
    6: (245, 125, 20),
    7: (200, 30, 140),
    8: (20, 170, 125),
    9: (105, 40, 150),
    10: (235, 75, 30),
    11: (120, 20, 45),
    12: (135, 135, 140),
    13: (25, 90, 55),
    14: (205, 160, 30),
    15: (25, 35, 105),
    16: (235, 120, 170),
    17: (120, 130, 35),
    18: (35, 35, 35),
}

#: Cream, ivory and white face colours (RGB).
FACE_COLOURS: list[RGB] = [
    (246, 240, 222),
    (240, 232, 205),
    (250, 248, 240),
    (236, 226, 200),
    (244, 236, 214),
    (252, 250, 246),
    (232, 222, 196),
]


def _bgr(rgb: RGB) -> np.ndarray:
    return np.array(rgb[::-1], dtype=np.float32)


@dataclass(frozen=True)
class TileStyle:
    """How one set of tiles looks (every tile in a scene shares it)."""

    face: np.ndarray  # BGR float
    pips: dict[int, np.ndarray]  # value -> BGR float
    divider: np.ndarray
    spinner: bool
    corner: float  # corner radius as a fraction of the tile width
    bevel: float  # how dark the bevelled edge gets
    recess: float  # how strongly pips look sunk
    pip_scale: float
    thickness: float  # tile height as a fraction of its width
    #: The set's own pip layouts by count (``pip_layouts.pip_layout``); None: the usual.
    layouts: dict[int, list[list[tuple[float, float, float]]]] | None = None

    @classmethod
    def random(cls, rng: np.random.Generator) -> TileStyle:
        face = _bgr(FACE_COLOURS[int(rng.integers(len(FACE_COLOURS)))])
        face = np.clip(face * rng.uniform(0.96, 1.03, 3), 0, 255)
        kind = rng.random()
        if kind < 0.6:  # the standard colour code
            pips = {v: _bgr(c) for v, c in STANDARD_COLOURS.items()}
        elif kind < 0.8:  # another colour code: the same colours shuffled
            order = rng.permutation(18) + 1
            pips = {v: _bgr(STANDARD_COLOURS[int(order[v - 1])]) for v in range(1, 19)}
        else:  # black pips
            black = _bgr((int(rng.integers(10, 45)),) * 3)
            pips = dict.fromkeys(range(1, 19), black)
        pips = {v: np.clip(c * rng.uniform(0.85, 1.12, 3), 0, 255) for v, c in pips.items()}
        divider = _bgr((int(rng.integers(15, 60)),) * 3) if rng.random() < 0.85 else pips[12]
        return cls(
            face=face,
            pips=pips,
            divider=divider,
            spinner=bool(rng.random() < 0.5),
            corner=float(rng.uniform(0.06, 0.16)),
            bevel=float(rng.uniform(0.08, 0.25)),
            recess=float(rng.uniform(0.2, 0.6)),
            pip_scale=float(rng.uniform(0.9, 1.1)),
            thickness=float(rng.uniform(0.3, 0.42)),
        )


def rounded_mask(height: int, width: int, radius: float) -> np.ndarray:
    """Float mask 0-1 of a rounded rectangle filling ``(height, width)``."""
    mask = np.zeros((height * 4, width * 4), np.uint8)
    r = max(1, int(radius * 4))
    cv2.rectangle(mask, (r, 0), (width * 4 - 1 - r, height * 4 - 1), 255, -1)
    cv2.rectangle(mask, (0, r), (width * 4 - 1, height * 4 - 1 - r), 255, -1)
    for cx, cy in (
        (r, r),
        (width * 4 - 1 - r, r),
        (r, height * 4 - 1 - r),
        (width * 4 - 1 - r, height * 4 - 1 - r),
    ):
        cv2.circle(mask, (cx, cy), r, 255, -1)
    return cv2.resize(mask, (width, height), interpolation=cv2.INTER_AREA).astype(np.float32) / 255


def _plain_side(
    colour: np.ndarray, style: TileStyle, width: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """One side of a tile with nothing on it yet, ``(2*width, width)`` pixels: ``colour``
    with a soft gradient, the bevelled edge and its lit rim. Returns ``(bgr float,
    alpha, xx, yy)`` (the pixel grids, for what is drawn on it)."""
    w, h = width, 2 * width
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    alpha = rounded_mask(h, w, style.corner * w)
    # base colour with a soft gradient and a faint texture
    g = rng.uniform(-0.05, 0.05, 2)
    shade = 1 + g[0] * (xx / w - 0.5) + g[1] * (yy / h - 0.5)
    side = colour[None, None, :] * shade[..., None]
    # bevel: darker near the edge
    dist = cv2.distanceTransform((alpha > 0.5).astype(np.uint8), cv2.DIST_L2, 3)
    bevel_w = max(1.0, 0.07 * w)
    edge = np.exp(-dist / bevel_w)
    side = side * (1 - style.bevel * edge)[..., None]
    # a bright rim on the lit side of the bevel
    side += (30 * edge * np.clip(1 - yy / h - xx / w, 0, 1))[..., None] * rng.uniform(0, 1)
    return side, alpha, xx, yy


def render_face(
    values: tuple[int, int], style: TileStyle, width: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray, list[tuple[int, float, float, float]]]:
    """The top face of a tile, ``a`` half on top, ``(2*width, width)`` pixels.

    Returns ``(bgr float32, alpha float32, pips)`` with ``pips`` a list of
    ``(half, x, y, radius)`` in face pixels.
    """
    w, h = width, 2 * width
    face, alpha, xx, yy = _plain_side(style.face, style, width, rng)
    # divider bar
    bar_len = rng.uniform(0.62, 0.86) * w
    bar_t = max(1.0, rng.uniform(0.022, 0.04) * h)
    x0, x1 = (w - bar_len) / 2, (w + bar_len) / 2
    y0, y1 = h / 2 - bar_t / 2, h / 2 + bar_t / 2
    bar = np.clip(
        np.minimum(
            np.minimum(xx - x0 + 0.5, x1 - xx + 0.5), np.minimum(yy - y0 + 0.5, y1 - yy + 0.5)
        ),
        0,
        1,
    )
    face = face * (1 - bar[..., None]) + style.divider[None, None, :] * bar[..., None]
    if rng.random() < 0.4:  # a groove highlight under the bar
        glow = np.clip(1 - np.abs(yy - (y1 + 0.8)), 0, 1) * (np.abs(xx - w / 2) < bar_len / 2)
        face += (40 * glow)[..., None]
    # pips
    pips: list[tuple[int, float, float, float]] = []
    for half, value in enumerate(values):
        for px, py, pr in pip_layout(int(value), rng, style.layouts):
            if half == 0:
                cx, cy = px * w, py * w
            else:
                cx, cy = (1 - px) * w, h - py * w
            r = pr * w * style.pip_scale
            pips.append((half, float(cx), float(cy), float(r)))
            _draw_pip(face, xx, yy, cx, cy, r, style.pips[int(value)], style.recess)
    if style.spinner:
        r = rng.uniform(0.05, 0.085) * w
        d = np.sqrt((xx - w / 2) ** 2 + (yy - h / 2) ** 2)
        disc = np.clip(r - d + 0.5, 0, 1)
        brass = np.array([60, 150, 190], np.float32) * rng.uniform(0.85, 1.15)
        light = 1 + 0.5 * np.clip(
            1 - np.sqrt((xx - w / 2 + r * 0.3) ** 2 + (yy - h / 2 + r * 0.3) ** 2) / r, 0, 1
        )
        face = (
            face * (1 - disc[..., None])
            + (brass[None, None, :] * light[..., None]) * disc[..., None]
        )
    noise = rng.normal(0, 2.0, (h // 2 + 1, w // 2 + 1)).astype(np.float32)
    face += cv2.resize(noise, (w, h))[..., None]
    return np.clip(face, 0, 255).astype(np.float32), alpha, pips


#: Colours of tile backs other than the face's own (RGB): some sets are dark or
#: coloured behind.
BACK_COLOURS: list[RGB] = [
    (40, 40, 44),
    (150, 30, 35),
    (30, 60, 130),
    (35, 100, 60),
    (200, 170, 120),
]


def render_back(
    style: TileStyle, width: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """The back of a tile lying face down, ``(2*width, width)`` pixels: ``(bgr float32,
    alpha float32)``. No divider and no pips; mostly the face's own colour, sometimes
    another, sometimes with a faint pressed pattern (a ring or lines along the tile)."""
    w, h = width, 2 * width
    colour = (style.face if rng.random() < 0.65
              else _bgr(BACK_COLOURS[int(rng.integers(len(BACK_COLOURS)))]))
    back, alpha, xx, yy = _plain_side(colour, style, width, rng)
    pattern = rng.random()
    if pattern < 0.15:  # a pressed ring in the middle
        r = rng.uniform(0.2, 0.35) * w
        d = np.sqrt((xx - w / 2) ** 2 + (yy - h / 2) ** 2)
        ring = np.clip(1 - np.abs(d - r) / max(1.0, 0.03 * w), 0, 1)
        back *= (1 - 0.12 * ring)[..., None]
    elif pattern < 0.25:  # pressed lines along the tile
        for x in (0.3 * w, 0.7 * w):
            line = np.clip(1 - np.abs(xx - x) / max(1.0, 0.02 * w), 0, 1) * (
                np.abs(yy - h / 2) < 0.7 * h / 2)
            back *= (1 - 0.12 * line)[..., None]
    noise = rng.normal(0, 2.0, (h // 2 + 1, w // 2 + 1)).astype(np.float32)
    back += cv2.resize(noise, (w, h))[..., None]
    return np.clip(back, 0, 255).astype(np.float32), alpha


def _draw_pip(
    face: np.ndarray,
    xx: np.ndarray,
    yy: np.ndarray,
    cx: float,
    cy: float,
    r: float,
    colour: np.ndarray,
    recess: float,
) -> None:
    """Paint one sunk, glossy pip into ``face`` (in place)."""
    x0, x1 = int(max(cx - r - 2, 0)), int(min(cx + r + 3, face.shape[1]))
    y0, y1 = int(max(cy - r - 2, 0)), int(min(cy + r + 3, face.shape[0]))
    if x1 <= x0 or y1 <= y0:
        return
    sx, sy = xx[y0:y1, x0:x1], yy[y0:y1, x0:x1]
    d = np.sqrt((sx - cx) ** 2 + (sy - cy) ** 2)
    disc = np.clip(r - d + 0.5, 0, 1)
    rim = np.clip(1 - np.abs(d - r * 0.92) / max(r * 0.18, 0.6), 0, 1)
    # inner shading: darker on the lit side (the hole's wall), a glossy spot opposite
    inner = 1 - recess * 0.35 * np.clip(((sx - cx) + (sy - cy)) / max(r, 1) * -0.7, 0, 1)
    spot = np.exp(
        -(((sx - cx - 0.3 * r) ** 2 + (sy - cy - 0.3 * r) ** 2) / max((0.22 * r) ** 2, 0.3))
    )
    col = colour[None, None, :] * (inner * (1 - 0.45 * rim))[..., None] + (110 * spot)[..., None]
    region = face[y0:y1, x0:x1]
    region[:] = region * (1 - disc[..., None]) + col * disc[..., None]


def background(width: int, height: int, rng: np.random.Generator) -> np.ndarray:
    """A table surface texture (float32 BGR): wood, cloth, felt, marble, plain or dark."""
    kind = rng.choice(
        ["wood", "cloth", "felt", "marble", "plain", "dark"], p=[0.28, 0.14, 0.16, 0.14, 0.14, 0.14]
    )
    if kind == "wood":
        base = _bgr(tuple(int(v) for v in rng.uniform([90, 55, 25], [200, 140, 90])))  # type: ignore[arg-type]
        ang = rng.uniform(0, np.pi)
        yy, xx = np.mgrid[0:height, 0:width].astype(np.float32)
        u = xx * np.cos(ang) + yy * np.sin(ang)
        wob = _noise(width, height, rng, 220) * rng.uniform(5, 25)
        v = -xx * np.sin(ang) + yy * np.cos(ang)
        stretch = cv2.resize(rng.normal(0, 1, (8, 256)).astype(np.float32), (width, height))
        grain = np.sin((u + wob + 3 * stretch) / rng.uniform(3, 9)) * 0.5 + 0.5
        grain = grain * (0.6 + 0.4 * np.sin(v / rng.uniform(80, 300)) ** 2)
        fine = _noise(width, height, rng, 3) * 0.15
        tex = 0.8 + 0.25 * grain + fine
        img = base[None, None, :] * tex[..., None]
        planks = rng.uniform(120, 400)
        seams = np.abs((xx * -np.sin(ang) + yy * np.cos(ang)) % planks) < 2
        img[seams] *= 0.6
    elif kind == "cloth":
        base = _bgr(tuple(int(v) for v in rng.uniform(20, 230, 3)))  # type: ignore[arg-type]
        img = base[None, None, :] * (
            1
            + _noise(width, height, rng, 1.5)[..., None] * 0.12
            + _noise(width, height, rng, 80)[..., None] * 0.1
        )
    elif kind == "felt":
        base = _bgr(
            [(30, 110, 50), (25, 60, 130), (120, 30, 35), (40, 40, 45)][int(rng.integers(4))]
        )
        img = base[None, None, :] * (1 + _noise(width, height, rng, 2)[..., None] * 0.08)
    elif kind == "marble":
        base = _bgr(tuple(int(v) for v in rng.uniform([170, 175, 170], [235, 240, 235])))  # type: ignore[arg-type]
        veins = np.abs(_noise(width, height, rng, 160) + 0.4 * _noise(width, height, rng, 30))
        v = np.exp(-veins * rng.uniform(25, 60)) * rng.uniform(0.3, 0.8)
        vein_col = _bgr(tuple(int(x) for x in rng.uniform([80, 60, 60], [160, 150, 150])))  # type: ignore[arg-type]
        img = base[None, None, :] * (1 - v[..., None]) + vein_col[None, None, :] * v[..., None]
        img *= 1 + _noise(width, height, rng, 40)[..., None] * 0.05
    elif kind == "plain":
        base = _bgr(tuple(int(v) for v in rng.uniform(60, 250, 3)))  # type: ignore[arg-type]
        img = base[None, None, :] * (1 + _noise(width, height, rng, 4)[..., None] * 0.03)
    else:
        base = _bgr(tuple(int(v) for v in rng.uniform(12, 55, 3)))  # type: ignore[arg-type]
        img = base[None, None, :] * (
            1
            + _noise(width, height, rng, 30)[..., None] * 0.25
            + _noise(width, height, rng, 2)[..., None] * 0.1
        )
    return np.clip(img, 0, 255).astype(np.float32)


def _noise(width: int, height: int, rng: np.random.Generator, scale: float) -> np.ndarray:
    """Smooth noise about -1..1 with features ``scale`` pixels wide."""
    sw, sh = max(2, int(width / scale) + 2), max(2, int(height / scale) + 2)
    small = rng.normal(0, 1, (sh, sw)).astype(np.float32)
    return cv2.resize(small, (width, height), interpolation=cv2.INTER_CUBIC) * 0.6
