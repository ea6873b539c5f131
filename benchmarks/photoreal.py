"""Photoreal benchmark: tables rendered by Blender, read as ``mtrain read`` reads them.

    .venv/bin/python -m benchmarks.photoreal [--render N] [--bare N] [--folder DIR]
                                             [--seed S] [--models DIR] [--out FILE]

Writes ``benchmarks/results/photoreal.json``. The scenes come from
``datasets.photoreal`` (seed ``SEED`` and on, never used for training): a legal
table laid out by ``datasets.table_layout``, rendered with solid tiles, real pip
styles, surfaces, lamps or daylight and a webcam's lens, blur, noise and JPEG;
every even scene lies on the printed mat (at any rotation), every odd one has no
mat, and no arm, mug or phone hides a tile (``--clear-view``), so each table can
be read whole. ``--render N`` renders ``N`` scenes first (needs Blender's Python
module: ``make render-env``; several minutes a scene on a shared CPU); without
it the scenes already in ``--folder`` are scored, and with none there the
benchmark is skipped with a message. Each picture is read by
``TileReader(models/)``, ``vision.mat.hub_mat.detect_mat``, ``vision.table.reconstruct``
and ``vision.stills.trouble_spots`` (``mtrain read IMAGE --players N``), and scored with
and without the mat: whole table exact, per train, seat assignment, marker
attachment (``benchmarks/table.py``'s tally), tiles read right (a labelled tile
matched one to one by a read tile at polygon IoU >= 0.5 with the same two
values), phantom tiles (read tiles matching no labelled tile; those lying on a
face-down boneyard tile counted apart), and how often the mat was found.

Each scene whose bare table was rendered too (``NAME_bare.jpg``: the same webcam
and light, no tile, marker or arm; ``--bare N`` renders those of the first ``N``
scenes, ``--render`` renders both) is read again as ``mtrain read IMAGE --empty
NAME_bare.jpg`` reads it (``mat_with_empty``, ``no_mat_with_empty``). The webcam's
automatic exposure and white balance set the two frames apart as a real one does
when white tiles come into view.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.matching import labelled_read
from benchmarks.table import Tally
from engine import TableState
from engine.errors import BadInputError

ROOT = Path(__file__).resolve().parent.parent

RESULTS = ROOT / "benchmarks" / "results" / "photoreal.json"
FOLDER = ROOT / "runs" / "photoreal-heldout"
#: Seed of the held-out scenes (the painter's benchmarks use 900000..1700000 as
#: table seeds of their own generator; these scenes come from another one).
SEED = 1_400_000


def render(folder: Path, count: int, seed: int, samples: int, tables: bool = True,
           bare: bool = True) -> float:
    """Render ``count`` scenes (even on the mat, odd without), their ``tables`` and their
    ``bare`` tables; seconds per scene."""
    from datasets.photoreal.generate import generate

    t0 = time.perf_counter()
    for i in range(count):
        generate(folder, 1, seed, mat=i % 2 == 0, samples=samples, start=i, clear=True,
                 bare=bare, tables=tables)
    return (time.perf_counter() - t0) / max(count, 1)


class _Part:
    """The tallies of one setting (mat or no mat)."""

    def __init__(self) -> None:
        self.tally = Tally()
        self.tiles = self.right = self.read = self.phantom = self.on_backs = 0
        self.mats_found = 0
        self.times: list[float] = []
        self.by_look: dict[str, list[int]] = defaultdict(lambda: [0, 0])
        self.rows: list[str] = []

    def add(self, labels: dict[str, Any], frame: Any, reading: Any, found_mat: bool,
            seconds: float, name: str) -> None:
        truth = TableState.from_json(labels["table"])
        seen = labelled_read(labels, frame)
        want, got, right = seen.want, seen.got, seen.right
        unmatched, on_backs = seen.unmatched, seen.on_backs
        self.tiles += len(want)
        self.right += right
        self.read += len(got)
        self.phantom += len(unmatched) - on_backs
        self.on_backs += on_backs
        self.mats_found += found_mat
        self.times.append(seconds)
        look = labels["photoreal"]
        for key in (f"surface {look['surface']['kind']}", f"light {look['lighting']}",
                    f"set {look['set_style']}"):
            self.by_look[key][0] += right
            self.by_look[key][1] += len(want)
        exact = self.tally.add(truth, reading, f"{name}: {labels['players']} players, "
                                               f"{right}/{len(want)} read right "
                                               f"({len(got)} read)")
        self.rows.append(f"{name}: {look['surface']['kind']}, {look['lighting']}, "
                         f"{look['set_style']}: {right}/{len(want)} read right, "
                         f"{len(unmatched) - on_backs} phantom, "
                         f"{'exact' if exact else 'not exact'}")

    def result(self, mat: bool) -> dict[str, Any]:
        n = self.tally.tables
        return {
            "tables": n, "mat": mat, **self.tally.rates(),
            "tiles": self.tiles, "tiles_read_right": round(self.right / max(self.tiles, 1), 4),
            "tiles_read": self.read, "phantom_tiles": self.phantom,
            "phantom_tiles_per_table": round(self.phantom / max(n, 1), 2),
            "read_on_face_down_tiles": self.on_backs,
            "mat_found": round(self.mats_found / max(n, 1), 4),
            "read_s_median": round(statistics.median(self.times), 2) if self.times else None,
            "tiles_read_right_by_look": {k: f"{r}/{t}" for k, (r, t) in sorted(
                self.by_look.items())},
            "failures": self.tally.failures,
            "scenes": self.rows,
        }


def score(folder: Path, models: Path = ROOT / "models") -> dict[str, Any]:
    """Read every scene in ``folder`` as ``mtrain read --players N --models MODELS``
    reads it."""
    import cv2

    from datasets.labels import iter_scenes
    from datasets.photoreal.generate import BARE_SUFFIX
    from engine import RuleSet
    from vision.mat.hub_mat import detect_mat
    from vision.reading.reader import TileReader
    from vision.stills.bare_photo import BarePhoto
    from vision.stills.table_photo import read_photo, read_table

    reader = TileReader(models, max_value=RuleSet.preset("standard").set)
    parts = {True: _Part(), False: _Part()}
    with_empty = {True: _Part(), False: _Part()}
    not_registered: list[str] = []
    for image_path, labels in iter_scenes(folder):
        image = cv2.imread(str(image_path), cv2.IMREAD_COLOR)
        if image is None or "photoreal" not in labels:
            continue
        players = int(labels["players"])
        t0 = time.perf_counter()
        reader.reset()
        frame = reader.read(image)
        frame, reading = read_table(frame, players, image, reader)
        seconds = time.perf_counter() - t0
        on_mat = bool(labels["photoreal"]["mat"])
        found_mat = detect_mat(image) is not None
        parts[on_mat].add(labels, frame, reading, found_mat, seconds, image_path.stem)
        empty = cv2.imread(str(image_path.with_name(image_path.stem + BARE_SUFFIX + ".jpg")),
                           cv2.IMREAD_COLOR)
        if empty is None:
            continue
        t0 = time.perf_counter()
        reader.reset()
        try:
            bare = BarePhoto(empty, image, "bare table")
        except BadInputError:
            not_registered.append(image_path.stem)
            continue
        frame, reading = read_photo(reader, image, players, bare)
        with_empty[on_mat].add(labels, frame, reading, found_mat, time.perf_counter() - t0,
                               image_path.stem)
    out: dict[str, Any] = {"mat": parts[True].result(True),
                           "no_mat": parts[False].result(False)}
    if with_empty[True].tally.tables or with_empty[False].tally.tables:
        out |= {"mat_with_empty": with_empty[True].result(True),
                "no_mat_with_empty": with_empty[False].result(False),
                "bare_not_registered": not_registered}
    return out | {"models": getattr(reader, "model_files", None)}


def _file_seconds(folder: Path) -> float | None:
    """Median time between consecutive pictures of tables written (how long a render
    took)."""
    from datasets.photoreal.generate import BARE_SUFFIX

    times = sorted(p.stat().st_mtime for p in folder.glob("photoreal_*.jpg")
                   if not p.stem.endswith(BARE_SUFFIX))
    gaps = np.diff(times)
    return round(float(np.median(gaps)), 1) if len(gaps) else None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--render", type=int, default=0, metavar="N",
                        help="render N scenes into --folder first (needs make render-env)")
    parser.add_argument("--bare", type=int, default=0, metavar="N",
                        help="render the bare tables of the first N scenes in --folder first")
    parser.add_argument("--folder", type=Path, default=FOLDER, help="rendered scenes to score")
    parser.add_argument("--seed", type=int, default=SEED, help=f"scene seed (default {SEED})")
    parser.add_argument("--samples", type=int, default=8, help="Cycles samples per pixel")
    parser.add_argument("--models", type=Path, default=ROOT / "models",
                        help="models folder to read with (default models/)")
    parser.add_argument("--out", type=Path, default=RESULTS, help="results file to write")
    args = parser.parse_args(argv)
    render_s = None
    try:
        if args.render > 0:
            render_s = render(args.folder, args.render, args.seed, args.samples)
        if args.bare > 0:
            render(args.folder, args.bare, args.seed, args.samples, tables=False)
    except BadInputError as exc:
        print(f"[photoreal] skipped: {exc}")
        return 0
    scenes = sorted(args.folder.glob("photoreal_*.json")) if args.folder.is_dir() else []
    if not scenes:
        print(f"[photoreal] skipped: no rendered scenes in {args.folder} (render them with "
              "--render N, which needs Blender's Python module: make render-env)")
        return 0
    if not (args.models / "models.json").exists():
        print(f"[photoreal] skipped: {args.models} has no trained reader")
        return 0
    parts = score(args.folder, args.models)
    results = {
        "seed": args.seed, "scenes": len(scenes), "folder": str(args.folder.relative_to(ROOT))
        if args.folder.is_relative_to(ROOT) else str(args.folder),
        "frames": "1280x720 webcam frames rendered by Blender 4.2 Cycles on the CPU "
                  f"({args.samples} samples + OpenImageDenoise), lens distortion, blur, "
                  "noise, JPEG; no arm or prop over a tile",
        "render_s_per_scene": round(render_s, 1) if render_s is not None else _file_seconds(
            args.folder),
        **parts,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2, default=str) + "\n", encoding="utf-8")
    for key in ("mat", "no_mat", "mat_with_empty", "no_mat_with_empty"):
        if key not in parts:
            continue
        p = parts[key]
        print(f"[photoreal] {key}: {p['tables']} tables, whole {p['whole_table_exact']}, "
              f"train {p['per_train_exact']}, tiles {p['tiles_read_right']}, "
              f"phantoms {p['phantom_tiles']}, mat found {p['mat_found']}")
    print(f"[photoreal] wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
