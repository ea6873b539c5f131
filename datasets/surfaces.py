"""Surfaces people play on, drawn on the table plane through the camera.

The painter's own backgrounds (:func:`datasets.textures.background`) are plain
wood, cloth, felt, marble: a detector trained on them alone takes the squares of
a checked cloth, the flowers of a printed one or the glare on a varnished table
for tiles. Each surface here is a pattern in table millimetres, so it shrinks
and slants with the camera as a real cloth does:

- ``gingham``: woven checks of one colour and white, 5-30 mm, the overlaps
  darker; ``checks``: a plain two-colour checkerboard (black and white among
  them), 8-45 mm squares;
- ``stripes``: bands of two or three colours, even or not;
- ``floral``: a printed cloth, flowers and dots on a ground colour;
- ``leather``: dark, grained, with a broad sheen;
- ``glass``: a dark glass top with the room's lamps and windows reflected in it;
- ``varnished``: wood with a varnish that throws back the lamp as a glare;
- ``felt``: a card-table felt, fibrous.

:data:`MORE_SURFACES` are drawn only when asked for by name (the domino check's
negatives, ``datasets.verifier_crops``): ``marble``, veined stone, and ``wood``, plain
grain with knots, each glossy under a lamp now and then.

:func:`draw_surface` is seeded by the generator it is given, like every other
part of a scene; :func:`webcam` gives a finished frame a webcam's softness,
sensor noise and JPEG round trip.
"""

from __future__ import annotations

from collections.abc import Callable

import cv2
import numpy as np

from datasets.camera import Camera

SURFACES = ("gingham", "checks", "stripes", "floral", "leather", "glass", "varnished", "felt")
#: Further surfaces, drawn only by name (``SURFACES`` stays the benchmarks' set).
MORE_SURFACES = ("marble", "wood")

#: Cloth colours (BGR) the checks, stripes and prints are made of.
CLOTH_COLOURS = np.array([
    [40, 40, 200], [50, 50, 150], [160, 80, 30], [40, 120, 40], [30, 30, 30],
    [60, 150, 230], [130, 60, 120], [90, 90, 90], [30, 180, 220], [140, 140, 40],
], np.float32)
WHITE = np.array([238, 240, 242], np.float32)

Grid = tuple[np.ndarray, np.ndarray, np.ndarray]  # plane x, plane y (mm), mm per pixel


def plane_grid(cam: Camera, angle: float, offset: np.ndarray) -> Grid:
    """The table-plane point of every pixel, turned by ``angle`` and shifted by
    ``offset`` (the cloth lies anyhow), and how many millimetres one pixel spans there."""
    h, w = cam.height, cam.width
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float64)
    h_inv = np.linalg.inv(cam.plane_homography())
    den = h_inv[2, 0] * xx + h_inv[2, 1] * yy + h_inv[2, 2]
    den = np.where(np.abs(den) < 1e-9, 1e-9, den)
    px = (h_inv[0, 0] * xx + h_inv[0, 1] * yy + h_inv[0, 2]) / den
    py = (h_inv[1, 0] * xx + h_inv[1, 1] * yy + h_inv[1, 2]) / den
    c, s = np.cos(angle), np.sin(angle)
    u = c * px - s * py + offset[0]
    v = s * px + c * py + offset[1]
    step = np.hypot(np.gradient(u, axis=1), np.gradient(v, axis=1))
    step = np.clip(np.nan_to_num(step, nan=50.0, posinf=50.0), 1e-3, 50.0)
    return u.astype(np.float32), v.astype(np.float32), step.astype(np.float32)


def _band(coord: np.ndarray, period: float, duty: float, step: np.ndarray) -> np.ndarray:
    """1 inside the first ``duty`` of each ``period`` along ``coord``, 0 outside, with
    edges softened over one pixel (``step`` mm); a pattern finer than a pixel greys out."""
    phase = np.mod(coord, period)
    inside = np.minimum(phase, duty * period - phase)
    outside = np.minimum(phase - duty * period, period - phase)
    edge = np.where(phase < duty * period, inside, -outside)
    soft = np.clip(0.5 + edge / step, 0, 1)
    fade = np.clip((period / step - 1.5) / 2.0, 0, 1)  # under ~2 px a period: its mean
    return (soft * fade + duty * (1 - fade)).astype(np.float32)


def _noise(shape: tuple[int, int], rng: np.random.Generator, scale: float) -> np.ndarray:
    """Smooth noise about -1..1 with features ``scale`` pixels wide."""
    h, w = shape
    small = rng.normal(0, 1, (max(2, int(h / scale) + 2), max(2, int(w / scale) + 2)))
    return cv2.resize(small.astype(np.float32), (w, h), interpolation=cv2.INTER_CUBIC) * 0.6


