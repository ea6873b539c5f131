"""The built-in ``sim`` source: a bot game played turn by turn into the live page.

It stands in for the camera when there is none (and for the demo recording
when ``datasets/demo/`` is missing): each round is an engine ``Round`` dealt
by the table's rule set and played by ``GreedyBot`` players, and after every
turn the table is *observed* by :class:`engine.Observer` exactly as the
tracker would report it. Now and then a breach is injected — a tile laid
where it does not match, taken back at the next turn — so that alerts show.
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from companion_app.events import AlertRaised, RoundOver, SourceEvent, TableSettled

Pair = tuple[int, int]


@dataclass
class GameContext:
    """What a source needs from the current game: seats, the round's engine, the rules."""

    players: int
    engine: int
    rules: dict[str, Any]


class SimRound:
    """One round of engine bots; :meth:`turns` yields what the camera would see per turn."""

    def __init__(self, ctx: GameContext, rng: random.Random, breach_rate: float) -> None:
        from engine import PASS, GreedyBot, Round, RuleSet

        self.pass_kind = PASS
        self.rules = RuleSet.from_json(ctx.rules)
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
        table = self.round.table()
        train = table.train(seat)
        end = self.engine if train is None else train.end(self.engine)
        laid = {t.pair for t in table.tiles()}
        candidates = [
            (a, b) for a in range(self.rules.set + 1) for b in range(a, self.rules.set + 1)
            if end not in (a, b) and (a, b) not in laid
        ]
        return (seat, self.rng.choice(candidates)) if candidates else None

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
    """Bot rounds turn by turn: a settled table per turn and the observer's alerts.

    Plays ``rounds`` rounds (forever when None), pausing ``turn_seconds`` between turns.
    """
    from engine import Observer, RuleSet, TableState

    rng = random.Random(seed)
    rules = RuleSet.from_json(ctx.rules)
    played = 0
    while rounds is None or played < rounds:
        sim = SimRound(ctx, rng, breach_rate)
        observer = Observer(rules, ctx.players, ctx.engine, 0)
        for table, turn, event in sim.turns():
            yield TableSettled(table, turn, event)
            alerts = observer.observe(TableState.from_json(table, "sim"), event)
            for alert in alerts:
                yield AlertRaised(alert.to_json())
            injected = _injected(table, ctx.engine)
            if injected is not None and not any(a.code == "mismatch" for a in alerts):
                # The observer did not name the breach the sim laid: report it itself.
                yield AlertRaised(injected | {"at": observer_index(observer)})
            if turn_seconds:
                time.sleep(turn_seconds)
        yield RoundOver("The round is over: hands face up for counting.")
        played += 1
        if turn_seconds:
            time.sleep(turn_seconds * 2)


def observer_index(observer: Any) -> int | None:
    index = getattr(observer, "index", None)
    return index if isinstance(index, int) else None


def _injected(table: dict[str, Any], engine: int) -> dict[str, Any] | None:
    """The breach in an observed table: a tile whose near end does not match."""
    for train in table["trains"]:
        end = engine
        for near, far in train["tiles"]:
            if near != end:
                owner = train["owner"]
                seat = owner if isinstance(owner, int) else None
                return {
                    "code": "mismatch",
                    "seat": seat,
                    "train": owner,
                    "message": f"{near}-{far} does not match the {end} it was laid on",
                }
            end = far
    return None
