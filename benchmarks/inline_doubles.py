"""Doubles laid in line with their train: tables read whole when players lay them so.

    .venv/bin/python -m benchmarks.inline_doubles [--tables N] [--rendered N]

Writes ``benchmarks/results/inline_doubles.json``. Many tables lay a double in line
with its train rather than crosswise; a detector then boxes the double, and sometimes
the joints on either side of it as doubles too. The same random tables as
``benchmarks/table.py`` (its seeds, drawn by ``datasets.table_draw``), with every
double but the engine laid in line (``inline_doubles=1.0``):

- **layouts** (no pixels): the tiles' true outlines with corner noise, read back by
  ``vision.table.reconstruct``, with and without the mat;
- **rendered**: painted by the generator's painter at 1920x1080 and read as
  ``mtrain read IMAGE --players N`` reads them (``TileReader(models/)``); the same
  rates as ``table.json``'s rendered part, which lays doubles crosswise.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from benchmarks.table import layouts, rendered

ROOT = Path(__file__).resolve().parent.parent

RESULTS = ROOT / "benchmarks" / "results" / "inline_doubles.json"
#: Every double of a train laid in line (the engine lies on the hub as ever).
INLINE = 1.0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tables", type=int, default=400, help="laid-out tables per setting")
    parser.add_argument("--rendered", type=int, default=20, metavar="N",
                        help="rendered tables read by the trained models, per setting")
    args = parser.parse_args(argv)
    results: dict[str, Any] = {"inline_doubles": INLINE, "layouts": [], "rendered": []}
    for mat in (True, False):
        part = layouts(args.tables, mat, 0.7, 0.03, INLINE)
        results["layouts"].append(part)
        print(f"[inline] layouts mat={mat}: whole {part['whole_table_exact']:.3f}, "
              f"train {part['per_train_exact']:.3f}")
    if (ROOT / "models" / "models.json").exists() and args.rendered > 0:
        from engine import RuleSet
        from vision.reading.reader import TileReader

        reader = TileReader(ROOT / "models", max_value=RuleSet.preset("standard").set)
        for mat in (True, False):
            part = rendered(args.rendered, mat, reader, inline_doubles=INLINE)
            results["rendered"].append(part)
            print(f"[inline] rendered mat={mat}: whole {part['whole_table_exact']:.3f}, "
                  f"train {part['per_train_exact']:.3f}, tiles {part['tiles_read_right']:.3f}")
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    print(f"[inline] wrote {RESULTS.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
