"""Half-tile crops cut from rendered scenes: the pip and half models' training data.

``crops`` (jittered boxes of hands and tables), ``crops-table`` (webcam-sized tables and
small hands, JPEG-compressed, cut with :func:`~datasets.box_jitter.detector_jitter`),
``crops-high`` (only its halves of :data:`HIGH_PIPS` pips or more) and ``crops-covered``
(halves of hands scenes with arms over them, labelled ``covered`` or open).
"""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np

from datasets.box_jitter import detector_jitter, jitter_corners
from datasets.render import render_hands, render_table
from datasets.scene import RenderedTile
from vision.models.crops import HALF_PX, half_crops

#: ``crops-covered``: a half whose face shows less than this is ``covered``...
COVERED_BELOW = 0.9
#: ... and one that shows at least this is open; halves in between are not written.
OPEN_FROM = 0.995
#: ``crops-covered`` keeps an open half with this chance (most halves are open).
OPEN_KEPT = 0.12
#: ``crops-high`` keeps only the halves of at least this many pips.
HIGH_PIPS = 9


def crop_labels(
    tile: RenderedTile, corners: np.ndarray, half: int, half_px: int = HALF_PX
) -> list[list[float]]:
    """Pip boxes ``[x0, y0, x1, y1]`` of ``half`` inside its crop cut at ``corners``."""
    w, h = half_px, 2 * half_px
    m = 0.06 * w
    dst = np.array([[m, m], [w - m, m], [w - m, h - m], [m, h - m]], np.float32)
    matrix = cv2.getPerspectiveTransform(np.asarray(corners, np.float32), dst)
    boxes = []
    for hf, poly in tile.pips:
        if hf != half:
            continue
        p = cv2.perspectiveTransform(poly[None].astype(np.float64), matrix.astype(np.float64))[0]
        if half == 1:  # the second half is turned half a circle
            p[:, 1] -= half_px
            p = np.array([w, half_px]) - p
        x0, y0 = p.min(0)
        x1, y1 = p.max(0)
        area = max((x1 - x0) * (y1 - y0), 1e-6)
        cx0, cy0, cx1, cy1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, half_px)
        if cx1 <= cx0 or cy1 <= cy0 or (cx1 - cx0) * (cy1 - cy0) / area < 0.45:
            continue
        boxes.append([float(cx0), float(cy0), float(cx1), float(cy1)])
    return boxes


def render_crops(
    rng: np.random.Generator, limit: int = 24
) -> list[tuple[np.ndarray, dict[str, Any]]]:
    """Half-tile crops (image, label) from one rendered scene, cut with jittered corners."""
    if rng.random() < 0.2:
        scene = render_table(rng, size=(1280, 720))
    else:
        size = (960, 720) if rng.random() < 0.5 else (720, 960)
        scene = render_hands(rng, size=size, tile_px=(45, 330))
    out: list[tuple[np.ndarray, dict[str, Any]]] = []
    for i, t in enumerate(scene.tiles):
        if t.visible < 0.999 or len(out) >= limit:
            continue
        corners = jitter_corners(t.corners, rng)
        out.extend(_crop_pair(scene.image, t, corners, scene.set_size, i))
    return out


def render_table_crops(
    rng: np.random.Generator, limit: int = 24, high_only: bool = False
) -> list[tuple[np.ndarray, dict[str, Any]]]:
    """Half-tile crops of webcam-sized tiles (``crops-table``): tables, tables on the
    mat and hands of small tiles, JPEG-compressed as a camera stream is, cut with
    :func:`detector_jitter`. ``high_only`` (``crops-high``) keeps only the halves
    of :data:`HIGH_PIPS` pips or more."""
    pick = rng.random()
    if pick < 0.75:
        scene = render_table(rng, size=(1280, 720), mat=pick >= 0.5)
    else:
        scene = render_hands(rng, size=(1280, 720), tile_px=(24, 70))
    quality = int(rng.integers(55, 96))
    ok, buf = cv2.imencode(".jpg", scene.image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    assert ok
    image = np.asarray(cv2.imdecode(buf, cv2.IMREAD_COLOR))
    order = rng.permutation(len(scene.tiles))
    out: list[tuple[np.ndarray, dict[str, Any]]] = []
    for i in order:
        t = scene.tiles[int(i)]
        if t.visible < 0.999 or len(out) >= limit:
            continue
        if high_only and max(t.values) < HIGH_PIPS:
            continue
        corners = detector_jitter(t.corners, rng)
        pair = _crop_pair(image, t, corners, scene.set_size, int(i))
        out.extend(c for c in pair if not high_only or c[1]["value"] >= HIGH_PIPS)
    return out


def render_covered_crops(
    rng: np.random.Generator, limit: int = 24
) -> list[tuple[np.ndarray, dict[str, Any]]]:
    """Half crops of hands scenes with one or two arms reaching over the tiles, cut with
    jittered corners, JPEG-compressed: each label's ``covered`` says whether a hand hides
    part of the half (less than ``COVERED_BELOW`` of it in view; open: ``OPEN_FROM`` or
    more). Every covered half is kept and an open one with the chance ``OPEN_KEPT``."""
    scene = render_hands(rng, arms=int(rng.integers(1, 3)))
    quality = int(rng.integers(55, 96))
    ok, buf = cv2.imencode(".jpg", scene.image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    assert ok
    image = np.asarray(cv2.imdecode(buf, cv2.IMREAD_COLOR))
    out: list[tuple[np.ndarray, dict[str, Any]]] = []
    for i in rng.permutation(len(scene.tiles)).tolist():
        t = scene.tiles[i]
        if t.visible < 0.35 or len(out) >= limit:  # as labelled: hidden tiles are not
            continue
        corners = jitter_corners(t.corners, rng)
        for half, (crop, label) in enumerate(_crop_pair(image, t, corners, scene.set_size, i)):
            shown = float(t.half_visible[half])
            if COVERED_BELOW <= shown < OPEN_FROM:
                continue
            covered = shown < COVERED_BELOW
            if not covered and rng.random() >= OPEN_KEPT:
                continue
            label.update(covered=covered, visible=round(shown, 3))
            out.append((crop, label))
    return out


def _crop_pair(
    image: np.ndarray, t: RenderedTile, corners: np.ndarray, set_size: int, index: int
) -> list[tuple[np.ndarray, dict[str, Any]]]:
    out = []
    for half, crop in enumerate(half_crops(image, corners)):
        boxes = crop_labels(t, corners, half)
        label = {
            "image": "",
            "width": HALF_PX,
            "height": HALF_PX,
            "kind": "crops",
            "set": set_size,
            "value": int(t.values[half]),
            "tiles": [],
            "pips": [{"tile": 0, "half": half, "box": [round(v, 2) for v in b]} for b in boxes],
            "markers": [],
            "table": None,
            "source_tile": index,
        }
        out.append((crop, label))
    return out
