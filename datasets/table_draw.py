"""The random tables the table benchmark draws: table ``i`` of a part, from its seed.

Tests that check a benchmark table (``benchmarks/table.py``) draw it here, the same way.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from datasets.table_layout import TableLayout, layout_table, random_table
from engine import TableState


class DrawnTable(NamedTuple):
    """Players, tiles laid besides the engine, the table, and its layout."""

    players: int
    n_tiles: int
    table: TableState
    layout: TableLayout


def draw_table(rng: np.random.Generator, i: int, mat: bool,
               inline_doubles: float = 0.0) -> DrawnTable:
    """Table ``i`` of a part: 2 to 8 players (by ``i``), 0 to 60 tiles besides the
    engine, markers on about a third of the trains, laid out with or without the mat
    (``inline_doubles``: the share of doubles laid in line with their train)."""
    players = 2 + i % 7
    n_tiles = int(rng.integers(0, 61))
    truth = random_table(rng, players, 12, n_tiles, marker_rate=0.35)
    layout = layout_table(truth, players, rng, mat=mat, inline_doubles=inline_doubles)
    return DrawnTable(players, n_tiles, truth, layout)
