"""Bots that play a round, and :func:`hint`, which ranks the legal moves of a state.

A bot answers :meth:`Bot.choose_play` with one of the offered plays
``(tile id, train index)`` (or ``None`` to keep a drawn tile / stop a chain
where the rules allow); :meth:`Bot.choose` wraps it for the :class:`Move` API.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from engine.moves import DRAW, PASS, PLAY, STOP, Move
from engine.round import Play, Round


class Bot:
    """Base class: plays the first offered tile."""

    name = "first"

    def choose_play(self, rnd: Round, plays: Sequence[Play]) -> Play | None:
        return plays[0]

    def choose(self, rnd: Round) -> Move:
        """A legal :class:`Move` for the player to move (the round must not be over)."""
        plays = rnd._plays(rnd.turn)
        if plays:
            choice = self.choose_play(rnd, plays)
            if choice is not None:
                return rnd._move(choice)
        moves = list(rnd.legal_moves)
        for kind in (STOP, DRAW, PASS, PLAY):
            for move in moves:
                if move.kind == kind:
                    return move
        raise ValueError("no legal move: the round is over")


class RandomBot(Bot):
    """Plays a uniformly random legal tile."""

    name = "random"

    def __init__(self, rng: random.Random | None = None) -> None:
        self.rng = rng or random.Random()

    def choose_play(self, rnd: Round, plays: Sequence[Play]) -> Play | None:
        return plays[self.rng.randrange(len(plays))] if len(plays) > 1 else plays[0]


class GreedyBot(Bot):
    """Plays the heaviest tile it may (own train first on a tie)."""

    name = "greedy"

    def choose_play(self, rnd: Round, plays: Sequence[Play]) -> Play | None:
        if len(plays) == 1:
            return plays[0]
        pips = rnd._pips
        own = rnd.turn
        best = plays[0]
        best_key = pips[best[0]] * 2 + (best[1] == own)
        for play in plays:
            key = pips[play[0]] * 2 + (play[1] == own)
            if key > best_key:
                best, best_key = play, key
        return best


def longest_chain(tiles: Sequence[int], start: int, size: int, budget: int = 4000) -> list[int]:
    """The longest chain of tile ids from value ``start`` (a depth-first search, bounded)."""
    by_value: dict[int, list[int]] = {}
    for t in tiles:
        a, b = divmod(t, size)
        by_value.setdefault(a, []).append(t)
        if b != a:
            by_value.setdefault(b, []).append(t)
    best: list[int] = []
    path: list[int] = []
    used: set[int] = set()
    steps = 0

    def walk(value: int) -> None:
        nonlocal best, steps
        steps += 1
        if len(path) > len(best):
            best = list(path)
        if steps > budget:
            return
        for t in by_value.get(value, ()):
            if t in used:
                continue
            a, b = divmod(t, size)
            used.add(t)
            path.append(t)
            walk(b if a == value else a)
            path.pop()
            used.discard(t)

    walk(start)
    return best


class LongestTrainBot(Bot):
    """Plans the longest chain its hand can build on its own train, sheds the rest elsewhere."""

    name = "longest"

    def choose_play(self, rnd: Round, plays: Sequence[Play]) -> Play | None:
        if len(plays) == 1:
            return plays[0]
        p = rnd.turn
        chain = longest_chain(sorted(rnd.hands[p]), rnd.value(p), rnd.size)
        keep = set(chain)
        pips = rnd._pips
        spare = [play for play in plays if play[1] != p and play[0] not in keep]
        if spare:
            return max(spare, key=lambda play: pips[play[0]])
        if chain:
            for play in plays:
                if play == (chain[0], p):
                    return play
        return max(plays, key=lambda play: pips[play[0]])


BOTS: dict[str, type[Bot]] = {
    "random": RandomBot,
    "greedy": GreedyBot,
    "longest": LongestTrainBot,
}


def make_bot(name: str, rng: random.Random | None = None) -> Bot:
    """A bot by name (``random``, ``greedy``, ``longest``); raises KeyError if unknown."""
    cls = BOTS[name]
    if cls is RandomBot:
        return RandomBot(rng)
    return cls()


def hint(rnd: Round) -> list[tuple[Move, float]]:
    """The legal moves of the player to move, best first, each with a score.

    A play scores its pips, plus a bonus for a double the hand can follow, for
    the next tile of the longest chain on one's own train, and for shedding a
    tile the chain does not need onto another train.
    """
    p = rnd.turn
    hand = sorted(rnd.hands[p])
    chain = longest_chain(hand, rnd.value(p), rnd.size)
    keep = set(chain)
    ranked: list[tuple[Move, float]] = []
    for move in rnd.legal_moves:
        score: float
        if move.kind == PLAY:
            assert move.tile is not None
            t = rnd.tile_id(move.tile)
            i = rnd.index(move.train) if move.train is not None else p
            score = float(move.tile.pips)
            if move.tile.is_double:
                follow = [u for u in hand if u != t and move.tile.has(u // rnd.size)
                          or u != t and move.tile.has(u % rnd.size)]
                score += 10 if follow else -5
            if i == p and chain and t == chain[0]:
                score += 5
            elif i != p and t not in keep:
                score += 3
        elif move.kind == DRAW:
            score = 0.0
        elif move.kind == STOP:
            score = 0.5
        else:
            score = -1.0
        ranked.append((move, score))
    ranked.sort(key=lambda item: (-item[1], item[0].sort_key()))
    return ranked
