"""Training crops of the domino check (``vision.models.domino_check``): boxes that are a
domino's face, a domino's back, or no domino, cut by ``verifier_crop`` as the reader
cuts them.

Every crop comes from a scene the painter renders from ``scene_rng(seed, index)``;
scene ``index`` is, by ``index % 8``:

- 0-1: an empty frame of a surface (``datasets.surfaces``: ``SURFACES`` and
  ``MORE_SURFACES``, in turn), sometimes with cards, a cup or an arm;
- 2: a table on a surface or the painter's own top, sometimes with a boneyard;
- 3: loose tiles on a surface or the painter's top, some face down;
- 4: a table on the printed hub mat, sometimes on a surface, sometimes a boneyard;
- 5: loose tiles; 6: a table with a boneyard; 7: a close-up of one to three tiles.

The boxes cut from each scene:

- **the detector's own** (``tiles.onnx``, unchecked, score from ``DETECTOR_FLOOR``, at
  its trained size or the reader's closer look): a box overlapping a fully visible
  tile's face by ``SAME_IOU`` is a face, a back's by as much a back, and a box that
  overlaps every tile, back and marker under ``APART_IOU`` is not a domino (the
  boxes the detector actually proposes on a cloth, a mat or a hand are the best
  negatives); boxes in between are not used;
- each fully visible face and back, boxed as the detector boxes it
  (``datasets.box_jitter``);
- **not a domino**: a tile's box slid half a tile along it (half on the cloth, or
  across the joint with the next tile of a train), one half alone, a marker in a
  tile-shaped box, and tile-sized boxes anywhere else.

:func:`verifier_set` makes ``count`` scenes' crops: ``(crops, labels)``, labels
indexing ``vision.models.domino_check.CLASSES``; the same arrays for a seed and count.
"""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

from datasets.box_jitter import detector_jitter, jitter_corners
from datasets.render import render_closeup, render_empty, render_hands, render_table, scene_rng
from datasets.scene import Scene
from datasets.surfaces import MORE_SURFACES, SURFACES
from vision.models.crops import half_polygons, order_corners
from vision.models.detections import polygon_iou
from vision.models.domino_check import CLASSES, CROP_SIZE, verifier_crop
from vision.models.onnx_models import ObbDetector, load_specs

FACE, BACK, NOT = (CLASSES.index(c) for c in ("face", "back", "not"))
#: Surfaces the empty frames and surface scenes are drawn on, in turn.
ALL_SURFACES = SURFACES + MORE_SURFACES
#: Lowest detector score of the boxes cut (the reader keeps boxes from 0.25).
DETECTOR_FLOOR = 0.08
#: A detector box overlapping a tile this much (IoU) is that tile ...
SAME_IOU = 0.6
#: ... and one overlapping every tile, back and marker less than this is no domino.
APART_IOU = 0.25
#: A tile whose face shows less than this is not cut (a hand covers it).
VISIBLE = 0.8
#: At most this many crops of each kind from one scene.
MOST_DETECTED_NOT = 30
MOST_FACES = 10
MOST_BACKS = 8
MOST_SLID = 4
MOST_RANDOM = 4
MOST_RANDOM_EMPTY = 10


