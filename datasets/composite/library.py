"""Sprites to paste: those the photoreal renderer wrote (``python -m datasets.photoreal
sprites``) and tiles the painter draws on the spot.

A :class:`Sprite` is a small BGRA picture of one object with its shadow and where its
parts lie in its pixels: a tile's face (four corners, the first two at ``values[0]``'s
end), its halves and pips, a marker's outline, and ``light``: how bright each channel of
the sprite's tile body is against the body's own colour (1: lit as the painter's
surfaces are), so the compositor can light every sprite of a frame alike.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from datasets.textures import TileStyle, render_back, render_face
from engine.errors import BadInputError


@dataclass
class Sprite:
    """One object's picture (``rgba`` float32 BGR 0-255 + alpha 0-1), its ``shadow``
    (float32 0-1, how much it darkens what lies under it) and its geometry in pixels."""

    kind: str  # tile, back, marker, empty
    rgba: np.ndarray
    shadow: np.ndarray
    face: np.ndarray | None = None  # (4, 2) tile face, or a marker's outline
    footprint: np.ndarray | None = None  # (4, 2) where it stands on the table
    values: tuple[int, int] = (0, 0)
    pips: list[tuple[int, np.ndarray]] = field(default_factory=list)  # half, (4, 2) box
    light: np.ndarray = field(default_factory=lambda: np.ones(3, np.float32))
    marker: str = ""
    source: str = "painter"


def _points(meta: dict[str, Any], key: str) -> np.ndarray | None:
    return np.asarray(meta[key], np.float64).reshape(4, 2) if key in meta else None


def _box_corners(box: list[float]) -> np.ndarray:
    x0, y0, x1, y1 = box
    return np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float64)


def _body_light(rgba: np.ndarray, face: np.ndarray, body_rgb: list[float]) -> np.ndarray:
    """Per channel, the median of the face's brightest half against the body colour."""
    h, w = rgba.shape[:2]
    mask = np.zeros((h, w), np.uint8)
    centre = face.mean(axis=0)
    cv2.fillConvexPoly(mask, np.round(centre + 0.7 * (face - centre)).astype(np.int32), 1)
    pixels = rgba[..., :3][(mask > 0) & (rgba[..., 3] > 0.99)]
    body = np.asarray(body_rgb[::-1], np.float32) * 255
    if len(pixels) < 4:
        return np.ones(3, np.float32)
    luma = pixels.mean(axis=1)
    bright = pixels[luma >= np.median(luma)]
    return np.clip(np.median(bright, axis=0) / np.maximum(body, 1.0), 0.2, 3.0).astype(np.float32)


def load_sprite(meta_path: Path) -> Sprite:
    """A rendered sprite from its ``NAME.json`` (and the pictures beside it)."""
    meta = json.loads(meta_path.read_text(encoding="utf-8"))
    folder = meta_path.parent
    image = cv2.imread(str(folder / meta["image"]), cv2.IMREAD_UNCHANGED)
    if image is None:
        raise BadInputError(str(meta_path), "the sprite's picture is missing")
    if image.ndim == 2 or image.shape[2] == 3:
        rgb = image.reshape(*image.shape[:2], -1)[..., :3].astype(np.float32)
        alpha = np.ones((*image.shape[:2], 1), np.float32)
    else:
        rgb = image[..., :3].astype(np.float32)
        alpha = image[..., 3:].astype(np.float32) / 255
    shadow = np.zeros(image.shape[:2], np.float32)
    if "shadow" in meta:
        loaded = cv2.imread(str(folder / meta["shadow"]), cv2.IMREAD_GRAYSCALE)
        if loaded is not None:
            shadow = loaded.astype(np.float32) / 255
    kind = str(meta["kind"])
    values = meta.get("values", (0, 0))
    face = _points(meta, "face") if kind != "marker" else _points(meta, "outline")
    sprite = Sprite(kind=kind, rgba=np.concatenate([rgb, alpha], axis=2), shadow=shadow,
                    face=face, footprint=_points(meta, "footprint"),
                    values=(int(values[0]), int(values[1])),
                    pips=[(int(p["half"]), _box_corners(p["box"])) for p in meta.get("pips", [])],
                    marker=str(meta.get("marker", "")), source=str(meta["name"]))
    if kind in ("tile", "back") and face is not None:
        sprite.light = _body_light(sprite.rgba, face, meta["body"])
    return sprite


