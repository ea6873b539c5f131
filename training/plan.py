"""What a training run makes and how big it is: seeds, model layouts, class names,
the run's sizes (:class:`Plan`) and the offline setup ultralytics needs."""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path

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
    "crops-composite-train": 160,  # half crops of composited frames (--composite-crops)
    "table-surface-train": 130,
    "hands-surface-train": 131,
    "surface-empty-train": 132,
    "hands-val": 201,
    "table-val": 202,
    "crops-val": 203,
    "closeup-val": 204,
    "table-mat-val": 205,
    "crops-table-val": 206,
    "crops-covered-val": 220,
    "crops-composite-val": 260,
    "table-surface-val": 230,
    "hands-surface-val": 231,
    "surface-empty-val": 232,
}
#: The 8-bit models the reader loads (``training.quantize``); ``pips.onnx`` and
#: ``tiles.onnx`` are their sources.
PIPS_INT8 = "pips.int8.onnx"
TILES_INT8 = "tiles.int8.onnx"
#: Input side of the half classifiers: ``halves`` sees the crop as cut (``HALF_PX``),
#: ``halves_quick`` (the reader's first look at every crop, ``vision.reading.reader``) shrunk to
#: 64 px, for 40 % of the time.
HALVES_PX = {"halves": 96, "halves_quick": 64}
#: Input side of the cover check (``covered``: whether a hand hides part of a half,
#: ``vision.reading.cover_check``), trained on ``crops-covered`` crops shrunk to it.
COVERED_PX = 64
#: Input side of the covered-half counter (``halves_covered``: the count of a half a
#: hand may partly cover, ``vision.reading.cover_check``), trained on the same crops.
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
    # tiles: also 1/5 tables and 1/10 hands on patterned surfaces and 1/10 empty frames
    # of them (no tile: the cloth's checks and flowers are hard negatives)
    surfaces: bool = False
    pip_epochs: int = 20
    threads: int = 1  # 2 torch threads thrash when other work shares the 2 cores
    jobs: int = 2
    hours: float | None = None  # a time budget: ultralytics re-plans the epochs to fit it
    init: str | None = None  # continue from these weights (a .pt of an earlier run), not the yaml
    device: str = "cpu"  # or a CUDA device index ("0"): training only, export stays on the CPU
    # half classifiers: this many crops-composite crops (cut from frames composited from
    # the sprite folders ``sprites``) beside the painter's crop sets, and a twelfth as
    # many to validate
    composite_crops: int = 0
    sprites: tuple[str, ...] = ()


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

