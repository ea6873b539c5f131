from __future__ import annotations

import numpy as np
import pytest

from datasets.pip_layouts import LAYOUTS, MAX_PIPS, pip_layout


@pytest.mark.parametrize("n", range(MAX_PIPS + 1))
def test_every_layout_has_n_separate_pips_inside_the_half(n: int) -> None:
    for layout in LAYOUTS[n]:
        pips = np.array(layout).reshape(-1, 3)
        assert len(pips) == n
        assert np.all(pips[:, :2] - pips[:, 2:3] > 0) and np.all(pips[:, :2] + pips[:, 2:3] < 1)
        for i in range(n):
            for j in range(i + 1, n):
                gap = np.hypot(*(pips[i, :2] - pips[j, :2]))
                assert gap > pips[i, 2] + pips[j, 2]


def test_values_above_nine_have_more_than_one_layout() -> None:
    assert all(len(LAYOUTS[n]) >= 2 for n in range(10, MAX_PIPS + 1))


def test_pip_layout_draws_the_right_count_and_rejects_bad_counts() -> None:
    rng = np.random.default_rng(0)
    assert [len(pip_layout(n, rng)) for n in range(MAX_PIPS + 1)] == list(range(MAX_PIPS + 1))
    with pytest.raises(ValueError):
        pip_layout(MAX_PIPS + 1, rng)
