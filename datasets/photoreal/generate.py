"""Write photoreal scenes to a folder: ``NAME.jpg`` + ``NAME.json`` (the painter's format),
and with ``bare`` the table before its first tile, ``NAME_bare.jpg``.

The scenes are described here (:mod:`datasets.photoreal.scene`), rendered by
Blender in its own Python (:mod:`datasets.photoreal.blender_scene`, run as a
child process of the render venv), then finished here: lens distortion, blur,
noise, JPEG (:mod:`datasets.photoreal.lens`). The scene descriptions and labels
depend on the seed only; the rendered pixels may differ in their noise.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from datasets.camera import Camera
from datasets.photoreal.faces import paint_face
from datasets.photoreal.labels import clear_view, scene_labels
from datasets.photoreal.looks import as_json
from datasets.photoreal.scene import PhotoScene, build_scene, scene_rng
from engine.errors import BadInputError

ROOT = Path(__file__).resolve().parents[2]
#: Where ``make render-env`` puts Blender's Python module.
RENDER_VENV = ROOT / ".venv-render"
#: Cycles samples per pixel (denoised afterwards).
SAMPLES = 12
MISSING = ("Blender's Python module (bpy) is not installed: run `make render-env` "
           "(a separate .venv-render with the optional extra `render`, ~1.6 GB), "
           "or set MTRAIN_RENDER_PYTHON to a Python that can import bpy")


def render_python() -> Path:
    """The Python that can import ``bpy``; :class:`BadInputError` saying how to get one."""
    named = os.environ.get("MTRAIN_RENDER_PYTHON")
    python = Path(named) if named else RENDER_VENV / "bin" / "python"
    if not python.exists():
        raise BadInputError("bpy", MISSING)
    probe = subprocess.run([str(python), "-c", "import bpy"], capture_output=True, text=True,
                           check=False)
    if probe.returncode != 0:
        raise BadInputError("bpy", MISSING)
    return python


def camera_json(scene: PhotoScene) -> dict[str, Any]:
    """Blender's camera for the webcam's pinhole canvas (:func:`blender_camera`)."""
    return blender_camera(scene.webcam.camera, scene.webcam.canvas[0])


def blender_camera(cam: Camera, cw: int) -> dict[str, Any]:
    """Blender's camera for pinhole ``cam`` rendering ``cw`` pixels wide: lens (36 mm
    sensor wide) and world matrix (metres; Blender cameras look down their ``-z``
    with ``y`` up)."""
    rot = np.stack([cam.r[0], -cam.r[1], -cam.r[2]], axis=1)
    world = np.eye(4)
    world[:3, :3] = rot
    world[:3, 3] = cam.c / 1000.0
    return {"lens": cam.focal * 36.0 / cw, "matrix_world": world.tolist()}


def _mat_json(scene: PhotoScene, folder: Path) -> dict[str, Any] | None:
    if scene.mat is None:
        return None
    from vision.mat.geometry import MAT_SIDE_MM
    from vision.mat.hub_mat import mat_image

    path = folder / f"mat{scene.players}.png"
    if not path.exists():
        cv2.imwrite(str(path), mat_image(scene.players, 4.0))
    half = MAT_SIDE_MM / 2
    sheet = np.array([[-half, -half, 1], [half, -half, 1], [half, half, 1], [-half, half, 1]])
    corners = sheet @ scene.mat.T
    return {"image": str(path), "corners": (corners[:, :2] / corners[:, 2:]).tolist()}


def render_job(scene: PhotoScene, folder: Path, output: Path, samples: int = SAMPLES,
               look_at: Sequence[float] | None = None) -> dict[str, Any]:
    """The JSON job the Blender side renders; face textures are written into ``folder``.
    ``look_at``: where the lamp aims (default: the middle of the tiles)."""
    rng = scene_rng(scene.seed, scene.index + 7_000_000)
    tiles = []
    for i, tile in enumerate(scene.tiles):
        entry: dict[str, Any] = {"corners": tile.corners.tolist(), "face_down": tile.face_down}
        if not tile.face_down:
            colour, height = paint_face(tile.values, scene.style, rng)
            entry["face"] = str(folder / f"s{scene.index}_face{i}.png")
            entry["height"] = str(folder / f"s{scene.index}_height{i}.png")
            cv2.imwrite(entry["face"], colour)
            cv2.imwrite(entry["height"], height)
        tiles.append(entry)
    return {
        "output": str(output), "samples": samples, "canvas": list(scene.webcam.canvas),
        "noise_seed": scene.seed * 1000 + scene.index, "camera": camera_json(scene),
        "style": as_json(scene.style), "surface": as_json(scene.surface),
        "lighting": as_json(scene.lighting),
        "look_at": _aim(scene) if look_at is None else list(look_at),
        "tiles": tiles, "mat": _mat_json(scene, folder),
        "markers": [{"kind": m.kind, "corners": m.corners.tolist(), "colour": list(m.colour)}
                    for m in scene.markers],
        "props": [{"kind": p.kind, "centre": list(p.centre), "angle": p.angle,
                   "size": list(p.size), "colour": list(p.colour)} for p in scene.props],
        "arms": [{"start": list(a.start), "end": list(a.end), "radius": a.radius,
                  "skin": list(a.skin), "sleeve": list(a.sleeve)} for a in scene.arms],
    }


def scene_name(seed: int, index: int) -> str:
    return f"photoreal_{seed}_{index:06d}"


#: What the bare table's picture of a scene is called: ``NAME`` + this + ``.jpg``.
BARE_SUFFIX = "_bare"


def bare_table(scene: PhotoScene) -> PhotoScene:
    """``scene`` before its first tile: the cloth, the mat and the props where they lie,
    seen by the same webcam under the same light; no tile, marker or arm."""
    return replace(scene, tiles=[], markers=[], arms=[])


def generate(out: str | Path, count: int, seed: int, mat: bool | None = None,
             surface: str | None = None, samples: int = SAMPLES, start: int = 0,
             python: Path | None = None, batch: int = 4, clear: bool = False,
             inline_doubles: float = 0.0, bare: bool = False, tables: bool = True
             ) -> list[Path]:
    """Render scenes ``start .. start + count - 1`` of ``seed`` into ``out``; returns the
    label files written. ``clear``: no arm or prop hides a tile; ``inline_doubles``: the
    share of doubles laid in line with their train; ``bare``: each scene's bare table
    too (:func:`bare_table`, ``NAME_bare.jpg``: the photo ``mtrain read --empty`` takes);
    ``tables=False``: the bare tables only (of scenes rendered before). Raises
    :class:`BadInputError` when bpy is not installed."""
    python = python or render_python()
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    indices = list(range(start, start + count))
    with tempfile.TemporaryDirectory(prefix="photoreal-") as tmp:
        work = Path(tmp)
        for lo in range(0, len(indices), batch):
            scenes = [build_scene(seed, i, mat, surface, inline_doubles)
                      for i in indices[lo:lo + batch]]
            if clear:
                scenes = [clear_view(s) for s in scenes]
            jobs = [render_job(s, work, work / f"{scene_name(seed, s.index)}.png", samples)
                    for s in scenes] if tables else []
            bares = [render_job(bare_table(s), work, work / f"{scene_name(seed, s.index)}"
                                f"{BARE_SUFFIX}.png", samples, _aim(s))
                     for s in scenes] if bare else []
            (work / "jobs.json").write_text(json.dumps(jobs + bares), encoding="utf-8")
            run_blender(python, work / "jobs.json")
            for scene, job in zip(scenes if tables else [], jobs, strict=True):
                written.append(_finish(scene, Path(job["output"]), folder))
            for scene, job in zip(scenes if bare else [], bares, strict=True):
                _finish_bare(scene, Path(job["output"]), folder)
    return written


def _aim(scene: PhotoScene) -> list[float]:
    """Where ``render_job`` aims the lamp of ``scene``: the middle of its tiles."""
    pts = np.concatenate([t.corners for t in scene.tiles] or [np.zeros((1, 2))])
    return [float(v) for v in pts.mean(axis=0)]


def run_blender(python: Path, jobs: Path) -> None:
    done = subprocess.run([str(python), "-m", "datasets.photoreal.blender_scene", str(jobs)],
                          cwd=ROOT, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()[-5:]
        raise RuntimeError("Blender failed: " + " | ".join(tail))


def _finished(scene: PhotoScene, raw: Path, rng: np.random.Generator) -> bytes:
    """The webcam's JPEG of the rendered canvas at ``raw`` (its lens, exposure, noise)."""
    canvas = cv2.imread(str(raw), cv2.IMREAD_COLOR)
    if canvas is None:
        raise RuntimeError(f"Blender wrote no picture at {raw}")
    image = scene.webcam.finish(canvas, scene.finish, rng)
    ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 95])
    if not ok:
        raise RuntimeError("JPEG encoding failed")
    return buf.tobytes()


