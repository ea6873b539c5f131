"""Is a box a domino? A small classifier's verdict on every tile box before it is read.

The tile detector boxes what it learnt looks like a tile, and on a patterned cloth,
a printed mat or a hand that is a lot besides. ``models/verifier.onnx`` (trained by
``training.verifier`` on ``datasets.verifier_crops``) looks at each box with some of
its surroundings and names it a domino's ``face``, a domino's ``back`` or ``not`` a
domino (a cloth's square, a flower, half a tile, a box across the joint of two tiles,
a marker, a hand, a card). Training crops are cut by :func:`verifier_crop`, the same
function the reader cuts with.

:func:`verdicts` answers for many boxes in one batch. The reader
(``vision.models.tile_check.CheckedTileDetector``), on a patterned frame, drops a box the
classifier is sure is no domino (``NOT_SURE``; ``NOT_CERTAIN`` where the detector is
sure of it). The reader then judges the box each reading was read at
(``vision.reading.domino_verdicts``): it drops one
no domino beyond doubt (``NOT_CERTAIN``) and marks one it doubts (``NOT_DOUBT``)
uncertain, with the reason ``not-a-domino?``, so that it is shown, never counted
silently. Real tiles seen oddly (at a low angle, their sides showing; under an arm)
are doubted rather than dropped.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from vision.models.crops import order_corners
from vision.models.light_colour import in_daylight, light_gains
from vision.models.onnx_models import Classifier, ModelSpec

#: The classifier's classes, in order (``models.json`` ``verifier`` ``names``).
CLASSES = ("face", "back", "not")
#: The crop: the box upright, ``BOX_PX`` (across, along), with ``CONTEXT_PX`` of what lies
#: round it on every side: ``CROP_SIZE`` (width, height) = 48 x 80.
BOX_PX = (32, 64)
CONTEXT_PX = 8
CROP_SIZE = (BOX_PX[0] + 2 * CONTEXT_PX, BOX_PX[1] + 2 * CONTEXT_PX)
#: A box more than this many times larger than its crop is cut out and shrunk by
#: pixel-area averaging first, so that a 12 MP photo's tile does not alias.
PRESHRINK_ABOVE = 2.0
#: ``not`` this likely, for a box the detector scores under ``DETECTOR_SURE``: the box
#: is no domino and is dropped before it is read. On the validation crops (seed 240)
#: 0.9 drops 5 of 3019 faces and 1 of 898 backs, and catches 91 % of what is none.
NOT_SURE = 0.9
#: A box the detector scores at least this (a real tile under an arm, or seen at a
#: slant with its side showing) is dropped only from ``NOT_CERTAIN``; below that, read
#: and doubted. Phantoms on patterned cloths score under 0.61 nine times in ten.
DETECTOR_SURE = 0.7
NOT_CERTAIN = 0.99
#: ``not`` this likely (and not dropped): the reading is marked uncertain.
NOT_DOUBT = 0.5
#: The reason a doubted reading carries.
DOUBT_REASON = "not-a-domino?"


def verifier_crop(image: np.ndarray, corners: np.ndarray) -> np.ndarray:
    """The box ``corners`` (4, 2) of the BGR ``image`` warped upright (its long side
    down the crop) with ``CONTEXT_PX`` of its surroundings each side: uint8
    ``(CROP_SIZE[1], CROP_SIZE[0], 3)``. Which end is up follows the corner order; the
    classifier learnt both."""
    c = order_corners(np.asarray(corners, np.float32))
    if image.ndim == 2:
        image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    across = float(min(np.hypot(*(c[1] - c[0])), np.hypot(*(c[2] - c[3]))))
    factor = across / BOX_PX[0]
    if factor > PRESHRINK_ABOVE:
        image, c = _shrunk(image, c, factor)
    (w, h), m = BOX_PX, CONTEXT_PX
    dst = np.array([[m, m], [m + w, m], [m + w, m + h], [m, m + h]], np.float32)
    matrix = cv2.getPerspectiveTransform(c, dst)
    return cv2.warpPerspective(image, matrix, CROP_SIZE, flags=cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_REPLICATE)


def _shrunk(image: np.ndarray, c: np.ndarray, factor: float) -> tuple[np.ndarray, np.ndarray]:
    """The region round the box, shrunk ``factor`` times by pixel-area averaging, and the
    box's corners in it."""
    h, w = image.shape[:2]
    pad = float(np.hypot(*(c[2] - c[1]))) * 0.5
    x0 = int(max(np.floor(c[:, 0].min() - pad), 0))
    y0 = int(max(np.floor(c[:, 1].min() - pad), 0))
    x1 = int(min(np.ceil(c[:, 0].max() + pad), w))
    y1 = int(min(np.ceil(c[:, 1].max() + pad), h))
    if x1 - x0 < 2 or y1 - y0 < 2:
        return image, c
    size = (max(int(round((x1 - x0) / factor)), 1), max(int(round((y1 - y0) / factor)), 1))
    small = cv2.resize(image[y0:y1, x0:x1], size, interpolation=cv2.INTER_AREA)
    sx, sy = size[0] / (x1 - x0), size[1] / (y1 - y0)
    local = (c - np.array([x0, y0], np.float32) + 0.5) * np.array([sx, sy], np.float32) - 0.5
    return small, local.astype(np.float32)


