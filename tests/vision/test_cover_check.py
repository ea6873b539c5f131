"""The cover check: whether a hand hides part of a tile's half (``vision.cover_check``)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from reader_fixtures import MODELS, needs_trained_models

from datasets.render import render_hands, scene_rng
from vision.cover_check import COVERED_SURE, CoverCheck, flag_covered
from vision.detections import Detections
from vision.onnx_models import load_specs
from vision.reader import FrameReading, TileReader, TileReading


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
        frame = flag_covered(FrameReading(found, Detections.empty(), image.shape[:2]),
                             image, check)
        assert [t.values for t in frame.tiles] == [t.values for t in found]  # readings kept
        flagged.extend(t.uncertain for t in frame.tiles)
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
    tile = TileReading((1, 2), np.zeros((4, 2), np.float32), 0.9, False)
    frame = FrameReading([tile], Detections.empty(), (10, 10))
    assert flag_covered(frame, np.zeros((10, 10, 3), np.uint8), None) is frame
