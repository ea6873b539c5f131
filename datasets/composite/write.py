"""Write composited frames to a folder on every core: ``NAME.jpg`` + ``NAME.json``.

``python -m datasets.composite OUT --sprites DIR [--count N --seed S --start I --jobs J]
[--hands]`` (``--hands``: photos of one player's hand, ``datasets.composite.hand_plan``).
Frame ``i`` of a seed is the same picture and labels for the same sprite folders;
frames already in ``OUT`` are skipped, so a run can be stopped and started again.
"""

from __future__ import annotations

import json
import multiprocessing
import os
from collections.abc import Callable, Iterator, Sequence
from multiprocessing.pool import Pool
from pathlib import Path
from typing import Any

import cv2

from datasets.composite.compose import Options, compose_frame, hand_values
from datasets.composite.hand_plan import HAND_FRAME
from datasets.composite.library import SpriteLibrary
from engine.errors import BadInputError

_LIBRARY: SpriteLibrary | None = None


def frame_name(seed: int, index: int) -> str:
    return f"composite_{seed}_{index:06d}"


def write_frame(library: SpriteLibrary, out: Path, seed: int, index: int,
                options: Options | None = None) -> Path:
    """Compose frame ``index`` of ``seed`` and write it; returns its label file."""
    image, labels = compose_frame(library, seed, index, options or Options())
    name = frame_name(seed, index)
    ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 95])
    if not ok:
        raise RuntimeError("JPEG encoding failed")
    (out / f"{name}.jpg").write_bytes(buf.tobytes())
    label = out / f"{name}.json"
    label.write_text(json.dumps({"image": f"{name}.jpg", **labels}), encoding="utf-8")
    return label


def _start(folders: list[str]) -> None:
    global _LIBRARY
    cv2.setNumThreads(1)
    _LIBRARY = SpriteLibrary([Path(f) for f in folders])


def _work(job: tuple[str, int, int, Options]) -> str:
    assert _LIBRARY is not None
    out, seed, index, options = job
    return str(write_frame(_LIBRARY, Path(out), seed, index, options))


def fresh_pool(jobs: int, initializer: Callable[..., None] | None = None,
               initargs: tuple[Any, ...] = ()) -> Pool:
    """Processes started afresh, not forked from the caller: a process forked from one
    whose OpenCV, ONNX Runtime or torch threads are running can hang."""
    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")
    return context.Pool(jobs, initializer=initializer, initargs=initargs)


def _map(jobs: int, folders: list[str], items: list[tuple[str, int, int, Options]]
         ) -> Iterator[str]:
    if jobs <= 1:
        _start(folders)
        yield from map(_work, items)
        return
    with fresh_pool(jobs, _start, (folders,)) as pool:
        yield from pool.imap(_work, items, chunksize=4)


def write_frames(out: str | Path, sprites: Sequence[str | Path], count: int, seed: int,
                 start: int = 0, jobs: int = 1, options: Options | None = None) -> list[Path]:
    """Frames ``start .. start + count - 1`` of ``seed`` into ``out`` (skipping those
    there), composed from the sprites in ``sprites`` on ``jobs`` processes."""
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    folders = [str(Path(f)) for f in sprites]
    for f in folders:
        if not Path(f).is_dir():
            raise BadInputError(f, "no such sprite folder")
    todo = [(str(folder), seed, i, options or Options()) for i in range(start, start + count)
            if not (folder / f"{frame_name(seed, i)}.json").exists()]
    return [Path(p) for p in _map(min(jobs, max(1, len(todo))), folders, todo)]


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m datasets.composite``: see ``--help``."""
    import argparse

    parser = argparse.ArgumentParser(
        prog="python -m datasets.composite",
        description="Composite webcam frames of tables from a sprite library (python -m "
                    "datasets.photoreal sprites) and the painter's tiles, with label JSON "
                    "in the generator's format. Frames already in OUT are skipped.")
    parser.add_argument("out", help="folder for NAME.jpg + NAME.json")
    parser.add_argument("--sprites", action="append", default=[], metavar="DIR",
                        help="a sprite folder (repeatable; none: painter tiles only)")
    parser.add_argument("--count", type=int, default=100, help="frames (default 100)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.add_argument("--start", type=int, default=0, help="first frame index (default 0)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                        help="processes (default: every core)")
    parser.add_argument("--painter", type=float, default=Options().painter,
                        help="share of tiles the painter draws in mixed frames (default 0.3)")
    parser.add_argument("--negatives", type=float, default=Options().negatives,
                        help="share of frames with nothing to find (default 0.1)")
    parser.add_argument("--hands", action="store_true",
                        help="photos of one player's hand laid out face up (1280x960, every "
                             "tile a rendered sprite of a double-12 set) instead of tables")
    args = parser.parse_args(argv)
    try:
        if args.count < 1 or args.jobs < 1:
            raise BadInputError("--count", "count and jobs must be at least 1")
        if args.seed < 0 or args.start < 0:
            raise BadInputError("--seed", "seed and start must be 0 or more")
        for name, share in (("painter", args.painter), ("negatives", args.negatives)):
            if not 0.0 <= share <= 1.0:
                raise BadInputError(f"--{name}", f"must be 0 to 1, got {share}")
        options = (Options(hands=True, size=HAND_FRAME) if args.hands
                   else Options(painter=args.painter, negatives=args.negatives))
        if args.hands and not hand_values(SpriteLibrary([Path(f) for f in args.sprites])):
            raise BadInputError("--sprites", "--hands needs rendered tile sprites")
        written = write_frames(args.out, args.sprites, args.count, args.seed, args.start,
                               args.jobs, options)
    except BadInputError as exc:
        print(f"error: {exc}")
        return 2
    print(f"wrote {len(written)} frames to {args.out}")
    return 0
