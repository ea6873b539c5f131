"""``mtrain synth``: write seeded synthetic scenes with labels."""

from __future__ import annotations

import argparse

from datasets.render import CROP_KINDS, KINDS
from engine.errors import BadInputError


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "synth",
        help="render labelled synthetic scenes (training data)",
        description="Render seeded synthetic images with label JSON files "
        "(format in docs/DESIGN.md). Same seed, same files.",
    )
    p.add_argument("--out", required=True, help="folder to write NAME.jpg/png + NAME.json into")
    p.add_argument("--count", type=int, required=True, help="images to write")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument(
        "--kind",
        choices=KINDS,
        default="hands",
        help="scene kind (default hands)",
    )
    p.add_argument("--jobs", type=int, default=1, help="worker processes (default 1)")
    p.add_argument(
        "--max-quality",
        type=int,
        default=95,
        help="cap on the JPEG quality (drawn from 55-95; default 95)",
    )
    p.add_argument(
        "--yolo",
        metavar="DIR",
        help="also write an ultralytics dataset (OBB for scenes, detect for crops)",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.count < 1:
        raise BadInputError("--count", f"must be at least 1, got {args.count}")
    if args.seed < 0:
        raise BadInputError("--seed", f"must be 0 or more, got {args.seed}")
    if not 10 <= args.max_quality <= 100:
        raise BadInputError("--max-quality", f"must be 10..100, got {args.max_quality}")
    if args.jobs < 1:
        raise BadInputError("--jobs", f"must be at least 1, got {args.jobs}")
    from pathlib import Path

    from datasets.synth import synthesize

    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise BadInputError(str(out), "exists and is not a folder")
    n = synthesize(
        out, args.kind, args.count, args.seed, jobs=args.jobs, max_quality=args.max_quality
    )
    print(f"wrote {n} {args.kind} images to {out}")
    if args.yolo:
        from datasets.yolo_export import export_obb, export_pips

        export = export_pips if args.kind in CROP_KINDS else export_obb
        yaml = export({"train": [out]}, Path(args.yolo))
        print(f"wrote {yaml}")
    return 0
