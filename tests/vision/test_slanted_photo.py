"""vision.stills.slanted_photo: a hand photographed at a slant, read again from above."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from datasets.camera import Camera
from vision.models.detections import Detections
from vision.readings import FrameReading, TileReading, TileReadings
from vision.stills.slanted_photo import (
    MIN_TILT,
    merge,
    plane_normal,
    read_from_above,
    tilt_degrees,
    view_from_above,
)

ROOT = Path(__file__).resolve().parents[2]
SHAPE = (720, 1280)
NO_MARKERS = Detections(np.zeros((0, 4, 2)), np.zeros(0), np.zeros(0))


def _faces(tilt: float, *, row: bool = False, fov: float = 65.0) -> np.ndarray:
    """Image corners of 2:1 tile faces (24 x 48 mm) laid round where a camera tilted
    ``tilt`` degrees looks, each turned its own way."""
    camera = Camera.look_at(SHAPE[1], SHAPE[0], fov, (0.0, 0.0), 450.0, tilt, 30.0)
    rng = np.random.default_rng(5)
    spots = ([(x, 0.0) for x in np.linspace(-120, 120, 5)] if row else
             [(x, y) for x in (-90.0, 0.0, 90.0) for y in (-70.0, 0.0, 70.0)])
    faces = []
    for x, y in spots:
        turn = rng.uniform(0, np.pi)
        u, v = np.array([np.cos(turn), np.sin(turn)]), np.array([-np.sin(turn), np.cos(turn)])
        centre = np.array([x, y])
        plane = np.array([centre - 12 * v - 24 * u, centre + 12 * v - 24 * u,
                          centre + 12 * v + 24 * u, centre - 12 * v + 24 * u])
        faces.append(camera.project(plane))
    return np.array(faces)


def _reading(values: tuple[int, int], corners: np.ndarray, confidence: float) -> TileReading:
    return TileReading(values, np.asarray(corners, np.float32), confidence, confidence < 0.5)


@pytest.mark.parametrize("tilt", [25.0, 40.0, 50.0])
def test_the_tilt_comes_from_how_the_tiles_size_changes(tilt: float) -> None:
    normal = plane_normal(_faces(tilt), SHAPE)
    assert normal is not None
    assert tilt_degrees(normal) == pytest.approx(tilt, abs=3.0)


def test_tiles_seen_from_above_show_no_tilt_and_a_line_shows_none() -> None:
    normal = plane_normal(_faces(0.0), SHAPE)
    assert normal is not None and tilt_degrees(normal) < MIN_TILT
    assert plane_normal(_faces(40.0, row=True), SHAPE) is None  # nothing across the line
    assert plane_normal(_faces(40.0)[:2], SHAPE) is None  # two tiles fix no plane


def _seen_from_above(faces: np.ndarray) -> tuple[np.ndarray, tuple[int, int]]:
    """``faces`` in the view from above their own fit gives, and that view's size."""
    import cv2

    normal = plane_normal(faces, SHAPE)
    assert normal is not None
    view = view_from_above(faces, SHAPE, normal)
    assert view is not None
    to_above, size = view
    return cv2.perspectiveTransform(faces.reshape(-1, 1, 2), to_above).reshape(-1, 4, 2), size


def test_from_above_the_faces_are_equal_rectangles() -> None:
    faces = _faces(45.0)
    seen, size = _seen_from_above(faces)
    assert np.all(seen >= -1) and np.all(seen <= np.array(size) + 1)
    sides = np.linalg.norm(np.roll(seen, -1, axis=1) - seen, axis=2)
    assert np.allclose(sides[:, 1] / sides[:, 0], 2.0, atol=0.15)  # 2:1 again
    a, b = seen[:, 1] - seen[:, 0], seen[:, 2] - seen[:, 1]
    cosines = np.abs(np.sum(a * b, axis=1)) / (sides[:, 0] * sides[:, 1])
    assert cosines.max() < 0.06  # square corners
    assert sides[:, 1].max() / sides[:, 1].min() < 1.1  # all one size
    # in the photo they were neither
    photo = np.linalg.norm(np.roll(faces, -1, axis=1) - faces, axis=2)
    assert photo[:, 1].max() / photo[:, 1].min() > 1.3


