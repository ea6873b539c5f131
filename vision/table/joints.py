"""Boxes that are no tile of their own: a box across the joint of two tiles (its halves the
facing halves of two neighbouring boxes) and a tile boxed twice.

Two tiles never overlap, so boxes that do cannot all be tiles. A box whose two half
centres lie inside two other boxes straddles where those two meet (a detector boxes
the joint as a tile: a phantom double where an in-line double meets its
neighbours, or a single reading the facing counts); two boxes each holding the
other's half centres are one tile boxed twice, and two boxes each holding one half
centre of the other overlap by half a tile (one tile boxed twice, each box slipped a
quarter of its length along the train: the one slipped back reads the facing half of
the tile before it, ``4 | 4-4 | 5`` where ``9-4 | 4-5 | 5-3`` lies). Of each group of
such boxes, the most that do not overlap are kept; on a tie, those whose counts agree
with the boxes beside them (a train's neighbours share a count), then the surest,
then the largest:
along a train ``X | joint | Y`` that keeps ``X`` and ``Y``; along
``a-6 | joint | 6-6 | joint | 6-b`` (a double laid in line, read three times over)
the three tiles.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np

from vision.table.geometry import PlacedTile, perp

#: A half centre lies inside a box when it is at least this far (tile widths) inside its
#: outline: a neighbour's half centre lies half a width outside.
INSIDE_MARGIN = 0.15
#: Groups of overlapping boxes larger than this are left as they are (searched exhaustively).
MAX_GROUP = 12


def _inside(p: np.ndarray, t: PlacedTile, margin: float) -> bool:
    local = p - t.centre
    x, y = abs(float(local @ t.axis)), abs(float(local @ perp(t.axis)))
    return x <= t.length / 2 - margin and y <= t.width / 2 - margin


def _holders(p: np.ndarray, boxes: list[PlacedTile], skip: int, margin: float) -> list[int]:
    return [j for j, t in enumerate(boxes) if j != skip and _inside(p, t, margin)]


def overlap_edges(boxes: list[PlacedTile], w: float) -> set[tuple[int, int]]:
    """Pairs of positions in ``boxes`` that cannot both be tiles: a box and each of the
    two boxes its halves lie in, and a tile boxed twice."""
    margin = INSIDE_MARGIN * w
    edges: set[tuple[int, int]] = set()
    for i, t in enumerate(boxes):
        first = _holders(t.halves[0], boxes, i, margin)
        second = _holders(t.halves[1], boxes, i, margin)
        for a in first:
            for c in second:
                if a != c:  # across a joint: one half in each of two boxes
                    edges.update({(min(i, a), max(i, a)), (min(i, c), max(i, c))})
                elif i in _holders(boxes[a].halves[0], boxes, a, margin) and i in _holders(
                        boxes[a].halves[1], boxes, a, margin):
                    edges.add((min(i, a), max(i, a)))  # each holds the other: boxed twice
        for a in {*first, *second}:  # each holds a half of the other: half a tile over
            if a > i and _boxed_twice_slipped(boxes, i, a, margin):
                edges.add((i, a))
    return edges


def _beyond(t: PlacedTile, half: np.ndarray) -> np.ndarray:
    """Where the facing half of a neighbour beyond ``t``'s ``half`` would lie."""
    return 2.0 * half - t.centre


def _boxed_twice_slipped(boxes: list[PlacedTile], i: int, a: int, margin: float) -> bool:
    """Whether ``boxes[i]`` and ``boxes[a]``, each holding a half centre of the other,
    are one tile boxed twice: there is room for one tile only, a third box lying beyond
    each one's other half. Where nothing lies beyond, the box slid half off is all
    that shows of a tile of its own (its reading is looked at again later)."""
    for t, other in ((boxes[i], boxes[a]), (boxes[a], boxes[i])):
        outer = [h for h in t.halves if not _inside(h, other, margin)]
        if len(outer) != 1:
            return False
        probe = _beyond(t, outer[0])
        if not any(u.distance_to_point(probe) <= t.width / 2
                   for j, u in enumerate(boxes) if j not in (i, a)):
            return False
    return True


def _agreement(boxes: list[PlacedTile], i: int, apart: set[int]) -> int:
    """How many halves of ``boxes[i]`` count what the box beyond them holds: the box
    nearest the point where a neighbour's facing half would lie (as far beyond the
    box's end as the half lies inside it), within a tile's width of it, ``apart``
    left out (a train's neighbours share the count where they meet)."""
    t = boxes[i]
    agreed = 0
    for half, value in zip(t.halves, t.values, strict=True):
        beyond = _beyond(t, half)
        near = [(u.distance_to_point(beyond), j) for j, u in enumerate(boxes)
                if j != i and j not in apart]
        if near:
            distance, j = min(near)
            agreed += distance <= t.width and value in boxes[j].values
    return agreed


def _groups(n: int, edges: set[tuple[int, int]]) -> list[list[int]]:
    parent = list(range(n))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for a, c in edges:
        parent[root(a)] = root(c)
    groups: dict[int, list[int]] = {}
    for i in range(n):
        groups.setdefault(root(i), []).append(i)
    return [g for g in groups.values() if len(g) > 1]


def _best_kept(group: list[int], edges: set[tuple[int, int]],
               worth: dict[int, tuple[int, float, float]]) -> set[int]:
    """The largest subset of ``group`` with no edge inside; on a tie the boxes agreeing
    most with their neighbours, then the surest, then the largest."""
    for size in range(len(group), 0, -1):
        fitting = [set(c) for c in combinations(group, size)
                   if not any((a, c2) in edges for a in c for c2 in c if a < c2)]
        if fitting:
            return max(fitting, key=lambda s: (*(sum(worth[i][k] for i in s) for k in range(3)),
                                               -min(s)))
    return set(group)


def drop_joint_boxes(boxes: list[PlacedTile], confidence: list[float], w: float
                     ) -> list[PlacedTile]:
    """``boxes`` without those across a joint of two others and without a tile's second
    box (``confidence[i]`` is how sure the reader was of ``boxes[i]``)."""
    edges = overlap_edges(boxes, w)
    if not edges:
        return boxes
    dropped: set[int] = set()
    for group in _groups(len(boxes), edges):
        if len(group) <= MAX_GROUP:
            worth = {i: (_agreement(boxes, i, set(group)), confidence[i],
                         boxes[i].length * boxes[i].width) for i in group}
            dropped.update(set(group) - _best_kept(group, edges, worth))
    return [t for i, t in enumerate(boxes) if i not in dropped]
