"""A library of sprites rendered by the photoreal renderer: single tiles, backs, markers
and empty patches of table top, each with its matte, its shadow and where its parts lie.

``python -m datasets.photoreal sprites OUT --count N [--seed S] [--start I]`` renders
sprites ``I .. I + N - 1`` of seed ``S`` into ``OUT``; a sprite already there is
skipped, so a long run can be stopped and started again. Sprite ``i`` of a seed is
always the same description (its pixels differ only in render noise):

- ``tile``: a face-up tile; its values go round every pair of a double-15 set (so every
  tile of double-6 to double-15 sets), with the set's style (colour-coded, all-black,
  faint; the ways sets print 10 to 12), the light (lamp, daylight, ceiling panel), and
  a webcam straight above or tilted, at a height that makes the tile 60-240 px long;
- ``back``: a tile lying face down; ``marker``: a coin, toy train, pawn or block;
- ``empty``: a patch of one of the surfaces, nothing on it (a background).

Each sprite is ``NAME.png`` (BGRA: the object's colour and matte; an ``empty`` patch is
BGR), ``NAME_shadow.png`` (how much the object's shadow darkens what lies under it,
0-255) and ``NAME.json`` (:func:`sprite_meta`: kind, values, style, light, camera,
and the pixel corners of the tile's face and halves, its pips, a marker's outline).
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from datasets.camera import Camera
from datasets.photoreal.faces import face_point, paint_face, pip_circles
from datasets.photoreal.generate import blender_camera, render_python, run_blender
from datasets.photoreal.looks import (
    Lighting,
    SetStyle,
    Surface,
    as_json,
    pick_lighting,
    pick_set_style,
    pick_surface,
)
from datasets.table_layout import TILE_WIDTH_MM
from datasets.table_scene import tile_corners
from engine.errors import BadInputError

#: The largest set whose every tile the library renders (double-6 to double-15 are in it).
SPRITE_SET_MAX = 15
PAIRS: tuple[tuple[int, int], ...] = tuple(
    (a, b) for a in range(SPRITE_SET_MAX + 1) for b in range(a, SPRITE_SET_MAX + 1))
#: Kinds of sprite, and the marker kinds rendered.
KINDS = ("tile", "back", "marker", "empty")
SPRITE_MARKERS = ("coin", "toy-train", "pawn", "block")
#: Marker footprints (length, width) and heights, millimetres.
_MARKER_MM = {"coin": (23.0, 23.0, 2.0), "toy-train": (40.0, 18.0, 22.0),
              "pawn": (18.0, 18.0, 25.0), "block": (16.0, 16.0, 14.0)}
#: Every run of 20 sprites: 14 tiles, 2 backs, 3 markers, 1 empty patch.
_CYCLE = ("tile",) * 14 + ("back",) * 2 + ("marker",) * 3 + ("empty",)
#: A 720p webcam's width: sprites are seen with its focal length.
WEBCAM_WIDTH = 1280
#: A tile's length in pixels: a webcam's 720p frame of a table (~80 px) to 3x that.
TILE_PX = (70.0, 240.0)
#: Cycles samples per pixel (denoised).
SPRITE_SAMPLES = 16


@dataclass(frozen=True)
class SpriteSpec:
    """One sprite to render: what lies at the origin, in what look and light, and the
    camera (``canvas`` square pixels) that sees it."""

    seed: int
    index: int
    kind: str
    values: tuple[int, int]
    marker: str
    corners: np.ndarray  # (4, 2) mm: the tile's or marker's footprint
    height_mm: float  # how tall it stands
    style: SetStyle
    surface: Surface
    lighting: Lighting
    camera: Camera
    tilt: float
    colour: tuple[float, float, float]

    @property
    def name(self) -> str:
        return sprite_name(self.seed, self.index)


def sprite_name(seed: int, index: int) -> str:
    return f"sprite_{seed}_{index:06d}"


def sprite_rng(seed: int, index: int) -> np.random.Generator:
    return np.random.default_rng([int(seed), int(index), 0x73707269])


def sprite_kind(index: int) -> str:
    return _CYCLE[index % len(_CYCLE)]


def sprite_values(index: int) -> tuple[int, int]:
    """The pair a tile sprite shows: consecutive tile sprites go round every pair."""
    block, slot = divmod(index, len(_CYCLE))
    k = block * _CYCLE.count("tile") + min(slot, _CYCLE.count("tile") - 1)
    return PAIRS[(k * 37) % len(PAIRS)]


def build_sprite(seed: int, index: int, tile_px: tuple[float, float] = TILE_PX) -> SpriteSpec:
    """Sprite ``index`` of ``seed``: the same arguments always give the same sprite.
    ``tile_px``: the range of a tile's length in pixels (drawn evenly in its log)."""
    rng = sprite_rng(seed, index)
    kind = sprite_kind(index)
    style = pick_set_style(rng)
    surface = pick_surface(rng)
    lighting = pick_lighting(rng, np.zeros(2))
    angle = float(rng.uniform(0, 2 * np.pi))
    width = TILE_WIDTH_MM * style.scale
    block, slot = divmod(index, len(_CYCLE))
    marker = SPRITE_MARKERS[(block * 3 + slot) % len(SPRITE_MARKERS)]
    if kind == "marker":
        length, side, height = _MARKER_MM[marker]
        d = np.array([np.cos(angle), np.sin(angle)]) * length / 2
        p = np.array([-np.sin(angle), np.cos(angle)]) * side / 2
        corners = np.stack([-d - p, -d + p, d + p, d - p])
    else:
        corners = tile_corners(np.zeros(2), angle, width)
        height = style.thickness_mm
    # the webcam's focal length; far enough that the tile is tile_px long
    fov = float(rng.uniform(55, 80))
    focal = 0.5 * WEBCAM_WIDTH / np.tan(np.radians(fov) / 2)
    length_px = float(np.exp(rng.uniform(np.log(tile_px[0]), np.log(tile_px[1]))))
    distance = focal * 2 * width / length_px
    tilt = float(rng.uniform(8, 30) if rng.random() < 0.4 else abs(rng.normal(0, 4)))
    side_px = int(np.ceil(length_px * (2.2 if kind == "empty" else 1.6) / 8) * 8)
    canvas_fov = float(np.degrees(2 * np.arctan(0.5 * side_px / focal)))
    cam = Camera.look_at(side_px, side_px, canvas_fov, (0.0, 0.0), distance, tilt,
                         float(rng.uniform(0, 360)), float(rng.normal(0, 2)))
    colour = tuple(float(v) for v in rng.uniform(0.05, 0.9, 3))
    values = sprite_values(index) if kind == "tile" else (0, 0)
    if kind == "tile" and rng.random() < 0.5:
        values = (values[1], values[0])
    return SpriteSpec(seed, index, kind, values, marker if kind == "marker" else "",
                      corners, float(height), style, surface, lighting, cam, tilt,
                      (colour[0], colour[1], colour[2]))


