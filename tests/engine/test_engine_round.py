"""Rounds: scripted deals with asserted outcomes, one test per rule and house rule."""

from __future__ import annotations

import random
import re
from typing import Any

import pytest

from engine import (
    MEXICAN,
    BadInputError,
    GreedyBot,
    Move,
    RandomBot,
    Round,
    RuleSet,
    Tile,
    full_set,
)


def state(hands: list[list[list[int]]], trains: dict[Any, list[list[int]]] | None = None,
          markers: tuple[Any, ...] = (), rules: dict[str, Any] | None = None,
          **extra: Any) -> Round:
    """A round from CONTRACTS.md's STATE; trains by owner, markers by owner."""
    players = len(hands)
    trains = trains or {}
    owners: list[Any] = list(range(players)) + [MEXICAN]
    obj = {
        "rules": rules or {"name": "standard"},
        "players": players,
        "engine": extra.pop("engine", 12),
        "turn": extra.pop("turn", 0),
        "hands": hands,
        "boneyard": extra.pop("boneyard", []),
        "trains": [{"owner": o, "tiles": trains.get(o, []), "marker": o in markers}
                   for o in owners],
        "drawn": extra.pop("drawn", False),
    }
    obj.update(extra)
    return Round.from_json(obj)


def texts(rnd: Round) -> list[str]:
    return sorted(m.text() for m in rnd.legal_moves)


def play(rnd: Round, *moves: str) -> None:
    for text in moves:
        rnd.push(Move.parse(text))


class TestTurn:
    def test_plays_on_own_and_mexican_at_the_start(self) -> None:
        rnd = Round.scripted(RuleSet(), [["12-3", "1-2"], ["3-4"]], 12, ["5-6"])
        assert texts(rnd) == ["3-12@0", "3-12@mexican"]

    def test_must_play_if_able_no_draw(self) -> None:
        rnd = Round.scripted(RuleSet(), [["12-3"], ["3-4"]], 12, ["5-6"])
        assert Move.draw() not in rnd.legal_moves
        assert Move.pass_() not in rnd.legal_moves

    def test_draw_then_must_play_the_drawn_tile(self) -> None:
        rnd = Round.scripted(RuleSet(), [["1-2", "3-4"], ["3-5"]], 12, ["12-7", "5-6"])
        assert texts(rnd) == ["draw"]
        play(rnd, "draw")
        assert rnd.hand(0) == [Tile(1, 2), Tile(3, 4), Tile(7, 12)]
        assert texts(rnd) == ["7-12@0", "7-12@mexican"]

    def test_drawn_tile_may_be_kept_under_001(self) -> None:
        rules = RuleSet.preset("chain").with_values(first_turn="one-tile")
        rnd = Round.scripted(rules, [["1-2"], ["3-5"]], 12, ["12-7"])
        play(rnd, "draw")
        assert "pass" in texts(rnd)

    def test_draw_that_does_not_fit_then_pass_opens_the_train(self) -> None:
        rnd = Round.scripted(RuleSet(), [["1-2"], ["12-9", "4-4"]], 12, ["5-6"])
        play(rnd, "draw")
        assert texts(rnd) == ["pass"]
        assert Move.play(Tile(9, 12), 0) not in Round.scripted(
            RuleSet(), [["1-2"], ["12-9"]], 12, [], turn=1).legal_moves
        play(rnd, "pass")
        assert rnd.markers[0] is True and rnd.turn == 1
        assert "9-12@0" in texts(rnd)

    def test_playing_on_own_train_takes_the_marker_off(self) -> None:
        rnd = state([[[12, 3], [1, 1]], [[5, 6]]], markers=(0,), boneyard=[[8, 9]])
        play(rnd, "3-12@0")
        assert rnd.markers[0] is False

    def test_empty_boneyard_no_play_pass(self) -> None:
        rnd = Round.scripted(RuleSet(), [["1-2"], ["3-4"]], 12, [])
        assert texts(rnd) == ["pass"]

    def test_queries_never_mutate(self) -> None:
        rnd = Round.scripted(RuleSet(), [["12-3", "3-3"], ["3-4"]], 12, ["5-6"])
        before = rnd.to_json()
        assert rnd.legal_moves.count() == 2 == len(list(rnd.legal_moves))
        assert bool(rnd.legal_moves)
        assert Move.play(Tile(3, 12), MEXICAN) in rnd.legal_moves
        assert not rnd.is_legal(Move.play(Tile(3, 4), 0))
        assert not rnd.is_legal(Move.play(Tile(5, 12), 0))
        assert not rnd.is_legal(Move.play(Tile(3, 12), 1))
        assert rnd.to_json() == before

    def test_illegal_push_raises(self) -> None:
        rnd = Round.scripted(RuleSet(), [["12-3"], ["3-4"]], 12, [])
        with pytest.raises(ValueError, match="illegal"):
            rnd.push(Move.play(Tile(3, 4), 0))


