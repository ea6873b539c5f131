"""Real photos (``../shared/realdata/`` when present; a look, never used for tuning).

``tiles/`` single-tile photos read by the reader (a tile not detected is a miss)
and, apart, with the whole photo as the tile's box; ``halves/N/`` single-half
crops resized to 96x96 and given straight to the crop models (too small a view
for the tile detector); ``oblique/`` per-half accuracy against the labelled half
boxes (the stored pixel frame, EXIF rotation not applied); ``row/row.jpg`` the
eight tiles in order; ``detect/`` tile recall against the labelled boxes
(axis-aligned IoU >= 0.5 with the bounds of each read tile); ``topdown/`` read
and listed. Every miss is listed by image name.

``hands``: every photo that shows a hand's worth of tiles, scored as ``mtrain score``
and the app's hand page score it (``vision.stills.hand_photos``), its points against the true
points: exact, wrong and marked for checking (``HandReading.needs_check``), wrong and
not marked. The truths: the file name (``tiles/``), ``ROW_TRUTH``, the half labels
(``oblique/``: the sum of the labelled halves; none of those photos holds 0-0), and
the tiles named by eye for ``topdown/`` and ``detect/`` (``TOPDOWN_TRUTH``,
``DETECT_TRUTH``; ``detect/``'s table layout is no hand and is left out).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from benchmarks.matching import box_corners, match, rate
from engine import RuleSet, Tile, hand_points
from vision.images import load_image
from vision.models.crops import HALF_PX, half_polygons
from vision.models.detections import Detections, polygon_iou
from vision.reading.reader import TileReader
from vision.stills.hand_photos import hand_from_reading, read_hand

ROW_TRUTH = [(0, 0), (1, 10), (2, 3), (4, 5), (6, 7), (8, 11), (9, 10), (10, 12)]
#: The tiles of each ``topdown/`` photo, named by eye (evaluation only).
TOPDOWN_TRUTH: dict[str, list[tuple[int, int]]] = {
    "IMG-20210306-WA0000.jpg": [(7, 10), (5, 10), (0, 11), (4, 5), (2, 3), (10, 12), (10, 10),
                                (5, 9), (1, 10), (3, 11)],
    "IMG-20210306-WA0001.jpg": [(2, 11), (2, 2), (9, 10), (5, 9), (1, 10), (3, 11)],
    "IMG-20210311-WA0000.jpg": ROW_TRUTH,
    "IMG-20210311-WA0001.jpg": ROW_TRUTH,
    "IMG-20210311-WA0002.jpg": ROW_TRUTH,
    "IMG-20210324-WA0000.jpg": [(0, 0), (5, 9), (1, 8)],
    "IMG-20210324-WA0001.jpg": [(6, 10), (0, 12), (7, 11), (9, 9), (12, 12), (10, 12)],
    "IMG-20210324-WA0002.jpg": [(3, 9), (8, 8), (1, 7), (6, 12)],
    "IMG-20210324-WA0002_landscape.jpg": [(3, 9), (8, 8), (1, 7), (6, 12)],
    "IMG-20210324-WA0003.jpg": [(1, 9), (0, 3), (1, 10), (4, 8), (6, 9)],
}
#: The face-up tiles of the ``detect/`` photos of a hand, by the start of their names and
#: named by eye (the seven tiles beside the row lie face down, their backs printed).
DETECT_TRUTH: dict[str, list[tuple[int, int]]] = {
    "IMG_0350": [(1, 1)], "IMG_0354": [(1, 3)], "IMG_0357": [(1, 4)], "IMG_0359": [(0, 5)],
    "Hda20a87": [(3, 3), (3, 4), (3, 5), (3, 6), (4, 4), (4, 5), (4, 6)],
}


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
            got = sorted(frame.tiles.reading(0).values)
            exact_reader += got == want
            if got != want:
                misses.append(f"tiles/{path.name}: reader read {got}")
        else:
            misses.append(f"tiles/{path.name}: reader found no tile")
        h, w = image.shape[:2]
        whole = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
        box = Detections(whole[None], np.array([1.0]), np.array([0]))
        given = reader.read_tiles(image, box)
        got = sorted(given.reading(0).values)
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
        for t in frame.tiles.each():
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
    tiles = sorted(frame.tiles.each(), key=lambda t: float(t.corners[:, 0].mean()))
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
                            for t in frame.tiles.each())], np.float32).reshape(-1, 4, 2)
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
                          for t in frame.tiles.each()]
    return {"read": out, "note": "no labels: for looking at, not scored"}


def real_hand_truths(root: Path, rules: RuleSet) -> list[tuple[str, Path, int]]:
    """(name, photo, true points) of every real photo of a hand's worth of tiles."""
    def points(tiles: list[tuple[int, int]]) -> int:
        return hand_points([Tile(a, b) for a, b in tiles], rules)

    out = [(f"tiles/{p.name}", p, points([(int(p.stem.split("-")[0]), int(p.stem.split("-")[1]))]))
           for p in sorted((root / "tiles").glob("*.jpg"))]
    if (root / "row" / "row.jpg").is_file():
        out.append(("row/row.jpg", root / "row" / "row.jpg", points(ROW_TRUTH)))
    for p in sorted((root / "oblique").glob("*.jpg")):
        halves = [int(line.split()[0]) for line in p.with_suffix(".txt").read_text().split("\n")
                  if len(line.split()) == 5]
        out.append((f"oblique/{p.name}", p, sum(halves)))
    out += [(f"topdown/{p.name}", p, points(TOPDOWN_TRUTH[p.name]))
            for p in sorted((root / "topdown").glob("*.jpg")) if p.name in TOPDOWN_TRUTH]
    out += [(f"detect/{p.name}", p, points(DETECT_TRUTH[p.name[:8]]))
            for p in sorted((root / "detect").glob("*.jpg")) if p.name[:8] in DETECT_TRUTH]
    return out


