"""``mtrain read`` and ``mtrain score``: reading photos from the command line.

Registration is cheap; OpenCV, ONNX Runtime and the models load only when a
command runs.
"""

from __future__ import annotations

import argparse
import json
import os
from typing import TYPE_CHECKING, Any

from engine.cli import add_rules_arguments, rules_from_args
from engine.errors import BadInputError
from vision.cli import calibrate as calibrate_cli
from vision.cli.calibrate import add_profile_argument, profile_from_args
from vision.stills.table_photo import read_photo

if TYPE_CHECKING:

    from vision.reading.reader import FrameReading

#: Seat count assumed by ``read`` when ``--players`` is not given.
DEFAULT_PLAYERS = 4


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    read = sub.add_parser(
        "read", help="read the tiles (and the table) in one photo or frame",
        description="Find every tile in an image and read its two values.")
    read.add_argument("image", metavar="IMAGE", help="a JPEG or PNG photo or frame")
    read.add_argument("--json", action="store_true", help="print JSON")
    read.add_argument("--players", type=_players, default=DEFAULT_PLAYERS, metavar="N",
                      help=f"seats at the table, for reading the table "
                           f"(default {DEFAULT_PLAYERS})")
    read.add_argument("--annotate", metavar="OUT.png",
                      help="also write the image with each tile's outline and reading")
    read.add_argument("--models", metavar="DIR", default=None,
                      help="folder with models.json (default: the bundled models/)")
    add_rules_arguments(read)
    add_profile_argument(read)
    add_empty_argument(read)
    read.set_defaults(func=run_read)

    score = sub.add_parser(
        "score", help="score end-of-round hands from photos, one per player",
        description="Read one photo of each player's remaining tiles (in seat order) "
                    "and print each hand's penalty under the rule set.")
    score.add_argument("images", nargs="+", metavar="IMAGE", help="one photo per player")
    score.add_argument("--json", action="store_true", help="print JSON")
    score.add_argument("--models", metavar="DIR", default=None,
                       help="folder with models.json (default: the bundled models/)")
    add_rules_arguments(score)
    add_profile_argument(score)
    add_empty_argument(score)
    score.set_defaults(func=run_score)
    calibrate_cli.register(sub)


def add_empty_argument(parser: argparse.ArgumentParser) -> None:
    """``--empty EMPTY`` (``vision.stills.bare_photo``): a photo of the bare table."""
    parser.add_argument("--empty", metavar="EMPTY", default=None,
                        help="a photo of the bare table (same camera, roughly the same "
                             "framing): boxes on table unchanged from it are dropped")


def _players(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of players: {text!r}") from None
    if not 2 <= n <= 14:
        raise argparse.ArgumentTypeError(f"players must be 2 to 14, got {n}")
    return n


def run_read(args: argparse.Namespace) -> int:
    from vision.images import load_image
    from vision.reading.reader import TileReader
    from vision.stills.bare_photo import bare_for, empty_from_args

    rules = rules_from_args(args)
    image = load_image(args.image)
    # the bare table registered first: a pair of photos that does not register fails early
    bare = bare_for(empty_from_args(args), image, os.fspath(args.image))
    profile = profile_from_args(args, rules.set)
    reader = TileReader(args.models, max_value=rules.set).with_profile(profile)
    frame, table = read_photo(reader, image, args.players, bare)
    if args.annotate:
        write_annotated(args.annotate, image, frame)
    if args.json:
        decoded = table.decoded_json() if table is not None else []
        print(json.dumps({**frame.to_json(), "table": table_json(table), "decoded": decoded}))
        return 0
    print(read_text(os.fspath(args.image), frame, table))
    return 0


def run_score(args: argparse.Namespace) -> int:
    from vision.images import load_image
    from vision.reading.reader import TileReader
    from vision.stills.bare_photo import empty_from_args, score_on_bare
    from vision.stills.hand_photos import DOUBT_WORDS, score_photos

    rules = rules_from_args(args)
    for path in args.images:  # every photo is checked before the models load
        load_image(path)
    empty = empty_from_args(args)
    profile = profile_from_args(args, rules.set)
    reader = TileReader(args.models, max_value=rules.set).with_profile(profile)
    hands = (score_photos(args.images, rules, reader) if empty is None
             else score_on_bare(args.images, rules, reader, empty))
    if args.json:
        print(json.dumps({"hands": [h.to_json() for h in hands]}))
        return 0
    for seat, hand in enumerate(hands):
        print(f"seat {seat} ({hand.source}): {hand.text()}")
    doubtful = [(seat, str(hand.tiles[i]), hand.doubts[i])
                for seat, hand in enumerate(hands) for i in hand.uncertain]
    doubtful += [(seat, f"{box.reading.values[0]}-{box.reading.values[1]} (left out)",
                  box.doubts) for seat, hand in enumerate(hands) for box in hand.left_out]
    if doubtful:
        listed = ", ".join(f"{t} (seat {seat}: {', '.join(DOUBT_WORDS[d] for d in doubts)})"
                           for seat, t, doubts in doubtful)
        print(f"check by eye: {listed}")
    down = [f"seat {seat} ({hand.face_down})" for seat, hand in enumerate(hands) if hand.face_down]
    if down:
        print(f"face down, not counted: {', '.join(down)}; turn them over and score again")
    return 0


def table_json(reading: Any | None) -> dict[str, Any] | None:
    """CONTRACTS.md's TABLE (with ``engine``) of a table reading, or None."""
    table = getattr(reading, "table", None)
    return None if table is None else dict(table.to_json())


def write_annotated(path: str, image: Any, frame: FrameReading) -> None:
    import cv2

    from vision.stills.annotate import ReadingAnnotator

    drawn = ReadingAnnotator().annotate(image, frame)
    try:
        ok = cv2.imwrite(path, drawn)
    except cv2.error as exc:
        raise BadInputError(path, f"cannot write image ({exc.err})") from None
    if not ok:
        raise BadInputError(path, "cannot write image (unknown extension or folder?)")


def read_text(source: str, frame: FrameReading, table: Any | None) -> str:
    """The human form of ``mtrain read``."""
    doubtful = len(frame.uncertain)
    lines = [f"{source}: {len(frame.tiles)} tile{'s' * (len(frame.tiles) != 1)}"
             + (f" ({doubtful} uncertain)" if doubtful else "")
             + f", {len(frame.markers)} marker{'s' * (len(frame.markers) != 1)}"
             + (f", {len(frame.backs)} face down" if frame.backs else "")]
    lines += [f"  {tile}" for tile in frame.tiles.each()]
    state = getattr(table, "table", None)
    if state is not None:
        text = state.text() if hasattr(state, "text") else json.dumps(state.to_json())
        lines.append("table:")
        lines += [f"  {line}" for line in str(text).splitlines()]
    elif table is not None:
        lines.append("table: not recognised")
    for doubt in getattr(table, "uncertainties", None) or []:
        lines.append(f"  ? {getattr(doubt, 'message', doubt)}")
    return "\n".join(lines)
