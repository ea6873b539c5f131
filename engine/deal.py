"""The chance step of a round: shuffle, deal the hands, place the engine, pick the starter.

Tiles are int ids (``a * (n + 1) + b`` for ``a <= b``), as in :mod:`engine.round`.
"""

from __future__ import annotations

import random
from functools import cache

from engine.errors import BadInputError
from engine.rules import RuleSet


@cache
def all_ids(n: int) -> tuple[int, ...]:
    """Every tile id of the double-``n`` set."""
    size = n + 1
    return tuple(a * size + b for a in range(size) for b in range(a, size))


def deal_ids(
    rules: RuleSet, players: int, engine: int | None, first: int, rng: random.Random
) -> tuple[int, list[list[int]], list[int], int]:
    """Shuffle and deal: ``(engine value, hands, boneyard, starting seat)``.

    The boneyard's next draw is its last item.
    """
    n = rules.set
    size = n + 1
    if engine is None:
        engine = n
    ids = list(all_ids(n))
    engine_id = engine * size + engine
    set_aside = rules.engine_from == "set-aside"
    if set_aside:
        ids.remove(engine_id)
    # A uniform shuffle (sorting by random keys is faster than rng.shuffle here).
    ids.sort(key=lambda _: rng.random())
    per_hand = rules.tiles_per_hand(players)
    if per_hand * players > len(ids):
        raise BadInputError("rules", f"{players} hands of {per_hand} need more tiles")
    hands = [ids[i * per_hand : (i + 1) * per_hand] for i in range(players)]
    boneyard = ids[players * per_hand :]
    boneyard.reverse()  # draw from the end of the list
    start = first % players
    if not set_aside:
        engine, start = _place_engine(rules, hands, boneyard, engine, start, size)
    elif rules.starter == "highest-draw":
        start = _highest_draw(players, ids, rng, size)
    return engine, hands, boneyard, start


def _place_engine(
    rules: RuleSet,
    hands: list[list[int]],
    boneyard: list[int],
    engine: int,
    start: int,
    size: int,
) -> tuple[int, int]:
    """[002][003][004]: the holder of the engine (or of the highest double) places it.

    Returns ``(engine value, starting seat)``; the tile leaves the holder's hand.
    If nobody holds it, players draw in turn clockwise from ``start`` until one does.
    """
    players = len(hands)

    def wanted(t: int) -> bool:
        if rules.engine_from == "highest-double":
            return t // size == t % size
        return t == engine * size + engine

    def best(hand: list[int]) -> int:
        found = [t for t in hand if wanted(t)]
        return max(found) if found else -1

    holders = [(best(h), p) for p, h in enumerate(hands)]
    top, seat = max(holders)
    p = start
    while top < 0 and boneyard:
        t = boneyard.pop()
        hands[p].append(t)
        if wanted(t):
            top, seat = t, p
            break
        p = (p + 1) % players
    if top < 0:  # no tile anywhere: cannot happen with a full set
        raise BadInputError("rules", "nobody can place the engine")
    hands[seat].remove(top)
    return top // size, seat


def _highest_draw(players: int, ids: list[int], rng: random.Random, size: int) -> int:
    """[001]: each player draws a tile; the highest pip total starts (ties draw again)."""
    seats = list(range(players))
    while True:
        drawn = rng.sample(ids, len(seats))
        totals = [t // size + t % size for t in drawn]
        top = max(totals)
        seats = [s for s, v in zip(seats, totals, strict=False) if v == top]
        if len(seats) == 1:
            return seats[0]


