"""A half's count from two witnesses: the pips found on it and the look of the whole half.

The ``pips`` model finds pips one by one and a half's count is how many it
scores at or above the threshold, with a range of counts it could be (pips
scored near the threshold). On a small, blurred half the pips run together and
it misses some without doubt (a 10 read 7). The ``halves`` model looks at the
whole half crop and says how likely each count is from its pattern: a 10 is
two columns of five, however blurred. Neither is right alone as often as
both together: the count taken is the one the classifier finds likeliest,
weighed by what the pips say (``PIP_WEIGHTS``: the pips' count, then the
rest of their range, then a few more pips than they found).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from vision.models.onnx_models import Classifier, class_counts
from vision.reading.count_certainty import QUICK_SURE

#: Weight of a count by what the pips say of it: the count they give, another
#: count within their range, a count up to ``MOST_MISSED`` above it. Any other
#: count weighs nothing: the pips of a small blurred half run together and some
#: are missed, but a blank is not a blurred 12 (the classifier's likeliest
#: confusion) and pips are rarely seen where there are none. Chosen on the pip
#: model's synthetic validation crops (``crops`` seed 203 and ``crops-table`` seed
#: 206, 1000 each: the pips alone read 93.5 % and 80.6 % right, the classifier alone
#: 98.9 % and 97.7 %, the vote 98.8 % and 97.1 %), never on the eval set or real
#: photos. Early in training, when the classifier still took blanks for 12s, the
#: limits kept whole rendered tables from breaking at their engine.
PIP_WEIGHTS = (2.0, 1.0, 0.5)
#: The most pips a half's count may be raised above the pips' range.
MOST_MISSED = 4


class Vote(NamedTuple):
    """The count taken, how sure it is and the lowest and highest counts it could be."""

    value: int
    certainty: float
    low: int
    high: int


def vote(count: int, certainty: float, low: int, high: int, probs: np.ndarray,
         weights: tuple[float, float, float] = PIP_WEIGHTS,
         most_missed: int = MOST_MISSED) -> Vote:
    """The count of one half: the classifier's ``probs`` (one per count from 0)
    weighed by the pips' ``count``, its ``certainty`` and their range ``low..high``.

    The pips' count keeps their certainty; another count is as sure as its share
    of the weighed probabilities. The range kept is the pips' one widened to the
    count taken.

    >>> vote(7, 1.0, 7, 7, np.eye(13)[10])    # the pips missed three, the pattern is a 10
    Vote(value=10, certainty=1.0, low=7, high=10)
    >>> vote(0, 0.4, 0, 0, np.eye(13)[12])    # a blank is not a blurred 12
    Vote(value=0, certainty=0.4, low=0, high=0)
    >>> probs = np.full(13, 0.02); probs[5] = 0.3; probs[6] = 0.46
    >>> vote(5, 0.5, 5, 6, probs).value       # both in range: the pips' count weighs more
    5
    """
    probs = np.asarray(probs, np.float64)
    top = len(probs) - 1
    weight = np.zeros(len(probs))
    weight[min(high + 1, top + 1):min(high + most_missed, top) + 1] = weights[2]
    weight[max(0, low):min(high, top) + 1] = weights[1]
    if count <= top:
        weight[count] = weights[0]
    weighed = probs * weight
    total = float(weighed.sum())
    value = int(np.argmax(weighed))
    if total <= 0.0 or value == count:
        return Vote(count, certainty, low, high)
    return Vote(value, float(weighed[value]) / total, min(low, value), max(high, value))


def classifier_counts(crops: Sequence[np.ndarray], halves: Classifier,
                      quick: Classifier | None, up_to: int) -> np.ndarray | None:
    """The half classifiers' probability of each count from 0 to ``up_to`` for each crop
    (column = count; their class names are the counts), None without crops: the
    ``quick`` classifier's where it is sure (``QUICK_SURE``), else the ``halves`` one's."""
    if not crops:
        return None
    if quick is None:
        return _by_count(halves(crops), halves.names, up_to)
    probs = _by_count(quick(crops), quick.names, up_to)
    unsure = np.flatnonzero(probs.max(axis=1) < QUICK_SURE).tolist()
    if unsure:
        again = halves([crops[i] for i in unsure])
        probs[unsure] = _by_count(again, halves.names, up_to)
    return probs


def _by_count(probs: np.ndarray, names: Sequence[str], up_to: int) -> np.ndarray:
    """A classifier's ``probs`` (columns: its classes ``names``) by count, 0 to ``up_to``."""
    values = class_counts(names, "halves")
    by_count = np.zeros((len(probs), max(int(values.max()), up_to) + 1), np.float32)
    by_count[:, values] = probs
    return by_count[:, :up_to + 1]