class TestDoubles:
    def test_double_needs_a_follow_up_anywhere_usual_rule(self) -> None:
        rnd = state([[[3, 3], [12, 1], [3, 9]], [[5, 6]]], {0: [[12, 3]]})
        play(rnd, "3-3@0")
        assert rnd.turn == 0 and rnd.after_double
        assert texts(rnd) == ["1-12@mexican", "3-9@0"]

    def test_must_satisfy_own_double(self) -> None:
        rules = {"name": "standard", "must_satisfy_own_double": True}
        rnd = state([[[3, 3], [12, 1], [3, 9]], [[5, 6]]], {0: [[12, 3]]}, rules=rules)
        play(rnd, "3-3@0")
        assert texts(rnd) == ["3-9@0"]

    def test_open_double_restricts_everyone(self) -> None:
        rnd = state([[[1, 2]], [[5, 3], [12, 1]], [[9, 9]]], {0: [[12, 5], [5, 5]]},
                    markers=(0,), turn=1, boneyard=[[7, 8]])
        # Seat 1 must satisfy the double on train 0; nothing else.
        assert texts(rnd) == ["3-5@0"]
        play(rnd, "3-5@0")
        assert rnd.open == () and rnd.turn == 2

    def test_open_double_blocks_its_layer_on_later_turns(self) -> None:
        rnd = state([[[12, 4], [1, 2]], [[7, 7]]], {0: [[12, 5], [5, 5]]}, turn=0,
                    boneyard=[[8, 9]])
        assert texts(rnd) == ["draw"]

    def test_open_double_on_a_closed_train_may_be_satisfied(self) -> None:
        rnd = state([[[1, 2]], [[5, 3]]], {0: [[12, 5], [5, 5]]}, turn=1)
        assert texts(rnd) == ["3-5@0"]

    def test_dead_double_no_longer_blocks(self) -> None:
        # Double-6: every tile with a 5 is on the table, so 5-5 can never be satisfied.
        trains = {0: [[6, 5], [5, 5]], 1: [[6, 0], [0, 5], [5, 1]],
                  MEXICAN: [[6, 2], [2, 5], [5, 3], [3, 4], [4, 5]]}
        rnd = state([[[0, 0]], [[1, 2]]], trains, turn=1, engine=6,
                    rules={"name": "standard", "set": 6})
        assert rnd.is_dead(0)
        assert texts(rnd) == ["1-2@1"]
        trains[MEXICAN] = trains[MEXICAN][:-1]
        rnd = state([[[0, 0]], [[1, 2], [4, 5]]], trains, turn=1, engine=6,
                    rules={"name": "standard", "set": 6})
        assert texts(rnd) == ["5-4@0"] or texts(rnd) == ["4-5@0"]

    @pytest.mark.parametrize(("order", "expected"), [
        ("played", ["3-1@0"]),
        ("reverse", ["5-2@mexican"]),
        ("any", ["3-1@0", "5-2@mexican"]),
    ])
    def test_several_doubles_satisfy_order(self, order: str, expected: list[str]) -> None:
        rules = {"name": "standard", "satisfy_order": order}
        rnd = state([[[3, 3], [5, 5], [1, 3], [2, 5]], [[9, 9]]],
                    {0: [[12, 3]], MEXICAN: [[12, 5]]}, rules=rules)
        play(rnd, "3-3@0", "5-5@mexican")
        got = sorted(m.text() for m in rnd.legal_moves)
        assert got == sorted(e.replace("3-1", "1-3").replace("5-2", "2-5") for e in expected)

    def test_doubles_per_turn_limit(self) -> None:
        rules = {"name": "standard", "doubles_per_turn": 1}
        rnd = state([[[3, 3], [5, 5], [1, 3]], [[9, 9]]], {0: [[12, 3]], MEXICAN: [[12, 5]]},
                    rules=rules)
        play(rnd, "3-3@0")
        assert "5-5@mexican" not in texts(rnd)

    def test_no_follow_up_draw_then_pass_leaves_the_double_open(self) -> None:
        rnd = state([[[3, 3], [8, 9]], [[3, 1]]], {0: [[12, 3]]}, boneyard=[[10, 11]])
        play(rnd, "3-3@0", "draw", "pass")
        assert rnd.open == (0,) and rnd.markers[0] and rnd.turn == 1
        assert texts(rnd) == ["1-3@0"]

    @pytest.mark.parametrize("go_out", [True, False])
    def test_going_out_on_a_double(self, go_out: bool) -> None:
        rules = {"name": "standard", "go_out_on_double": go_out}
        rnd = state([[[6, 6]], [[1, 2]]], {0: [[12, 6]]}, rules=rules, boneyard=[[8, 9]])
        play(rnd, "6-6@0")
        assert rnd.over is go_out
        if go_out:
            assert rnd.winner == 0 and rnd.scores()[0] == 0
        else:
            assert texts(rnd) == ["draw"]

    def test_chicken_foot_needs_three_answers(self) -> None:
        rules = {"name": "chicken-foot"}
        rnd = state([[[3, 3], [3, 1], [8, 8]], [[3, 4], [12, 7]], [[3, 5], [12, 9]]],
                    {0: [[12, 3]]}, rules=rules)
        play(rnd, "3-3@0")
        assert texts(rnd) == ["1-3@0"]
        play(rnd, "1-3@0")
        assert texts(rnd) == ["3-4@0"]  # seat 1 must answer too
        play(rnd, "3-4@0")
        assert texts(rnd) == ["3-5@0"]
        play(rnd, "3-5@0")
        assert rnd.open == ()
        assert rnd.table().train(0).feet == ((3, 4), (3, 5))  # type: ignore[union-attr]
        assert rnd.turn == 0 and rnd.ends[0] == 1


