"""Making the models: synthetic training data, YOLO training, ONNX export, 8-bit
quantization and the check on the eval set (``mtrain train``).

Training sits above the runtime: it imports ``datasets`` and ``vision``, and
nothing in ``vision`` imports it. torch and ultralytics load only inside the
functions that train.
"""

from __future__ import annotations

from training.data import (
    class_folders,
    covered_dataset,
    crop_folders,
    halves_covered_dataset,
    halves_dataset,
    pip_dataset,
    tile_dataset,
)
from training.evaluate import evaluate, poly_iou, reader_rates
from training.fit import export_onnx, install, run_training, train_model
from training.plan import SEEDS, Plan, setup_offline

__all__ = [
    "SEEDS",
    "Plan",
    "class_folders",
    "covered_dataset",
    "crop_folders",
    "evaluate",
    "export_onnx",
    "halves_covered_dataset",
    "halves_dataset",
    "install",
    "pip_dataset",
    "poly_iou",
    "reader_rates",
    "run_training",
    "setup_offline",
    "tile_dataset",
    "train_model",
]