def sprite_job(spec: SpriteSpec, work: Path, samples: int = SPRITE_SAMPLES,
               threads: int = 2) -> dict[str, Any]:
    """The Blender job of one sprite (textures are written into ``work``)."""
    tiles: list[dict[str, Any]] = []
    markers: list[dict[str, Any]] = []
    if spec.kind in ("tile", "back"):
        entry: dict[str, Any] = {"corners": spec.corners.tolist(),
                                 "face_down": spec.kind == "back"}
        if spec.kind == "tile":
            colour, height = paint_face(spec.values, spec.style, sprite_rng(spec.seed,
                                                                             spec.index + 1))
            entry["face"] = str(work / f"{spec.name}_face.png")
            entry["height"] = str(work / f"{spec.name}_height.png")
            cv2.imwrite(entry["face"], colour)
            cv2.imwrite(entry["height"], height)
        tiles.append(entry)
    elif spec.kind == "marker":
        markers.append({"kind": spec.marker, "corners": spec.corners.tolist(),
                        "colour": list(spec.colour)})
    job: dict[str, Any] = {
        "output": str(work / f"{spec.name}.png"), "samples": samples, "threads": threads,
        "canvas": [spec.camera.width, spec.camera.height],
        "noise_seed": spec.seed * 100_000 + spec.index,
        "camera": blender_camera(spec.camera, spec.camera.width),
        "style": as_json(spec.style), "surface": as_json(spec.surface),
        "lighting": as_json(spec.lighting), "look_at": [0.0, 0.0], "tiles": tiles,
        "mat": None, "markers": markers, "props": [], "arms": [],
    }
    if spec.kind != "empty":
        job["matte_output"] = str(work / f"{spec.name}_matte.png")
    return job


