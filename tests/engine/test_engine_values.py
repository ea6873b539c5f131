"""Value types and text forms: Tile, Move, RuleSet, TableState, hand points."""

from __future__ import annotations

import re
from typing import Any

import pytest

from engine import (
    DEAL_TABLES,
    PRESETS,
    BadInputError,
    Move,
    RuleSet,
    TableState,
    Tile,
    Train,
    full_set,
    hand_points,
)


class TestTile:
    def test_canonical_order_and_text(self) -> None:
        assert Tile(7, 5) == Tile(5, 7)
        assert str(Tile(7, 5)) == "5-7"
        assert repr(Tile(7, 5)) == "Tile(5, 7)"
        assert hash(Tile(7, 5)) == hash(Tile(5, 7))
        assert Tile.parse(" 12-3 ") == Tile(3, 12)

    def test_properties(self) -> None:
        tile = Tile(4, 9)
        assert tile.pair == (4, 9)
        assert tile.pips == 13 and not tile.is_double and tile.has(9) and tile.other(9) == 4
        assert Tile(6, 6).is_double and Tile(6, 6).other(6) == 6
        with pytest.raises(ValueError):
            tile.other(5)

    def test_frozen(self) -> None:
        with pytest.raises(AttributeError):
            Tile(1, 2).a = 3

    @pytest.mark.parametrize("text", ["5", "5-", "a-b", "1-2-3", ""])
    def test_parse_errors(self, text: str) -> None:
        with pytest.raises(ValueError, match="not a tile"):
            Tile.parse(text)

    @pytest.mark.parametrize(("n", "count"), [(6, 28), (9, 55), (12, 91), (15, 136), (18, 190)])
    def test_full_sets(self, n: int, count: int) -> None:
        tiles = full_set(n)
        assert len(tiles) == len(set(tiles)) == count
        assert tiles == sorted(tiles)


class TestMove:
    @pytest.mark.parametrize("text", ["5-7@0", "5-7@mexican", "draw", "pass", "stop"])
    def test_round_trip(self, text: str) -> None:
        assert Move.parse(text).text() == text

    def test_parse_error(self) -> None:
        with pytest.raises(ValueError):
            Move.parse("5-7@left")


class TestRuleSet:
    def test_standard_follows_000(self) -> None:
        rules = RuleSet.preset("standard")
        assert rules == RuleSet()
        assert (rules.set, rules.double_blank, rules.blank_half, rules.first_turn) == (
            12, 50, 0, "one-tile")
        assert (rules.must_satisfy_own_double, rules.doubles_per_turn, rules.satisfy_order) == (
            False, 0, "played")
        assert (rules.go_out_on_double, rules.marker_means, rules.chicken_foot) == (
            True, "open", False)

    @pytest.mark.parametrize("name", list(PRESETS))
    def test_presets_round_trip(self, name: str) -> None:
        rules = RuleSet.preset(name)
        assert RuleSet.from_json(rules.to_json()) == rules
        assert rules.describe() == PRESETS[name]

    @pytest.mark.parametrize(("name", "key", "value"), [
        ("chain", "first_turn", "chain"),
        ("engine-holder", "engine_from", "holder"),
        ("private-marker", "marker_means", "private"),
        ("chicken-foot", "chicken_foot", True),
        ("positive", "positive_scoring", True),
    ])
    def test_house_rule_presets(self, name: str, key: str, value: Any) -> None:
        assert getattr(RuleSet.preset(name), key) == value

    @pytest.mark.parametrize(("deal", "set_", "players", "size"), [
        ("000", 12, 2, 16), ("000", 12, 4, 15), ("000", 12, 8, 9), ("000", 9, 3, 13),
        ("001", 12, 4, 12), ("001", 9, 2, 8), ("002", 12, 7, 10), ("003", 12, 5, 11),
    ])
    def test_deal_tables(self, deal: str, set_: int, players: int, size: int) -> None:
        assert deal in DEAL_TABLES
        assert RuleSet(deal=deal, set=set_).tiles_per_hand(players) == size

    def test_override(self) -> None:
        rules = RuleSet().override("double_blank", "25").override("chicken_foot", "yes")
        assert rules.double_blank == 25 and rules.chicken_foot

    @pytest.mark.parametrize(("key", "value", "problem"), [
        ("colour", "1", "unknown rule key 'colour'"),
        ("double_blank", "many", "expected an integer"),
        ("chicken_foot", "maybe", "expected true or false"),
        ("set", "11", "set: 11 is not one of"),
        ("first_turn", "all", "first_turn: 'all' is not one of"),
    ])
    def test_bad_override(self, key: str, value: str, problem: str) -> None:
        with pytest.raises(BadInputError, match=problem):
            RuleSet().override(key, value)

    def test_unknown_preset(self) -> None:
        with pytest.raises(BadInputError, match="unknown rule set 'house'"):
            RuleSet.preset("house")

    def test_from_json_type_errors(self) -> None:
        with pytest.raises(BadInputError, match="rules.double_blank: expected int"):
            RuleSet.from_json({"name": "standard", "double_blank": "50"}, "x.json")


