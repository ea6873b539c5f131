"""Bots, hints, games and property tests over random deals and bot games."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import (
    BOTS,
    Game,
    GreedyBot,
    LongestTrainBot,
    Move,
    RandomBot,
    Round,
    RuleSet,
    Tile,
    full_set,
    hint,
    make_bot,
)
from engine.bots import longest_chain

PRESETS = ["standard", "double-9", "chain", "engine-holder", "private-marker", "positive",
           "chicken-foot"]


class TestBots:
    def test_greedy_plays_the_heaviest_tile(self) -> None:
        rnd = Round.scripted(RuleSet(), [["12-1", "12-11", "12-5"], ["3-4"]], 12, [])
        assert GreedyBot().choose(rnd) == Move.play(Tile(11, 12), 0)

    def test_longest_keeps_its_chain_and_sheds_the_rest(self) -> None:
        # Chain on own train: 12-3 3-4 4-5; 12-9 is not needed there, so it goes elsewhere.
        rnd = Round.scripted(RuleSet(), [["12-3", "3-4", "4-5", "12-9"], ["0-1"]], 12, [])
        assert LongestTrainBot().choose(rnd) == Move.play(Tile(9, 12), "mexican")

    def test_longest_chain(self) -> None:
        size = 13
        ids = [3 * size + 12, 3 * size + 4, 4 * size + 5, 1 * size + 2]
        assert longest_chain(ids, 12, size) == [3 * size + 12, 3 * size + 4, 4 * size + 5]
        assert longest_chain([], 12, size) == []

    def test_bot_names(self) -> None:
        assert set(BOTS) == {"random", "greedy", "longest"}
        with pytest.raises(KeyError):
            make_bot("clever")

    def test_hint_ranks_every_legal_move(self) -> None:
        rnd = Round.scripted(RuleSet(), [["12-3", "3-4", "12-9"], ["0-1"]], 12, [])
        ranked = hint(rnd)
        assert {m for m, _ in ranked} == set(rnd.legal_moves)
        scores = [s for _, s in ranked]
        assert scores == sorted(scores, reverse=True)
        assert ranked[0][0] == Move.play(Tile(9, 12), "mexican")


class TestGame:
    def test_thirteen_rounds_counting_the_engine_down(self) -> None:
        game = Game(RuleSet(), 4).play([GreedyBot()] * 4, random.Random(1))
        assert [r.engine for r in game.results] == list(range(12, -1, -1))
        assert game.totals == [sum(r.scores[s] for r in game.results) for s in range(4)]
        assert min(game.totals) == game.totals[game.winners[0]]
        for result in game.results:
            assert (result.winner is None) == result.blocked
            if result.winner is not None:
                assert result.scores[result.winner] == 0

    def test_ties_share_the_win(self) -> None:
        game = Game(RuleSet(), 2)
        assert game.winners == [0, 1]  # no rounds yet: 0 = 0

    def test_positive_scoring_winner_is_the_highest(self) -> None:
        game = Game(RuleSet.preset("positive"), 3).play([GreedyBot()] * 3, random.Random(2))
        assert game.totals[game.winners[0]] == max(game.totals)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), preset=st.sampled_from(PRESETS),
       players=st.integers(2, 6))
def test_random_bot_games_conserve_tiles_and_play_legal_moves(
    seed: int, preset: str, players: int
) -> None:
    rules = RuleSet.preset(preset)
    if rules.set == 9:
        players = min(players, 4)
    rng = random.Random(seed)
    rnd = Round.deal(rules, players, rng.randrange(rules.set + 1), rng.randrange(players), rng)
    bots = [RandomBot(random.Random(seed + s)) for s in range(players)]
    total = len(full_set(rules.set))
    while not rnd.over:
        moves = list(rnd.legal_moves)
        assert moves, "a round that is not over always has a legal move"
        assert len(moves) == len(set(moves)) == rnd.legal_moves.count()
        move = bots[rnd.turn].choose(rnd)
        assert move in rnd.legal_moves
        rnd.push(move)  # push refuses an illegal move
        assert rnd.tiles_in_play() == total
    tiles = rnd.table().tiles()
    tiles += [t for p in range(players) for t in rnd.hand(p)]
    tiles += [rnd.tile(t) for t in rnd.boneyard]
    assert sorted(tiles) == full_set(rules.set)  # every tile exactly once
    assert rnd.table().problems(rules.set, players) == []


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10**6), preset=st.sampled_from(PRESETS))
def test_fast_self_play_matches_push(seed: int, preset: str) -> None:
    # play_out (no undo stack) and push (checked) reach the same end.
    rules = RuleSet.preset(preset)
    a = Round.deal(rules, 4 if rules.set != 9 else 3, 6, 1, random.Random(seed))
    b = Round.deal(rules, 4 if rules.set != 9 else 3, 6, 1, random.Random(seed))
    bots = [GreedyBot(), LongestTrainBot(), GreedyBot(), LongestTrainBot()]
    a.play_out(bots)
    while not b.over:
        b.push(bots[b.turn].choose(b))
    assert a.table() == b.table()
    assert a.scores() == b.scores() and a.turns == b.turns
