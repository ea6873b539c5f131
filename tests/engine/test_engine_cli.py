"""The engine's sub-commands through ``mtrain``'s main(): output, exit codes, bad input."""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from engine import GreedyBot, Round, RuleSet, log_json, record_round
from mtrain.cli import COMMANDS, build_parser, main

STATE = {
    "rules": {"name": "standard"}, "players": 2, "engine": 5, "turn": 0,
    "hands": [[[5, 7], [3, 4]], [[0, 1]]],
    "boneyard": [[2, 3]],
    "trains": [{"owner": 0, "tiles": [], "marker": False},
               {"owner": 1, "tiles": [], "marker": False},
               {"owner": "mexican", "tiles": [], "marker": False}],
    "drawn": False,
}


def write(tmp_path: Path, obj: Any, name: str = "in.json") -> str:
    path = tmp_path / name
    path.write_text(obj if isinstance(obj, str) else json.dumps(obj))
    return str(path)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_rules_lists_presets(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "rules")
    assert code == 0
    names = [line.split()[0] for line in out.splitlines()]
    assert names[0] == "standard"
    assert {"chain", "engine-holder", "private-marker", "chicken-foot"} <= set(names)
    code, out, _ = run(capsys, "rules", "--json")
    assert all(json.loads(line)["description"] for line in out.splitlines())
    code, out, _ = run(capsys, "rules", "chain", "--rule", "double_blank=25", "--json")
    shown = json.loads(out)
    assert shown["first_turn"] == "chain" and shown["double_blank"] == 25


def test_moves_contract_example(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "moves", write(tmp_path, STATE), "--json")
    assert (code, err) == (0, "")
    assert out.splitlines() == [
        '{"play": [5, 7], "train": "mexican"}',
        '{"play": [5, 7], "train": 0}',
    ]
    code, out, _ = run(capsys, "moves", write(tmp_path, STATE))
    assert out.splitlines() == ["play 5-7 on train 0", "play 5-7 on train mexican"]


def test_moves_draw_pass_and_orientation(tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    state = dict(STATE, turn=1)
    _, out, _ = run(capsys, "moves", write(tmp_path, state), "--json")
    assert out.splitlines() == ['{"draw": true}']
    state = dict(STATE, turn=1, drawn=True)
    _, out, _ = run(capsys, "moves", write(tmp_path, state), "--json")
    assert out.splitlines() == ['{"pass": true}']
    state = dict(STATE, hands=[[[7, 6]], [[0, 1]]],
                 trains=[{"owner": 0, "tiles": [[5, 6]], "marker": False}])
    _, out, _ = run(capsys, "moves", write(tmp_path, state), "--json")
    assert out.splitlines() == ['{"play": [6, 7], "train": 0}']


def test_moves_rule_override(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, dict(STATE, first_turn=True))
    _, out, _ = run(capsys, "moves", path, "--json", "--rule", "first_turn=own-train-only")
    assert out.splitlines() == ['{"play": [5, 7], "train": 0}']


@pytest.mark.parametrize(("content", "problem"), [
    (None, "no such file"),
    ("{not json", "malformed JSON"),
    ({**STATE, "hands": [[[5, 7], [5, 7]], [[0, 1]]]}, "hands[0][1]: tile 5-7 is also at"),
    ({**STATE, "boneyard": [[2, 14]]}, "boneyard[0]: [2, 14] is outside the double-12 set"),
    ({**STATE, "trains": [{"owner": 0, "tiles": [[4, 1]], "marker": False}]},
     "trains[0].tiles[0]: [4, 1] does not match the engine"),
    ({**STATE, "rules": {"name": "nope"}}, "rules.name: unknown rule set 'nope'"),
    ({**STATE, "rules": {"name": "standard", "speed": 2}}, "rules.speed: unknown rule key"),
    ([1, 2], "expected a JSON object"),
])
def test_moves_bad_input_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                 content: Any, problem: str) -> None:
    path = str(tmp_path / "missing.json") if content is None else write(tmp_path, content)
    code, out, err = run(capsys, "moves", path)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith(f"mtrain: {path}: ") and problem in err


@pytest.mark.parametrize("argv", [
    ["--rules", "nope"], ["--rule", "colour=red"], ["--rule", "double_blank"],
    ["--rule", "set=10"],
])
def test_bad_rules_arguments_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                    argv: list[str]) -> None:
    code, _, err = run(capsys, "moves", write(tmp_path, STATE), *argv)
    assert code == 2 and err.startswith("mtrain: --rule") and err.count("\n") == 1