class TestPoints:
    @pytest.mark.parametrize(("tiles", "rules", "points"), [
        ([Tile(0, 0)], RuleSet(), 50),
        ([Tile(0, 0)], RuleSet(double_blank=25), 25),
        ([Tile(0, 5), Tile(3, 4)], RuleSet(), 12),
        ([Tile(0, 5), Tile(0, 0)], RuleSet.preset("private-marker"), 80),
        ([], RuleSet(), 0),
    ])
    def test_hand_points(self, tiles: list[Tile], rules: RuleSet, points: int) -> None:
        assert hand_points(tiles, rules) == points


class TestTableState:
    TEXT = "12 | 0: 12-5 5-5 * | 1: | mexican: 12-1 1-1"

    def test_text_round_trip(self) -> None:
        table = TableState.parse(self.TEXT)
        assert table.text() == self.TEXT
        assert table.train(0) == Train(0, ((12, 5), (5, 5)), True)
        assert table.open_doubles == [0, "mexican"]

    def test_json_round_trip(self) -> None:
        table = TableState.parse(self.TEXT)
        assert TableState.from_json(table.to_json()) == table
        feet = TableState(3, (Train(0, ((3, 3), (3, 1)), False, ((3, 4),)),))
        assert TableState.parse(feet.text()) == feet
        assert TableState.from_json(feet.to_json()) == feet

    @pytest.mark.parametrize(("text", "problem"), [
        ("x | 0:", "engine: expected an integer"),
        ("12 | 0 12-5", "field 1: expected 'OWNER: tiles'"),
        ("12 | west: 12-5", "field 1: bad owner 'west'"),
        ("12 | 0: 12+5", "field 1: bad tile '12+5'"),
    ])
    def test_parse_errors_name_the_field(self, text: str, problem: str) -> None:
        with pytest.raises(BadInputError, match=re.escape(problem)):
            TableState.parse(text)

    @pytest.mark.parametrize(("obj", "problem"), [
        ([], "expected an object"),
        ({"engine": 12}, "trains: expected a list"),
        ({"engine": 12, "trains": [{"owner": "x"}]}, "trains[0].owner"),
        ({"engine": 12, "trains": [{"owner": 0, "tiles": [[1]]}]}, "trains[0].tiles[0]"),
        ({"engine": 12, "trains": [{"owner": 0, "marker": 1}]}, "trains[0].marker"),
    ])
    def test_json_errors_name_the_field(self, obj: Any, problem: str) -> None:
        with pytest.raises(BadInputError, match=re.escape(problem)):
            TableState.from_json(obj)

    def test_dead_doubles(self) -> None:
        text = "6 | 0: 6-5 5-5 | 1: 6-0 0-5 5-1 | mexican: 6-2 2-5 5-3 3-4 4-5"
        assert TableState.parse(text).dead_doubles(6) == [0]
        text = "6 | 0: 6-5 5-5 | 1: 6-0 0-5 5-1 | mexican: 6-2 2-5 5-3 3-4"
        assert TableState.parse(text).dead_doubles(6) == []

    def test_problems_never_raise(self) -> None:
        table = TableState.parse("12 | 0: 12-5 5-13 | 0: | 1: 4-5 | 7: 12-5")
        problems = table.problems(set_size=12, players=2)
        assert any("0 has 2 trains" in p for p in problems)
        assert any("does not match the engine" in p for p in problems)
        assert any("5-12 is on the table 2 times" in p for p in problems)
        assert any("outside the double-12 set" in p for p in problems)
        assert any("train 7: no such seat" in p for p in problems)
        assert TableState.parse(self.TEXT).problems(12, 2) == []
