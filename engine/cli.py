"""The engine's sub-commands: ``rules``, ``moves``, ``check``, ``simulate``, ``hint``.

Also the shared helpers :func:`add_rules_arguments` / :func:`rules_from_args`
(``--rules NAME`` and repeatable ``--rule KEY=VALUE``) and :func:`load_json`.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from engine.errors import BadInputError
from engine.rules import MAX_PLAYERS, PRESETS, RuleSet

SubParsers = "argparse._SubParsersAction[argparse.ArgumentParser]"


# ---------------------------------------------------------------------- shared helpers


def add_rules_arguments(parser: argparse.ArgumentParser) -> None:
    """Add ``--rules NAME`` and repeatable ``--rule KEY=VALUE`` to ``parser``."""
    parser.add_argument(
        "--rules",
        metavar="NAME",
        default=None,
        help=f"house-rule preset ({', '.join(PRESETS)}; default standard)",
    )
    parser.add_argument(
        "--rule",
        metavar="KEY=VALUE",
        action="append",
        default=[],
        help="override one rule setting (repeatable), e.g. --rule double_blank=25",
    )


def rules_from_args(args: argparse.Namespace, base: RuleSet | None = None) -> RuleSet:
    """The ``--rules`` preset (else ``base``, else standard) with the ``--rule`` overrides."""
    name = getattr(args, "rules", None)
    rules = RuleSet.preset(name) if name is not None else base or RuleSet.preset("standard")
    for item in getattr(args, "rule", None) or []:
        key, sep, value = item.partition("=")
        if not sep:
            raise BadInputError("--rule", f"expected KEY=VALUE, got {item!r}")
        rules = rules.override(key.strip(), value)
    return rules


def load_json(path: str) -> Any:
    """Read a JSON file; a missing, unreadable or malformed file is :class:`BadInputError`."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise BadInputError(path, "no such file") from None
    except IsADirectoryError:
        raise BadInputError(path, "is a directory, expected a JSON file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise BadInputError(path, f"cannot read: {exc}") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise BadInputError(
            path, f"malformed JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"
        ) from None


def _dump(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True)


def _int_field(obj: dict[str, Any], key: str, source: str, low: int, high: int) -> int:
    value = obj.get(key)
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise BadInputError(source, f"{key}: expected an integer {low}-{high}, got {value!r}")
    return value


# ---------------------------------------------------------------------- handlers


def cmd_rules(args: argparse.Namespace) -> int:
    if args.name or args.rule:
        rules = rules_from_args(argparse.Namespace(rules=args.name, rule=args.rule))
        if args.json:
            print(_dump(rules.to_json()))
        else:
            print(f"{rules.name}: {rules.describe()}")
            for key, value in rules.to_json().items():
                if key != "name":
                    print(f"  {key} = {json.dumps(value)}")
        return 0
    width = max(len(name) for name in PRESETS)
    for name, description in PRESETS.items():
        if args.json:
            print(_dump({"name": name, "description": description,
                         "rules": RuleSet.preset(name).to_json()}))
        else:
            print(f"{name:<{width}}  {description}")
    return 0


def _load_round(args: argparse.Namespace) -> Any:
    from engine.round import Round

    obj = load_json(args.state)
    if isinstance(obj, dict) and (args.rules is not None or args.rule):
        base = RuleSet.from_json(obj.get("rules", {"name": "standard"}), args.state)
        obj = dict(obj, rules=rules_from_args(args, base).to_json())
    return Round.from_json(obj, args.state)


def cmd_moves(args: argparse.Namespace) -> int:
    rnd = _load_round(args)
    moves = list(rnd.legal_moves)
    if args.json:
        for line in sorted(_dump(rnd.move_json(m)) for m in moves):
            print(line)
        return 0
    if not moves:
        print("no legal moves (the round is over)")
    for move in sorted(moves, key=lambda m: m.sort_key()):
        obj = rnd.move_json(move)
        if move.is_play:
            print(f"play {obj['play'][0]}-{obj['play'][1]} on train {move.train}")
        else:
            print(move.kind)
    return 0


def cmd_hint(args: argparse.Namespace) -> int:
    from engine.bots import hint

    rnd = _load_round(args)
    ranked = hint(rnd)[: args.top] if args.top else hint(rnd)
    for move, score in ranked:
        obj = rnd.move_json(move)
        if args.json:
            print(_dump(dict(obj, score=round(score, 3))))
        elif move.is_play:
            print(f"{score:7.1f}  play {obj['play'][0]}-{obj['play'][1]} on train {move.train}")
        else:
            print(f"{score:7.1f}  {move.kind}")
    return 0


