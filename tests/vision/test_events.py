"""The typed events every source of tables speaks."""

from __future__ import annotations

import pytest

from engine import Referee, RuleSet, TableState
from vision.events import (
    AlertRaised,
    CameraReason,
    CameraStatus,
    TableSettled,
    Uncertain,
)

RULES = RuleSet.preset("standard")


class TestEvents:
    @pytest.mark.parametrize("reason", list(CameraReason))
    def test_a_camera_status_says_its_reason(self, reason: CameraReason) -> None:
        status = CameraStatus(reason, "news", 3, 1.5)
        assert status.to_json() == {"event": "status", "frame": 3, "time": 1.5,
                                    "reason": reason.value, "message": "news"}
        assert status.ok == (reason in (CameraReason.STARTING, CameraReason.OPENED,
                                        CameraReason.ENDED, CameraReason.MOVED))

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