class TestFirstTurn:
    def test_one_tile_may_start_mexican(self) -> None:
        rnd = Round.scripted(RuleSet(), [["12-3"], ["3-4"]], 12, [])
        assert "3-12@mexican" in texts(rnd)

    def test_own_train_only(self) -> None:
        rules = RuleSet(first_turn="own-train-only")
        rnd = Round.scripted(rules, [["12-3"], ["3-4"]], 12, [])
        assert texts(rnd) == ["3-12@0"]

    def test_own_train_only_draws_until_it_can_start(self) -> None:
        rules = RuleSet(first_turn="own-train-only")
        rnd = Round.scripted(rules, [["1-2"], ["3-4"]], 12, ["5-6", "7-8", "12-4"])
        play(rnd, "draw", "draw")
        assert texts(rnd) == ["draw"]
        play(rnd, "draw")
        assert texts(rnd) == ["4-12@0"]

    def test_chain_on_own_train(self) -> None:
        rules = RuleSet.preset("chain")
        rnd = Round.scripted(rules, [["12-3", "3-4", "4-5", "9-9"], ["1-2"]], 12, [])
        play(rnd, "3-12@0")
        assert texts(rnd) == ["3-4@0", "stop"]
        play(rnd, "3-4@0", "stop")
        assert rnd.turn == 1 and rnd.ends[0] == 4
        assert rnd.started == (True, False)


class TestEndOfRound:
    def test_going_out(self) -> None:
        rnd = Round.scripted(RuleSet(), [["12-3"], ["3-4", "0-0"]], 12, [])
        play(rnd, "3-12@0")
        assert rnd.over and rnd.winner == 0
        assert rnd.scores() == [0, 57]
        assert list(rnd.legal_moves) == []

    def test_two_passes_do_not_block_while_a_marked_train_takes_a_tile(self) -> None:
        trains = {0: [[12, 4]], 1: [[12, 5]], 2: [[12, 6]], MEXICAN: [[12, 7]]}
        rnd = state([[[1, 2]], [[2, 3]], [[4, 9]]], trains)
        play(rnd, "pass", "pass")
        assert not rnd.over
        assert texts(rnd) == ["4-9@0"]

    def test_blocked_round(self) -> None:
        trains = {0: [[12, 4]], 1: [[12, 5]], 2: [[12, 6]], MEXICAN: [[12, 7]]}
        rnd = state([[[1, 2]], [[2, 3]], [[1, 9]]], trains)
        play(rnd, "pass")
        assert rnd.over and rnd.blocked and rnd.winner is None
        assert rnd.scores() == [3, 5, 10]

    def test_blocked_low_wins_003(self) -> None:
        trains = {0: [[12, 4]], 1: [[12, 5]], 2: [[12, 6]], MEXICAN: [[12, 7]]}
        rnd = state([[[1, 2]], [[2, 3]], [[1, 9]]], trains,
                    rules={"name": "standard", "blocked_low_wins": True})
        play(rnd, "pass")
        assert rnd.scores() == [0, 5, 10]

    def test_positive_scoring(self) -> None:
        rnd = state([[[12, 3]], [[3, 4], [0, 0]]], rules={"name": "positive"},
                    first_turn=True)
        play(rnd, "3-12@0")
        assert rnd.scores() == [57, 0]


