"""Engine benchmark: self-play rounds per second and legal-move generations per second.

4 players, double-12, full 13-round games, greedy and random bots, one core.
Writes benchmarks/results/engine.json. Times are CPU time of this process
(``time.process_time``), which is what "one core" means on a shared machine;
wall-clock figures are written alongside.
"""

from __future__ import annotations

import json
import platform
import random
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine import GreedyBot, Observer, RandomBot, Round, RuleSet, record_round  # noqa: E402
from engine.game import Game  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results" / "engine.json"
TARGET_GREEDY_ROUNDS_PER_S = 4000


def selfplay(bot: str, games: int, seed: int = 1) -> dict[str, Any]:
    rules = RuleSet.preset("standard")
    rng = random.Random(seed)
    bots = [
        GreedyBot() if bot == "greedy" else RandomBot(random.Random(seed + s)) for s in range(4)
    ]
    rounds = turns = 0
    cpu, wall = time.process_time(), time.perf_counter()
    for g in range(games):
        game = Game(rules, 4, first=g % 4).play(bots, rng)
        rounds += len(game.results)
        turns += sum(r.turns for r in game.results)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    return {
        "games": games,
        "rounds": rounds,
        "turns_per_round": turns / rounds,
        "rounds_per_s": rounds / cpu,
        "rounds_per_s_wall": rounds / wall,
        "games_per_s": games / cpu,
    }


def movegen(samples: int = 400, repeats: int = 20, seed: int = 2) -> dict[str, Any]:
    """Legal-move lists of mid-round positions, through the public lazy generator."""
    rules = RuleSet.preset("standard")
    rng = random.Random(seed)
    rounds = []
    for _ in range(samples):
        rnd = Round.deal(rules, 4, rng.randrange(13), 0, rng)
        bots = [GreedyBot()] * 4
        for _ in range(rng.randrange(5, 40)):
            if rnd.over:
                break
            rnd.push(bots[rnd.turn].choose(rnd))
        if not rnd.over:
            rounds.append(rnd)
    moves = 0
    cpu = time.process_time()
    for _ in range(repeats):
        for rnd in rounds:
            moves += len(list(rnd.legal_moves))
    cpu = time.process_time() - cpu
    generations = repeats * len(rounds)
    return {
        "positions": len(rounds),
        "generations": generations,
        "generations_per_s": generations / cpu,
        "moves_per_generation": moves / generations,
    }


def observer(rounds: int = 60, seed: int = 3) -> dict[str, Any]:
    """The observer fed the public view of greedy games: observations per second."""
    rules = RuleSet.preset("standard")
    rng = random.Random(seed)
    logs = []
    for _ in range(rounds):
        rnd = Round.deal(rules, 4, rng.randrange(13), 0, rng)
        first = rnd.turn
        logs.append((rnd.engine, first, record_round(rnd, [GreedyBot()] * 4)))
    count = errors = 0
    cpu = time.process_time()
    for engine, first, log in logs:
        obs = Observer(rules, 4, engine, first)
        for table, event in log:
            errors += sum(a.is_error for a in obs.observe(table, event))
            count += 1
    cpu = time.process_time() - cpu
    return {"observations": count, "observations_per_s": count / cpu, "error_alerts": errors}


def main() -> int:
    greedy = selfplay("greedy", 200)
    rnd = selfplay("random", 100)
    gen = movegen()
    obs = observer()
    result = {
        "benchmark": "engine",
        "python": platform.python_version(),
        "machine": platform.machine(),
        "setup": "4 players, double-12, standard rules, full 13-round games, one core",
        "greedy": greedy,
        "random": rnd,
        "legal_moves": gen,
        "observer": obs,
        "target_greedy_rounds_per_s": TARGET_GREEDY_ROUNDS_PER_S,
        "meets_target": greedy["rounds_per_s"] >= TARGET_GREEDY_ROUNDS_PER_S,
    }
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=2) + "\n")
    print(
        f"greedy self-play: {greedy['rounds_per_s']:.0f} rounds/s "
        f"(target {TARGET_GREEDY_ROUNDS_PER_S}); random: {rnd['rounds_per_s']:.0f} rounds/s"
    )
    print(f"legal-move generations: {gen['generations_per_s']:.0f}/s")
    print(f"observer: {obs['observations_per_s']:.0f} observations/s, {obs['error_alerts']} errors")
    print(f"wrote {RESULTS.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
