"""Tiles a hand photo may hold that the reader never read: a hand's total without them
is wrong, so a photo with one is marked for checking.

The tile detector boxes some tiles only faintly (a blank half, a tile at a slant, a
busy cloth under it): below the reader's floor, and so never read. Such a tile is
still among the detector's faint boxes, or, where the detector gave it no box at all
(faint pips, a tight row), a patch of the tiles' own colour (:func:`tile_coloured`:
the colour of the faces read, pips closed over, outside every box read). Such a box
is taken for a tile that may have been missed (:func:`maybe_missed`) when

- it is no tile read already, nor a box read and left out, nor a tile lying face
  down (it overlaps none of them ``SAME_BOX_IOU``);
- it has a tile's size and shape: both sides within ``SIZE_RANGE`` times the read
  tiles' median sides (a factor of two either way: a photo's perspective makes near
  tiles bigger than far ones), or, with no tile read, a domino's length to width
  (``ASPECT_RANGE``);
- the domino check (``vision.models.domino_check``, ``models/verifier.onnx``) does
  not take it for something else: ``not`` below its own doubt mark (``NOT_DOUBT``).

(a patch of colour must have a tile's shape besides: filling ``FILL_SHARE`` of its
rectangle, longer than wide, ``MIN_ASPECT``.)
Each is read where it lies (``TileReader.read_at``) and handed on ``uncertain``, with
the doubt ``MISSED_DOUBT``: shown on the photo with its outline, never counted until
a person says it is a tile. On the rendered hands of the eval set, the composited
hand photos and the real ones (``benchmarks/hands.py``), boxes so taken mark few
hands whose totals were right; the marks are listed there.
"""

from __future__ import annotations

import copy
from dataclasses import replace

import cv2
import numpy as np

from vision.models.detections import Detections, polygon_iou
from vision.models.domino_check import NOT_DOUBT
from vision.models.onnx_models import ObbDetector
from vision.reading.reader import TileReader
from vision.readings import FrameReading, TileReading

#: The faintest detector score a box may have and still be taken for a missed tile.
CANDIDATE_FLOOR = 0.02
#: A box overlapping a tile read (or lying face down) this much (IoU) is that tile.
SAME_BOX_IOU = 0.2
#: Two faint boxes overlapping this much (IoU) are one candidate (the higher scored).
ONE_CANDIDATE_IOU = 0.3
#: A candidate's short and long sides, as shares of the read tiles' median ones.
SIZE_RANGE = (0.5, 2.0)
#: With no tile read: a candidate's long side over its short one (a domino's is 2, its
#: box's more with the tile's side in it, less at a slant).
ASPECT_RANGE = (1.4, 3.5)
#: The doubt a reading of a candidate carries (``TileReading.doubt``).
MISSED_DOUBT = "missed?"
#: The tiles' colour is looked for at this long side (pixels) at most.
COLOUR_SIDE = 800
#: The faces read are sampled inside this share of their boxes (their edges and sides
#: left out); a pixel is of their colour within ``COLOUR_REACH`` times the distance (CIE
#: Lab) from their median colour that holds ``COLOUR_SHARE`` of their own pixels.
FACE_SHARE = 0.7
COLOUR_SHARE = 0.75
COLOUR_REACH = 1.5
#: ...and never less than this (CIE Lab units): faces of one flat colour still reach
#: their shading.
COLOUR_FLOOR = 10.0
#: Pips and the divider are closed over, and threads of colour cut, at this share of a
#: tile's width; a box read keeps ``KNOWN_MARGIN`` more round it out of the search.
CLOSE_SHARE = 0.2
KNOWN_MARGIN = 1.15
#: A patch of the tiles' colour is tile-shaped when it fills this share of its rectangle
#: and is this many times longer than wide (a domino 2, its face seen at a slant less).
FILL_SHARE = 0.7
MIN_ASPECT = 1.3


def _sides(corners: np.ndarray) -> np.ndarray:
    """Each box's (short, long) side, ``(N, 2)``."""
    c = np.asarray(corners, np.float64).reshape(-1, 4, 2)
    a = np.linalg.norm(c[:, 1] - c[:, 0], axis=1)
    b = np.linalg.norm(c[:, 2] - c[:, 1], axis=1)
    return np.stack([np.minimum(a, b), np.maximum(a, b)], axis=1)


def _shaped(candidates: np.ndarray, read: np.ndarray) -> np.ndarray:
    """Which candidate boxes have a tile's size and shape (module docstring)."""
    sides = _sides(candidates)
    if len(read):
        rel = sides / np.median(_sides(read), axis=0)
        return np.all((rel >= SIZE_RANGE[0]) & (rel <= SIZE_RANGE[1]), axis=1)
    aspect = sides[:, 1] / np.maximum(sides[:, 0], 1e-6)
    return (aspect >= ASPECT_RANGE[0]) & (aspect <= ASPECT_RANGE[1])


def _one_each(corners: np.ndarray, scores: np.ndarray) -> list[int]:
    """Indices of the candidates kept, best scored first, none overlapping another."""
    kept: list[int] = []
    for i in np.argsort(-scores):
        if not kept or polygon_iou(corners[i:i + 1], corners[kept])[0].max() < ONE_CANDIDATE_IOU:
            kept.append(int(i))
    return kept


