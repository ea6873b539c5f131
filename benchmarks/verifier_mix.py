"""The domino check (``models/verifier.onnx``) against a retrained one: what each reads.

    .venv/bin/python -m benchmarks.verifier_mix --models DIR --out FILE [--parts ...]
    .venv/bin/python -m benchmarks.verifier_mix --record OLD NEW... --verdict TEXT [--shipped]

The first form reads with the models of ``DIR`` (the reader's own path and thresholds)
and writes its figures to ``FILE``:

- ``realism_empty``: ``benchmarks.realism``'s empty frames (seed ``EMPTY_SEED``, 4 per
  surface of ``SURFACES`` and of ``MORE_SURFACES``): tiles read (target 0), doubted;
- ``realism_tables``: its tables on surfaces (2 per surface): phantoms, found, read right,
  tables exact;
- ``photoreal``: ``benchmarks.photoreal`` on ``runs/photoreal-heldout``: tiles read right,
  phantom tiles, whole tables, with and without the mat;
- ``real``: ``benchmarks.vision_real`` on ``../shared/realdata`` (tiles, halves, oblique,
  detect, row, hands scored as ``mtrain score`` scores them);
- ``eval``: ``benchmarks.vision_synthetic`` on ``datasets/eval`` (the painter's scenes);
- ``counted_rejected``: readings counted in a real hand's points (``hand_from_reading``)
  or read on an empty frame that the reader's domino check, asked again at their boxes,
  rules out beyond doubt (``NOT_CERTAIN``; target 0).

The second form writes them (the old check's first, then each candidate's with its
``training.json`` entry) to ``benchmarks/results/composite.json`` under
``retrained.verifier``, with the verdict and whether a new check was shipped.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
REALDATA = ROOT.parent / "shared" / "realdata"
PHOTOREAL = ROOT / "runs" / "photoreal-heldout"
RESULTS = ROOT / "benchmarks" / "results" / "composite.json"
PARTS = ("realism_empty", "realism_tables", "photoreal", "real", "eval", "counted_rejected")


def _brief(value: Any) -> Any:
    """``value`` without the long lists of names (misses, failures, scenes)."""
    if isinstance(value, dict):
        return {k: _brief(v) for k, v in value.items()
                if not (isinstance(v, list) and len(v) > 4 and isinstance(v[0], str))}
    return value


def _photoreal(models: Path, folder: Path) -> dict[str, Any]:
    from benchmarks.photoreal import score

    parts = score(folder, models)
    keep = ("tables", "tiles", "tiles_read", "tiles_read_right", "phantom_tiles",
            "whole_table_exact", "per_train_exact")
    return {side: {k: parts[side][k] for k in keep} for side in ("mat", "no_mat")}


def _counted_rejected(models: Path, realdata: Path) -> dict[str, int]:
    """Readings counted in a real hand or read on an empty frame that the check rules out."""
    from benchmarks.realism import EMPTY_SEED
    from benchmarks.vision_real import real_hand_truths
    from datasets.render import render_empty, scene_rng
    from datasets.surfaces import MORE_SURFACES, SURFACES
    from engine import RuleSet
    from vision.images import load_image
    from vision.reading.reader import TileReader
    from vision.stills.hand_photos import hand_from_reading, read_hand

    rules = RuleSet()
    reader = TileReader(models, max_value=rules.set)
    check = reader.domino_check
    assert check is not None
    counted = rejected = 0
    for name, path, _ in real_hand_truths(realdata, rules) if realdata.is_dir() else []:
        reader.reset()
        image = load_image(path)
        hand = hand_from_reading(read_hand(reader, image), rules, name)
        if hand.readings:
            counted += len(hand.readings)
            corners = np.array([r.corners for r in hand.readings], np.float32)
            rejected += int(check(image, corners).certain.sum())
    surfaces = SURFACES + MORE_SURFACES
    read = read_rejected = 0
    for k in range(4 * len(surfaces)):
        scene = render_empty(scene_rng(EMPTY_SEED, k), surfaces[k % len(surfaces)])
        frame = reader.for_set(scene.set_size).read(scene.image)
        if len(frame.tiles):
            read += len(frame.tiles)
            corners = np.array([t.corners for t in frame.tiles.each()], np.float32)
            read_rejected += int(check(scene.image, corners).certain.sum())
    return {"hand_tiles_counted": counted, "hand_tiles_counted_rejected": rejected,
            "empty_tiles_read": read, "empty_tiles_read_rejected": read_rejected}


def measure(models: Path, parts: tuple[str, ...], realdata: Path, folder: Path
            ) -> dict[str, Any]:
    from benchmarks.realism import EVAL, empty_frames, table_frames
    from benchmarks.vision_real import real
    from benchmarks.vision_synthetic import synthetic
    from datasets.surfaces import MORE_SURFACES, SURFACES
    from vision.reading.reader import TileReader

    out: dict[str, Any] = {"models": str(models)}
    reader = TileReader(models)
    t0 = time.perf_counter()
    if "realism_empty" in parts:
        plain = TileReader(models, check_tiles=False)
        out["realism_empty"] = {name: empty_frames(reader, plain, 4, surfaces)
                                for name, surfaces in (("empty", SURFACES),
                                                       ("empty_more_surfaces", MORE_SURFACES))}
    if "realism_tables" in parts:
        out["realism_tables"] = _brief(table_frames(reader, 2))
    if "photoreal" in parts and folder.is_dir():
        out["photoreal"] = _photoreal(models, folder)
    if "real" in parts and realdata.is_dir():
        out["real"] = _brief(real(reader, realdata))
    if "eval" in parts:
        figures = synthetic(reader, EVAL, None)
        out["eval"] = {k: figures[k] for k in ("images", "tiles", "read", "recall", "precision",
                                               "tile_exact", "hand_total_exact")}
    if "counted_rejected" in parts:
        out["counted_rejected"] = _counted_rejected(models, realdata)
    out["seconds"] = round(time.perf_counter() - t0, 1)
    out["load_average_after"] = [round(v, 2) for v in os.getloadavg()]
    return out


def _candidate(figures: Path) -> dict[str, Any]:
    """A figures file with the ``training.json`` entry of the check it measured."""
    found = json.loads(figures.read_text())
    training = Path(found["models"]) / "training.json"
    entry = json.loads(training.read_text()).get("verifier") if training.is_file() else None
    return {"training": entry, "figures": found}


def record(old: Path, new: list[Path], verdict: str, shipped: bool,
           extra: dict[str, Any]) -> None:
    """``old``'s and each ``new`` figures under ``retrained.verifier``."""
    results = json.loads(RESULTS.read_text())
    retrained = results.setdefault("retrained", {})
    retrained["verifier"] = {**extra, "shipped": shipped, "verdict": verdict,
                             "old": json.loads(old.read_text()),
                             "new": [_candidate(f) for f in new]}
    RESULTS.write_text(json.dumps(results, indent=2) + "\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--models", type=Path, default=ROOT / "models")
    parser.add_argument("--out", type=Path, default=None, help="figures file to write")
    parser.add_argument("--parts", nargs="+", choices=PARTS, default=list(PARTS))
    parser.add_argument("--realdata", type=Path, default=REALDATA)
    parser.add_argument("--photoreal", type=Path, default=PHOTOREAL)
    parser.add_argument("--record", nargs="+", type=Path, metavar="FIGURES", default=None,
                        help="write the old check's figures and each new one's (files of "
                             "--out, the old first) to composite.json retrained.verifier")
    parser.add_argument("--verdict", default="", help="with --record: the verdict")
    parser.add_argument("--shipped", action="store_true", help="with --record: NEW shipped")
    parser.add_argument("--extra", default="{}", help="with --record: JSON fields to add")
    args = parser.parse_args(argv)
    if args.record:
        if len(args.record) < 2:
            parser.error("--record needs the old figures and at least one new")
        record(args.record[0], args.record[1:], args.verdict, args.shipped,
               json.loads(args.extra))
        print(f"[verifier_mix] recorded in {RESULTS}")
        return 0
    figures = measure(args.models, tuple(args.parts), args.realdata, args.photoreal)
    text = json.dumps(figures, indent=1)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text + "\n")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
