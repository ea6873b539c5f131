"""The score pad of a game: its cells, totals, who won each round, the standings, and
the round the table plays next.

A round is *done* when every seat has its points, typed on the pad or counted
from a hand on the hands page. The round the table plays is then the next one
(its engine one lower); after the last round the game is over and the pad
shows the final standings. Who *went out* is read from the points: under
penalty scoring the one seat left with 0 (a blocked round has none, and its
lowest hand wins it); under positive scoring the one seat that scored.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from companion_app import store
from companion_app.changes import ChangeLog

Cells = dict[tuple[int, int], int]


@dataclass(frozen=True)
class RoundResult:
    """A done round: the seats with its best points, and who went out (None: nobody
    did, as far as the points tell)."""

    number: int
    best: tuple[int, ...]
    points: int
    went_out: int | None


@dataclass(frozen=True)
class Standing:
    """A seat's place (ties share it) and total."""

    place: int
    seat: int
    total: int


@dataclass(frozen=True)
class Pad:
    """The score pad of a game, ready for the page."""

    game: store.Game
    cells: Cells
    sources: dict[tuple[int, int], str]
    totals: list[int]
    running: list[list[int | None]]  # per seat, the total after each round (None: not yet)
    results: dict[int, RoundResult]  # the done rounds
    standings: list[Standing]

    @property
    def positive(self) -> bool:
        return self.game.rules.positive_scoring

    @property
    def complete_rounds(self) -> int:
        return len(self.results)

    @property
    def finished(self) -> bool:
        return len(self.results) == self.game.rounds

    @property
    def winners(self) -> list[int]:
        """The seats in first place (none before any points)."""
        if not self.cells:
            return []
        return [s.seat for s in self.standings if s.place == 1]

    @property
    def next_round(self) -> int | None:
        """The round whose points are wanted next: the table's round until it is done,
        then the first round not done; None once every round is."""
        if self.game.current_round not in self.results:
            return self.game.current_round
        return next((n for n in range(1, self.game.rounds + 1) if n not in self.results), None)

    def result_text(self, number: int) -> str:
        result = self.results.get(number)
        return "" if result is None else describe(self.game, result, self.positive)

    def winner_text(self) -> str:
        return winner_text(self.game, self.winners, self.totals)


def round_result(game: store.Game, cells: Cells, number: int) -> RoundResult | None:
    """The result of round ``number``; None while a seat has no points for it."""
    points = [cells.get((number, seat)) for seat in range(game.seats)]
    if any(p is None for p in points):
        return None
    values = [int(p or 0) for p in points]
    positive = game.rules.positive_scoring
    best_points = max(values) if positive else min(values)
    best = tuple(s for s, v in enumerate(values) if v == best_points)
    went_out = None
    if len(best) == 1 and (best_points > 0 if positive else best_points == 0):
        went_out = best[0]
    return RoundResult(number, best, best_points, went_out)


def standings(totals: list[int], positive: bool) -> list[Standing]:
    """Seats from the best total down; equal totals share a place."""
    order = sorted(range(len(totals)), key=lambda s: (-totals[s] if positive else totals[s], s))
    out: list[Standing] = []
    for rank, seat in enumerate(order):
        tied = bool(out) and totals[out[-1].seat] == totals[seat]
        out.append(Standing(out[-1].place if tied else rank + 1, seat, totals[seat]))
    return out


def make_pad(game: store.Game, cells: Cells, sources: dict[tuple[int, int], str]) -> Pad:
    totals = [sum(v for (_, s), v in cells.items() if s == seat) for seat in range(game.seats)]
    results = {n: r for n in range(1, game.rounds + 1)
               if (r := round_result(game, cells, n)) is not None}
    last = max(results, default=0)
    running: list[list[int | None]] = []
    for seat in range(game.seats):
        acc = 0
        row: list[int | None] = []
        for n in range(1, game.rounds + 1):
            acc += cells.get((n, seat), 0)
            row.append(acc if n <= last else None)
        running.append(row)
    positive = game.rules.positive_scoring
    return Pad(game, cells, sources, totals, running, results, standings(totals, positive))


def load_pad(db: sqlite3.Connection, game: store.Game) -> Pad:
    return make_pad(game, store.scores(db, game.id), store.score_sources(db, game.id))


def names(game: store.Game, seats: tuple[int, ...] | list[int]) -> str:
    """``Ann``, ``Ann and Ben``, ``Ann, Ben and Cy``."""
    shown = [game.players[s] for s in seats]
    return shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " and " + shown[-1]


def describe(game: store.Game, result: RoundResult, positive: bool) -> str:
    """``Ann went out``, or who had the best hand of a round nobody went out of."""
    if result.went_out is not None:
        return f"{game.players[result.went_out]} went out"
    most = "most" if positive else "fewest"
    if len(result.best) == 1:
        return f"{names(game, result.best)} had the {most} points ({result.points})"
    return f"{names(game, result.best)} tied with the {most} points ({result.points})"


def winner_text(game: store.Game, winners: list[int], totals: list[int]) -> str:
    if not winners:
        return ""
    if len(winners) == 1:
        return f"{game.players[winners[0]]} wins with {totals[winners[0]]}"
    return f"{names(game, winners)} share the win with {totals[winners[0]]}"


def close_round(db: sqlite3.Connection, game: store.Game, number: int,
                log: ChangeLog | None = None) -> str | None:
    """After round ``number``'s points changed: when the round is done and is the one
    the table plays, move the table on to the next round (logged in ``log``).

    Returns what to tell the table (``"Round 3 done — Ann went out. Round 4 begins:
    engine 9-9."``), or None while the round still lacks points or is a past one.
    """
    pad = load_pad(db, game)
    result = pad.results.get(number)
    if result is None or number != game.current_round:
        return None
    head = f"Round {number} done — {describe(game, result, pad.positive)}."
    if number < game.rounds:
        store.set_current_round(db, game, number + 1, log)
        engine = game.engine_of(number + 1)
        return f"{head} Round {number + 1} begins: engine {engine}-{engine}."
    if pad.finished:
        return f"{head} Game over: {pad.winner_text()}."
    missing = [n for n in range(1, game.rounds + 1) if n not in pad.results]
    return (f"{head} That was the last round; round{'s' * (len(missing) > 1)} "
            f"{', '.join(map(str, missing))} still need points.")
