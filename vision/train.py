"""``mtrain train``: reproduce ``models/`` from the synthetic generator.

Generates the training data with fixed seeds (``datasets.synth``), trains the
two YOLO models from their yaml (no downloaded weights), exports ONNX and
writes ``models/models.json``. torch and ultralytics are imported only inside
the functions that train, never at import time of this module.

- ``tiles``: YOLO11n-OBB on whole frames, classes ``tile`` and ``marker``.
- ``pips``: YOLO11n detect on half-tile crops cut by :func:`vision.crops.half_crops`,
  class ``pip``; the pip count of a half is the number of detections.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.errors import BadInputError

#: Seeds of the training data. The eval set (``datasets/eval``) uses seeds 9001/9002.
SEEDS = {
    "hands-train": 101,
    "table-train": 102,
    "crops-train": 103,
    "closeup-train": 104,
    "table-mat-train": 105,
    "crops-table-train": 106,  # further crops-table sets (--table-crops N): 107, 108, ...
    "crops-high-train": 110,  # crops-high sets (--high-crops N): 110, 111, ...
    "crops-covered-train": 120,
    "hands-val": 201,
    "table-val": 202,
    "crops-val": 203,
    "closeup-val": 204,
    "table-mat-val": 205,
    "crops-table-val": 206,
    "crops-covered-val": 220,
}
EVAL_SEEDS = {"hands": 9001, "table": 9002}
#: The 8-bit models the reader loads (``vision.quantize``); ``pips.onnx`` and
#: ``tiles.onnx`` are their sources.
PIPS_INT8 = "pips.int8.onnx"
TILES_INT8 = "tiles.int8.onnx"
#: Input side of the half classifiers: ``halves`` sees the crop as cut (``HALF_PX``),
#: ``halves_quick`` (the reader's first look at every crop, ``vision.reader``) shrunk to
#: 64 px, for 40 % of the time (session 23).
HALVES_PX = {"halves": 96, "halves_quick": 64}
#: Input side of the cover check (``covered``: whether a hand hides part of a half,
#: ``vision.cover_check``), trained on ``crops-covered`` crops shrunk to it.
COVERED_PX = 64
#: Input side of the covered-half counter (``halves_covered``: the count of a half a
#: hand may partly cover, ``vision.cover_check``), trained on the same crops.
HALVES_COVERED_PX = 64
#: The classifiers: the half counters, the cover check and the covered-half counter.
CLASSIFIERS = (*HALVES_PX, "covered", "halves_covered")

#: The pip network: YOLO11's layers at a quarter of the nano width ... [depth 0.33, width
#: 0.125]; about 0.8 M parameters, 3-4x faster than yolo11n on 96 px crops. Pips are
#: small coloured discs on a plain face: the nano model's capacity is not needed.
PIPS_YAML = """\
nc: 1
depth_multiple: 0.33
width_multiple: 0.125
backbone:
  - [-1, 1, Conv, [64, 3, 2]]
  - [-1, 1, Conv, [128, 3, 2]]
  - [-1, 2, C3k2, [256, False, 0.25]]
  - [-1, 1, Conv, [256, 3, 2]]
  - [-1, 2, C3k2, [512, False, 0.25]]
  - [-1, 1, Conv, [512, 3, 2]]
  - [-1, 2, C3k2, [512, True]]
  - [-1, 1, Conv, [1024, 3, 2]]
  - [-1, 2, C3k2, [1024, True]]
  - [-1, 1, SPPF, [1024, 5]]
  - [-1, 2, C2PSA, [1024]]
head:
  - [-1, 1, nn.Upsample, [None, 2, "nearest"]]
  - [[-1, 6], 1, Concat, [1]]
  - [-1, 2, C3k2, [512, False]]
  - [-1, 1, nn.Upsample, [None, 2, "nearest"]]
  - [[-1, 4], 1, Concat, [1]]
  - [-1, 2, C3k2, [256, False]]
  - [-1, 1, Conv, [256, 3, 2]]
  - [[-1, 13], 1, Concat, [1]]
  - [-1, 2, C3k2, [512, False]]
  - [-1, 1, Conv, [512, 3, 2]]
  - [[-1, 10], 1, Concat, [1]]
  - [-1, 2, C3k2, [1024, True]]
  - [[16, 19, 22], 1, Detect, [nc]]
"""

#: The half classifier (``halves``): YOLO11's classification layers at the nano scale
#: (depth 0.5, width 0.25; about 1.6 M parameters, most in the last layers, which run
#: at 3x3 on a 96 px crop). One class per count, 0 to ``HALF_CLASSES - 1``.
HALVES_YAML = """\
nc: {nc}
depth_multiple: 0.5
width_multiple: 0.25
max_channels: 1024
backbone:
  - [-1, 1, Conv, [64, 3, 2]]
  - [-1, 1, Conv, [128, 3, 2]]
  - [-1, 2, C3k2, [256, False, 0.25]]
  - [-1, 1, Conv, [256, 3, 2]]
  - [-1, 2, C3k2, [512, False, 0.25]]
  - [-1, 1, Conv, [512, 3, 2]]
  - [-1, 2, C3k2, [512, True]]
  - [-1, 1, Conv, [1024, 3, 2]]
  - [-1, 2, C3k2, [1024, True]]
  - [-1, 2, C2PSA, [1024]]