def load_log(path: str, args: argparse.Namespace | None = None) -> dict[str, Any]:
    """Parse a ``check`` LOG: rules, players, engine, first, observations (tables, events)."""
    from engine.table import TableState

    obj = load_json(path)
    if not isinstance(obj, dict):
        raise BadInputError(path, "expected an object with players, engine, observations")
    base = RuleSet.from_json(obj.get("rules", {"name": "standard"}), path)
    rules = rules_from_args(args, base) if args is not None else base
    players = _int_field(obj, "players", path, 1, MAX_PLAYERS)
    engine = _int_field(obj, "engine", path, 0, rules.set)
    first = obj.get("first", 0)
    if not isinstance(first, int) or isinstance(first, bool) or not 0 <= first < players:
        raise BadInputError(path, f"first: expected a seat 0-{players - 1}, got {first!r}")
    observations = obj.get("observations")
    if not isinstance(observations, list):
        raise BadInputError(path, "observations: expected a list of tables")
    tables = []
    for k, item in enumerate(observations):
        table = TableState.from_json(item, path, engine=engine, where=f"observations[{k}]")
        event = item.get("event")
        if event not in (None, "pass", "out"):
            raise BadInputError(path, f"observations[{k}].event: expected \"pass\" or \"out\"")
        tables.append((table, event))
    return {"rules": rules, "players": players, "engine": engine, "first": first,
            "observations": tables}


def cmd_check(args: argparse.Namespace) -> int:
    from engine.observer import Observer

    log = load_log(args.log, args)
    observer = Observer(log["rules"], log["players"], log["engine"], log["first"])
    for table, event in log["observations"]:
        for alert in observer.observe(table, event):
            print(_dump(alert.to_json()) if args.json else str(alert))
    if not args.json and not observer.alerts:
        print(f"no alerts in {len(log['observations'])} observations")
    return 0


def cmd_simulate(args: argparse.Namespace) -> int:
    from engine.simulate import parse_bots, simulate

    rules = rules_from_args(args)
    bots = parse_bots(args.bots, args.players)
    stats = simulate(rules, args.players, bots, args.games, args.seed)
    if args.json:
        print(_dump(stats))
        return 0
    print(
        f"{stats['games']} games, {stats['rounds']} rounds, {args.players} players, "
        f"rules {rules.name}"
    )
    print(f"average round length: {stats['avg_round_turns']:.1f} turns")
    print(f"blocked rounds: {stats['blocked_rate']:.1%}")
    for seat, name in enumerate(bots):
        print(
            f"seat {seat} ({name}): average penalty per round {stats['avg_penalty'][seat]:.1f}, "
            f"win rate {stats['win_rate'][seat]:.1%}"
        )
    return 0


# ---------------------------------------------------------------------- registration


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the engine's sub-commands to the ``mtrain`` parser."""
    p = sub.add_parser("rules", help="list the house-rule presets (or show one)")
    p.add_argument("name", nargs="?", help="show every setting of this preset")
    p.add_argument("--rule", metavar="KEY=VALUE", action="append", default=[],
                   help="override one setting before showing it")
    p.add_argument("--json", action="store_true", help="one JSON object per line")
    p.set_defaults(func=cmd_rules)

    p = sub.add_parser("moves", help="list the legal moves of a round state (STATE.json)")
    p.add_argument("state", metavar="STATE.json")
    add_rules_arguments(p)
    p.add_argument("--json", action="store_true", help="one JSON object per line, sorted")
    p.set_defaults(func=cmd_moves)

    p = sub.add_parser("hint", help="rank the legal moves of a round state, best first")
    p.add_argument("state", metavar="STATE.json")
    add_rules_arguments(p)
    p.add_argument("--top", type=int, default=0, help="show only the best N")
    p.add_argument("--json", action="store_true", help="one JSON object per line")
    p.set_defaults(func=cmd_hint)

    p = sub.add_parser("check", help="replay what a camera saw (LOG.json) and report breaches")
    p.add_argument("log", metavar="LOG.json")
    add_rules_arguments(p)
    p.add_argument("--json", action="store_true", help="one JSON object per alert per line")
    p.set_defaults(func=cmd_check)

    p = sub.add_parser("simulate", help="bots play many games; averages and win rates")
    p.add_argument("--games", type=int, default=100)
    p.add_argument("--players", type=int, default=4)
    add_rules_arguments(p)
    p.add_argument("--bots", default="greedy", help="comma-separated: random, greedy, longest")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", action="store_true", help="one JSON object")
    p.set_defaults(func=cmd_simulate)
