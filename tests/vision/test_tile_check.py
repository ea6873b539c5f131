"""``vision.models.tile_check``: phantom tiles on patterned surfaces are dropped, real tiles kept,
and no count beyond the set is ever printed."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest
from reader_fixtures import ROOT, needs_trained_models

from datasets.render import render_empty, render_hands, render_table, scene_rng
from datasets.textures import TileStyle, render_face
from mtrain.cli import main
from vision.models import tile_check
from vision.models.detections import Detections, match_boxes
from vision.models.domino_check import DOUBT_REASON
from vision.models.light_colour import light_gains
from vision.models.onnx_models import ObbDetector
from vision.models.tile_check import (
    AROUND,
    ECHO_REACH,
    MAX_ECHO,
    MAX_ECHO_UNSURE,
    MAX_ECHO_VERY_SURE,
    PATTERN_BOXES,
    CheckedTileDetector,
    around_box,
    echo,
    echoes,
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


class TestLookedAtRoundEachBox:
    """``tile_mask`` looks at each box in the part of the image round it: the same
    verdicts as looks at the whole image's grey levels and saturation."""

    @staticmethod
    def _scene() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """A big frame: a check in its left half, drawn tiles on felt in its right half,
        and boxes on both, some at the frame's edges, turned and not."""
        rng = np.random.default_rng(11)
        image = np.zeros((900, 1600, 3), np.uint8)
        image[:, :800] = _checkerboard(20, (900, 800))
        image[:, 800:] = (40, 110, 30)
        boxes = []
        for cx, cy in ((1000, 300), (1300, 600), (1560, 450), (1200, 870)):
            face, alpha, _ = render_face((int(rng.integers(13)), int(rng.integers(13))),
                                         TileStyle.random(rng), 40, rng)
            y0, x0 = max(0, cy - 40), cx - 20
            region = image[y0:y0 + 80, x0:x0 + 40].astype(np.float32)
            a = alpha[:len(region), :, None]
            image[y0:y0 + 80, x0:x0 + 40] = (region * (1 - a) + face[:len(region)] * a
                                             ).astype(np.uint8)
            boxes.append(_box(cx, cy, 40))
        for cx, cy in ((150, 110), (430, 330), (10, 450), (700, 890)):
            boxes.append(_box(cx, cy, 20))
        turn = cv2.getRotationMatrix2D((1000, 300), 30, 1.0)
        boxes.append(np.c_[boxes[0], np.ones(4)] @ turn.T)
        scores = np.resize([0.5, 0.95, 0.75], len(boxes))
        return image, np.array(boxes, np.float32), scores

    def test_the_same_verdicts_as_looks_at_the_whole_image(self) -> None:
        image, boxes, scores = self._scene()
        gray, planes = grey_and_saturation(image, light_gains(image))
        whole = [looks_like_tile(gray, planes, b, float(s))
                 for b, s in zip(boxes, scores, strict=True)]
        assert tile_mask(image, boxes, scores).tolist() == whole
        assert True in whole and False in whole  # tiles kept, squares of the check dropped

    def test_the_part_round_a_box_holds_its_reach_or_is_none_at_the_edge(self) -> None:
        box = _box(800, 450, 40)  # 40 wide, 80 long
        part = around_box((900, 1600, 3), box, ECHO_REACH)
        assert part is not None
        x0, y0, x1, y1 = part
        assert x0 <= 780 - 2 * 40 and x1 >= 820 + 2 * 40
        assert y0 <= 410 - 1.25 * 80 and y1 >= 490 + 1.25 * 80
        near = around_box((900, 1600, 3), box, AROUND)
        assert near is not None and near[0] > x0 and near[2] < x1
        assert around_box((900, 1600, 3), _box(60, 450, 40), ECHO_REACH) is None

    def test_echoes_finds_what_the_full_echo_finds(self) -> None:
        # looked for at half size first: the same verdict at every limit, on the check's
        # squares (they echo), on drawn tiles (they do not), turned, and at the edges
        image, boxes, _ = self._scene()
        gray = grey_and_saturation(image)[0]
        rng = np.random.default_rng(4)
        more = [boxes[k] + rng.normal(0, 3, (1, 2)).astype(np.float32)
                for k in rng.integers(len(boxes), size=30)]
        verdicts = set()
        for box in [*boxes, *more]:
            value = echo(gray, box)
            for limit in (MAX_ECHO_UNSURE, MAX_ECHO, MAX_ECHO_VERY_SURE):
                for coarse_first in (True, False):
                    assert echoes(gray, box, limit, coarse_first) == (value >= limit), (
                        value, limit, coarse_first)
                verdicts.add(value >= limit)
        assert verdicts == {True, False}


