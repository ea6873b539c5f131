"""Tiles a hand photo may hold that the reader never read (``vision.stills.missed_tiles``):
found again among the detector's faint boxes, left out of the points, the hand marked."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from reader_fixtures import MODELS, needs_trained_models, untrained_dir

from datasets.render import render_hands, scene_rng
from engine import RuleSet
from vision.models.detections import Detections
from vision.models.domino_check import NOT_CERTAIN, NOT_DOUBT, Verdicts
from vision.reading.reader import TileReader
from vision.readings import FrameReading, TileReading, TileReadings
from vision.stills import missed_tiles
from vision.stills.hand_photos import Doubt, hand_from_reading
from vision.stills.missed_tiles import (
    FEW_PATCHES,
    MISSED_DOUBT,
    candidates,
    maybe_missed,
    with_missed,
)
from vision.stills.tile_colour import tile_coloured

BOX = np.array([[0, 0], [40, 0], [40, 80], [0, 80]], np.float32)  # 40 x 80: a domino


def _reading(at: tuple[float, float], values: tuple[int, int] = (3, 4)) -> TileReading:
    return TileReading(values, BOX + np.array(at, np.float32), 0.9, False, 0.9)


def _found(*boxes: np.ndarray) -> Detections:
    corners = np.array(boxes, np.float32).reshape(-1, 4, 2)
    return Detections(corners, np.linspace(0.2, 0.05, len(corners)).astype(np.float32),
                      np.zeros(len(corners), np.int64))


class TestCandidates:
    def test_a_tile_sized_box_beside_the_tiles_read_is_one(self) -> None:
        frame = FrameReading(TileReadings.of([_reading((0, 0)), _reading((50, 0))]),
                             Detections.empty())
        found = _found(BOX + [100, 0],  # free, a tile's size: a candidate
                       BOX + [2, 3],  # on a tile read: that tile
                       BOX * [0.3, 1.0] + [200, 0],  # a sliver (a tile's side, a shadow)
                       BOX * 3 + [300, 0],  # three tiles' size: a cloth's pattern
                       BOX + [400, 0])  # lying face down
        frame = replace(frame, backs=(BOX + [400, 0],))
        assert candidates(found, frame).tolist() == [0]

    def test_with_no_tile_read_a_domino_shape_is_enough(self) -> None:
        empty = FrameReading(TileReadings.empty(), Detections.empty())
        square = np.array([[0, 0], [60, 0], [60, 60], [0, 60]], np.float32)
        found = _found(BOX * 2 + [100, 0], square + [300, 0])
        assert candidates(found, empty).tolist() == [0]

    def test_a_patch_of_the_tiles_colour_is_one_a_patch_of_another_is_not(self) -> None:
        """Ivory faces with dark pips on green cloth: a fourth face the reading lacks is
        found by its colour, pips and all; a square of that colour, a tile's length of
        another colour, and a tile's half are not."""
        image = np.full((400, 600, 3), (40, 120, 30), np.uint8)  # green cloth
        ivory, pip = (200, 225, 235), (30, 30, 30)

        def face(x: int, y: int, w: int = 40, h: int = 80, colour: tuple = ivory) -> None:
            image[y:y + h, x:x + w] = colour
            if colour == ivory:
                for k in range(3):
                    image[y + 10 + 25 * k: y + 16 + 25 * k, x + 17: x + 23] = pip

        read = [_reading((x, 20)) for x in (20, 80, 140)]
        for r in read:
            face(int(r.corners[0, 0]), 20)
        face(300, 20)  # the tile the reading lacks
        face(400, 20, 80, 80)  # a square of ivory
        face(300, 200, colour=(200, 40, 200))  # a tile's size, another colour
        face(400, 200, 40, 40)  # half a tile
        frame = FrameReading(TileReadings.of(read), Detections.empty())
        boxes = tile_coloured(image, frame)
        assert len(boxes) == 1
        assert np.allclose(boxes[0].mean(axis=0), (320, 60), atol=4)
        nothing = FrameReading(TileReadings.empty(), Detections.empty())
        assert tile_coloured(image, nothing).shape == (0, 4, 2)

    def test_a_missed_box_is_left_out_and_marks_the_hand(self) -> None:
        missed = replace(_reading((100, 0), (0, 5)), detector_confidence=0.06,
                         uncertain=True, doubt=MISSED_DOUBT)
        frame = FrameReading(TileReadings.of([_reading((0, 0)), missed]), Detections.empty())
        hand = hand_from_reading(frame, RuleSet())
        assert hand.points == 7 and hand.needs_check and hand.uncertain == ()
        assert [box.doubts for box in hand.left_out] == [(Doubt.MAYBE_MISSED,)]
        assert "1 box that may be tiles not read left out: 0-5" in hand.text()
        assert hand.to_json()["left_out"][0]["doubts"] == ["maybe-missed"]