def _scene(rng: np.random.Generator, index: int) -> Scene:
    """Scene ``index`` (see the module's list), drawn with ``rng``."""
    kind = index % 8
    surface = ALL_SURFACES[(index // 8) % len(ALL_SURFACES)]
    maybe = surface if rng.random() < 0.6 else None
    if kind in (0, 1):
        return render_empty(rng, surface)
    if kind == 2:
        return render_table(rng, surface=maybe, boneyard=int(rng.integers(0, 2)) * 10)
    if kind == 3:
        return render_hands(rng, surface=maybe, face_down=int(rng.integers(0, 4)))
    if kind == 4:
        return render_table(rng, mat=True, surface=surface if rng.random() < 0.4 else None,
                            boneyard=int(rng.integers(0, 2)) * 8)
    if kind == 5:
        return render_hands(rng)
    if kind == 6:
        return render_table(rng, boneyard=int(rng.integers(6, 20)))
    return render_closeup(rng)


def tile_box(centre: np.ndarray, axis: np.ndarray, width: float, length: float) -> np.ndarray:
    """A box ``width`` x ``length`` about ``centre``, its length along unit ``axis``, in
    the corner convention."""
    across = np.array([-axis[1], axis[0]])
    a, w = axis * length / 2, across * width / 2
    return np.array([centre - a - w, centre - a + w, centre + a + w, centre + a - w],
                    np.float32)


def box_axis(c: np.ndarray) -> tuple[np.ndarray, float, float]:
    """A box's unit long axis, its width and its length."""
    c = order_corners(c)
    along = (c[2] + c[3] - c[0] - c[1]) / 2
    length = float(np.linalg.norm(along))
    width = float(np.linalg.norm(c[1] - c[0]))
    return along / max(length, 1e-6), width, length


def slid_and_halves(tile: np.ndarray, rng: np.random.Generator) -> list[np.ndarray]:
    """No domino: ``tile``'s box slid half a tile along it (either way) and one half
    boxed alone, each jittered a little."""
    axis, width, length = box_axis(tile)
    centre = tile.mean(0)
    sign = 1.0 if rng.random() < 0.5 else -1.0
    slid = tile_box(centre + sign * axis * length * rng.uniform(0.45, 0.6), axis, width, length)
    half = half_polygons(order_corners(tile))[int(rng.integers(2))]
    return [jitter_corners(slid, rng), jitter_corners(half, rng)]


def random_boxes(shape: tuple[int, ...], width: float, count: int,
                  taken: np.ndarray, rng: np.random.Generator) -> list[np.ndarray]:
    """Up to ``count`` tile-shaped boxes about ``width`` wide anywhere in the frame,
    overlapping none of ``taken`` ``(M, 4, 2)``."""
    h, w = shape[:2]
    out: list[np.ndarray] = []
    for _ in range(count * 3):
        if len(out) >= count:
            break
        bw = min(width * rng.uniform(0.7, 1.4), min(h, w) / 5)
        angle = rng.uniform(0, np.pi)
        centre = rng.uniform([bw, bw], [w - bw, h - bw])
        box = tile_box(centre, np.array([np.cos(angle), np.sin(angle)]), bw,
                        bw * rng.uniform(1.8, 2.2))
        if len(taken) and float(polygon_iou(box[None], taken).max()) >= 0.05:
            continue
        out.append(box)
    return out


def pick(boxes: list[np.ndarray], most: int, rng: np.random.Generator) -> list[np.ndarray]:
    """At most ``most`` of ``boxes``, chosen at random."""
    if len(boxes) <= most:
        return boxes
    return [boxes[int(i)] for i in rng.choice(len(boxes), most, replace=False)]


def _detected(detector: ObbDetector, scene: Scene, rng: np.random.Generator
              ) -> Iterator[tuple[np.ndarray, int]]:
    """The detector's boxes, labelled by what they overlap (see the module)."""
    side = 768 if scene.kind.startswith("table") and rng.random() < 0.5 else None
    found = detector(scene.image, long_side=side)
    if not len(found):
        return
    faces = np.array([t.corners for t in scene.tiles if t.visible >= VISIBLE], np.float32)
    backs = np.array([t.corners for t in scene.face_down if t.visible >= VISIBLE], np.float32)
    every = [t.corners for t in scene.tiles + scene.face_down]
    every += [m.corners for m in scene.markers]
    anything = np.array(every, np.float32).reshape(-1, 4, 2)
    boxes = found.corners.astype(np.float32)
    nots = []
    for box in boxes:
        near = float(polygon_iou(box[None], anything).max()) if len(anything) else 0.0
        if near < APART_IOU:
            nots.append(box)
        elif len(faces) and float(polygon_iou(box[None], faces).max()) >= SAME_IOU:
            yield box, FACE
        elif len(backs) and float(polygon_iou(box[None], backs).max()) >= SAME_IOU:
            yield box, BACK
    for box in pick(nots, MOST_DETECTED_NOT, rng):
        yield box, NOT


def scene_crops(scene: Scene, detector: ObbDetector, rng: np.random.Generator
                ) -> tuple[np.ndarray, np.ndarray]:
    """The crops of one scene (see the module) and their labels."""
    boxes: list[tuple[np.ndarray, int]] = list(_detected(detector, scene, rng))
    faces = [t.corners for t in scene.tiles if t.visible >= VISIBLE]
    backs = [t.corners for t in scene.face_down if t.visible >= VISIBLE]
    jitter = (detector_jitter if scene.kind.startswith("table") else jitter_corners)
    boxes += [(jitter(c, rng), FACE) for c in pick(faces, MOST_FACES, rng)]
    boxes += [(jitter(c, rng), BACK) for c in pick(backs, MOST_BACKS, rng)]
    for c in pick(faces + backs, MOST_SLID, rng):
        boxes += [(b, NOT) for b in slid_and_halves(c, rng)]
    for m in scene.markers:
        axis = rng.normal(0, 1, 2)
        size = float(np.linalg.norm(m.corners[1] - m.corners[0]))
        box = tile_box(m.corners.mean(0), axis / max(float(np.linalg.norm(axis)), 1e-6),
                        size, 2 * size)
        boxes.append((jitter_corners(box, rng), NOT))
    all_boxes = np.array([t.corners for t in scene.tiles + scene.face_down]
                         + [m.corners for m in scene.markers], np.float32).reshape(-1, 4, 2)
    widths = [box_axis(c)[1] for c in faces + backs]
    width = float(np.median(widths)) if widths else float(rng.uniform(12, 60))
    most = MOST_RANDOM if faces or backs else MOST_RANDOM_EMPTY
    boxes += [(b, NOT) for b in random_boxes(scene.image.shape, width, most, all_boxes, rng)]
    if not boxes:
        return np.zeros((0, CROP_SIZE[1], CROP_SIZE[0], 3), np.uint8), np.zeros(0, np.int64)
    crops = np.stack([verifier_crop(scene.image, np.asarray(b, np.float32)) for b, _ in boxes])
    return crops, np.array([label for _, label in boxes], np.int64)


def _part(seed: int, indices: list[int], models: str
          ) -> list[tuple[np.ndarray, np.ndarray]]:
    detector = ObbDetector(load_specs(models, "float")["tiles"],
                           conf_threshold=DETECTOR_FLOOR, threads=1)
    out: list[tuple[np.ndarray, np.ndarray]] = []
    for i in indices:
        rng = scene_rng(seed, i)
        out.append(scene_crops(_scene(rng, i), detector, rng))
    return out


def verifier_set(seed: int, count: int, models: str | Path = "models",
                 jobs: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """The crops of scenes ``0 .. count - 1`` of ``seed`` and their labels, in scene
    order, made in ``jobs`` processes (the same arrays whatever ``jobs``). The detector
    runs its float export, so the crops do not depend on the CPU."""
    parts = [list(range(j, count, jobs)) for j in range(jobs)]
    if jobs == 1:
        results = [_part(seed, parts[0], str(models))]
    else:
        with ProcessPoolExecutor(jobs) as pool:
            results = list(pool.map(_part, [seed] * jobs, parts, [str(models)] * jobs))
    by_scene = {i: r for part, res in zip(parts, results, strict=True)
                for i, r in zip(part, res, strict=True)}
    crops = np.concatenate([by_scene[i][0] for i in range(count)])
    labels = np.concatenate([by_scene[i][1] for i in range(count)])
    return crops, labels
