"""Composite one webcam frame from sprites laid out by a :class:`FramePlan`, with its labels.

The background is a surface (the painter's cloths, leather, glass, wood, felt, or a
rendered empty patch), perhaps the printed mat, under one light: a tint, a brightness
and a fall-off across the frame. Each object's sprite is warped so its face lands on
the face the plan puts there (a homography from the sprite's face corners), lit like
the background at that spot, over its own shadow and a contact shadow; then glare,
lens blur, sensor noise and a JPEG round trip. Labels are the plan's geometry in the
painter's format (``datasets.labels``): the tiles' face corners as laid, their pips,
markers, face-down tiles. A share of frames are hard negatives: an empty cloth or
the mat alone, perhaps with glare.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import cv2
import numpy as np

from datasets.camera import Camera
from datasets.composite.hand_plan import plan_hand
from datasets.composite.library import Sprite, SpriteLibrary, painter_tile
from datasets.composite.plan import (
    FRAME,
    HEIGHT_MM,
    FramePlan,
    Placed,
    plan_frame,
    set_shown,
    webcam_over,
)
from datasets.photoreal.looks import SET_STYLES, kelvin_rgb
from datasets.surfaces import SURFACES, draw_surface
from datasets.textures import TileStyle, background
from vision.mat.geometry import MAT_SIDE_MM
from vision.mat.hub_mat import mat_image

#: The ``kind`` of every composited label file.
KIND = "table-composite"
#: Share of frames that are hard negatives (nothing to find).
NEGATIVE_SHARE = 0.1
#: The ``kind`` of a composited hand photo's label file.
HAND_KIND = "hands-composite"
#: The set a composited hand is drawn from.
HAND_SET = 12
#: Least share of a face inside the frame for an object to be drawn (and labelled).
MIN_INSIDE = 0.6


@dataclass(frozen=True)
class Options:
    """``painter``: the share of tiles the painter draws (the rest are rendered sprites
    when the library has them); ``negatives``: the share of empty frames; ``hands``: a
    photo of one player's hand instead of a table (``datasets.composite.hand_plan``:
    every tile a rendered sprite of a double-``HAND_SET`` set, no empty frames)."""

    painter: float = 0.3
    negatives: float = NEGATIVE_SHARE
    size: tuple[int, int] = FRAME
    hands: bool = False


def frame_rng(seed: int, index: int) -> np.random.Generator:
    return np.random.default_rng([int(seed), int(index), 0x636F6D70])


def _lift(points: np.ndarray, z: float) -> np.ndarray:
    p = np.asarray(points, np.float64).reshape(-1, 2)
    return np.concatenate([p, np.full((len(p), 1), z)], axis=1)


def _area(poly: np.ndarray) -> float:
    x, y = poly[:, 0], poly[:, 1]
    return 0.5 * float(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1)))


def inside_share(poly: np.ndarray, size: tuple[int, int]) -> float:
    """The share of convex ``poly``'s area inside a ``size`` frame."""
    w, h = size
    frame = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    full = abs(_area(poly))
    if full <= 0:
        return 0.0
    inter, _ = cv2.intersectConvexConvex(poly.astype(np.float32), frame)
    return float(inter) / full


def _light_field(rng: np.random.Generator, size: tuple[int, int]) -> np.ndarray:
    """(h, w, 3) gains: the light's tint and brightness, falling off from its spot."""
    w, h = size
    tint = np.array(kelvin_rgb(float(rng.uniform(2700, 7000)))[::-1], np.float32)
    tint = tint / tint.mean()
    bright = float(rng.uniform(0.65, 1.2))
    yy, xx = np.mgrid[0:18, 0:32].astype(np.float32)
    cx, cy = rng.uniform(-8, 40), rng.uniform(-5, 23)
    fall = float(rng.uniform(0.0, 0.45))
    d = np.sqrt(((xx - cx) / 32) ** 2 + ((yy - cy) / 18) ** 2)
    small = bright * (1 - fall * np.clip(d, 0, 1.2) / 1.2)
    field = cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)
    return field[..., None] * tint


@lru_cache(maxsize=8)
def _mat(players: int) -> np.ndarray:
    return mat_image(players, 2.0).astype(np.float32)