def _lift(points: np.ndarray, z: float) -> np.ndarray:
    p = np.asarray(points, np.float64).reshape(-1, 2)
    return np.concatenate([p, np.full((len(p), 1), z)], axis=1)


def _pixels(points: np.ndarray) -> list[list[float]]:
    return [[round(float(x), 2), round(float(y), 2)] for x, y in np.asarray(points).reshape(-1, 2)]


def sprite_meta(spec: SpriteSpec) -> dict[str, Any]:
    """The sprite's JSON: what it is and where its parts lie in its pixels."""
    cam = spec.camera
    meta: dict[str, Any] = {
        "name": spec.name, "image": f"{spec.name}.png", "kind": spec.kind,
        "width": cam.width, "height": cam.height, "seed": spec.seed, "index": spec.index,
        "style": spec.style.name, "body": list(spec.style.body),
        "surface": spec.surface.kind, "light": spec.lighting.kind,
        "light_colour": list(spec.lighting.colour),
        "camera": {"distance_mm": round(float(np.linalg.norm(cam.c)), 1),
                   "tilt": round(spec.tilt, 2), "focal_px": round(cam.focal, 2)},
    }
    if spec.kind == "empty":
        meta["px_per_mm"] = round(cam.focal / float(np.linalg.norm(cam.c)), 4)
        return meta
    meta["shadow"] = f"{spec.name}_shadow.png"
    meta["footprint"] = _pixels(cam.project(_lift(spec.corners, 0.0)))
    if spec.kind == "marker":
        meta["marker"] = spec.marker
        meta["outline"] = _pixels(cam.project(_lift(spec.corners, spec.height_mm / 2)))
        return meta
    c = spec.corners
    top = spec.height_mm
    meta["face"] = _pixels(cam.project(_lift(c, top)))
    if spec.kind == "back":
        return meta
    m0, m1 = (c[0] + c[3]) / 2, (c[1] + c[2]) / 2
    meta["values"] = [int(spec.values[0]), int(spec.values[1])]
    meta["halves"] = [_pixels(cam.project(_lift(np.stack(h), top)))
                      for h in ((c[0], c[1], m1, m0), (m0, m1, c[2], c[3]))]
    meta["pips"] = _pip_boxes(spec)
    return meta


def _pip_boxes(spec: SpriteSpec) -> list[dict[str, Any]]:
    c = spec.corners
    length = float(np.linalg.norm(c[3] - c[0]))
    width = float(np.linalg.norm(c[1] - c[0]))
    t = np.linspace(0, 2 * np.pi, 12, endpoint=False)
    out = []
    for half, u, v, r in pip_circles(spec.values, spec.style):
        ring = face_point(c, u + r * np.cos(t), v + r * np.sin(t) * length / width)
        pix = spec.camera.project(_lift(ring, spec.height_mm))
        x0, y0 = pix.min(axis=0)
        x1, y1 = pix.max(axis=0)
        out.append({"half": half, "box": [round(float(x), 2) for x in (x0, y0, x1, y1)]})
    return out


