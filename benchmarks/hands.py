"""Whether a wrong hand total is ever trusted: hand photos scored as ``mtrain score`` and
the app's hand page score them, each total against the truth, and whether the hand is
marked for checking (``vision.stills.hand_photos.HandReading.needs_check``).

- **real** (``../shared/realdata/`` when present; evaluation only, never tuned on):
  ``benchmarks.vision_real.real_hands``.
- **eval** (``datasets/eval/hands_*``: rendered hands, their labels the truth).
- **photoreal** (``python -m datasets.composite --hands``: hands of rendered tile sprites
  laid out face up on cloths and tops and seen by a phone, composed here from a fixed
  seed; their labels the truth). The sprites: ``tests/datasets/sprites`` and, when
  present, a sprite library beside the checkout (``../runs/sprites``, made by
  ``python -m datasets.photoreal sprites ../runs/sprites --count 64 --seed 7``): the
  first ``PHOTOREAL_SPRITES`` of each, by name; how many each gave is written with the
  results, as the frames depend on them.

Writes ``benchmarks/results/hands.json``: per part, ``hands``, ``exact``,
``exact_but_marked``, ``wrong_and_marked``, ``wrong_and_unmarked`` and every hand
wrong or marked, by name.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")

REALDATA = ROOT.parent / "shared" / "realdata"
SPRITES = [ROOT / "tests" / "datasets" / "sprites", ROOT.parent / "runs" / "sprites"]
#: The composited hands' seed, and how many.
PHOTOREAL_SEED = 4401
PHOTOREAL_HANDS = 48
#: Sprites taken from each folder (the first, by name: sprites are rendered from a seed,
#: so the same ones can be made again): a folder a render is filling gives the same hands.
PHOTOREAL_SPRITES = 64


def photoreal_hands(sprites: list[Path], count: int) -> list[tuple[str, np.ndarray, int]]:
    """``(name, image, true points)`` of ``count`` composited hand photos."""
    from datasets.composite import SpriteLibrary
    from datasets.composite.compose import HAND_SET, Options, compose_frame
    from datasets.composite.hand_plan import HAND_FRAME
    from engine import RuleSet, Tile, hand_points

    library = SpriteLibrary(sprites, per_folder=PHOTOREAL_SPRITES)
    rules = RuleSet(set=HAND_SET)
    options = Options(hands=True, size=HAND_FRAME)
    out: list[tuple[str, np.ndarray, int]] = []
    for i in range(count):
        image, labels = compose_frame(library, PHOTOREAL_SEED, i, options)
        points = hand_points([Tile(*t["values"]) for t in labels["tiles"]], rules)
        out.append((f"photoreal_{PHOTOREAL_SEED}_{i:03d}", image, points))
    return out


def main(argv: list[str] | None = None) -> int:
    from benchmarks.vision_real import hands_marked, real_hands
    from datasets.labels import iter_scenes
    from engine import RuleSet, Tile, hand_points
    from vision.reading.reader import TileReader

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--models", default=str(ROOT / "models"))
    parser.add_argument("--realdata", default=str(REALDATA))
    parser.add_argument("--eval", default=str(ROOT / "datasets" / "eval"))
    parser.add_argument("--sprites", action="append", default=None, metavar="DIR",
                        help="sprite folders for the photoreal hands (default: "
                             "tests/datasets/sprites and ../runs/sprites when present)")
    parser.add_argument("--photoreal", type=int, default=PHOTOREAL_HANDS,
                        help=f"composited hands to score (default {PHOTOREAL_HANDS}; 0: none)")
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "hands.json"))
    args = parser.parse_args(argv)

    rules = RuleSet()
    reader = TileReader(args.models, max_value=rules.set)
    results: dict[str, object] = {}
    t0 = time.perf_counter()
    if Path(args.realdata).is_dir():
        results["real"] = real_hands(reader, Path(args.realdata))
    else:
        print(f"[hands] no real photos in {args.realdata}: skipped")
    photos = [(image.name, image,
               hand_points([Tile(*t["values"]) for t in labels["tiles"]], rules))
              for image, labels in iter_scenes(Path(args.eval)) if labels["kind"] == "hands"]
    if photos:
        results["eval"] = hands_marked(reader, photos, rules)
    sprites = [Path(f) for f in (args.sprites or SPRITES) if Path(f).is_dir()]
    if args.photoreal > 0 and sprites:
        from datasets.composite import SpriteLibrary
        made = photoreal_hands(sprites, args.photoreal)
        results["photoreal"] = {**hands_marked(reader, made, rules),
                                "seed": PHOTOREAL_SEED,
                                "sprites": {os.path.relpath(f, ROOT): len(SpriteLibrary(
                                    [f], per_folder=PHOTOREAL_SPRITES)) for f in sprites}}
    results["seconds"] = round(time.perf_counter() - t0, 1)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=1) + "\n")
    for part in ("real", "eval", "photoreal"):
        r = results.get(part)
        if isinstance(r, dict):
            print(f"[hands] {part}: {r['hands']} hands, {r['exact']} exact "
                  f"({r['exact_but_marked']} of them marked), {r['wrong_and_marked']} wrong and "
                  f"marked, {r['wrong_and_unmarked']} wrong and NOT marked")
    print(f"[hands] results in {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
