"""The reader on an emulated AVX2-only CPU against this CPU, picture by picture.

    .venv/bin/python -m benchmarks.emulated_cpu [--cpu Haswell] [IMAGE ...]

Runs ``mtrain read IMAGE --json`` twice for each picture, here and under QEMU's user
mode emulating ``--cpu`` (Haswell: AVX2 and FMA, no AVX-512, no VNNI; Debian's
``qemu-user``), where ONNX Runtime picks its kernels by the emulated CPU's CPUID, and
writes how the two answers compare into ``benchmarks/results/precision.json``
(``emulated_cpu``): the same byte for byte, the same tiles (values and doubt, by
place), and how far corners and confidences moved (float sums in another order). The default exports
(``vision.models.precision``: float detectors, 7-bit half classifiers) are meant to
give one answer on every x86 CPU; this checks it without such a CPU. Emulation is
slow (a 1280x720 frame takes about 12 CPU minutes), and it says nothing of speed.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results" / "precision.json"
#: A painted hand photo of the eval set and a real photo (evaluation only).
DEFAULT_IMAGES = (ROOT / "datasets" / "eval" / "hands_9001_000000.jpg",
                  ROOT.parent / "shared" / "realdata" / "topdown" / "IMG-20210306-WA0000.jpg")


def read_json(image: Path, emulate: str | None) -> tuple[str, float]:
    """``mtrain read IMAGE --json``'s output and the seconds it took, under QEMU
    emulating the CPU ``emulate`` when given."""
    command = [sys.executable, "-m", "mtrain", "read", str(image), "--json"]
    if emulate:
        command = ["qemu-x86_64", "-cpu", emulate, *command]
    env = {**os.environ, "YOLO_OFFLINE": "1", "ORT_DISABLE_TELEMETRY": "1"}
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, env=env, cwd=ROOT,
                          check=False)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command[:4])}: exit {done.returncode}: "
                         f"{done.stderr.strip().splitlines()[-1:]}")
    return done.stdout, time.perf_counter() - start


def _tiles(answer: str) -> list[dict[str, Any]]:
    tiles: list[dict[str, Any]] = json.loads(answer)["tiles"]
    return sorted(tiles, key=lambda t: (t["corners"][0][1] // 8, t["corners"][0][0] // 8))


def differences(here: str, there: str) -> dict[str, Any]:
    """How two ``read --json`` answers of one picture differ: the tiles (values and
    doubt) of each not in the other, and, for tiles the same in both, the largest move
    of a corner (px) and of a confidence."""
    a, b = _tiles(here), _tiles(there)
    key = [(tuple(t["values"]), t["uncertain"]) for t in a]
    other = [(tuple(t["values"]), t["uncertain"]) for t in b]
    corner = conf = 0.0
    for t in a:
        near = [u for u in b if (tuple(u["values"]), u["uncertain"]) == (tuple(t["values"]),
                                                                           t["uncertain"])]
        if not near:
            continue
        u = min(near, key=lambda u: abs(u["corners"][0][0] - t["corners"][0][0])
                + abs(u["corners"][0][1] - t["corners"][0][1]))
        corner = max(corner, *(abs(p - q) for c, d in zip(t["corners"], u["corners"], strict=True)
                               for p, q in zip(c, d, strict=True)))
        conf = max(conf, abs(t["confidence"] - u["confidence"]))
    return {"only_here": [k for k in key if k not in other],
            "only_emulated": [k for k in other if k not in key],
            "corner_px": round(corner, 2), "confidence": round(conf, 4)}


def compare(images: list[Path], cpu: str) -> dict[str, Any]:
    rows = []
    for image in images:
        here, _ = read_json(image, None)
        there, seconds = read_json(image, cpu)
        diff = differences(here, there)
        rows.append({"image": image.name, "tiles": len(_tiles(here)),
                     "same_bytes": here == there,
                     "same_tiles": not diff["only_here"] and not diff["only_emulated"],
                     **diff, "emulated_s": round(seconds)})
        print(json.dumps(rows[-1]), flush=True)
    return {"cpu": cpu, "precision": os.environ.get("MTRAIN_PRECISION", "auto"),
            "images": rows, "same_tiles": sum(r["same_tiles"] for r in rows)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("images", type=Path, nargs="*")
    parser.add_argument("--cpu", default="Haswell", help="QEMU's name of the CPU to emulate")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    if shutil.which("qemu-x86_64") is None:
        print("emulated_cpu: qemu-x86_64 not found (Debian's qemu-user)", file=sys.stderr)
        return 2
    images = args.images or [p for p in DEFAULT_IMAGES if p.is_file()]
    result = compare(images, args.cpu)
    results = json.loads(args.out.read_text()) if args.out.is_file() else {}
    results["emulated_cpu"] = result
    args.out.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
