"""How many pixels across one pip a 12-pip half needs to be read right.

    .venv/bin/python benchmarks/pip_scale.py [--scenes N]

Rendered tables (``datasets.render.render_table`` at 1920x1080, seeds from
``SEED_BASE`` on, never used in training) are shrunk step by step (``cv2.INTER_AREA``,
as a camera with fewer pixels would see them, without its own blur and noise: the
figure is a floor) and every fully visible half showing 12 pips is read exactly where
it lies (``TileReader.read_at``, the reader in ``models/``). Halves are binned by
pixels per pip (tile width in pixels x ``PIP_MM / TILE_WIDTH_MM``); the result is the
smallest bin from which every larger one reads at least ``TARGET`` of its 12s right.
Writes ``benchmarks/results/pip_scale.json``; ``vision.camera_plan.MIN_PX_PER_PIP``
holds the figure.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from vision.camera_plan import PIP_MM, TILE_WIDTH_MM  # noqa: E402

SEED_BASE = 2_700_000
RESULTS = ROOT / "benchmarks" / "results" / "pip_scale.json"
SCALES = (1.0, 0.8, 0.65, 0.5, 0.42, 0.35, 0.3, 0.25, 0.2)
#: Bins of pixels per pip (lower edges).
BINS = (1.5, 2.0, 2.5, 3.0, 3.5, 4.0, 5.0, 6.0, 8.0)
TARGET = 0.99


def measure(scenes: int) -> dict[str, Any]:
    import cv2

    from datasets.render import render_table
    from vision.reader import TileReader

    reader = TileReader(ROOT / "models")
    right = np.zeros(len(BINS), int)
    total = np.zeros(len(BINS), int)
    for i in range(scenes):
        scene = render_table(np.random.default_rng(SEED_BASE + i), size=(1920, 1080))
        twelves = [t for t in scene.tiles if 12 in t.values and t.visible >= 0.999
                   and not t.face_down and min(t.half_visible) >= 0.999]
        if not twelves:
            continue
        corners = np.array([t.corners for t in twelves], np.float32)
        width = np.linalg.norm(corners[:, 1] - corners[:, 0], axis=1)
        for s in SCALES:
            h, w = scene.image.shape[:2]
            small = cv2.resize(scene.image, (round(w * s), round(h * s)),
                               interpolation=cv2.INTER_AREA)
            readings = reader.read_at(small, corners * s)
            for t, reading, px in zip(twelves, readings, width * s * PIP_MM / TILE_WIDTH_MM,
                                      strict=True):
                b = int(np.searchsorted(BINS, px, side="right")) - 1
                if b < 0:
                    continue
                for k in (0, 1):
                    if t.values[k] == 12:
                        total[b] += 1
                        right[b] += int(reading.values[k] == 12)
    rates = [float(r / n) if n else None for r, n in zip(right, total, strict=True)]
    needed = None
    for b in range(len(BINS) - 1, -1, -1):
        if total[b] and (rates[b] or 0.0) < TARGET:
            break
        if total[b]:
            needed = BINS[b]
    return {"scenes": scenes, "seeds": f"{SEED_BASE}..{SEED_BASE + scenes - 1}",
            "frames": "datasets.render.render_table at 1920x1080, shrunk (INTER_AREA)",
            "target": TARGET,
            "bins_px_per_pip": [{"from": lo, "halves": int(n), "read_right": r}
                                for lo, n, r in zip(BINS, total, rates, strict=True)],
            "px_per_pip_needed": needed}


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
