"""One half crop's pip count: how sure it is, the counts it could be within the set,
and which pips lie on the half itself."""

from __future__ import annotations

import numpy as np

from vision.crops import HALF_PX, MARGIN

#: Pip scores closer than this to the threshold make a count doubtful.
PIP_BAND = 0.25
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