class TestPushPop:
    @pytest.mark.parametrize("preset", ["standard", "chain", "private-marker", "chicken-foot"])
    def test_pop_restores_every_state(self, preset: str) -> None:
        rng = random.Random(7)
        rnd = Round.deal(RuleSet.preset(preset), 3, 9, 0, rng)
        bots = [GreedyBot(), RandomBot(rng), GreedyBot()]
        states = [rnd.to_json()]
        while not rnd.over:
            rnd.push(bots[rnd.turn].choose(rnd))
            states.append(rnd.to_json())
        while rnd.move_stack:
            states.pop()
            rnd.pop()
            assert rnd.to_json() == states[-1]


class TestDeal:
    @pytest.mark.parametrize("preset", ["standard", "engine-holder", "private-marker", "chain"])
    @pytest.mark.parametrize("players", [2, 4, 8])
    def test_tiles_conserved(self, preset: str, players: int) -> None:
        rules = RuleSet.preset(preset)
        rnd = Round.deal(rules, players, 12, 0, random.Random(players))
        tiles = [t for p in range(players) for t in rnd.hand(p)]
        tiles += [rnd.tile(t) for t in rnd.boneyard] + [Tile(rnd.engine, rnd.engine)]
        assert sorted(tiles) == full_set(12)
        if rules.engine_from == "set-aside":
            assert all(len(rnd.hands[p]) == rules.tiles_per_hand(players) for p in range(players))

    def test_engine_holder_starts(self) -> None:
        rules = RuleSet.preset("engine-holder")
        for seed in range(10):
            rnd = Round.deal(rules, 4, 7, 0, random.Random(seed))
            assert rnd.engine == 7
            assert Tile(7, 7) not in [t for p in range(4) for t in rnd.hand(p)]
            assert rnd.tile(7 * 13 + 7) == Tile(7, 7)

    def test_highest_double_becomes_the_engine(self) -> None:
        rules = RuleSet(engine_from="highest-double", starter="holder")
        rnd = Round.deal(rules, 4, 12, 0, random.Random(3))
        held = [t for p in range(4) for t in rnd.hand(p) if t.is_double]
        assert all(t.a < rnd.engine for t in held)


class TestStateJson:
    def test_round_trip(self) -> None:
        rnd = Round.deal(RuleSet(), 4, 12, 0, random.Random(1))
        GreedyBot().choose(rnd)
        obj = rnd.to_json()
        assert Round.from_json(obj).to_json() == obj

    @pytest.mark.parametrize(("change", "problem"), [
        ({"hands": [[[5, 7], [5, 7]], [[0, 1]]]}, "hands[0][1]: tile 5-7 is also at hands[0][0]"),
        ({"boneyard": [[2, 13]]}, "boneyard[0]: [2, 13] is outside the double-12 set"),
        ({"trains": [{"owner": 0, "tiles": [[4, 1]], "marker": False}]},
         "trains[0].tiles[0]: [4, 1] does not match the engine"),
        ({"players": 3}, "hands: expected 3 hands"),
        ({"turn": 5}, "turn: expected a seat 0-1"),
        ({"rules": {"name": "nope"}}, "rules.name: unknown rule set 'nope'"),
        ({"rules": {"name": "standard", "colour": 1}}, "rules.colour: unknown rule key"),
        ({"hands": [[[5, 5]], [[0, 1]]]}, "hands[0][0]: tile 5-5 is also at engine"),
        ({"trains": [{"owner": 9, "tiles": [], "marker": False}]}, "trains[0].owner: no seat 9"),
    ])
    def test_impossible_states(self, change: dict[str, Any], problem: str) -> None:
        obj: dict[str, Any] = {
            "rules": {"name": "standard"}, "players": 2, "engine": 5, "turn": 0,
            "hands": [[[5, 7], [3, 4]], [[0, 1]]], "boneyard": [[2, 3]],
            "trains": [], "drawn": False,
        }
        obj.update(change)
        with pytest.raises(BadInputError) as info:
            Round.from_json(obj, "STATE.json")
        assert info.value.source == "STATE.json"
        assert problem in info.value.problem


