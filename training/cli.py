"""``mtrain train``: reproduce ``models/`` from the synthetic generator.

Generates the training data with fixed seeds (``datasets.synth``), trains the
models from their yaml (no downloaded weights), exports ONNX and writes
``models/models.json``. torch and ultralytics are imported only inside the
functions that train, never at import time of this module.

- ``tiles``: YOLO11n-OBB on whole frames, classes ``tile`` and ``marker``.
- ``pips``: YOLO11n detect on half-tile crops cut by :func:`vision.models.crops.half_crops`,
  class ``pip``; the pip count of a half is the number of detections.
- ``halves``, ``halves_quick``, ``covered``, ``halves_covered``: classifiers of
  half crops (the count, and whether a hand covers the half).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from engine.errors import BadInputError
from training.evaluate import evaluate
from training.fit import run_training
from training.plan import Plan, setup_offline


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "train",
        help="generate synthetic data and train the models (needs .[train])",
        description="Reproduce models/: synthetic data with fixed seeds, YOLO "
        "training from yaml, ONNX export, models/models.json.",
    )
    defaults = Plan()
    p.add_argument("--which", choices=("tiles", "pips", "halves", "halves_quick", "covered",
                                       "halves_covered", "verifier", "both", "all"),
                   default="all",
                   help="the model to train: the tile detector, the pip detector, the half "
                   "classifier, its quick 64 px version (from models/halves.pt when there), "
                   "the cover check (crops-covered crops, seeds 120 and 220), the "
                   "covered-half counter (the same crops by count, from "
                   "models/halves_quick.pt when there), the domino check (a plain torch "
                   "network, training.verifier), both detectors or all six YOLO models "
                   "(default all)")
    p.add_argument(
        "--epochs",
        type=int,
        default=None,
        help=f"epochs (default tiles {defaults.tile_epochs}, pips {defaults.pip_epochs})",
    )
    p.add_argument("--imgsz", type=int, default=defaults.imgsz, help="tile detector input size")
    p.add_argument(
        "--count",
        type=int,
        default=None,
        help=f"training images (default tiles {defaults.tile_count} scenes, "
        f"pips {defaults.pip_count} crops)",
    )
    p.add_argument(
        "--hours",
        type=float,
        default=None,
        help="time budget per model; ultralytics re-plans the epochs to fit it",
    )
    p.add_argument(
        "--init",
        default=None,
        help="continue training from these weights (a .pt of an earlier run) "
        "instead of the yaml; needs one model's --which",
    )
    p.add_argument(
        "--table-crops",
        type=int,
        default=defaults.table_crop_sets,
        help="pips: sets of webcam-sized crops (crops-table) of --count crops each, "
        f"seeds 106, 107, ... (default {defaults.table_crop_sets})",
    )
    p.add_argument(
        "--high-crops",
        type=int,
        default=defaults.high_crop_sets,
        help="pips: sets of crops-high crops (webcam-sized tiles with a half of 9 or "
        f"more first) of --count crops each, seeds 110, 111, ... (default "
        f"{defaults.high_crop_sets})",
    )
    p.add_argument(
        "--surfaces",
        action="store_true",
        help="tiles: add tables and hands on patterned cloths, leather and glass "
        "(datasets.surfaces), and empty frames of them with no tile",
    )
    p.add_argument(
        "--composite-crops",
        type=int,
        default=0,
        metavar="N",
        help="halves, halves_quick: also N half crops cut from frames composited from "
        "--sprites (datasets.composite.crops; seeds 160, val 260, N/12), beside the "
        "painter's crop sets; verifier: the box crops of N composited frames "
        "(datasets.composite.box_crops; seeds 170, val 270, N/10) beside the painter's "
        "(default 0: none)",
    )
    p.add_argument("--sprites", action="append", default=[], metavar="DIR",
                   help="a sprite folder for --composite-crops (repeatable)")
    p.add_argument("--out", default="models", help="models folder to write (default models)")
    p.add_argument("--data", default="data", help="generated data folder (default data)")
    p.add_argument("--runs", default="runs", help="training runs folder (default runs)")
    p.add_argument("--threads", type=int, default=defaults.threads, help="torch threads")
    p.add_argument(
        "--evaluate",
        action="store_true",
        help="train nothing: check the models in --out on datasets/eval, write OUT/eval.json",
    )
    p.add_argument("--jobs", type=int, default=defaults.jobs, help="data generation processes")
    p.add_argument(
        "--device",
        default=defaults.device,
        help="train on 'cpu' (default) or a CUDA device index such as '0'",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    _check_numbers(args)
    if args.init is not None:
        if args.which in ("both", "all"):
            raise BadInputError("--init", "continues one model: give --which tiles, pips, "
                                "halves, halves_quick, covered, halves_covered or verifier")
        if not Path(args.init).is_file():
            raise BadInputError(args.init, "no such weights file")
    if args.which == "verifier":
        return _train_verifier(args)
    import importlib.util

    if importlib.util.find_spec("ultralytics") is None:
        raise BadInputError("train", "needs the training extras: pip install -e '.[train]'")
    base = Plan()
    plan = Plan(
        tile_count=args.count or base.tile_count,
        tile_epochs=args.epochs or base.tile_epochs,
        imgsz=args.imgsz,
        pip_count=args.count or base.pip_count,
        pip_epochs=args.epochs or base.pip_epochs,
        table_crop_sets=args.table_crops,
        high_crop_sets=args.high_crops,
        surfaces=args.surfaces,
        threads=args.threads,
        jobs=args.jobs,
        hours=args.hours,
        init=args.init,
        device=args.device,
        composite_crops=args.composite_crops,
        sprites=tuple(args.sprites),
    )
    setup_offline(Path.cwd())
    if args.evaluate:
        out = Path(args.out)
        if not (out / "models.json").exists():
            raise BadInputError(str(out), "holds no models.json")
        eval_dir = Path(__file__).resolve().parents[1] / "datasets" / "eval"
        report = evaluate(out, eval_dir, Path(args.runs) / "eval", threads=args.threads)
        (out / "eval.json").write_text(json.dumps(report, indent=2) + "\n")
        print(json.dumps(report, indent=2))
        return 0
    which = {"both": ("tiles", "pips"),
             "all": ("tiles", "pips", "halves", "halves_quick", "covered",
                     "halves_covered")}.get(
        args.which, (args.which,))
    for name in which:
        info = run_training(name, plan, Path(args.data), Path(args.runs), Path(args.out),
                            command=_command(args) if args.composite_crops else None)
        print(f"{name}: {json.dumps(info)}")
    return 0


def _train_verifier(args: argparse.Namespace) -> int:
    """``--which verifier``: the domino check, a plain torch network (no ultralytics)."""
    from training.verifier import train_verifier

    count, epochs = args.count or 2000, args.epochs or 8
    command = " ".join([f"mtrain train --which verifier --count {count} --epochs {epochs}",
                        *([f"--composite-crops {args.composite_crops}"]
                          if args.composite_crops else []),
                        *(f"--sprites {s}" for s in args.sprites),
                        *([f"--init {args.init}"] if args.init else []),
                        f"--threads {args.threads} --jobs {args.jobs}"])
    info = train_verifier(count, epochs, Path(args.out), Path(args.data), Path(args.runs),
                          threads=args.threads, jobs=args.jobs, command=command,
                          composite=args.composite_crops,
                          sprites=[Path(s) for s in args.sprites],
                          init=Path(args.init) if args.init else None)
    print(f"verifier: {json.dumps(info)}")
    return 0


def _command(args: argparse.Namespace) -> str:
    """The ``mtrain train`` command line of a mixed run, for ``training.json``."""
    parts = [f"mtrain train --which {args.which} --count {args.count}",
             f"--table-crops {args.table_crops} --high-crops {args.high_crops}",
             f"--composite-crops {args.composite_crops}",
             *(f"--sprites {s}" for s in args.sprites),
             *([f"--epochs {args.epochs}"] if args.epochs else []),
             *([f"--hours {args.hours}"] if args.hours else []),
             f"--threads {args.threads} --jobs {args.jobs}",
             *([f"--init {args.init}"] if args.init else [])]
    return " ".join(parts)


def _check_numbers(args: argparse.Namespace) -> None:
    """Raise ``BadInputError`` for a size, count or device out of range."""
    for name in ("epochs", "count"):
        value = getattr(args, name)
        if value is not None and value < 1:
            raise BadInputError(f"--{name}", f"must be at least 1, got {value}")
    if args.imgsz < 32 or args.imgsz % 32:
        raise BadInputError("--imgsz", f"must be a multiple of 32, at least 32, got {args.imgsz}")
    if args.hours is not None and not 0 < args.hours <= 48:
        raise BadInputError("--hours", f"must be more than 0 and at most 48, got {args.hours}")
    if args.threads < 1 or args.jobs < 1 or args.table_crops < 1:
        raise BadInputError("--threads/--jobs/--table-crops", "must be at least 1")
    if args.composite_crops < 0:
        raise BadInputError("--composite-crops", f"must be 0 or more, got {args.composite_crops}")
    if args.composite_crops and args.which not in ("halves", "halves_quick", "verifier"):
        raise BadInputError("--composite-crops", "mixes crops for --which halves, "
                            "halves_quick or verifier only")
    if args.composite_crops and not args.sprites:
        raise BadInputError("--composite-crops", "needs a --sprites folder")
    if args.high_crops < 0:
        raise BadInputError("--high-crops", f"must be 0 or more, got {args.high_crops}")
    if args.device != "cpu" and not args.device.isdigit():
        raise BadInputError(
            "--device", f"must be 'cpu' or a CUDA device index, got {args.device!r}"
        )
