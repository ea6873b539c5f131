"""The cover check: whether a hand hides part of a tile's half (``vision.reading.cover_check``)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
from reader_fixtures import MODELS, needs_trained_models

from datasets.render import render_hands, scene_rng
from vision.models.detections import Detections
from vision.models.onnx_models import load_specs
from vision.reading.cover_check import COVERED_SURE, CoverCheck, flag_covered
from vision.reading.reader import TileReader
from vision.readings import FrameReading, TileReading, TileReadings


def _same(a: TileReading, b: TileReading) -> bool:
    """Whether two readings of a tile say the same."""
    return (a.to_json() == b.to_json() and a.half_certainty == b.half_certainty
            and a.ranges == b.ranges and a.covered == b.covered
            and a.detector_confidence == b.detector_confidence)


@pytest.fixture(scope="module")
def reader() -> TileReader:
    return TileReader(MODELS)


def _halves_seen(seed: int, scenes: int) -> tuple[list[np.ndarray], list[list[TileReading]],
                                                   np.ndarray]:
    """Rendered hands scenes with two arms over them (a seed the check never saw), their
    tiles at their true corners, and each half's share in view ``(tiles, 2)``."""
    images: list[np.ndarray] = []
    tiles: list[list[TileReading]] = []
    shown: list[tuple[float, float]] = []
    for i in range(scenes):
        scene = render_hands(scene_rng(seed, i), arms=2)
        images.append(scene.image)
        tiles.append([TileReading(t.values, t.corners.astype(np.float32), 1.0, False)
                      for t in scene.tiles])
        shown.extend(t.half_visible for t in scene.tiles)
    return images, tiles, np.array(shown, np.float64).reshape(-1, 2)


@needs_trained_models
def test_the_shipped_check_tells_a_covered_half_from_an_open_one(reader: TileReader) -> None:
    check = reader.cover_check()
    assert check is not None
    images, tiles, shown = _halves_seen(83, 16)
    probs = np.concatenate([check.covered(image, found)
                            for image, found in zip(images, tiles, strict=True)])
    assert probs.shape == shown.shape and np.all((probs >= 0) & (probs <= 1))
    hidden, open_ = shown < 0.6, shown >= 0.999
    assert hidden.sum() >= 10 and open_.sum() >= 100
    assert np.mean(probs[hidden] >= COVERED_SURE) >= 0.75
    assert np.mean(probs[open_] < COVERED_SURE) >= 0.97


@needs_trained_models
def test_a_hand_photo_flags_the_tiles_an_arm_covers(reader: TileReader) -> None:
    check = reader.cover_check()
    images, tiles, shown = _halves_seen(84, 6)
    flagged: list[bool] = []
    hidden: list[bool] = []
    start = 0
    for image, found in zip(images, tiles, strict=True):
        frame = flag_covered(FrameReading(TileReadings.of(found), Detections.empty(),
                                          image.shape[:2]),
                             image, check)
        assert len(frame.tiles) == len(found)
        for before, after in zip(found, frame.tiles.each(), strict=True):
            if not after.covered:  # an open tile's reading is kept as it was
                assert _same(after, before)
        flagged.extend(t.uncertain for t in frame.tiles.each())
        hidden.extend((shown[start:start + len(found)].min(axis=1) < 0.5).tolist())
        start += len(found)
    assert any(hidden)
    assert all(f for f, h in zip(flagged, hidden, strict=True) if h)


def test_a_check_must_name_a_covered_class() -> None:
    halves = load_specs(MODELS)["halves"]  # classes 00-18
    with pytest.raises(ValueError, match="covered"):
        CoverCheck(halves)


def test_the_check_is_loaded_once_and_shared_by_the_reader_s_copies(reader: TileReader) -> None:
    check = reader.cover_check()
    assert check is not None
    assert reader.for_set(6).cover_check() is check and reader.cover_check() is check
    assert TileReader(MODELS, check_cover=False).cover_check() is None


def test_an_index_without_a_cover_check_reads_as_before(tmp_path: Path) -> None:
    index = json.loads((MODELS / "models.json").read_text())
    del index["covered"]
    for entry in index.values():
        (tmp_path / entry["file"]).symlink_to(MODELS / entry["file"])
    (tmp_path / "models.json").write_text(json.dumps(index))
    assert TileReader(tmp_path).cover_check() is None
    # with the check but not its counter: covered tiles are flagged and keep their reading
    index = json.loads((MODELS / "models.json").read_text())
    del index["halves_covered"]
    (tmp_path / "covered.onnx").symlink_to(MODELS / "covered.onnx")
    (tmp_path / "models.json").write_text(json.dumps(index))
    check = TileReader(tmp_path).cover_check()
    assert check is not None and check.counter is None and check.recount([], 6) == []
    tile = TileReading((1, 2), np.zeros((4, 2), np.float32), 0.9, False)
    frame = FrameReading(TileReadings.of([tile]), Detections.empty(), (10, 10))
    assert flag_covered(frame, np.zeros((10, 10, 3), np.uint8), None) is frame