def hands_marked(reader: TileReader, photos: Sequence[tuple[str, Path | np.ndarray, int]],
                 rules: RuleSet) -> dict[str, Any]:
    """Each photo scored as a hand (``read_hand``, ``hand_from_reading``): how many totals
    are exact, how many wrong ones are marked for checking, how many wrong ones are not,
    and every wrong or marked hand by name."""
    exact = exact_marked = wrong_marked = wrong_unmarked = 0
    listed = []
    for name, path, want in photos:
        reader.reset()  # a still: no closer look carried from the last one
        hand = hand_from_reading(read_hand(reader, path), rules, name)
        ok = hand.points == want
        exact += ok
        exact_marked += ok and hand.needs_check
        wrong_marked += not ok and hand.needs_check
        wrong_unmarked += not ok and not hand.needs_check
        if not ok or hand.needs_check:
            why = Counter(str(d) for ds in hand.doubts for d in ds)
            why.update(str(d) for box in hand.left_out for d in box.doubts)
            if hand.face_down:
                why["face-down"] += hand.face_down
            listed.append(f"{name}: {hand.points} for {want}, "
                          + ("marked (" + ", ".join(f"{k} {v}" for k, v in sorted(why.items()))
                             + f"; {len(hand.left_out)} left out)" if hand.needs_check
                             else "NOT marked"))
    return {"hands": len(photos), "exact": exact, "exact_but_marked": exact_marked,
            "wrong_and_marked": wrong_marked, "wrong_and_unmarked": wrong_unmarked,
            "listed": listed}


def real_hands(reader: TileReader, root: Path) -> dict[str, Any]:
    rules = RuleSet()
    return hands_marked(reader.for_set(rules.set), real_hand_truths(root, rules), rules)


def real(reader: TileReader, root: Path) -> dict[str, Any]:
    parts: dict[str, Any] = {}
    for name, func in (("tiles", real_tiles), ("halves", real_halves),
                       ("oblique", real_oblique), ("detect", real_detect),
                       ("topdown", real_topdown)):
        if (root / name).is_dir():
            parts[name] = func(reader, root / name)
    if (root / "row" / "row.jpg").is_file():
        parts["row"] = real_row(reader, root / "row" / "row.jpg")
    parts["hands"] = real_hands(reader, root)
    return parts
