"""The round's referee: the observer's alerts, and what each is about."""

from __future__ import annotations

import json
from pathlib import Path

from engine import AlertCode, AlertDetails, Observer, RuleSet, TableState
from engine.referee import Referee, Reread, apply_rereadings, judge

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
        assert alert.code is AlertCode.MISMATCH and alert.seat == 1
        assert details == AlertDetails(tile=(7, 4), end=12)
        assert referee.history == (first, laid, wrong)

    def test_the_tile_after_the_turns_last_and_the_double_waiting(self) -> None:
        referee = Referee(RULES, players=2)
        referee.settle(TableState.parse("12 | 0: | 1: | mexican:"))
        ruling = referee.settle(TableState.parse("12 | 0: 12-5 5-6 | 1: | mexican:"))
        (alert, details), = list(ruling)
        assert alert.code is AlertCode.EXTRA_TILE and details.tile == (5, 6) and details.end == 5
        referee = Referee(RULES, players=2, engine=12)
        referee.settle(TableState.parse("12 | 0: | 1: | mexican:"))
        referee.settle(TableState.parse("12 | 0: 12-5 5-5 | 1: | mexican:"))
        ruling = referee.settle(TableState.parse("12 | 0: 12-5 5-5 | 1: 12-3 | mexican:"))
        codes = {a.code: d for a, d in ruling}
        assert codes[AlertCode.UNSATISFIED_DOUBLE] == AlertDetails((12, 3), 12, (0, 5))

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

    def test_details_round_trip_their_json_and_ignore_anything_else(self) -> None:
        details = AlertDetails((12, 3), 12, ("mexican", 5))
        assert AlertDetails.from_json(details.to_json()) == details
        assert AlertDetails.from_json(AlertDetails().to_json()) == AlertDetails()
        junks: tuple[object, ...] = (
            None, [], "tile", {"tile": [1], "end": -1, "double": {"value": "x"}},
            {"tile": [True, 2], "double": {"train": "north", "value": 3}})
        for junk in junks:
            assert AlertDetails.from_json(junk) == AlertDetails()

    def test_every_code_says_what_it_is_about(self) -> None:
        referee = Referee(RULES, players=2)
        referee.settle(TableState.parse("12 | 0: 12-5 | 1: | mexican:"))
        (alert, details), = list(referee.settle(TableState.parse("12 | 0: | 1: | mexican:")))
        assert alert.code is AlertCode.TILE_REMOVED and details.tile == (12, 5)
        assert all(code.meaning and code.about for code in AlertCode)