@dataclass(frozen=True)
class Verdicts:
    """The classifier's answer for N boxes: ``probs`` ``(N, 3)`` in ``CLASSES`` order, and
    the detector's ``scores`` ``(N,)`` of the boxes (None: all unsure)."""

    probs: np.ndarray
    scores: np.ndarray | None = None

    @property
    def not_domino(self) -> np.ndarray:
        """How likely each box is no domino, ``(N,)``."""
        return self.probs[:, CLASSES.index("not")]

    @property
    def dropped(self) -> np.ndarray:
        """Which boxes are surely no domino: never read (``NOT_SURE``; ``NOT_CERTAIN``
        for a box the detector is sure of, ``DETECTOR_SURE``)."""
        sure = (np.zeros(len(self.probs), bool) if self.scores is None
                else np.asarray(self.scores) >= DETECTOR_SURE)
        return self.not_domino >= np.where(sure, NOT_CERTAIN, NOT_SURE)

    @property
    def certain(self) -> np.ndarray:
        """Which boxes are no domino beyond doubt (``NOT_CERTAIN``), whatever their score."""
        return self.not_domino >= NOT_CERTAIN

    @property
    def doubted(self) -> np.ndarray:
        """Which boxes may be no domino (``NOT_DOUBT`` up to ``NOT_CERTAIN``)."""
        return (self.not_domino >= NOT_DOUBT) & ~self.certain


class DominoCheck:
    """The ``verifier`` model of ``models.json``: each box's verdict (:class:`Verdicts`)."""

    def __init__(self, spec: ModelSpec, threads: int | None = None) -> None:
        if tuple(spec.names) != CLASSES:
            raise ValueError(f"verifier classes {spec.names} are not {CLASSES}")
        self.classifier = Classifier(spec, threads=threads)

    def __call__(self, image: np.ndarray, corners: np.ndarray | Sequence[np.ndarray],
                 scores: np.ndarray | None = None) -> Verdicts:
        """The verdicts of the boxes ``corners`` ``(N, 4, 2)`` in the BGR ``image``, scored
        ``scores`` by the detector (None: all unsure); each box looked at as in daylight
        (``vision.models.light_colour``: a cream face under a warm lamp is orange, and
        the classifier learnt faces lit white)."""
        boxes = np.asarray(corners, np.float32).reshape(-1, 4, 2)
        if not len(boxes):
            return Verdicts(np.zeros((0, len(CLASSES)), np.float32), scores)
        gains = light_gains(image)
        crops = [in_daylight(verifier_crop(image, b), gains) for b in boxes]
        return Verdicts(self.classifier(crops), scores)