def _background(rng: np.random.Generator, cam: Camera, library: SpriteLibrary,
                plan: FramePlan | None, surface: str | None = None) -> tuple[np.ndarray, str]:
    """The table top seen through ``cam`` (a rendered patch, the painter's background or
    one of ``datasets.surfaces``; ``surface``, when given, names the last), the mat on it
    when ``plan`` lays one; and its name."""
    w, h = cam.width, cam.height
    pick = rng.random() if surface is None else 1.0
    empty = library.pick("empty", rng) if pick < 0.25 else None
    if empty is not None:  # a rendered patch, mirrored out to the frame at its scale
        patch = empty.rgba[..., :3]
        scale = float(rng.uniform(0.8, 1.6))
        patch = cv2.resize(patch, None, fx=scale, fy=scale, interpolation=cv2.INTER_LINEAR)
        reps = (h // patch.shape[0] + 2, w // patch.shape[1] + 2)
        tiles = np.concatenate([np.concatenate([patch, patch[:, ::-1]], 1)] * (reps[1] // 2 + 1), 1)
        tiles = np.concatenate([tiles, tiles[::-1]], 0)
        tiles = np.concatenate([tiles] * (reps[0] // 2 + 1), 0)
        img = np.ascontiguousarray(tiles[:h, :w]) / np.maximum(empty.light, 0.2)
        name = f"rendered:{empty.source}"
    elif pick < 0.4:
        img = cv2.resize(background(w // 2, h // 2, rng), (w, h), interpolation=cv2.INTER_LINEAR)
        name = "painter"
    else:  # drawn at half size (4x faster), then blown up: the finish softens it anyway
        kind = SURFACES[int(rng.integers(len(SURFACES)))] if surface is None else surface
        half = Camera(np.diag([0.5, 0.5, 1.0]) @ cam.k, cam.r, cam.c, w // 2, h // 2)
        img = cv2.resize(draw_surface(kind, half, rng), (w, h), interpolation=cv2.INTER_LINEAR)
        name = kind
    if plan is not None and plan.mat is not None:
        sheet = _mat(plan.players)
        px = sheet.shape[0] / MAT_SIDE_MM
        to_mat = np.array([[px, 0, sheet.shape[0] / 2], [0, px, sheet.shape[0] / 2], [0, 0, 1]])
        to_image = cam.plane_homography() @ plan.mat @ np.linalg.inv(to_mat)
        warped = cv2.warpPerspective(sheet, to_image, (w, h), flags=cv2.INTER_LINEAR,
                                     borderValue=(-1, -1, -1))
        on = warped[..., :1] >= 0
        img = np.where(on, warped * float(rng.uniform(0.85, 1.0)), img)
        name += "+mat"
    return img.astype(np.float32), name


def _sprite_for(obj: Placed, library: SpriteLibrary, rng: np.random.Generator,
                style: TileStyle, painter: float, width_px: int, look: str,
                exact: bool = False) -> Sprite | None:
    """A sprite for ``obj``: a rendered one, or one the painter draws (``painter`` of the
    time); a tile with no rendered sprite of its values is sometimes shown by one of
    other values (the labels say which), never when ``exact``."""
    if obj.kind == "marker":
        sprites = [library.sprite(i) for i in library.kinds.get("marker", [])]
        same = [s for s in sprites if s.marker == obj.marker]
        pool = same or sprites
        return pool[int(rng.integers(len(pool)))] if pool else None
    if rng.random() >= painter:
        rendered = (library.pick_tile(obj.values, rng, look) if obj.kind == "tile"
                    else library.pick("back", rng, look))
        if rendered is None and obj.kind == "tile" and not exact and rng.random() < 0.5:
            rendered = library.pick("tile", rng, look)  # other values: the labels say which
        if rendered is not None:
            return rendered
    return painter_tile(obj.values, style, width_px, rng, face_down=obj.kind == "back")


def _source_points(sprite: Sprite, obj: Placed, target: np.ndarray) -> tuple[np.ndarray, bool]:
    """The sprite's face corners in the order of ``target``'s; whether its halves swap."""
    assert sprite.face is not None
    src = sprite.face
    swapped = obj.kind == "tile" and sprite.values != obj.values
    if swapped:
        src = np.roll(src, 2, axis=0)
    if np.sign(_area(src)) != np.sign(_area(target)):  # never show a tile mirrored
        src = src[[1, 0, 3, 2]]
    return src, swapped


class _Canvas:
    """The frame being composed: background, shadows, then the sprites over them."""

    def __init__(self, img: np.ndarray, light: np.ndarray) -> None:
        self.img = img * light
        self.light = light
        h, w = img.shape[:2]
        self.shade = np.zeros((h, w), np.float32)
        self.contact = np.zeros((h, w), np.uint8)
        self.layers: list[tuple[int, int, np.ndarray]] = []
        self.matte = np.zeros((h, w), np.float32)
        self.rendered = 0

    def place(self, sprite: Sprite, matrix: np.ndarray, shadow: float) -> None:
        h, w = self.shade.shape
        picture, cast_by = sprite.rgba, sprite.shadow
        sh, sw = picture.shape[:2]
        centre = np.array([[[sw / 2, sh / 2], [sw / 2 + 1, sh / 2], [sw / 2, sh / 2 + 1]]],
                          np.float32)
        p = cv2.perspectiveTransform(centre, matrix)[0]
        (ax, ay), (bx, by) = p[1] - p[0], p[2] - p[0]
        scale = float(np.sqrt(abs(ax * by - ay * bx)))
        if scale < 0.7:  # shrink by area first: a warp alone would alias the pips
            f = min(1.0, scale * 1.25)
            size = (max(2, int(round(sw * f))), max(2, int(round(sh * f))))
            picture = cv2.resize(picture, size, interpolation=cv2.INTER_AREA)
            cast_by = cv2.resize(cast_by, size, interpolation=cv2.INTER_AREA)
            fx, fy = size[0] / sw, size[1] / sh
            matrix = matrix @ np.diag([1 / fx, 1 / fy, 1.0])
            sh, sw = picture.shape[:2]
        box = cv2.perspectiveTransform(
            np.array([[[0, 0], [sw, 0], [sw, sh], [0, sh]]], np.float32), matrix)[0]
        x0, y0 = np.maximum(np.floor(box.min(0)).astype(int), 0)
        x1, y1 = np.minimum(np.ceil(box.max(0)).astype(int), [w, h])
        if x1 <= x0 or y1 <= y0:
            return
        shift = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]], np.float64) @ matrix
        size = (int(x1 - x0), int(y1 - y0))
        rgba = cv2.warpPerspective(picture, shift, size, flags=cv2.INTER_LINEAR)
        cast = cv2.warpPerspective(cast_by, shift, size, flags=cv2.INTER_LINEAR)
        region = self.shade[y0:y1, x0:x1]
        np.maximum(region, cast * shadow, out=region)
        lit = self.light[(y0 + y1) // 2, (x0 + x1) // 2]
        rgba[..., :3] *= lit / sprite.light
        self.layers.append((int(x0), int(y0), rgba))
        matte = self.matte[y0:y1, x0:x1]
        np.maximum(matte, rgba[..., 3], out=matte)
        self.rendered += sprite.source != "painter"

    def compose(self, rng: np.random.Generator) -> np.ndarray:
        sigma = float(rng.uniform(1.0, 3.0))
        contact = cv2.GaussianBlur(self.contact.astype(np.float32) / 255, (0, 0), sigma)
        strength = float(rng.uniform(0.25, 0.55))
        dark = (1 - strength * contact) * (1 - self.shade)
        img = self.img * dark[..., None]
        for x0, y0, rgba in self.layers:
            h, w = rgba.shape[:2]
            region = img[y0:y0 + h, x0:x0 + w]
            a = rgba[..., 3:]
            region[:] = rgba[..., :3] * a + region * (1 - a)
        return img


def _glare(img: np.ndarray, rng: np.random.Generator) -> None:
    """A lamp's reflection: a soft bright patch, sometimes a streak."""
    h, w = img.shape[:2]
    spot = np.zeros((h // 4, w // 4), np.float32)
    centre = (int(rng.uniform(0, w // 4)), int(rng.uniform(0, h // 4)))
    axes = (int(rng.uniform(4, 40)), int(rng.uniform(3, 25)))
    cv2.ellipse(spot, centre, axes, float(rng.uniform(0, 180)), 0, 360, 1.0, -1)
    spot = cv2.GaussianBlur(spot, (0, 0), float(rng.uniform(2, 10)))
    spot = cv2.resize(spot, (w, h), interpolation=cv2.INTER_LINEAR)
    img += spot[..., None] * float(rng.uniform(60, 220))


@lru_cache(maxsize=1)
def _noise_bank(h: int, w: int) -> np.ndarray:
    """Sensor noise to draw from (drawing a frame's worth each time costs more than
    the rest of the frame): fine grain in luma, blotchy in colour."""
    rng = np.random.default_rng(0x6E6F)
    luma = rng.normal(0, 1, (h + 64, w + 64, 1)).astype(np.float32)
    chroma = cv2.GaussianBlur(rng.normal(0, 1, (h + 64, w + 64, 3)).astype(np.float32),
                              (0, 0), 1.5) * 2.5
    return luma + chroma


def finish(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A webcam's finish of a float BGR frame: soft (lens blur or a smaller sensor scaled
    up), vignetting, noise stronger in the dark, JPEG at quality 40-90; BGR uint8."""
    h, w = img.shape[:2]
    if rng.random() < 0.4:
        scale = float(rng.uniform(0.55, 0.85))
        small = cv2.resize(img, (int(w * scale), int(h * scale)), interpolation=cv2.INTER_AREA)
        img = cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)
    else:
        img = cv2.GaussianBlur(img, (0, 0), float(rng.uniform(0.4, 1.4)))
    bank = _noise_bank(h, w)
    dy, dx = int(rng.integers(64)), int(rng.integers(64))
    noise = bank[dy:dy + h, dx:dx + w]
    if rng.random() < 0.5:
        noise = noise[::-1, ::-1]
    dark = 1.6 - cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)[..., None] / 255
    img = img + dark * noise * float(rng.uniform(1.5, 5.0))
    out = np.clip(img, 0, 255).astype(np.uint8)
    ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(40, 91))])
    if not ok:
        raise RuntimeError("JPEG encoding failed")
    return np.asarray(cv2.imdecode(buf, cv2.IMREAD_COLOR))


def _pip_labels(sprite: Sprite, matrix: np.ndarray, swapped: bool, tile: int,
                size: tuple[int, int]) -> list[dict[str, Any]]:
    out = []
    for half, corners in sprite.pips:
        pts = cv2.perspectiveTransform(corners.reshape(1, -1, 2).astype(np.float32), matrix)[0]
        x0, y0 = pts.min(axis=0)
        x1, y1 = pts.max(axis=0)
        if not (0 <= (x0 + x1) / 2 < size[0] and 0 <= (y0 + y1) / 2 < size[1]):
            continue
        out.append({"tile": tile, "half": (1 - half) if swapped else half,
                    "box": [round(float(v), 2) for v in (x0, y0, x1, y1)]})
    return out


def _round(points: np.ndarray) -> list[list[float]]:
    return [[round(float(x), 2), round(float(y), 2)] for x, y in np.asarray(points).reshape(-1, 2)]


def _object_rng(steady: int, obj: Placed) -> np.random.Generator:
    """The sprite draw of ``obj`` in every frame of a sequence ``steady``: one per tile
    (by its values), face-down tile and marker kind."""
    values = sorted(obj.values) if obj.kind == "tile" else [0, 0]
    return np.random.default_rng([steady, zlib.crc32(f"{obj.kind}:{obj.marker}".encode()),
                                  *values])


def _draw_objects(canvas: _Canvas, plan: FramePlan, library: SpriteLibrary,
                  rng: np.random.Generator, painter: float, labels: dict[str, Any],
                  steady: int | None = None) -> bool:
    """Place every object in view; fill ``labels``; whether every tile shows its values.
    With ``steady`` (a seed), each object's sprite is drawn by :func:`_object_rng`, so the
    same tile looks the same in every frame drawn with it and shows its own values."""
    cam = plan.camera
    size = (cam.width, cam.height)
    style = TileStyle.random(rng)
    look = str(rng.choice(SET_STYLES, p=[0.55, 0.3, 0.15]))  # one set per table, mostly
    width_px = max(12, int(round(plan.tile_px / 2)))
    exact = True
    light_dir = rng.normal(0, 1, 2)
    light_dir = light_dir / max(float(np.linalg.norm(light_dir)), 1e-6) * rng.uniform(0.5, 2.5)
    shadow = float(rng.uniform(0.5, 1.0))
    for obj in plan.objects:
        height = HEIGHT_MM[obj.marker or obj.kind]
        z = height / 2 if obj.kind == "marker" else height
        target = cam.project(_lift(obj.corners, z))
        share = inside_share(target, size)
        if share < MIN_INSIDE or (cam.depth(_lift(obj.corners, z)) <= 0).any():
            continue
        pick = rng if steady is None else _object_rng(steady, obj)
        sprite = _sprite_for(obj, library, pick, style, painter, width_px, look,
                             exact=steady is not None)
        if sprite is None or sprite.face is None:
            continue
        src, swapped = _source_points(sprite, obj, target)
        matrix = cv2.getPerspectiveTransform(src.astype(np.float32), target.astype(np.float32))
        canvas.place(sprite, matrix, shadow)
        foot = cam.project(_lift(obj.corners, 0.0)) + light_dir
        cv2.fillConvexPoly(canvas.contact, np.round(foot * 4).astype(np.int32), 255,
                           cv2.LINE_AA, 2)
        entry = {"corners": _round(target), "visible": round(min(share, 1.0), 3)}
        if obj.kind == "marker":
            labels["markers"].append({**entry, "kind": sprite.marker or obj.marker})
        elif obj.kind == "back":
            labels["face_down"].append(entry)
        else:
            values = sprite.values[::-1] if swapped else sprite.values
            exact = exact and tuple(values) == tuple(obj.values)
            labels["pips"] += _pip_labels(sprite, matrix, swapped, len(labels["tiles"]), size)
            labels["tiles"].append({"values": [int(values[0]), int(values[1])], **entry})
    return exact


def compose_frame(library: SpriteLibrary, seed: int, index: int,
                  options: Options | None = None) -> tuple[np.ndarray, dict[str, Any]]:
    """Frame ``index`` of ``seed`` (BGR uint8) and its label dict (without ``image``)."""
    frame, labels, _ = compose_with_matte(library, seed, index, options)
    return frame, labels


def compose_with_matte(library: SpriteLibrary, seed: int, index: int,
                       options: Options | None = None
                       ) -> tuple[np.ndarray, dict[str, Any], np.ndarray]:
    """:func:`compose_frame` and the frame's object matte (float32 0-1: where a sprite
    covers the table, before the finish)."""
    options = options or Options()
    rng = frame_rng(seed, index)
    if options.hands:
        return _compose_hand(library, rng, seed, index, options)
    negative = bool(rng.random() < options.negatives)
    plan = None if negative else plan_frame(rng, options.size)
    cam = plan.camera if plan else webcam_over(rng, np.zeros(2), float(rng.uniform(45, 160)),
                                               options.size)
    if negative and rng.random() < 0.4:  # the printed mat alone
        plan = FramePlan([], cam, 12, int(rng.integers(2, 9)), None,
                         np.array([[1.0, 0, 0], [0, 1, 0], [0, 0, 1]]) @ _turn(rng), 80.0)
    img, surface = _background(rng, cam, library, plan)
    canvas = _Canvas(img, _light_field(rng, options.size))
    w, h = options.size
    labels: dict[str, Any] = {"width": w, "height": h, "kind": KIND, "tiles": [], "pips": [],
                              "markers": [], "face_down": []}
    painter = min(1.0, options.painter * float(rng.choice([0.0, 1.0, 2.5], p=[0.35, 0.45, 0.2])))
    exact = _draw_objects(canvas, plan, library, rng, painter, labels) if plan else True
    img = canvas.compose(rng)
    if rng.random() < (0.5 if negative else 0.25):
        _glare(img, rng)
    frame = finish(img, rng)
    labels.update({
        "set": set_shown(plan.set_max, labels["tiles"]) if plan else 12,
        "table": plan.table if plan is not None and exact and plan.objects else None,
        "players": plan.players if plan else 0,
        "composite": {"seed": seed, "index": index, "negative": negative, "surface": surface,
                      "mat": plan is not None and plan.mat is not None, "painter": painter,
                      "rendered": canvas.rendered},
    })
    return frame, labels, canvas.matte


def hand_values(library: SpriteLibrary, set_max: int = HAND_SET) -> list[tuple[int, int]]:
    """The tiles of a double-``set_max`` set the library has rendered sprites of."""
    return [v for v in library.tiles if max(v) <= set_max]


def _compose_hand(library: SpriteLibrary, rng: np.random.Generator, seed: int, index: int,
                  options: Options) -> tuple[np.ndarray, dict[str, Any], np.ndarray]:
    """A photo of one player's hand (``Options.hands``): rendered tiles only."""
    plan = plan_hand(rng, hand_values(library), HAND_SET, options.size)
    img, surface = _background(rng, plan.camera, library, plan)
    canvas = _Canvas(img, _light_field(rng, options.size))
    w, h = options.size
    labels: dict[str, Any] = {"width": w, "height": h, "kind": HAND_KIND, "tiles": [],
                              "pips": [], "markers": [], "face_down": []}
    _draw_objects(canvas, plan, library, rng, 0.0, labels)
    img = canvas.compose(rng)
    if rng.random() < 0.25:
        _glare(img, rng)
    frame = finish(img, rng)
    labels.update({"set": HAND_SET, "table": None, "players": 1,
                   "composite": {"seed": seed, "index": index, "negative": False,
                                 "surface": surface, "mat": False, "painter": 0.0,
                                 "rendered": canvas.rendered,
                                 "tilt": plan.extras.get("tilt")}})
    return frame, labels, canvas.matte


def _turn(rng: np.random.Generator) -> np.ndarray:
    a = float(rng.uniform(0, 2 * np.pi))
    c, s = np.cos(a), np.sin(a)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])
