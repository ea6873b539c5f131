"""Compositor benchmark: how many labelled 1280x720 frames a minute the compositor writes.

    python -m benchmarks.composite [--count N] [--jobs J] [--sprites DIR ...] [--out FILE]

Writes ``benchmarks/results/composite.json``: frames a minute with ``--jobs``
processes (default 2, every frame composed, finished and written as JPEG + label
JSON, as ``python -m datasets.composite`` writes them), the seconds one frame takes
in one process, and the labels' size. The sprites default to the committed ones
(``tests/datasets/sprites``). Timings on a shared machine vary with its load, which
is recorded; ``frames_per_minute_on_idle_cores`` is the rate one process's CPU time a
frame (mean of 24, written as the workers write them) allows on ``jobs`` idle cores.
The file's ``retrained`` part (models fine-tuned on composited crops, old against new:
``models/README.md``) is not measured here and is kept as it is.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from datasets.composite import SpriteLibrary, write_frames
from datasets.composite.write import write_frame

ROOT = Path(__file__).resolve().parent.parent


SEED = 1_500_000


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=240)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--sprites", action="append", default=[])
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "composite.json"))
    args = parser.parse_args(argv)
    sprites = args.sprites or [str(ROOT / "tests" / "datasets" / "sprites")]
    library = SpriteLibrary([Path(s) for s in sprites])
    single, cpu = [], []
    with tempfile.TemporaryDirectory(prefix="composite-one-") as tmp:
        write_frame(library, Path(tmp), SEED, 0)  # warm: sprites loaded, noise drawn
        for i in range(1, 25):
            t, c = time.perf_counter(), time.process_time()
            write_frame(library, Path(tmp), SEED, i)
            single.append(time.perf_counter() - t)
            cpu.append(time.process_time() - c)
    cpu_s = statistics.mean(cpu)
    load = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="composite-bench-") as tmp:
        t = time.perf_counter()
        labels = write_frames(tmp, sprites, args.count, SEED + 1, jobs=args.jobs)
        wall = time.perf_counter() - t
        tiles = markers = backs = negatives = 0
        for path in labels:
            data = json.loads(path.read_text())
            tiles += len(data["tiles"])
            markers += len(data["markers"])
            backs += len(data["face_down"])
            negatives += bool(data["composite"]["negative"])
    result = {
        "frames": args.count, "jobs": args.jobs, "cpu_count": os.cpu_count(),
        "frame": "1280x720, JPEG + label JSON written",
        "sprites": {"folders": [os.path.relpath(s, ROOT) for s in sprites],
                    "count": len(library)},
        "wall_s": round(wall, 2), "frames_per_minute": round(60 * args.count / wall, 1),
        "cpu_s_per_frame": round(cpu_s, 3),
        "frames_per_minute_on_idle_cores": round(60 * args.jobs / cpu_s, 1),
        "single_process_s_per_frame_median": round(statistics.median(single), 3),
        "load_average_before": [round(v, 2) for v in load],
        "labels": {"tiles": tiles, "markers": markers, "face_down": backs,
                   "negative_frames": negatives},
    }
    out = Path(args.out)
    if out.is_file():  # the retrained models' comparison is measured apart: keep it
        kept = json.loads(out.read_text(encoding="utf-8")).get("retrained")
        if kept is not None:
            result["retrained"] = kept
    out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
