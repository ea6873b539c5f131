"""Engine benchmark: self-play rounds per second, legal-move generations per second,
the observer (and the camera's referee against the plain one on rounds with planted
breaches), and how long ``mtrain moves`` takes as a whole process.

4 players, double-12, full 13-round games, greedy and random bots, one core.
Writes benchmarks/results/engine.json. Times are CPU time of this process
(``time.process_time``), which is what "one core" means on a shared machine;
wall-clock figures are written alongside. The command line's times are the
child processes' CPU time (user + system), with their wall-clock time beside.
"""

from __future__ import annotations

import json
import os
import platform
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from engine import GreedyBot, Observer, RandomBot, Round, RuleSet, record_round
from engine.game import Game

ROOT = Path(__file__).resolve().parent.parent

RESULTS = ROOT / "benchmarks" / "results" / "engine.json"
TARGET_GREEDY_ROUNDS_PER_S = 4000
#: ``mtrain moves`` as a whole process, milliseconds of CPU time (median).
TARGET_MOVES_PROCESS_MS = 100
#: Libraries ``mtrain moves`` must not load.
HEAVY = ("cv2", "flask", "numpy", "onnxruntime")
#: What the ``mtrain`` console script runs.
ENTRY = "import sys; from mtrain.cli import main; sys.exit(main())"


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


def observer_camera_only(rounds: int = 200, seed: int = 4) -> dict[str, Any]:
    """The observer fed what a camera alone sees: no events, unchanged tables not repeated.

    4 players, double-12, standard rules, a mix of bots. False alerts: error
    alerts on these legal rounds (moves: turns played, passes included). Injected:
    one breach a camera can see per round (codes in turn), through the engine
    breach injection of ``faults``, at a random spot where the observer is sure who
    moves and that player's own train is closed; found when exactly that code is
    raised.
    """
    from engine import AlertCode, LongestTrainBot
    from faults import ObservedTable, inject

    # marker-missing needs an announced pass, marker-stale later tables (see the observer's
    # docstring), first-turn a rule set other than standard.
    unseen = {AlertCode.MARKER_MISSING, AlertCode.MARKER_STALE, AlertCode.FIRST_TURN}
    codes = sorted(c for c in AlertCode if c.is_error and c not in unseen)
    rules = RuleSet.preset("standard")
    rng = random.Random(seed)
    moves = tables = false = false_events = found = total = ambiguous = 0
    cpu = 0.0
    for r in range(rounds):
        rnd = Round.deal(rules, 4, rng.randrange(13), rng.randrange(4), rng)
        first = rnd.turn
        kinds = [GreedyBot(), RandomBot(random.Random(seed + r)), LongestTrainBot()]
        log = record_round(rnd, [kinds[rng.randrange(3)] for _ in range(4)])
        seen = [table for k, (table, _) in enumerate(log) if k == 0 or table != log[k - 1][0]]
        moves += len(log) - 1
        tables += len(seen)
        with_events = Observer(rules, 4, rnd.engine, first)
        for table, event in log:
            false_events += sum(a.is_error for a in with_events.observe(table, event))
        obs = Observer(rules, 4, rnd.engine, first)
        code = codes[r % len(codes)]
        spots = []
        for k, table in enumerate(seen):
            t0 = time.process_time()
            false += sum(a.is_error for a in obs.observe(table))
            cpu += time.process_time() - t0
            ambiguous += obs.explanations > 1
            view = ObservedTable(rules, 4, rnd.engine, obs, table)
            if obs.explanations == 1 and not view.own_open() and inject(code, view):
                spots.append(k)
        if spots:
            k = rng.choice(spots)
            obs = Observer(rules, 4, rnd.engine, first)
            for table in seen[: k + 1]:
                obs.observe(table)
            extra = inject(code, ObservedTable(rules, 4, rnd.engine, obs, seen[k])) or []
            before = len(obs.alerts)
            for table, _ in extra:
                obs.observe(table)
            total += 1
            found += [a.code for a in obs.alerts[before:] if a.is_error] == [code]
    return {
        "rounds": rounds,
        "moves": moves,
        "camera_tables": tables,
        "false_alerts": false,
        "false_alerts_per_100_moves": round(100 * false / moves, 3),
        "false_alerts_per_100_moves_with_pass_events": round(100 * false_events / moves, 3),
        "injected_found": found,
        "injected_total": total,
        "injected_codes": codes,
        "tables_with_several_explanations": round(ambiguous / tables, 4),
        "observations_per_s": round(tables / cpu, 1),
    }