def _finish_bare(scene: PhotoScene, raw: Path, folder: Path) -> Path:
    """The bare table's picture: the same webcam, a frame of its own (exposure, noise)."""
    path = folder / f"{scene_name(scene.seed, scene.index)}{BARE_SUFFIX}.jpg"
    path.write_bytes(_finished(scene, raw, scene_rng(scene.seed, scene.index + 11_000_000)))
    return path


def _finish(scene: PhotoScene, raw: Path, folder: Path) -> Path:
    name = scene_name(scene.seed, scene.index)
    jpeg = _finished(scene, raw, scene_rng(scene.seed, scene.index + 9_000_000))
    (folder / f"{name}.jpg").write_bytes(jpeg)
    label = folder / f"{name}.json"
    label.write_text(json.dumps(scene_labels(scene, f"{name}.jpg")), encoding="utf-8")
    return label


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m datasets.photoreal``: see ``--help``."""
    import argparse

    from datasets.photoreal.looks import SURFACES

    parser = argparse.ArgumentParser(
        prog="python -m datasets.photoreal",
        description="Render physically based table scenes (Blender Cycles on the CPU) with "
                    "label JSON files in the generator's format, plus the true table.")
    parser.add_argument("--out", required=True, help="folder for NAME.jpg + NAME.json")
    parser.add_argument("--count", type=int, required=True, help="scenes to render")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.add_argument("--start", type=int, default=0, help="first scene index (default 0)")
    parser.add_argument("--mat", action=argparse.BooleanOptionalAction, default=None,
                        help="lay every table on the printed mat (--no-mat: none; "
                             "default: half of them)")
    parser.add_argument("--surface", choices=SURFACES, help="table top (default: drawn)")
    parser.add_argument("--samples", type=int, default=SAMPLES,
                        help=f"Cycles samples per pixel (default {SAMPLES})")
    parser.add_argument("--clear-view", action="store_true",
                        help="no arm, mug or phone hides a tile (for scoring whole tables)")
    parser.add_argument("--bare", action="store_true",
                        help="also render each table bare, before its first tile "
                             "(NAME_bare.jpg, for mtrain read --empty)")
    parser.add_argument("--inline-doubles", type=float, default=0.0, metavar="SHARE",
                        help="share of doubles laid in line with their train, 0-1 "
                             "(default 0: every double across)")
    args = parser.parse_args(argv)
    try:
        if args.count < 1:
            raise BadInputError("--count", f"must be at least 1, got {args.count}")
        if args.seed < 0 or args.start < 0:
            raise BadInputError("--seed", "seed and start must be 0 or more")
        if not 0.0 <= args.inline_doubles <= 1.0:
            raise BadInputError("--inline-doubles", f"must be 0 to 1, got {args.inline_doubles}")
        labels = generate(args.out, args.count, args.seed, args.mat, args.surface,
                          args.samples, args.start, clear=args.clear_view,
                          inline_doubles=args.inline_doubles, bare=args.bare)
    except BadInputError as exc:
        print(f"error: {exc}")
        return 2
    print(f"wrote {len(labels)} photoreal scenes to {args.out}")
    return 0
