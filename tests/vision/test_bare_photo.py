"""vision.stills.bare_photo and vision.change.registration: a photo of the bare table,
taken by hand, laid on a photo of the tiles; ``mtrain read/score --empty``."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import cv2
import numpy as np
import pytest
from known_table_fakes import PaintedRound, box, cloth_boxes, painted_round
from reader_fixtures import untrained_dir

from datasets.table_sequence import exposed, shifted
from engine.errors import BadInputError
from mtrain.cli import main
from vision.change.registration import register
from vision.mat.geometry import apply_homography
from vision.models.detections import Detections
from vision.readings import FrameReading, TileReading, TileReadings
from vision.stills.bare_photo import SPOT_STEP, BarePhoto

SIZE = (960, 540)


@pytest.fixture(scope="module")
def rnd() -> PaintedRound:
    return painted_round(23, "leather", True, tables=4, size=SIZE)


@pytest.fixture(scope="module")
def hand_held(rnd: PaintedRound) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The bare table, and the last table photographed again by a hand-held phone (moved,
    turned and tilted: a homography), brighter: (bare, photo, homography bare -> photo)."""
    rng = np.random.default_rng(7)
    w, h = SIZE
    src = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    dst = src + rng.uniform(-45, 45, (4, 2)).astype(np.float32)
    matrix = cv2.getPerspectiveTransform(src, dst)
    photo = cv2.warpPerspective(rnd.pictures[-1].image, matrix, SIZE,
                                borderMode=cv2.BORDER_REPLICATE)
    return (exposed(rnd.pictures[0].image, 0.9, 3.0, rng), exposed(photo, 1.15, 4.0, rng),
            matrix)


def test_a_hand_held_pair_registers(hand_held: tuple[np.ndarray, np.ndarray, np.ndarray]
                                    ) -> None:
    bare, photo, matrix = hand_held
    found = register(bare, photo)
    w, h = SIZE
    corners = np.array([[0, 0], [w, 0], [w, h], [0, h], [w / 2, h / 2]], np.float64)
    error = np.linalg.norm(apply_homography(found.homography, corners)
                           - apply_homography(matrix, corners), axis=1)
    assert error.max() < 3.0
    assert found.residual < 0.3


def test_boxes_on_the_bare_table_go_and_tiles_stay(
        rnd: PaintedRound, hand_held: tuple[np.ndarray, np.ndarray, np.ndarray]) -> None:
    bare, photo, matrix = hand_held
    last = rnd.pictures[-1]
    assert last.printed is not None
    tiles = [TileReading(v, apply_homography(matrix, c)) for v, c in last.tiles]
    phantoms = [apply_homography(matrix, c)
                for c in [last.printed, *cloth_boxes(last, 10, np.random.default_rng(8), SIZE)]]
    inside = [c for c in phantoms if (c >= 0).all() and (c[:, 0] < SIZE[0]).all()
              and (c[:, 1] < SIZE[1]).all()]
    frame = FrameReading(TileReadings.of([*tiles, *(TileReading((6, 6), c) for c in inside)]),
                         Detections(np.array([inside[0]]), np.ones(1), np.ones(1)), SIZE[::-1],
                         (inside[-1],))
    screened = BarePhoto(bare, photo).screen(frame)
    assert [t.values for t in screened.tiles.each()] == [t.values for t in tiles]
    assert len(screened.markers) == 0 and screened.backs == ()


def test_a_box_partly_outside_the_bare_photo_is_judged_on_what_it_shows(
        rnd: PaintedRound) -> None:
    # the bare table shot with the phone turned a little: it shows none of the photo's
    # right-hand 60 px
    last = rnd.pictures[-1]
    bare = exposed(shifted(rnd.pictures[0].image, 60.0, 0.0), 0.95, 3.0,
                   np.random.default_rng(3))
    laid = BarePhoto(bare, exposed(last.image, 1.0, 3.0, np.random.default_rng(4)))
    length = float(np.linalg.norm(last.tiles[0][1][1] - last.tiles[0][1][2]))
    w, h = SIZE
    edge = w - 60
    centres = np.array([c.mean(axis=0) for _, c in last.tiles])
    ys = [y for y in np.linspace(0.15 * h, 0.85 * h, 12)
          if np.min(np.linalg.norm(centres - [edge, y], axis=1)) > 2.5 * length]
    assert len(ys) >= 2
    # lying across that edge: three quarters seen, and a quarter
    most = np.array([box((edge - 0.25 * length, y), length, 0.0) for y in ys], np.float32)
    least = np.array([box((edge + 0.25 * length, y), length, 0.0) for y in ys], np.float32)
    assert laid.unchanged(most).all()
    assert not laid.unchanged(least).any()  # too little seen to say: kept
    tiles = np.array([c for _, c in last.tiles], np.float32)
    assert not laid.unchanged(tiles).any()


