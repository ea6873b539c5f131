"""The orders in which several trains' new tiles could have been laid.

When a camera sees tiles appear on several trains at once, each train's new
tiles were laid in their order along it, but the trains' turns may have
interleaved. The observer judges these orders and keeps the one with the
fewest breaches.

>>> [[pair for _, _, pair in order] for order in laying_orders(
...     [(0, False, [(1, 2), (2, 3)]), ("mexican", False, [(5, 6)])])]
[[(1, 2), (2, 3), (5, 6)], [(1, 2), (5, 6), (2, 3)], [(5, 6), (1, 2), (2, 3)]]
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import islice, permutations

from engine.table import Owner, Pair

#: Above this many new tiles in one observation, their interleavings are not all tried.
MAX_INTERLEAVED_TILES = 7
#: Beyond it, at most this many orders of whole trains' new tiles are tried.
MAX_BLOCK_ORDERS = 24

#: One tile laid: the train's owner, whether it is a chicken foot's side tile, the tile.
Item = tuple[Owner, bool, Pair]
#: One train's (or foot's) new tiles, in their order along it.
NewTiles = tuple[Owner, bool, list[Pair]]


def laying_orders(sequences: Sequence[NewTiles]) -> Iterator[list[Item]]:
    """Every interleaving of the sequences (each kept in its own order); with more than
    :data:`MAX_INTERLEAVED_TILES` tiles, whole sequences in at most
    :data:`MAX_BLOCK_ORDERS` orders."""
    total = sum(len(seq) for _, _, seq in sequences)
    if total == 0:
        return
    if total > MAX_INTERLEAVED_TILES:
        for blocks in islice(permutations(sequences), MAX_BLOCK_ORDERS):
            yield [(owner, foot, pair) for owner, foot, seq in blocks for pair in seq]
        return
    yield from _interleavings(sequences, [0] * len(sequences), [], total)


def _interleavings(sequences: Sequence[NewTiles], pos: list[int], acc: list[Item],
                   total: int) -> Iterator[list[Item]]:
    if len(acc) == total:
        yield list(acc)
        return
    for s, (owner, foot, seq) in enumerate(sequences):
        if pos[s] < len(seq):
            acc.append((owner, foot, seq[pos[s]]))
            pos[s] += 1
            yield from _interleavings(sequences, pos, acc, total)
            pos[s] -= 1
            acc.pop()
