"""Turn folders of labelled scenes into ultralytics datasets.

``export_obb`` writes a tile/marker OBB dataset (``class x1 y1 ... x4 y4``,
normalised) and ``export_pips`` a pip detection dataset (``class cx cy w h``)
from ``crops`` folders. Both write ``images/<split>``, ``labels/<split>`` and a
``data.yaml``; images are hard-linked when they can be (copied otherwise).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from datasets.labels import iter_scenes

TILE_NAMES = ("tile", "marker")
PIP_NAMES = ("pip",)


def _place(src: Path, dst: Path) -> None:
    if dst.exists():
        dst.unlink()
    try:
        os.link(src, dst)
    except OSError:
        shutil.copyfile(src, dst)


def _clip01(v: float) -> float:
    return min(max(v, 0.0), 1.0)


def obb_lines(labels: Mapping[str, Any]) -> list[str]:
    """YOLO OBB label lines of one scene: class 0 per tile, 1 per marker."""
    w, h = float(labels["width"]), float(labels["height"])
    lines = []
    for cls, items in ((0, labels["tiles"]), (1, labels["markers"])):
        for item in items:
            coords = " ".join(
                f"{_clip01(x / w):.6f} {_clip01(y / h):.6f}" for x, y in item["corners"]
            )
            lines.append(f"{cls} {coords}")
    return lines


def detect_lines(labels: Mapping[str, Any]) -> list[str]:
    """YOLO detect label lines of one crop: class 0 per pip box."""
    w, h = float(labels["width"]), float(labels["height"])
    lines = []
    for pip in labels["pips"]:
        x0, y0, x1, y1 = pip["box"]
        cx, cy = (x0 + x1) / 2 / w, (y0 + y1) / 2 / h
        lines.append(
            f"0 {_clip01(cx):.6f} {_clip01(cy):.6f} {(x1 - x0) / w:.6f} {(y1 - y0) / h:.6f}"
        )
    return lines


def _export(
    splits: Mapping[str, Sequence[Path]], out: Path, names: Sequence[str], task: str
) -> Path:
    out = Path(out)
    for split, folders in splits.items():
        img_dir, lab_dir = out / "images" / split, out / "labels" / split
        img_dir.mkdir(parents=True, exist_ok=True)
        lab_dir.mkdir(parents=True, exist_ok=True)
        for folder in folders:
            for image, labels in iter_scenes(folder):
                lines = obb_lines(labels) if task == "obb" else detect_lines(labels)
                _place(image, img_dir / image.name)
                (lab_dir / f"{image.stem}.txt").write_text(
                    "\n".join(lines) + ("\n" if lines else ""), encoding="utf-8"
                )
    yaml = out / "data.yaml"
    body = [f"path: {out.resolve()}"]
    body += [f"{split}: images/{split}" for split in splits]
    body.append("names:")
    body += [f"  {i}: {name}" for i, name in enumerate(names)]
    yaml.write_text("\n".join(body) + "\n", encoding="utf-8")
    return yaml


def export_obb(splits: Mapping[str, Sequence[Path]], out: Path) -> Path:
    """Tile/marker OBB dataset from scene folders, e.g. ``{"train": [...], "val": [...]}``."""
    return _export(splits, out, TILE_NAMES, "obb")


def export_pips(splits: Mapping[str, Sequence[Path]], out: Path) -> Path:
    """Pip detection dataset from ``crops`` folders."""
    return _export(splits, out, PIP_NAMES, "detect")
