"""Fine-tune the tile detector on composited frames, on one GPU, inside ten minutes.

From the repository root, on a machine with torch and ultralytics (and no network):

    PYTHONPATH=$SITE:training/recipes/polars_stub python3 training/recipes/composite_gpu.py \\
        --out $OUT --sprites SPRITES_DIR [--budget 570] [--frames 3000] [--device 0]

Steps, all on that machine: (1) composite ``--frames`` webcam frames (1280x720) from the
sprite folders (``python -m datasets.photoreal sprites``; shipped, <= 50 MB) with a share
of painter tiles and empty-cloth, mat and glare negatives (``datasets.composite``), and
``--hands-share`` of them phone photos of a hand, plus the painter's own table, mat, hand
and close-up scenes (``--painter-share`` of the frames), on every core; (2) cut
``--per-frame`` ``--imgsz`` square windows out of each, so tiles keep the pixel size a
webcam shows them at, or (``--looks``) the size the reader's looks at the whole frame
show them (``crop_windows``), and write an OBB dataset; (3) check
``--init`` (``models/tiles.pt``) on its validation windows, then fine-tune it from there at
``--imgsz`` in what is left of ``--budget`` (ultralytics' time mode); (4) export ONNX
(float, the box decoding rewritten, ``training.fit.export_onnx``) and 8-bit
(``training.quantize.quantize_tiles``, calibrated on whole validation frames of each kind
at the reader's sides, as it runs); (5) write
``eval.json`` (validation before and after, on the composited windows and on
``--photoreal`` folders of labelled stills when given, the ONNX files' outputs, the
time each step took) with ``tiles.pt``, ``tiles.onnx`` and ``tiles.int8.onnx`` into
``--out``. ``tests/training/test_composite_recipe.py`` runs every step on the CPU at a
tiny size.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

#: Seeds of the recipe's data: composited frames and the painter's scenes (train, val).
SEEDS = {"composite-train": 150, "composite-val": 250, "painter-train": 151,
         "painter-val": 251, "hands-train": 152, "hands-val": 252}
#: The painter's scene kinds mixed in, in turn.
PAINTER_KINDS = ("table", "table-mat", "hands", "closeup", "table-surface", "surface-empty")
#: Seconds kept back after training: final copy, export, quantization, the last checks.
RESERVE_S = 100.0


def _stamp(times: dict[str, float], name: str, start: float) -> float:
    now = time.time()
    times[name] = round(now - start, 1)
    print(f"[recipe] {name}: {times[name]} s", flush=True)
    return now


def make_frames(work: Path, sprites: Sequence[Path], frames: int, painter_share: float,
                jobs: int, val_share: float = 0.1,
                hands_share: float = 0.0) -> dict[str, list[Path]]:
    """Composited and painter frames for training and validation: ``{split: folders}``;
    ``hands_share`` of the composited ones are phone photos of a hand of rendered tiles
    (close, big tiles, as real hand photos show them)."""
    from datasets.composite import Options, write_frames
    from datasets.composite.hand_plan import HAND_FRAME
    from datasets.synth import synthesize

    out: dict[str, list[Path]] = {"train": [], "val": []}
    for split in ("train", "val"):
        total = frames if split == "train" else max(2, int(round(frames * val_share)))
        painted = int(round(total * painter_share))
        hands = int(round((total - painted) * hands_share))
        folder = work / "frames" / f"composite-{split}"
        write_frames(folder, list(sprites), total - painted - hands,
                     SEEDS[f"composite-{split}"], jobs=jobs)
        out[split].append(folder)
        if hands:
            folder = work / "frames" / f"composite-hands-{split}"
            write_frames(folder, list(sprites), hands, SEEDS[f"hands-{split}"], jobs=jobs,
                         options=Options(hands=True, size=HAND_FRAME))
            out[split].append(folder)
        per_kind = [painted // len(PAINTER_KINDS) + (k < painted % len(PAINTER_KINDS))
                    for k in range(len(PAINTER_KINDS))]
        for kind, count in zip(PAINTER_KINDS, per_kind, strict=True):
            if count:
                folder = work / "frames" / f"painter-{kind}-{split}"
                synthesize(folder, kind, count, SEEDS[f"painter-{split}"], jobs=jobs,
                           progress=False)
                out[split].append(folder)
    return out


def make_windows(work: Path, frames: dict[str, list[Path]], side: int, jobs: int,
                 per_frame: int = 2, looks: Sequence[int | None] = (None,)) -> Path:
    """``side``-square windows of every frame (cut at each of ``looks``, see
    ``crop_windows``), as an ultralytics OBB dataset."""
    from datasets.composite import crop_windows
    from datasets.yolo_export import export_obb

    splits = {}
    for split, folders in frames.items():
        win = work / "windows" / split
        crop_windows(folders, win, side=side, per_frame=per_frame, jobs=jobs, looks=looks)
        splits[split] = [win]
    return export_obb(splits, work / "yolo")


def photoreal_dataset(work: Path, folders: Sequence[Path], side: int, jobs: int,
                      looks: Sequence[int | None] = (None,)) -> Path | None:
    """Windows of labelled photoreal stills as a validation-only OBB dataset."""
    if not folders:
        return None
    from datasets.composite import crop_windows
    from datasets.yolo_export import export_obb

    win = work / "photoreal-windows"
    crop_windows(list(folders), win, side=side, per_frame=max(3, len(looks)), jobs=jobs,
                 looks=looks)
    return export_obb({"train": [win], "val": [win]}, work / "photoreal-yolo")  # val only


def validate(weights: Path, data: Path, imgsz: int, device: str, threads: int,
             batch: int) -> dict[str, float]:
    """Ultralytics' validation of ``weights`` on ``data``'s val split."""
    from training.fit import ultralytics_yolo

    yolo = ultralytics_yolo(threads)
    result = yolo(str(weights)).val(data=str(data), imgsz=imgsz, device=device, batch=batch,
                                    plots=False, verbose=False, workers=0)
    return {k: round(float(v), 4) for k, v in result.results_dict.items()}


def onnx_check(paths: dict[str, Path], window: Path, side: int) -> dict[str, Any]:
    """Each ONNX file's output shape and best tile score on one validation window."""
    import cv2
    import numpy as np
    import onnxruntime as ort

    from vision.models.onnx_models import letterbox, to_blob

    image = cv2.imread(str(window), cv2.IMREAD_COLOR)
    if image is None:
        raise RuntimeError(f"cannot read {window}")
    blob = to_blob([letterbox(image, (side, side))[0]])
    out: dict[str, Any] = {}
    for name, path in paths.items():
        session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
        raw = session.run(None, {session.get_inputs()[0].name: blob})[0]
        out[name] = {"file": path.name, "bytes": path.stat().st_size, "output": list(raw.shape),
                     "best_tile_score": round(float(np.max(raw[0, 4])), 4)}
    return out


