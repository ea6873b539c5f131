"""Domino-check crops cut from composited frames: the verifier's rendered-looking data.

Frame ``index`` of a seed is :func:`~datasets.composite.compose.compose_with_matte` with
a painter share (``MIXED``) and more empty frames than the compositor's default (an
empty cloth, a rendered surface patch or the printed mat alone); every ``HAND_EVERY``-th
frame is a photo of one player's hand instead. Its boxes are cut as the reader cuts
them (:func:`vision.models.domino_check.verifier_crop`), each labelled from the
frame's layout (the object matte, where a sprite covers the table, checks the labels
in the tests):

- **face** / **back**: every tile wholly in view, at its labelled corners moved as the
  detector moves them, and the detector's own boxes (the float ``tiles`` export,
  from ``DETECTOR_FLOOR``) overlapping a tile's face or back by ``DETECTED_IOU`` (a box
  partly off its tile is no example of a domino);
- **not** a domino: the detector's boxes overlapping every tile, back and marker under
  ``APART_IOU`` (on a cloth, the mat, a rendered patch: what it really proposes),
  tile-shaped boxes where nothing lies, a tile's box slid half a tile along it (half
  on the cloth, or across the joint with the next tile), a half alone, a marker in a
  tile-shaped box.

Each box carries a ``kind`` besides its label, where it comes from: ``tile`` (a face or
back, labelled or detected), ``detected`` (a detector's box apart from everything),
``random`` (a tile-shaped box where nothing lies), ``slid`` (a slid box or a half) or
``marker``.

:func:`composite_box_set` makes ``count`` frames' crops on ``jobs`` processes: the same
arrays for the same sprite folders, seed and count, whatever ``jobs``.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from datasets.box_jitter import detector_jitter, jitter_corners
from datasets.composite.compose import Options, compose_with_matte
from datasets.composite.hand_plan import HAND_FRAME
from datasets.composite.library import SpriteLibrary, tile_sprite_folders
from datasets.verifier_crops import (
    APART_IOU,
    BACK,
    DETECTOR_FLOOR,
    FACE,
    MOST_BACKS,
    MOST_DETECTED_NOT,
    MOST_FACES,
    MOST_RANDOM,
    MOST_RANDOM_EMPTY,
    MOST_SLID,
    NOT,
    box_axis,
    pick,
    random_boxes,
    slid_and_halves,
    tile_box,
)
from vision.models.detections import polygon_iou
from vision.models.domino_check import CROP_SIZE, verifier_crop
from vision.models.onnx_models import ObbDetector, load_specs

#: Table frames: the painter draws a third of the tiles; a third of frames are empty.
MIXED = Options(painter=0.3, negatives=0.3)
#: Every this many frames, a photo of one player's hand (rendered tiles only).
HAND_EVERY = 8
HANDS = Options(hands=True, size=HAND_FRAME)
#: A detector's box overlapping a tile this much (IoU) is that tile.
DETECTED_IOU = 0.75
#: Least share of a tile's face in the frame for it to be cut as a domino.
WHOLE = 0.999


@dataclass(frozen=True)
class FrameBox:
    """One box of a frame: its corners ``(4, 2)``, its label (an index of
    ``vision.models.domino_check.CLASSES``) and its kind (the module's list)."""

    corners: np.ndarray
    label: int
    kind: str


def box_rng(seed: int, index: int) -> np.random.Generator:
    """The choice and jitter of frame ``index``'s boxes (apart from its picture's)."""
    return np.random.default_rng([int(seed), int(index), 0x626F78])


def frame_options(index: int) -> Options:
    """How frame ``index`` is composed: a hand photo every ``HAND_EVERY``-th, else a table."""
    return HANDS if index % HAND_EVERY == HAND_EVERY - 1 else MIXED


def matte_share(matte: np.ndarray, corners: np.ndarray) -> float:
    """The mean of the matte (0-1) inside the polygon ``corners``."""
    h, w = matte.shape[:2]
    mask = np.zeros((h, w), np.uint8)
    cv2.fillConvexPoly(mask, np.round(np.asarray(corners, np.float64)).astype(np.int32), 1)
    inside = mask > 0
    return float(matte[inside].mean()) if inside.any() else 0.0


def _boxes(key: str, labels: dict[str, object]) -> np.ndarray:
    entries = labels[key]
    assert isinstance(entries, list)
    return np.array([e["corners"] for e in entries], np.float32).reshape(-1, 4, 2)


def _whole(key: str, labels: dict[str, object]) -> list[np.ndarray]:
    entries = labels[key]
    assert isinstance(entries, list)
    return [np.asarray(e["corners"], np.float32) for e in entries if e["visible"] >= WHOLE]


def _detected(detector: ObbDetector, image: np.ndarray, labels: dict[str, object],
              rng: np.random.Generator) -> list[FrameBox]:
    """The detector's boxes labelled by what they overlap (see the module)."""
    found = detector(image)
    if not len(found):
        return []
    faces = np.array(_whole("tiles", labels), np.float32).reshape(-1, 4, 2)
    backs = np.array(_whole("face_down", labels), np.float32).reshape(-1, 4, 2)
    anything = np.concatenate([_boxes(k, labels) for k in ("tiles", "face_down", "markers")])
    out: list[FrameBox] = []
    nots: list[np.ndarray] = []
    for box in found.corners.astype(np.float32):
        near = float(polygon_iou(box[None], anything).max()) if len(anything) else 0.0
        if near < APART_IOU:
            nots.append(box)
        elif len(faces) and float(polygon_iou(box[None], faces).max()) >= DETECTED_IOU:
            out.append(FrameBox(box, FACE, "tile"))
        elif len(backs) and float(polygon_iou(box[None], backs).max()) >= DETECTED_IOU:
            out.append(FrameBox(box, BACK, "tile"))
    out += [FrameBox(b, NOT, "detected") for b in pick(nots, MOST_DETECTED_NOT, rng)]
    return out


def frame_boxes(library: SpriteLibrary, detector: ObbDetector, seed: int, index: int
                ) -> tuple[np.ndarray, np.ndarray, list[FrameBox]]:
    """Frame ``index`` of ``seed`` (BGR uint8), its object matte and its boxes."""
    options = frame_options(index)
    image, labels, matte = compose_with_matte(library, seed, index, options)
    rng = box_rng(seed, index)
    boxes = _detected(detector, image, labels, rng)
    faces, backs = _whole("tiles", labels), _whole("face_down", labels)
    jitter = jitter_corners if options.hands else detector_jitter
    boxes += [FrameBox(jitter(c, rng).astype(np.float32), FACE, "tile")
              for c in pick(faces, MOST_FACES, rng)]
    boxes += [FrameBox(jitter(c, rng).astype(np.float32), BACK, "tile")
              for c in pick(backs, MOST_BACKS, rng)]
    for c in pick(faces + backs, MOST_SLID, rng):
        boxes += [FrameBox(np.asarray(b, np.float32), NOT, "slid")
                  for b in slid_and_halves(c, rng)]
    for m in _boxes("markers", labels):
        axis = rng.normal(0, 1, 2)
        size = float(np.linalg.norm(m[1] - m[0]))
        box = tile_box(m.mean(0), axis / max(float(np.linalg.norm(axis)), 1e-6), size, 2 * size)
        boxes.append(FrameBox(jitter_corners(box, rng).astype(np.float32), NOT, "marker"))
    taken = np.concatenate([_boxes(k, labels) for k in ("tiles", "face_down", "markers")])
    widths = [box_axis(c)[1] for c in faces + backs]
    width = float(np.median(widths)) if widths else float(rng.uniform(14, 60))
    most = MOST_RANDOM if faces or backs else MOST_RANDOM_EMPTY
    boxes += [FrameBox(np.asarray(b, np.float32), NOT, "random")
              for b in random_boxes(image.shape, width, most, taken, rng)]
    return image, matte, boxes


def frame_box_crops(library: SpriteLibrary, detector: ObbDetector, seed: int, index: int
                    ) -> tuple[np.ndarray, np.ndarray]:
    """The crops of frame ``index`` of ``seed`` (uint8 ``(N, 80, 48, 3)``) and labels."""
    image, _, boxes = frame_boxes(library, detector, seed, index)
    if not boxes:
        return np.zeros((0, CROP_SIZE[1], CROP_SIZE[0], 3), np.uint8), np.zeros(0, np.int64)
    crops = np.stack([verifier_crop(image, b.corners) for b in boxes])
    return crops, np.array([b.label for b in boxes], np.int64)


def _part(folders: list[str], seed: int, indices: list[int], models: str
          ) -> list[tuple[np.ndarray, np.ndarray]]:
    cv2.setNumThreads(1)
    library = SpriteLibrary([Path(f) for f in folders])
    detector = ObbDetector(load_specs(models, "float")["tiles"],
                           conf_threshold=DETECTOR_FLOOR, threads=1)
    return [frame_box_crops(library, detector, seed, i) for i in indices]


def composite_box_set(sprites: Sequence[str | Path], seed: int, count: int,
                      models: str | Path = "models", jobs: int = 1
                      ) -> tuple[np.ndarray, np.ndarray]:
    """The crops of frames ``0 .. count - 1`` of ``seed`` composited from ``sprites`` and
    their labels, in frame order, made in ``jobs`` processes (the same arrays whatever
    ``jobs``). The detector runs its float export, so the crops do not depend on the
    CPU."""
    folders = tile_sprite_folders(sprites)
    parts = [list(range(j, count, jobs)) for j in range(jobs)]
    if jobs == 1:
        results = [_part(folders, seed, parts[0], str(models))]
    else:
        with ProcessPoolExecutor(jobs) as pool:
            results = list(pool.map(_part, [folders] * jobs, [seed] * jobs, parts,
                                    [str(models)] * jobs))
    by_frame = {i: r for part, res in zip(parts, results, strict=True)
                for i, r in zip(part, res, strict=True)}
    crops = np.concatenate([by_frame[i][0] for i in range(count)])
    labels = np.concatenate([by_frame[i][1] for i in range(count)])
    return crops, labels