def camera_referee(rounds: int = 300, seed: int = 5000, players: int = 3) -> dict[str, Any]:
    """The referee a camera's tracker uses (``unseen_moves``: it follows a move the camera
    missed once the next table bears it out) against the plain one, on bots' rounds with
    breaches planted (``faults.inject_breaches``, as the filmed rounds of
    ``benchmarks/table.py`` and ``benchmarks/sequences.py``), seen as a camera sees them:
    the planted breaches each raises (the same code on the same train) and its error
    alerts in all (the planted ones and what follows from them)."""
    from datasets.table_game import camera_view, play_round
    from engine import judge
    from faults import inject_breaches

    rules = RuleSet.preset("standard")
    planted = 0
    raised = {"plain": 0, "camera": 0}
    alerts = {"plain": 0, "camera": 0}
    cpu = {"plain": 0.0, "camera": 0.0}
    tables = 0
    for r in range(rounds):
        obs, breaches = inject_breaches(play_round(seed + r, players, rules),
                                        random.Random(seed + r))
        seen = camera_view(obs)
        tables += len(seen)
        planted += len(breaches)
        for name, unseen in (("plain", False), ("camera", True)):
            t0 = time.process_time()
            errors = [a for a in judge(seen, rules, players, unseen_moves=unseen) if a.is_error]
            cpu[name] += time.process_time() - t0
            alerts[name] += len(errors)
            keys = {(a.code, a.train) for a in errors}
            raised[name] += sum((b.code, b.train) in keys for b in breaches)
    out = {name: {"planted_raised": raised[name], "error_alerts": alerts[name],
                  "observations_per_s": round(tables / cpu[name], 1)} for name in raised}
    return {"rounds": rounds, "players": players, "camera_tables": tables,
            "planted": planted, **out}


def _process_ms(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(CPU, wall) milliseconds of one process running ``argv`` from the repository root."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall = time.perf_counter()
    subprocess.run(argv, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, check=True)
    wall = time.perf_counter() - wall
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return 1000 * cpu, 1000 * wall


def moves_process(runs: int = 21) -> dict[str, Any]:
    """``mtrain moves STATE.json`` through the console script's entry point: median of
    ``runs`` processes (after one that compiles the bytecode, as a first run would),
    and a bare interpreter for comparison."""
    state = {"rules": {"name": "standard"}, "players": 2, "engine": 5, "turn": 0,
             "hands": [[[5, 7], [3, 4]], [[0, 1]]], "boneyard": [[2, 3]],
             "trains": [{"owner": 0, "tiles": [], "marker": False},
                        {"owner": 1, "tiles": [], "marker": False},
                        {"owner": "mexican", "tiles": [], "marker": False}], "drawn": False}
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    with tempfile.TemporaryDirectory() as tmp:
        path = str(Path(tmp) / "state.json")
        Path(path).write_text(json.dumps(state))
        command = [sys.executable, "-c", ENTRY, "moves", path]
        check = (f"import sys; from mtrain.cli import main; main(['moves', {path!r}]); "
                 f"print('loaded:' + ','.join(m for m in {HEAVY!r} if m in sys.modules))")
        out = subprocess.run([sys.executable, "-c", check], cwd=ROOT, env=env, check=True,
                             capture_output=True, text=True).stdout
        loaded = out[out.rindex("loaded:") + len("loaded:"):].strip()
        timed = [_process_ms(command, env) for _ in range(runs)]
        bare = [_process_ms([sys.executable, "-c", "pass"], env) for _ in range(runs)]
    cpu = statistics.median(t[0] for t in timed)
    return {
        "command": "mtrain moves STATE.json",
        "runs": runs,
        "median_cpu_ms": round(cpu, 1),
        "median_wall_ms": round(statistics.median(t[1] for t in timed), 1),
        "interpreter_median_cpu_ms": round(statistics.median(t[0] for t in bare), 1),
        "interpreter_median_wall_ms": round(statistics.median(t[1] for t in bare), 1),
        "heavy_modules_loaded": [m for m in loaded.split(",") if m],
        "target_ms": TARGET_MOVES_PROCESS_MS,
        "meets_target": cpu <= TARGET_MOVES_PROCESS_MS,
    }


def main() -> int:
    greedy = selfplay("greedy", 200)
    rnd = selfplay("random", 100)
    gen = movegen()
    obs = observer()
    camera = observer_camera_only()
    referee = camera_referee()
    cli = moves_process()
    result = {
        "benchmark": "engine",
        "python": platform.python_version(),
        "machine": platform.machine(),
        "setup": "4 players, double-12, standard rules, full 13-round games, one core",
        "greedy": greedy,
        "random": rnd,
        "legal_moves": gen,
        "observer": obs,
        "observer_camera_only": camera,
        "camera_referee": referee,
        "moves_process": cli,
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
    print(f"observer, camera only: {camera['false_alerts_per_100_moves']} false alerts per 100 "
          f"moves, injected breaches found {camera['injected_found']}/{camera['injected_total']}")
    print(f"camera's referee: planted breaches raised {referee['camera']['planted_raised']}/"
          f"{referee['planted']} (plain {referee['plain']['planted_raised']}), error alerts "
          f"{referee['camera']['error_alerts']} (plain {referee['plain']['error_alerts']})")
    print(f"mtrain moves: {cli['median_cpu_ms']} ms CPU, {cli['median_wall_ms']} ms wall per "
          f"process (target {TARGET_MOVES_PROCESS_MS}; a bare interpreter "
          f"{cli['interpreter_median_cpu_ms']} ms CPU)")
    print(f"wrote {RESULTS.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
