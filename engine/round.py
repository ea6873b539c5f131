"""One round: the deal, hands, boneyard, turns, doubles, going out, a blocked round, scores.

The state is cheap data so that self-play is fast: a tile is an int id
(``a * (n + 1) + b``), a hand is a set of ids plus a per-value index, a train
is a list of ids with its open end cached, and the turn bookkeeping is a
handful of ints and tuples. ``push``/``pop`` keep an undo stack of small
tuples; queries (:meth:`Round.legal_moves`, :meth:`Round.is_legal`) never
mutate.

Trains are indexed ``0 … players-1`` (personal) and ``players`` (the Mexican
train). Chance (the shuffle, boneyard draws) is split from the players'
choices as in OpenSpiel: :meth:`Round.deal` is the chance step; a draw takes
the next tile of the (already shuffled) boneyard.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from functools import cache
from typing import Any

from engine.deal import deal_ids
from engine.legality import Allowed, allowed
from engine.moves import DRAW, PASS, PLAY, STOP, Move
from engine.rules import CHICKEN_FOOT_ANSWERS, RuleSet
from engine.scoring import hand_points
from engine.table import MEXICAN, Owner, TableState, Train
from engine.tiles import Tile

Play = tuple[int, int]  # (tile id, train index)


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


class Round:
    """The full state of one round (placement plus bookkeeping).

    Build one with :meth:`deal` (random) or :meth:`scripted` (hands and
    boneyard chosen), or from CONTRACTS.md's STATE with :meth:`from_json`.
    """

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

    # ------------------------------------------------------------------ construction

    @classmethod
    def deal(
        cls,
        rules: RuleSet,
        players: int,
        engine: int | None = None,
        first: int = 0,
        rng: random.Random | None = None,
    ) -> Round:
        """Shuffle and deal (the chance step), place the engine, pick the starter."""
        rng = rng or random.Random()
        engine, hands, boneyard, start = deal_ids(rules, players, engine, first, rng)
        rnd = cls._from_ids(rules, players, engine, hands, boneyard)
        rnd.turn = start
        return rnd

    @classmethod
    def _from_ids(
        cls,
        rules: RuleSet,
        players: int,
        engine: int,
        hands: Sequence[Sequence[int]],
        boneyard: list[int],
    ) -> Round:
        rnd = cls(rules, players, engine)
        lo, hi = rnd._lo, rnd._hi
        for p, hand in enumerate(hands):
            hv = rnd._hv[p]
            rnd.hands[p] = set(hand)
            for t in hand:
                hv[lo[t]].add(t)
                hv[hi[t]].add(t)
        rnd.boneyard = boneyard
        return rnd

    @classmethod
    def scripted(
        cls,
        rules: RuleSet,
        hands: Sequence[Sequence[Tile | str]],
        engine: int,
        boneyard: Sequence[Tile | str] = (),
        turn: int = 0,
    ) -> Round:
        """A round with chosen hands and boneyard (drawn in the order given)."""
        size = rules.set + 1

        def tid(t: Tile | str) -> int:
            tile = Tile.parse(t) if isinstance(t, str) else t
            return tile.a * size + tile.b

        ids = [[tid(t) for t in hand] for hand in hands]
        pile = [tid(t) for t in boneyard]
        pile.reverse()
        rnd = cls._from_ids(rules, len(hands), engine, ids, pile)
        rnd.turn = turn
        return rnd

    # ------------------------------------------------------------------ small helpers

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

    # ------------------------------------------------------------------ legal moves

    def _live(self, i: int) -> bool:
        return self._count[self.value(i)] < self.size

    def _allowed(
        self, p: int, fresh: tuple[int, ...], after_double: bool, chaining: bool
    ) -> Allowed[int]:
        """Where player ``p`` may lay a non-double and a double right now (engine.legality)."""
        markers, opens = self.markers, self._opens
        trains_open = [i for i in range(self.players) if i == p or markers[i] == opens]
        trains_open.append(self.players)
        return allowed(
            self.rules, p, trains_open, self.open, fresh, self._live,
            after_double=after_double, chaining=chaining, first_turn=not self.started[p],
        )

    def _plays(self, p: int) -> list[Play]:
        """Every (tile id, train index) player ``p`` may lay now (drawn-tile rule applied)."""
        if (
            self.open
            or self.after_double
            or self.chaining
            or self._chicken
            or (self._own_only and not self.started[p])
        ):
            return self._plays_general(p)
        # The common case: no open double, start of a turn. Every tile carrying the
        # end value of an open train fits there (a double too: no limit is reached yet).
        ends = self.ends
        markers = self.markers
        opens = self._opens
        out: list[Play] = []
        if self.drawn:
            # Only the tile just drawn can have become playable.
            t = self._drawn_tile
            if t < 0:
                return self._plays_general(p)
            lo, hi = self._lo[t], self._hi[t]
            for i in range(self.players + 1):
                if (i == p or i == self.players or markers[i] == opens) and (  # noqa: SIM109
                    ends[i] == lo or ends[i] == hi
                ):
                    out.append((t, i))
            return out
        hv = self._hv[p]
        append = out.append
        mexican = self.players
        for i in range(mexican + 1):
            if i == p or i == mexican or markers[i] == opens:  # noqa: SIM109 (hot path)
                fits = hv[ends[i]]
                if fits:
                    for t in fits:
                        append((t, i))
        return out

    def _plays_general(self, p: int) -> list[Play]:
        where = self._allowed(p, self.fresh, self.after_double, self.chaining)
        singles, doubles = where.singles, where.doubles
        hv = self._hv[p]
        dbl = self._dbl
        out: list[Play] = []
        for i in singles:
            for t in hv[self.value(i)]:
                if not dbl[t]:
                    out.append((t, i))
        if doubles:
            hand = self.hands[p]
            size1 = self.size + 1
            for i in doubles:
                d = self.value(i) * size1
                if d in hand:
                    out.append((d, i))
        if self.drawn and self._drawn_tile >= 0 and self.rules.must_play_drawn:
            # A drawn tile that fits must be played at once [000][004].
            out = [m for m in out if m[0] == self._drawn_tile] or out
        return out

    @property
    def may_stop(self) -> bool:
        """True when a first-turn chain ([001]) may end here without a pass."""
        return self.chaining and not self.after_double

    def _can_draw(self) -> bool:
        if not self.boneyard or self.may_stop:
            return False
        if not self.drawn:
            return True
        # [002][004]: on the first turn, draw until one's own train can be started.
        return self._own_only and not self.started[self.turn] and not self.after_double

    def _may_pass_with_plays(self) -> bool:
        # [001]: a drawn tile that fits may be kept.
        return self.drawn and not self.rules.must_play_drawn and not self.may_stop

    def _move(self, play: Play) -> Move:
        return Move(PLAY, self.tile(play[0]), self.owner(play[1]))

    def generate_legal_moves(self) -> Iterator[Move]:
        if self.over:
            return
        plays = self._plays(self.turn)
        for play in plays:
            yield self._move(play)
        if plays:
            if self._may_pass_with_plays():
                yield Move(PASS)
        elif self._can_draw():
            yield Move(DRAW)
        elif not self.may_stop:
            yield Move(PASS)
        if self.may_stop:
            yield Move(STOP)

    @property
    def legal_moves(self) -> LegalMoves:
        """A lazy view of the legal moves: iterate, ``in``, ``bool()``, ``count()``."""
        return LegalMoves(self)

    def is_legal(self, move: Move) -> bool:
        """Is ``move`` legal for the player to move? Never mutates the round."""
        # Nothing is legal once the round is over.
        if self.over:
            return False
        if move.kind == PLAY:
            if move.tile is None or move.train is None:
                return False
            p = self.turn
            t = self.tile_id(move.tile)
            # The tile must be in the mover's hand.
            if not 0 <= move.tile.a <= move.tile.b <= self.n or t not in self.hands[p]:
                return False
            try:
                i = self.index(move.train)
            except ValueError:
                return False
            # The tile must carry the value of the train's open end (or of its double).
            if not move.tile.has(self.value(i)):
                return False
            # The train must be open to the mover, the doubles rules and the first
            # turn rules must allow it, and a drawn tile must be the one played.
            return (t, i) in self._plays(p)
        plays = self._plays(self.turn)
        if move.kind == DRAW:
            # Draw only when nothing can be played and the boneyard has tiles.
            return not plays and self._can_draw()
        if move.kind == PASS:
            # Pass when nothing can be played and nothing can be drawn ([001]: or
            # when keeping a drawn tile).
            if self.may_stop:
                return False
            if plays:
                return self._may_pass_with_plays()
            return not self._can_draw()
        if move.kind == STOP:
            # Only a first-turn chain may stop without passing.
            return self.may_stop
        return False

    # ------------------------------------------------------------------ making moves

    def push(self, move: Move) -> None:
        """Make a legal move (raises ValueError for an illegal one); undo with :meth:`pop`."""
        if not self.is_legal(move):
            raise ValueError(f"illegal move {move} for seat {self.turn}")
        snapshot = self._snapshot()
        if move.kind == PLAY:
            assert move.tile is not None and move.train is not None
            undo: tuple[Any, ...] = self._play(self.tile_id(move.tile), self.index(move.train))
        elif move.kind == DRAW:
            undo = (DRAW, self._draw())
        elif move.kind == PASS:
            self._pass()
            undo = (PASS,)
        else:
            self._end_turn()
            undo = (STOP,)
        self._stack.append((snapshot, undo))
        self.move_stack.append(move)

    def pop(self) -> Move:
        """Undo the last pushed move and return it."""
        snapshot, undo = self._stack.pop()
        move = self.move_stack.pop()
        kind = undo[0]
        if kind == PLAY:
            _, t, i, p, prev_end, foot = undo
            lo, hi = self._lo[t], self._hi[t]
            if foot:
                self.feet[i].pop()
            else:
                self.lines[i].pop()
                self.ends[i] = prev_end
            self.hands[p].add(t)
            self._hv[p][lo].add(t)
            self._hv[p][hi].add(t)
            self._count[lo] -= 1
            if hi != lo:
                self._count[hi] -= 1
        elif kind == DRAW:
            t = undo[1]
            p = snapshot[0]
            self.hands[p].discard(t)
            self._hv[p][self._lo[t]].discard(t)
            self._hv[p][self._hi[t]].discard(t)
            self.boneyard.append(t)
        self._restore(snapshot)
        return move

    def _snapshot(self) -> tuple[Any, ...]:
        return (
            self.turn,
            self.drawn,
            self._drawn_tile,
            self.fresh,
            self.after_double,
            self.chaining,
            self.started,
            self.over,
            self.winner,
            self.blocked,
            self.turns,
            self.open,
            tuple(self.markers),
            dict(self._cf) if self._cf else None,
        )

    def _restore(self, s: tuple[Any, ...]) -> None:
        (
            self.turn,
            self.drawn,
            self._drawn_tile,
            self.fresh,
            self.after_double,
            self.chaining,
            self.started,
            self.over,
            self.winner,
            self.blocked,
            self.turns,
            self.open,
            markers,
            cf,
        ) = s
        self.markers = list(markers)
        self._cf = cf or {}

    def _play(self, t: int, i: int) -> tuple[Any, ...]:
        """Lay tile ``t`` on train ``i`` for the player to move (no legality check)."""
        p = self.turn
        lo, hi = self._lo[t], self._hi[t]
        hand = self.hands[p]
        hand.discard(t)
        hv = self._hv[p]
        hv[lo].discard(t)
        hv[hi].discard(t)
        count = self._count
        count[lo] += 1
        if hi != lo:
            count[hi] += 1
        prev_end = self.ends[i]
        foot = False
        if self._chicken and i in self._cf:
            cf = self._cf[i]
            value, left = cf
            if left == CHICKEN_FOOT_ANSWERS:
                self.lines[i].append(t)
                self.ends[i] = hi if lo == value else lo
            else:
                self.feet[i].append((t, value))
                foot = True
            if left > 1:
                self._cf[i] = (value, left - 1)
            else:
                del self._cf[i]
                self.open = tuple(j for j in self.open if j != i)
        else:
            self.lines[i].append(t)
            self.ends[i] = hi if lo == prev_end else lo
            if self.open and i in self.open:
                self.open = tuple(j for j in self.open if j != i)
        if i == p:
            # One's own marker comes off (open convention) or goes back (private) on a play.
            self.markers[p] = not self._opens
        if lo == hi:
            self.open = self.open + (i,)
            if self._chicken:
                self._cf[i] = (lo, CHICKEN_FOOT_ANSWERS)
            self.fresh = self.fresh + (i,)
            self.after_double = True
            self.drawn = False
            self._drawn_tile = -1
            if not hand and self.rules.go_out_on_double:
                self._finish(p)  # going out on a double ends the round at once
        elif not hand:
            self._finish(p)
        elif self._chain and i == p and not self.started[p] and not self._older_double_blocks():
            self.chaining = True  # [001]: the first-turn chain may go on
            self.after_double = False
            self.drawn = False
            self._drawn_tile = -1
        else:
            # The end of the turn (as _end_turn, inlined: this is the hot path).
            if not self.started[p]:
                self.started = self.started[:p] + (True,) + self.started[p + 1 :]
            self.turns += 1
            self.turn = p + 1 if p + 1 < self.players else 0
            if self.drawn:
                self.drawn = False
                self._drawn_tile = -1
            if self.fresh:
                self.fresh = ()
                self.after_double = False
            if self.chaining:
                self.chaining = False
        return (PLAY, t, i, p, prev_end, foot)

    def _older_double_blocks(self) -> bool:
        """True when an open double from an earlier turn constrains the player to move."""
        return any(i not in self.fresh and not self.is_dead(i) for i in self.open)

    def _draw(self) -> int:
        t = self.boneyard.pop()
        p = self.turn
        self.hands[p].add(t)
        hv = self._hv[p]
        hv[self._lo[t]].add(t)
        hv[self._hi[t]].add(t)
        self.drawn = True
        self._drawn_tile = t
        return t

    def _pass(self) -> None:
        p = self.turn
        self.markers[p] = self._opens  # the train becomes open to all
        self._end_turn()
        if not self.over and not self.boneyard and not self._anyone_can_play():
            self.over = True
            self.blocked = True

    def _end_turn(self) -> None:
        p = self.turn
        if not self.started[p]:
            self.started = self.started[:p] + (True,) + self.started[p + 1 :]
        self.turns += 1
        if not self.hands[p]:
            self._finish(p)
            return
        self.turn = p + 1 if p + 1 < self.players else 0
        self.drawn = False
        self._drawn_tile = -1
        self.fresh = ()
        self.after_double = False
        self.chaining = False

    def _finish(self, p: int) -> None:
        self.over = True
        self.winner = p

    def _anyone_can_play(self) -> bool:
        for q in range(self.players):
            where = self._allowed(q, (), False, False)
            singles, doubles = where.singles, where.doubles
            hv = self._hv[q]
            for i in singles:
                if any(not self._dbl[t] for t in hv[self.value(i)]):
                    return True
            for i in doubles:
                if self.value(i) * (self.size + 1) in self.hands[q]:
                    return True
        return False

    def penalize_unannounced(self, seat: int) -> list[Tile]:
        """[003]: ``seat`` was caught not announcing their last tile; they draw the penalty.

        Returns the tiles drawn (none when the rule does not apply or the boneyard is empty).
        """
        if len(self.hands[seat]) != 1 or not self.rules.announce_last_tile:
            return []
        drawn = []
        for _ in range(min(self.rules.last_tile_penalty, len(self.boneyard))):
            t = self.boneyard.pop()
            self.hands[seat].add(t)
            self._hv[seat][self._lo[t]].add(t)
            self._hv[seat][self._hi[t]].add(t)
            drawn.append(self.tile(t))
        return drawn

    # ------------------------------------------------------------------ fast self-play

    def play_out(self, bots: Sequence[Any], limit: int = 100_000) -> Round:
        """Play to the end with one bot per seat, without the undo stack (self-play).

        A bot is asked only when it has a choice; with a single legal tile (and no
        option to keep a drawn tile) that tile is played.
        """
        may_keep = not self.rules.must_play_drawn
        plays_of = self._plays
        play = self._play
        for _ in range(limit):
            if self.over:
                break
            p = self.turn
            plays = plays_of(p)
            if plays:
                optional = (self.chaining and not self.after_double) or (may_keep and self.drawn)
                if len(plays) == 1 and not optional:
                    play(*plays[0])
                    continue
                choice = bots[p].choose_play(self, plays)
                if choice is not None:
                    play(*choice)
                elif not optional:
                    play(*plays[0])
                elif self.may_stop:
                    self._end_turn()
                else:
                    self._pass()
            elif self.boneyard and not self.drawn and not self.chaining:
                self._draw()  # the common case of _can_draw, inlined
            elif self._can_draw():
                self._draw()
            elif self.may_stop:
                self._end_turn()
            else:
                self._pass()
        return self

    # ------------------------------------------------------------------ results

    def scores(self) -> list[int]:
        """Each seat's points for the round (penalties, or positive scoring)."""
        points = [hand_points(self.hand(p), self.rules) for p in range(self.players)]
        if self.winner is not None:
            points[self.winner] = 0
        elif self.blocked and self.rules.blocked_low_wins:
            low = min(points)
            points = [0 if x == low else x for x in points]
        if self.rules.positive_scoring:
            if self.winner is not None:
                total = sum(points)
                return [total if p == self.winner else 0 for p in range(self.players)]
            return [0] * self.players
        return points

    def tiles_in_play(self) -> int:
        """Every tile the round holds (hands, boneyard, table incl. the engine)."""
        on_table = sum(len(line) for line in self.lines) + sum(len(f) for f in self.feet)
        return sum(len(h) for h in self.hands) + len(self.boneyard) + on_table + 1

    # ------------------------------------------------------------------ views

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

    def move_json(self, move: Move) -> dict[str, Any]:
        """CONTRACTS.md's move object; a play is oriented as it will lie."""
        if move.kind == PLAY:
            assert move.tile is not None and move.train is not None
            near = self.value(self.index(move.train))
            far = move.tile.other(near)
            return {"play": [near, far], "train": move.train}
        return {move.kind: True}

    def to_json(self) -> dict[str, Any]:
        """CONTRACTS.md's STATE (with the optional fields always written)."""
        from engine.state_json import round_to_json

        return round_to_json(self)

    @classmethod
    def from_json(cls, obj: Any, source: str = "state") -> Round:
        """Parse and check a STATE; an impossible state raises :class:`BadInputError`."""
        from engine.state_json import round_from_json

        return round_from_json(obj, source)

    def __repr__(self) -> str:
        return f"<Round seat {self.turn} to move: {self.table().text()}>"


class LegalMoves:
    """A lazy view of a round's legal moves (python-chess style)."""

    def __init__(self, rnd: Round) -> None:
        self.round = rnd

    def __iter__(self) -> Iterator[Move]:
        return self.round.generate_legal_moves()

    def __contains__(self, move: object) -> bool:
        return isinstance(move, Move) and self.round.is_legal(move)

    def __bool__(self) -> bool:
        return any(True for _ in self)

    def count(self) -> int:
        return sum(1 for _ in self)

    def __len__(self) -> int:
        return self.count()

    def __repr__(self) -> str:
        return f"<LegalMoves ({', '.join(m.text() for m in self)})>"
