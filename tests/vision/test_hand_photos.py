"""Scoring hands read from photos."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from engine import RuleSet, Tile
from vision.models.detections import Detections
from vision.models.domino_check import DominoCheck, Verdicts
from vision.reading.cover_check import COVERED_SURE
from vision.readings import FrameReading, TileReading, TileReadings
from vision.stills.hand_photos import (
    Doubt,
    checked_boxes,
    flag_duplicates,
    hand_from_reading,
    read_hand,
)

BASE = np.array([[0, 40], [0, 0], [80, 0], [80, 40]], np.float32)


def frame(*tiles: tuple[tuple[int, int], float, bool]) -> FrameReading:
    readings = [TileReading(values, BASE + [100 * i, 0], 0.9, uncertain)
                for i, (values, x, uncertain) in enumerate(tiles)]
    # place each tile at its x (so the order of the list is not the order on the photo)
    readings = [TileReading(r.values, BASE + [x, 0], r.confidence, r.uncertain)
                for r, (_, x, _) in zip(readings, tiles, strict=True)]
    return FrameReading(TileReadings.of(readings), Detections.empty())


class TestHand:
    def test_points_and_order_left_to_right(self) -> None:
        hand = hand_from_reading(frame(((4, 3), 300, False), ((0, 0), 0, False)), RuleSet())
        assert hand.tiles == (Tile(0, 0), Tile(3, 4))
        assert hand.points == 57  # 0-0 is 50 in standard
        assert hand.to_json() == {"tiles": [[0, 0], [3, 4]], "points": 57, "uncertain": [],
                                  "check": False, "doubts": [[], []]}

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
        assert hand.needs_check  # a photo of a hand with nothing found in it is looked at


class TestDoubts:
    """Every box a hand's points rest on with doubt is marked, with its reasons."""

    def test_a_half_with_a_range_of_counts_is_doubted(self) -> None:
        corners = BASE.copy()
        read = TileReading((4, 6), corners, 0.9, False, 0.9, (1.0, 0.7), ((4, 4), (5, 6)))
        hand = hand_from_reading(FrameReading(TileReadings.of([read]), Detections.empty()),
                                 RuleSet())
        assert hand.doubts == ((Doubt.RANGE,),) and hand.needs_check
        assert hand.points == 10  # counted as read, and marked
        assert hand.to_json()["check"] is True and hand.to_json()["doubts"] == [["range"]]

    def test_a_box_that_may_not_be_a_tile_is_left_out_and_marked(self) -> None:
        grain = TileReading((1, 2), BASE + [200, 0], 0.1, True, detector_confidence=0.12)
        tile = TileReading((3, 4), BASE.copy(), 0.9, False, detector_confidence=0.9)
        hand = hand_from_reading(FrameReading(TileReadings.of([grain, tile]), Detections.empty()),
                                 RuleSet())
        assert hand.tiles == (Tile(3, 4),) and hand.points == 7  # not counted...
        assert hand.needs_check and hand.uncertain == ()  # ...but the hand is marked
        (box,) = hand.left_out
        assert box.reading.values == grain.values and Doubt.MAYBE_NOT_TILE in box.doubts
        assert box.reading.detector_confidence == grain.detector_confidence
        assert hand.to_json()["left_out"][0]["values"] == [1, 2]
        assert "left out: 1-2" in hand.text() and "CHECK" in hand.text()

    def test_a_tile_read_twice_in_one_photo_is_doubted(self) -> None:
        hand = hand_from_reading(frame(((0, 0), 0, False), ((0, 0), 100, False)), RuleSet())
        assert hand.doubts == ((Doubt.TWICE,), (Doubt.TWICE,)) and hand.needs_check

    def test_a_sure_hand_needs_no_check(self) -> None:
        hand = hand_from_reading(frame(((1, 2), 0, False), ((3, 5), 100, False)), RuleSet())
        assert not hand.needs_check and hand.doubts == ((), ())


def test_a_tile_read_twice_is_flagged_in_both_hands() -> None:
    rules = RuleSet()
    first = hand_from_reading(frame(((5, 6), 0, False), ((1, 2), 100, False)), rules)
    second = hand_from_reading(frame(((6, 5), 0, False),), rules)
    a, b = flag_duplicates([first, second])
    assert a.uncertain == (0,) and b.uncertain == (0,)


class _Reader:
    """Answers every read with the same tiles (a photo seen from above: read once).
    Without a ``cover_check`` (a stand-in reader), nothing is checked."""

    def __init__(self, tiles: list[TileReading]) -> None:
        self.tiles = tiles
        self.reads = 0

    def reset(self) -> None:
        pass

    def read(self, image: np.ndarray) -> FrameReading:
        self.reads += 1
        return FrameReading(TileReadings.of(list(self.tiles)), Detections.empty(), image.shape[:2])


def _scored(values: tuple[int, int], x: float, detector: float) -> TileReading:
    return TileReading(values, BASE + [x, 0], 0.9 * detector, False, detector)


