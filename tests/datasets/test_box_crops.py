"""Domino-check crops cut from composited frames: labels that match the pixels (a domino's
box lies on a sprite per the frame's matte, a box apart from everything on bare table),
the same arrays for a seed whatever the processes."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from datasets.composite import SpriteLibrary
from datasets.composite.box_crops import (
    composite_box_set,
    frame_box_crops,
    frame_boxes,
    frame_options,
    matte_share,
)
from datasets.composite.compose import compose_with_matte
from datasets.verifier_crops import BACK, DETECTOR_FLOOR, FACE, NOT
from engine.errors import BadInputError
from vision.models.detections import polygon_iou
from vision.models.domino_check import CROP_SIZE, verifier_crop
from vision.models.onnx_models import ObbDetector, load_specs

ROOT = Path(__file__).resolve().parents[2]
SPRITES = Path(__file__).resolve().parent / "sprites"
#: Frames looked at: tables, empty frames and a hand photo (frame 7).
FRAMES = range(8)


@pytest.fixture(scope="module")
def library() -> SpriteLibrary:
    return SpriteLibrary([SPRITES])


@pytest.fixture(scope="module")
def detector() -> ObbDetector:
    return ObbDetector(load_specs(ROOT / "models", "float")["tiles"],
                       conf_threshold=DETECTOR_FLOOR, threads=1)


def _core(corners: np.ndarray, share: float = 0.5) -> np.ndarray:
    centre = corners.mean(0)
    return centre + share * (corners - centre)


def test_a_domino_box_lies_on_a_sprite_and_a_box_apart_on_bare_table(
        library: SpriteLibrary, detector: ObbDetector) -> None:
    labels_seen: set[int] = set()
    apart = bare = 0
    for index in FRAMES:
        _, matte, boxes = frame_boxes(library, detector, 11, index)
        for box in boxes:
            labels_seen.add(box.label)
            if box.label in (FACE, BACK):  # the middle of the box is all object
                assert box.kind == "tile"
                assert matte_share(matte, _core(box.corners)) >= 0.85
            elif box.kind in ("detected", "random"):
                apart += 1
                bare += matte_share(matte, box.corners) <= 0.05
    assert {FACE, NOT} <= labels_seen
    assert apart >= 20 and bare >= 0.85 * apart


def test_a_box_that_is_no_domino_is_no_tile_s_box(library: SpriteLibrary,
                                                  detector: ObbDetector) -> None:
    kinds: set[str] = set()
    for index in FRAMES:
        _, labels, _ = compose_with_matte(library, 11, index, frame_options(index))
        every = [t["corners"] for t in labels["tiles"] + labels["face_down"]]
        tiles = np.array(every, np.float32).reshape(-1, 4, 2)
        _, _, boxes = frame_boxes(library, detector, 11, index)
        for box in boxes:
            if box.label == NOT and len(tiles):
                kinds.add(box.kind)
                assert float(polygon_iou(box.corners[None], tiles).max()) < 0.5
    assert {"slid", "random"} <= kinds


def test_crops_are_cut_as_the_reader_cuts_them(library: SpriteLibrary,
                                               detector: ObbDetector) -> None:
    image, _, boxes = frame_boxes(library, detector, 12, 2)
    crops, labels = frame_box_crops(library, detector, 12, 2)
    assert crops.shape == (len(boxes), CROP_SIZE[1], CROP_SIZE[0], 3)
    assert labels.tolist() == [b.label for b in boxes]
    for k in (0, len(boxes) // 2, len(boxes) - 1):
        assert np.array_equal(crops[k], verifier_crop(image, boxes[k].corners))


def test_a_seed_gives_the_same_crops_whatever_the_processes() -> None:
    crops, labels = composite_box_set([SPRITES], 13, 3, models=ROOT / "models")
    again, labels_again = composite_box_set([SPRITES], 13, 3, models=ROOT / "models", jobs=2)
    assert len(crops) == len(labels) > 10
    assert np.array_equal(crops, again) and np.array_equal(labels, labels_again)


def test_no_sprites_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    for folder in (tmp_path / "empty", tmp_path / "missing"):
        with pytest.raises(BadInputError):
            composite_box_set([folder], 0, 1)