class _StubCheck(CoverCheck):
    """A cover check that finds the halves it is told covered and counts each ``7``."""

    def __init__(self, covered: np.ndarray) -> None:  # no models
        self.probs = covered
        self.asked: list[int] = []

    def crops(self, image: np.ndarray, tiles: Sequence[TileReading]) -> list[np.ndarray]:
        return [np.full((4, 4, 3), k, np.uint8) for k in range(2 * len(tiles))]

    def covered(self, image: np.ndarray, tiles: Sequence[TileReading],
                crops: Sequence[np.ndarray] | None = None) -> np.ndarray:
        return self.probs

    def recount(self, crops: Sequence[np.ndarray], top: int) -> list[tuple[int, float]]:
        self.asked.extend(int(c[0, 0, 0]) for c in crops)
        return [(min(7, top), 0.6)] * len(crops)


def test_a_covered_half_is_counted_again_and_an_open_one_kept() -> None:
    corners = np.zeros((4, 2), np.float32)
    tiles = [TileReading((2, 5), corners, 0.9, False, half_certainty=(1.0, 0.95),
                         ranges=((2, 2), (5, 6))),
             TileReading((3, 4), corners, 0.8, False)]
    check = _StubCheck(np.array([[0.2, 0.95], [0.5, 0.1]], np.float32))
    frame = flag_covered(FrameReading(TileReadings.of(tiles), Detections.empty(), (10, 10)),
                         np.zeros((10, 10, 3), np.uint8), check)
    assert check.asked == [1]  # only the covered half: the second of the first tile
    first, second = frame.tiles.each()
    assert first.values == (2, 7) and first.covered and first.uncertain
    assert first.half_certainty == (1.0, 0.6) and first.confidence == 0.6
    assert first.ranges == ((2, 2), (5, 7))  # the range widened to the count taken
    assert _same(second, tiles[1])
    # a set's largest half bounds the count
    capped = flag_covered(FrameReading(TileReadings.of(tiles), Detections.empty(), (10, 10)),
                          np.zeros((10, 10, 3), np.uint8), check, top=6)
    assert capped.tiles.reading(0).values == (2, 6)


@needs_trained_models
def test_the_shipped_counter_reads_covered_halves_better_than_the_half_classifier(
        reader: TileReader) -> None:
    check = reader.cover_check()
    assert check is not None and reader.half_classifier is not None
    images, tiles, shown = _halves_seen(85, 40)
    crops = [c for image, found in zip(images, tiles, strict=True)
             for c in check.crops(image, found)]
    truth = np.array([v for found in tiles for t in found for v in t.values])
    hidden = shown.reshape(-1) < COVERED_SURE  # less than 90 % of the face in view
    counted = np.array([value for value, _ in check.recount(crops, 18)])
    classified = reader.half_classifier(crops).argmax(axis=1)  # classes 00-18
    assert hidden.sum() >= 40
    # some covered halves show enough of their layout to be counted, and the counter,
    # trained on such halves, counts more of them right than the classifier that never saw one
    assert np.sum(counted[hidden] == truth[hidden]) >= np.sum(
        classified[hidden] == truth[hidden]) + 4
    assert np.mean(counted[hidden] == truth[hidden]) >= 0.6
    assert np.mean(counted[~hidden] == truth[~hidden]) >= 0.99  # and open ones as well


@needs_trained_models
def test_the_shipped_counter_counts_halves_up_to_the_set_s_largest(reader: TileReader) -> None:
    check = reader.cover_check()
    assert check is not None and check.counter is not None
    images, tiles, _ = _halves_seen(86, 2)
    crops = check.crops(images[0], tiles[0])
    counts = check.recount(crops, top=3)
    assert len(counts) == len(crops)
    assert all(0 <= value <= 3 and 0.0 <= p <= 1.0 for value, p in counts)
    assert check.recount(crops[:0], top=3) == []


def test_the_face_lies_inside_the_box_in_the_corner_convention() -> None:
    from vision.reading.cover_check import face_corners

    box = np.array([[0, 0], [40, 0], [40, 80], [0, 80]], np.float32)  # a-end at the top
    face = face_corners(box, 0.1)  # 4 px in on every side
    assert np.allclose(face, [[4, 4], [36, 4], [36, 76], [4, 76]])
    turned = np.roll(box, 2, axis=0)  # the same box read the other way round
    assert np.allclose(face_corners(turned, 0.1), np.roll(face, 2, axis=0))
    assert np.allclose(face_corners(box, 0.0), box)
