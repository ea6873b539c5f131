"""Legal moves: where the player to move may play, draw, pass or stop.

:class:`MoveGeneration` is the part of :class:`~engine.round.Round` that
answers "what may the player to move do now?" without changing anything:
the plays come from :func:`engine.legality.allowed` (with a fast path for the
common case, no open double at the start of a turn), then the draw, pass and
stop rules. :class:`LegalMoves` is the lazy view python-chess offers.
"""

from __future__ import annotations

from collections.abc import Iterator

from engine.legality import Allowed, allowed
from engine.moves import DRAW, PASS, PLAY, STOP, Move
from engine.round_state import RoundState

Play = tuple[int, int]  # (tile id, train index)


class MoveGeneration(RoundState):
    """A round's queries about its legal moves (:class:`~engine.round.Round` builds on it)."""

    __slots__ = ()

    def _live(self, i: int) -> bool:
        """True when the open double on train ``i`` can still be satisfied (see is_dead)."""
        cf = self._cf.get(i) if self._chicken else None
        return self._count[cf[0] if cf else self.ends[i]] < self.size

    def _trains_open(self, p: int) -> list[int]:
        """The trains open to player ``p`` as far as markers go (own and Mexican included)."""
        markers, opens = self.markers, self._opens
        trains = [i for i in range(self.players) if i == p or markers[i] == opens]
        trains.append(self.players)
        return trains

    def _allowed(
        self, p: int, fresh: tuple[int, ...], after_double: bool, chaining: bool
    ) -> Allowed[int]:
        """Where player ``p`` may lay a non-double and a double right now (engine.legality)."""
        return allowed(
            self.rules, p, self._trains_open, self.open, fresh, self._live,
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
        # end value of an open train fits there (a double too: no limit is reached yet),
        # as allowed() says (tests/engine/test_engine_legality.py checks they agree).
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


class LegalMoves:
    """A lazy view of a round's legal moves (python-chess style)."""

    def __init__(self, rnd: MoveGeneration) -> None:
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
