"""Calibration to a player's set (``vision.calibration.calibrate``): reading before and after.

For each look (``datasets.set_style``: ``unseen``, a colour code and 10-12
layouts no training scene shows, and ``standard``) and each set seed, the whole
double-12 set is rendered face up in three photos and calibrated; held-out
hands and tables of the same set (other seeds) are then read with the plain
reader and with the set's profile. Counted: tiles labelled right by the
calibration, tiles read right (a reading centred on the tile with its values),
photos with every tile read right, and tables read back exactly as ``mtrain read``
reads them (engine and every train's tiles in order; which seat owns a train is
left to ``benchmarks.table``). Writes the ``calibration`` section of
``benchmarks/results/realism.json``, leaving its other sections as they are.

    python -m benchmarks.calibration [--sets 2] [--hands 6] [--tables 3]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

import numpy as np

from datasets.render import Scene
from datasets.set_style import Look, hand_photo, set_look, set_photos, table_photo
from vision.calibration.calibrate import calibrate
from vision.reading.reader import TileReader

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results" / "realism.json"
#: Set seeds start here; held-out photos of a set use seeds from ``HELD_OUT``.
SET_SEED = 7100
HELD_OUT = 7900
#: Tiles hidden below this share are not counted.
MIN_VISIBLE = 0.9


def _right(scene: Scene, reader: TileReader) -> tuple[int, int]:
    """Tiles of ``scene`` read right by ``reader``, and tiles counted."""
    frame = reader.read(scene.image)
    right = counted = 0
    for tile in scene.tiles:
        if tile.visible < MIN_VISIBLE:
            continue
        counted += 1
        centre = tile.corners.mean(axis=0)
        width = float(np.linalg.norm(tile.corners[1] - tile.corners[0]))
        near = [r for r in frame.tiles.each()
                if float(np.linalg.norm(r.corners.mean(axis=0) - centre)) < 0.5 * width]
        right += any(sorted(r.values) == sorted(tile.values) for r in near)
    return right, counted


def _chains(table: Any) -> tuple[int, list[tuple[tuple[int, int], ...]]]:
    """A table's engine and its trains' tile chains, owners aside (seat numbering is the
    table reading's business, measured in ``benchmarks.table``)."""
    return table.engine, sorted(tuple(tuple(t) for t in train.tiles)
                                for train in table.trains if train.tiles)


def _table_exact(scene: Scene, reader: TileReader) -> bool:
    """Whether ``scene``'s table reads back exactly (engine and every train's tiles in
    order), as ``mtrain read`` reads it."""
    from engine.table import TableState
    from vision.stills.table_photo import read_table

    truth = TableState.from_json(scene.table)
    players = sum(1 for t in truth.trains if t.owner != "mexican")
    reader.reset()
    _, reading = read_table(reader.read(scene.image), players, scene.image, reader)
    return reading.table is not None and _chains(reading.table) == _chains(truth)


def _one_set(reader: TileReader, look: Look, seed: int, hands: int, tables: int
             ) -> dict[str, Any]:
    style = set_look(seed, look)
    photos = set_photos(style, 12, seed)
    started = time.perf_counter()
    result = calibrate(reader, [p.image for p in photos], 12)
    seconds = time.perf_counter() - started
    labelled = 0
    for tile in result.tiles:
        near = min(photos[tile.photo].tiles, key=lambda t: float(np.linalg.norm(
            t.corners.mean(axis=0) - tile.corners.mean(axis=0))))
        labelled += tile.label == tuple(sorted(near.values))
    profiled = reader.with_profile(result.profile)
    scenes = ([hand_photo(style, HELD_OUT + seed * 100 + k) for k in range(hands)]
              + [table_photo(style, HELD_OUT + seed * 100 + 50 + k) for k in range(tables)])
    # tiles right, counted, photos with every tile right, tables exact
    counts = {"before": [0, 0, 0, 0], "after": [0, 0, 0, 0]}
    for scene in scenes:
        for key, r in (("before", reader), ("after", profiled)):
            right, counted = _right(scene, r)
            counts[key][0] += right
            counts[key][1] += counted
            counts[key][2] += right == counted
            if scene.table is not None:
                counts[key][3] += _table_exact(scene, r)
    return {"seed": seed, "found": len(result.tiles), "labelled_right": labelled,
            "doubtful": len(result.doubtful), "colour_coded": result.profile.colour_coded,
            "calibrate_s": round(seconds, 1), "photos": len(scenes),
            **{f"{key}_tiles_right": v[0] for key, v in counts.items()},
            "tiles": counts["before"][1],
            **{f"{key}_photos_all_right": v[2] for key, v in counts.items()},
            "tables": tables,
            **{f"{key}_tables_exact": v[3] for key, v in counts.items()}}


def calibration(reader: TileReader, sets: int, hands: int, tables: int) -> dict[str, Any]:
    """The ``calibration`` section (module docstring)."""
    out: dict[str, Any] = {"set": 12, "sets_each": sets, "hands_each": hands,
                           "tables_each": tables, "looks": {}}
    for look in ("unseen", "standard"):
        rows = [_one_set(reader, look, SET_SEED + k, hands, tables) for k in range(sets)]
        total = {key: sum(int(r[key]) for r in rows)
                 for key in ("found", "labelled_right", "doubtful", "tiles", "photos",
                             "before_tiles_right", "after_tiles_right",
                             "before_photos_all_right", "after_photos_all_right",
                             "tables", "before_tables_exact", "after_tables_exact")}
        out["looks"][look] = {"sets": rows, "total": total}
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", type=int, default=2, help="sets per look")
    parser.add_argument("--hands", type=int, default=6, help="held-out hand photos per set")
    parser.add_argument("--tables", type=int, default=3, help="held-out tables per set")
    parser.add_argument("--models", default=str(ROOT / "models"))
    args = parser.parse_args(argv)
    reader = TileReader(args.models, max_value=12)
    section = calibration(reader, args.sets, args.hands, args.tables)
    results = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
    results["calibration"] = section
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(results, indent=1) + "\n")
    print(json.dumps({look: v["total"] for look, v in section["looks"].items()}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
