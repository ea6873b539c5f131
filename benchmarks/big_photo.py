"""How long ``mtrain read`` takes on a 12 MP photo of a whole table, stage by stage.

    .venv/bin/python -m benchmarks.big_photo [--runs N]

A rendered table (``datasets.render.render_table``, seed ``SEED`` image ``INDEX``:
a double-12 set, 5 players, 31 tiles, 3 markers) drawn at 4000x3000, its tiles
63-65 px wide as a phone's 12 MP photo of a table shows them, saved as a JPEG
(quality 92) and read as ``mtrain read --players 5 --rule set=12`` reads it: loaded,
read (``TileReader.read``), its table rebuilt and looked at closer
(``vision.stills.table_photo.read_table``); the tiles read right and whether the
table is read whole are checked against the scene. Medians over
``--runs`` reads, each by a fresh still (``reset``), with:

- ``stages_ms``, one after another (their sum is the read): ``load`` (decode),
  ``detect`` (the detector's whole-frame looks and the tile check of their boxes),
  ``tiles`` (each box read: its variants, the half crops, the classifiers, the
  domino check), ``markers`` (the rest of ``TileReader.read``: markers looked for
  further away, hollow ones, backs), ``mat`` (the hub mat looked for), ``table`` (the
  table rebuilt) and ``look_closer`` (windows round loose tiles and train ends looked
  at again, their boxes read, the table rebuilt);
- ``parts_ms``, summed over the whole read wherever they run: the detector model
  (``detector``: the image shrunk to its input, the model, its boxes decoded), the
  tile check's looks at its boxes (``tile_looks``), the domino check (``verifier``),
  the half counts (``halves``: crops' classifiers and pip model);
- the process's CPU time beside the wall clock, for the read and each stage and part
  (``*_cpu_ms``: ONNX Runtime's threads summed), and the load average: on a shared
  machine the load stretches the wall clock, much less the CPU time.

Written into ``benchmarks/results/vision.json`` under ``latency.big_photo``, with
its headline figures as ``latency.photo_*`` (here run alone, or by
``benchmarks.vision_latency`` in ``benchmarks.vision``).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results" / "vision.json"
#: The rendered table: a double-12 set, 5 players, 31 tiles, 3 markers, no mat.
SEED, INDEX = 777_002, 4
SIZE = (4000, 3000)


def big_table_photo(folder: Path) -> tuple[Path, Any]:
    """The 12 MP table photo written as a JPEG in ``folder``, and its scene (the truth)."""
    import cv2

    from datasets.render import render_table, scene_rng

    scene = render_table(scene_rng(SEED, INDEX), size=SIZE)
    path = folder / "table_12mp.jpg"
    cv2.imwrite(str(path), scene.image, [cv2.IMWRITE_JPEG_QUALITY, 92])
    return path, scene


def tiles_right(scene: Any, frame: Any) -> int:
    """How many of the scene's tiles a read tile matches (polygon IoU >= 0.5) with the
    same two values."""
    import numpy as np

    from benchmarks.matching import match

    want = np.array([t.corners for t in scene.tiles], np.float32).reshape(-1, 4, 2)
    got = np.array([t.corners for t in frame.tiles.each()], np.float32).reshape(-1, 4, 2)
    return sum(sorted(scene.tiles[a].values) == sorted(frame.tiles.reading(b).values)
               for a, b in match(want, got))


class _Clock:
    """Wall and CPU milliseconds spent in named calls, summed per read."""

    def __init__(self) -> None:
        self.ms: dict[str, float] = defaultdict(float)
        self.cpu: dict[str, float] = defaultdict(float)

    def timed(self, name: str, func: Callable[..., Any]) -> Callable[..., Any]:
        def run(*args: Any, **kwargs: Any) -> Any:
            t0, c0 = time.perf_counter(), time.process_time()
            try:
                return func(*args, **kwargs)
            finally:
                self.ms[name] += (time.perf_counter() - t0) * 1000
                self.cpu[name] += (time.process_time() - c0) * 1000
        return run


@contextmanager
def _patched(clock: _Clock, reader: Any) -> Iterator[None]:
    """The reader's and the table's steps timed by ``clock`` while inside."""
    from vision.mat import hub_mat
    from vision.models import domino_check, tile_check
    from vision.stills import trouble_spots

    detector = type(reader.detector)
    swaps: list[tuple[Any, str, Any]] = [
        (hub_mat, "detect_mat", clock.timed("mat", hub_mat.detect_mat)),
        (trouble_spots, "look_closer", clock.timed("look_closer", trouble_spots.look_closer)),
        (tile_check, "tile_mask", clock.timed("tile_looks", tile_check.tile_mask)),
        (domino_check.DominoCheck, "__call__",
         clock.timed("verifier", domino_check.DominoCheck.__call__)),
        (detector, "unchecked", clock.timed("detector", detector.unchecked)),
    ]
    methods = ("detect", "read_tiles_and_backs", "count_halves")
    for name in methods:
        vars(reader)[name] = clock.timed(name, getattr(reader, name))
    old = [(owner, name, vars(owner).get(name)) for owner, name, _ in swaps]
    for owner, name, new in swaps:
        setattr(owner, name, new)
    try:
        yield
    finally:
        for owner, name, before in old:
            if before is None:
                delattr(owner, name)  # inherited: the subclass had none of its own
            else:
                setattr(owner, name, before)
        for name in methods:
            del vars(reader)[name]


def read_once(reader: Any, path: Path, scene: Any) -> dict[str, Any]:
    """One read of ``path`` (a picture of ``scene``) as ``mtrain read --players N --rule
    set=S`` reads it: its stages and parts (ms), wall and CPU time, and what was read."""
    from benchmarks.table import differences
    from engine import TableState
    from vision.images import load_image
    from vision.stills.table_photo import read_table

    clock = _Clock()
    reader.reset()  # a still: no closer look carried from the last one
    with _patched(clock, reader):
        t0, c0 = time.perf_counter(), time.process_time()
        image = load_image(path)
        t1, c1 = time.perf_counter(), time.process_time()
        first = reader.read(image)
        t2, c2 = time.perf_counter(), time.process_time()
        in_read = (dict(clock.ms), dict(clock.cpu))
        frame, table = read_table(first, len(scene.table["trains"]) - 1, image, reader)
        t3, c3 = time.perf_counter(), time.process_time()
    walls = ((t1 - t0) * 1000, (t2 - t1) * 1000, (t3 - t2) * 1000)
    cpus = ((c1 - c0) * 1000, (c2 - c1) * 1000, (c3 - c2) * 1000)
    out: dict[str, Any] = {}
    for kind, (load, read, rest), ms, before in (
            ("ms", walls, clock.ms, in_read[0]), ("cpu_ms", cpus, clock.cpu, in_read[1])):
        detect, tiles = before.get("detect", 0.0), before.get("read_tiles_and_backs", 0.0)
        out[f"stages_{kind}"] = {
            "load": load, "detect": detect, "tiles": tiles,
            "markers": read - detect - tiles, "mat": ms["mat"],
            "table": rest - ms["mat"] - ms["look_closer"], "look_closer": ms["look_closer"]}
        out[f"parts_{kind}"] = {"detector": ms["detector"], "tile_looks": ms["tile_looks"],
                                "verifier": ms["verifier"], "halves": ms["count_halves"]}
    state = getattr(table, "table", None)
    return out | {"wall_ms": sum(walls), "cpu_ms": sum(cpus), "tiles": len(frame.tiles),
                  "markers": len(frame.markers), "right": tiles_right(scene, frame),
                  "laid": -1 if state is None else sum(len(t.tiles) for t in state.trains),
                  "whole": not differences(TableState.from_json(scene.table), table)}


def big_photo(reader: Any, runs: int, folder: Path | None = None) -> dict[str, Any]:
    """Median figures over ``runs`` reads of the 12 MP table photo (after one to warm up)."""
    with tempfile.TemporaryDirectory() as tmp:
        path, scene = big_table_photo(Path(folder or tmp))
        reader = reader.for_set(scene.set_size)
        read_once(reader, path, scene)
        reads = [read_once(reader, path, scene) for _ in range(max(1, runs))]
    load = [round(x, 2) for x in os.getloadavg()]

    def median(values: list[float]) -> float:
        return round(statistics.median(values), 1)

    last = reads[-1]
    return {"photo_size": list(SIZE), "photo_tiles_shown": len(scene.tiles),
            "players": len(scene.table["trains"]) - 1, "set": scene.set_size,
            "runs": len(reads),
            "photo_ms": median([r["wall_ms"] for r in reads]),
            "photo_cpu_ms": median([r["cpu_ms"] for r in reads]),
            **{group: {k: median([r[group][k] for r in reads]) for k in last[group]}
               for group in ("stages_ms", "stages_cpu_ms", "parts_ms", "parts_cpu_ms")},
            "photo_tiles": last["tiles"], "photo_tiles_right": last["right"],
            "photo_markers": last["markers"], "photo_tiles_laid": last["laid"],
            "photo_table_whole": last["whole"], "load_average": load,
            "threads": os.cpu_count(), "ort_threads": "default (one per core)",
            "machine": "shared: other agents' work and a niced training ran alongside"}


def photo_figures(result: dict[str, Any]) -> dict[str, Any]:
    """``vision.json``'s ``latency.photo_*`` figures from a :func:`big_photo` result."""
    return {"photo_ms": result["photo_ms"], "photo_cpu_ms": result["photo_cpu_ms"],
            "photo_load_ms": result["stages_ms"]["load"], "photo_tiles": result["photo_tiles"],
            "photo_size": result["photo_size"], "big_photo": result}


def main(argv: list[str] | None = None) -> int:
    from vision.reading.reader import TileReader

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--models", default=None, help="models folder (default models/)")
    parser.add_argument("--out", default=str(RESULTS))
    args = parser.parse_args(argv)
    reader = TileReader(args.models)
    result = big_photo(reader, args.runs) | {"models": reader.model_files}
    out = Path(args.out)
    results = json.loads(out.read_text(encoding="utf-8")) if out.exists() else {}
    results.setdefault("latency", {}).update(photo_figures(result))
    out.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
