"""The photoreal sprite library: what each sprite is, its geometry, the shadow split, the
CLI, and the committed sprites (``tests/datasets/sprites``, rendered by
``python -m datasets.photoreal sprites OUT --count 40 --seed 0 --tile-px 60 110
--samples 12``) whose mattes must lie where their metadata says."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from datasets.photoreal.sprites import (
    KINDS,
    PAIRS,
    build_sprite,
    main,
    render_sprites,
    split_shadow,
    sprite_job,
    sprite_kind,
    sprite_meta,
    sprite_name,
)

ROOT = Path(__file__).resolve().parents[2]
SPRITES = Path(__file__).resolve().parent / "sprites"


def _fill(poly: list[list[float]] | np.ndarray, shape: tuple[int, int]) -> np.ndarray:
    mask = np.zeros(shape, np.uint8)
    cv2.fillConvexPoly(mask, np.round(np.asarray(poly) * 16).astype(np.int32), 1,
                       cv2.LINE_AA, 4)
    return mask.astype(bool)


class TestDescription:
    def test_same_index_same_sprite(self) -> None:
        a, b = build_sprite(3, 17), build_sprite(3, 17)
        assert a.kind == b.kind and a.values == b.values and a.style == b.style
        assert np.array_equal(a.corners, b.corners) and np.array_equal(a.camera.r, b.camera.r)
        assert build_sprite(3, 18).camera.width != a.camera.width or build_sprite(
            3, 18).kind != a.kind or not np.array_equal(build_sprite(3, 18).corners, a.corners)

    def test_every_kind_and_every_tile_of_a_double_15_set(self) -> None:
        kinds = [sprite_kind(i) for i in range(200)]
        assert set(kinds) == set(KINDS)
        shown = {tuple(sorted(build_sprite(0, i).values)) for i in range(200)
                 if kinds[i] == "tile"}
        assert shown == set(PAIRS) and len(PAIRS) == 136

    def test_styles_lights_and_tilts_vary(self) -> None:
        specs = [build_sprite(0, i) for i in range(60)]
        assert len({s.style.name for s in specs}) == 3
        assert len({s.lighting.kind for s in specs}) == 3
        assert min(s.tilt for s in specs) < 5 < 15 < max(s.tilt for s in specs)
        assert len({s.surface.kind for s in specs}) >= 5

    @pytest.mark.parametrize("index", range(20))
    def test_parts_lie_in_the_sprite(self, index: int) -> None:
        spec = build_sprite(5, index)
        meta = sprite_meta(spec)
        w, h = meta["width"], meta["height"]
        for key in ("face", "outline", "footprint"):
            if key in meta:
                pts = np.asarray(meta[key])
                assert (pts >= 0).all() and (pts[:, 0] < w).all() and (pts[:, 1] < h).all()
        if spec.kind != "tile":
            assert "values" not in meta and "pips" not in meta
            return
        face = np.asarray(meta["face"])
        near, far = (np.asarray(p) for p in meta["halves"])
        assert np.allclose(near[:2], face[:2]) and np.allclose(far[2:], face[2:])
        assert np.allclose(near[2:], far[:2][::-1])
        assert len(meta["pips"]) == sum(spec.values)
        face_mask = _fill(face, (h, w))
        for pip in meta["pips"]:
            x0, y0, x1, y1 = pip["box"]
            half = _fill(meta["halves"][pip["half"]], (h, w))
            assert half[int((y0 + y1) / 2), int((x0 + x1) / 2)]
            assert face_mask[int((y0 + y1) / 2), int((x0 + x1) / 2)]

    def test_job_is_json_with_a_matte_pass(self, tmp_path: Path) -> None:
        for i in (0, 14, 16, 19):  # tile, back, marker, empty
            spec = build_sprite(0, i)
            job = json.loads(json.dumps(sprite_job(spec, tmp_path)))
            assert ("matte_output" in job) == (spec.kind != "empty")
            assert len(job["tiles"]) == (spec.kind in ("tile", "back"))
            assert len(job["markers"]) == (spec.kind == "marker")
            assert job["canvas"] == [spec.camera.width, spec.camera.height]
        assert (tmp_path / f"{sprite_name(0, 0)}_face.png").exists()


def test_split_shadow_separates_the_object_from_its_shadow() -> None:
    rendered = np.zeros((10, 20, 4), np.uint8)
    matte = np.zeros_like(rendered)
    rendered[:, :8] = (200, 180, 160, 255)  # the object
    matte[:, :8, 3] = 255
    rendered[:, 8:14, 3] = 128  # its shadow: black, half strength
    sprite, shadow = split_shadow(rendered, matte)
    assert (sprite[:, :8, 3] == 255).all() and (sprite[:, 8:, 3] == 0).all()
    assert (sprite[:, :7, :3] == (200, 180, 160)).all()
    assert (shadow[:, :8] == 0).all() and 100 < shadow[5, 10] < 140
    assert shadow[5, 19] < 10


class TestCli:
    def test_bad_arguments_exit_2_with_one_line(self, tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
        for args in (["--count", "0"], ["--seed", "-1"], ["--tile-px", "90", "30"]):
            assert main([str(tmp_path), *args]) == 2
            out = capsys.readouterr().out
            assert out.startswith("error: ") and out.count("\n") == 1

    def test_sprites_on_disk_are_skipped_without_rendering(
            self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setenv("MTRAIN_RENDER_PYTHON", str(tmp_path / "no-python"))
        for i in range(3):
            (tmp_path / f"{sprite_name(7, i)}.json").write_text("{}")
        assert render_sprites(tmp_path, 3, 7) == []
        assert main([str(tmp_path), "--count", "4", "--seed", "7"]) == 2  # one to render

    def test_module_runs_the_sprites_command(self, tmp_path: Path) -> None:
        done = subprocess.run([sys.executable, "-m", "datasets.photoreal", "sprites", "--help"],
                              cwd=ROOT, capture_output=True, text=True, check=False)
        assert done.returncode == 0 and "--tile-px" in done.stdout


class TestRenderedSprites:
    """The committed sprites: mattes and shadows where the metadata says."""

    metas = sorted(SPRITES.glob("sprite_*.json"))

    def test_the_committed_library_has_every_kind(self) -> None:
        kinds = [json.loads(p.read_text())["kind"] for p in self.metas]
        assert set(kinds) == set(KINDS) and len(kinds) == 40

    @pytest.mark.parametrize("path", metas, ids=lambda p: p.stem)
    def test_matte_covers_the_face_and_nothing_far_from_it(self, path: Path) -> None:
        meta = json.loads(path.read_text())
        image = cv2.imread(str(SPRITES / meta["image"]), cv2.IMREAD_UNCHANGED)
        assert image is not None
        assert image.shape[:2] == (meta["height"], meta["width"])
        if meta["kind"] == "empty":
            assert image.shape[2] == 3 and image.std() > 1
            return
        alpha = image[..., 3].astype(np.float32) / 255
        poly = np.asarray(meta["face" if meta["kind"] != "marker" else "outline"])
        centre = poly.mean(axis=0)
        shrink = 0.8 if meta["kind"] != "marker" else 0.6  # round markers in square outlines
        inner = _fill(centre + shrink * (poly - centre), alpha.shape)
        assert alpha[inner].mean() > 0.97
        reach = np.linalg.norm(poly - centre, axis=1).max()
        yy, xx = np.mgrid[0:alpha.shape[0], 0:alpha.shape[1]]
        far = np.hypot(xx - centre[0], yy - centre[1]) > 1.6 * reach
        assert alpha[far].max(initial=0) < 0.05
        shadow = cv2.imread(str(SPRITES / meta["shadow"]), cv2.IMREAD_GRAYSCALE)
        assert shadow is not None
        assert shadow[inner].max() == 0 and shadow.max() > 20
        if meta["kind"] == "tile":
            assert len(meta["pips"]) == sum(meta["values"])
