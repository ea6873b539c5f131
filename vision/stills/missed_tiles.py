"""Tiles a hand photo may hold that the reader never read: a hand's total without them
is wrong, so a photo with one is marked for checking.

The tile detector boxes some tiles only faintly (a blank half, a tile at a slant, a
busy cloth under it): below the reader's floor, and so never read. Such a tile is
still among the detector's faint boxes, or, where the detector gave it no box at all
(faint pips), a patch of the tiles' own colour (``vision.stills.tile_colour``). Such a
box is taken for a tile that may have been missed (:func:`maybe_missed`) when

- it is no tile read already, nor a box read and left out, nor a tile lying face
  down (it overlaps none of them ``SAME_BOX_IOU``);
- it has a tile's size and shape: both sides within ``SIZE_RANGE`` times the read
  tiles' median sides (a factor of two either way: a photo's perspective makes near
  tiles bigger than far ones), or, with no tile read, a domino's length to width
  (``ASPECT_RANGE``);
- the domino check (``vision.models.domino_check``, ``models/verifier.onnx``) does
  not take it for something else: ``not`` below its own doubt mark (``NOT_DOUBT``);
  a patch of the tiles' colour beside a tile read (its centre within ``BESIDE`` times
  the read tiles' median length of one's), below its certain mark (``NOT_CERTAIN``)
  when the photo shows no more than ``FEW_PATCHES`` of them: a faint tile pressed
  between two others in a row looks little like a domino to the check, but its
  colour, size and shape are a tile's, and a doubt costs a hand only a look.

Each is read where it lies (``TileReader.read_at``) and handed on ``uncertain``, with
the doubt ``MISSED_DOUBT``: shown on the photo with its outline, never counted until
a person says it is a tile. On the rendered hands of the eval set, the composited
hand photos and the real ones (``benchmarks/hands.py``), boxes so taken mark few
hands whose totals were right; the marks are listed there.
"""

from __future__ import annotations

import copy
from dataclasses import replace

import numpy as np

from vision.models.detections import Detections, box_sides, polygon_iou
from vision.models.domino_check import NOT_DOUBT
from vision.models.onnx_models import ObbDetector
from vision.reading.reader import TileReader
from vision.readings import FrameReading, TileReading, TileReadings
from vision.stills.tile_colour import SIZE_RANGE, tile_coloured

#: The faintest detector score a box may have and still be taken for a missed tile.
CANDIDATE_FLOOR = 0.02
#: A box overlapping a tile read (or lying face down) this much (IoU) is that tile.
SAME_BOX_IOU = 0.2
#: Two faint boxes overlapping this much (IoU) are one candidate (the higher scored).
ONE_CANDIDATE_IOU = 0.3
#: With no tile read: a candidate's long side over its short one (a domino's is 2, its
#: box's more with the tile's side in it, less at a slant).
ASPECT_RANGE = (1.4, 3.5)
#: A photo with more patches of the tiles' colour than this shows it on its surface
#: too: a patch is then taken only where the domino check does not doubt it.
#: (On the composited hands of ``benchmarks.hands`` one photo of a cloth of the tiles'
#: colour shows 51 such patches; every other shows 11 or fewer, most none.)
FEW_PATCHES = 3
#: A doubted patch is taken only this many read tiles' lengths from a tile read, at most
#: (centre to centre): a tile side by side with one in a row (half a length apart), not
#: a prop or a fist a tile's length or more away.
BESIDE = 0.75
#: The doubt a reading of a candidate carries (``TileReading.doubt``).
MISSED_DOUBT = "missed?"



def _shaped(candidates: np.ndarray, read: np.ndarray) -> np.ndarray:
    """Which candidate boxes have a tile's size and shape (module docstring)."""
    seen = box_sides(candidates)
    if len(read):
        rel = seen / np.median(box_sides(read), axis=0)
        return np.all((rel >= SIZE_RANGE[0]) & (rel <= SIZE_RANGE[1]), axis=1)
    aspect = seen[:, 1] / np.maximum(seen[:, 0], 1e-6)
    return (aspect >= ASPECT_RANGE[0]) & (aspect <= ASPECT_RANGE[1])


def _beside(boxes: np.ndarray, frame: FrameReading) -> np.ndarray:
    """Which ``boxes`` lie beside a tile ``frame`` read (``BESIDE``)."""
    read = np.asarray(frame.tiles.corners, np.float32).reshape(-1, 4, 2)
    if not len(read) or not len(boxes):
        return np.zeros(len(boxes), bool)
    reach = BESIDE * float(np.median(box_sides(read)[:, 1]))
    gaps = np.linalg.norm(boxes.mean(axis=1)[:, None] - read.mean(axis=1)[None], axis=2)
    return np.asarray(gaps.min(axis=1) <= reach)


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


def candidates(found: Detections, frame: FrameReading) -> np.ndarray:
    """Indices of the boxes ``found`` that no tile of ``frame`` (read, left out or face
    down) covers and that have a tile's size and shape (module docstring)."""
    if not len(found):
        return np.zeros(0, np.int64)
    read = np.asarray(frame.tiles.corners, np.float32).reshape(-1, 4, 2)
    known = np.concatenate([read, np.array(frame.backs, np.float32).reshape(-1, 4, 2)])
    corners = found.corners.astype(np.float32)
    free = (polygon_iou(corners, known).max(axis=1) < SAME_BOX_IOU if len(known)
            else np.ones(len(corners), bool))
    return np.flatnonzero(free & _shaped(corners, read))


def maybe_missed(reader: TileReader, image: np.ndarray, frame: FrameReading
                 ) -> list[TileReading]:
    """The boxes of ``image`` that may be tiles ``frame`` (its reading) lacks (module
    docstring), each read where it lies, ``uncertain`` and doubted ``MISSED_DOUBT``.
    None when the reader has no domino check to judge them by."""
    check = reader.domino_check
    if check is None:
        return []
    found = faint_boxes(reader, image)
    ask = candidates(found, frame)
    patches = tile_coloured(image, frame)
    corners = np.concatenate([found.corners[ask].astype(np.float32), patches])
    scores = np.concatenate([found.confidence[ask], np.zeros(len(patches))]).astype(np.float32)
    if not len(corners):
        return []
    verdicts = check(image, corners, scores)
    taken = verdicts.not_domino < NOT_DOUBT
    if len(patches) <= FEW_PATCHES:  # a patch of the tiles' colour: unless certainly none
        taken[len(ask):] |= ~verdicts.certain[len(ask):] & _beside(patches, frame)
    tiles = np.flatnonzero(taken)
    if not len(tiles):
        return []
    tiles = tiles[_one_each(corners[tiles], scores[tiles])]
    readings = reader.read_at(image, corners[tiles], scores[tiles]).each()
    return [replace(r, uncertain=True, doubt=MISSED_DOUBT) for r in readings]


def with_missed(reader: TileReader, image: np.ndarray, frame: FrameReading) -> FrameReading:
    """``frame`` with :func:`maybe_missed`'s readings after its own tiles."""
    missed = maybe_missed(reader, image, frame)
    if not missed:
        return frame
    return replace(frame, tiles=TileReadings.of([*frame.tiles.each(), *missed]))
