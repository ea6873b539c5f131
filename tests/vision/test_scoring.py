"""Scoring hands read from photos."""

from __future__ import annotations

import numpy as np
import pytest

from engine import RuleSet, Tile
from vision.detections import Detections
from vision.reader import FrameReading, TileReading
from vision.scoring import flag_duplicates, hand_from_reading

BASE = np.array([[0, 40], [0, 0], [80, 0], [80, 40]], np.float32)


def frame(*tiles: tuple[tuple[int, int], float, bool]) -> FrameReading:
    readings = [TileReading(values, BASE + [100 * i, 0], 0.9, uncertain)
                for i, (values, x, uncertain) in enumerate(tiles)]
    # place each tile at its x (so the order of the list is not the order on the photo)
    readings = [TileReading(r.values, BASE + [x, 0], r.confidence, r.uncertain)
                for r, (_, x, _) in zip(readings, tiles, strict=True)]
    return FrameReading(readings, Detections.empty())


class TestHand:
    def test_points_and_order_left_to_right(self) -> None:
        hand = hand_from_reading(frame(((4, 3), 300, False), ((0, 0), 0, False)), RuleSet())
        assert hand.tiles == (Tile(0, 0), Tile(3, 4))
        assert hand.points == 57  # 0-0 is 50 in standard
        assert hand.to_json() == {"tiles": [[0, 0], [3, 4]], "points": 57, "uncertain": []}

    def test_blank_half_rule(self) -> None:
        rules = RuleSet().override("blank_half", "10")
        hand = hand_from_reading(frame(((0, 5), 0, False), ((0, 0), 100, False)), rules)
        assert hand.points == 5 + 10 + rules.double_blank

    @pytest.mark.parametrize(("values", "flagged"), [((3, 13), True), ((3, 12), False)])
    def test_value_outside_the_set_is_flagged(self, values: tuple[int, int],
                                              flagged: bool) -> None:
        hand = hand_from_reading(frame((values, 0, False)), RuleSet())
        assert (hand.uncertain == (0,)) is flagged

    def test_uncertain_reading_is_flagged_and_still_counted(self) -> None:
        hand = hand_from_reading(frame(((2, 2), 0, True), ((1, 1), 100, False)), RuleSet())
        assert hand.uncertain == (0,) and hand.points == 6
        assert "2-2?" in hand.text()

    def test_empty_hand(self) -> None:
        hand = hand_from_reading(frame(), RuleSet())
        assert hand.points == 0 and hand.tiles == ()
        assert "no tiles" in hand.text()


def test_a_tile_read_twice_is_flagged_in_both_hands() -> None:
    rules = RuleSet()
    first = hand_from_reading(frame(((5, 6), 0, False), ((1, 2), 100, False)), rules)
    second = hand_from_reading(frame(((6, 5), 0, False),), rules)
    a, b = flag_duplicates([first, second])
    assert a.uncertain == (0,) and b.uncertain == (0,)
