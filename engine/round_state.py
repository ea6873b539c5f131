"""What a round holds: hands, boneyard, trains, markers and the turn's bookkeeping.

The state is cheap data so that self-play is fast: a tile is an int id
(``a * (n + 1) + b``), a hand is a set of ids plus a per-value index, a train
is a list of ids with its open end cached, and the turn bookkeeping is a
handful of ints and tuples. Trains are indexed ``0 … players-1`` (personal)
and ``players`` (the Mexican train).

:class:`RoundState` holds the fields and answers small questions about them;
:class:`engine.legal_moves.MoveGeneration` adds the legal moves and
:class:`engine.round.Round` the moves themselves.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from engine.moves import Move
from engine.rules import RuleSet
from engine.table import MEXICAN, Owner, TableState, Train
from engine.tiles import Tile


@cache
def _tables(n: int) -> tuple[list[int], list[int], list[int], list[bool], list[Tile | None]]:
    """Per tile id: low value, high value, pips, is-double, the Tile (None for unused ids)."""
    size = n + 1
    lo, hi, pips, dbl = [0] * size * size, [0] * size * size, [0] * size * size, [False] * size**2
    tiles: list[Tile | None] = [None for _ in range(size * size)]
    for a in range(size):
        for b in range(a, size):
            t = a * size + b
            lo[t], hi[t], pips[t], dbl[t] = a, b, a + b, a == b
            tiles[t] = Tile(a, b)
    return lo, hi, pips, dbl, tiles


class RoundState:
    """The fields of one round (placement plus bookkeeping) and small queries on them."""

    __slots__ = (
        "rules", "players", "engine", "n", "size",
        "_lo", "_hi", "_pips", "_dbl", "_tile",
        "_opens", "_chicken", "_must_own", "_chain", "_own_only",
        "hands", "_hv", "boneyard", "lines", "feet", "ends", "markers", "_count",
        "open", "_cf", "turn", "drawn", "_drawn_tile", "fresh", "after_double", "chaining",
        "started", "over", "winner", "blocked", "turns", "_stack", "move_stack",
    )

    def __init__(self, rules: RuleSet, players: int, engine: int) -> None:
        if players < 1:
            raise ValueError("a round needs at least one player")
        n = rules.set
        self.rules = rules
        self.players = players
        self.engine = engine
        self.n = n
        self.size = n + 1
        lo, hi, pips, dbl, tiles = _tables(n)
        self._lo, self._hi, self._pips, self._dbl, self._tile = lo, hi, pips, dbl, tiles
        self._opens = rules.marker_opens
        self._chicken = rules.chicken_foot
        self._must_own = rules.must_satisfy_own_double or rules.chicken_foot
        self._chain = rules.first_turn == "chain"
        self._own_only = rules.first_turn == "own-train-only"
        trains = players + 1
        self.hands: list[set[int]] = [set() for _ in range(players)]
        self._hv: list[list[set[int]]] = [[set() for _ in range(n + 1)] for _ in range(players)]
        self.boneyard: list[int] = []  # the next draw is the last item
        self.lines: list[list[int]] = [[] for _ in range(trains)]
        # Chicken-foot side tiles: (tile id, the double's value they answer).
        self.feet: list[list[tuple[int, int]]] = [[] for _ in range(trains)]
        self.ends: list[int] = [engine] * trains
        # Markers present on each personal train (the Mexican train's is not tracked).
        self.markers: list[bool] = [not self._opens] * players + [False]
        self._count: list[int] = [0] * (n + 1)  # tiles on the table carrying each value
        if 0 <= engine <= n:
            self._count[engine] = 1
        # Bookkeeping (the snapshot of push/pop).
        self.open: tuple[int, ...] = ()  # trains ending in an open double, in laid order
        self._cf: dict[int, tuple[int, int]] = {}  # chicken foot: train -> (value, answers left)
        self.turn = 0
        self.drawn = False
        self._drawn_tile = -1
        self.fresh: tuple[int, ...] = ()  # trains the player to move laid doubles on this turn
        self.after_double = False
        self.chaining = False
        self.started: tuple[bool, ...] = (False,) * players
        self.over = False
        self.winner: int | None = None
        self.blocked = False
        self.turns = 0  # completed turns
        self._stack: list[tuple[Any, ...]] = []
        self.move_stack: list[Move] = []

    def tile(self, t: int) -> Tile:
        tile = self._tile[t]
        assert tile is not None
        return tile

    def tile_id(self, tile: Tile) -> int:
        return tile.a * self.size + tile.b

    def owner(self, i: int) -> Owner:
        """Train index -> owner (a seat or "mexican")."""
        return MEXICAN if i == self.players else i

    def index(self, owner: Owner) -> int:
        """Owner -> train index; raises ValueError for an unknown owner."""
        if owner == MEXICAN:
            return self.players
        if isinstance(owner, int) and 0 <= owner < self.players:
            return owner
        raise ValueError(f"no train {owner!r}")

    def hand(self, seat: int) -> list[Tile]:
        return sorted(self.tile(t) for t in self.hands[seat])

    def value(self, i: int) -> int:
        """The value a tile laid on train ``i`` must carry."""
        cf = self._cf.get(i) if self._chicken else None
        return cf[0] if cf else self.ends[i]

    def is_dead(self, i: int) -> bool:
        """True when the open double on train ``i`` can no longer be satisfied."""
        return self._count[self.value(i)] >= self.size

    def is_open(self, i: int) -> bool:
        """True when the player to move may play on train ``i`` as far as markers go."""
        return i == self.players or self.markers[i] == self._opens

    def table(self) -> TableState:
        """The public placement: engine, trains (oriented from the hub), markers."""
        trains = []
        for i in range(self.players + 1):
            line = self.lines[i]
            if i == self.players and not line:
                trains.append(Train(MEXICAN))
                continue
            tiles = []
            end = self.engine
            for t in line:
                lo, hi = self._lo[t], self._hi[t]
                far = hi if lo == end else lo
                tiles.append((end, far))
                end = far
            feet = []
            for t, value in self.feet[i]:
                lo, hi = self._lo[t], self._hi[t]
                feet.append((value, hi if lo == value else lo))
            marker = self.markers[i] if i < self.players else False
            trains.append(Train(self.owner(i), tuple(tiles), marker, tuple(feet)))
        return TableState(self.engine, tuple(trains))
