"""One round: the deal, turns, doubles, going out, a blocked round, scores.

:class:`Round` builds on :class:`engine.round_state.RoundState` (the fields,
cheap data so that self-play is fast) and
:class:`engine.legal_moves.MoveGeneration` (the legal moves) and makes the
moves: ``push``/``pop`` keep an undo stack of small tuples; queries
(:meth:`Round.legal_moves`, :meth:`Round.is_legal`) never mutate.

Trains are indexed ``0 … players-1`` (personal) and ``players`` (the Mexican
train). Chance (the shuffle, boneyard draws) is split from the players'
choices as in OpenSpiel: :meth:`Round.deal` is the chance step; a draw takes
the next tile of the (already shuffled) boneyard.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from engine.deal import deal_ids
from engine.legal_moves import MoveGeneration
from engine.legality import lay
from engine.moves import DRAW, PASS, PLAY, STOP, Move
from engine.rules import CHICKEN_FOOT_ANSWERS, RuleSet
from engine.scoring import hand_points
from engine.tiles import Tile

Play = tuple[int, int]  # (tile id, train index)


class Round(MoveGeneration):
    """The full state of one round (placement plus bookkeeping).

    Build one with :meth:`deal` (random) or :meth:`scripted` (hands and
    boneyard chosen), or from CONTRACTS.md's STATE with :meth:`from_json`.
    """

    __slots__ = ()

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
        cf = self._cf.get(i) if self._chicken else None
        near = cf[0] if cf else prev_end
        foot = cf is not None and cf[1] != CHICKEN_FOOT_ANSWERS  # the line tile is down
        first = not self.started[p]
        blocked = self._chain and first and i == p and self._older_double_blocks()
        end, chicken, satisfied, double, chains = lay(
            self.rules, near, hi if lo == near else lo, prev_end, cf, foot, i == p, first,
            blocked)
        if foot:
            self.feet[i].append((t, near))
        else:
            self.lines[i].append(t)
            self.ends[i] = end
        if chicken is not None:
            self._cf[i] = chicken
        elif cf is not None:
            del self._cf[i]
        if satisfied and self.open and i in self.open:
            self.open = tuple(j for j in self.open if j != i)
        if i == p:
            # One's own marker comes off (open convention) or goes back (private) on a play.
            self.markers[p] = not self._opens
        if double:
            self.open = self.open + (i,)
            self.fresh = self.fresh + (i,)
            self.after_double = True
            self.drawn = False
            self._drawn_tile = -1
            if not hand and self.rules.go_out_on_double:
                self._finish(p)  # going out on a double ends the round at once
        elif not hand:
            self._finish(p)
        elif chains:
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

        return round_from_json(obj, source, cls)

    def __repr__(self) -> str:
        return f"<Round seat {self.turn} to move: {self.table().text()}>"