def _colour(rng: np.random.Generator) -> np.ndarray:
    base = CLOTH_COLOURS[int(rng.integers(len(CLOTH_COLOURS)))]
    return np.clip(base * rng.uniform(0.8, 1.2, 3), 0, 255).astype(np.float32)


def _mix(mask: np.ndarray, under: np.ndarray, over: np.ndarray) -> np.ndarray:
    return under * (1 - mask[..., None]) + over * mask[..., None]


def _weave(grid: Grid, rng: np.random.Generator) -> np.ndarray:
    """A faint thread texture, stronger where threads are big enough to see."""
    u, v, step = grid
    period = float(rng.uniform(0.8, 1.6))
    threads = np.sin(u * 2 * np.pi / period) * np.sin(v * 2 * np.pi / period)
    return (1 + 0.05 * threads * np.clip(period / step - 1, 0, 1)).astype(np.float32)


def _gingham(grid: Grid, rng: np.random.Generator) -> np.ndarray:
    u, v, step = grid
    period = float(rng.uniform(5, 30))
    colour = _colour(rng) if rng.random() < 0.85 else np.full(3, 25, np.float32)
    across, along = _band(u, period, 0.5, step), _band(v, period, 0.5, step)
    cover = 0.55 * across + 0.55 * along - 0.1 * across * along  # 0, 0.55, 1
    img = _mix(np.clip(cover, 0, 1), WHITE, colour)
    return img * _weave(grid, rng)[..., None]


def _checks(grid: Grid, rng: np.random.Generator) -> np.ndarray:
    u, v, step = grid
    period = float(rng.uniform(16, 90))  # two squares
    first = WHITE if rng.random() < 0.6 else _colour(rng)
    second = np.full(3, float(rng.uniform(10, 45)), np.float32) if rng.random() < 0.5 \
        else _colour(rng)
    if abs(float(first.mean()) - float(second.mean())) < 60:  # two squares alike: one light
        second = WHITE if float(first.mean()) < 128 else np.full(3, 30, np.float32)
    a, b = _band(u, period, 0.5, step), _band(v, period, 0.5, step)
    odd = a + b - 2 * a * b
    return _mix(odd, first, second) * _weave(grid, rng)[..., None]


def _stripes(grid: Grid, rng: np.random.Generator) -> np.ndarray:
    u, _, step = grid
    img = np.broadcast_to(WHITE if rng.random() < 0.5 else _colour(rng),
                          (*u.shape, 3)).astype(np.float32)
    for _ in range(int(rng.integers(1, 3))):
        period = float(rng.uniform(8, 60))
        duty = float(rng.uniform(0.15, 0.55))
        img = _mix(_band(u + rng.uniform(0, period), period, duty, step), img, _colour(rng))
    return img * _weave(grid, rng)[..., None]


def _floral(grid: Grid, rng: np.random.Generator) -> np.ndarray:
    """Flowers (five round petals about a dot) and loose dots on a ground colour."""
    u, v, step = grid
    ground = WHITE * rng.uniform(0.85, 1.0) if rng.random() < 0.6 else _colour(rng)
    img = np.broadcast_to(ground, (*u.shape, 3)).astype(np.float32)
    cell = float(rng.uniform(25, 70))
    petals, centres = _colour(rng), _colour(rng)
    ci, cj = np.floor(u / cell), np.floor(v / cell)
    # each cell's flower sits at its own spot (a hash of the cell), turned its own way
    jx = np.mod(np.sin(ci * 12.9898 + cj * 78.233) * 43758.5453, 1.0)
    jy = np.mod(np.sin(ci * 39.346 + cj * 11.135) * 24634.6345, 1.0)
    dx = u - (ci + 0.25 + 0.5 * jx) * cell
    dy = v - (cj + 0.25 + 0.5 * jy) * cell
    r = np.hypot(dx, dy)
    theta = np.arctan2(dy, dx) + jx * 6.283
    size = cell * float(rng.uniform(0.18, 0.3))
    outline = size * (0.55 + 0.45 * np.abs(np.cos(2.5 * theta)))
    img = _mix(np.clip(0.5 + (outline - r) / step, 0, 1), img, petals)
    img = _mix(np.clip(0.5 + (0.25 * size - r) / step, 0, 1), img, centres)
    # loose dots between the flowers: the print's pip-like spots
    dot = cell * float(rng.uniform(0.03, 0.08))
    ex, ey = np.mod(u + 0.5 * cell, cell / 2) - cell / 4, np.mod(v, cell / 2) - cell / 4
    dots = np.clip(0.5 + (dot - np.hypot(ex, ey)) / step, 0, 1) * (r > 1.2 * size)
    return _mix(dots.astype(np.float32), img, _colour(rng))


