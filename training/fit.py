"""Training one model with ultralytics, exporting it to ONNX and installing it in
``models/`` (quantized to 8 bits where the reader loads that). torch and ultralytics
are imported only inside the functions that train, never at import time."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path
from typing import Any

from training.data import (
    covered_dataset,
    halves_covered_dataset,
    halves_dataset,
    pip_dataset,
    tile_dataset,
)
from training.plan import (
    CLASSIFIERS,
    COVER_NAMES,
    COVERED_PX,
    HALF_CLASSES,
    HALVES_COVERED_PX,
    HALVES_PX,
    HALVES_YAML,
    PIP_NAMES,
    PIPS_INT8,
    PIPS_YAML,
    TILE_NAMES,
    TILES_INT8,
    Plan,
)


def ultralytics_yolo(threads: int) -> Any:
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
    yolo = ultralytics_yolo(threads)
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
    yolo = ultralytics_yolo(threads)
    path = yolo(str(weights)).export(
        format="onnx", imgsz=imgsz, dynamic=dynamic, simplify=True, device="cpu"
    )
    from training.fast_dfl import rewrite_file

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
    bits (:mod:`training.quantize`) and that is the file the reader loads; the
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
        from training.quantize import HALVES_WEIGHT_BITS

        file = quantize_installed_halves(models, calibration, which)
        extra["weight_bits"] = HALVES_WEIGHT_BITS  # 8 bits on every CPU (vision.models.precision)
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
    from training.quantize import calibration_crops, quantize_pips

    folders = [calibration / "val", calibration / "table-val"]
    crops = calibration_crops([f for f in folders if f.is_dir()])
    quantize_pips(models / "pips.onnx", models / PIPS_INT8, crops)
    return PIPS_INT8


def quantize_installed_halves(models: Path, calibration: Path, which: str = "halves") -> str:
    """Quantize ``models/<which>.onnx`` (a half classifier, ``HALVES_PX``) to its 8-bit
    file, calibrated like the pip model (:func:`quantize_installed`) on the crops shrunk
    to its input; returns the file name."""
    from training.quantize import calibration_crops, quantize_halves
    from vision.models.precision import INT8_SUFFIX

    folders = [calibration / "val", calibration / "table-val"]
    crops = calibration_crops([f for f in folders if f.is_dir()])
    file = f"{which}{INT8_SUFFIX}"  # halves.int8.onnx, halves_quick.int8.onnx
    quantize_halves(models / f"{which}.onnx", models / file, crops, HALVES_PX[which])
    return file


def quantize_installed_tiles(models: Path, calibration: Path) -> str:
    """Quantize ``models/tiles.onnx`` to ``models/tiles.int8.onnx``, calibrated on
    validation scenes under ``calibration`` (``data/scenes``); returns the file name."""
    from training.quantize import calibration_frames, quantize_tiles

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


def run_training(which: str, plan: Plan, data: Path, runs: Path, models: Path,
                 command: str | None = None) -> dict[str, Any]:
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
        **({"composite_crops": plan.composite_crops,
            "sprites": sorted(set(plan.sprites))} if plan.composite_crops else {}),
        **({"command": command} if command else {}),
        "val_metrics": {k: round(v, 4) for k, v in metrics.items()},
    }
    calibration = data / ("scenes" if which == "tiles" else "crops")
    # a classifier's classes are its dataset's folders, in order (a small run may lack some)
    names = sorted(p.name for p in (yaml / "train").iterdir()) if which in CLASSIFIERS else None
    install(which, best, onnx, models, imgsz, info, calibration=calibration, names=names)
    return info

