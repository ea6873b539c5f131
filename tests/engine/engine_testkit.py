"""Helpers for the engine tests: bot games and their public view."""

from __future__ import annotations

import random

from engine import (
    GreedyBot,
    LongestTrainBot,
    Observer,
    RandomBot,
    Round,
    RuleSet,
    TableState,
    record_round,
)
from faults import ObservedTable

Observation = tuple[TableState, "str | None"]

#: The presets the observer property tests feed bot games from.
PRESETS_FED = ["standard", "chain", "engine-holder", "private-marker", "positive", "double-9",
               "chicken-foot"]


def bot_game(
    preset: str, seed: int, players: int | None = None
) -> tuple[RuleSet, Round, int, list[Observation]]:
    """Deal a round with ``seed`` and play it with a mix of bots; the log of public tables."""
    rng = random.Random(seed)
    rules = RuleSet.preset(preset)
    if players is None:
        players = rng.choice([2, 3, 4] if rules.set == 9 else [2, 3, 4, 5, 6])
    rnd = Round.deal(rules, players, rng.randrange(rules.set + 1), rng.randrange(players), rng)
    first = rnd.turn
    kinds = [GreedyBot(), RandomBot(random.Random(seed)), LongestTrainBot()]
    bots = [kinds[rng.randrange(3)] for _ in range(players)]
    log = record_round(rnd, bots)
    return rules, rnd, first, log


def feed(
    rules: RuleSet, players: int, engine: int, first: int, log: list[Observation]
) -> Observer:
    observer = Observer(rules, players, engine, first)
    for table, event in log:
        observer.observe(table, event)
    return observer


def view_at(rules: RuleSet, players: int, engine: int, first: int,
            log: list[Observation], k: int) -> ObservedTable:
    observer = feed(rules, players, engine, first, log[: k + 1])
    return ObservedTable(rules, players, engine, observer, log[k][0])