def _leather(grid: Grid, rng: np.random.Generator) -> np.ndarray:
    u, _, step = grid
    shape = u.shape
    base = np.array(rng.uniform([8, 10, 14], [40, 45, 60]), np.float32)
    if rng.random() < 0.3:  # brown leather
        base = np.array(rng.uniform([20, 35, 60], [45, 70, 110]), np.float32)
    pores = _noise(shape, rng, float(np.clip(1.5 / np.median(step), 1, 4)))
    grain = _noise(shape, rng, 6) * 0.5 + _noise(shape, rng, 25)
    creases = np.exp(-np.abs(_noise(shape, rng, 40)) * 30) * 0.35
    tex = 1 + 0.18 * pores + 0.15 * grain - creases
    img = base * tex[..., None]
    return img + _sheen(shape, rng, (20, 70), (0.25, 0.6))


def _glass(grid: Grid, rng: np.random.Generator) -> np.ndarray:
    """A dark glass top: the floor far below, lamps and a window reflected."""
    shape = grid[0].shape
    h, w = shape
    base = np.array(rng.uniform([10, 14, 12], [45, 55, 45]), np.float32)
    img = base * (1 + 0.2 * _noise(shape, rng, 120))[..., None]
    img = img + _sheen(shape, rng, (40, 140), (0.04, 0.12))  # a lamp's reflection
    for _ in range(int(rng.integers(1, 3))):  # a window: a bright soft quadrilateral
        quad = np.array([[rng.uniform(-0.2, 1.2) * w, rng.uniform(-0.2, 1.2) * h]
                         for _ in range(4)], np.float32)
        mask: np.ndarray = np.zeros(shape, np.float32)
        cv2.fillConvexPoly(mask, cv2.convexHull(quad.astype(np.int32)), 1.0)
        mask = cv2.GaussianBlur(mask, (0, 0), rng.uniform(3, 20))
        img = img + (mask * rng.uniform(25, 90))[..., None] * rng.uniform(0.8, 1.1, 3)
    return img


def _wood(grid: Grid, rng: np.random.Generator) -> np.ndarray:
    u, v, _ = grid
    base = np.array(rng.uniform([25, 50, 90], [90, 130, 200]), np.float32)
    wobble = _noise(u.shape, rng, 200) * rng.uniform(5, 20)
    rings = np.sin((u + wobble) / rng.uniform(1.5, 4)) * 0.5 + 0.5
    tex = 0.8 + 0.25 * rings * (0.6 + 0.4 * np.sin(v / rng.uniform(40, 150)) ** 2)
    seams = np.abs(np.mod(u, rng.uniform(90, 200)) - 1.0) < 1.0
    img = base * tex[..., None]
    img[seams] *= 0.55
    return img


def _knotty_wood(grid: Grid, rng: np.random.Generator) -> np.ndarray:
    """Wood grain with a few dark knots the grain bends round, glossy now and then."""
    u, v, _ = grid
    bend = np.zeros_like(u)
    knots = np.zeros_like(u)
    for _ in range(int(rng.integers(2, 7))):
        cu, cv = float(rng.uniform(u.min(), u.max())), float(rng.uniform(v.min(), v.max()))
        r = float(rng.uniform(4, 18))
        d2 = ((u - cu) / r) ** 2 + ((v - cv) / (2.2 * r)) ** 2
        bend += 3 * r * np.exp(-d2) * np.sign(u - cu)
        knots += np.clip(1.2 - d2, 0, 1)
    base = (np.array([55, 105, 165], np.float32) * rng.uniform(0.45, 1.2)
            * rng.uniform(0.9, 1.1, 3).astype(np.float32))
    grain = np.sin((u + bend + _noise(u.shape, rng, 120) * 8) / rng.uniform(1.2, 3)) * 0.5 + 0.5
    img = base * (0.82 + 0.22 * grain)[..., None] * (1 - 0.55 * np.clip(knots, 0, 1))[..., None]
    if rng.random() < 0.5:
        img = img + _sheen(u.shape, rng, (60, 180), (0.04, 0.15))
    return img