class StubCheck:
    """The domino check: every box ``not`` a domino this likely."""

    def __init__(self, not_domino: float) -> None:
        self.not_domino = not_domino

    def __call__(self, image: np.ndarray, corners: np.ndarray,
                 scores: np.ndarray | None = None) -> Verdicts:
        n = len(corners)
        probs = np.column_stack([np.full(n, 1.0 - self.not_domino), np.zeros(n),
                                 np.full(n, self.not_domino)]).astype(np.float32)
        return Verdicts(probs, scores)


def _ivory_hand(beside: int, far: int = 0) -> tuple[np.ndarray, FrameReading]:
    """Three ivory faces read side by side on a green cloth, ``beside`` more not read
    going on in their row, and ``far`` more not read two tiles' lengths off."""
    image = np.full((400, 700, 3), (40, 120, 30), np.uint8)
    read = [_reading((x, 20)) for x in (20, 72, 124)]
    faces = [(x, 20) for x in range(20, 20 + 52 * (3 + beside), 52)]
    faces += [(x, 260) for x in range(20, 20 + 60 * far, 60)]
    for x, y in faces:
        image[y:y + 80, x:x + 40] = (200, 225, 235)
    return image, FrameReading(TileReadings.of(read), Detections.empty())


def test_a_patch_of_the_tiles_colour_is_doubted_unless_certainly_no_domino(
        untrained_reader: TileReader, monkeypatch: pytest.MonkeyPatch) -> None:
    """A face of the tiles' colour, size and shape beside the tiles read that no box was
    read at is a tile perhaps missed even where the domino check doubts it (a faint
    tile pressed in a row looks little like a domino); not where the check is certain,
    nor further off, nor on a photo whose surface shows that colour in many places."""
    monkeypatch.setattr(missed_tiles, "faint_boxes", lambda reader, image: _found())
    vars(untrained_reader)["read_at"] = lambda image, corners, scores: TileReadings.of([
        replace(_reading((0, 0)), corners=c) for c in corners])
    doubted = (NOT_DOUBT + NOT_CERTAIN) / 2
    image, frame = _ivory_hand(1, far=1)
    for not_domino, where in ((NOT_DOUBT / 2, [(196, 60), (40, 300)]),
                              (doubted, [(196, 60)]), (NOT_CERTAIN, [])):
        vars(untrained_reader)["domino_check"] = StubCheck(not_domino)
        missed = maybe_missed(untrained_reader, image, frame)
        assert all(t.doubt == MISSED_DOUBT and t.uncertain for t in missed)
        got = sorted((t.corners.mean(axis=0) for t in missed), key=lambda c: float(c[1]))
        assert len(got) == len(where)
        assert all(np.allclose(c, w, atol=4) for c, w in zip(got, where, strict=True))
    image, frame = _ivory_hand(FEW_PATCHES + 1)  # the colour is all over the surface
    vars(untrained_reader)["domino_check"] = StubCheck(doubted)
    assert maybe_missed(untrained_reader, image, frame) == []
    vars(untrained_reader)["domino_check"] = StubCheck(NOT_DOUBT / 2)
    assert len(maybe_missed(untrained_reader, image, frame)) == FEW_PATCHES + 1


@pytest.fixture
def untrained_reader(tmp_path_factory: pytest.TempPathFactory) -> TileReader:
    return TileReader(untrained_dir(tmp_path_factory), check_tiles=False)


@pytest.fixture(scope="module")
def reader() -> TileReader:
    return TileReader(MODELS)


@needs_trained_models
def test_a_tile_the_reading_lacks_is_found_again(reader: TileReader) -> None:
    """Each tile taken out of a rendered hand's reading in turn is found again where it
    lies, doubted, and never counted."""
    scene = render_hands(scene_rng(4401, 3))
    reader.reset()
    frame = reader.read(scene.image)
    assert len(frame.tiles) >= 3
    found = 0
    for k, gone in enumerate(frame.tiles.each()):
        lacking = replace(frame, tiles=TileReadings.of(
            [t for i, t in enumerate(frame.tiles.each()) if i != k]))
        again = maybe_missed(reader, scene.image, lacking)
        assert all(t.uncertain and t.doubt == MISSED_DOUBT for t in again)
        short = float(np.linalg.norm(gone.corners[1] - gone.corners[0]))
        where = gone.corners.mean(axis=0)
        if any(np.linalg.norm(t.corners.mean(axis=0) - where) < 0.5 * short for t in again):
            found += 1
            hand = hand_from_reading(with_missed(reader, scene.image, lacking), RuleSet())
            assert hand.needs_check and len(hand.tiles) == len(frame.tiles) - 1
    assert found >= len(frame.tiles) - 1
