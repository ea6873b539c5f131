"""Self-play statistics: many games between bots (``mtrain simulate``)."""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from typing import Any

from engine.bots import BOTS, make_bot
from engine.errors import BadInputError
from engine.game import Game
from engine.rules import RuleSet


def parse_bots(text: str, players: int) -> list[str]:
    """``"greedy,longest"`` -> one bot name per seat (the list repeats round the table)."""
    names = [name.strip() for name in text.split(",") if name.strip()]
    if not names:
        raise BadInputError("--bots", "expected bot names, e.g. greedy,longest")
    for name in names:
        if name not in BOTS:
            raise BadInputError("--bots", f"unknown bot {name!r} (known: {', '.join(BOTS)})")
    return [names[seat % len(names)] for seat in range(players)]


def simulate(
    rules: RuleSet, players: int, bots: Sequence[str], games: int, seed: int = 0
) -> dict[str, Any]:
    """Play ``games`` full games; averages per round and per seat, win rates, blocked rate."""
    if players < 2:
        raise BadInputError("--players", "a game needs at least 2 players")
    if games < 1:
        raise BadInputError("--games", "expected at least 1 game")
    rng = random.Random(seed)
    seats = [make_bot(name, random.Random(rng.random())) for name in bots]
    rounds = turns = blocked = 0
    points = [0] * players
    wins = [0.0] * players
    start = time.perf_counter()
    for g in range(games):
        game = Game(rules, players, first=g % players).play(seats, rng)
        for result in game.results:
            rounds += 1
            turns += result.turns
            blocked += result.blocked
            for seat, p in enumerate(result.scores):
                points[seat] += p
        winners = game.winners
        for seat in winners:
            wins[seat] += 1 / len(winners)
    elapsed = time.perf_counter() - start
    by_bot: dict[str, dict[str, float]] = {}
    for name in dict.fromkeys(bots):
        mine = [s for s in range(players) if bots[s] == name]
        by_bot[name] = {
            "seats": len(mine),
            "avg_penalty": sum(points[s] for s in mine) / (rounds * len(mine)),
            "win_rate": sum(wins[s] for s in mine) / (games * len(mine)),
        }
    return {
        "rules": rules.name,
        "players": players,
        "bots": list(bots),
        "games": games,
        "rounds": rounds,
        "avg_round_turns": turns / rounds,
        "avg_penalty": [p / rounds for p in points],
        "win_rate": [w / games for w in wins],
        "blocked_rate": blocked / rounds,
        "by_bot": by_bot,
        "seconds": elapsed,
    }
