"""``vision.models.light_colour``: a lamp's colour is taken out before a face's colour is
judged, a cloth's colour is not."""

from __future__ import annotations

import numpy as np
import pytest
from reader_fixtures import ROOT, needs_trained_models

from datasets.render import render_table, scene_rng
from datasets.textures import TileStyle, render_face
from vision.models.detections import match_boxes
from vision.models.light_colour import DAYLIGHT, kelvin_bgr, light_gains, light_kelvin
from vision.models.tile_check import grey_and_saturation, looks_like_tile, tile_mask
from vision.reading.reader import TileReader

#: Seed of the tables rendered here (not the tile check's development seeds, 501-506).
SEED = 8141


def _lit(image: np.ndarray, kelvin: float) -> np.ndarray:
    """``image`` as a camera that does not balance the light sees it under a lamp of
    ``kelvin`` (as bright on the whole)."""
    tint = kelvin_bgr(kelvin) / kelvin_bgr(DAYLIGHT)
    tint = tint / tint.mean()
    return np.clip(image.astype(np.float32) * tint, 0, 255).astype(np.uint8)


def _cream_tiles_on_stripes() -> tuple[np.ndarray, np.ndarray]:
    """Three cream faces on a blue and brown striped cloth, and their boxes."""
    rng = np.random.default_rng(5)
    image = np.zeros((240, 400, 3), np.float32)
    xx = np.arange(400)
    image[:, (xx // 14) % 3 == 0] = (90, 50, 20)
    image[:, (xx // 14) % 3 == 1] = (40, 60, 90)
    image[:, (xx // 14) % 3 == 2] = (150, 185, 215)
    style = TileStyle.random(rng)
    boxes = []
    for k, cx in enumerate((100, 200, 300)):
        face, alpha, _ = render_face((k + 2, 12 - k), style, 40, rng)
        region = image[80:160, cx - 20:cx + 20]
        region[:] = region * (1 - alpha[..., None]) + (0.97 * face) * alpha[..., None]
        boxes.append([[cx - 20, 80], [cx + 20, 80], [cx + 20, 160], [cx - 20, 160]])
    return image.astype(np.uint8), np.array(boxes, np.float32)


def test_a_warm_lamp_is_seen_warm_and_daylight_neutral() -> None:
    image, _ = _cream_tiles_on_stripes()
    warm = light_kelvin(_lit(image, 2700))
    assert warm is not None and warm < 3500
    day = light_gains(image)
    assert day is not None and np.allclose(day, 1.0, atol=0.25)
    gains = light_gains(_lit(image, 2700))
    assert gains is not None and gains[0] > 1.5 > 1.2 > gains[2]  # more blue, less red


def test_a_coloured_cloth_is_no_light() -> None:
    for colour in ((200, 80, 230), (60, 200, 70), (40, 40, 200)):  # pink, green, red
        image = np.zeros((240, 320, 3), np.uint8)
        image[:] = colour
        image[::7] = (np.array(colour) * 0.6).astype(np.uint8)
        assert light_kelvin(image) is None and light_gains(image) is None
    grey = np.full((240, 320), 180, np.uint8)
    assert light_gains(grey) is None


def test_a_tile_under_a_warm_lamp_is_judged_as_in_daylight() -> None:
    # a cream face under 2700 K is as saturated as a coloured cloth (0.6-0.7): judged as
    # it is, it fails the colour look; with the lamp's colour taken out it passes
    image, boxes = _cream_tiles_on_stripes()
    warm = _lit(image, 2700)
    gray, planes = grey_and_saturation(warm)
    assert not any(looks_like_tile(gray, planes, b, 0.9) for b in boxes)
    assert tile_mask(warm, boxes, np.full(len(boxes), 0.9)).all()
    gray, planes = grey_and_saturation(warm, light_gains(warm))
    assert all(looks_like_tile(gray, planes, b, 0.9) for b in boxes)


def test_a_coloured_patch_under_a_warm_lamp_is_still_no_face() -> None:
    image, _ = _cream_tiles_on_stripes()
    image[20:60, 40:60] = (40, 40, 200)  # a red patch, tile-shaped
    image[180:220, 340:360] = (180, 60, 40)  # a blue one
    warm = _lit(image, 2900)
    patches = np.array([[[40, 20], [60, 20], [60, 60], [40, 60]],
                        [[340, 180], [360, 180], [360, 220], [340, 220]]], np.float32)
    assert not tile_mask(warm, patches, np.full(2, 0.9)).any()


@pytest.fixture(scope="module")
def reader() -> TileReader:
    return TileReader(ROOT / "models")


@needs_trained_models
@pytest.mark.parametrize("surface", ["stripes", "gingham", "floral"])
def test_tiles_on_a_patterned_cloth_under_a_warm_lamp_are_kept(reader: TileReader,
                                                              surface: str) -> None:
    """The checked reader keeps the tiles of a table under a 2700 K lamp that the reader
    without the check finds."""
    plain = TileReader(ROOT / "models", check_tiles=False)
    kept = found = 0
    for i in range(2):
        scene = render_table(scene_rng(SEED, i), size=(1280, 720), surface=surface)
        image = _lit(scene.image, 2700)
        truth = np.array([t.corners for t in scene.tiles], np.float32)
        found += len(match_boxes(truth, plain.for_set(scene.set_size).detect(image).corners,
                                 0.5))
        kept += len(match_boxes(truth, reader.for_set(scene.set_size).detect(image).corners,
                                0.5))
    assert found > 20
    assert kept >= 0.95 * found


def test_a_face_clipped_by_a_warm_lamp_still_shows_the_lamp() -> None:
    # over-exposed under 2700 K: red and green clip, blue alone shows the light's colour
    image, _ = _cream_tiles_on_stripes()
    bright = np.clip(_lit(image, 2700).astype(np.float32) * 1.4, 0, 255).astype(np.uint8)
    kelvin = light_kelvin(bright)
    assert kelvin is not None and kelvin < 4000
    gains = light_gains(bright)
    assert gains is not None and gains[0] > 1.3