def test_photos_that_do_not_register_are_bad_input(
        hand_held: tuple[np.ndarray, np.ndarray, np.ndarray]) -> None:
    noise = np.random.default_rng(9).integers(0, 255, (*SIZE[::-1], 3), dtype=np.uint8)
    with pytest.raises(BadInputError, match="does not register"):
        BarePhoto(noise, hand_held[1], "photo.png")
    with pytest.raises(BadInputError, match="register"):
        register(np.zeros((200, 300, 3), np.uint8), hand_held[1])


# --- the command line ---------------------------------------------------------------


@pytest.fixture(scope="module")
def untrained_models(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return untrained_dir(tmp_path_factory)


@pytest.fixture(scope="module")
def photos(tmp_path_factory: pytest.TempPathFactory,
           hand_held: tuple[np.ndarray, np.ndarray, np.ndarray]) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("bare")
    bare, photo = folder / "bare.png", folder / "photo.png"
    cv2.imwrite(str(bare), hand_held[0])
    cv2.imwrite(str(photo), hand_held[1])
    return bare, photo


def test_read_and_score_take_the_bare_table(capsys: pytest.CaptureFixture[str],
                                            photos: tuple[Path, Path],
                                            untrained_models: Path) -> None:
    bare, photo = photos
    code = main(["read", str(photo), "--empty", str(bare), "--json", "--models",
                 str(untrained_models)])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and set(out) == {"tiles", "table", "decoded"}
    code = main(["score", str(photo), "--empty", str(bare), "--json", "--models",
                 str(untrained_models)])
    assert code == 0 and len(json.loads(capsys.readouterr().out)["hands"]) == 1


def test_a_bare_table_that_does_not_register_is_one_line(
        capsys: pytest.CaptureFixture[str], photos: tuple[Path, Path], tmp_path: Path) -> None:
    noise = tmp_path / "other.png"
    cv2.imwrite(str(noise), np.random.default_rng(3).integers(0, 255, (300, 400, 3),
                                                               dtype=np.uint8))
    code = main(["read", str(photos[1]), "--empty", str(noise), "--json"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1
    assert "does not register" in err and str(photos[1]) in err


# --- repeating and plain cloths, shot again by hand ----------------------------------


def _clear_boxes(labels: dict, rng: np.random.Generator, count: int) -> list[np.ndarray]:
    """Tile-sized boxes on bare cloth of the table photo, clear of everything on it."""
    objects = [np.asarray(t["corners"], np.float32) for key in ("tiles", "face_down", "markers")
               for t in labels[key]]
    tile = np.asarray(labels["tiles"][0]["corners"], np.float32)
    w, h = labels["width"], labels["height"]
    taken = np.zeros((h, w), np.uint8)
    for c in objects:
        cv2.fillConvexPoly(taken, np.round(c).astype(np.int32), 1)
    taken = np.asarray(cv2.dilate(taken, np.ones((61, 61), np.uint8)), bool)  # and shadows
    out = []
    for _ in range(400):
        shift = rng.uniform([0.1 * w, 0.1 * h], [0.9 * w, 0.9 * h]) - tile.mean(axis=0)
        box = tile + shift.astype(np.float32)
        mask = np.zeros((h, w), np.uint8)
        cv2.fillConvexPoly(mask, np.round(box).astype(np.int32), 1)
        if (box >= 0).all() and (box[:, 0] < w).all() and (box[:, 1] < h).all() \
                and not taken[mask > 0].any():
            out.append(box)
        if len(out) == count:
            break
    return out


@pytest.mark.parametrize("surface,seed", [("checks", 21), ("stripes", 22), ("gingham", 23),
                                          ("felt", 24)])
def test_a_repeating_or_plain_cloth_registers_and_screens(surface: str, seed: int) -> None:
    """On checks, stripes and gingham the ratio test keeps few matches, on felt there are
    few features: the bare photo still lies on the cloth (a repeat off will do), so boxes
    on bare cloth go and the tiles stay."""
    from datasets.composite import SpriteLibrary
    from datasets.composite.pairs import compose_pair

    sprites = Path(__file__).resolve().parents[1] / "datasets" / "sprites"
    bare, photo, labels = compose_pair(SpriteLibrary([sprites]), seed, 0, surface, False)
    laid = BarePhoto(bare, photo)
    assert laid.registration.residual < 0.3
    tiles = np.array([t["corners"] for t in labels["tiles"]
                      if t["visible"] > 0.99], np.float32).reshape(-1, 4, 2)
    cloth = np.array(_clear_boxes(labels, np.random.default_rng(seed), 12),
                     np.float32).reshape(-1, 4, 2)
    # where the bare photo, as registered, sees the table (a repeat off moves its edge)
    cloth = cloth[np.isfinite(laid.known.box_change(laid.known.view(photo), cloth))]
    assert len(tiles) and len(cloth) >= 4
    assert not laid.unchanged(tiles).any()
    assert laid.unchanged(cloth).all()


def test_clean_stripes_turned_register_by_search() -> None:
    """Straight stripes give SIFT next to nothing; a second shot turned 4 degrees and
    nearer still lies on the bare one (turns and scales searched, shifts correlated)."""
    w, h = 960, 720
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    stripes = (np.mod(yy + 0.05 * xx, 36) < 18).astype(np.float32)
    colour = np.array([150, 120, 30], np.float32) * stripes[..., None] + 230 * (
        1 - stripes[..., None])
    bare = cv2.GaussianBlur(colour, (0, 0), 1.2)
    turn = np.vstack([cv2.getRotationMatrix2D((w / 2, h / 2), 4.0, 1.05), [0, 0, 1]])
    photo = cv2.warpPerspective(bare, turn, (w, h), borderMode=cv2.BORDER_REFLECT_101)
    tiles = [np.array([[300, 200], [340, 200], [340, 280], [300, 280]], np.float32),
             np.array([[600, 400], [680, 400], [680, 440], [600, 440]], np.float32)]
    for t in tiles:
        cv2.fillConvexPoly(photo, t.astype(np.int32), (235, 240, 245))
    rng = np.random.default_rng(4)
    bare_u8 = np.clip(bare + rng.normal(0, 2, bare.shape), 0, 255).astype(np.uint8)
    photo_u8 = np.clip(photo + rng.normal(0, 2, photo.shape), 0, 255).astype(np.uint8)
    laid = BarePhoto(bare_u8, photo_u8)
    assert laid.registration.residual < 0.3
    cloth = [t + np.array([[-200, 120]], np.float32) for t in tiles]
    assert not laid.unchanged(np.array(tiles)).any()
    assert laid.unchanged(np.array(cloth)).all()


def _fine_dark_checks() -> np.ndarray:
    """A dark cloth of small yellow and black checks, turned, with a card and a block on
    it (1280x720)."""
    yy, xx = np.mgrid[0:720, 0:1280].astype(np.float32)
    u, v = 0.8 * xx + 0.6 * yy, -0.6 * xx + 0.8 * yy
    odd = ((np.floor(u / 7) + np.floor(v / 7)) % 2).astype(bool)
    image = np.where(odd[..., None], np.array([20, 120, 110], np.float32),
                     np.array([4, 6, 6], np.float32)).astype(np.uint8)
    cv2.fillConvexPoly(image, np.array([[760, 190], [900, 250], [820, 380], [720, 320]]),
                       (200, 205, 210))
    cv2.rectangle(image, (880, 400), (920, 440), (160, 40, 170), -1)
    return np.asarray(cv2.GaussianBlur(image, (3, 3), 0))


def test_a_fine_dark_checked_cloth_shot_again_registers() -> None:
    # a warp samples a fine two-colour pattern where a shrink averages it: compared
    # so, one photo's colour would differ from itself and the pair be called two tables
    photo = exposed(_fine_dark_checks(), 1.0, 3.0, np.random.default_rng(1))
    matrix = cv2.getRotationMatrix2D((640, 360), 1.5, 1.015)
    matrix[:, 2] += np.array([9.0, -6.0])
    bare = exposed(cv2.warpAffine(photo, matrix, (1280, 720), borderMode=cv2.BORDER_REFLECT),
                   0.92, 3.0, np.random.default_rng(2))
    found = register(bare, photo)
    truth = np.linalg.inv(np.vstack([matrix, [0.0, 0.0, 1.0]]))
    corners = np.array([[0, 0], [1280, 0], [1280, 720], [0, 720]], np.float64)
    assert np.abs(apply_homography(found.homography, corners)
                  - apply_homography(truth, corners)).max() < 3.0


def test_a_tile_no_box_lies_on_is_a_changed_spot(
        rnd: PaintedRound, hand_held: tuple[np.ndarray, np.ndarray, np.ndarray]) -> None:
    bare, photo, matrix = hand_held
    tiles = [TileReading(v, apply_homography(matrix, c)) for v, c in rnd.pictures[-1].tiles]
    laid = BarePhoto(bare, photo)

    def frame(of: list[TileReading]) -> FrameReading:
        return FrameReading(TileReadings.of(of), Detections.empty(), SIZE[::-1])

    for gone in (0, len(tiles) // 2, len(tiles) - 1):
        centre = tiles[gone].corners.mean(axis=0)
        width = float(np.linalg.norm(tiles[gone].corners[0] - tiles[gone].corners[1]))
        near = [np.linalg.norm(s - centre) < width for s in laid.unexplained(frame(tiles))]
        assert not any(near)
        left = [t for i, t in enumerate(tiles) if i != gone]
        assert any(np.linalg.norm(s - centre) < width for s in laid.unexplained(frame(left)))
        # a box read there with doubt explains nothing: the spot is looked at closer
        doubted = [*left, dataclasses.replace(tiles[gone], uncertain=True)]
        assert any(np.linalg.norm(s - centre) < width for s in laid.unexplained(frame(doubted)))


def test_a_changed_area_wider_than_a_closer_look_gets_spots_all_over_it(
        rnd: PaintedRound) -> None:
    # a third of the photo changed (a cloth laid over, or a bare photo that lies off on a
    # striped cloth): one spot at its middle would leave most of it unlooked at
    bare = rnd.pictures[0].image
    photo = bare.copy()
    x0, y0, x1, y1 = 120, 100, 720, 420
    rng = np.random.default_rng(3)
    photo[y0:y1, x0:x1] = rng.integers(60, 200, (y1 - y0, x1 - x0, 3), dtype=np.uint8)
    w = 20.0  # the tile read: 40 x 20 px, on unchanged table
    tile = TileReading((3, 4), np.array([[860, 470], [880, 470], [880, 510], [860, 510]],
                                        np.float32))
    frame = FrameReading(TileReadings.of([tile]), Detections.empty(), SIZE[::-1])
    spots = np.array(BarePhoto(bare, photo).unexplained(frame))
    assert len(spots) > 1
    reach = (SPOT_STEP / 2 + 0.5) * w
    for x in np.linspace(x0 + w, x1 - w, 12):
        for y in np.linspace(y0 + w, y1 - w, 6):
            assert np.abs(spots - [x, y]).max(axis=1).min() <= reach
    # and none away from it
    assert ((spots[:, 0] > x0 - reach) & (spots[:, 0] < x1 + reach)
            & (spots[:, 1] > y0 - reach) & (spots[:, 1] < y1 + reach)).all()


@pytest.mark.parametrize("surface", ["felt", "leather"])
def test_a_webcam_that_balances_its_white_again_still_registers(surface: str) -> None:
    """A fixed webcam balances its white again once white tiles are in view: the bare
    frame's plain cloth is another colour than under the tiles, its detail the same. A
    cloth of another colour is another table."""
    rnd = painted_round(24, surface, False, tables=2, size=SIZE)
    bare, tiles = rnd.pictures[0].image, rnd.pictures[-1].image
    balanced = np.clip(tiles * np.array([1.3, 1.0, 0.75], np.float32), 0, 255).astype(np.uint8)
    found = register(bare, balanced)
    assert np.abs(found.homography - np.eye(3)).max() < 0.02
    other = painted_round(31, surface, False, tables=2, size=SIZE).pictures[-1].image
    with pytest.raises(BadInputError, match="does not register"):
        register(bare, other)


def test_the_engine_on_the_mats_printed_outline_is_the_readers_to_judge(
        rnd: PaintedRound) -> None:
    """The mat prints the engine's outline where it lies: a white engine there, a double
    blank above all, changes the view from the bare mat so little that it passed for bare
    table. Here the photo is its own bare table: every box lies on unchanged table."""
    last = rnd.pictures[-1]
    laid = BarePhoto(last.image, last.image)
    assert len(laid.known.kept) == 1
    corners = np.array([c for _, c in last.tiles], np.float32)
    engine = laid.known.in_kept(corners)
    assert engine.sum() == 1
    (values,) = [v for (v, _), e in zip(last.tiles, engine, strict=True) if e]
    assert values[0] == values[1]  # the engine is a double
    assert (laid.unchanged(corners) == ~engine).all()
    bare = laid.bare_boxes()
    assert bare is not None and (np.asarray(bare(corners)) == ~engine).all()


def _mottled_cloth() -> np.ndarray:
    """A mottled bare cloth (1280x720): detail everywhere for the change to be judged on."""
    rng = np.random.default_rng(9)
    noise = cv2.GaussianBlur(rng.normal(0, 1, (720, 1280)).astype(np.float32), (0, 0), 3)
    grey = np.clip(150 + 400 * noise, 0, 255).astype(np.uint8)
    return cv2.merge([grey, (grey * 0.8).astype(np.uint8), (grey * 0.6).astype(np.uint8)])


def _laid(cloth: np.ndarray, tiles: list[np.ndarray], coins: list[tuple[int, int]]
          ) -> np.ndarray:
    photo = cloth.copy()
    for t in tiles:
        cv2.fillPoly(photo, [np.round(t).astype(np.int32)], (235, 235, 230))
    for c in coins:
        cv2.circle(photo, c, 14, (40, 90, 200), -1)  # a coin half a tile long
    return photo


def test_a_marker_the_detector_missed_by_a_trains_end_is_added_in_doubt() -> None:
    """A coin by a train's end, changed since the bare photo, that no box covers is a
    marker box (``made``); one between two tiles of a train is a gap in it, no marker."""
    cloth = _mottled_cloth()
    train = [box((500, 360), 60, 0.0), box((560, 360), 60, 0.0)]
    frame = FrameReading(TileReadings.of([TileReading((1, 2), t) for t in train]),
                         Detections.empty(), (720, 1280))
    bare = BarePhoto(cloth, _laid(cloth, train, [(640, 360)]))
    got = bare.with_missed_markers(frame, 1)
    assert len(got.markers) == 1 and got.tiles is frame.tiles
    assert np.linalg.norm(got.markers.corners[0].mean(axis=0) - [640, 360]) < 6
    assert list(got.markers.class_id) == [1]
    assert list(bare.made(got.markers.corners)) == [True]
    # the detector's own marker there: nothing to add
    found = dataclasses.replace(got, markers=got.markers)
    assert bare.with_missed_markers(found, 1) is found
    # a coin-sized change between two tiles of one train
    apart = [box((470, 360), 60, 0.0), box((590, 360), 60, 0.0)]
    gap = FrameReading(TileReadings.of([TileReading((1, 2), t) for t in apart]),
                       Detections.empty(), (720, 1280))
    bare = BarePhoto(cloth, _laid(cloth, apart, [(530, 360)]))
    assert bare.with_missed_markers(gap, 1) is gap
