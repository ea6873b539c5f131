"""Real photos (``../shared/realdata/`` when present; a look, never used for tuning).

``tiles/`` single-tile photos read by the reader (a tile not detected is a miss)
and, apart, with the whole photo as the tile's box; ``halves/N/`` single-half
crops resized to 96x96 and given straight to the crop models (too small a view
for the tile detector); ``oblique/`` per-half accuracy against the labelled half
boxes (the stored pixel frame, EXIF rotation not applied); ``row/row.jpg`` the
eight tiles in order; ``detect/`` tile recall against the labelled boxes
(axis-aligned IoU >= 0.5 with the bounds of each read tile); ``topdown/`` read
and listed, not scored (no labels). Every miss is listed by image name.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from benchmarks.matching import box_corners, match, rate
from vision.images import load_image
from vision.models.crops import HALF_PX, half_polygons
from vision.models.detections import Detections, polygon_iou
from vision.reading.reader import TileReader

ROW_TRUTH = [(0, 0), (1, 10), (2, 3), (4, 5), (6, 7), (8, 11), (9, 10), (10, 12)]


def read_raw(path: Path) -> np.ndarray:
    """Pixels as stored, EXIF orientation not applied (for labels in that frame)."""
    image = cv2.imread(str(path), cv2.IMREAD_COLOR | cv2.IMREAD_IGNORE_ORIENTATION)
    if image is None:
        raise ValueError(f"cannot read {path}")
    return image


def real_tiles(reader: TileReader, folder: Path) -> dict[str, Any]:
    files = sorted(folder.glob("*.jpg"))
    exact_reader = exact_box = 0
    misses = []
    for path in files:
        want = sorted(int(v) for v in path.stem.split("-"))
        image = load_image(path)
        reader.reset()  # a still: no closer look carried from the last one
        frame = reader.read(image)
        if frame.tiles:
            got = sorted(frame.tiles[0].values)
            exact_reader += got == want
            if got != want:
                misses.append(f"tiles/{path.name}: reader read {got}")
        else:
            misses.append(f"tiles/{path.name}: reader found no tile")
        h, w = image.shape[:2]
        whole = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
        box = Detections(whole[None], np.array([1.0]), np.array([0]))
        given = reader.read_tiles(image, box)
        got = sorted(given[0].values)
        exact_box += got == want
        if got != want:
            misses.append(f"tiles/{path.name}: with the photo as box read {got}")
    return {"images": len(files), "exact_reader": rate(exact_reader, len(files)),
            "exact_given_box": rate(exact_box, len(files)), "misses": misses}


def real_halves(reader: TileReader, folder: Path) -> dict[str, Any]:
    crops, truths, names = [], [], []
    for sub in sorted(folder.iterdir(), key=lambda p: int(p.name) if p.name.isdigit() else -1):
        if not sub.is_dir() or not sub.name.isdigit():
            continue
        for path in sorted(sub.glob("*.jpg")):
            crops.append(cv2.resize(load_image(path), (HALF_PX, HALF_PX),
                                    interpolation=cv2.INTER_AREA))
            truths.append(int(sub.name))
            names.append(f"halves/{sub.name}/{path.name}")
    counts = reader.count_pips(crops) if crops else []
    ok = 0
    misses = []
    for (count, certainty, _), want, name in zip(counts, truths, names, strict=True):
        ok += count == want
        if count != want:
            misses.append(f"{name}: counted {count} (certainty {certainty:.2f})")
    return {"images": len(crops), "accuracy": rate(ok, len(crops)), "misses": misses}


def real_oblique(reader: TileReader, folder: Path) -> dict[str, Any]:
    total = ok = found = 0
    misses = []
    for path in sorted(folder.glob("*.jpg")):
        image = read_raw(path)
        h, w = image.shape[:2]
        reader.reset()  # a still: no closer look carried from the last one
        frame = reader.read(image)
        halves, values = [], []
        for t in frame.tiles:
            pa, pb = half_polygons(t.corners)
            halves += [pa, pb]
            values += [t.values[0], t.values[1]]
        label = path.with_suffix(".txt")
        for line in label.read_text().split("\n"):
            parts = line.split()
            if len(parts) != 5:
                continue
            want = int(parts[0])
            cx, cy, bw, bh = (float(v) for v in parts[1:])
            box = box_corners([(cx - bw / 2) * w, (cy - bh / 2) * h,
                               (cx + bw / 2) * w, (cy + bh / 2) * h])
            total += 1
            iou = polygon_iou(box[None], np.array(halves).reshape(-1, 4, 2))[0]
            if not len(iou) or iou.max() < 0.3:
                misses.append(f"oblique/{path.name}: half {want} at ({cx:.2f}, {cy:.2f}) "
                              "not found")
                continue
            found += 1
            got = values[int(iou.argmax())]
            ok += got == want
            if got != want:
                misses.append(f"oblique/{path.name}: half {want} at ({cx:.2f}, {cy:.2f}) "
                              f"read as {got}")
    return {"halves": total, "found": rate(found, total), "accuracy": rate(ok, total),
            "misses": misses}


def real_row(reader: TileReader, path: Path) -> dict[str, Any]:
    reader.reset()  # a still: no closer look carried from the last one
    frame = reader.read(path)
    tiles = sorted(frame.tiles, key=lambda t: float(t.corners[:, 0].mean()))
    read = [(min(t.values), max(t.values)) for t in tiles]
    want = Counter(ROW_TRUTH)
    got = Counter(read)
    exact = sum((want & got).values())
    misses = [f"row/row.jpg: {list(v)} not read" for v in (want - got).elements()]
    misses += [f"row/row.jpg: extra or wrong {list(v)}" for v in (got - want).elements()]
    return {"tiles": len(ROW_TRUTH), "read": [list(v) for v in read],
            "exact": rate(exact, len(ROW_TRUTH)),
            "in_order": read == ROW_TRUTH, "misses": misses}


def real_detect(reader: TileReader, folder: Path) -> dict[str, Any]:
    total = found = n_read = 0
    misses = []
    for path in sorted(folder.glob("*.jpg")):
        image = load_image(path)
        h, w = image.shape[:2]
        reader.reset()  # a still: no closer look carried from the last one
        frame = reader.read(image)
        n_read += len(frame.tiles)
        truth = []
        for line in path.with_suffix(".txt").read_text().split("\n"):
            parts = line.split()
            if len(parts) != 5:
                continue
            cx, cy, bw, bh = (float(v) for v in parts[1:])
            truth.append(box_corners([(cx - bw / 2) * w, (cy - bh / 2) * h,
                                      (cx + bw / 2) * w, (cy + bh / 2) * h]))
        bounds = np.array([box_corners(b) for b in
                           (np.concatenate([t.corners.min(0), t.corners.max(0)])
                            for t in frame.tiles)], np.float32).reshape(-1, 4, 2)
        pairs = match(np.array(truth, np.float32).reshape(-1, 4, 2), bounds)
        total += len(truth)
        found += len(pairs)
        if len(pairs) < len(truth):
            misses.append(f"detect/{path.name}: {len(truth) - len(pairs)} of {len(truth)} "
                          "tiles not found")
    return {"tiles": total, "read": n_read, "recall": rate(found, total), "misses": misses}


def real_topdown(reader: TileReader, folder: Path) -> dict[str, Any]:
    out = {}
    for path in sorted(folder.glob("*.jpg")):
        reader.reset()  # a still: no closer look carried from the last one
        frame = reader.read(path)
        out[path.name] = [f"{t.values[0]}-{t.values[1]}{'?' if t.uncertain else ''}"
                          for t in frame.tiles]
    return {"read": out, "note": "no labels: for looking at, not scored"}


def real(reader: TileReader, root: Path) -> dict[str, Any]:
    parts: dict[str, Any] = {}
    for name, func in (("tiles", real_tiles), ("halves", real_halves),
                       ("oblique", real_oblique), ("detect", real_detect),
                       ("topdown", real_topdown)):
        if (root / name).is_dir():
            parts[name] = func(reader, root / name)
    if (root / "row" / "row.jpg").is_file():
        parts["row"] = real_row(reader, root / "row" / "row.jpg")
    return parts
