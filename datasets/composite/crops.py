"""Half-tile crops cut from composited frames (``crops-composite``): the half classifiers'
rendered-looking training data.

Each frame is :func:`~datasets.composite.compose.compose_frame` of a seed and index with
the library's sprites on the faces (``Options.painter`` 0: a painted tile only where no
sprite fits); every tile wholly in view is cut at its labelled corners moved as the
detector moves them (:func:`~datasets.box_jitter.detector_jitter`), by
:func:`vision.models.crops.half_crops`, the reader's own cut. A crop's label is the
half's count in the crop sets' format (``datasets.crop_sets``; no pip boxes).

``python -m datasets.composite.crops OUT --sprites DIR --count N --seed S [--jobs J]``
writes ``N`` crops (``NAME.png`` + ``NAME.json``); the crops are the same for the same
sprite folders, seed and count, and a folder already holding them is left as it is.
"""

from __future__ import annotations

import json
from collections.abc import Generator, Sequence
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from datasets.box_jitter import detector_jitter
from datasets.composite.compose import Options, compose_frame
from datasets.composite.library import SpriteLibrary, tile_sprite_folders
from datasets.composite.write import fresh_pool
from engine.errors import BadInputError
from vision.models.crops import HALF_PX, half_crops

#: The ``kind`` of every crop label.
KIND = "crops-composite"
#: Crops kept from one frame (a random choice of its tiles), so a set spans many frames.
PER_FRAME = 24
#: Least share of a tile's face in the frame for it to be cut.
WHOLE = 0.999
#: Frames composed in one batch of the pool.
BATCH = 16
#: No painter share in these frames: a painted tile only where no sprite fits.
RENDERED = Options(painter=0.0, negatives=0.0)

_LIBRARY: SpriteLibrary | None = None


def crop_rng(seed: int, index: int) -> np.random.Generator:
    """The jitter and choice of frame ``index``'s crops (apart from its picture's)."""
    return np.random.default_rng([int(seed), int(index), 0x63726F70])


def frame_crops(library: SpriteLibrary, seed: int, index: int, limit: int = PER_FRAME,
                options: Options = RENDERED) -> list[tuple[np.ndarray, dict[str, Any]]]:
    """Half crops (BGR ``HALF_PX`` square, label) of frame ``index`` of ``seed``."""
    image, labels = compose_frame(library, seed, index, options)
    rng = crop_rng(seed, index)
    tiles = labels["tiles"]
    out: list[tuple[np.ndarray, dict[str, Any]]] = []
    for i in rng.permutation(len(tiles)).tolist():
        tile = tiles[i]
        if tile["visible"] < WHOLE or len(out) >= limit:
            continue
        corners = detector_jitter(np.asarray(tile["corners"], np.float64), rng)
        for half, crop in enumerate(half_crops(image, corners)):
            out.append((crop, {
                "image": "", "width": HALF_PX, "height": HALF_PX, "kind": KIND,
                "set": int(labels["set"]), "value": int(tile["values"][half]),
                "tiles": [], "pips": [], "markers": [], "table": None,
                "source_tile": i, "frame": {"seed": seed, "index": index},
            }))
    return out


def crop_name(seed: int, index: int, j: int) -> str:
    return f"{KIND}_{seed}_{index:06d}_{j:02d}"


def _write(out: Path, seed: int, index: int) -> int:
    assert _LIBRARY is not None
    crops = frame_crops(_LIBRARY, seed, index)
    for j, (crop, label) in enumerate(crops):
        name = crop_name(seed, index, j)
        cv2.imwrite(str(out / f"{name}.png"), crop)
        (out / f"{name}.json").write_text(json.dumps({**label, "image": f"{name}.png"}))
    return len(crops)


def _start(folders: list[str]) -> None:
    global _LIBRARY
    cv2.setNumThreads(1)
    _LIBRARY = SpriteLibrary([Path(f) for f in folders])


def _work(job: tuple[str, int, int]) -> int:
    return _write(Path(job[0]), job[1], job[2])


def _counts(jobs: int, folders: list[str], out: Path, seed: int) -> Generator[int, None, None]:
    """Crops written by frames 0, 1, 2, ... of ``seed``, in order, without end."""
    index = 0
    if jobs <= 1:
        _start(folders)
        while True:
            yield _write(out, seed, index)
            index += 1
    with fresh_pool(jobs, _start, (folders,)) as pool:
        while True:
            batch = [(str(out), seed, i) for i in range(index, index + BATCH * jobs)]
            yield from pool.imap(_work, batch)
            index += len(batch)


def write_composite_crops(out: str | Path, sprites: Sequence[str | Path], count: int,
                          seed: int, jobs: int = 1) -> Path:
    """``count`` crops of frames ``0, 1, ...`` of ``seed`` into ``out``, the first
    ``count`` in frame order; a folder stamped with the same request is kept as it is."""
    folder = Path(out)
    folders = tile_sprite_folders(sprites)
    stamp = folder / ".done"
    want = json.dumps({"kind": KIND, "count": count, "seed": seed, "sprites": folders})
    if stamp.is_file() and stamp.read_text() == want:
        return folder
    if folder.exists():
        for old in folder.glob(f"{KIND}_*"):
            old.unlink()
    folder.mkdir(parents=True, exist_ok=True)
    written = 0
    frames = _counts(jobs, folders, folder, seed)
    try:
        for n in frames:
            written += n
            if written >= count:
                break
    finally:
        frames.close()  # stops the pool: frames past the count may be half written
    names = sorted(p.stem for p in folder.glob(f"{KIND}_{seed}_*.json"))
    for extra in names[count:]:  # frames done past the count, and crops past it
        (folder / f"{extra}.json").unlink()
    for picture in folder.glob(f"{KIND}_*.png"):
        if not picture.with_suffix(".json").is_file():
            picture.unlink()
    stamp.write_text(want)
    return folder


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m datasets.composite.crops``: see ``--help``."""
    import argparse

    parser = argparse.ArgumentParser(
        prog="python -m datasets.composite.crops",
        description="Half-tile crops (crops-composite) cut from composited frames of the "
                    "sprites, labelled with their count.")
    parser.add_argument("out", help="folder for NAME.png + NAME.json")
    parser.add_argument("--sprites", action="append", default=[], metavar="DIR", required=True,
                        help="a sprite folder (repeatable)")
    parser.add_argument("--count", type=int, default=1000, help="crops (default 1000)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.add_argument("--jobs", type=int, default=1, help="processes (default 1)")
    args = parser.parse_args(argv)
    try:
        if args.count < 1 or args.jobs < 1 or args.seed < 0:
            raise BadInputError("--count", "count and jobs must be at least 1, seed 0 or more")
        write_composite_crops(args.out, args.sprites, args.count, args.seed, args.jobs)
    except BadInputError as exc:
        print(f"error: {exc}")
        return 2
    print(f"wrote {args.count} crops to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