def _marble(grid: Grid, rng: np.random.Generator) -> np.ndarray:
    """Pale (or dark) stone with thin winding veins, glossy now and then."""
    u, v, _ = grid
    turb = _noise(u.shape, rng, 60) * 6 + _noise(u.shape, rng, 15) * 2
    veins = np.abs(np.sin((u * 0.7 + v * 0.3) / rng.uniform(8, 30) + turb))
    vein = np.clip(1 - veins / rng.uniform(0.08, 0.25), 0, 1)
    light = rng.random() < 0.7
    base = np.full(3, rng.uniform(200, 240) if light else rng.uniform(25, 60), np.float32)
    base = base * rng.uniform(0.92, 1.05, 3).astype(np.float32)
    ink = base * (0.55 if light else 2.6)
    img = _mix(vein.astype(np.float32), base * (1 + 0.04 * turb[..., None] / 6), ink)
    if rng.random() < 0.5:
        img = img + _sheen(u.shape, rng, (60, 180), (0.04, 0.15))
    return img


def _varnished(grid: Grid, rng: np.random.Generator) -> np.ndarray:
    img = _wood(grid, rng)
    return img + _sheen(grid[0].shape, rng, (90, 200), (0.05, 0.18))


def _felt(grid: Grid, rng: np.random.Generator) -> np.ndarray:
    shape = grid[0].shape
    base = np.array([(40, 110, 30), (130, 60, 25), (35, 30, 120), (40, 40, 45),
                     (90, 40, 40)][int(rng.integers(5))], np.float32)
    fibres = _noise(shape, rng, 1.2) * 0.12 + _noise(shape, rng, 12) * 0.06
    return base * (1 + fibres)[..., None]


def _sheen(shape: tuple[int, int], rng: np.random.Generator, strength: tuple[float, float],
           spread: tuple[float, float]) -> np.ndarray:
    """A lamp's soft highlight (BGR float): a bright oval somewhere in the frame."""
    h, w = shape
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    gx, gy = rng.uniform(0.1, 0.9) * w, rng.uniform(0.1, 0.9) * h
    sx, sy = rng.uniform(*spread) * w, rng.uniform(*spread) * h
    glow = np.exp(-((xx - gx) ** 2 / (2 * sx * sx) + (yy - gy) ** 2 / (2 * sy * sy)))
    return (glow * rng.uniform(*strength))[..., None] * np.array([1.0, 1.0, 0.97], np.float32)


_PATTERNS: dict[str, Callable[[Grid, np.random.Generator], np.ndarray]] = {
    "gingham": _gingham, "checks": _checks, "stripes": _stripes, "floral": _floral,
    "leather": _leather, "glass": _glass, "varnished": _varnished, "felt": _felt,
    "marble": _marble, "wood": _knotty_wood,
}


def draw_surface(kind: str, cam: Camera, rng: np.random.Generator) -> np.ndarray:
    """The table top of ``kind`` (one of :data:`SURFACES`, :data:`MORE_SURFACES`) seen
    through ``cam``: a float32 BGR image, 0-255. Where the plane runs past the horizon the
    pattern greys out."""
    if kind not in _PATTERNS:
        raise ValueError(f"unknown surface {kind!r}; choose from "
                         f"{', '.join(SURFACES + MORE_SURFACES)}")
    grid = plane_grid(cam, float(rng.uniform(0, np.pi)), rng.uniform(0, 500, 2))
    img = _PATTERNS[kind](grid, rng)
    return np.clip(img, 0, 255).astype(np.float32)


def pick_surface(rng: np.random.Generator) -> str:
    """One of :data:`SURFACES`, drawn evenly."""
    return SURFACES[int(rng.integers(len(SURFACES)))]


def webcam(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A finished uint8 frame as a cheap webcam streams it: a little soft (shot at a
    lower resolution, or out of focus), with sensor noise stronger in the dark and in
    colour, then JPEG-compressed at 40-85."""
    h, w = image.shape[:2]
    img: np.ndarray = image.astype(np.float32)
    if rng.random() < 0.5:  # a 720p sensor scaled, or a lens a little out of focus
        scale = float(rng.uniform(0.55, 0.85))
        small = cv2.resize(img, (int(w * scale), int(h * scale)), interpolation=cv2.INTER_AREA)
        img = cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)
    else:
        img = cv2.GaussianBlur(img, (0, 0), float(rng.uniform(0.5, 1.3)))
    luma = rng.normal(0, 1, (h, w, 1)).astype(np.float32)
    chroma = cv2.GaussianBlur(rng.normal(0, 1, (h, w, 3)).astype(np.float32), (0, 0), 1.5)
    dark = 1.5 - img.mean(axis=2, keepdims=True) / 255
    img = img + dark * (luma * rng.uniform(2, 6) + chroma * rng.uniform(2, 6))
    out = np.clip(img, 0, 255).astype(np.uint8)
    ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(40, 86))])
    if not ok:
        raise RuntimeError("JPEG encoding failed")
    return np.asarray(cv2.imdecode(buf, cv2.IMREAD_COLOR))
