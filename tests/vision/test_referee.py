"""The round's referee and the typed events every source of tables speaks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine import AlertDetails, Observer, RuleSet, TableState
from engine.referee import Referee, Reread, apply_rereadings, judge
from vision.events import (
    AlertRaised,
    CameraReason,
    CameraStatus,
    TableSettled,
    Uncertain,
)

RULES = RuleSet.preset("standard")
DEMO = Path(__file__).resolve().parents[2] / "datasets" / "demo" / "demo.json"


def tables(*texts: str) -> list[TableState]:
    return [TableState.parse(t) for t in texts]


class TestReferee:
    def test_its_alerts_are_the_observers(self) -> None:
        log = json.loads(DEMO.read_text())
        seen = [TableState.from_json(o) for o in log["observations"]]
        observer = Observer(RULES, log["players"], seen[0].engine, log["first"])
        for table in seen:
            observer.observe(table)
        assert judge(seen, RULES, log["players"], log["first"]) == observer.alerts
        assert len(observer.alerts) == 7

    def test_a_ruling_names_the_seat_to_move_and_what_each_alert_is_about(self) -> None:
        referee = Referee(RULES, players=3)
        assert referee.to_move == 0 and referee.engine is None and not referee.started
        first, laid, wrong = tables("12 | 0: | 1: | 2: | mexican:",
                                    "12 | 0: 12-5 | 1: | 2: | mexican:",
                                    "12 | 0: 12-5 | 1: 7-4 | 2: | mexican:")
        assert referee.settle(first).to_move == 0
        assert referee.engine == 12
        ruling = referee.settle(laid)
        assert ruling.alerts == () and ruling.to_move == 1
        ruling = referee.settle(wrong)
        (alert, details), = list(ruling)
        assert alert.code == "mismatch" and alert.seat == 1
        assert details == AlertDetails(tile=(7, 4), end=12)
        assert referee.history == (first, laid, wrong)

    def test_the_tile_after_the_turns_last_and_the_double_waiting(self) -> None:
        referee = Referee(RULES, players=2)
        referee.settle(TableState.parse("12 | 0: | 1: | mexican:"))
        ruling = referee.settle(TableState.parse("12 | 0: 12-5 5-6 | 1: | mexican:"))
        (alert, details), = list(ruling)
        assert alert.code == "extra-tile" and details.tile == (5, 6) and details.end == 5
        referee = Referee(RULES, players=2, engine=12)
        referee.settle(TableState.parse("12 | 0: | 1: | mexican:"))
        referee.settle(TableState.parse("12 | 0: 12-5 5-5 | 1: | mexican:"))
        ruling = referee.settle(TableState.parse("12 | 0: 12-5 5-5 | 1: 12-3 | mexican:"))
        codes = {a.code: d for a, d in ruling}
        assert codes["unsatisfied-double"] == AlertDetails((12, 3), 12, (0, 5))

    def test_a_tile_taken_away_is_named(self) -> None:
        referee = Referee(RULES, players=2)
        referee.settle(TableState.parse("12 | 0: 12-5 | 1: | mexican:"))
        ruling = referee.settle(TableState.parse("12 | 0: | 1: | mexican:"))
        assert [(a.code, d.tile) for a, d in ruling] == [("tile-removed", (12, 5))]

    def test_a_reread_judges_the_round_again_as_read_so_all_along(self) -> None:
        referee = Referee(RULES, players=2)
        referee.settle(TableState.parse("12 | 0: | 1: | mexican:"))
        referee.settle(TableState.parse("12 | 0: 12-3 | 1: | mexican:"))
        fixes: Reread = {(0, 0): ((12, 3), (12, 8))}
        referee.reread(fixes)
        assert referee.history[1] == TableState.parse("12 | 0: 12-8 | 1: | mexican:")
        # the re-read tile is no tile taken away and another laid
        ruling = referee.settle(TableState.parse("12 | 0: 12-8 | 1: 12-1 | mexican:"))
        assert ruling.alerts == ()

    def test_apply_rereadings_leaves_tiles_read_otherwise_since(self) -> None:
        table = TableState.parse("12 | 0: 12-4 | 1: | mexican:")
        assert apply_rereadings(table, {(0, 0): ((12, 3), (12, 8))}) == table


class TestEvents:
    @pytest.mark.parametrize("reason", list(CameraReason))
    def test_a_camera_status_says_its_reason(self, reason: CameraReason) -> None:
        status = CameraStatus(reason, "news", 3, 1.5)
        assert status.to_json() == {"event": "status", "frame": 3, "time": 1.5,
                                    "reason": reason.value, "message": "news"}
        assert status.ok == (reason in (CameraReason.STARTING, CameraReason.OPENED,
                                        CameraReason.ENDED))

    def test_watch_json_lines(self) -> None:
        table = TableState.parse("12 | 0: 12-5 | 1: | mexican:")
        settled = TableSettled(table, 1, frame=5, time_s=0.5)
        assert settled.to_json() == {"event": "table", "frame": 5, "time": 0.5,
                                     "table": table.to_json(), "turn": 1}
        assert str(settled).endswith("table  " + table.text())
        referee = Referee(RULES, 2)
        referee.settle(TableState.parse("12 | 0: | 1: | mexican:"))
        (alert, details), = list(referee.settle(
            TableState.parse("12 | 0: 12-5 5-6 | 1: | mexican:")))
        line = AlertRaised(alert, details, 7, 0.7).to_json()
        assert line["event"] == "alert" and line["alert"] == alert.to_json()
        assert line["message"] == alert.message
        assert line["details"] == {"tile": [5, 6], "end": 5, "double": None}
        assert Uncertain("a gap", 2, 0.2).to_json()["message"] == "a gap"