class TestBareTable:
    """Boxes on table known to be bare (``bare``) are dropped unjudged: the looks are not
    asked of them."""

    @staticmethod
    def _detector(monkeypatch: pytest.MonkeyPatch, found: Detections
                  ) -> tuple[CheckedTileDetector, list[int]]:
        detector = TileReader(ROOT / "models").detector
        assert isinstance(detector, CheckedTileDetector)
        detector.verifier = None
        monkeypatch.setattr(ObbDetector, "__call__", lambda *_a, **_k: found)
        looked: list[int] = []
        real = tile_check.tile_mask

        def counted(image: np.ndarray, corners: np.ndarray,
                    scores: np.ndarray | None = None) -> np.ndarray:
            looked.append(len(corners))
            return real(image, corners, scores)
        monkeypatch.setattr(tile_check, "tile_mask", counted)
        return detector, looked

    @needs_trained_models
    def test_boxes_on_bare_table_are_not_looked_at(self, monkeypatch: pytest.MonkeyPatch
                                                  ) -> None:
        scene, boxes, scores = TestLookedAtRoundEachBox._scene()
        found = Detections(boxes, scores, np.zeros(len(boxes)))
        on_check = boxes.mean(axis=1)[:, 0] < 800
        detector, looked = self._detector(monkeypatch, found)
        kept = detector(scene, bare=lambda c: c.mean(axis=1)[:, 0] < 800)
        assert looked == [int((~on_check).sum())]  # only the boxes off the bare check
        assert not (kept.center[:, 0] < 800).any()
        # without it every box is looked at, and with as many tiles as squares of the
        # check the frame is not found patterned: the squares stay, for the reader to judge
        looked.clear()
        judged = detector(scene)
        assert looked == [len(boxes)] and not detector.last_patterned
        assert int((judged.center[:, 0] < 800).sum()) == int(on_check.sum())

    @needs_trained_models
    def test_a_box_on_bare_table_goes_from_a_plain_frame_too(
            self, monkeypatch: pytest.MonkeyPatch) -> None:
        image, box = _tile_on_felt()
        twin = box + np.array([80.0, 0.0], np.float32)  # a second box, on bare felt
        found = Detections(np.array([box, twin]), np.full(2, 0.9), np.zeros(2))
        detector, looked = self._detector(monkeypatch, found)
        kept = detector(image, bare=lambda c: c.mean(axis=1)[:, 0] > 200)
        assert looked == [1] and not detector.last_patterned
        assert len(kept) == 1 and np.allclose(kept.corners[0], box)


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
@pytest.mark.parametrize("surface", ["gingham", "stripes", "checks"])
def test_an_empty_patterned_frame_read_as_a_photo_gives_no_tile_at_all(
        reader: TileReader, surface: str) -> None:
    """``mtrain read`` looks closer at each box the domino check doubts
    (``vision.stills.trouble_spots.look_at_doubts``): on the cloth's pattern the detector
    does not find it again at another scale, and it goes."""
    from vision.stills.table_photo import read_table

    scene = render_empty(scene_rng(SEED, 0), surface, size=(1280, 720))
    scene_reader = reader.for_set(12)
    frame, _ = read_table(scene_reader.read(scene.image), 4, scene.image, scene_reader)
    assert len(frame.tiles) == 0


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


@needs_trained_models
def test_a_look_for_markers_alone_leaves_the_tile_boxes_unjudged() -> None:
    """``unchecked`` (the further looks for markers on a big frame) gives the model's
    boxes without the tile check's cost, and does not change what the detector knows
    of the frame (patterned or not); the checked look drops the check's squares."""
    detector = TileReader(ROOT / "models").detector
    assert isinstance(detector, CheckedTileDetector)

    def tiles(found: Detections) -> np.ndarray:
        return np.asarray(found.corners[found.class_id == detector.tile_class])

    for i in range(1, 7):  # the first checked cloth the detector boxes a lot
        image = render_empty(scene_rng(SEED, i), "checks", size=(1280, 720)).image
        raw = detector.unchecked(image)
        assert not detector.last_patterned
        if len(tiles(raw)) >= 2 * PATTERN_BOXES:
            break
    assert len(tiles(raw)) >= 2 * PATTERN_BOXES
    judged = detector(image)
    assert detector.last_patterned
    kept, every = tiles(judged), tiles(raw)
    assert len(kept) < len(every)
    assert all(np.any(np.all(np.isclose(every, box), axis=(1, 2))) for box in kept)