class TestReadHand:
    def test_a_photo_path_is_loaded(self, tmp_path: Path) -> None:
        path = tmp_path / "hand.png"
        cv2.imwrite(str(path), np.full((120, 160, 3), 200, np.uint8))
        frame = read_hand(_Reader([_scored((2, 5), 0, 0.8)]), path)  # type: ignore[arg-type]
        assert frame.shape == (120, 160) and [t.values for t in frame.tiles.each()] == [(2, 5)]


class _Check:
    """A cover check that finds the halves it is told covered and counts each covered
    half as the set's largest half allows, up to 9."""

    def __init__(self, probs: list[tuple[float, float]]) -> None:
        self.probs = np.array(probs, np.float32)
        self.calls = 0
        self.tops: list[int] = []

    def crops(self, image: np.ndarray, tiles: list[TileReading]) -> list[np.ndarray]:
        return [image[:2, :2]] * (2 * len(tiles))

    def covered(self, image: np.ndarray, tiles: list[TileReading],
                crops: list[np.ndarray] | None = None) -> np.ndarray:
        self.calls += 1
        assert len(tiles) == len(self.probs)  # its own crops: the faces inside the boxes
        return self.probs

    def recount(self, crops: list[np.ndarray], top: int) -> list[tuple[int, float]]:
        self.tops.append(top)
        return [(min(9, top), 0.7)] * len(crops)


class _CheckedReader(_Reader):
    def __init__(self, tiles: list[TileReading], check: _Check | None) -> None:
        super().__init__(tiles)
        self.check = check
        self.max_value = 12  # a double-12 set

    def cover_check(self) -> _Check | None:
        return self.check


class TestCoveredTiles:
    def test_a_tile_with_a_covered_half_is_flagged_and_that_half_counted_again(self) -> None:
        tiles = [_scored((6, 6), 0, 0.95), _scored((3, 5), 200, 0.9), _scored((1, 2), 400, 0.9),
                 _scored((0, 4), 600, 0.9)]
        below = COVERED_SURE - 0.05
        check = _Check([(0.1, 0.2), (0.05, COVERED_SURE), (0.99, 0.0), (below, below)])
        frame = read_hand(_CheckedReader(tiles, check),  # type: ignore[arg-type]
                          np.zeros((300, 800, 3), np.uint8))
        assert check.calls == 1 and check.tops == [12]  # counted up to the set's largest
        assert [(t.values, t.uncertain, t.covered) for t in frame.tiles.each()] == [
            ((6, 6), False, False), ((3, 9), True, True), ((9, 2), True, True),
            ((0, 4), False, False)]
        hand = hand_from_reading(frame, RuleSet())
        assert hand.uncertain == (1, 2) and hand.points == 12 + 12 + 11 + 4  # flagged, priced

    def test_without_a_check_nothing_is_flagged(self) -> None:
        frame = read_hand(_CheckedReader([_scored((4, 4), 0, 0.9)], None),  # type: ignore[arg-type]
                          np.zeros((300, 600, 3), np.uint8))
        assert not frame.tiles.reading(0).uncertain


class _Verdicts(DominoCheck):
    """A domino check that says each box is no domino this likely, in order."""

    def __init__(self, not_domino: list[float]) -> None:  # no model
        self.not_domino = not_domino

    def __call__(self, image: np.ndarray, corners: object,
                 scores: np.ndarray | None = None) -> Verdicts:
        probs = np.array([[1 - p, 0.0, p] for p in self.not_domino], np.float32)
        return Verdicts(probs, scores)


def test_a_box_the_domino_check_rejects_is_never_counted() -> None:
    """Rejected (``Verdicts.dropped``): no domino at ``NOT_SURE`` for a box the detector
    scores low, at ``NOT_CERTAIN`` for one it is sure of; left out and shown, not priced."""
    # values, the detector's score, how likely the check says it is no domino
    boxes: list[tuple[tuple[int, int], float, float]] = [
        ((6, 6), 0.6, 0.95), ((5, 5), 0.9, 0.95), ((4, 4), 0.9, 0.995), ((1, 2), 0.6, 0.2)]
    read = FrameReading(TileReadings.of([
        TileReading(v, BASE + [100 * i, 0], 0.9, False, detector)
        for i, (v, detector, _) in enumerate(boxes)]), Detections.empty())
    checked = checked_boxes(_Verdicts([p for _, _, p in boxes]),
                            np.zeros((50, 400, 3), np.uint8), read)
    hand = hand_from_reading(checked, RuleSet())
    assert hand.tiles == (Tile(5, 5), Tile(1, 2)) and hand.points == 13
    assert [b.reading.values for b in hand.left_out] == [(6, 6), (4, 4)]
    assert all(Doubt.MAYBE_NOT_TILE in b.doubts for b in hand.left_out) and hand.needs_check
    assert checked_boxes(None, np.zeros((50, 400, 3), np.uint8), read) is read
