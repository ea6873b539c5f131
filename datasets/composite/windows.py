"""Square windows cut out of labelled frames, so a detector trained at the window's side
sees tiles at the pixel size a webcam frame shows them (not shrunk with the frame), or
at the size the reader's looks show them: the frame shrunk to a long side of 416 (its
first look) or 768 (its closer look) before the window is cut (``looks``).

Each window is written as ``NAME_wK.jpg`` + ``NAME_wK.json`` in the painter's label
format: an object is kept when at least ``keep`` of its box lies in the window (its
corners as they are, partly outside; the exporter clips them), and pips of kept tiles
whose box lies inside.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from datasets.composite.compose import inside_share
from datasets.labels import iter_scenes


def _shift(items: list[dict[str, Any]], x0: int, y0: int, side: int,
           keep: float) -> tuple[list[dict[str, Any]], list[int]]:
    out, kept = [], []
    for i, item in enumerate(items):
        corners = np.asarray(item["corners"], np.float64) - [x0, y0]
        if inside_share(corners, (side, side)) < keep:
            continue
        out.append({**item, "corners": [[round(float(x), 2), round(float(y), 2)]
                                        for x, y in corners]})
        kept.append(i)
    return out, kept


def window_labels(labels: dict[str, Any], x0: int, y0: int, side: int, name: str,
                  keep: float = 0.5) -> dict[str, Any]:
    """``labels`` of a frame as seen in the window ``side`` square at ``(x0, y0)``."""
    tiles, kept = _shift(labels["tiles"], x0, y0, side, keep)
    index = {old: new for new, old in enumerate(kept)}
    pips = []
    for pip in labels.get("pips", []):
        bx0, by0, bx1, by1 = pip["box"]
        box = [bx0 - x0, by0 - y0, bx1 - x0, by1 - y0]
        if pip["tile"] in index and min(box) >= 0 and max(box[2], box[3]) <= side:
            pips.append({**pip, "tile": index[pip["tile"]], "box": [round(v, 2) for v in box]})
    markers, _ = _shift(labels["markers"], x0, y0, side, keep)
    face_down, _ = _shift(labels.get("face_down", []), x0, y0, side, keep)
    return {**labels, "image": f"{name}.jpg", "width": side, "height": side, "tiles": tiles,
            "pips": pips, "markers": markers, "face_down": face_down, "table": None,
            "window": [x0, y0, side]}


def _origins(labels: dict[str, Any], w: int, h: int, side: int, count: int,
             rng: np.random.Generator) -> list[tuple[int, int]]:
    """Window corners: each centred near a labelled object when there is one."""
    objects = labels["tiles"] + labels["markers"] + labels.get("face_down", [])
    out = []
    for _ in range(count):
        if objects and rng.random() < 0.85:
            centre = np.asarray(objects[int(rng.integers(len(objects)))]["corners"]).mean(0)
            centre = centre + rng.normal(0, side / 5, 2)
        else:
            centre = rng.uniform([0, 0], [w, h])
        x0 = int(np.clip(centre[0] - side / 2, 0, max(0, w - side)))
        y0 = int(np.clip(centre[1] - side / 2, 0, max(0, h - side)))
        out.append((x0, y0))
    return out


def scale_labels(labels: dict[str, Any], factor: float) -> dict[str, Any]:
    """``labels`` of a frame resized by ``factor``."""
    def corners(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [{**item, "corners": [[round(x * factor, 2), round(y * factor, 2)]
                                     for x, y in item["corners"]]} for item in items]

    pips = [{**pip, "box": [round(v * factor, 2) for v in pip["box"]]}
            for pip in labels.get("pips", [])]
    return {**labels, "width": round(labels["width"] * factor),
            "height": round(labels["height"] * factor), "tiles": corners(labels["tiles"]),
            "markers": corners(labels["markers"]),
            "face_down": corners(labels.get("face_down", [])), "pips": pips}


def _padded(image: np.ndarray, side: int) -> np.ndarray:
    h, w = image.shape[:2]
    if w >= side and h >= side:
        return image
    pad = np.full((max(h, side), max(w, side), 3), 114, np.uint8)
    pad[:h, :w] = image
    return pad


def _look(image: np.ndarray, labels: dict[str, Any], look: int | None
          ) -> tuple[np.ndarray, dict[str, Any], float]:
    """The frame and its labels as a look at long side ``look`` shows them (never enlarged;
    ``None``: as they are), resized as the reader's letterbox resizes it."""
    h, w = image.shape[:2]
    factor = 1.0 if look is None else min(1.0, look / max(h, w))
    if factor == 1.0:
        return image, labels, factor
    size = (max(1, round(w * factor)), max(1, round(h * factor)))
    interpolation = cv2.INTER_AREA if factor < 0.5 else cv2.INTER_LINEAR
    return (cv2.resize(image, size, interpolation=interpolation),
            scale_labels(labels, factor), factor)


def _cut(job: tuple[Path, dict[str, Any], Path, int, int, int, float,
                    tuple[int | None, ...]]) -> list[Path]:
    image_path, frame_labels, out, side, per_frame, seed, keep, looks = job
    cv2.setNumThreads(1)
    frame = cv2.imread(str(image_path), cv2.IMREAD_COLOR)
    if frame is None:
        return []
    rng = np.random.default_rng([seed, zlib.crc32(image_path.stem.encode())])
    written = []
    for k in range(per_frame):
        image, labels, factor = _look(frame, frame_labels, looks[k % len(looks)])
        h, w = image.shape[:2]
        image = _padded(image, side)
        (x0, y0), = _origins(labels, w, h, side, 1, rng)
        name = f"{image_path.stem}_w{k}"
        crop = image[y0:y0 + side, x0:x0 + side]
        cv2.imwrite(str(out / f"{name}.jpg"), crop, [cv2.IMWRITE_JPEG_QUALITY, 95])
        label = out / f"{name}.json"
        label.write_text(json.dumps({**window_labels(labels, x0, y0, side, name, keep),
                                     "scale": round(factor, 6)}), encoding="utf-8")
        written.append(label)
    return written


def crop_windows(frames: Iterable[Path], out: Path, side: int = 640, per_frame: int = 2,
                 seed: int = 0, keep: float = 0.5, jobs: int = 1,
                 looks: Sequence[int | None] = (None,)) -> list[Path]:
    """Cut ``per_frame`` windows ``side`` square from every labelled frame in the folders
    ``frames`` into ``out`` on ``jobs`` processes; returns the label files written.
    Window ``k`` is cut from the frame shrunk to a long side of ``looks[k % len(looks)]``
    (``None``: full size; each label's ``scale`` says by how much). A frame smaller than
    ``side`` is padded with grey. The windows depend on ``seed`` and each frame's name
    only."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    looks = tuple(looks) or (None,)
    items = [(image_path, labels, out, side, per_frame, seed, keep, looks)
             for folder in frames for image_path, labels in iter_scenes(folder)]
    if jobs <= 1 or len(items) < 8:
        return [p for item in items for p in _cut(item)]
    from datasets.composite.write import fresh_pool

    with fresh_pool(jobs) as pool:
        return [p for done in pool.imap(_cut, items, chunksize=8) for p in done]
