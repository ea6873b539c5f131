"""A half's count from the pips found on it and the classifier's look at the whole half."""

from __future__ import annotations

import numpy as np
import pytest

from vision.reading.count_vote import MOST_MISSED, PIP_WEIGHTS, Vote, vote


def _probs(**by_count: float) -> np.ndarray:
    """Probabilities over counts 0-18: those given, the rest shared out evenly."""
    probs = np.zeros(19)
    for key, p in by_count.items():
        probs[int(key[1:])] = p
    rest = 1.0 - probs.sum()
    probs[probs == 0] = rest / np.count_nonzero(probs == 0)
    return probs


def test_agreeing_witnesses_keep_the_pips_count_and_certainty() -> None:
    assert vote(6, 0.8, 6, 6, _probs(c6=0.9)) == Vote(6, 0.8, 6, 6)


def test_missed_pips_are_made_up_from_the_pattern() -> None:
    taken = vote(8, 1.0, 8, 8, _probs(c11=0.9, c8=0.02))
    assert taken.value == 11
    assert (taken.low, taken.high) == (8, 11)  # the range still holds what the pips said
    assert taken.certainty > 0.5


def test_a_count_within_the_pips_range_beats_one_beyond_it() -> None:
    # equally likely to the classifier: the pips' range decides
    assert vote(9, 0.3, 9, 10, _probs(c10=0.45, c12=0.45)).value == 10


def test_the_pips_count_weighs_most() -> None:
    first, inside, _ = PIP_WEIGHTS
    p = _probs(c4=0.3, c5=0.3 * first / inside * 0.9)
    assert vote(4, 0.5, 4, 5, p).value == 4
    p = _probs(c4=0.3, c5=0.3 * first / inside * 1.1)
    assert vote(4, 0.5, 4, 5, p).value == 5


@pytest.mark.parametrize("count", [0, 3])
def test_far_more_pips_than_found_is_not_believed(count: int) -> None:
    # the classifier's likeliest confusion is a blank for a blurred 12
    far = count + MOST_MISSED + 1
    assert vote(count, 0.4, count, count, np.eye(19)[far]).value == count
    near = count + MOST_MISSED
    assert vote(count, 0.4, count, count, np.eye(19)[near]).value == near


def test_fewer_pips_than_found_is_not_believed() -> None:
    assert vote(7, 0.9, 7, 7, np.eye(19)[6]) == Vote(7, 0.9, 7, 7)
    # but within the pips' own range it may be
    assert vote(7, 0.3, 6, 7, _probs(c6=0.9, c7=0.01)).value == 6


def test_a_classifier_knowing_fewer_counts_is_taken_as_far_as_it_goes() -> None:
    # probabilities for counts 0-12 only: a count of 11 may rise to 12, no further
    probs = np.zeros(13)
    probs[12] = 1.0
    assert vote(11, 1.0, 11, 11, probs).value == 12
    assert vote(14, 1.0, 14, 14, probs) == Vote(14, 1.0, 14, 14)  # beyond it: as the pips say
