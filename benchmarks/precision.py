"""The 8-bit and float exports compared on the same real and photoreal pictures.

    .venv/bin/python benchmarks/precision.py [--photoreal DIR] [--realdata DIR] [--out FILE]

Writes ``benchmarks/results/precision.json``: for each ``MTRAIN_PRECISION`` value the
reader can run (``int8``: what a CPU with exact 8-bit sums runs; ``int8-7bit``: what an
AVX2 CPU without VNNI runs, float detectors and the half classifiers' 7-bit exports;
``float``: every model in float), the real photos of ``../shared/realdata``
(``benchmarks/vision_real.py``: single tiles, the row, half crops, oblique halves,
detection recall; evaluation only) and the photoreal held-out tables
(``benchmarks/photoreal.py``: whole tables, tiles read right, phantoms). The float
and 7-bit models give the same sums on every x86 CPU; the 8-bit detectors need VNNI
to sum exactly, so the ``int8`` figures hold for such a CPU only. Each path is also
read without the domino check (``vision.models.domino_check``; ``models.json`` without its
``verifier`` entry): what the check changes on the same pictures.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.photoreal import FOLDER, score
from benchmarks.vision_real import real
from vision.models.precision import PRECISION_ENV, SEVEN_BIT
from vision.reading.reader import TileReader

ROOT = Path(__file__).resolve().parent.parent

RESULTS = ROOT / "benchmarks" / "results" / "precision.json"
REALDATA = ROOT.parent / "shared" / "realdata"
PATHS = ("int8", SEVEN_BIT, "float")


def _real_summary(parts: dict[str, Any]) -> dict[str, Any]:
    """The scored figures of ``vision_real.real`` without its lists of misses."""
    keep = {"tiles": ("images", "exact_reader", "exact_given_box"),
            "halves": ("images", "accuracy"), "oblique": ("halves", "found", "accuracy"),
            "detect": ("tiles", "read", "recall"), "row": ("exact", "in_order")}
    return {part: {k: parts[part][k] for k in keys if k in parts[part]}
            for part, keys in keep.items() if part in parts}


def _photoreal_summary(parts: dict[str, Any]) -> dict[str, Any]:
    keys = ("tables", "whole_table_exact", "per_train_exact", "tiles", "tiles_read_right",
            "tiles_read", "phantom_tiles")
    return {side: {k: parts[side][k] for k in keys} for side in ("mat", "no_mat")}


def _without_verifier(folder: Path) -> Path:
    """A models folder like ``models/`` whose index lists no domino check."""
    index = json.loads((ROOT / "models" / "models.json").read_text())
    index.pop("verifier", None)
    for entry in (ROOT / "models").iterdir():
        if entry.suffix == ".onnx":
            (folder / entry.name).symlink_to(entry)
    (folder / "models.json").write_text(json.dumps(index))
    return folder


def _row(models: Path, realdata: Path, photoreal: Path) -> dict[str, Any]:
    t0 = time.perf_counter()
    reader = TileReader(models)
    row: dict[str, Any] = {"models": reader.model_files}
    if realdata.is_dir():
        row["real"] = _real_summary(real(reader, realdata))
    if photoreal.is_dir() and any(photoreal.glob("photoreal_*.json")):
        row["photoreal"] = _photoreal_summary(score(photoreal, models))
    row["seconds"] = round(time.perf_counter() - t0, 1)
    return row


def compare(realdata: Path, photoreal: Path) -> dict[str, Any]:
    """Each precision path's figures, with and without the domino check."""
    out: dict[str, Any] = {}
    before = os.environ.get(PRECISION_ENV)
    plain = Path(tempfile.mkdtemp(prefix="mtrain-models-"))
    try:
        _without_verifier(plain)
        for path in PATHS:
            os.environ[PRECISION_ENV] = path
            out[path] = _row(ROOT / "models", realdata, photoreal)
            out[f"{path} without the domino check"] = _row(plain, realdata, photoreal)
    finally:
        shutil.rmtree(plain, ignore_errors=True)
        if before is None:
            os.environ.pop(PRECISION_ENV, None)
        else:
            os.environ[PRECISION_ENV] = before
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--realdata", type=Path, default=REALDATA)
    parser.add_argument("--photoreal", type=Path, default=FOLDER,
                        help="rendered photoreal scenes (benchmarks/photoreal.py's folder)")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    results = {"photoreal_scenes": len(list(args.photoreal.glob("photoreal_*.json")))
               if args.photoreal.is_dir() else 0,
               "paths": compare(args.realdata, args.photoreal)}
    if args.out.is_file():  # the emulated CPU's comparison is written by its own benchmark
        kept = json.loads(args.out.read_text(encoding="utf-8")).get("emulated_cpu")
        if kept is not None:
            results["emulated_cpu"] = kept
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
