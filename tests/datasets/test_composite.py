"""The compositor: frames from the committed sprites (``tests/datasets/sprites``) whose
labels line up with the pixels, reproducible, resumable, cut into windows."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from datasets.composite import Options, SpriteLibrary, compose_frame, crop_windows, write_frames
from datasets.composite.compose import compose_with_matte
from datasets.composite.write import frame_name
from datasets.labels import load_labels
from datasets.yolo_export import obb_lines

SPRITES = Path(__file__).resolve().parent / "sprites"
RENDERED = Options(painter=0.0, negatives=0.0)


@pytest.fixture(scope="module")
def library() -> SpriteLibrary:
    return SpriteLibrary([SPRITES])


@pytest.fixture(scope="module")
def frames(library: SpriteLibrary) -> list[tuple[np.ndarray, dict, np.ndarray]]:
    return [compose_with_matte(library, 11, i, RENDERED) for i in range(6)]


def _fill(poly: np.ndarray, shape: tuple[int, ...], shrink: float = 1.0) -> np.ndarray:
    poly = np.asarray(poly, np.float64)
    centre = poly.mean(axis=0)
    mask = np.zeros(shape[:2], np.uint8)
    cv2.fillConvexPoly(mask, np.round((centre + shrink * (poly - centre)) * 16).astype(np.int32),
                       1, cv2.LINE_AA, 4)
    return mask.astype(bool)


def _boxes(labels: dict) -> list[tuple[str, np.ndarray]]:
    return ([("tile", np.asarray(t["corners"])) for t in labels["tiles"]]
            + [("back", np.asarray(t["corners"])) for t in labels["face_down"]]
            + [("marker", np.asarray(m["corners"])) for m in labels["markers"]])


def _coverage(matte: np.ndarray, labels: dict, shift: np.ndarray | None = None) -> list[float]:
    out = []
    for kind, poly in _boxes(labels):
        poly = poly + (0 if shift is None else shift)
        inner = _fill(poly, matte.shape, 0.8 if kind != "marker" else 0.6)
        if inner.sum() >= 8:
            out.append(float(matte[inner].mean()))
    return out


def test_labels_line_up_with_the_sprites_mattes(
        frames: list[tuple[np.ndarray, dict, np.ndarray]]) -> None:
    """Every labelled face is covered by a sprite's matte, and every sprite pixel lies
    on or next to a labelled face (its sides and a marker's top reach a little out)."""
    boxes = rendered = 0
    for _, labels, matte in frames:
        assert min(_coverage(matte, labels), default=1.0) > 0.95
        near = np.zeros(matte.shape, bool)
        for _, poly in _boxes(labels):
            near |= _fill(poly, matte.shape, 1.5)
        covered = matte > 0.5
        assert (covered & ~near).sum() <= 0.01 * max(1, covered.sum())
        boxes += len(_boxes(labels))
        rendered += labels["composite"]["rendered"]
    assert boxes > 30 and rendered > 10


def test_labels_half_a_tile_off_would_be_caught(
        frames: list[tuple[np.ndarray, dict, np.ndarray]]) -> None:
    """The check above can fail: the same labels moved by half a tile's width do."""
    worst = []
    for _, labels, matte in frames:
        for tile in labels["tiles"]:
            c = np.asarray(tile["corners"])
            across = c[1] - c[0]
            worst += _coverage(matte, {"tiles": [{"corners": c}], "face_down": [],
                                       "markers": []}, shift=across * 0.6)
    assert worst and np.median(worst) < 0.9


def test_the_frame_shows_the_tiles_where_the_labels_are(
        frames: list[tuple[np.ndarray, dict, np.ndarray]]) -> None:
    """In the finished picture a tile's face is lighter than the cloth round it, on
    average (tiles are ivory, cloths darker or patterned)."""
    diffs = []
    for image, labels, _ in frames:
        grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY).astype(np.float32)
        for tile in labels["tiles"]:
            inner = _fill(np.asarray(tile["corners"]), grey.shape, 0.7)
            ring = _fill(np.asarray(tile["corners"]), grey.shape, 2.2) & ~_fill(
                np.asarray(tile["corners"]), grey.shape, 1.4)
            if inner.sum() > 20 and ring.sum() > 20:
                diffs.append(float(grey[inner].mean() - grey[ring].mean()))
    assert len(diffs) > 20 and np.median(diffs) > 0


