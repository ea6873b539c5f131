"""engine.legality: where a tile may go, the one statement the round and the observer share."""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest
from engine_testkit import PRESETS_FED

from engine import MEXICAN, GreedyBot, RandomBot, Round, RuleSet
from engine.legality import Allowed, allowed, breach, fit
from engine.rules import CHICKEN_FOOT_ANSWERS

Key = int | str


def where(rules: RuleSet, *, open_doubles: Sequence[Key] = (), fresh: Sequence[Key] = (),
          trains_open: Sequence[Key] = (0, MEXICAN), dead: Sequence[Key] = (),
          after_double: bool = False, chaining: bool = False,
          first_turn: bool = False) -> Allowed[Key]:
    """Where seat 0 may play."""
    return allowed(rules, 0, lambda p: list(trains_open), list(open_doubles), list(fresh),
                   lambda k: k not in dead, after_double=after_double, chaining=chaining,
                   first_turn=first_turn)


def code(place: Allowed[Key], train: Key, double: bool = False) -> str | None:
    found = breach(place, 0, train, "3-3" if double else "3-4", double=double)
    return None if found is None else found.code


class TestAllowed:
    def test_free_play_goes_on_open_trains_only(self) -> None:
        place = where(RuleSet(), trains_open=(0, 2, MEXICAN))
        assert list(place.singles) == list(place.doubles) == [0, 2, MEXICAN]
        assert code(place, 2) is None and code(place, 1) == "closed-train"

    def test_an_earlier_double_holds_every_tile(self) -> None:
        place = where(RuleSet(), open_doubles=[1, MEXICAN], trains_open=(0, 1, MEXICAN))
        assert list(place.singles) == [1] and not place.doubles
        assert code(place, MEXICAN) == "double-order"
        assert code(place, 0) == "unsatisfied-double"
        assert code(place, 1, double=True) == "unsatisfied-double"

    def test_a_dead_double_holds_nothing(self) -> None:
        place = where(RuleSet(), open_doubles=[1], dead=[1])
        assert list(place.singles) == [0, MEXICAN]

    def test_reverse_order_satisfies_the_last_double_first(self) -> None:
        place = where(RuleSet(satisfy_order="reverse"), open_doubles=[0, MEXICAN],
                      fresh=[0, MEXICAN], after_double=True)
        assert list(place.singles) == [MEXICAN]
        assert code(place, 0) == "double-order"

    def test_one_own_double_leaves_the_follow_up_free_unless_the_rules_say(self) -> None:
        assert list(where(RuleSet(), open_doubles=[MEXICAN], fresh=[MEXICAN],
                          after_double=True).singles) == [0, MEXICAN]
        own = where(RuleSet(must_satisfy_own_double=True), open_doubles=[MEXICAN],
                    fresh=[MEXICAN], after_double=True)
        assert list(own.singles) == [MEXICAN] and not own.doubles
        assert code(own, 0) == "unsatisfied-double"

    def test_double_limits(self) -> None:
        per_turn = where(RuleSet(doubles_per_turn=1), open_doubles=[MEXICAN], fresh=[MEXICAN],
                         after_double=True)
        assert not per_turn.doubles and code(per_turn, 0, double=True) == "extra-tile"
        on_table = where(RuleSet(max_open_doubles=1), open_doubles=[1], dead=[], fresh=[1],
                         after_double=True)
        assert code(on_table, 0, double=True) == "extra-tile"

    def test_first_turn_and_chain_keep_to_ones_own_train(self) -> None:
        first = where(RuleSet(first_turn="own-train-only"), first_turn=True)
        assert list(first.singles) == [0] and code(first, MEXICAN) == "first-turn"
        chain = where(RuleSet(first_turn="chain"), chaining=True)
        assert list(chain.singles) == [0] and code(chain, MEXICAN) == "extra-tile"


class TestFit:
    def test_a_tile_matches_its_end(self) -> None:
        assert fit(5, 7, 5, None, foot=False) is None
        found = fit(4, 7, 5, None, foot=False)
        assert found is not None and found.code == "mismatch"

    def test_chicken_feet(self) -> None:
        assert fit(5, 7, 5, (5, CHICKEN_FOOT_ANSWERS), foot=False) is None  # the line tile first
        side = fit(5, 8, 7, (5, CHICKEN_FOOT_ANSWERS), foot=True)
        assert side is not None and side.code == "mismatch"  # no side tile before it
        assert fit(5, 8, 7, (5, CHICKEN_FOOT_ANSWERS - 1), foot=True) is None
        line = fit(7, 9, 7, (5, CHICKEN_FOOT_ANSWERS - 1), foot=False)
        assert line is not None and line.code == "unsatisfied-double"


@pytest.mark.parametrize("preset", PRESETS_FED)
def test_the_fast_path_of_the_move_generator_follows_the_rules(preset: str) -> None:
    """Round's quick case (no open double at a turn's start) lists what legality allows."""
    rules = RuleSet.preset(preset)
    for seed in range(4):
        rng = random.Random(seed)
        rnd = Round.deal(rules, 4 if rules.set > 9 else 3, None, 0, rng)
        bots = [GreedyBot(), RandomBot(random.Random(seed))] * 2
        while not rnd.over:
            p = rnd.turn
            assert sorted(rnd._plays(p)) == sorted(rnd._plays_general(p)), rnd
            rnd.push(bots[p].choose(rnd))
