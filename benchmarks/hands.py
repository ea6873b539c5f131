"""Whether a wrong hand total is ever trusted: hand photos scored as ``mtrain score`` and
the app's hand page score them, each total against the truth, and whether the hand is
marked for checking (``vision.stills.hand_photos.HandReading.needs_check``).

- **real** (``../shared/realdata/`` when present; evaluation only, never tuned on):
  ``benchmarks.vision_real.real_hands``.
- **eval** (``datasets/eval/hands_*``: rendered hands, their labels the truth).

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

ROOT = Path(__file__).resolve().parent.parent
os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")

REALDATA = ROOT.parent / "shared" / "realdata"


def main(argv: list[str] | None = None) -> int:
    from benchmarks.vision_real import hands_marked, real_hands
    from datasets.labels import iter_scenes
    from engine import RuleSet, Tile, hand_points
    from vision.reading.reader import TileReader

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--models", default=str(ROOT / "models"))
    parser.add_argument("--realdata", default=str(REALDATA))
    parser.add_argument("--eval", default=str(ROOT / "datasets" / "eval"))
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
    results["seconds"] = round(time.perf_counter() - t0, 1)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=1) + "\n")
    for part in ("real", "eval"):
        r = results.get(part)
        if isinstance(r, dict):
            print(f"[hands] {part}: {r['hands']} hands, {r['exact']} exact "
                  f"({r['exact_but_marked']} of them marked), {r['wrong_and_marked']} wrong and "
                  f"marked, {r['wrong_and_unmarked']} wrong and NOT marked")
    print(f"[hands] results in {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
