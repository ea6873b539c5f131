"""``mtrain calibrate`` and the ``--profile`` option of ``read``, ``score`` and ``watch``.

Registration is cheap; OpenCV, ONNX Runtime and the models load only when the
command runs.
"""

from __future__ import annotations

import argparse
import json
import os
from typing import TYPE_CHECKING

from engine.errors import BadInputError

if TYPE_CHECKING:
    from vision.calibration.calibrate import Calibration
    from vision.reading.set_profile import SetProfile


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    cal = sub.add_parser(
        "calibrate", help="teach the reader your set from photos of all its tiles",
        description="Read photos of a whole set laid out face up (every tile once), label "
                    "every tile by an optimal assignment to the set, list the doubtful "
                    "ones, and keep the set's pip colours as a profile for read, score, "
                    "watch and serve (--profile).")
    cal.add_argument("photos", nargs="+", metavar="PHOTO", help="photos of the whole set")
    cal.add_argument("--set", type=int, default=12, dest="top", metavar="N",
                     help="the set is double-N (default 12)")
    cal.add_argument("--out", metavar="PROFILE", default=None,
                     help="where to write the profile (default: the user's data folder, "
                          "or $MTRAIN_PROFILE)")
    cal.add_argument("--name", default="", help="a name for the set")
    cal.add_argument("--models", metavar="DIR", default=None,
                     help="folder with models.json (default: the bundled models/)")
    cal.add_argument("--json", action="store_true", help="print JSON")
    cal.set_defaults(func=run_calibrate)


def add_profile_argument(parser: argparse.ArgumentParser) -> None:
    """``--profile [PATH]``: read with a set profile (alone: the kept one)."""
    parser.add_argument("--profile", nargs="?", const="", default=None, metavar="PATH",
                        help="weigh pip counts by your set's colours (mtrain calibrate); "
                             "alone: the profile kept in the user's data folder")


def profile_from_args(args: argparse.Namespace, top: int) -> SetProfile | None:
    """The profile ``--profile`` names (None without the option); ``BadInputError`` when
    it cannot be read or is for another set size than ``top``."""
    from vision.reading.set_profile import default_profile_path, load_profile

    named = getattr(args, "profile", None)
    if named is None:
        return None
    path = named or os.fspath(default_profile_path())
    profile = load_profile(path)
    if profile.top != top:
        raise BadInputError(path, f"the profile is for a double-{profile.top} set, "
                            f"the rules name double-{top}")
    return profile


def run_calibrate(args: argparse.Namespace) -> int:
    from vision.calibration.calibrate import calibrate
    from vision.images import load_image
    from vision.reading.reader import TileReader
    from vision.reading.set_profile import default_profile_path, save_profile

    if not 1 <= args.top <= 18:
        raise BadInputError("--set", f"a set is double-1 to double-18, got {args.top}")
    images = [load_image(p) for p in args.photos]  # every photo checked before the models
    reader = TileReader(args.models, max_value=args.top)
    result = calibrate(reader, images, args.top, args.name)
    out = args.out or os.fspath(default_profile_path())
    save_profile(result.profile, out)
    if args.json:
        print(json.dumps({**result.to_json(), "saved": os.fspath(out)}))
        return 0
    print(calibration_text(result, [os.fspath(p) for p in args.photos]))
    print(f"profile saved: {out}")
    return 0


def calibration_text(result: Calibration, photos: list[str]) -> str:
    """The human form of ``mtrain calibrate``."""
    tiles = result.tiles
    assigned = sum(t.label is not None for t in tiles)
    lines = [f"double-{result.top} set: {len(tiles)} tiles found, {assigned} assigned, "
             f"{len(result.doubtful)} doubtful"]
    for i in result.doubtful:
        t = tiles[i]
        x, y = t.corners.mean(axis=0)
        label = "none left" if t.label is None else f"{t.label[0]}-{t.label[1]}"
        lines.append(f"  check tile {i} in {photos[t.photo]} at ({x:.0f}, {y:.0f}): "
                     f"read {t.read[0]}-{t.read[1]}, labelled {label}")
    if result.missing:
        lines.append("not found: " + ", ".join(f"{a}-{b}" for a, b in result.missing))
    coded = result.profile.colour_coded
    lines.append("pip colours (Lab a, b, darkness):" if coded
                 else "pip colours: not colour-coded (one colour for all counts); "
                      "readings stay as read")
    for c in result.profile.colours:
        if coded and c.mean is not None:
            lines.append(f"  {c.count:2d}: ({c.mean[0]:+.0f}, {c.mean[1]:+.0f}, "
                         f"{c.mean[2]:.0f}) from {c.measured} halves")
    return "\n".join(lines)
