"""Table reconstruction and game-following benchmark.

    .venv/bin/python -m benchmarks.table [--tables N] [--rendered N] [--games N] [--quick]
                                         [--rendered-camera table|fit]

Writes ``benchmarks/results/table.json``. Parts:

- **layouts** (no pixels): random legal-looking tables (2–8 players, 0–60
  tiles besides the engine, seeds from 900000 on, never used in training)
  laid out by ``datasets.table_layout``, seen through a slightly tilted
  overhead camera at 1280x720 with corner noise, values in random order, read
  back by ``vision.table.reconstruct``; with and without the mat. Rates:
  whole table exact (engine, every train, every tile, every marker),
  per-train exact, seat assignment (a true train's first tile read under the
  right owner), marker attachment, tables with any uncertainty reported.
- **rendered**: tables drawn the same way (seeds from 1100000 on, the same
  tables with and without the mat; no training, eval, layouts or games seed
  comes near) painted by the generator's painter at 1920x1080 (the webcam
  ``mtrain camera-plan --table-cm 100`` calls workable for a 1 m table), one
  camera straight above framing the whole 1000 mm table (tiles about 24 px
  wide; ``--rendered-camera fit`` frames just the tiles and markers, closer
  for small tables), with and without the printed hub mat,
  and read exactly as ``mtrain read IMAGE --players N`` reads them
  (``TileReader(models/)``, ``vision.mat.hub_mat.detect_mat``,
  ``vision.table.reconstruct``, ``vision.stills.trouble_spots``). The same rates as the
  layouts part, plus
  tiles read right (a drawn tile matched one to one by a read tile at polygon
  IoU >= 0.5 with the same two values), how often a mat was found, and the
  median time to read one frame (reader and reconstruction; the image is in
  memory, not loaded from a file). Skipped when ``models/`` holds no trained
  reader.
- **games** (``datasets.table_game``): bots play rounds (2–5 players) with
  injected breaches (mismatch, extra-tile, tile-removed, marker-stale,
  duplicate-tile); each table is painted by the generator's painter (one
  fixed overhead camera at 1280x720, with and without the printed mat) and
  filmed at 10 fps: each table held 2.5 s, a hand reaching over the table
  between tables, the light drifting and jumping, sensor noise;
  ``vision.tracking.tracker.Tracker`` follows the frames. Alerts found / injected
  (same code on the same train), false alerts per 100 moves (alerts the
  tracker raised beyond what the round's referee (``engine.referee``) raises
  on the true tables as a camera sees them), and whether the tracker's tables
  and alerts equal the referee's. Tiles are read by the trained reader when ``models/`` holds it
  (as many rounds, cut to 24 tables), and always by an oracle that returns the painted
  tiles (then the tracker, the table reconstruction and the observer are
  measured, not the models). The JSON says which.
  The trained reader also follows the rounds without the mat with a heap of
  ``BONEYARD`` tiles lying face down beside the trains (the boneyard a camera
  over a real table sees): the same rates, and how many backs were read and
  how many found again unread. And it follows the rounds with and without the mat
  filmed from the bare table (``bare_table_first``), as a round starts: the
  tracker learns the table (``vision.change.known_table``) before the engine is
  laid; the other rows start on the engine and never see the table bare.
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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from datasets.table_draw import draw_table
from datasets.table_layout import TABLE_MM, overhead_homography, seen_tiles
from engine import TableState
from vision.mat.hub_mat import MatView
from vision.models.detections import Detections
from vision.table import TableReading, reconstruct

ROOT = Path(__file__).resolve().parent.parent

SEED_BASE = 900_000
#: Seeds of the rendered part: table ``i`` is seed ``RENDERED_SEED_BASE + i``
#: with and without the mat (the layouts part uses ``SEED_BASE`` to
#: ``SEED_BASE + 500_000 + tables``, the games ``SEED_BASE + 77`` on).
RENDERED_SEED_BASE = SEED_BASE + 200_000
RESULTS = ROOT / "benchmarks" / "results" / "table.json"
#: Tiles lying face down in a heap beside the trains in the last run of games.
BONEYARD = 12


def _trains(table: TableState) -> dict[str, tuple[tuple[tuple[int, int], ...], bool]]:
    return {str(t.owner): (t.tiles, t.marker) for t in table.trains if t.tiles or t.marker}


def _train_text(want: tuple[tuple[int, int], ...], got: tuple[tuple[int, int], ...]) -> str:
    """``8 tiles read as 3, from tile 2: 5-3 read as 5-4`` (tiles counted from the hub)."""
    k = next(i for i in range(max(len(want), len(got)))
             if i >= len(want) or i >= len(got) or want[i] != got[i])
    first = ("-".join(map(str, want[k])) if k < len(want) else "nothing") + " read as " + (
        "-".join(map(str, got[k])) if k < len(got) else "nothing")
    return f"{len(want)} tiles read as {len(got)}, from tile {k + 1}: {first}"


def differences(truth: TableState, reading: TableReading) -> list[str]:
    """What a table reading got wrong, one short phrase per wrong thing (none: exact)."""
    if reading.table is None:
        return ["no table (no engine found)"]
    out = []
    if reading.table.engine != truth.engine:
        out.append(f"engine {truth.engine} read as {reading.table.engine}")
    want, got = _trains(truth), _trains(reading.table)
    for owner in sorted(set(want) | set(got)):
        (w_tiles, w_marker), (g_tiles, g_marker) = want.get(owner, ((), False)), \
            got.get(owner, ((), False))
        if w_tiles != g_tiles:
            out.append(f"train {owner}: {_train_text(w_tiles, g_tiles)}")
        if w_marker != g_marker:
            out.append(f"train {owner}: marker {'missed' if w_marker else 'added'}")
    return out


@dataclass
class Tally:
    """The rates of table readings against the true tables (shared by the parts).

    Whole table exact: engine, every train, every tile, every marker. Per
    train: each true train with tiles read with exactly those tiles under its
    owner. Seat assignment: each true train's first tile read under the right
    owner. Marker attachment: each true marker read on the right train.
    """

    tables: int = 0
    exact: int = 0
    trains_ok: int = 0
    trains_total: int = 0
    seats_ok: int = 0
    seats_total: int = 0
    markers_ok: int = 0
    markers_total: int = 0
    uncertain: int = 0
    failures: list[str] = field(default_factory=list)

    def add(self, truth: TableState, reading: TableReading, label: str) -> bool:
        """Count one reading of ``truth``; a wrong one is described after ``label``."""
        diffs = differences(truth, reading)
        self.tables += 1
        self.exact += not diffs
        self.uncertain += bool(reading.uncertainties)
        if diffs and len(self.failures) < 10:
            said = diffs[:3] + [f"{len(diffs) - 3} more differences"] * (len(diffs) > 3)
            doubts = reading.uncertainties
            if doubts:
                said.append(f"{len(doubts)} doubt{'s' * (len(doubts) > 1)} reported, "
                            f"first: {doubts[0].message}")
            self.failures.append(f"{label}: " + "; ".join(said))
        got = _trains(reading.table) if reading.table is not None else {}
        for owner, (pairs, marker) in _trains(truth).items():
            if pairs:
                self.trains_total += 1
                self.trains_ok += got.get(owner, ((), False))[0] == pairs
            if marker:
                self.markers_total += 1
                self.markers_ok += got.get(owner, ((), False))[1]
        # seat assignment: the train holding each true train's first tile
        owner_of_first = {} if reading.table is None else {
            t.tiles[0]: str(t.owner) for t in reading.table.trains if t.tiles}
        for train in truth.trains:
            if train.tiles:
                self.seats_total += 1
                self.seats_ok += owner_of_first.get(train.tiles[0]) == str(train.owner)
        return not diffs

    def rates(self) -> dict[str, Any]:
        n = max(self.tables, 1)
        return {
            "whole_table_exact": round(self.exact / n, 4),
            "per_train_exact": round(self.trains_ok / max(self.trains_total, 1), 4),
            "seat_assignment": round(self.seats_ok / max(self.seats_total, 1), 4),
            "marker_attachment": round(self.markers_ok / max(self.markers_total, 1), 4),
            "tables_with_uncertainty": round(self.uncertain / n, 4),
        }


def layouts(n: int, mat: bool, noise_px: float, tilt: float,
            inline_doubles: float = 0.0) -> dict[str, Any]:
    tally = Tally()
    times: list[float] = []
    for i in range(n):
        seed = SEED_BASE + i + (500_000 if mat else 0)
        rng = np.random.default_rng(seed)
        players, n_tiles, truth, layout = draw_table(rng, i, mat, inline_doubles)
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
        tally.add(truth, reading, f"seed {seed}: {players} players, {n_tiles} tiles")
    return {
        "tables": n, "mat": mat, "corner_noise_px": noise_px, "camera_tilt": tilt,
        **tally.rates(),
        "reconstruct_ms_median": round(1000 * statistics.median(times), 2),
        "failures": tally.failures,
    }


#: Frame size of the rendered tables: the webcam ``mtrain camera-plan --table-cm 100``
#: calls workable over a whole 1 m table (24 px across a tile); at 1280x720 a tile
#: is 16 px across and a pip 2.6 px, which the planner calls too few.
RENDERED_SIZE = (1920, 1080)


def rendered(n: int, mat: bool, reader: Any, seed_base: int = RENDERED_SEED_BASE,
             camera: str = "table", size: tuple[int, int] = RENDERED_SIZE,
             inline_doubles: float = 0.0) -> dict[str, Any]:
    """``n`` random tables painted by the generator and read as ``mtrain read`` reads them.

    ``reader`` is a ``vision.reading.reader.TileReader`` (or a
    ``datasets.table_game.OracleReader``, which is handed each picture's
    drawn tiles, to measure the rest on the same pictures). ``camera``
    ``"table"``: one camera frames the whole table, whatever lies on it (a
    fixed rig); ``"fit"``: the camera frames each table's tiles and markers
    only, so that small tables are seen closer. ``inline_doubles``: the share of
    doubles laid in line with their train (``datasets.table_layout``).
    """
    if camera not in ("table", "fit"):
        raise ValueError(f"camera must be 'table' or 'fit', not {camera!r}")
    from benchmarks.matching import match
    from datasets.table_game import OracleReader
    from datasets.table_pictures import render_tables
    from vision.mat.hub_mat import detect_mat
    from vision.stills.table_photo import read_table, reconstruct_table

    tally = Tally()
    times: list[float] = []
    tiles_total = tiles_right = mats_found = 0
    renderer = ""
    widths: list[float] = []
    for i in range(n):
        seed = seed_base + i
        players, n_tiles, truth, layout = draw_table(np.random.default_rng(seed), i, mat,
                                                     inline_doubles)
        area = (0.0, 0.0, *layout.size) if camera == "table" else None
        shown = render_tables([layout], size=size, style_seed=seed, area_mm=area)[0]
        renderer = shown.renderer
        widths += [float(np.linalg.norm(c[1] - c[0])) for _, c in shown.tiles]
        if isinstance(reader, OracleReader):
            reader.current = shown
        t0 = time.perf_counter()
        if hasattr(reader, "reset"):  # separate tables, not a video
            reader.reset()
        frame = reader.read(shown.image)
        if isinstance(reader, OracleReader):
            reading = reconstruct_table(frame, players, shown.image, None)
        else:  # as ``mtrain read`` reads it: looked at closer where it breaks
            frame, reading = read_table(frame, players, shown.image, reader)
        times.append(time.perf_counter() - t0)
        mats_found += detect_mat(shown.image) is not None
        want = np.array([c for _, c in shown.tiles], np.float32).reshape(-1, 4, 2)
        got = np.array([t.corners for t in frame.tiles.each()], np.float32).reshape(-1, 4, 2)
        right = sum(sorted(shown.tiles[a][0]) == sorted(frame.tiles.reading(b).values)
                    for a, b in match(want, got))
        tiles_total += len(want)
        tiles_right += right
        tally.add(truth, reading, f"seed {seed}: {players} players, {n_tiles} tiles, "
                                  f"{right}/{len(want)} read right ({len(got)} read)")
    return {
        "tables": n, "mat": mat, "seeds": f"{seed_base}..{seed_base + n - 1}",
        "frames": f"{renderer}, {size[0]}x{size[1]}, camera straight above framing "
                  + (f"the whole {TABLE_MM:.0f} mm table" if camera == "table"
                     else "each table's tiles and markers"),
        "tile_width_px_median": round(statistics.median(widths), 1) if widths else None,
        "reader": "oracle (the drawn tiles)" if isinstance(reader, OracleReader)
                  else type(reader).__name__,
        "models": getattr(reader, "model_files", None),
        **tally.rates(),
        "tiles_read_right": round(tiles_right / max(tiles_total, 1), 4),
        "mat_found": round(mats_found / max(n, 1), 4),
        "read_ms_median": round(1000 * statistics.median(times), 1) if times else None,
        "failures": tally.failures,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tables", type=int, default=400, help="tables per layout setting")
    parser.add_argument("--rendered", type=int, default=40, metavar="N",
                        help="rendered tables read by the trained models, per setting")
    parser.add_argument("--rendered-camera", choices=("table", "fit"), default="table",
                        help="rendered tables: the camera frames the whole table (default) "
                             "or just what lies on it")
    parser.add_argument("--games", type=int, default=6, help="rounds to follow on video")
    parser.add_argument("--quick", action="store_true", help="a few of each, for a smoke test")
    args = parser.parse_args(argv)
    n_tables = 30 if args.quick else args.tables
    n_rendered = 4 if args.quick else args.rendered
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
    trained = (ROOT / "models" / "models.json").exists()
    results["rendered"] = []
    if trained and n_rendered > 0:
        from engine import RuleSet
        from vision.reading.reader import TileReader

        # as ``mtrain read`` builds it: values up to the standard set's
        cli_reader = TileReader(ROOT / "models", max_value=RuleSet.preset("standard").set)
        for mat in (True, False):
            part = rendered(n_rendered, mat, cli_reader, camera=args.rendered_camera)
            results["rendered"].append(part)
            print(f"[table] rendered mat={mat}: whole {part['whole_table_exact']:.3f}, "
                  f"train {part['per_train_exact']:.3f}, seat {part['seat_assignment']:.3f}, "
                  f"marker {part['marker_attachment']:.3f}, "
                  f"tiles {part['tiles_read_right']:.3f}, mat found {part['mat_found']:.2f}, "
                  f"{part['read_ms_median']} ms per frame")
    elif not trained:
        print("[table] models/ has no trained reader: rendered tables skipped")
    from datasets.table_game import benchmark_games

    results["games"] = []
    runs: list[tuple[str, Any, bool, int | None, int, bool]] = [
        ("oracle", None, False, None, 0, False), ("oracle", None, True, None, 0, False)]
    if trained:
        from engine import RuleSet
        from vision.reading.reader import TileReader

        # as ``mtrain watch`` builds it (``Tracker``): values up to the rules' set, and
        # the half classifier only if the tracker lets it vote
        from vision.tracking.tracker import TRACKER_CLASSIFIES_HALVES

        reader = TileReader(ROOT / "models", max_value=RuleSet.preset("standard").set,
                            classify_halves=TRACKER_CLASSIFIES_HALVES)
        runs += [("trained", reader, False, 24, 0, False), ("trained", reader, True, 24, 0, False),
                 ("trained", reader, False, 24, BONEYARD, False)]
        # as a round starts at a table: on the bare table, which the tracker learns
        runs += [("trained", reader, False, 24, 0, True), ("trained", reader, True, 24, 0, True)]
    else:
        print("[table] models/ has no trained reader: games followed with the oracle only")
    for name, reader, mat, max_tables, heap, bare in runs:
        g = benchmark_games(n_games, seed=SEED_BASE + 77, reader=reader, mat=mat,
                            max_tables=max_tables, boneyard=heap, bare=bare)
        results["games"].append(g)
        beside = f", a {heap}-tile boneyard beside" if heap else ""
        beside += ", from the bare table" if bare else ""
        print(f"[table] games ({name} reader, mat={mat}{beside}): alerts found "
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