def split_shadow(rendered: np.ndarray, matte: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The sprite (BGRA uint8: the object's colour, its own matte) and its shadow (uint8,
    how much it darkens what is under it) from the render over a shadow-catching table
    (``rendered``, BGRA: the shadow is black in its alpha) and the objects' matte
    (``matte``, BGRA rendered without the table)."""
    a_all = rendered[..., 3:].astype(np.float32) / 255
    a_obj = matte[..., 3:].astype(np.float32) / 255
    colour = rendered[..., :3].astype(np.float32) * a_all / np.maximum(a_obj, 1 / 255)
    raw = np.clip((a_all - a_obj) / np.maximum(1 - a_obj, 1e-3), 0, 1)
    shadow = cv2.GaussianBlur(raw, (0, 0), 1.0)[..., None]  # the catcher's noise
    shadow[a_obj > 0.98] = 0
    sprite = np.concatenate([np.clip(colour, 0, 255), a_obj * 255], axis=2)
    return (np.round(sprite).astype(np.uint8),
            np.round(shadow[..., 0] * 255).astype(np.uint8))


def _finish(spec: SpriteSpec, job: dict[str, Any], out: Path) -> Path:
    rendered = cv2.imread(job["output"], cv2.IMREAD_UNCHANGED)
    if rendered is None:
        raise RuntimeError(f"Blender wrote no picture at {job['output']}")
    png = [cv2.IMWRITE_PNG_COMPRESSION, 9]
    if spec.kind == "empty":
        cv2.imwrite(str(out / f"{spec.name}.png"), rendered[..., :3], png)
    else:
        matte = cv2.imread(job["matte_output"], cv2.IMREAD_UNCHANGED)
        if matte is None or matte.shape[2] != 4 or rendered.shape[2] != 4:
            raise RuntimeError(f"Blender wrote no matte for {spec.name}")
        sprite, shadow = split_shadow(rendered, matte)
        cv2.imwrite(str(out / f"{spec.name}.png"), sprite, png)
        cv2.imwrite(str(out / f"{spec.name}_shadow.png"), shadow, png)
    label = out / f"{spec.name}.json"
    label.write_text(json.dumps(sprite_meta(spec)), encoding="utf-8")
    return label


def render_sprites(out: str | Path, count: int, seed: int, start: int = 0,
                   samples: int = SPRITE_SAMPLES, batch: int = 16, threads: int = 2,
                   tile_px: tuple[float, float] = TILE_PX,
                   python: Path | None = None) -> list[Path]:
    """Render sprites ``start .. start + count - 1`` of ``seed`` into ``out``, skipping
    those already there; returns the metadata files written. Raises
    :class:`BadInputError` when bpy is not installed."""
    folder = Path(out)
    todo = [i for i in range(start, start + count)
            if not (folder / f"{sprite_name(seed, i)}.json").exists()]
    if not todo:
        return []
    python = python or render_python()
    folder.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    with tempfile.TemporaryDirectory(prefix="sprites-") as tmp:
        work = Path(tmp)
        for lo in range(0, len(todo), batch):
            specs = [build_sprite(seed, i, tile_px) for i in todo[lo:lo + batch]]
            jobs = [sprite_job(s, work, samples, threads) for s in specs]
            (work / "jobs.json").write_text(json.dumps(jobs), encoding="utf-8")
            run_blender(python, work / "jobs.json")
            written += [_finish(s, j, folder) for s, j in zip(specs, jobs, strict=True)]
    return written


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m datasets.photoreal sprites``: see ``--help``."""
    import argparse

    parser = argparse.ArgumentParser(
        prog="python -m datasets.photoreal sprites",
        description="Render single tiles, backs, markers and empty surface patches with "
                    "their mattes, shadows and metadata (a sprite library for "
                    "datasets.composite). Sprites already in OUT are skipped.")
    parser.add_argument("out", help="folder for NAME.png, NAME_shadow.png, NAME.json")
    parser.add_argument("--count", type=int, default=20, help="sprites (default 20)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.add_argument("--start", type=int, default=0, help="first sprite index (default 0)")
    parser.add_argument("--samples", type=int, default=SPRITE_SAMPLES,
                        help=f"Cycles samples per pixel (default {SPRITE_SAMPLES})")
    parser.add_argument("--threads", type=int, default=2, help="render threads (default 2)")
    parser.add_argument("--tile-px", type=float, nargs=2, default=TILE_PX, metavar=("LO", "HI"),
                        help="range of a tile's length in pixels (default %(default)s)")
    args = parser.parse_args(argv)
    try:
        if args.count < 1:
            raise BadInputError("--count", f"must be at least 1, got {args.count}")
        if args.seed < 0 or args.start < 0:
            raise BadInputError("--seed", "seed and start must be 0 or more")
        if args.samples < 1 or args.threads < 1:
            raise BadInputError("--samples", "samples and threads must be at least 1")
        if not 16 <= args.tile_px[0] <= args.tile_px[1] <= 1000:
            raise BadInputError("--tile-px", "needs 16 <= LO <= HI <= 1000")
        written = render_sprites(args.out, args.count, args.seed, args.start, args.samples,
                                 threads=args.threads, tile_px=tuple(args.tile_px))
    except BadInputError as exc:
        print(f"error: {exc}")
        return 2
    print(f"wrote {len(written)} sprites to {args.out}")
    return 0
