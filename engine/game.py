"""A game: N+1 rounds for a double-N set, the engine counting down, totals, winners."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field

from engine.bots import Bot
from engine.round import Round
from engine.rules import RuleSet


@dataclass(frozen=True)
class RoundResult:
    engine: int
    scores: tuple[int, ...]
    winner: int | None
    blocked: bool
    turns: int


@dataclass
class Game:
    """A whole game under ``rules`` for ``players`` seats; :meth:`play` runs it with bots."""

    rules: RuleSet
    players: int
    first: int = 0
    results: list[RoundResult] = field(default_factory=list)

    @property
    def engines(self) -> list[int]:
        """The engine of each round: n, n-1, … 0."""
        return [self.engine_of(number) for number in range(1, self.rules.set + 2)]

    def engine_of(self, number: int) -> int:
        """Round ``number``'s engine (from 1): the countdown from the set's top double
        (0 for any round past the last)."""
        return max(self.rules.set - (number - 1), 0)

    @property
    def totals(self) -> list[int]:
        totals = [0] * self.players
        for result in self.results:
            for seat, points in enumerate(result.scores):
                totals[seat] += points
        return totals

    @property
    def winners(self) -> list[int]:
        """Seats with the best total (lowest; highest with positive scoring); ties share."""
        totals = self.totals
        best = max(totals) if self.rules.positive_scoring else min(totals)
        return [seat for seat, total in enumerate(totals) if total == best]

    @property
    def over(self) -> bool:
        return len(self.results) >= len(self.engines)

    def add(self, rnd: Round) -> RoundResult:
        """Record a finished round."""
        result = RoundResult(
            rnd.engine, tuple(rnd.scores()), rnd.winner, rnd.blocked, rnd.turns
        )
        self.results.append(result)
        return result

    def next_round(self, rng: random.Random) -> Round:
        index = len(self.results)
        engine = self.engines[index]
        return Round.deal(
            self.rules, self.players, engine, (self.first + index) % self.players, rng
        )

    def play(self, bots: Sequence[Bot], rng: random.Random | None = None) -> Game:
        """Play every remaining round with one bot per seat."""
        rng = rng or random.Random()
        while not self.over:
            rnd = self.next_round(rng)
            rnd.play_out(bots)
            self.add(rnd)
        return self