def faint_boxes(reader: TileReader, image: np.ndarray) -> Detections:
    """Every tile box the reader's detector sees in ``image`` down to ``CANDIDATE_FLOOR``,
    none dropped by its checks."""
    faint = copy.copy(reader.detector)  # the same model, with a lower floor and unfiltered
    faint.conf_threshold = CANDIDATE_FLOOR
    found = ObbDetector.__call__(faint, image)
    return found[found.class_id == reader.tile_class]


def _scaled(corners: np.ndarray, factor: float) -> np.ndarray:
    centre = corners.mean(axis=0)
    return centre + (corners - centre) * factor


def tile_coloured(image: np.ndarray, frame: FrameReading) -> np.ndarray:
    """Boxes ``(N, 4, 2)`` round the patches of ``image`` of the colour of the faces
    ``frame`` read, outside them, of a tile's size and shape (module docstring); none
    when no tile was read (no colour to look for)."""
    read = np.array([t.corners for t in frame.tiles], np.float32).reshape(-1, 4, 2)
    if not len(read):
        return np.zeros((0, 4, 2), np.float32)
    scale = min(1.0, COLOUR_SIDE / max(image.shape[:2]))
    small = (cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
             if scale < 1.0 else image)
    lab = cv2.cvtColor(small, cv2.COLOR_BGR2LAB).astype(np.float32)
    faces = np.zeros(small.shape[:2], np.uint8)
    for c in read * scale:
        cv2.fillConvexPoly(faces, np.round(_scaled(c, FACE_SHARE)).astype(np.int32), 1)
    samples = lab[faces > 0]
    if len(samples) < 50:
        return np.zeros((0, 4, 2), np.float32)
    centre = np.median(samples, axis=0)
    reach = max(COLOUR_FLOOR, COLOUR_REACH * float(np.quantile(
        np.linalg.norm(samples - centre, axis=1), COLOUR_SHARE)))
    mask = (np.linalg.norm(lab - centre, axis=2) < reach).astype(np.uint8)
    width, length = np.median(_sides(read * scale), axis=0)
    kernel = np.ones((max(3, int(CLOSE_SHARE * width) | 1),) * 2, np.uint8)
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, kernel)
    known = np.zeros_like(mask)
    for c in [*(read * scale), *(np.asarray(b, np.float32) * scale for b in frame.face_down)]:
        cv2.fillConvexPoly(known, np.round(_scaled(c, KNOWN_MARGIN)).astype(np.int32), 1)
    mask = cv2.morphologyEx(mask * (known == 0), cv2.MORPH_OPEN, kernel)
    count, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=4)
    boxes = []
    low, high = SIZE_RANGE
    for k in range(1, count):
        area = float(stats[k, cv2.CC_STAT_AREA])
        if not low ** 2 * width * length <= area <= high ** 2 * width * length:
            continue
        points = np.column_stack(np.nonzero(labels == k)[::-1]).astype(np.float32)
        rect = cv2.minAreaRect(points)
        short, long = sorted(float(v) for v in rect[1])
        if (low * width <= short <= high * width and low * length <= long <= high * length
                and area >= FILL_SHARE * short * long and long >= MIN_ASPECT * short):
            boxes.append(cv2.boxPoints(rect) / scale)
    return np.array(boxes, np.float32).reshape(-1, 4, 2)


def candidates(found: Detections, frame: FrameReading) -> np.ndarray:
    """Indices of the boxes ``found`` that no tile of ``frame`` (read, left out or face
    down) covers and that have a tile's size and shape (module docstring)."""
    if not len(found):
        return np.zeros(0, np.int64)
    read = np.array([t.corners for t in frame.tiles], np.float32).reshape(-1, 4, 2)
    known = np.concatenate([read, np.array(frame.face_down, np.float32).reshape(-1, 4, 2)])
    corners = found.corners.astype(np.float32)
    free = (polygon_iou(corners, known).max(axis=1) < SAME_BOX_IOU if len(known)
            else np.ones(len(corners), bool))
    return np.flatnonzero(free & _shaped(corners, read))


def maybe_missed(reader: TileReader, image: np.ndarray, frame: FrameReading
                 ) -> list[TileReading]:
    """The faint boxes of ``image`` that may be tiles ``frame`` (its reading) lacks, each
    read where it lies, ``uncertain`` and doubted ``MISSED_DOUBT``. None when the reader
    has no domino check to judge them by."""
    check = reader.domino_check
    if check is None:
        return []
    found = faint_boxes(reader, image)
    ask = candidates(found, frame)
    patches = tile_coloured(image, frame)
    corners = np.concatenate([found.corners[ask].astype(np.float32), patches])
    if not len(corners):
        return []
    scores = np.concatenate([found.confidence[ask], np.zeros(len(patches))]).astype(np.float32)
    tiles = np.flatnonzero(check(image, corners, scores).not_domino < NOT_DOUBT)
    if not len(tiles):
        return []
    tiles = tiles[_one_each(corners[tiles], scores[tiles])]
    readings = reader.read_at(image, corners[tiles], scores[tiles])
    return [replace(r, uncertain=True, doubt=MISSED_DOUBT) for r in readings]


def with_missed(reader: TileReader, image: np.ndarray, frame: FrameReading) -> FrameReading:
    """``frame`` with :func:`maybe_missed`'s readings after its own tiles."""
    missed = maybe_missed(reader, image, frame)
    return replace(frame, tiles=[*frame.tiles, *missed]) if missed else frame