def run(out: Path, work: Path, sprites: Sequence[Path], *, budget: float | None = 570.0,
        frames: int = 3000, imgsz: int = 640, epochs: int = 40, device: str = "0",
        jobs: int | None = None, threads: int = 8, painter_share: float = 0.2,
        photoreal: Sequence[Path] = (), init: Path = ROOT / "models" / "tiles.pt",
        batch: int | None = None, calibration: int = 12,
        looks: Sequence[int | None] = (None,), per_frame: int = 2,
        hands_share: float = 0.0) -> dict[str, Any]:
    """Every step of the recipe; returns the ``eval.json`` it writes into ``out``.
    ``budget`` (seconds, every step): training gets what the others leave; None: no
    time limit, ``epochs`` epochs. ``looks``: the frame's long side each window is cut
    at in turn (``None``: full size), ``per_frame`` windows a frame."""
    from training.plan import setup_offline

    t0 = time.time()
    setup_offline(work)
    jobs = jobs or os.cpu_count() or 2
    out.mkdir(parents=True, exist_ok=True)
    times: dict[str, float] = {}
    split_frames = make_frames(work, sprites, frames, painter_share, jobs,
                               hands_share=hands_share)
    t = _stamp(times, "frames", t0)
    data = make_windows(work, split_frames, imgsz, jobs, per_frame, looks)
    real = photoreal_dataset(work, photoreal, imgsz, jobs, looks)
    t = _stamp(times, "windows", t)
    gpu = device != "cpu"
    vbatch = batch or (64 if gpu else 8)
    before = validate(init, data, imgsz, device, threads, vbatch)
    before_real = validate(init, real, imgsz, device, threads, vbatch) if real else None
    t = _stamp(times, "validate_before", t)
    from training.fit import train_model

    hours = None if budget is None else max(budget - (time.time() - t0) - RESERVE_S,
                                            20.0) / 3600
    best, metrics, secs, ran = train_model(
        "tiles", data, epochs, imgsz, work / "runs", threads=threads, hours=hours,
        init=init, device=device, workers=max(1, jobs - 2))
    t = _stamp(times, "train", t)
    shutil.copyfile(best, out / "tiles.pt")
    after_real = validate(best, real, imgsz, device, threads, vbatch) if real else None
    from training.fit import export_onnx
    from training.quantize import TILE_SIDES, calibration_frames, quantize_tiles

    onnx = export_onnx(best, imgsz, dynamic=True, threads=threads)
    shutil.copyfile(onnx, out / "tiles.onnx")
    # whole frames at the reader's sides: the 8-bit detector runs on frames, not windows
    calib = calibration_frames(sorted((work / "frames").glob("*-val")), start=0,
                               per_folder=calibration)
    quantize_tiles(out / "tiles.onnx", out / "tiles.int8.onnx", calib, sides=TILE_SIDES)
    windows = work / "windows" / "val"
    t = _stamp(times, "export", t)
    first = sorted(windows.glob("*.jpg"))[0]
    report: dict[str, Any] = {
        "init": str(init.relative_to(ROOT) if init.is_relative_to(ROOT) else init),
        "imgsz": imgsz, "device": device, "jobs": jobs,
        "frames": {split: sum(len(list(f.glob("*.json"))) for f in folders)
                   for split, folders in split_frames.items()},
        "windows": {split: len(list((work / "windows" / split).glob("*.json")))
                    for split in split_frames},
        "sprites": [str(s) for s in sprites], "painter_share": painter_share,
        "looks": list(looks), "hands_share": hands_share,
        "epochs_planned": epochs, "epochs": ran, "train_seconds": round(secs),
        "composite_val": {"before": before,
                          "after": {k: round(v, 4) for k, v in metrics.items()}},
        "photoreal_val": ({"before": before_real, "after": after_real}
                          if real else None),
        "onnx": onnx_check({"float": out / "tiles.onnx", "int8": out / "tiles.int8.onnx"},
                           first, imgsz),
        "seconds": times,
    }
    report["seconds"]["total"] = round(time.time() - t0, 1)
    (out / "eval.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    return report


def parse_looks(text: str) -> tuple[int | None, ...]:
    """``"full,768,640"`` -> ``(None, 768, 640)``."""
    return tuple(None if part.strip() == "full" else int(part) for part in text.split(",")
                 if part.strip())


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path(os.environ.get("OUT", "runs/recipe")))
    parser.add_argument("--work", type=Path, default=Path(os.environ.get("DEVWORK", "/tmp/mt")))
    parser.add_argument("--sprites", type=Path, action="append", default=[])
    parser.add_argument("--photoreal", type=Path, action="append", default=[])
    parser.add_argument("--budget", type=float, default=570.0,
                        help="seconds, all steps (0: no limit, --epochs epochs)")
    parser.add_argument("--frames", type=int, default=3000)
    parser.add_argument("--imgsz", type=int, default=640)
    parser.add_argument("--epochs", type=int, default=40)
    parser.add_argument("--device", default="0")
    parser.add_argument("--jobs", type=int, default=None)
    parser.add_argument("--threads", type=int, default=8)
    parser.add_argument("--painter-share", type=float, default=0.2)
    parser.add_argument("--init", type=Path, default=ROOT / "models" / "tiles.pt",
                        help="the weights fine-tuned")
    parser.add_argument("--looks", default="full",
                        help="long sides the frame is shrunk to before a window is cut, in "
                             "turn, comma-separated ('full': as it is), e.g. full,768,640: "
                             "tiles as big as the reader's looks show them")
    parser.add_argument("--per-frame", type=int, default=2, help="windows cut from a frame")
    parser.add_argument("--hands-share", type=float, default=0.0,
                        help="share of the composited frames that are photos of a hand")
    parser.add_argument("--calibration", type=int, default=12,
                        help="validation frames of each kind the 8-bit export is "
                             "calibrated on")
    args = parser.parse_args(argv)
    sprites = args.sprites or [ROOT / "tests" / "datasets" / "sprites"]
    report = run(args.out, args.work, sprites, budget=args.budget or None,
                 frames=args.frames, imgsz=args.imgsz, epochs=args.epochs, device=args.device,
                 jobs=args.jobs, threads=args.threads, painter_share=args.painter_share,
                 photoreal=args.photoreal, calibration=args.calibration, init=args.init,
                 looks=parse_looks(args.looks), per_frame=args.per_frame,
                 hands_share=args.hands_share)
    print(json.dumps(report["seconds"]), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