def _game_log(seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    rnd = Round.deal(RuleSet(), 4, 12, 0, rng)
    first = rnd.turn
    log = record_round(rnd, [GreedyBot()] * 4)
    return log_json(rnd, first, log)


def test_check_a_legal_game(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = _game_log(5)
    code, out, err = run(capsys, "check", write(tmp_path, log), "--json")
    assert (code, err) == (0, "")
    alerts = [json.loads(line) for line in out.splitlines()]
    assert all(a["code"] == "open-double" for a in alerts)
    for alert in alerts:
        assert list(alert) == sorted(alert) and set(alert) == {
            "at", "code", "seat", "train", "message"}


def test_check_reports_breaches(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = {
        "rules": {"name": "standard"}, "players": 2, "engine": 12, "first": 0,
        "observations": [
            {"trains": [{"owner": 0, "tiles": [], "marker": False}]},
            {"trains": [{"owner": 0, "tiles": [[11, 3]], "marker": False}]},
            {"trains": [{"owner": 0, "tiles": [[11, 3]], "marker": False}], "event": "pass"},
            {"trains": [{"owner": 0, "tiles": [[11, 3]], "marker": False},
                        {"owner": 1, "tiles": [[12, 13], [13, 13]], "marker": False}]},
            {"trains": [{"owner": 0, "tiles": [], "marker": False}]},
        ],
    }
    code, out, _ = run(capsys, "check", write(tmp_path, log), "--json")
    assert code == 0
    got = [(a["at"], a["code"], a["seat"]) for a in map(json.loads, out.splitlines())]
    assert got == [
        (1, "mismatch", 0),
        (2, "marker-missing", 1),
        (3, "not-in-set", 0), (3, "not-in-set", 0), (3, "closed-train", 0), (3, "extra-tile", 0),
        (4, "tile-removed", 1), (4, "tile-removed", 1), (4, "tile-removed", 1),
    ]
    code, out, _ = run(capsys, "check", write(tmp_path, log))
    assert code == 0 and "mismatch" in out.splitlines()[0]


@pytest.mark.parametrize(("change", "problem"), [
    ({"observations": {}}, "observations: expected a list"),
    ({"players": "four"}, "players: expected an integer"),
    ({"engine": 13}, "engine: expected an integer 0-12"),
    ({"first": 4}, "first: expected a seat 0-3"),
    ({"observations": [{"trains": [{"owner": 0, "tiles": [[1, "a"]]}]}]},
     "observations[0].trains[0].tiles[0]: expected a tile"),
    ({"observations": [{"trains": [], "event": "knock"}]}, "observations[0].event"),
])
def test_check_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                         change: dict[str, Any], problem: str) -> None:
    log = {"rules": {"name": "standard"}, "players": 4, "engine": 12, "first": 0,
           "observations": [{"trains": []}]}
    log.update(change)
    code, out, err = run(capsys, "check", write(tmp_path, log))
    assert code == 2 and out == "" and err.count("\n") == 1
    assert problem in err


def test_simulate(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "simulate", "--games", "2", "--players", "3",
                       "--bots", "greedy,longest,random", "--json")
    assert code == 0
    stats = json.loads(out)
    assert stats["rounds"] == 26 and len(stats["win_rate"]) == 3
    assert abs(sum(stats["win_rate"]) - 1) < 1e-9
    assert 0 <= stats["blocked_rate"] <= 1 and stats["avg_round_turns"] > 0
    code, out, _ = run(capsys, "simulate", "--games", "1", "--players", "2",
                       "--rules", "double-9")
    assert code == 0 and "average round length" in out and "win rate" in out


@pytest.mark.parametrize("argv", [
    ["--bots", "smart"], ["--players", "1"], ["--games", "0"], ["--rules", "x"],
])
def test_simulate_bad_input(capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    code, _, err = run(capsys, "simulate", "--games", "1", *argv)
    assert code == 2 and err.count("\n") == 1


def test_hint(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "hint", write(tmp_path, STATE), "--json")
    ranked = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and len(ranked) == 2
    assert ranked[0]["score"] >= ranked[1]["score"]
    assert ranked[0]["train"] == 0  # 5-7 starts the longest chain on one's own train


# ---------------------------------------------------------------------- the split command line

#: Libraries an engine command must not load.
HEAVY = ("cv2", "flask", "numpy", "onnxruntime")


@pytest.mark.parametrize("argv", [
    ["moves", "STATE", "--json"], ["hint", "STATE"], ["rules"], ["check", "LOG"],
])
def test_engine_commands_load_no_heavy_library(tmp_path: Path, argv: list[str]) -> None:
    rnd = Round.deal(RuleSet(), 2, 12, 0, random.Random(1))
    first = rnd.turn
    log = log_json(rnd, first, record_round(rnd, [GreedyBot()] * 2)[:3])
    paths = {"STATE": write(tmp_path, STATE), "LOG": write(tmp_path, log, "log.json")}
    argv = [paths.get(arg, arg) for arg in argv]
    script = (
        "import json, sys\n"
        "from mtrain.cli import main\n"
        f"code = main({argv!r})\n"
        f"print(json.dumps([code, sorted(m for m in {HEAVY!r} if m in sys.modules)]))\n"
    )
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run([sys.executable, "-c", script], cwd=root, capture_output=True,
                          text=True, timeout=60, check=True)
    code, loaded = json.loads(done.stdout.strip().splitlines()[-1])
    assert code == 0
    assert loaded == []


def test_the_command_table_names_what_each_module_registers() -> None:
    parser = build_parser()  # every module: what --help lists
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    assert list(sub.choices) == list(COMMANDS)
    for command, module in COMMANDS.items():
        one = build_parser(command)
        sub = next(a for a in one._actions if isinstance(a, argparse._SubParsersAction))
        assert command in sub.choices
        assert {COMMANDS[c] for c in sub.choices} == {module}
