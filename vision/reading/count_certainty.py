"""One half crop's pip count: when the classifiers name it, how sure it is, the counts
it could be within the set, and which pips lie on the half itself."""

from __future__ import annotations

import numpy as np

from vision.models.crops import HALF_PX, MARGIN

#: The ``halves`` classifier's vote counts for counts up to this many only, unless the
#: reader is told of a larger set (``TileReader(max_value=15)``): its training crops
#: hold few halves above a double-12 set's (13-18: 2 % of them), and letting it name
#: them read 11 halves of a real double-12 set's 12s as 13. Told of a
#: double-15 or double-18 set, it votes up to the set's top: on rendered scenes of
#: seeds used neither in training nor in the eval set (60 tables of seed 9102, 200
#: hands of seed 9101), tiles read right 1123 -> 1126 of 1138 and 1600 -> 1602 of 1638
#: (the double-15 tables' 96.4 -> 98.6 %), none of a double-12 set's changed. A half
#: the pips count higher than the classifier's counts keeps their count.
CLASSIFIED_UP_TO = 12
#: A half crop the ``halves`` classifier names with at least this probability has that
#: count, and is not shown to the pip model; the others are, and the classifier's vote
#: weighs their pips (``vision.reading.count_vote``). On a 1280x720 table frame, 94 % of the
#: crops are named that surely, and the pip model's batch shrinks as much. On rendered
#: scenes of seeds used neither in training nor in the eval set (60 tables of seed
#: 9102, 200 hands of seed 9101, read for their sets), tiles read right 1126 -> 1128 of
#: 1138 and 1602 -> 1605 of 1638 (0.999: 1127 and 1604), hand totals 83 -> 84 %: where
#: the classifier is that sure, the pips' vote undid more right counts than wrong ones.
CLASSIFIER_SURE = 0.99
#: The quick classifier (``halves_quick``: the ``halves`` classifier trained on at
#: 64 px) looks at every crop first; a crop it names less surely than this is
#: looked at again by ``halves`` at 96 px, whose probabilities then stand for it. On a
#: 1280x720 table frame that is 6-11 % of the crops, and the classifiers' time falls
#: from about 60 to about 30 ms. On rendered scenes of seeds used neither in training
#: nor in the eval set, read at 64 px alone / quick then 96 / at 96 px alone: 160
#: 1920x1080 tables whole 152 / 153 / 155, their tiles 98.39 / 98.59 / 98.60 %; 60
#: tables of seed 9102 1128 of 1138 tiles read right each; 200 hands of seed 9101
#: 1605 / 1607 / 1605 of 1638.
QUICK_SURE = 0.99
#: Pip scores closer than this to the threshold make a count doubtful.
PIP_BAND = 0.25
#: Pip score at or above which a pip counts. Chosen on rendered scenes of a
#: seed used neither in training nor in the eval set
#: (``benchmarks/vision.py --tune 40``: per-half accuracy 0.91 at 0.30, 0.86
#: at 0.50), never on real photos.
PIP_THRESHOLD = 0.30
#: The counts a half could be: as many pips as score at least ``PIP_THRESHOLD +
#: RANGE_BAND`` up to as many as score at least ``PIP_THRESHOLD - RANGE_BAND``.
#: Measured at the true corners of 60 rendered validation tables (seeds 202/205):
#: the true count lies in that range for 83 % of the misread halves, while 97 %
#: of the halves read right have a range of one (0.1: 63 % / 98 %; 0.2: 91 % /
#: 95 %). A table's trains use it to settle a misread by its neighbours
#: (``vision.table``).
RANGE_BAND = 0.15
#: A pip the ``pips`` model scores at least this (far below ``PIP_THRESHOLD``) on a half
#: counted blank may be a faint pip (printed pale, washed out by light): the blank
#: could be as many counts as there are (``faint_blank``). On composited hands of
#: rendered sprites (``benchmarks.hands``, seed 4401), two hands whose faint 6 and 2 were
#: read blank by a sure classifier showed marks of 0.06-0.14 there; at 0.10 both are
#: marked, and no exact hand of the eval set (40) or of composited seeds 4401 and 4403
#: (48 each) is newly marked; at 0.08 one exact eval hand is, at 0.12 one faint hand
#: is not.
FAINT_PIP = 0.10
#: A half counted beyond the set, however sure, could be any of the set's top this
#: many + 1 counts (``within_set``).
OVER_SET_SPAN = 3


def count_certainty(scores: np.ndarray, threshold: float, band: float = PIP_BAND) -> float:
    """How sure a pip count is, from the scores of all candidate pips.

    Each candidate scored within ``band`` of ``threshold`` lowers it: one right
    at the threshold makes it 0, one ``band / 2`` away costs a quarter.

    >>> count_certainty(np.array([0.9, 0.95, 0.02]), 0.5)
    1.0
    >>> count_certainty(np.array([0.9, 0.5]), 0.5)
    0.0
    """
    closeness = np.clip(1.0 - np.abs(np.asarray(scores, np.float64) - threshold) / band, 0, 1)
    return float(np.prod(1.0 - closeness**2))



def pip_count(scores: np.ndarray, threshold: float = PIP_THRESHOLD, band: float = PIP_BAND
              ) -> tuple[int, float, int, int]:
    """A half's count from its pips' ``scores`` alone: how many score at least
    ``threshold``, how sure that is (:func:`count_certainty`) and the lowest and
    highest counts it could be (``RANGE_BAND``)."""
    count = int(np.sum(scores >= threshold))
    low = min(count, int(np.sum(scores >= threshold + RANGE_BAND)))
    high = max(count, int(np.sum(scores >= threshold - RANGE_BAND)))
    return count, count_certainty(scores, threshold, band), low, high


def faint_blank(scores: np.ndarray, faint: float = FAINT_PIP) -> int:
    """The most a half counted blank could be: how many of its candidate pips'
    ``scores`` (pips on the half itself) reach ``faint``. A blank's crop holds no pip
    at all; a half whose pips are faint is counted blank by the ``halves``
    classifier and its pips scored far below the threshold, and only this range
    says it may be more.

    >>> faint_blank(np.array([0.14, 0.11, 0.06])), faint_blank(np.array([0.03]))
    (2, 0)
    """
    return int(np.sum(np.asarray(scores) >= faint))


def within_set(value: int, low: int, high: int, top: int) -> tuple[int, int, int]:
    """``(value, low, high)`` of a half's count kept within a set whose largest half
    is ``top``: a count beyond it becomes the most the range allows in the set, so
    no count beyond the set is ever reported (the tile is flagged ``uncertain``).
    A range wholly beyond the set gives the set's top count, and its range becomes
    the set's top ``OVER_SET_SPAN + 1`` counts: the pip model over-counts the many
    small pips of a blurred 10-12 (a 11 read 17 on a rendered table), so a table's
    neighbours may settle it there.

    >>> within_set(13, 11, 14, 12), within_set(5, 5, 6, 12), within_set(17, 16, 18, 12)
    ((12, 11, 12), (5, 5, 6), (12, 9, 12))
    """
    if low > top:
        return top, max(0, top - OVER_SET_SPAN), top
    return min(value, top), low, min(high, top)



def inside_half(centers: np.ndarray, half_px: int = HALF_PX) -> np.ndarray:
    """Mask of pip centres on the tile's own half of a half crop.

    A half crop shows the tile inset by the crop margin on three sides and
    cut at the divider on the fourth (the bottom); anything else is another
    tile showing through the margin.
    """
    m = MARGIN * half_px
    x, y = centers[:, 0], centers[:, 1]
    return (x >= m) & (x <= half_px - m) & (y >= m)

