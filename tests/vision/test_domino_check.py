"""``vision.models.domino_check``: the crop every box is judged on, the verdicts' thresholds and
the trained check's answers on boxes whose truth is known."""

from __future__ import annotations

import numpy as np
import pytest
from reader_fixtures import ROOT, needs_trained_models

from datasets.render import render_empty, render_hands, scene_rng
from datasets.textures import TileStyle, render_face
from vision.models.domino_check import (
    CLASSES,
    CROP_SIZE,
    DETECTOR_SURE,
    DOUBT_REASON,
    NOT_CERTAIN,
    NOT_DOUBT,
    NOT_SURE,
    DominoCheck,
    Verdicts,
    verifier_crop,
)
from vision.models.onnx_models import ModelSpec, load_specs
from vision.reading.domino_verdicts import judged
from vision.readings import TileReading

#: Seeds of the scenes rendered here: not the check's training or validation seeds
#: (140, 240) nor the realism benchmark's (7301, 7302).
SEED = 8111


def _box(cx: float, cy: float, width: float, angle: float = 0.0) -> np.ndarray:
    """A tile box ``width`` x ``2 width`` about ``(cx, cy)``, turned ``angle`` radians."""
    u = np.array([np.cos(angle), np.sin(angle)])
    v = np.array([-u[1], u[0]])
    a, w = u * width, v * width / 2
    c = np.array([cx, cy])
    return np.array([c - a - w, c - a + w, c + a + w, c + a - w], np.float32)


def _tile_on_felt(width: int = 40) -> tuple[np.ndarray, np.ndarray]:
    """A drawn 3-5 face on green felt, and its box (long side down the image)."""
    rng = np.random.default_rng(7)
    image = np.zeros((240, 320, 3), np.float32)
    image[:] = (40, 110, 30)
    face, alpha, _ = render_face((3, 5), TileStyle.random(rng), width, rng)
    y0, x0 = 120 - width, 160 - width // 2
    region = image[y0:y0 + 2 * width, x0:x0 + width]
    region[:] = region * (1 - alpha[..., None]) + face * alpha[..., None]
    return image.astype(np.uint8), _box(160, 120, width, np.pi / 2)


