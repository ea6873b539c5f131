"""Tiles lying face down: set apart from the tiles read (``vision.reading.face_down``)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from reader_fixtures import MODELS, needs_trained_models

from datasets.render import render_hands, render_table, scene_rng
from datasets.textures import TileStyle, render_back, render_face
from engine import RuleSet
from vision.models.detections import Detections
from vision.reading.face_down import (
    MAX_ROW,
    MAX_SPOT,
    MIN_WIDTH_PX,
    middle_darkness,
    split_face_down,
)
from vision.reading.reader import TileReader
from vision.readings import FrameReading, TileReading, TileReadings
from vision.stills.hand_photos import hand_from_reading

BOX = np.array([[40, 30], [80, 30], [80, 110], [40, 110]], np.float32)


def _lying(face: np.ndarray, alpha: np.ndarray, rng: np.random.Generator,
           width: int = 40) -> np.ndarray:
    """A face texture laid into ``BOX`` on a plain table, as a grey image."""
    table = np.full((140, 120, 3), rng.uniform(40, 160, 3), np.float32)
    src = np.array([[0, 0], [face.shape[1], 0], [face.shape[1], face.shape[0]],
                    [0, face.shape[0]]], np.float32)
    matrix = cv2.getPerspectiveTransform(src, BOX)
    warped = cv2.warpPerspective(face, matrix, (120, 140), flags=cv2.INTER_AREA)
    a = cv2.warpPerspective(alpha, matrix, (120, 140), flags=cv2.INTER_AREA)[..., None]
    image = np.clip(table * (1 - a) + warped * a, 0, 255).astype(np.uint8)
    return cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)


@pytest.mark.parametrize("seed", range(12))
def test_a_back_shows_no_divider_and_a_blank_face_does(seed: int) -> None:
    rng = np.random.default_rng(seed)
    style = TileStyle.random(rng)
    back = _lying(*render_back(style, 80, rng), rng)
    face, alpha, _ = render_face((0, 0), style, 80, rng)
    blank = _lying(face, alpha, rng)
    spot, row = middle_darkness(back, BOX)
    assert spot < MAX_SPOT and row < MAX_ROW
    spot, row = middle_darkness(blank, BOX)
    assert spot >= MAX_SPOT and row >= MAX_ROW


def test_only_blank_readings_are_taken_for_backs() -> None:
    rng = np.random.default_rng(3)
    style = TileStyle.random(rng)
    back = _lying(*render_back(style, 80, rng), rng)
    blank = TileReading((0, 0), BOX, 0.9, False)
    other = TileReading((0, 5), BOX, 0.9, False)  # a count on it: a face, whatever it shows
    up, down = split_face_down(back, [other, blank])
    assert up == [other] and down == [blank]
    assert split_face_down(back, [other]) == ([other], [])


def test_a_hand_s_tiles_face_down_are_not_priced() -> None:
    tile = TileReading((0, 0), BOX, 0.9, False)
    frame = FrameReading(TileReadings.of([tile, TileReading((3, 4), BOX + [60, 0], 0.9, False)]),
                         Detections.empty(), (140, 200), (BOX + [120, 0], BOX + [180, 0]))
    hand = hand_from_reading(frame, RuleSet())
    assert hand.points == 50 + 7 and hand.face_down == 2
    assert hand.to_json()["face_down"] == 2
    assert "2 tiles face down, not counted" in hand.text()
    assert frame.to_json()["face_down"][1]["corners"][0] == [220.0, 30.0]
    alone = FrameReading(TileReadings.of([tile]), Detections.empty())
    assert "face_down" not in alone.to_json()
    assert "face_down" not in hand_from_reading(alone, RuleSet()).to_json()


def test_rendered_boneyards_and_turned_tiles_lie_apart_from_the_tiles() -> None:
    scene = render_table(scene_rng(61, 0), boneyard=10)
    assert len(scene.face_down) >= 8 and all(t.face_down for t in scene.face_down)
    assert not any(t.face_down for t in scene.tiles)
    labels = scene.labels("x.jpg")
    assert len(labels["tiles"]) <= len(scene.tiles)
    assert len(labels["face_down"]) == sum(t.visible >= 0.35 for t in scene.face_down)
    hands = render_hands(scene_rng(62, 0), face_down=2)
    assert len(hands.face_down) == 2 and not hands.face_down[0].pips
    assert "face_down" not in render_hands(scene_rng(62, 0)).labels("x.jpg")


@pytest.fixture(scope="module")
def reader() -> TileReader:
    return TileReader(MODELS)


def _near(corners: np.ndarray, boxes: list[np.ndarray], reach: float = 0.0) -> bool:
    """Whether the centre of ``corners`` lies within ``reach`` pixels of one of ``boxes``."""
    centre = corners.mean(axis=0)
    return any(cv2.pointPolygonTest(b.astype(np.float32), (float(centre[0]), float(centre[1])),
                                    True) >= -reach for b in boxes)


def _blank(frame: FrameReading) -> list[TileReading]:
    return [t for t in frame.tiles.each() if t.values == (0, 0)]


@needs_trained_models
def test_a_boneyard_is_not_read_as_double_blanks(reader: TileReader) -> None:
    """Rendered tables with a boneyard beside them (seeds the models never saw): nearly
    every face-down tile found (wide enough to judge) is set apart, and every tile read
    with a pip on it is read as it is without the check."""
    backs = read_backs = 0
    for i in range(8):
        scene = render_table(scene_rng(63, i), boneyard=12)
        boxes = [t.corners for t in scene.face_down]
        width = float(np.linalg.norm(boxes[0][1] - boxes[0][0]))
        frame = reader.read(scene.image)
        reader.reset()
        reader.spot_face_down = False
        try:
            plain = reader.read(scene.image)
        finally:
            reader.spot_face_down = True
            reader.reset()
        if width >= MIN_WIDTH_PX:
            backs += sum(_near(t.corners, boxes) for t in _blank(plain))
            read_backs += sum(_near(t.corners, boxes) for t in _blank(frame))
        assert (sorted(t.values for t in frame.tiles.each() if t.values != (0, 0))
                == sorted(t.values for t in plain.tiles.each() if t.values != (0, 0)))
        # every back is a 0-0 set apart or a marker box on a back (markers_on_backs: one
        # on a back already set apart adds none)
        from_markers = len(_blank(frame)) + len(frame.backs) - len(_blank(plain))
        assert 0 <= from_markers <= len(plain.markers) - len(frame.markers)
        assert all(_near(c, boxes, width) for c in frame.backs)
    assert backs >= 24  # the detector finds backs as tiles: without the check, 0-0s
    assert read_backs <= 0.1 * backs
