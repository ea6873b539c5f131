"""One half crop's count from its pips' scores (``vision.reading.count_certainty``)."""

from __future__ import annotations

import numpy as np
import pytest

from vision.reading.count_certainty import (
    PIP_THRESHOLD,
    RANGE_BAND,
    count_certainty,
    pip_count,
    within_set,
)


class TestCertainty:
    def test_clear_scores_are_certain(self) -> None:
        assert count_certainty(np.array([0.95, 0.9, 0.02, 0.05]), 0.5) == 1.0

    def test_no_candidates_is_certain(self) -> None:
        assert count_certainty(np.zeros(0), 0.5) == 1.0

    def test_score_at_threshold_is_a_coin_toss(self) -> None:
        assert count_certainty(np.array([0.9, 0.5]), 0.5) == 0.0

    def test_closer_is_less_certain(self) -> None:
        values = [count_certainty(np.array([0.5 + d]), 0.5) for d in (0.02, 0.08, 0.15, 0.3)]
        assert values == sorted(values) and values[0] < 0.2 and values[-1] == 1.0

    def test_each_doubtful_pip_lowers_it(self) -> None:
        one = count_certainty(np.array([0.6]), 0.5)
        two = count_certainty(np.array([0.6, 0.4]), 0.5)
        assert two == pytest.approx(one * one)


def test_the_pips_count_and_the_counts_it_could_be() -> None:
    sure, near_above, near_below = PIP_THRESHOLD + 0.5, PIP_THRESHOLD + RANGE_BAND / 2, \
        PIP_THRESHOLD - RANGE_BAND / 2
    count, certainty, low, high = pip_count(np.array([sure, sure, near_above, near_below]))
    assert (count, low, high) == (3, 2, 4) and 0.0 < certainty < 1.0
    assert pip_count(np.array([sure, sure])) == (2, 1.0, 2, 2)
    assert pip_count(np.zeros(0)) == (0, 1.0, 0, 0)


def test_a_count_beyond_the_set_is_kept_within_it_when_the_pips_allow() -> None:
    assert within_set(13, 11, 14, 12) == (12, 11, 12)  # a doubtful 13 on a double-12 set
    assert within_set(5, 5, 6, 12) == (5, 5, 6)  # in the set: as read
    assert within_set(12, 12, 13, 12) == (12, 12, 12)  # the range stops at the set too
    # sure it is beyond: the set's top count (the tile is flagged), the range its top counts
    assert within_set(14, 14, 15, 12) == (12, 9, 12)
    assert within_set(5, 5, 5, 2) == (2, 0, 2)
