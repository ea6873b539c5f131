"""Write rendered scenes to a folder: ``NAME.jpg`` (or ``.png`` for crops) + ``NAME.json``."""

from __future__ import annotations

import json
import multiprocessing
import os
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import cv2

from datasets.crop_sets import render_covered_crops, render_crops, render_table_crops
from datasets.render import CROP_KINDS, KINDS, render, scene_rng

#: Crops rendered per scene for ``--kind crops`` (each scene gives up to this many).
CROPS_PER_SCENE = 24


def _write_scene(out: Path, kind: str, seed: int, index: int, max_quality: int = 95) -> int:
    rng = scene_rng(seed, index)
    if kind in CROP_KINDS:
        if kind == "crops":
            crops = render_crops(rng, CROPS_PER_SCENE)
        elif kind == "crops-covered":
            crops = render_covered_crops(rng, CROPS_PER_SCENE)
        else:
            crops = render_table_crops(rng, CROPS_PER_SCENE, high_only=kind == "crops-high")
        written = 0
        for j, (crop, label) in enumerate(crops):
            name = f"{kind}_{seed}_{index:06d}_{j:02d}"
            label["image"] = f"{name}.png"
            cv2.imwrite(str(out / f"{name}.png"), crop)
            (out / f"{name}.json").write_text(json.dumps(label), encoding="utf-8")
            written += 1
        return written
    scene = render(kind, rng)
    name = f"{kind}_{seed}_{index:06d}"
    quality = min(int(rng.integers(55, 96)), max_quality)
    ok, buf = cv2.imencode(".jpg", scene.image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    assert ok
    (out / f"{name}.jpg").write_bytes(buf.tobytes())
    labels = scene.labels(f"{name}.jpg")
    (out / f"{name}.json").write_text(json.dumps(labels), encoding="utf-8")
    return 1


def _work(job: tuple[str, str, int, int, int]) -> int:
    out, kind, seed, index, max_quality = job
    cv2.setNumThreads(1)
    return _write_scene(Path(out), kind, seed, index, max_quality)


def synthesize(
    out: str | Path,
    kind: str,
    count: int,
    seed: int,
    jobs: int = 1,
    progress: bool = True,
    max_quality: int = 95,
) -> int:
    """Render ``count`` scenes of ``kind`` (for crops: ``count`` crops) into ``out``.

    Deterministic: the files depend on ``seed`` and ``count`` only, never on
    ``jobs``. JPEG quality is drawn from 55-95 and capped at ``max_quality``.
    Returns the number of images written.
    """
    if kind not in KINDS:
        raise ValueError(f"unknown kind {kind!r}")
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    from tqdm import tqdm

    bar = tqdm(total=count, desc=f"synth {kind}", unit="img", disable=not progress)
    written = 0
    scenes = 0
    with bar:
        # crops: a scene gives a varying number of crops, so render scenes in order
        # until there are enough; the first ``count`` crops (by scene) are kept, so the
        # files never depend on the batch sizes.
        while written < count:
            left = count - written
            batch = left if kind not in CROP_KINDS else max(1, -(-left // 10))
            items = [
                (str(folder), kind, seed, i, max_quality) for i in range(scenes, scenes + batch)
            ]
            for n in _map(jobs, items):
                written += n
                bar.update(min(n, max(0, count - bar.n)))
            scenes += batch
            if kind not in CROP_KINDS or scenes > 4 * count:
                break
    if kind in CROP_KINDS and written > count:
        _trim_crops(folder, kind, seed, count)
        written = count
    return written


def _trim_crops(folder: Path, kind: str, seed: int, count: int) -> None:
    names = sorted(p.stem for p in folder.glob(f"{kind}_{seed}_*.json"))
    for stem in names[count:]:
        (folder / f"{stem}.json").unlink()
        (folder / f"{stem}.png").unlink(missing_ok=True)


def _map(jobs: int, items: list[tuple[str, str, int, int, int]]) -> Iterator[int]:
    if jobs <= 1 or len(items) < 4:
        yield from map(_work, items)
        return
    # Workers start afresh, not forked from the caller: a process forked from one whose
    # ONNX Runtime or torch threads are running can hang (a test that read a photo,
    # then rendered hands, did).
    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")
    with ProcessPoolExecutor(max_workers=jobs, mp_context=context) as pool:
        yield from pool.map(_work, items, chunksize=2)


def default_jobs() -> int:
    return max(1, min(2, os.cpu_count() or 1))