def test_each_tile_keeps_its_more_confident_reading() -> None:
    box = np.array([[0, 0], [20, 0], [20, 40], [0, 40]], np.float32)
    first = [_reading((1, 2), box, 0.6), _reading((3, 4), box + 100, 0.9),
             _reading((5, 6), box + 300, 0.7)]
    second = [_reading((1, 3), box + 1, 0.8),     # the same tile, surer: replaces
              _reading((3, 5), box + 101, 0.5),   # the same tile, less sure: does not
              _reading((7, 7), box + 200, 0.99)]  # no tile of the photo's: not added
    merged = merge(first, second)
    assert [t.values for t in merged] == [(3, 4), (1, 3), (5, 6)]  # best first
    assert merge([], second) == []


class _FakeReader:
    """Reads the photo as ``photo`` and whatever comes next as ``above``."""

    def __init__(self, photo: list[TileReading], above: list[TileReading]) -> None:
        self.answers = [photo, above]
        self.images: list[np.ndarray] = []

    def reset(self) -> None:
        pass

    def read(self, image: np.ndarray) -> FrameReading:
        self.images.append(image)
        return FrameReading(TileReadings.of(self.answers[len(self.images) - 1]), NO_MARKERS,
                            image.shape[:2])


def test_a_tilted_photo_is_read_again_from_above_and_mapped_back() -> None:
    faces = _faces(40.0)
    photo = [_reading((k, 1), f, 0.6) for k, f in enumerate(faces)]
    seen, size = _seen_from_above(faces)
    above = [_reading((k, 2), f, 0.9) for k, f in enumerate(seen)]
    reader = _FakeReader(photo, above)
    frame = read_from_above(reader, np.zeros((*SHAPE, 3), np.uint8))
    assert len(reader.images) == 2 and reader.images[1].shape[:2] == (size[1], size[0])
    assert sorted(t.values for t in frame.tiles.each()) == sorted((k, 2) for k in range(len(faces)))
    back = {t.values: t.corners for t in frame.tiles.each()}
    for k, face in enumerate(faces):
        assert np.allclose(back[(k, 2)], face, atol=0.05)


def test_a_photo_from_above_is_read_once() -> None:
    reader = _FakeReader([_reading((1, 2), f, 0.6) for f in _faces(0.0)], [])
    frame = read_from_above(reader, np.zeros((*SHAPE, 3), np.uint8))
    assert len(reader.images) == 1 and len(frame.tiles) == 9


def _right(frame: FrameReading, labels: dict[str, Any]) -> int:
    """Labelled tiles read with both values right (the benchmarks' matching)."""

    from benchmarks.matching import aligned_values, match

    truth = np.array([t["corners"] for t in labels["tiles"]], np.float32).reshape(-1, 4, 2)
    read = np.array([t.corners for t in frame.tiles.each()], np.float32).reshape(-1, 4, 2)
    return sum(sorted(aligned_values(truth[i], frame.tiles.reading(j).corners,
                                     frame.tiles.reading(j).values))
               == sorted(labels["tiles"][i]["values"]) for i, j in match(truth, read))


def test_trained_models_read_a_tilted_hand_better_from_above() -> None:
    """A rendered hand seen about 45 degrees from straight down (hands seed 9101, scene
    144), where the detector's rectangles shear the halves of several tiles."""
    from datasets.render import render_hands, scene_rng
    from vision.reading.reader import TileReader

    scene = render_hands(scene_rng(9101, 144))
    labels = scene.labels("x.jpg")
    reader = TileReader(ROOT / "models", precision="float")
    reader.reset()
    plain = _right(reader.read(scene.image), labels)
    above = _right(read_from_above(reader, scene.image), labels)
    assert len(labels["tiles"]) >= 15
    assert above > plain
    assert above >= len(labels["tiles"]) - 1
