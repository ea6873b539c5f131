"""Optimal assignment: each row to its own column at the least total cost.

The Hungarian algorithm (Kuhn-Munkres, in the shortest augmenting path form
with potentials), ``O(n^2 m)`` for ``n`` rows and ``m >= n`` columns. A
rectangular cost matrix is fine either way: when there are more rows than
columns, the rows left over are assigned nothing (``-1``).

>>> assign(np.array([[4.0, 1.0, 3.0], [2.0, 0.0, 5.0], [3.0, 2.0, 2.0]])).tolist()
[1, 0, 2]
"""

from __future__ import annotations

import numpy as np


def assign(cost: np.ndarray) -> np.ndarray:
    """The column each row of ``cost`` ``(n, m)`` goes to, every column used at most
    once, minimising the sum of the chosen costs: an int array of ``n`` column indices,
    ``-1`` for a row left without one (only when ``n > m``). Costs must be finite."""
    c = np.asarray(cost, np.float64)
    if c.ndim != 2:
        raise ValueError(f"a cost matrix has two dimensions, got shape {c.shape}")
    if not np.all(np.isfinite(c)):
        raise ValueError("assignment costs must be finite")
    n, m = c.shape
    if n == 0 or m == 0:
        return np.full(n, -1, int)
    if n > m:  # assign the columns to rows instead
        rows_of = _assign_wide(c.T)
        out = np.full(n, -1, int)
        out[rows_of] = np.arange(m)
        return out
    return _assign_wide(c)


def _assign_wide(c: np.ndarray) -> np.ndarray:
    """``assign`` for ``n <= m``: every row gets a column."""
    n, m = c.shape
    u = np.zeros(n + 1)  # row potentials (1-based, 0 is the free start)
    v = np.zeros(m + 1)  # column potentials
    row_of = np.zeros(m + 1, int)  # column j -> the row holding it (1-based; 0: free)
    way = np.zeros(m + 1, int)
    for i in range(1, n + 1):
        row_of[0] = i
        j0 = 0
        low = np.full(m + 1, np.inf)
        used = np.zeros(m + 1, bool)
        while True:  # grow a tree of tight edges until it reaches a free column
            used[j0] = True
            i0 = row_of[j0]
            free = ~used[1:]
            reduced = c[i0 - 1] - u[i0] - v[1:]
            better = free & (reduced < low[1:])
            low[1:][better] = reduced[better]
            way[1:][better] = j0
            candidates = np.where(free, low[1:], np.inf)
            j1 = int(np.argmin(candidates)) + 1
            delta = candidates[j1 - 1]
            u[row_of[used]] += delta
            v[used] -= delta
            low[1:][free] -= delta
            j0 = j1
            if row_of[j0] == 0:
                break
        while j0:  # flip the path back to the start
            j1 = way[j0]
            row_of[j0] = row_of[j1]
            j0 = j1
    out = np.full(n, -1, int)
    held = np.flatnonzero(row_of[1:])
    out[row_of[1:][held] - 1] = held
    return out
