"""Where the pips of one half-tile sit, as real sets print them.

Coordinates are in the unit square of one half seen from its own end:
``x`` across the tile (0 left, 1 right), ``y`` along it (0 at the tile's end,
1 at the divider). Values 0-9 use the classic 3x3 grid; 10-18 use taller grids
with a centre column that is partly filled or offset by half a row, and every
value above 9 has at least two layouts.
"""

from __future__ import annotations

from typing import Any

import numpy as np

#: Highest pip count a half can show (double-18 sets).
MAX_PIPS = 18


def _grid(
    rows: int, cols: int, cells: list[tuple[float, float]]
) -> list[tuple[float, float, float]]:
    """Cells ``(row, col)`` (fractional rows allowed) of a ``rows`` x ``cols`` grid.

    Returns ``(x, y, radius)`` with a radius that fits the grid spacing.
    """
    margin_x = 0.2 if cols <= 3 else 0.16
    margin_y = max(0.12, 0.2 - 0.02 * (rows - 3))
    step_x = (1 - 2 * margin_x) / max(cols - 1, 1)
    step_y = (1 - 2 * margin_y) / max(rows - 1, 1)
    radius = 0.36 * min(step_x, step_y)
    return [(margin_x + c * step_x, margin_y + r * step_y, radius) for r, c in cells]


def _full(rows: int, cols: int) -> list[tuple[float, float]]:
    return [(float(r), float(c)) for r in range(rows) for c in range(cols)]


def _without(rows: int, cols: int, missing: list[tuple[int, int]]) -> list[tuple[float, float]]:
    gone = {(float(r), float(c)) for r, c in missing}
    return [cell for cell in _full(rows, cols) if cell not in gone]


def _offset_middle(rows: int, middle: int) -> list[tuple[float, float]]:
    """Outer columns full, ``middle`` pips in the centre column spread between them."""
    cells = [(float(r), float(c)) for r in range(rows) for c in (0, 2)]
    if middle:
        start = (rows - 1 - (middle - 1)) / 2
        cells += [(start + i, 1.0) for i in range(middle)]
    return cells


def _build() -> dict[int, list[list[tuple[float, float, float]]]]:
    g3: dict[int, list[Any]] = {
        0: [[]],
        1: [[(1, 1)]],
        2: [[(0, 0), (2, 2)], [(0, 2), (2, 0)]],
        3: [[(0, 0), (1, 1), (2, 2)], [(0, 2), (1, 1), (2, 0)]],
        4: [[(0, 0), (0, 2), (2, 0), (2, 2)]],
        5: [[(0, 0), (0, 2), (1, 1), (2, 0), (2, 2)]],
        6: [[(r, c) for r in range(3) for c in (0, 2)], [(r, c) for r in (0, 2) for c in range(3)]],
        7: [
            [(r, c) for r in range(3) for c in (0, 2)] + [(1, 1)],
            [(r, c) for r in (0, 2) for c in range(3)] + [(1, 1)],
        ],
        8: [_without(3, 3, [(1, 1)])],
        9: [_full(3, 3)],
    }
    layouts: dict[int, list[list[tuple[float, float, float]]]] = {
        n: [_grid(3, 3, [(float(r), float(c)) for r, c in cells]) for cells in variants]
        for n, variants in g3.items()
    }
    layouts[10] = [
        _grid(4, 3, _without(4, 3, [(1, 1), (2, 1)])),
        _grid(5, 2, _full(5, 2)),
        _grid(4, 3, _offset_middle(4, 2)),
    ]
    layouts[11] = [_grid(4, 3, _without(4, 3, [(1, 1)])), _grid(4, 3, _offset_middle(4, 3))]
    layouts[12] = [_grid(4, 3, _full(4, 3)), _grid(3, 4, _full(3, 4))]
    layouts[13] = [_grid(5, 3, _without(5, 3, [(1, 1), (3, 1)])), _grid(5, 3, _offset_middle(5, 3))]
    layouts[14] = [_grid(5, 3, _without(5, 3, [(2, 1)])), _grid(5, 3, _offset_middle(5, 4))]
    layouts[15] = [_grid(5, 3, _full(5, 3)), _grid(4, 4, _without(4, 4, [(0, 0)])[:15])]
    layouts[16] = [_grid(6, 3, _without(6, 3, [(2, 1), (3, 1)])), _grid(4, 4, _full(4, 4))]
    layouts[17] = [_grid(6, 3, _without(6, 3, [(2, 1)])), _grid(6, 3, _offset_middle(6, 5))]
    layouts[18] = [_grid(6, 3, _full(6, 3)), _grid(5, 4, _without(5, 4, [(2, 1), (2, 2)]))]
    return layouts


#: ``LAYOUTS[n]``: the layouts of a half with ``n`` pips, each a list of ``(x, y, radius)``.
LAYOUTS = _build()


def pip_layout(n: int, rng: np.random.Generator,
               layouts: dict[int, list[list[tuple[float, float, float]]]] | None = None
               ) -> np.ndarray:
    """One layout for ``n`` pips as an ``(n, 3)`` array of ``x, y, radius``.

    A random variant, sometimes turned a quarter or mirrored (sets differ in
    how they print the same value), with a little jitter. ``layouts`` (a set's
    own, by count) replaces ``LAYOUTS`` for the counts it lists.
    """
    if not 0 <= n <= MAX_PIPS:
        raise ValueError(f"pip count {n} outside 0..{MAX_PIPS}")
    variants = (layouts or {}).get(n) or LAYOUTS[n]
    pips = np.array(variants[int(rng.integers(len(variants)))], dtype=np.float64).reshape(-1, 3)
    if len(pips) and rng.random() < 0.3:
        pips[:, [0, 1]] = pips[:, [1, 0]]
    if len(pips) and rng.random() < 0.5:
        pips[:, 0] = 1 - pips[:, 0]
    if len(pips):
        pips[:, :2] += rng.normal(0, 0.006, size=(len(pips), 2))
        pips[:, 2] *= rng.uniform(0.85, 1.12)
    return pips
