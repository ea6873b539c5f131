"""The built-in ``sim`` source: a bot game played turn by turn into the live page.

It stands in for the camera when there is none (and for the demo recording
when ``datasets/demo/`` is missing): each round is an engine ``Round`` dealt
by the table's rule set and played by ``GreedyBot`` players, and after every
turn the table is judged by the round's :class:`engine.Referee`
exactly as the tracker's tables are. Now and then a breach is injected — a tile laid
where it does not match, taken back at the next turn — so that alerts show.
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from companion_app.events import AlertDetails, AlertRaised, RoundOver, SourceEvent, TableSettled

if TYPE_CHECKING:
    from engine import RuleSet, TableState

Pair = tuple[int, int]


@dataclass
class GameContext:
    """What a source needs from the current game: seats, the round's engine, the rules."""

    players: int
    engine: int
    rules: RuleSet


class SimRound:
    """One round of engine bots; :meth:`turns` yields what the camera would see per turn."""

    def __init__(self, ctx: GameContext, rng: random.Random, breach_rate: float) -> None:
        from engine import PASS, GreedyBot, Round

        self.pass_kind = PASS
        self.rules = ctx.rules
        self.players = ctx.players
        self.engine = ctx.engine
        self.rng = rng
        self.breach_rate = breach_rate
        self.round = Round.deal(
            self.rules, ctx.players, ctx.engine, first=0, rng=random.Random(rng.random())
        )
        self.bots = [GreedyBot() for _ in range(ctx.players)]

    def table(self, extra: tuple[Any, Pair] | None = None) -> dict[str, Any]:
        """The table as the camera sees it, with an ``extra`` (owner, tile) laid if given."""
        data: dict[str, Any] = self.round.table().to_json()
        if extra is not None:
            for train in data["trains"]:
                if train["owner"] == extra[0]:
                    train["tiles"].append(list(extra[1]))
        return data

    def breach(self, seat: int) -> tuple[Any, Pair] | None:
        """A tile not on the table that does not fit ``seat``'s own train."""
        from engine import TableState
        from faults import mismatched_tile

        table = TableState(self.engine, self.round.table().trains)
        tile = mismatched_tile(table, seat, self.rules.set, self.rng)
        return None if tile is None else (seat, tile)

    def play_turn(self) -> str | None:
        """Let the bot to move play its whole turn; ``"pass"`` when it passed."""
        rnd = self.round
        before = rnd.turns
        last = None
        while rnd.turns == before and not rnd.over:
            last = self.bots[rnd.turn].choose(rnd)
            rnd.push(last)
        return "pass" if last is not None and last.kind == self.pass_kind else None

    def turns(self) -> Iterator[tuple[dict[str, Any], int, str | None]]:
        """(observed table, seat to move next, event) once per turn, first the opening table."""
        rnd = self.round
        yield self.table(), rnd.turn, None
        while not rnd.over:
            seat = rnd.turn
            event = self.play_turn()
            extra = None
            if not rnd.over and rnd.turns >= 2 and self.rng.random() < self.breach_rate:
                extra = self.breach(seat)
            if rnd.over and rnd.winner is not None:
                event = "out"
            yield self.table(extra), rnd.turn, event


def sim_events(
    ctx: GameContext,
    *,
    seed: int | None = None,
    turn_seconds: float = 2.0,
    breach_rate: float = 0.15,
    rounds: int | None = None,
) -> Iterator[SourceEvent]:
    """Bot rounds turn by turn: a settled table per turn and the referee's alerts.

    Plays ``rounds`` rounds (forever when None), pausing ``turn_seconds`` between turns.
    """
    from engine import AlertCode, Referee, TableState

    rng = random.Random(seed)
    rules = ctx.rules
    played = 0
    while rounds is None or played < rounds:
        sim = SimRound(ctx, rng, breach_rate)
        referee = Referee(rules, ctx.players, 0, ctx.engine)
        for index, (table, turn, event) in enumerate(sim.turns()):
            state = TableState.from_json(table, "sim")
            ruling = referee.settle(state, event)
            yield TableSettled(state, turn, event, frame=index)
            for alert, details in ruling:
                yield AlertRaised(alert, details, frame=index)
            injected = _injected(state, index)
            if injected is not None and not any(a.code is AlertCode.MISMATCH
                                                for a in ruling.alerts):
                # The referee did not name the breach the sim laid: report it itself.
                yield injected
            if turn_seconds:
                time.sleep(turn_seconds)
        yield RoundOver("The round is over: hands face up for counting.")
        played += 1
        if turn_seconds:
            time.sleep(turn_seconds * 2)


def _injected(table: TableState, at: int) -> AlertRaised | None:
    """The breach in an observed table: a tile whose near end does not match."""
    from engine import Alert, AlertCode
    from faults import first_mismatch

    found = first_mismatch(table)
    if found is None:
        return None
    owner, (near, far), end = found
    seat = owner if isinstance(owner, int) else None
    alert = Alert(at, AlertCode.MISMATCH, seat, owner,
                  f"{near}-{far} does not match the {end} it was laid on")
    return AlertRaised(alert, AlertDetails((near, far), end), frame=at)
