"""``vision.models.tile_check``: phantom tiles on patterned surfaces are dropped, real tiles kept,
and no count beyond the set is ever printed."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from reader_fixtures import ROOT, needs_trained_models

from datasets.render import render_empty, render_hands, render_table, scene_rng
from datasets.textures import TileStyle, render_face
from mtrain.cli import main
from vision.models.detections import match_boxes
from vision.models.domino_check import DOUBT_REASON
from vision.models.tile_check import (
    MAX_ECHO,
    MAX_ECHO_VERY_SURE,
    echo,
    grey_and_saturation,
    looks_like_tile,
    tile_mask,
)
from vision.reading.reader import TileReader

#: Seeds of the scenes rendered here: not the tile check's development seeds (501-506)
#: nor the realism benchmark's (7301, 7302).
SEED = 8101


def _box(cx: float, cy: float, width: float) -> np.ndarray:
    """An upright tile box (corner convention: 0-1 the short top edge)."""
    w, h = width / 2, width
    return np.array([[cx - w, cy - h], [cx + w, cy - h], [cx + w, cy + h], [cx - w, cy + h]],
                    np.float32)


def _checkerboard(square: int, shape: tuple[int, int] = (240, 320)) -> np.ndarray:
    yy, xx = np.mgrid[0:shape[0], 0:shape[1]]
    light = ((yy // square + xx // square) % 2 == 0)
    return np.where(light[..., None], 235, 25).astype(np.uint8).repeat(3, axis=2)


def _tile_on_felt(width: int = 40) -> tuple[np.ndarray, np.ndarray]:
    """A drawn 3-5 face on green felt, and its box."""
    rng = np.random.default_rng(7)
    image = np.zeros((240, 320, 3), np.float32)
    image[:] = (40, 110, 30)
    face, alpha, _ = render_face((3, 5), TileStyle.random(rng), width, rng)
    y0, x0 = 120 - width, 160 - width // 2
    region = image[y0:y0 + 2 * width, x0:x0 + width]
    region[:] = region * (1 - alpha[..., None]) + face * alpha[..., None]
    return image.astype(np.uint8), _box(160, 120, width)


class TestOneBox:
    def test_a_drawn_tile_on_felt_looks_like_a_tile(self) -> None:
        image, box = _tile_on_felt()
        gray, sat = grey_and_saturation(image)
        assert echo(gray, box) < 0.9
        assert looks_like_tile(gray, sat, box, score=0.5)
        assert tile_mask(image, box[None]).tolist() == [True]

    def test_a_light_square_of_a_checkerboard_is_the_pattern_repeating(self) -> None:
        image = _checkerboard(20)
        gray, sat = grey_and_saturation(image)
        box = _box(150, 110, 20)  # a tile-shaped box over one light square and its ends
        assert echo(gray, box) > 0.9
        assert not looks_like_tile(gray, sat, box, score=0.9)

    def test_a_coloured_patch_is_no_face(self) -> None:
        image = np.zeros((240, 320, 3), np.uint8)
        image[:] = (40, 40, 200)  # a red cloth
        image[90:150, 145:175] = (60, 60, 230)  # a lighter red patch, tile-shaped
        gray, sat = grey_and_saturation(image)
        assert not looks_like_tile(gray, sat, _box(160, 120, 30), score=0.5)

    def test_a_close_up_of_one_tile_has_no_surroundings_to_echo(self) -> None:
        # the tile fills the photo: what a padded edge would repeat is not the table's
        image, box = _tile_on_felt()
        x0, y0, x1, y1 = (int(v) for v in (*box.min(axis=0), *box.max(axis=0)))
        close = np.ascontiguousarray(image[y0:y1, x0:x1])
        edge = np.array([[0, 0], [x1 - x0, 0], [x1 - x0, y1 - y0], [0, y1 - y0]], np.float32)
        gray, sat = grey_and_saturation(close)
        assert echo(gray, edge) == 0.0
        assert looks_like_tile(gray, sat, edge, score=0.5)

    def test_a_near_twin_beside_a_tile_the_detector_is_sure_of_is_no_pattern(self) -> None:
        # a sorted hand or a set laid out in order: 5-5, 5-6, 6-6 look alike side by side
        rng = np.random.default_rng(3)
        image = np.zeros((240, 200, 3), np.float32)
        image[:] = (40, 110, 30)
        face, alpha, _ = render_face((5, 6), TileStyle.random(np.random.default_rng(7)), 40,
                                     np.random.default_rng(1))
        for x0 in (50, 94):
            region = image[80:160, x0:x0 + 40]
            region[:] = region * (1 - alpha[..., None]) + face * alpha[..., None]
        image = np.clip(image + rng.normal(0, 20, image.shape), 0, 255).astype(np.uint8)
        box = np.array([[50, 80], [90, 80], [90, 160], [50, 160]], np.float32)
        gray, sat = grey_and_saturation(image)
        assert MAX_ECHO <= echo(gray, box) < MAX_ECHO_VERY_SURE
        assert looks_like_tile(gray, sat, box, score=0.95)
        assert not looks_like_tile(gray, sat, box, score=0.75)

    def test_tiny_boxes_are_not_judged(self) -> None:
        image = _checkerboard(2)
        assert tile_mask(image, _box(100, 100, 2.5)[None]).tolist() == [True]

    def test_no_boxes(self) -> None:
        assert tile_mask(_checkerboard(8), np.zeros((0, 4, 2), np.float32)).shape == (0,)


@pytest.fixture(scope="module")
def reader() -> TileReader:
    return TileReader(ROOT / "models")


@needs_trained_models
@pytest.mark.parametrize("surface", ["gingham", "stripes", "checks"])
def test_an_empty_patterned_frame_gives_no_tile(reader: TileReader, surface: str) -> None:
    """Whatever the detector boxes on the pattern (how many depends on the precision
    path, ``vision.models.precision``), no tile is counted: a box read there at all is shown
    as doubted, no domino perhaps (``vision.models.domino_check``)."""
    scene = render_empty(scene_rng(SEED, 0), surface, size=(1280, 720))
    tiles = reader.for_set(12).read(scene.image).tiles.each()
    assert all(t.uncertain and t.doubt == DOUBT_REASON for t in tiles)


@needs_trained_models
def test_no_phantom_on_a_printed_cloth_is_counted_silently(reader: TileReader) -> None:
    """Flowers and dots are the checks' weakest case: a box read there is marked
    uncertain, never counted as a tile."""
    for i in range(2):
        scene = render_empty(scene_rng(SEED, i), "floral", size=(1280, 720))
        assert all(t.uncertain for t in reader.for_set(12).read(scene.image).tiles.each())


@needs_trained_models
def test_the_check_keeps_the_real_tiles_of_the_painter_s_scenes(reader: TileReader) -> None:
    """Every tile box the detector finds on a rendered table or hand (as the reader looks
    at the frame) is still found with the check."""
    plain = TileReader(ROOT / "models", check_tiles=False)
    kept = found = 0
    scenes = [render_table(scene_rng(SEED + 1, i)) for i in range(2)]
    scenes += [render_hands(scene_rng(SEED + 2, i)) for i in range(2)]
    for scene in scenes:
        truth = np.array([t.corners for t in scene.tiles], np.float32)
        before = plain.for_set(scene.set_size).detect(scene.image)
        after = reader.for_set(scene.set_size).detect(scene.image)
        found += len(match_boxes(truth, before.corners, 0.5))
        kept += len(match_boxes(truth, after.corners, 0.5))
    assert found > 40
    assert kept >= found


@needs_trained_models
def test_read_never_prints_a_count_beyond_the_set(capsys: pytest.CaptureFixture[str],
                                                  tmp_path: Path) -> None:
    """An eval table of a double-12 set read as a double-6 one: its 7-12 halves are read
    within the set (the most they could be in it), flagged, never printed as they are."""
    labels = json.loads((ROOT / "datasets" / "eval" / "table_9002_000004.json").read_text())
    assert max(max(t["values"]) for t in labels["tiles"]) > 6
    image = ROOT / "datasets" / "eval" / labels["image"]
    code = main(["read", str(image), "--json", "--rule", "set=6"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["tiles"]
    assert max(max(t["values"]) for t in out["tiles"]) <= 6
    assert any(t["uncertain"] for t in out["tiles"])
    table = out["table"] or {"trains": []}
    assert all(v <= 6 for train in table["trains"] for tile in train["tiles"] for v in tile)
