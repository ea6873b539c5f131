"""A marker is a solid thing: boxes on a loop or line of thread are dropped
(vision.reading.boxes.hollow_markers, and the reader that applies it)."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest
from reader_fixtures import untrained_dir
from test_detect_scale import SMALL_TILE_PX, FakeDetector, _reader

from vision.models.detections import Detections
from vision.reading.boxes.hollow_markers import HOLLOW_LAB, drop_hollow, middle_contrast

CLOTH = (150, 110, 40)  # BGR: a blue cloth
THREAD = (60, 160, 90)  # a green thread


def _cloth(seed: int = 0) -> np.ndarray:
    """A 400x400 blue cloth with a little sensor noise."""
    rng = np.random.default_rng(seed)
    image = np.empty((400, 400, 3), np.uint8)
    image[:] = CLOTH
    noise = rng.normal(0, 3, image.shape)
    return np.clip(image + noise, 0, 255).astype(np.uint8)


def _square(cx: float, cy: float, half: float = 10.0) -> np.ndarray:
    return np.array([[cx - half, cy - half], [cx + half, cy - half],
                     [cx + half, cy + half], [cx - half, cy + half]], np.float32)


def _markers(*centres: tuple[float, float]) -> Detections:
    return Detections(np.array([_square(*c) for c in centres]), np.full(len(centres), 0.6),
                      np.ones(len(centres), np.int64))


def test_a_loop_of_thread_is_no_marker_and_a_coin_is() -> None:
    image = _cloth()
    cv2.circle(image, (100, 100), 8, THREAD, 2, cv2.LINE_AA)  # a loop: cloth inside
    cv2.circle(image, (300, 100), 9, (40, 160, 200), -1, cv2.LINE_AA)  # a brass coin
    loop = middle_contrast(image, _square(100, 100))
    coin = middle_contrast(image, _square(300, 100))
    assert loop is not None and coin is not None
    assert loop < HOLLOW_LAB <= coin
    kept = drop_hollow(_markers((100, 100), (300, 100)), image)
    assert kept.corners.mean(axis=1).round().tolist() == [[300.0, 100.0]]


def test_a_thread_crossing_the_box_is_no_marker_but_one_crossing_a_coin_leaves_it() -> None:
    image = _cloth(1)
    cv2.line(image, (0, 180), (400, 220), THREAD, 2, cv2.LINE_AA)  # through both boxes
    cv2.circle(image, (300, 215), 9, (90, 90, 200), -1, cv2.LINE_AA)  # a red pawn's top
    cv2.line(image, (0, 180), (400, 220), THREAD, 2, cv2.LINE_AA)  # drawn over it too
    kept = drop_hollow(_markers((100, 200), (300, 210)), image)
    assert kept.corners.mean(axis=1).round().tolist() == [[300.0, 210.0]]


def test_a_faint_marker_on_a_cloth_of_nearly_its_colour_is_kept() -> None:
    """A grey coin on grey cloth differed by 5 (Lab) on the rendered tables."""
    image = np.full((400, 400, 3), 128, np.uint8)
    cv2.circle(image, (200, 200), 9, (140, 134, 140), -1, cv2.LINE_AA)
    contrast = middle_contrast(image, _square(200, 200))
    assert contrast is not None and HOLLOW_LAB <= contrast < 3 * HOLLOW_LAB
    assert len(drop_hollow(_markers((200, 200)), image)) == 1


def test_a_tile_beside_the_marker_does_not_make_it_hollow() -> None:
    """The ring of table around the box is judged by its median: a tile lying in part
    of it does not decide it, either way."""
    image = _cloth(2)
    cv2.circle(image, (200, 200), 8, THREAD, 2, cv2.LINE_AA)  # a loop
    cv2.rectangle(image, (218, 170), (260, 230), (235, 240, 240), -1)  # an ivory tile
    assert len(drop_hollow(_markers((200, 200)), image)) == 0
    cv2.circle(image, (200, 200), 9, (235, 240, 240), -1)  # a white coin, tile-coloured
    assert len(drop_hollow(_markers((200, 200)), image)) == 1


def test_a_box_at_the_edge_or_too_small_to_judge_is_kept() -> None:
    image = _cloth(3)
    assert middle_contrast(image, _square(5, 200)) is None  # no ring of table around it
    assert middle_contrast(image, _square(200, 200, half=1.5)) is None
    assert len(drop_hollow(_markers((5, 200)), image)) == 1
    assert len(drop_hollow(Detections.empty(), image)) == 0


def test_a_grey_frame_is_judged_too() -> None:
    image = cv2.cvtColor(_cloth(4), cv2.COLOR_BGR2GRAY)
    cv2.circle(image, (100, 100), 8, 40, 2, cv2.LINE_AA)
    cv2.circle(image, (300, 100), 9, 230, -1, cv2.LINE_AA)
    kept = drop_hollow(_markers((100, 100), (300, 100)), image)
    assert kept.corners.mean(axis=1).round().tolist() == [[300.0, 100.0]]


class LoopDetector(FakeDetector):
    """A tile, and two markers: one on a coin, one on a loop of thread."""

    def __call__(self, image: np.ndarray, zoom_out: float = 1.0,
                 long_side: int | None = None) -> Detections:
        found = super().__call__(image, zoom_out, long_side)
        both = Detections.merge([found, _markers((600, 600), (900, 300))])
        both.metadata.update(found.metadata)
        return both


@pytest.mark.parametrize("drop", [True, False])
def test_the_reader_drops_hollow_markers_unless_told_not_to(
    tmp_path_factory: pytest.TempPathFactory, drop: bool,
) -> None:
    models: Path = untrained_dir(tmp_path_factory)
    frame = np.zeros((720, 1280, 3), np.uint8)
    frame[:] = CLOTH
    cv2.circle(frame, (600, 600), 9, (40, 160, 200), -1)  # the coin
    cv2.circle(frame, (900, 300), 8, THREAD, 2)  # the loop
    reader = _reader(models, LoopDetector(SMALL_TILE_PX * 2 * 1280 / 416))
    reader.drop_hollow_markers = drop
    centres = sorted(reader.read(frame).markers.corners.mean(axis=1)[:, 0].round().tolist())
    assert centres == ([600.0] if drop else [600.0, 900.0])
