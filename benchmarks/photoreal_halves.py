"""Half counts on the photoreal stills: each model folder's count of every labelled half.

    .venv/bin/python -m benchmarks.photoreal_halves --models NAME=DIR [--models ...]
                     [--folder DIR] [--out FILE]

Every tile wholly in view of a held-out still (``benchmarks.photoreal``'s folder) is cut
twice, at its labelled corners and at corners moved as the detector moves them
(:func:`datasets.box_jitter.detector_jitter`, seeded), and each half is counted by
``TileReader.count_halves`` (the quick classifier, then ``halves``, then the pips) of
each models folder, told the still's set. Per folder and precision (``auto``: what the
reader runs, and ``float``): halves right, by count 0-15, the 10/11/12 confusions (a
10, 11 or 12 read as another of them) and, between the two precisions, the share of
halves counted alike. Tiles the detector misses are not this measure's business:
``benchmarks.photoreal`` reads whole tables.
"""

from __future__ import annotations

import argparse
import json
import os
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
FOLDER = ROOT / "runs" / "photoreal-heldout"
HIGH = (10, 11, 12)
#: The precisions compared: what the reader runs on every CPU, and every model in float.
PRECISIONS = ("auto", "float")


def cut_halves(folder: Path) -> tuple[list[np.ndarray], list[int], list[int], list[str]]:
    """Every half crop of the stills (true corners, then jittered), its count, its set's
    top and its still's set style."""
    import cv2

    from datasets.box_jitter import detector_jitter
    from datasets.labels import iter_scenes
    from vision.models.crops import half_crops

    crops: list[np.ndarray] = []
    values: list[int] = []
    tops: list[int] = []
    styles: list[str] = []
    for k, (image_path, labels) in enumerate(iter_scenes(folder)):
        image = cv2.imread(str(image_path), cv2.IMREAD_COLOR)
        if image is None:
            continue
        rng = np.random.default_rng([k, 0x68616C66])
        style = str(labels.get("photoreal", {}).get("set_style", ""))
        for tile in labels["tiles"]:
            if tile.get("visible", 1.0) < 0.999:
                continue
            corners = np.asarray(tile["corners"], np.float64)
            for cut in (corners, detector_jitter(corners, rng)):
                for half, crop in enumerate(half_crops(image, cut)):
                    crops.append(crop)
                    values.append(int(tile["values"][half]))
                    tops.append(int(labels.get("set", 12)))
                    styles.append(style)
    return crops, values, tops, styles


def count(models: Path, precision: str, crops: list[np.ndarray], tops: list[int]) -> list[int]:
    """Each crop's count by the reader of ``models`` at ``precision``, told its set."""
    from vision.reading.reader import TileReader

    os.environ["MTRAIN_PRECISION"] = precision
    out = [0] * len(crops)
    for top in sorted(set(tops)):
        reader = TileReader(models, max_value=top)
        idx = [i for i, t in enumerate(tops) if t == top]
        for start in range(0, len(idx), 256):
            part = idx[start:start + 256]
            for i, half in zip(part, reader.count_halves([crops[j] for j in part]), strict=True):
                out[i] = int(half.value)
    return out


def tally(values: list[int], got: list[int], styles: list[str]) -> dict[str, Any]:
    right = [v == g for v, g in zip(values, got, strict=True)]
    by_count: dict[str, str] = {}
    for v in range(16):
        idx = [i for i, x in enumerate(values) if x == v]
        if idx:
            by_count[f"{v:02d}"] = f"{sum(right[i] for i in idx)}/{len(idx)}"
    by_style: dict[str, str] = {}
    for s in sorted(set(styles)):
        idx = [i for i, x in enumerate(styles) if x == s]
        by_style[s] = f"{sum(right[i] for i in idx)}/{len(idx)}"
    confusions = Counter(f"{v}->{g}" for v, g in zip(values, got, strict=True)
                         if v in HIGH and g in HIGH and v != g)
    return {
        "halves": len(values),
        "halves_right": round(sum(right) / max(len(values), 1), 4),
        "by_count": by_count,
        "by_set_style": by_style,
        "confusions_10_11_12": sum(confusions.values()),
        "confusions": dict(sorted(confusions.items())),
    }


def score(folder: Path, models: dict[str, Path]) -> dict[str, Any]:
    crops, values, tops, styles = cut_halves(folder)
    result: dict[str, Any] = {"folder": str(folder), "halves": len(crops),
                              "cuts": "every whole tile at its labelled corners and once "
                                      "at detector-jittered corners (seeded)"}
    for name, path in models.items():
        got = {p: count(path, p, crops, tops) for p in PRECISIONS}
        same = sum(a == b for a, b in zip(got["auto"], got["float"], strict=True))
        result[name] = {
            "models": str(path),
            **{p: tally(values, got[p], styles) for p in PRECISIONS},
            "auto_float_agree": round(same / max(len(crops), 1), 4),
        }
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--folder", type=Path, default=FOLDER, help="labelled photoreal stills")
    parser.add_argument("--models", action="append", default=[], metavar="NAME=DIR",
                        help="a models folder to count with, named (repeatable; default "
                             "models=models/)")
    parser.add_argument("--out", type=Path, default=None, help="JSON file to write")
    args = parser.parse_args(argv)
    models = dict(m.split("=", 1) for m in args.models) or {"models": str(ROOT / "models")}
    if not any(args.folder.glob("*.json")):
        print(f"[photoreal_halves] skipped: no labelled stills in {args.folder}")
        return 0
    result = score(args.folder, {k: Path(v) for k, v in models.items()})
    text = json.dumps(result, indent=2)
    if args.out:
        args.out.write_text(text + "\n")
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
