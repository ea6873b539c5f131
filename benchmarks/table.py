"""Table reconstruction and game-following benchmark.

    .venv/bin/python benchmarks/table.py [--tables N] [--games N] [--quick]

Writes ``benchmarks/results/table.json``. Parts:

- **layouts** (no pixels): random legal-looking tables (2–8 players, 0–60
  tiles besides the engine, seeds from 900000 on, never used in training)
  laid out by ``datasets.table_layout``, seen through a slightly tilted
  overhead camera at 1280x720 with corner noise, values in random order, read
  back by ``vision.table.reconstruct``; with and without the mat. Rates:
  whole table exact (engine, every train, every tile, every marker),
  per-train exact, seat assignment (a true train's first tile read under the
  right owner), marker attachment, tables with any uncertainty reported.
- **games** (``datasets.table_game``): bots play rounds (2–5 players) with
  injected breaches (mismatch, extra-tile, tile-removed, marker-stale,
  duplicate-tile); each table is painted by the generator's painter (one
  fixed overhead camera at 1280x720, with and without the printed mat) and
  filmed at 10 fps: each table held 2.5 s, a hand reaching over the table
  between tables, the light drifting and jumping, sensor noise;
  ``vision.tracker.Tracker`` follows the frames. Alerts found / injected
  (same code on the same train), false alerts per 100 moves (alerts the
  tracker raised beyond what ``engine.Observer`` raises on the true tables as
  a camera sees them), and whether the tracker's tables and alerts equal the
  observer's. Tiles are read by the trained reader when ``models/`` holds it
  (rounds cut to 24 tables), and always by an oracle that returns the painted
  tiles (then the tracker, the table reconstruction and the observer are
  measured, not the models). The JSON says which.
- **throughput** at 1280x720: frames per second of the whole tracker loop
  and the settled-state latency (time from the last hand frame to the
  settled-table event).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from datasets.table_layout import (  # noqa: E402
    layout_table,
    overhead_homography,
    random_table,
    seen_tiles,
)
from engine import TableState  # noqa: E402
from vision.detections import Detections  # noqa: E402
from vision.mat import MatView  # noqa: E402
from vision.table import reconstruct  # noqa: E402

SEED_BASE = 900_000
RESULTS = ROOT / "benchmarks" / "results" / "table.json"


def _trains(table: TableState) -> dict[str, tuple[tuple[tuple[int, int], ...], bool]]:
    return {str(t.owner): (t.tiles, t.marker) for t in table.trains if t.tiles or t.marker}


def layouts(n: int, mat: bool, noise_px: float, tilt: float) -> dict[str, Any]:
    exact = trains_ok = trains_total = seats_ok = seats_total = 0
    markers_ok = markers_total = uncertain = 0
    times: list[float] = []
    failures: list[str] = []
    for i in range(n):
        seed = SEED_BASE + i + (500_000 if mat else 0)
        rng = np.random.default_rng(seed)
        players = 2 + i % 7
        n_tiles = int(rng.integers(0, 61))
        truth = random_table(rng, players, 12, n_tiles, marker_rate=0.35)
        layout = layout_table(truth, players, rng, mat=mat)
        to_image = overhead_homography(layout.size, (1280, 720), rng, tilt=tilt)
        tiles, marker_corners = seen_tiles(layout, to_image, rng, noise_px=noise_px)
        k = len(marker_corners)
        markers = Detections(marker_corners, np.ones(k), np.ones(k))
        view = None
        if mat:
            view = MatView(players, np.linalg.inv(to_image @ layout.hub.mat_matrix), (), 0.0)
        t0 = time.perf_counter()
        reading = reconstruct(tiles, markers, players, view)
        times.append(time.perf_counter() - t0)
        got = _trains(reading.table) if reading.table is not None else {}
        want = _trains(truth)
        ok = reading.table is not None and reading.table.engine == truth.engine and got == want
        exact += ok
        uncertain += bool(reading.uncertainties)
        if not ok and len(failures) < 10:
            failures.append(f"seed {seed}: {players} players, {n_tiles} tiles; "
                            + "; ".join(u.message for u in reading.uncertainties[:2]))
        for owner, (pairs, marker) in want.items():
            if pairs:
                trains_total += 1
                trains_ok += got.get(owner, ((), False))[0] == pairs
            if marker:
                markers_total += 1
                markers_ok += got.get(owner, ((), False))[1]
        # seat assignment: the train holding each true train's first tile
        if reading.table is not None:
            owner_of_first = {t.tiles[0]: str(t.owner) for t in reading.table.trains if t.tiles}
            for train in truth.trains:
                if train.tiles:
                    seats_total += 1
                    seats_ok += owner_of_first.get(train.tiles[0]) == str(train.owner)
        else:
            seats_total += sum(1 for t in truth.trains if t.tiles)
    return {
        "tables": n, "mat": mat, "corner_noise_px": noise_px, "camera_tilt": tilt,
        "whole_table_exact": round(exact / n, 4),
        "per_train_exact": round(trains_ok / max(trains_total, 1), 4),
        "seat_assignment": round(seats_ok / max(seats_total, 1), 4),
        "marker_attachment": round(markers_ok / max(markers_total, 1), 4),
        "tables_with_uncertainty": round(uncertain / n, 4),
        "reconstruct_ms_median": round(1000 * statistics.median(times), 2),
        "failures": failures,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tables", type=int, default=400, help="tables per layout setting")
    parser.add_argument("--games", type=int, default=6, help="rounds to follow on video")
    parser.add_argument("--quick", action="store_true", help="a few of each, for a smoke test")
    args = parser.parse_args(argv)
    n_tables = 30 if args.quick else args.tables
    n_games = 1 if args.quick else args.games
    results: dict[str, Any] = {"seed_base": SEED_BASE, "layouts": []}
    for mat in (True, False):
        for noise, tilt in ((0.7, 0.03), (2.0, 0.06)):
            part = layouts(n_tables, mat, noise, tilt)
            results["layouts"].append(part)
            print(f"[table] layouts mat={mat} noise={noise}px: "
                  f"whole {part['whole_table_exact']:.3f}, train {part['per_train_exact']:.3f}, "
                  f"seat {part['seat_assignment']:.3f}, marker {part['marker_attachment']:.3f}, "
                  f"{part['reconstruct_ms_median']} ms")
    from datasets.table_game import benchmark_games

    results["games"] = []
    runs: list[tuple[str, Any, bool, int | None]] = [
        ("oracle", None, False, None), ("oracle", None, True, None)]
    if (ROOT / "models" / "models.json").exists():
        from vision.reader import TileReader

        reader = TileReader(ROOT / "models")
        runs += [("trained", reader, False, 24), ("trained", reader, True, 24)]
    else:
        print("[table] models/ has no trained reader: games followed with the oracle only")
    for name, reader, mat, max_tables in runs:
        g = benchmark_games(n_games if reader is None else max(1, n_games // 2),
                            seed=SEED_BASE + 77, reader=reader, mat=mat, max_tables=max_tables)
        results["games"].append(g)
        print(f"[table] games ({name} reader, mat={mat}): alerts found "
              f"{g['injected_found']}/{g['injected']}, "
              f"false per 100 moves {g['false_alerts_per_100_moves']}, "
              f"same as observer {g['same_alerts_as_observer']}, "
              f"{g['frames_per_second']} fps, settled after {g['settled_latency_s_median']} s")
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(results, indent=2, default=str) + "\n", encoding="utf-8")
    print(f"[table] wrote {RESULTS.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