def test_pips_lie_on_their_tile_and_half(
        frames: list[tuple[np.ndarray, dict, np.ndarray]]) -> None:
    checked = 0
    for image, labels, _ in frames:
        for pip in labels["pips"]:
            tile = labels["tiles"][pip["tile"]]
            c = np.asarray(tile["corners"])
            half = c[:2].tolist() + [((c[1] + c[2]) / 2).tolist(), ((c[0] + c[3]) / 2).tolist()]
            if pip["half"] == 1:
                half = [((c[0] + c[3]) / 2).tolist(), ((c[1] + c[2]) / 2).tolist(),
                        *c[2:].tolist()]
            x0, y0, x1, y1 = pip["box"]
            point = (int((y0 + y1) / 2), int((x0 + x1) / 2))
            assert _fill(np.asarray(half), image.shape, 1.1)[point]
            checked += 1
    assert checked > 50


def test_same_seed_same_frame(library: SpriteLibrary) -> None:
    a, la = compose_frame(library, 5, 3)
    b, lb = compose_frame(library, 5, 3)
    assert np.array_equal(a, b) and la == lb
    c, _ = compose_frame(library, 5, 4)
    assert not np.array_equal(a, c)


def test_a_frames_set_holds_every_tile_it_labels(library: SpriteLibrary) -> None:
    tops = []
    for index in range(24):
        _, labels = compose_frame(library, 11, index)
        assert all(max(t["values"]) <= labels["set"] for t in labels["tiles"])
        tops += [max(t["values"]) for t in labels["tiles"]]
    assert max(tops) > 12


def test_negatives_show_nothing_to_find(library: SpriteLibrary) -> None:
    for i in range(3):
        image, labels = compose_frame(library, 8, i, Options(negatives=1.0))
        assert image.shape == (720, 1280, 3) and image.std() > 3
        assert labels["tiles"] == [] and labels["markers"] == [] and labels["table"] is None
        assert labels["composite"]["negative"]


def test_painter_tiles_without_a_library() -> None:
    image, labels = compose_frame(SpriteLibrary([]), 2, 0, Options(negatives=0.0))
    assert labels["tiles"] and labels["markers"] == []  # markers need rendered sprites
    assert labels["composite"]["rendered"] == 0
    assert labels["table"] is not None  # every tile shows the layout's values


def test_written_frames_load_export_and_resume(tmp_path: Path) -> None:
    written = write_frames(tmp_path / "a", [SPRITES], 3, 4, jobs=1)
    assert len(written) == 3
    for label in written:
        data = load_labels(label)
        assert (tmp_path / "a" / data["image"]).exists()
        assert len(obb_lines(data)) == len(data["tiles"]) + len(data["markers"])
    assert write_frames(tmp_path / "a", [SPRITES], 3, 4, jobs=1) == []  # all there
    twice = write_frames(tmp_path / "b", [SPRITES], 3, 4, jobs=2)
    for label in twice:
        name = label.name
        assert label.read_text() == (tmp_path / "a" / name).read_text()
        jpg = f"{frame_name(4, int(name.split('_')[-1][:6]))}.jpg"
        assert (tmp_path / "a" / jpg).read_bytes() == (tmp_path / "b" / jpg).read_bytes()