class SpriteLibrary:
    """The rendered sprites of one or more folders, by kind and by tile."""

    def __init__(self, folders: list[Path] | tuple[Path, ...] = (),
                 per_folder: int | None = None) -> None:
        """The sprites of ``folders``; with ``per_folder``, only the first that many of
        each (by name): a folder a render is still filling then gives the same library."""
        self.metas: list[Path] = []
        for folder in folders:
            if not Path(folder).is_dir():
                raise BadInputError(str(folder), "no such sprite folder")
            self.metas += sorted(Path(folder).glob("sprite_*.json"))[:per_folder]
        self.kinds: dict[str, list[int]] = {}
        self.tiles: dict[tuple[int, int], list[int]] = {}
        self.styles: list[str] = []
        for i, path in enumerate(self.metas):
            meta = json.loads(path.read_text(encoding="utf-8"))
            self.styles.append(str(meta.get("style", "")))
            self.kinds.setdefault(str(meta["kind"]), []).append(i)
            if meta["kind"] == "tile":
                a, b = meta["values"]
                self.tiles.setdefault((min(a, b), max(a, b)), []).append(i)
        self._cache: dict[int, Sprite] = {}

    def __len__(self) -> int:
        return len(self.metas)

    def sprite(self, i: int) -> Sprite:
        if i not in self._cache:
            self._cache[i] = load_sprite(self.metas[i])
        return self._cache[i]

    def count(self, kind: str) -> int:
        return len(self.kinds.get(kind, []))

    def _choose(self, ids: list[int], rng: np.random.Generator, style: str) -> Sprite | None:
        same = [i for i in ids if self.styles[i] == style]
        pool = same or ids
        return self.sprite(pool[int(rng.integers(len(pool)))]) if pool else None

    def pick(self, kind: str, rng: np.random.Generator, style: str = "") -> Sprite | None:
        """A sprite of ``kind`` at random (of set ``style`` when there is one), or None."""
        return self._choose(self.kinds.get(kind, []), rng, style)

    def pick_tile(self, values: tuple[int, int], rng: np.random.Generator,
                  style: str = "") -> Sprite | None:
        """A rendered tile showing ``values`` (either way round; of set ``style`` when
        there is one), or None."""
        return self._choose(self.tiles.get((min(values), max(values)), []), rng, style)


def tile_sprite_folders(sprites: Sequence[str | Path]) -> list[str]:
    """The sprite folders ``sprites``, resolved and sorted; raises ``BadInputError`` for
    one that is not a folder, or when none holds a rendered tile sprite."""
    folders = sorted(str(Path(f).resolve()) for f in sprites)
    for f in folders:
        if not Path(f).is_dir():
            raise BadInputError(f, "no such sprite folder")
    if not SpriteLibrary([Path(f) for f in folders]).count("tile"):
        raise BadInputError(", ".join(folders), "holds no rendered tile sprite")
    return folders


def painter_tile(values: tuple[int, int], style: TileStyle, width_px: int,
                 rng: np.random.Generator, face_down: bool = False) -> Sprite:
    """A tile drawn by the painter (``datasets.textures``): its face (or back) seen
    straight from above, ``width_px`` wide, with a thin darker side below it."""
    if face_down:
        face, alpha = render_back(style, width_px, rng)
        pips: list[tuple[int, float, float, float]] = []
    else:
        face, alpha, pips = render_face(values, style, width_px, rng)
    h, w = face.shape[:2]
    side = max(1, int(round(width_px * style.thickness * 0.25)))
    rgba = np.zeros((h + 2 * side, w + 2 * side, 4), np.float32)
    body = np.zeros_like(rgba[..., 3])
    body[side + side // 2: side + h + side, side: side + w] = 1
    rgba[..., :3] = np.asarray(style.face, np.float32) * 0.62
    rgba[..., 3] = cv2.GaussianBlur(body, (0, 0), 0.6)
    a = alpha.reshape(h, w, 1)
    region = rgba[side: side + h, side: side + w]
    region[..., :3] = face * a + region[..., :3] * (1 - a)
    region[..., 3] = np.maximum(region[..., 3], alpha.reshape(h, w))
    # the first two corners at values[0]'s end: render_face puts it on top
    corners = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64) + side
    boxes = [(int(half), _box_corners([x - r + side, y - r + side, x + r + side, y + r + side]))
             for half, x, y, r in pips]
    return Sprite(kind="back" if face_down else "tile", rgba=rgba,
                  shadow=np.zeros(rgba.shape[:2], np.float32), face=corners,
                  footprint=corners + [0, side], values=values, pips=boxes)
