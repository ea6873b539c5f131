"""How many pixels across one pip a 12-pip half needs to be read right.

    .venv/bin/python -m benchmarks.pip_scale [--scenes N]

Rendered tables (``datasets.render.render_table`` at 1920x1080, seeds from
``SEED_BASE`` on, never used in training) are shrunk step by step (``cv2.INTER_AREA``,
as a camera with fewer pixels would see them) and every fully visible half showing 12
pips is read exactly where it lies (``TileReader.read_at``, the reader in
``models/``): as shrunk (``sharp``), and with a webcam's softness, sensor noise and
JPEG added after shrinking (``webcam``: ``WEBCAM_BLUR``, ``WEBCAM_NOISE``,
``WEBCAM_JPEG``). Halves are binned by pixels per pip (tile width in pixels x
``PIP_MM / TILE_WIDTH_MM``); the result is the smallest bin from which every larger
one reads at least ``TARGET`` of its 12s right. Writes
``benchmarks/results/pip_scale.json``; ``vision.tracking.camera_plan`` quotes the figures.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import numpy as np

from vision.tracking.camera_plan import PIP_MM, TILE_WIDTH_MM

ROOT = Path(__file__).resolve().parent.parent

SEED_BASE = 2_700_000
RESULTS = ROOT / "benchmarks" / "results" / "pip_scale.json"
SCALES = (1.0, 0.65, 0.42, 0.3, 0.25, 0.2, 0.17, 0.14, 0.12, 0.1)
#: Bins of pixels per pip (lower edges).
BINS = (0.75, 1.0, 1.25, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0)
TARGET = 0.99
#: A webcam's softness (Gaussian sigma, pixels), noise (grey levels) and JPEG quality.
WEBCAM_BLUR, WEBCAM_NOISE, WEBCAM_JPEG = 0.7, 4.0, 80


def _webcam(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    import cv2

    soft = cv2.GaussianBlur(image, (0, 0), WEBCAM_BLUR).astype(np.float32)
    noisy = np.clip(soft + rng.normal(0.0, WEBCAM_NOISE, soft.shape), 0, 255).astype(np.uint8)
    ok, data = cv2.imencode(".jpg", noisy, [cv2.IMWRITE_JPEG_QUALITY, WEBCAM_JPEG])
    return np.asarray(cv2.imdecode(data, cv2.IMREAD_COLOR)) if ok else noisy


def _needed(right: np.ndarray, total: np.ndarray) -> tuple[list[float | None], float | None]:
    rates = [float(r / n) if n else None for r, n in zip(right, total, strict=True)]
    needed = None
    for b in range(len(BINS) - 1, -1, -1):
        if total[b] and (rates[b] or 0.0) < TARGET:
            break
        if total[b]:
            needed = BINS[b]
    return rates, needed


def measure(scenes: int) -> dict[str, Any]:
    import cv2

    from datasets.render import render_table
    from vision.reading.reader import TileReader

    reader = TileReader(ROOT / "models")
    right = {kind: np.zeros(len(BINS), int) for kind in ("sharp", "webcam")}
    total = np.zeros(len(BINS), int)
    noise = np.random.default_rng(SEED_BASE)
    for i in range(scenes):
        scene = render_table(np.random.default_rng(SEED_BASE + i), size=(1920, 1080))
        twelves = [t for t in scene.tiles if 12 in t.values and t.visible >= 0.999
                   and not t.face_down and min(t.half_visible) >= 0.999]
        if not twelves:
            continue
        corners = np.array([t.corners for t in twelves], np.float32)
        width = np.linalg.norm(corners[:, 1] - corners[:, 0], axis=1)
        h, w = scene.image.shape[:2]
        for s in SCALES:
            small = cv2.resize(scene.image, (round(w * s), round(h * s)),
                               interpolation=cv2.INTER_AREA)
            bins = np.searchsorted(BINS, width * s * PIP_MM / TILE_WIDTH_MM, side="right") - 1
            for kind, image in (("sharp", small), ("webcam", _webcam(small, noise))):
                for t, reading, b in zip(twelves, reader.read_at(image, corners * s).each(), bins,
                                         strict=True):
                    for k in (0, 1):
                        if b >= 0 and t.values[k] == 12:
                            total[b] += int(kind == "sharp")
                            right[kind][b] += int(reading.values[k] == 12)
    out: dict[str, Any] = {
        "scenes": scenes, "seeds": f"{SEED_BASE}..{SEED_BASE + scenes - 1}",
        "frames": "datasets.render.render_table at 1920x1080, shrunk (INTER_AREA)",
        "webcam": {"blur_sigma_px": WEBCAM_BLUR, "noise": WEBCAM_NOISE,
                   "jpeg_quality": WEBCAM_JPEG},
        "target": TARGET}
    for kind in ("sharp", "webcam"):
        rates, needed = _needed(right[kind], total)
        out[kind] = {"bins_px_per_pip": [{"from": lo, "halves": int(n), "read_right": r}
                                         for lo, n, r in zip(BINS, total, rates, strict=True)],
                     "px_per_pip_needed": needed}
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--scenes", type=int, default=40)
    args = parser.parse_args(argv)
    result = measure(args.scenes)
    RESULTS.write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
