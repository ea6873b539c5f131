"""Checking installed models on the committed eval set (``datasets/eval``, never
used in training): detector mAP, pip counts at the true corners, and tiles read
by the models chained as the reader chains them."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from training.fit import ultralytics_yolo


def poly_iou(a: Any, b: Any) -> float:
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
      reader (``vision.reading.reader.TileReader``: closer look at small tiles, divider
      snapping, the 8-bit pip model).
    """
    import numpy as np

    from datasets.labels import iter_scenes
    from datasets.render import jitter_corners
    from vision.images import load_image
    from vision.models.crops import half_crops, order_corners

    yolo = ultralytics_yolo(threads)
    spec = json.loads((models / "models.json").read_text())
    result: dict[str, Any] = {"eval_dir": str(eval_dir), "conf": conf}
    scenes = list(iter_scenes(eval_dir))
    tiles_pt = models / "tiles.pt"
    if "tiles" in spec and tiles_pt.exists():
        result["tiles"] = _detector_map(yolo, tiles_pt, scenes, int(spec["tiles"]["imgsz"]), work)
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
            ious = [poly_iou(tile["corners"], c) for c in boxes]
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


def _detector_map(yolo: Any, tiles_pt: Path, scenes: list[tuple[Path, dict[str, Any]]],
                  imgsz: int, work: Path) -> dict[str, Any]:
    """The detector's ultralytics OBB validation (mAP) on all, hands and table scenes."""
    from datasets.yolo_export import export_obb

    out: dict[str, Any] = {}
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
        out[subset] = {
            "mAP50": round(float(m.box.map50), 4),
            "mAP50-95": round(float(m.box.map), 4),
            "precision": round(float(m.box.mp), 4),
            "recall": round(float(m.box.mr), 4),
            "per_class": per_class,
        }
    return out


def reader_rates(models: Path, scenes: list[tuple[Path, dict[str, Any]]],
                 threads: int = 2) -> dict[str, Any]:
    """Share of the visible true tiles of ``scenes`` that the ONNX reader finds
    (a reading's box overlaps by IoU >= 0.5) and reads right (either order); each scene
    is read for its set (its label's ``set``), as ``mtrain read --rules`` reads."""
    import numpy as np

    from vision.images import load_image
    from vision.reading.reader import TileReader

    reader = TileReader(models, threads=threads)
    by_kind: dict[str, list[int]] = {}
    for image_path, labels in scenes:
        readings = reader.for_set(labels.get("set")).read(load_image(image_path)).tiles.each()
        stats = by_kind.setdefault(labels["kind"], [0, 0, 0])
        for tile in labels["tiles"]:
            if tile.get("visible", 1) < 1:
                continue
            stats[2] += 1
            ious = [poly_iou(tile["corners"], r.corners) for r in readings]
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
