"""``mtrain watch``, ``mtrain camera-plan`` and ``mtrain mat``.

Registration is cheap: OpenCV, ONNX Runtime and the tracker load inside the handlers.
"""

from __future__ import annotations

import argparse
import json
import sys

from engine.errors import BadInputError


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from engine.cli import add_rules_arguments
    from vision.cli.calibrate import add_profile_argument

    watch = sub.add_parser(
        "watch", help="follow a game from a camera, a video or a folder of frames",
        description="Print each settled table and the rules engine's alerts as they happen.")
    watch.add_argument("source", metavar="SOURCE",
                       help="a camera index (0, 1, ...), a video file or a folder of images")
    watch.add_argument("--players", type=int, required=True, help="seats at the table (2-8)")
    watch.add_argument("--first", type=int, default=0, help="seat that plays first (default 0)")
    watch.add_argument("--engine", type=int, default=None,
                       help="the round's engine double, e.g. 12 (default: read from the table)")
    watch.add_argument("--models", default="models", help="folder of the ONNX models")
    watch.add_argument("--no-mat", action="store_true", help="do not look for the hub mat")
    watch.add_argument("--retries", type=int, default=None,
                       help="give up on a camera after this many failed attempts in a row")
    watch.add_argument("--json", action="store_true", help="one JSON object per line")
    add_rules_arguments(watch)
    add_profile_argument(watch)
    watch.set_defaults(func=cmd_watch)

    plan = sub.add_parser(
        "camera-plan", help="how high to mount a webcam, and pixels per pip",
        description="Height above the table for a camera looking straight down, and what "
                    "it then resolves.")
    plan.add_argument("--table-cm", default="100",
                      help="table size in cm: 100 (square) or 90x160 (default 100)")
    plan.add_argument("--fov", type=float, default=78.0,
                      help="the camera's diagonal field of view in degrees (default 78)")
    plan.add_argument("--resolution", default="1920x1080", help="WIDTHxHEIGHT (default 1920x1080)")
    plan.add_argument("--pip-mm", type=float, default=4.0, help="pip diameter in mm (default 4)")
    plan.add_argument("--json", action="store_true", help="print JSON")
    plan.set_defaults(func=cmd_camera_plan)

    mat = sub.add_parser("mat", help="write the printable hub mat (SVG or PDF)",
                         description="Write the hub mat with its ArUco markers, seat slots "
                                     "and the Mexican train's slot.")
    mat.add_argument("--out", default="hardware/mat.svg", help="a .svg or .pdf path")
    mat.add_argument("--players", type=int, default=4, help="seats the mat is for (2-8)")
    mat.set_defaults(func=cmd_mat)


def _players(value: int) -> int:
    if not 2 <= value <= 8:
        raise BadInputError("--players", f"expected 2 to 8 seats, got {value}")
    return value


def cmd_watch(args: argparse.Namespace) -> int:
    from engine.cli import rules_from_args
    from vision.cli.calibrate import profile_from_args
    from vision.tracking.tracker import TRACKER_CLASSIFIES_HALVES, Tracker

    players = _players(args.players)
    if not 0 <= args.first < players:
        raise BadInputError("--first", f"expected a seat from 0 to {players - 1}")
    rules = rules_from_args(args)
    if args.engine is not None and not 0 <= args.engine <= rules.set:
        raise BadInputError("--engine", f"expected a double from 0 to {rules.set}")
    profile = profile_from_args(args, rules.set)
    reader = None  # without a profile, the tracker makes its own
    if profile is not None:
        from vision.reading.reader import TileReader

        reader = TileReader(args.models, max_value=rules.set,
                            classify_halves=TRACKER_CLASSIFIES_HALVES).with_profile(profile)
    tracker = Tracker(args.source, players, rules, reader=reader, models_dir=args.models,
                      first=args.first, engine=args.engine, mat=not args.no_mat,
                      max_retries=args.retries)
    _ = tracker.reader  # load the models now: missing models are a clear error up front
    for event in tracker:
        if args.json:
            print(json.dumps(event.to_json(), sort_keys=True), flush=True)
        else:
            print(event, flush=True)
    return 0


def cmd_camera_plan(args: argparse.Namespace) -> int:
    from vision.tracking.camera_plan import parse_resolution, parse_size, plan_camera

    w, h = parse_size(args.table_cm, "--table-cm")
    resolution = parse_resolution(args.resolution)
    try:
        plan = plan_camera(w, h, args.fov, resolution, args.pip_mm)
    except ValueError as exc:
        raise BadInputError("camera-plan", str(exc)) from None
    if args.json:
        print(json.dumps(plan.to_json(), sort_keys=True))
    else:
        print(plan.text())
    return 0


def cmd_mat(args: argparse.Namespace) -> int:
    from pathlib import Path

    from vision.mat.hub_mat import write_mat

    out = Path(args.out)
    if not out.parent.is_dir():
        raise BadInputError(str(out), "the folder does not exist")
    try:
        write_mat(out, _players(args.players))
    except OSError as exc:
        raise BadInputError(str(out), f"cannot write: {exc.strerror or exc}") from None
    print(f"wrote {out} (hub mat for {args.players} players; print at 100 %)", file=sys.stderr)
    return 0