class TestCrop:
    def test_the_crop_stands_the_box_upright_with_its_surroundings(self) -> None:
        image, box = _tile_on_felt()
        crop = verifier_crop(image, box)
        assert crop.shape == (CROP_SIZE[1], CROP_SIZE[0], 3) and crop.dtype == np.uint8
        felt = np.array([40, 110, 30])
        assert np.abs(crop[2, 2].astype(int) - felt).max() < 20  # the context is the felt
        middle = crop[CROP_SIZE[1] // 4:3 * CROP_SIZE[1] // 4, 12:CROP_SIZE[0] - 12]
        assert float(middle.mean()) > 150  # the face, pale

    def test_a_box_given_lying_or_from_its_other_corner_is_cut_the_same(self) -> None:
        image, box = _tile_on_felt()
        first = verifier_crop(image, box).astype(int)
        rolled = verifier_crop(image, np.roll(box, 1, axis=0)).astype(int)
        # the same box starting at a long edge: ordered to the short edge first
        assert np.abs(first - rolled).mean() < 25 or np.abs(first[::-1, ::-1] - rolled).mean() < 25

    def test_a_big_photo_s_tile_is_cut_like_a_small_one(self) -> None:
        image, box = _tile_on_felt()
        big = np.repeat(np.repeat(image, 6, axis=0), 6, axis=1)
        small_crop = verifier_crop(image, box).astype(int)
        big_crop = verifier_crop(big, box * 6 + 2.5).astype(int)
        assert np.abs(small_crop - big_crop).mean() < 12

    def test_a_grey_image_is_cut_in_three_planes(self) -> None:
        image, box = _tile_on_felt()
        grey = image.mean(axis=2).astype(np.uint8)
        assert verifier_crop(grey, box).shape == (CROP_SIZE[1], CROP_SIZE[0], 3)


class TestVerdicts:
    def test_thresholds(self) -> None:
        probs = np.array([[0.9, 0.05, 0.05], [0.2, 0.2, 0.6], [0.0, 0.05, 0.95],
                          [0.5, 0.5 - NOT_DOUBT / 2, NOT_DOUBT / 2]], np.float32)
        v = Verdicts(probs)
        assert v.dropped.tolist() == [False, False, True, False]
        assert v.certain.tolist() == [False, False, False, False]
        assert v.doubted.tolist() == [False, True, True, False]
        assert NOT_DOUBT < NOT_SURE < NOT_CERTAIN

    def test_a_box_the_detector_is_sure_of_is_dropped_only_when_certain(self) -> None:
        probs = np.array([[0.05, 0.0, 0.95], [0.0, 0.0, 1.0]], np.float32)
        unsure = Verdicts(probs, np.array([DETECTOR_SURE - 0.1] * 2))
        sure = Verdicts(probs, np.array([DETECTOR_SURE] * 2))
        assert unsure.dropped.tolist() == [True, True]
        assert sure.dropped.tolist() == [False, True]
        assert sure.certain.tolist() == [False, True]
        assert sure.doubted.tolist() == [True, False]

    def test_a_model_of_other_classes_is_refused(self, tmp_path: object) -> None:
        spec = load_specs(ROOT / "models", "float").get("covered")
        assert spec is not None
        with pytest.raises(ValueError, match="verifier classes"):
            DominoCheck(spec)

    def test_a_doubted_reading_says_why_in_its_json(self) -> None:
        box = _box(50, 50, 10)
        doubted = TileReading((3, 5), box, 0.9, True, doubt=DOUBT_REASON)
        assert doubted.to_json()["doubt"] == DOUBT_REASON and DOUBT_REASON in str(doubted)
        assert "doubt" not in TileReading((3, 5), box, 0.9, False).to_json()


@pytest.fixture(scope="module")
def check() -> DominoCheck:
    spec: ModelSpec = load_specs(ROOT / "models")["verifier"]
    assert spec.names == CLASSES
    return DominoCheck(spec)


@needs_trained_models
def test_no_boxes(check: DominoCheck) -> None:
    image, _ = _tile_on_felt()
    assert check(image, np.zeros((0, 4, 2), np.float32)).probs.shape == (0, len(CLASSES))


@needs_trained_models
def test_rendered_tiles_are_dominoes_and_their_surroundings_are_not(check: DominoCheck) -> None:
    """Every fully visible tile of rendered hands is kept; tile-sized boxes on an empty
    checked and a printed cloth are mostly judged no domino."""
    faces = []
    for i in range(3):
        scene = render_hands(scene_rng(SEED, i))
        shown = np.array([t.corners for t in scene.tiles if t.visible >= 0.95], np.float32)
        faces.append(check(scene.image, shown).dropped)
    kept = ~np.concatenate(faces)
    assert len(kept) >= 10 and kept.all()
    rng = np.random.default_rng(SEED)
    nots = []
    for i, surface in enumerate(("gingham", "checks", "floral")):
        scene = render_empty(scene_rng(SEED + 1, i), surface, size=(1280, 720))
        boxes = [_box(float(x), float(y), 40, float(a)) for x, y, a in
                 zip(rng.uniform(100, 1180, 12), rng.uniform(100, 620, 12),
                     rng.uniform(0, np.pi, 12), strict=True)]
        nots.append(check(scene.image, np.array(boxes)).not_domino >= NOT_DOUBT)
    assert float(np.mean(np.concatenate(nots))) >= 0.9


@needs_trained_models
def test_readings_on_no_domino_are_dropped_or_doubted(check: DominoCheck) -> None:
    """The reader's last word on each reading: a drawn tile's kept as it was, a box on an
    empty checked cloth never kept as a sure tile."""
    image, box = _tile_on_felt()
    tile = TileReading((3, 5), box, 0.9, False)
    assert judged(check, image, [tile]) == [tile]
    scene = render_empty(scene_rng(SEED + 2, 0), "checks", size=(1280, 720))
    boxes = [_box(float(x), 360.0, 40) for x in range(100, 1200, 100)]
    kept = judged(check, scene.image, [TileReading((1, 2), b, 0.9, False) for b in boxes])
    dropped = len(boxes) - len(kept)
    assert dropped + sum(t.doubt == DOUBT_REASON for t in kept) >= 0.8 * len(boxes)
