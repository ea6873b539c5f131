"""The training data: scenes and crops rendered with fixed seeds (``datasets.synth``),
exported as YOLO detection datasets or class folders."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from training.plan import BORROW_EVERY, COVER_NAMES, SEEDS, Plan


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
    # and tables and hands on patterned cloths, leather, glass (``datasets.surfaces``),
    # with empty frames of them: the cloth's checks and flowers are no tiles
    n_surface, n_surface_val = max(1, plan.tile_count // 5), max(1, n_val // 5)
    n_loose, n_loose_val = max(1, plan.tile_count // 10), max(1, n_val // 10)
    scenes = data / "scenes"

    def surfaces(split: str, tables: int, loose: int) -> list[Path]:
        if not plan.surfaces:
            return []
        return [_synth_once(scenes / f"{kind}-{split}", kind, n, SEEDS[f"{kind}-{split}"],
                            plan.jobs)
                for kind, n in (("table-surface", tables), ("hands-surface", loose),
                                ("surface-empty", loose))]

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
            *surfaces("train", n_surface, n_loose),
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
            *surfaces("val", n_surface_val, n_loose_val),
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

    folders = {
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
    if plan.composite_crops:
        folders["train"].append(composite_crops(crops / "composite-train", plan,
                                                plan.composite_crops, "train"))
        folders["val"].append(composite_crops(crops / "composite-val", plan,
                                              max(16, plan.composite_crops // 12), "val"))
    return folders


def composite_crops(folder: Path, plan: Plan, count: int, split: str) -> Path:
    """``count`` ``crops-composite`` crops of ``plan.sprites`` (seed
    ``SEEDS["crops-composite-<split>"]``) in ``folder``, written unless there."""
    from datasets.composite.crops import write_composite_crops

    return write_composite_crops(folder, plan.sprites, count,
                                 SEEDS[f"crops-composite-{split}"], jobs=plan.jobs)