class TestDoublesThisTurn:
    """STATE's ``doubles_this_turn``: every double the player to move laid this turn."""

    RULES = {"name": "standard", "satisfy_order": "reverse"}

    def two_doubles(self) -> Round:
        rnd = state([[[3, 3], [5, 5], [3, 9], [5, 8]], [[0, 1]]],
                    {0: [[12, 3]], MEXICAN: [[12, 5]]}, rules=self.RULES)
        play(rnd, "3-3@0", "5-5@mexican")
        return rnd

    def test_written_in_laid_order_and_read_back(self) -> None:
        rnd = self.two_doubles()
        obj = rnd.to_json()
        assert obj["doubles_this_turn"] == [0, MEXICAN] and obj["after_double"]
        again = Round.from_json(obj)
        assert again.to_json() == obj
        assert texts(again) == texts(rnd) == ["5-8@mexican"]  # the last double first

    def test_without_it_only_the_last_double_is_this_turn(self) -> None:
        obj = self.two_doubles().to_json()
        del obj["doubles_this_turn"]
        # the double on train 0 reads as one left from an earlier turn: it comes first
        assert texts(Round.from_json(obj)) == ["3-9@0"]

    def test_it_implies_after_double(self) -> None:
        obj = self.two_doubles().to_json()
        del obj["after_double"]
        assert Round.from_json(obj).after_double
        obj["doubles_this_turn"] = []
        assert not Round.from_json(obj).after_double

    @pytest.mark.parametrize(("value", "problem"), [
        ([1], "doubles_this_turn[0]: train 1 does not end in an open double"),
        ([0, 0], "doubles_this_turn[1]: train 0 does not end in an open double"),
        ([7], "doubles_this_turn[0]: no train 7"),
        ("mexican", "doubles_this_turn: expected a list of train owners"),
    ])
    def test_bad_entries(self, value: Any, problem: str) -> None:
        obj = self.two_doubles().to_json()
        obj["doubles_this_turn"] = value
        with pytest.raises(BadInputError, match=re.escape(problem)):
            Round.from_json(obj)

    def test_contradicting_after_double(self) -> None:
        obj = self.two_doubles().to_json()
        obj["after_double"] = False
        with pytest.raises(BadInputError, match="after_double says no double"):
            Round.from_json(obj)
        obj["after_double"], obj["doubles_this_turn"] = True, []
        with pytest.raises(BadInputError, match="after_double says a double"):
            Round.from_json(obj)


class TestLastTile:
    def test_forgotten_announcement_draws_two_under_003(self) -> None:
        rules = RuleSet.preset("private-marker")
        rnd = Round.scripted(rules, [["1-2"], ["3-4", "5-6"]], 12, ["7-8", "9-10", "11-11"])
        assert rnd.penalize_unannounced(0) == [Tile(7, 8), Tile(9, 10)]
        assert len(rnd.hands[0]) == 3 and len(rnd.boneyard) == 1
        assert rnd.penalize_unannounced(1) == []  # two tiles: nothing to announce

    def test_no_penalty_under_standard(self) -> None:
        rnd = Round.scripted(RuleSet(), [["1-2"], ["3-4"]], 12, ["7-8"])
        assert rnd.penalize_unannounced(0) == []


def test_chain_double_without_follow_up_draws_not_stops() -> None:
    rules = RuleSet.preset("chain")
    rnd = Round.scripted(rules, [["12-3", "3-3", "1-2"], ["0-1"]], 12, ["9-10"])
    play(rnd, "3-12@0", "3-3@0")
    assert texts(rnd) == ["draw"]
    play(rnd, "draw")
    assert texts(rnd) == ["pass"]