def test_windows_keep_the_tiles_pixel_size(tmp_path: Path) -> None:
    write_frames(tmp_path / "frames", [SPRITES], 2, 6, jobs=1,
                 options=Options(negatives=0.0))
    labels = crop_windows([tmp_path / "frames"], tmp_path / "win", side=640, per_frame=2)
    assert len(labels) == 4
    for path in labels:
        data = json.loads(path.read_text())
        image = cv2.imread(str(path.with_suffix(".jpg")))
        assert image is not None and image.shape == (640, 640, 3) and data["width"] == 640
        x0, y0, _ = data["window"]
        frame = load_labels(tmp_path / "frames" / f"{path.stem.rsplit('_w', 1)[0]}.json")
        originals = np.array([t["corners"] for t in frame["tiles"]]) - [x0, y0]
        for tile in data["tiles"]:
            c = np.asarray(tile["corners"])
            assert np.abs(originals - c).max(axis=(1, 2)).min() < 0.02
            assert np.all(c.mean(axis=0) > -5) and np.all(c.mean(axis=0) < 645)


def test_windows_at_the_readers_looks_shrink_tiles_with_the_frame(tmp_path: Path) -> None:
    """``looks``: window 1 is cut from the frame shrunk to a long side of 640, as the
    reader's first look sees it, padded to the window; its tiles shrink with it."""
    write_frames(tmp_path / "frames", [SPRITES], 1, 6, jobs=1,
                 options=Options(negatives=0.0))
    labels = crop_windows([tmp_path / "frames"], tmp_path / "win", side=640, per_frame=2,
                          looks=(None, 640))
    full, shrunk = (json.loads(p.read_text()) for p in sorted(labels))
    frame = load_labels(tmp_path / "frames" / f"{labels[0].stem.rsplit('_w', 1)[0]}.json")
    factor = 640 / max(frame["width"], frame["height"])
    assert full["scale"] == 1.0 and shrunk["scale"] == pytest.approx(factor, abs=1e-6)
    image = cv2.imread(str(sorted(labels)[1].with_suffix(".jpg")))
    assert image is not None and image.shape == (640, 640, 3)
    x0, y0, _ = shrunk["window"]
    originals = np.array([t["corners"] for t in frame["tiles"]]) * factor - [x0, y0]
    assert len(shrunk["tiles"]) == len(frame["tiles"]) > 0  # the whole frame fits
    for tile in shrunk["tiles"]:
        assert np.abs(originals - np.asarray(tile["corners"])).max(axis=(1, 2)).min() < 0.02
    below = image[round(frame["height"] * factor) + 8:].astype(int)
    assert np.abs(below - 114).max() <= 4  # padded grey below (JPEG-blurred)


HANDS = Options(hands=True, size=(1280, 960))


def test_hand_photos_show_every_tile_rendered_and_in_view(library: SpriteLibrary) -> None:
    """``--hands``: one player's hand, every tile a rendered sprite of a double-12 set,
    whole in the photo, its labels on the sprites' mattes; the same seed, the same photo."""
    counts = []
    for i in range(4):
        image, labels, matte = compose_with_matte(library, 21, i, HANDS)
        assert image.shape == (960, 1280, 3) and labels["kind"] == "hands-composite"
        assert labels["markers"] == [] and labels["face_down"] == []
        assert labels["composite"]["rendered"] == len(labels["tiles"]) >= 1
        assert all(max(t["values"]) <= 12 for t in labels["tiles"])
        assert min(_coverage(matte, labels)) > 0.95
        assert all(t["visible"] == 1.0 for t in labels["tiles"])
        counts.append(len(labels["tiles"]))
    assert len(set(counts)) > 1  # hands of different sizes
    a, la = compose_frame(library, 21, 2, HANDS)
    b, lb = compose_frame(library, 21, 2, HANDS)
    assert np.array_equal(a, b) and la == lb


def test_hand_photos_need_rendered_tiles(tmp_path: Path) -> None:
    from datasets.composite.write import main

    assert main([str(tmp_path / "out"), "--hands", "--count", "1"]) == 2
    assert main([str(tmp_path / "out"), "--hands", "--count", "2", "--jobs", "1",
                 "--sprites", str(SPRITES)]) == 0
    assert len(list((tmp_path / "out").glob("*.json"))) == 2
