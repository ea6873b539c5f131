"""How long one tracked still frame takes: the whole frame looked at, or only windows.

    .venv/bin/python -m benchmarks.tracked_latency [--runs N] [--precisions auto,float]

A painted round (``datasets.table_sequence``, 1280x720, a patterned cloth and
the mat): the tracker's memory and known table hold the settled table, and
the next frame shows one more tile. What the tracker does with that still
frame is timed: the detector, the known table's screen (phantoms out, missed
tiles in), the memory reading only the new boxes, and the table rebuilt.

- the whole frame looked at, without and with the known table
  (``tracked_frame_ms``, ``tracked_frame_known_table_ms``, the detector told the
  bare table as the tracker tells it; the known table's own share ``known_table_ms``:
  its bump check and screen);
- only windows around what changed (``vision.tracking.window_look``;
  ``crop_frame_ms``, the windows' own look ``crop_detect_ms``, how many and
  how large), the mat kept from the frame before as the tracker keeps it; and
  a still frame that did not change (``unchanged_frame_ms``: no detector).

Medians over ``--runs``, wall clock, with the process's CPU time beside the
main two (``*_cpu_ms``: ONNX Runtime's threads summed) since the load of the
machine (``load_average``) stretches the wall clock. Each export of
``--precisions`` (``vision.models.precision``) is timed in turn; the figures go
into ``benchmarks/results/vision.json`` under ``latency.tracked``, the first
export's at the top and every one's under ``by_precision``. A tracker follows
frames that need no read at ``fps_between_reads`` (``view_ms``:
``vision.tracking.view_change``'s look at every frame), and a frame that needs
one at ``fps_with_crop_read``.

``stream`` (``--no-stream`` leaves it out): the tracker following the sequence
benchmark's painted rounds whole (``benchmarks.sequences``: five cloths, with and
without the mat, ``STREAM_TABLES`` tables each, a hand between tables) filmed at
``STREAM_FPS``, as a webcam gives them: frames a second over the time the tracker
spent on them (``stream_fps``; the painting of the frames left out), the 99th
percentile and the slowest frame, per round (``stream``) and in all; a round below
the camera's rate is one the tracker would fall behind on. How it read those rounds
too (``benchmarks.sequences`` measures at 10 fps, where every still frame may be read):
tables whole, sure false alerts and missed breaches, frames read.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results" / "vision.json"
SEED = 1_500_100
#: The video followed whole (:func:`stream`): the sequence benchmark's rounds (every
#: cloth, with and without the mat) this many tables long, filmed at a webcam's rate.
STREAM_TABLES = 6
STREAM_FPS = 30.0


def tracked(runs: int, models: str, precision: str | None = None) -> dict[str, Any]:
    from datasets.table_game import camera_view, play_round
    from datasets.table_layout import layout_sequence
    from datasets.table_sequence import exposed, table_pictures
    from vision.change.known_table import KnownTable
    from vision.change.table_view import tile_scale
    from vision.mat.hub_mat import detect_mat
    from vision.models.precision import chosen_precision
    from vision.reading.reader import TileReader
    from vision.table import reconstruct
    from vision.tracking.tile_memory import TileMemory, grey_of
    from vision.tracking.tracker import TRACKER_CLASSIFIES_HALVES
    from vision.tracking.view_change import ViewWatch
    from vision.tracking.window_look import WindowLook

    truth = camera_view(play_round(SEED, 3))[:8]
    layouts = layout_sequence(truth, 3, np.random.default_rng(SEED), mat=True)
    pictures = table_pictures(layouts, "checks", SEED)
    rng = np.random.default_rng(SEED)
    bare = exposed(pictures[0].image, 1.0, 3.0, rng)
    before = exposed(pictures[-2].image, 1.0, 3.0, rng)
    after = exposed(pictures[-1].image, 0.95, 3.0, rng)
    again = exposed(pictures[-1].image, 0.97, 3.0, rng)
    reader = TileReader(models, max_value=12, classify_halves=TRACKER_CLASSIFIES_HALVES,
                        precision=precision)

    def memory_of(known: KnownTable | None = None) -> TileMemory:
        """The tiles of the settled table ``before``, read as the tracker reads them (told
        the bare table when ``known``)."""
        memory = TileMemory(reader)
        bare = None if known is None else known.bare_boxes(before)
        memory.update_with_detections(before, reader.detect(before, bare))
        memory.update_with_detections(before, reader.detect(before, bare))
        memory.mark_settled(grey_of(before))
        return memory

    def one(known: KnownTable | None) -> tuple[float, float, float]:
        """The frame after one new tile, the whole frame looked at: (ms, known table's ms,
        the process's CPU ms)."""
        memory = memory_of(known)
        if known is not None:
            known.settle(before)
        c0 = time.process_time()
        t0 = time.perf_counter()
        if known is not None:  # as the tracker: the bump first, the bare table told
            known.bumped(after)
        t1 = time.perf_counter()
        found = reader.detect(after, None if known is None else known.bare_boxes(after))
        t2 = time.perf_counter()
        if known is not None:
            found = known.screen(after, found, reader.tile_class,
                                 memory.lasting_outlines())
        t3 = time.perf_counter()
        tiles, markers = memory.update_with_detections(after, found)
        reconstruct(tiles, markers, 3, detect_mat(after), engine=truth[0].engine)
        t4 = time.perf_counter()
        return ((t4 - t0) * 1000, (t1 - t0 + t3 - t2) * 1000,
                (time.process_time() - c0) * 1000)

    def windowed(frame: np.ndarray) -> tuple[float, float, int, int, int, float]:
        """``frame`` after the settled table ``before``, looked at in windows around what
        changed (the mat kept from the frame before, as the tracker keeps it): (ms, the
        windows' ms, windows, window side, tiles read, the process's CPU ms)."""
        known = learned()
        memory = memory_of(known)
        known.settle(before)
        look = WindowLook(reader)
        look.detect(before, known.view(before), bare=known.bare_boxes(before))
        read0 = memory.counts.tiles_read
        mat = detect_mat(before)
        c0 = time.process_time()
        t0 = time.perf_counter()
        known.bumped(frame)
        view = known.view(frame)
        scale = tile_scale(memory.detections.corners)
        found = look.detect(frame, view, None if scale is None else scale[1],
                            bare=known.bare_boxes(frame))
        t1 = time.perf_counter()
        found = known.screen(frame, found, reader.tile_class,
                             memory.lasting_outlines())
        tiles, markers = memory.update_with_detections(frame, found)
        reconstruct(tiles, markers, 3, detect_mat(frame) if look.last.whole else mat,
                    engine=truth[0].engine)
        t2 = time.perf_counter()
        windows = look.last.windows
        side = windows[0][2] - windows[0][0] if windows else 0
        return ((t2 - t0) * 1000, (t1 - t0) * 1000, len(windows), side,
                memory.counts.tiles_read - read0, (time.process_time() - c0) * 1000)

    def learned() -> KnownTable:
        known = KnownTable()
        known.see_empty(bare)
        known.see_empty(bare)
        return known

    # each way in its own steady state: the reader keeps the closer look a video needed
    # (``TileReader.detect``), and told the bare table it sees the small tiles alone
    reader.reset()
    one(None)
    plain = [one(None)[0] for _ in range(runs)]
    reader.reset()
    one(learned())
    with_known = [one(learned()) for _ in range(runs)]
    reader.reset()
    windowed(after)
    crop = [windowed(after) for _ in range(runs)]
    still = [windowed(before)[0] for _ in range(runs)]
    watch = ViewWatch(4, 10.0)
    view_times = []
    for i in range(runs):
        t0 = time.perf_counter()
        watch.look(after if i % 2 else before, i)
        view_times.append((time.perf_counter() - t0) * 1000)
    for i in range(runs):  # still frames: compared with the settled view too
        watch.look(again, runs + i)
    view_ms = statistics.median(view_times)
    crop_ms = statistics.median(c[0] for c in crop)
    return {
        "frame_size": [1280, 720],
        "precision": chosen_precision(precision or os.environ.get("MTRAIN_PRECISION")),
        "models": dict(reader.model_files),
        "tracked_frame_ms": round(statistics.median(plain), 1),
        "tracked_frame_known_table_ms": round(statistics.median(t[0] for t in with_known), 1),
        "known_table_ms": round(statistics.median(t[1] for t in with_known), 1),
        "tracked_frame_known_table_cpu_ms": round(statistics.median(t[2] for t in with_known),
                                                  1),
        "crop_frame_ms": round(crop_ms, 1),
        "crop_detect_ms": round(statistics.median(c[1] for c in crop), 1),
        "crop_frame_cpu_ms": round(statistics.median(c[5] for c in crop), 1),
        "crop_windows": crop[0][2],
        "crop_window_side_px": crop[0][3],
        "crop_tiles_read": crop[0][4],
        "unchanged_frame_ms": round(statistics.median(still), 1),
        "view_ms": round(view_ms, 2),
        "fps_between_reads": round(1000 / view_ms, 1),
        "fps_with_crop_read": round(1000 / (view_ms + crop_ms), 1),
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "threads": os.cpu_count(),
    }


def stream(models: str, precision: str | None = None,
           tables: int = STREAM_TABLES) -> dict[str, Any]:
    """The tracker (known table, marker candidates) following whole rounds filmed at
    ``STREAM_FPS``: frames a second over the time it spent on them (the painting of the
    frames left out), the 99th percentile and slowest frame, per round and in all; and
    how it read them (``benchmarks.sequences.follow_round``): tables whole, sure false
    alerts and missed breaches, frames read."""
    from benchmarks.sequences import follow_round, make_rounds
    from vision.reading.reader import TileReader
    from vision.tracking.tracker import TRACKER_CLASSIFIES_HALVES

    reader = TileReader(models, max_value=12, classify_halves=TRACKER_CLASSIFIES_HALVES,
                        precision=precision)
    rounds, truths = make_rounds(tables)
    rows: list[dict[str, Any]] = []
    every: list[np.ndarray] = []
    slow_rounds = 0
    read = {"whole": 0, "tables": 0, "false": 0, "missed": 0, "reads": 0}
    for (surface, mat, seed, pictures), truth in zip(rounds, truths, strict=True):
        frame_s: list[float] = []
        counts = follow_round(pictures, truth, seed, reader, True, mat, fps=STREAM_FPS,
                              frame_s=frame_s)
        ms = np.array(frame_s) * 1000
        every.append(ms)
        fps = 1000 * len(ms) / max(float(ms.sum()), 1e-9)
        slow_rounds += fps < STREAM_FPS
        read = {k: v + counts[k] for k, v in read.items()}
        rows.append({"surface": surface, "mat": mat, "frames": len(ms), "fps": round(fps, 1),
                     "frame_ms_p99": round(float(np.percentile(ms, 99)), 1),
                     "slowest_ms": round(float(ms.max()), 1),
                     "whole": f"{counts['whole']}/{counts['tables']}",
                     "false_alerts": counts["false"], "missed_alerts": counts["missed"],
                     "frames_read": counts["reads"]})
    ms = np.concatenate(every)
    return {"stream_fps": round(1000 * len(ms) / max(float(ms.sum()), 1e-9), 1),
            "stream_frame_ms_p99": round(float(np.percentile(ms, 99)), 1),
            "stream_slowest_ms": round(float(ms.max()), 1),
            "stream_rounds_below_camera_rate": slow_rounds,
            "stream_tables_whole": f"{read['whole']}/{read['tables']}",
            "stream_false_alerts": read["false"], "stream_missed_alerts": read["missed"],
            "stream_frames_read": read["reads"],
            "stream_camera_fps": STREAM_FPS, "stream_tables_per_round": tables,
            "stream": rows}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--models", default=str(ROOT / "models"))
    parser.add_argument("--precisions", default="auto,float",
                        help="the exports to time (vision.models.precision), comma-separated; "
                             "the first's figures are the headline ones")
    parser.add_argument("--stream", action=argparse.BooleanOptionalAction, default=True,
                        help="also follow whole rounds at a webcam's rate (a few minutes "
                             "each precision)")
    args = parser.parse_args(argv)
    names = [p for p in args.precisions.split(",") if p]
    runs = {name: tracked(args.runs, args.models, name)
            | (stream(args.models, name) if args.stream else {}) for name in names}
    result = dict(runs[names[0]]) | {"by_precision": runs}
    results = json.loads(RESULTS.read_text(encoding="utf-8")) if RESULTS.exists() else {}
    results.setdefault("latency", {})["tracked"] = result
    RESULTS.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
