"""datasets.table_draw: the tables the table benchmark draws, one per seed and index."""

from __future__ import annotations

import numpy as np
import pytest

from datasets.table_draw import draw_table


@pytest.mark.parametrize("mat", [True, False])
def test_a_seed_and_index_draw_one_table(mat: bool) -> None:
    first = draw_table(np.random.default_rng(1_100_003), 3, mat)
    again = draw_table(np.random.default_rng(1_100_003), 3, mat)
    assert first.table == again.table and first.n_tiles == again.n_tiles
    assert first.players == 5 == first.layout.players
    assert first.layout.hub.mat is mat
    laid = sum(len(t.tiles) for t in first.table.trains)
    assert laid == first.n_tiles
    assert len(first.layout.tiles) == laid + 1  # and the engine


def test_the_index_sets_the_players() -> None:
    assert [draw_table(np.random.default_rng(7), i, False).players
            for i in range(9)] == [2, 3, 4, 5, 6, 7, 8, 2, 3]