head:
  - [-1, 1, Classify, [nc]]
"""
#: Counts the half classifier knows: 0 to 18 (a double-18 set's halves).
HALF_CLASSES = 19
#: One in this many training crops of a count the validation crops lack goes to
#: validation instead (ultralytics wants every class in both).
BORROW_EVERY = 50

TILE_NAMES = ["tile", "marker"]
PIP_NAMES = ["pip"]
#: The cover check's classes (folders of its dataset, in order).
COVER_NAMES = ["covered", "open"]


@dataclass(frozen=True)
class Plan:
    """Sizes of one training run (defaults: the shipped models)."""

    # training scenes: 2/3 hands, 1/3 table; plus 1/7 close-ups and 1/5 tables on the mat
    tile_count: int = 1500
    tile_epochs: int = 30
    imgsz: int = 416
    pip_count: int = 12000  # training crops
    table_crop_sets: int = 1  # crops-table sets of pip_count crops each (seeds 106, 107, ...)
    high_crop_sets: int = 0  # crops-high sets of pip_count crops each (seeds 110, 111, ...)
    pip_epochs: int = 20
    threads: int = 1  # 2 torch threads thrash when other work shares the 2 cores
    jobs: int = 2
    hours: float | None = None  # a time budget: ultralytics re-plans the epochs to fit it
    init: str | None = None  # continue from these weights (a .pt of an earlier run), not the yaml
    device: str = "cpu"  # or a CUDA device index ("0"): training only, export stays on the CPU


def setup_offline(root: Path) -> None:
    """Environment for ultralytics with no network: must run before it is imported."""
    cfg = (root / ".yolo").resolve()
    os.environ.setdefault("YOLO_OFFLINE", "1")
    os.environ.setdefault("YOLO_CONFIG_DIR", str(cfg))
    os.environ.setdefault("MPLCONFIGDIR", str(cfg / "mpl"))
    os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")
    font_dir = Path(os.environ["YOLO_CONFIG_DIR"]) / "Ultralytics"
    font = font_dir / "Arial.ttf"
    Path(os.environ["MPLCONFIGDIR"]).mkdir(parents=True, exist_ok=True)
    if not font.exists():
        import matplotlib

        src = Path(matplotlib.get_data_path()) / "fonts" / "ttf" / "DejaVuSans.ttf"
        font_dir.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, font)


def _synth_once(folder: Path, kind: str, count: int, seed: int, jobs: int) -> Path:
    """Render ``folder`` unless it already holds exactly this (kind, count, seed)."""
    from datasets.synth import synthesize

    stamp = folder / ".done"
    want = json.dumps({"kind": kind, "count": count, "seed": seed})
    if stamp.exists() and stamp.read_text() == want:
        return folder
    if folder.exists():
        shutil.rmtree(folder)
    synthesize(folder, kind, count, seed, jobs=jobs)
    stamp.write_text(want)
    return folder


def tile_dataset(data: Path, plan: Plan) -> Path:
    """Generate scenes and the OBB dataset; returns its ``data.yaml``."""
    from datasets.yolo_export import export_obb

    n_hands = plan.tile_count * 2 // 3
    n_table = plan.tile_count - n_hands
    n_val = max(4, plan.tile_count // 10)
    # close-ups (one to three tiles filling the frame) on top: added after the first
    # shipped runs, so the hands/table sets of a given count stay what they were
    n_close, n_close_val = max(1, plan.tile_count // 7), max(1, n_val // 7)
    # and tables on the printed hub mat (its markers and slots under the tiles)
    n_mat, n_mat_val = max(1, plan.tile_count // 5), max(1, n_val // 5)
    scenes = data / "scenes"
    folders = {
        "train": [
            _synth_once(scenes / "hands-train", "hands", n_hands, SEEDS["hands-train"], plan.jobs),
            _synth_once(scenes / "table-train", "table", n_table, SEEDS["table-train"], plan.jobs),
            _synth_once(
                scenes / "closeup-train", "closeup", n_close, SEEDS["closeup-train"], plan.jobs
            ),
            _synth_once(
                scenes / "table-mat-train", "table-mat", n_mat, SEEDS["table-mat-train"], plan.jobs
            ),
        ],
        "val": [
            _synth_once(
                scenes / "hands-val", "hands", n_val * 2 // 3, SEEDS["hands-val"], plan.jobs
            ),
            _synth_once(
                scenes / "table-val", "table", n_val - n_val * 2 // 3, SEEDS["table-val"], plan.jobs
            ),
            _synth_once(
                scenes / "closeup-val", "closeup", n_close_val, SEEDS["closeup-val"], plan.jobs
            ),
            _synth_once(
                scenes / "table-mat-val", "table-mat", n_mat_val, SEEDS["table-mat-val"], plan.jobs
            ),
        ],
    }
    out = data / "yolo-tiles"
    if out.exists():
        shutil.rmtree(out)
    return export_obb(folders, out)


def pip_dataset(data: Path, plan: Plan) -> Path:
    """Generate half-tile crops and the detect dataset; returns its ``data.yaml``."""
    from datasets.yolo_export import export_pips

    out = data / "yolo-pips"
    folders = crop_folders(data, plan)
    if out.exists():
        shutil.rmtree(out)
    return export_pips(folders, out)


def halves_dataset(data: Path, plan: Plan) -> Path:
    """The pip model's crops (generated if missing) as a classification dataset
    (:func:`class_folders`); returns its folder."""
    return class_folders(crop_folders(data, plan), data / "halves-cls")


def covered_crops(data: Path, plan: Plan) -> dict[str, Path]:
    """The ``crops-covered`` crop folders (``plan.pip_count`` to train on, a twelfth as
    many to validate), generated if missing."""
    crops = data / "crops"
    n, n_val = plan.pip_count, max(16, plan.pip_count // 12)
    return {
        "train": _synth_once(crops / "covered-train", "crops-covered", n,
                             SEEDS["crops-covered-train"], plan.jobs),
        "val": _synth_once(crops / "covered-val", "crops-covered", n_val,
                           SEEDS["crops-covered-val"], plan.jobs),
    }


def covered_dataset(data: Path, plan: Plan) -> Path:
    """``crops-covered`` crops (:func:`covered_crops`) as a classification dataset:
    ``out/{train,val}/covered`` and ``.../open`` hold links to the crops; returns its
    folder."""
    folders = covered_crops(data, plan)
    out = data / "covered-cls"
    if out.exists():
        shutil.rmtree(out)
    for name, folder in folders.items():
        for cls in COVER_NAMES:
            (out / name / cls).mkdir(parents=True)
        for label in sorted(folder.glob("*.json")):
            covered = bool(json.loads(label.read_text())["covered"])
            crop = label.with_suffix(".png")
            _link(crop, out / name / COVER_NAMES[0 if covered else 1] / crop.name)
    return out


def halves_covered_dataset(data: Path, plan: Plan) -> Path:
    """The same ``crops-covered`` crops (:func:`covered_crops`), covered and open, as a
    classification dataset by their count (:func:`class_folders`); returns its folder."""
    folders = covered_crops(data, plan)
    return class_folders({name: [folder] for name, folder in folders.items()},
                         data / "halves-covered-cls")


def _link(src: Path, link: Path) -> None:
    try:
        link.symlink_to(src.resolve())
    except OSError:  # no symbolic links here: copy
        shutil.copyfile(src, link)


def class_folders(folders: dict[str, list[Path]], out: Path) -> Path:
    """Half crops (``{"train": [folder, ...], "val": [...]}``) as a classification
    dataset: ``out/train/NN/`` and ``out/val/NN/`` hold links to the crops whose
    label ``value`` is ``NN``. A count the validation crops lack borrows one in
    ``BORROW_EVERY`` of its training crops; one never trained on is not validated."""
    if out.exists():
        shutil.rmtree(out)
    split: dict[str, dict[int, list[Path]]] = {"train": {}, "val": {}}
    for name, group in folders.items():
        for folder in group:
            for label in sorted(folder.glob("*.json")):
                value = int(json.loads(label.read_text())["value"])
                split[name].setdefault(value, []).append(label.with_suffix(".png"))
    train, val = split["train"], split["val"]
    for value in list(val):
        if value not in train:
            del val[value]  # a count never trained on cannot be validated
    for value, crops in train.items():
        if value not in val:
            val[value] = crops[::BORROW_EVERY]
            train[value] = [c for k, c in enumerate(crops) if k % BORROW_EVERY] or crops
    for name, by_value in split.items():
        for value, crops in by_value.items():
            folder = out / name / f"{value:02d}"
            folder.mkdir(parents=True)
            for crop in crops:
                _link(crop, folder / f"{crop.parent.name}_{crop.name}")
    return out


def crop_folders(data: Path, plan: Plan) -> dict[str, list[Path]]:
    """Half-tile crop folders for training and validation, generated where missing."""
    crops = data / "crops"
    n, n_val = plan.pip_count, max(16, plan.pip_count // 12)

    def sets(kind: str, stem: str, count: int) -> list[Path]:
        """``count`` sets of ``kind``, seeds ``SEEDS[kind-train]`` on: ``stem``, ``stem-2``..."""
        return [_synth_once(crops / (stem if k == 0 else f"{stem}-{k + 1}"), kind, n,
                            SEEDS[f"{kind}-train"] + k, plan.jobs) for k in range(count)]

    return {
        "train": [
            _synth_once(crops / "train", "crops", n, SEEDS["crops-train"], plan.jobs),
            *sets("crops-table", "table-train", plan.table_crop_sets),
            *sets("crops-high", "high-train", plan.high_crop_sets),
        ],
        "val": [
            _synth_once(crops / "val", "crops", n_val, SEEDS["crops-val"], plan.jobs),
            _synth_once(
                crops / "table-val", "crops-table", n_val, SEEDS["crops-table-val"], plan.jobs
            ),
        ],
    }


def _ultralytics(threads: int) -> Any:
    import torch
    import ultralytics.utils.torch_utils as torch_utils
    from ultralytics import YOLO

    torch_utils.NUM_THREADS = threads
    torch.set_num_threads(threads)
    return YOLO


def train_model(
    which: str,
    data_yaml: Path,
    epochs: int,
    imgsz: int,
    runs: Path,
    threads: int = 2,
    hours: float | None = None,
    init: Path | None = None,
    device: str = "cpu",
    workers: int = 8,
) -> tuple[Path, dict[str, float], float, int]:
    """Train one model from its yaml; returns ``(best.pt, metrics, seconds, epochs run)``.

    With ``hours``, ultralytics' time mode re-plans the epoch count after each
    epoch (and stops) so that training fits the budget. With ``init`` (a local
    ``.pt`` of an earlier run) training continues from those weights at a lower
    learning rate and without warm-up, under the run name ``<which>-ft``. On a
    CUDA ``device`` (``"0"``) the images are loaded by ``workers`` processes and
    the tile batch is 64 instead of 16; on the CPU ultralytics loads them itself.
    """
    gpu = device != "cpu"
    yolo = _ultralytics(threads)
    if which == "tiles":
        model = yolo(str(init) if init else "yolo11n-obb.yaml")
        extra: dict[str, Any] = {
            "batch": 64 if gpu else 16,
            "mosaic": 1.0,
            "close_mosaic": max(1, epochs // 8),
            "degrees": 0.0,
            "scale": 0.35,
            "translate": 0.1,
            "fliplr": 0.5,
            "flipud": 0.5,
            "lr0": 0.01,
        }
    elif which in CLASSIFIERS:
        runs.mkdir(parents=True, exist_ok=True)
        classes = len(COVER_NAMES) if which == "covered" else HALF_CLASSES
        cfg = runs / f"yolo11-{which}-cls.yaml"
        cfg.write_text(HALVES_YAML.format(nc=classes))
        model = yolo(str(init) if init else str(cfg), task="classify")
        extra = {
            "batch": 128,
            "scale": 0.05,  # crops of 95-100 % of the half: a pip cut off changes the count
            "erasing": 0.0,  # so would erasing a patch
            "auto_augment": None,
            "fliplr": 0.5,
            "flipud": 0.5,
            "hsv_h": 0.03,
            "lr0": 0.01,
        }
    else:
        runs.mkdir(parents=True, exist_ok=True)
        cfg = runs / "yolo11-pips.yaml"
        cfg.write_text(PIPS_YAML)
        model = yolo(str(init) if init else str(cfg))
        extra = {
            "batch": 64,
            "mosaic": 0.0,
            "close_mosaic": 0,
            "degrees": 5.0,
            "scale": 0.08,
            "translate": 0.04,
            "fliplr": 0.5,
            "flipud": 0.5,
            "hsv_h": 0.03,
            "lr0": 0.01,
        }
    if init:
        extra.update(lr0=0.003, warmup_epochs=0.0)
    start = time.time()
    model.train(
        data=str(data_yaml),
        epochs=epochs,
        imgsz=imgsz,
        device=device,
        workers=workers if gpu else 0,
        patience=0,
        cos_lr=True,
        val=which in CLASSIFIERS,  # a classifier's validation is a few seconds: record it
        plots=False,
        cache=True,
        seed=0,
        deterministic=False,
        project=str(runs.resolve()),
        name=f"{which}-ft" if init else which,
        exist_ok=True,
        verbose=False,
        amp=False,
        **({"time": hours} if hours else {}),
        **extra,
    )
    seconds = time.time() - start
    save_dir = Path(model.trainer.save_dir)
    best = save_dir / "weights" / "best.pt"
    if not best.exists():
        best = save_dir / "weights" / "last.pt"
    metrics = {k: float(v) for k, v in (model.trainer.metrics or {}).items()}
    return best, metrics, seconds, int(model.trainer.epoch) + 1


def export_onnx(weights: Path, imgsz: int, dynamic: bool, threads: int = 2) -> Path:
    yolo = _ultralytics(threads)
    path = yolo(str(weights)).export(
        format="onnx", imgsz=imgsz, dynamic=dynamic, simplify=True, device="cpu"
    )
    from vision.fast_dfl import rewrite_file

    rewrite_file(Path(path))  # detectors: the box decoding's softmax on the last axis
    return Path(path)


def install(
    which: str, weights: Path, onnx: Path, models: Path, imgsz: int, info: dict[str, Any],
    calibration: Path | None = None, names: list[str] | None = None,
) -> None:
    """Copy weights and ONNX into ``models/`` and merge the entry into ``models.json``
    (``names``: the classes, when not the usual ones of ``which``).

    With ``calibration`` (for the pip model and the half classifier a folder of
    crops folders, for the tile detector a folder of scene folders), the model is
    also quantized to 8
    bits (:mod:`vision.quantize`) and that is the file the reader loads; the
    float export stays beside it.
    """
    models.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(onnx, models / f"{which}.onnx")
    if weights.stat().st_size < 10_000_000:
        shutil.copyfile(weights, models / f"{which}.pt")
    file = f"{which}.onnx"
    extra: dict[str, Any] = {}
    if which == "pips" and calibration is not None:
        file = quantize_installed(models, calibration)
    if which == "tiles" and calibration is not None:
        file = quantize_installed_tiles(models, calibration)
    if which in HALVES_PX and calibration is not None:
        from vision.quantize import HALVES_WEIGHT_BITS

        file = quantize_installed_halves(models, calibration, which)
        extra["weight_bits"] = HALVES_WEIGHT_BITS  # 8 bits on every CPU (vision.precision)
    if names is None:
        names = TILE_NAMES if which == "tiles" else PIP_NAMES if which == "pips" else \
            [f"{v:02d}" for v in range(HALF_CLASSES)]
    entry = {
        "file": file,
        "imgsz": imgsz,
        "names": names,
        "task": "obb" if which == "tiles" else "detect" if which == "pips" else "classify",
        **extra,
    }
    _merge_json(models / "models.json", {which: entry})
    _merge_json(models / "training.json", {which: info})


def quantize_installed(models: Path, calibration: Path) -> str:
    """Quantize ``models/pips.onnx`` to ``models/pips.int8.onnx``, calibrated on the
    validation crops under ``calibration`` (``data/crops``); returns the file name."""
    from vision.quantize import calibration_crops, quantize_pips

    folders = [calibration / "val", calibration / "table-val"]
    crops = calibration_crops([f for f in folders if f.is_dir()])
    quantize_pips(models / "pips.onnx", models / PIPS_INT8, crops)
    return PIPS_INT8


def quantize_installed_halves(models: Path, calibration: Path, which: str = "halves") -> str:
    """Quantize ``models/<which>.onnx`` (a half classifier, ``HALVES_PX``) to its 8-bit
    file, calibrated like the pip model (:func:`quantize_installed`) on the crops shrunk
    to its input; returns the file name."""
    from vision.precision import INT8_SUFFIX
    from vision.quantize import calibration_crops, quantize_halves

    folders = [calibration / "val", calibration / "table-val"]
    crops = calibration_crops([f for f in folders if f.is_dir()])
    file = f"{which}{INT8_SUFFIX}"  # halves.int8.onnx, halves_quick.int8.onnx
    quantize_halves(models / f"{which}.onnx", models / file, crops, HALVES_PX[which])
    return file


def quantize_installed_tiles(models: Path, calibration: Path) -> str:
    """Quantize ``models/tiles.onnx`` to ``models/tiles.int8.onnx``, calibrated on
    validation scenes under ``calibration`` (``data/scenes``); returns the file name."""
    from vision.quantize import calibration_frames, quantize_tiles

    kinds = ("hands-val", "table-val", "table-mat-val", "closeup-val")
    frames = calibration_frames([calibration / k for k in kinds if (calibration / k).is_dir()])
    quantize_tiles(models / "tiles.onnx", models / TILES_INT8, frames)
    return TILES_INT8


def _merge_json(path: Path, update: dict[str, Any]) -> None:
    import fcntl

    lock = path.with_suffix(".lock")
    with open(lock, "w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        current = json.loads(path.read_text()) if path.exists() else {}
        current.update(update)
        path.write_text(json.dumps(current, indent=2, sort_keys=True) + "\n")
    lock.unlink(missing_ok=True)


def run_training(which: str, plan: Plan, data: Path, runs: Path, models: Path) -> dict[str, Any]:
    """Generate, train, export and install ``which`` (``tiles``, ``pips``, ``halves``,
    ``halves_quick``, ``covered`` or ``halves_covered``). The quick classifier starts
    from ``models/halves.pt`` and the covered-half counter from ``models/halves_quick.pt``
    when no ``init`` is given and that file is there (the recipes of the shipped ones),
    else from the yaml."""
    if which == "tiles":
        yaml, imgsz, epochs = tile_dataset(data, plan), plan.imgsz, plan.tile_epochs
    elif which in HALVES_PX:
        yaml, imgsz, epochs = halves_dataset(data, plan), HALVES_PX[which], plan.pip_epochs
    elif which == "covered":
        yaml, imgsz, epochs = covered_dataset(data, plan), COVERED_PX, plan.pip_epochs
    elif which == "halves_covered":
        yaml, imgsz = halves_covered_dataset(data, plan), HALVES_COVERED_PX
        epochs = plan.pip_epochs
    else:
        yaml, imgsz, epochs = pip_dataset(data, plan), 96, plan.pip_epochs
    init = Path(plan.init) if plan.init else None
    if which == "halves_quick" and init is None and (models / "halves.pt").is_file():
        init = models / "halves.pt"
    if which == "halves_covered" and init is None and (models / "halves_quick.pt").is_file():
        init = models / "halves_quick.pt"
    best, metrics, seconds, ran = train_model(
        which, yaml, epochs, imgsz, runs, plan.threads, plan.hours, init, device=plan.device
    )
    # both dynamic: the reader sizes the tile input to the frame (rect, or closer)
    onnx = export_onnx(best, imgsz, dynamic=True, threads=plan.threads)
    info = {
        "epochs": ran,
        "epochs_planned": epochs,
        "hours": plan.hours,
        "imgsz": imgsz,
        "train_seconds": round(seconds),
        "count": plan.tile_count if which == "tiles" else plan.pip_count,
        **(
            {"table_crop_sets": plan.table_crop_sets, "high_crop_sets": plan.high_crop_sets}
            if which not in ("tiles", "covered", "halves_covered")
            else {}
        ),
        "init": str(init) if init else None,
        "device": plan.device,
        "val_metrics": {k: round(v, 4) for k, v in metrics.items()},
    }
    calibration = data / ("scenes" if which == "tiles" else "crops")
    # a classifier's classes are its dataset's folders, in order (a small run may lack some)
    names = sorted(p.name for p in (yaml / "train").iterdir()) if which in CLASSIFIERS else None
    install(which, best, onnx, models, imgsz, info, calibration=calibration, names=names)
    return info


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "train",
        help="generate synthetic data and train the models (needs .[train])",
        description="Reproduce models/: synthetic data with fixed seeds, YOLO "
        "training from yaml, ONNX export, models/models.json.",
    )
    defaults = Plan()
    p.add_argument("--which", choices=("tiles", "pips", "halves", "halves_quick", "covered",
                                       "halves_covered", "both", "all"),
                   default="all",
                   help="the model to train: the tile detector, the pip detector, the half "
                   "classifier, its quick 64 px version (from models/halves.pt when there), "
                   "the cover check (crops-covered crops, seeds 120 and 220), the "
                   "covered-half counter (the same crops by count, from "
                   "models/halves_quick.pt when there), both detectors or all six "
                   "(default all)")
    p.add_argument(
        "--epochs",
        type=int,
        default=None,
        help=f"epochs (default tiles {defaults.tile_epochs}, pips {defaults.pip_epochs})",
    )
    p.add_argument("--imgsz", type=int, default=defaults.imgsz, help="tile detector input size")
    p.add_argument(
        "--count",
        type=int,
        default=None,
        help=f"training images (default tiles {defaults.tile_count} scenes, "
        f"pips {defaults.pip_count} crops)",
    )
    p.add_argument(
        "--hours",
        type=float,
        default=None,
        help="time budget per model; ultralytics re-plans the epochs to fit it",
    )
    p.add_argument(
        "--init",
        default=None,
        help="continue training from these weights (a .pt of an earlier run) "
        "instead of the yaml; needs one model's --which",
    )
    p.add_argument(
        "--table-crops",
        type=int,
        default=defaults.table_crop_sets,
        help="pips: sets of webcam-sized crops (crops-table) of --count crops each, "
        f"seeds 106, 107, ... (default {defaults.table_crop_sets})",
    )
    p.add_argument(
        "--high-crops",
        type=int,
        default=defaults.high_crop_sets,
        help="pips: sets of crops-high crops (webcam-sized tiles with a half of 9 or "
        f"more first) of --count crops each, seeds 110, 111, ... (default "
        f"{defaults.high_crop_sets})",
    )
    p.add_argument("--out", default="models", help="models folder to write (default models)")
    p.add_argument("--data", default="data", help="generated data folder (default data)")
    p.add_argument("--runs", default="runs", help="training runs folder (default runs)")
    p.add_argument("--threads", type=int, default=defaults.threads, help="torch threads")
    p.add_argument(
        "--evaluate",
        action="store_true",
        help="train nothing: check the models in --out on datasets/eval, write OUT/eval.json",
    )
    p.add_argument("--jobs", type=int, default=defaults.jobs, help="data generation processes")
    p.add_argument(
        "--device",
        default=defaults.device,
        help="train on 'cpu' (default) or a CUDA device index such as '0'",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    for name in ("epochs", "count"):
        value = getattr(args, name)
        if value is not None and value < 1:
            raise BadInputError(f"--{name}", f"must be at least 1, got {value}")
    if args.imgsz < 32 or args.imgsz % 32:
        raise BadInputError("--imgsz", f"must be a multiple of 32, at least 32, got {args.imgsz}")
    if args.hours is not None and not 0 < args.hours <= 48:
        raise BadInputError("--hours", f"must be more than 0 and at most 48, got {args.hours}")
    if args.threads < 1 or args.jobs < 1 or args.table_crops < 1:
        raise BadInputError("--threads/--jobs/--table-crops", "must be at least 1")
    if args.high_crops < 0:
        raise BadInputError("--high-crops", f"must be 0 or more, got {args.high_crops}")
    if args.device != "cpu" and not args.device.isdigit():
        raise BadInputError(
            "--device", f"must be 'cpu' or a CUDA device index, got {args.device!r}"
        )
    if args.init is not None:
        if args.which in ("both", "all"):
            raise BadInputError("--init", "continues one model: give --which tiles, pips, "
                                "halves, halves_quick, covered or halves_covered")
        if not Path(args.init).is_file():
            raise BadInputError(args.init, "no such weights file")
    import importlib.util

    if importlib.util.find_spec("ultralytics") is None:
        raise BadInputError("train", "needs the training extras: pip install -e '.[train]'")
    base = Plan()
    plan = Plan(
        tile_count=args.count or base.tile_count,
        tile_epochs=args.epochs or base.tile_epochs,
        imgsz=args.imgsz,
        pip_count=args.count or base.pip_count,
        pip_epochs=args.epochs or base.pip_epochs,
        table_crop_sets=args.table_crops,
        high_crop_sets=args.high_crops,
        threads=args.threads,
        jobs=args.jobs,
        hours=args.hours,
        init=args.init,
        device=args.device,
    )
    setup_offline(Path.cwd())
    if args.evaluate:
        out = Path(args.out)
        if not (out / "models.json").exists():
            raise BadInputError(str(out), "holds no models.json")
        eval_dir = Path(__file__).resolve().parents[1] / "datasets" / "eval"
        report = evaluate(out, eval_dir, Path(args.runs) / "eval", threads=args.threads)
        (out / "eval.json").write_text(json.dumps(report, indent=2) + "\n")
        print(json.dumps(report, indent=2))
        return 0
    which = {"both": ("tiles", "pips"),
             "all": ("tiles", "pips", "halves", "halves_quick", "covered",
                     "halves_covered")}.get(
        args.which, (args.which,))
    for name in which:
        info = run_training(name, plan, Path(args.data), Path(args.runs), Path(args.out))
        print(f"{name}: {json.dumps(info)}")
    return 0


# --------------------------------------------------------------------------- evaluation


def _poly_iou(a: Any, b: Any) -> float:
    import cv2
    import numpy as np

    pa, pb = np.asarray(a, np.float32).reshape(4, 2), np.asarray(b, np.float32).reshape(4, 2)
    area, _ = cv2.intersectConvexConvex(pa, pb)
    union = cv2.contourArea(pa) + cv2.contourArea(pb) - area
    return float(area / union) if union > 0 else 0.0


def evaluate(
    models: Path, eval_dir: Path, work: Path, conf: float = 0.35, threads: int = 2
) -> dict[str, Any]:
    """Check the installed models on the committed eval set (never used in training).

    - ``tiles``: ultralytics OBB validation (mAP) on all, hands and table scenes;
    - ``pips_gt``: pip counts of half crops cut at the true corners (lightly
      jittered, as a detector would give them): exact-count accuracy per half and per tile;
    - ``read``: the two models chained the way the reader chains them: detected
      boxes matched to true tiles (IoU >= 0.5), both halves counted; share of
      true tiles found and read right (values in either order);
    - ``reader``: the same measure through what the companion runs, the ONNX
      reader (``vision.reader.TileReader``: closer look at small tiles, divider
      snapping, the 8-bit pip model).
    """
    import numpy as np

    from datasets.labels import iter_scenes
    from datasets.render import jitter_corners
    from datasets.yolo_export import export_obb
    from vision.crops import half_crops, order_corners
    from vision.images import load_image

    yolo = _ultralytics(threads)
    spec = json.loads((models / "models.json").read_text())
    result: dict[str, Any] = {"eval_dir": str(eval_dir), "conf": conf}
    scenes = list(iter_scenes(eval_dir))
    tiles_pt = models / "tiles.pt"
    if "tiles" in spec and tiles_pt.exists():
        imgsz = int(spec["tiles"]["imgsz"])
        result["tiles"] = {}
        for subset in ("all", "hands", "table"):
            folder = work / f"eval-{subset}"
            if folder.exists():
                shutil.rmtree(folder)
            folder.mkdir(parents=True)
            for image, labels in scenes:
                if subset in ("all", labels["kind"]):
                    shutil.copyfile(image, folder / image.name)
                    (folder / f"{image.stem}.json").write_text(json.dumps(labels))
            yaml = export_obb({"train": [folder], "val": [folder]}, work / f"yolo-eval-{subset}")
            m = yolo(str(tiles_pt)).val(
                data=str(yaml),
                split="val",
                imgsz=imgsz,
                batch=8,
                device="cpu",
                plots=False,
                verbose=False,
                project=str(work / "val"),
                name=subset,
                exist_ok=True,
            )
            per_class = {
                name: {
                    "mAP50": round(float(m.box.ap50[i]), 4),
                    "mAP50-95": round(float(m.box.ap[i]), 4),
                }
                for i, name in enumerate(m.names.values())
                if i < len(m.box.ap50)
            }
            result["tiles"][subset] = {
                "mAP50": round(float(m.box.map50), 4),
                "mAP50-95": round(float(m.box.map), 4),
                "precision": round(float(m.box.mp), 4),
                "recall": round(float(m.box.mr), 4),
                "per_class": per_class,
            }
    if "pips" not in spec:
        return result
    pips = yolo(str(models / spec["pips"]["file"]), task="detect")

    def count(crops: list[Any]) -> list[int]:
        out: list[int] = []
        for i in range(0, len(crops), 64):
            res = pips.predict(crops[i : i + 64], imgsz=96, conf=conf, verbose=False, device="cpu")
            out += [len(r.boxes) for r in res]
        return out

    rng = np.random.default_rng(9009)
    crops, truth = [], []
    for image_path, labels in scenes:
        frame = load_image(image_path)
        for tile in labels["tiles"]:
            if tile.get("visible", 1) < 1:
                continue
            a, b = half_crops(frame, jitter_corners(np.array(tile["corners"]), rng, 0.5))
            crops += [a, b]
            truth += list(tile["values"])
    got = count(crops)
    halves_ok = [g == t for g, t in zip(got, truth, strict=True)]
    tiles_ok = [halves_ok[i] and halves_ok[i + 1] for i in range(0, len(halves_ok), 2)]
    by_value: dict[int, list[int]] = {}
    for g, t in zip(got, truth, strict=True):
        by_value.setdefault(int(t), [0, 0])
        by_value[int(t)][0] += int(g == t)
        by_value[int(t)][1] += 1
    result["pips_gt"] = {
        "halves": len(truth),
        "half_accuracy": round(float(np.mean(halves_ok)), 4),
        "tile_accuracy": round(float(np.mean(tiles_ok)), 4),
        "by_value": {str(k): f"{v[0]}/{v[1]}" for k, v in sorted(by_value.items())},
    }
    if "tiles" not in result:
        return result
    detector = yolo(str(tiles_pt))
    found = read_ok = total = 0
    by_kind: dict[str, list[int]] = {}
    for image_path, labels in scenes:
        frame = load_image(image_path)
        res = detector.predict(
            frame, imgsz=int(spec["tiles"]["imgsz"]), conf=conf, verbose=False, device="cpu"
        )[0]
        boxes = (
            []
            if res.obb is None
            else [
                order_corners(c)
                for c, k in zip(res.obb.xyxyxyxy.numpy(), res.obb.cls.numpy(), strict=True)
                if int(k) == 0
            ]
        )
        halves = [h for c in boxes for h in half_crops(frame, c)]
        counts = count(halves) if halves else []
        reads = [tuple(sorted(counts[i : i + 2])) for i in range(0, len(counts), 2)]
        stats = by_kind.setdefault(labels["kind"], [0, 0, 0])
        for tile in labels["tiles"]:
            if tile.get("visible", 1) < 1:
                continue
            total += 1
            stats[2] += 1
            ious = [_poly_iou(tile["corners"], c) for c in boxes]
            if not ious or max(ious) < 0.5:
                continue
            found += 1
            stats[0] += 1
            if reads[int(np.argmax(ious))] == tuple(sorted(tile["values"])):
                read_ok += 1
                stats[1] += 1
    result["read"] = {
        "tiles": total,
        "found": round(found / max(total, 1), 4),
        "read_right": round(read_ok / max(total, 1), 4),
        "by_kind": {
            k: {
                "tiles": v[2],
                "found": round(v[0] / max(v[2], 1), 4),
                "read_right": round(v[1] / max(v[2], 1), 4),
            }
            for k, v in by_kind.items()
        },
    }
    result["reader"] = reader_rates(models, scenes, threads)
    return result


def reader_rates(models: Path, scenes: list[tuple[Path, dict[str, Any]]],
                 threads: int = 2) -> dict[str, Any]:
    """Share of the visible true tiles of ``scenes`` that the ONNX reader finds
    (a reading's box overlaps by IoU >= 0.5) and reads right (either order); each scene
    is read for its set (its label's ``set``), as ``mtrain read --rules`` reads."""
    import numpy as np

    from vision.images import load_image
    from vision.reader import TileReader

    reader = TileReader(models, threads=threads)
    by_kind: dict[str, list[int]] = {}
    for image_path, labels in scenes:
        readings = reader.for_set(labels.get("set")).read(load_image(image_path)).tiles
        stats = by_kind.setdefault(labels["kind"], [0, 0, 0])
        for tile in labels["tiles"]:
            if tile.get("visible", 1) < 1:
                continue
            stats[2] += 1
            ious = [_poly_iou(tile["corners"], r.corners) for r in readings]
            if not ious or max(ious) < 0.5:
                continue
            stats[0] += 1
            best = readings[int(np.argmax(ious))]
            stats[1] += tuple(sorted(best.values)) == tuple(sorted(tile["values"]))
    total = [sum(v[i] for v in by_kind.values()) for i in range(3)]

    def rates(v: list[int]) -> dict[str, Any]:
        return {"tiles": v[2], "found": round(v[0] / max(v[2], 1), 4),
                "read_right": round(v[1] / max(v[2], 1), 4)}

    return {**rates(total), "by_kind": {k: rates(v) for k, v in by_kind.items()}}
