"""The photoreal generator without Blender: scene descriptions, labels, lens, textures,
the render job, and what it says when bpy is missing."""

from __future__ import annotations

import ast
import json
import re
from collections import Counter
from pathlib import Path

import cv2
import numpy as np
import pytest

from datasets.photoreal.faces import paint_face, pip_circles
from datasets.photoreal.generate import (
    MISSING,
    bare_table,
    camera_json,
    main,
    render_job,
    render_python,
)
from datasets.photoreal.labels import KIND, clear_view, scene_labels
from datasets.photoreal.lens import Webcam
from datasets.photoreal.looks import SURFACES, pick_set_style
from datasets.photoreal.scene import FRAME, PhotoScene, build_scene
from engine import TableState
from engine.errors import BadInputError

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def scenes() -> list[PhotoScene]:
    return [build_scene(31, i, mat=i % 2 == 0) for i in range(6)]


def _pairs(table: dict[str, object]) -> Counter[tuple[int, int]]:
    state = TableState.from_json(table)
    tiles = [(state.engine, state.engine)] + [t for train in state.trains for t in train.tiles]
    return Counter(tuple(sorted(t)) for t in tiles)  # type: ignore[misc]


class TestSceneDescription:
    def test_same_seed_same_scene(self) -> None:
        a, b = build_scene(5, 3), build_scene(5, 3)
        assert a.table == b.table and a.players == b.players
        assert all(np.array_equal(s.corners, t.corners) for s, t in zip(a.tiles, b.tiles,
                                                                         strict=True))
        assert scene_labels(a, "x.jpg") == scene_labels(b, "x.jpg")

    def test_other_index_other_scene(self) -> None:
        tables = {json.dumps(build_scene(5, i).table, sort_keys=True) for i in range(5)}
        assert len(tables) > 1

    def test_tables_are_legal_and_are_what_lies_face_up(self, scenes: list[PhotoScene]) -> None:
        for scene in scenes:
            state = TableState.from_json(scene.table)
            for train in state.trains:
                ends = [state.engine] + [far for _, far in train.tiles]
                assert [near for near, _ in train.tiles] == ends[:-1]
            laid = Counter(tuple(sorted(t.values)) for t in scene.face_up)
            assert laid == _pairs(scene.table)

    def test_doubles_lie_in_line_when_asked(self) -> None:
        def nearest_along(inline: float) -> list[bool]:
            """For each double of a train: whether its nearest tile lies off its long end."""
            along = []
            for i in range(8):
                scene = build_scene(31, i, mat=i % 2 == 0, inline_doubles=inline)
                tiles = scene.face_up
                centres = np.array([t.corners.mean(axis=0) for t in tiles])
                for k, tile in enumerate(tiles[1:], start=1):  # the engine first
                    if tile.values[0] != tile.values[1]:
                        continue
                    c = tile.corners
                    axis = max((c[1] - c[0], c[2] - c[1]), key=lambda e: float(np.hypot(*e)))
                    gaps = np.linalg.norm(centres - centres[k], axis=1)
                    gaps[k] = np.inf
                    way = centres[int(np.argmin(gaps))] - centres[k]
                    along.append(abs(float(way @ axis)) > 0.8 * float(
                        np.linalg.norm(way) * np.linalg.norm(axis)))
            return along

        across, in_line = nearest_along(0.0), nearest_along(1.0)
        assert across and not any(across)
        assert in_line and all(in_line)
        assert build_scene(31, 1, inline_doubles=1.0).table == build_scene(31, 1).table

    def test_the_mat_lies_at_any_rotation(self) -> None:
        turns = []
        for i in range(12):
            scene = build_scene(77, i, mat=True)
            assert scene.mat is not None
            turns.append(np.degrees(np.arctan2(scene.mat[1, 0], scene.mat[0, 0])))
        assert max(np.abs(turns)) > 60  # beyond the +-45 degrees the layout turns it

    def test_no_mat_keeps_seat_zero_at_the_bottom(self) -> None:
        scene = build_scene(8, 0, mat=False)
        assert scene.mat is None
        cam = scene.webcam.camera
        below = cam.project(np.array([[0.0, -300.0]]))[0]  # towards seat 0 (world -y)
        above = cam.project(np.array([[0.0, 300.0]]))[0]
        assert below[1] > above[1]

    def test_unknown_surface_is_refused(self) -> None:
        with pytest.raises(ValueError, match="unknown surface"):
            build_scene(1, 0, surface="marble")
        assert build_scene(1, 0, surface="felt").surface.kind == "felt"


class TestLabels:
    def test_format_matches_the_painter(self, scenes: list[PhotoScene]) -> None:
        from datasets.labels import REQUIRED_KEYS

        labels = scene_labels(scenes[0], "a.jpg")
        assert all(k in labels for k in REQUIRED_KEYS)
        assert labels["kind"] == KIND and (labels["width"], labels["height"]) == FRAME
        assert labels["players"] == scenes[0].players

    def test_every_tile_and_pip_lies_in_the_frame_and_in_its_tile(
            self, scenes: list[PhotoScene]) -> None:
        for scene in scenes:
            labels = scene_labels(clear_view(scene), "a.jpg")
            w, h = FRAME
            for tile in labels["tiles"]:
                c = np.array(tile["corners"])
                assert (c >= 0).all() and (c[:, 0] < w).all() and (c[:, 1] < h).all()
            for pip in labels["pips"]:
                x0, y0, x1, y1 = pip["box"]
                poly = np.array(labels["tiles"][pip["tile"]]["corners"], np.float32)
                assert cv2.pointPolygonTest(poly, ((x0 + x1) / 2, (y0 + y1) / 2), False) > 0

    def test_pips_count_the_values_of_tiles_in_full_view(self, scenes: list[PhotoScene]) -> None:
        for scene in scenes:
            labels = scene_labels(clear_view(scene), "a.jpg")
            count = Counter((p["tile"], p["half"]) for p in labels["pips"])
            for i, tile in enumerate(labels["tiles"]):
                if tile["visible"] == 1.0:
                    assert [count[(i, 0)], count[(i, 1)]] == tile["values"]

    def test_the_near_half_is_at_the_first_two_corners(self) -> None:
        scene = build_scene(12, 1, mat=False)
        labels = scene_labels(clear_view(scene), "a.jpg")
        for i, tile in enumerate(labels["tiles"]):
            c = np.array(tile["corners"])
            near, far = c[:2].mean(0), c[2:].mean(0)
            for pip in (p for p in labels["pips"] if p["tile"] == i):
                x0, y0, x1, y1 = pip["box"]
                centre = np.array([(x0 + x1) / 2, (y0 + y1) / 2])
                closer = np.linalg.norm(centre - near) < np.linalg.norm(centre - far)
                assert closer == (pip["half"] == 0)

    def test_clear_view_hides_no_tile(self) -> None:
        hidden = 0
        for i in range(20):
            scene = build_scene(40, i)
            before = scene_labels(scene, "a.jpg")
            after = scene_labels(clear_view(scene), "a.jpg")
            hidden += any(t["visible"] < 1 for t in before["tiles"]) or len(
                before["tiles"]) < len(scene.face_up)
            assert all(t["visible"] == 1.0 for t in after["tiles"])
            assert len(after["tiles"]) == len(scene.face_up)
        assert hidden > 0  # arms and mugs do cover tiles when left in


class TestLens:
    def test_distort_undistort_round_trip(self) -> None:
        cam = build_scene(3, 0).webcam
        pts = np.array([[10.0, 20.0], [640.0, 360.0], [1270.0, 700.0]])
        assert np.allclose(cam.undistort(cam.distort(pts)), pts, atol=1e-4)
        assert np.allclose(cam.distort(pts[1:2]), pts[1:2])  # the centre does not move

    def test_barrel_pulls_the_corners_in(self) -> None:
        base = build_scene(3, 0).webcam
        cam = Webcam(base.camera, 0.08)
        corner = cam.distort(np.array([[0.0, 0.0]]))[0]
        assert corner[0] > 0 and corner[1] > 0
        assert cam.canvas[0] > FRAME[0] and cam.canvas[1] > FRAME[1]

    def test_finish_makes_a_frame_and_refuses_a_wrong_canvas(self) -> None:
        scene = build_scene(3, 0)
        cw, ch = scene.webcam.canvas
        canvas = np.full((ch, cw, 3), 120, np.uint8)
        frame = scene.webcam.finish(canvas, scene.finish, np.random.default_rng(0))
        assert frame.shape == (FRAME[1], FRAME[0], 3) and frame.dtype == np.uint8
        with pytest.raises(ValueError, match="canvas"):
            scene.webcam.finish(canvas[:-2], scene.finish, np.random.default_rng(0))


class TestFaces:
    @pytest.mark.parametrize("values", [(12, 5), (10, 11), (0, 9)])
    def test_sunken_pips_are_the_values(self, values: tuple[int, int]) -> None:
        style = pick_set_style(np.random.default_rng(2), "all-black")
        _, height = paint_face(values, style, np.random.default_rng(0))
        half = height.shape[1] // 2
        for side, n in zip((height[:, :half], height[:, half:]), values, strict=True):
            n_found, _ = cv2.connectedComponents((side < 150).astype(np.uint8))
            assert n_found - 1 == n

    def test_sets_print_ten_to_twelve_differently(self) -> None:
        layouts = set()
        for seed in range(30):
            style = pick_set_style(np.random.default_rng(seed))
            layouts.add(tuple(round(u, 3) for _, u, _, _ in pip_circles((10, 11), style)))
        assert len(layouts) > 2


class TestRenderJob:
    def test_job_is_json_and_textures_are_written(self, tmp_path: Path) -> None:
        scene = build_scene(9, 0, mat=True, surface="checked")
        job = render_job(scene, tmp_path, tmp_path / "out.png")
        json.dumps(job)
        faces = [t for t in job["tiles"] if not t["face_down"]]
        assert len(faces) == len(scene.face_up)
        assert all(Path(t["face"]).exists() and Path(t["height"]).exists() for t in faces)
        assert job["mat"] is not None and Path(job["mat"]["image"]).exists()
        assert job["canvas"] == list(scene.webcam.canvas)

    def test_the_bare_table_is_the_scene_before_its_first_tile(self, tmp_path: Path) -> None:
        scene = build_scene(9, 2, mat=True, surface="striped")
        bare = bare_table(scene)
        assert not bare.tiles and not bare.markers and not bare.arms
        assert bare.props == scene.props and bare.surface == scene.surface
        assert bare.lighting == scene.lighting and bare.webcam is scene.webcam
        table = render_job(scene, tmp_path, tmp_path / "table.png")
        empty = render_job(bare, tmp_path, tmp_path / "bare.png", look_at=table["look_at"])
        assert empty["tiles"] == [] and empty["markers"] == [] and empty["arms"] == []
        # the same webcam, lamp and mat: only the pieces differ
        for key in ("camera", "canvas", "lighting", "look_at", "surface", "mat", "props"):
            assert empty[key] == table[key], key
        json.dumps(empty)

    def test_blender_camera_looks_where_the_webcam_does(self) -> None:
        scene = build_scene(9, 1)
        cam = camera_json(scene)
        world = np.array(cam["matrix_world"])
        forward = -world[:3, 2]
        assert np.allclose(forward, scene.webcam.camera.r[2])
        assert np.allclose(world[:3, 3] * 1000, scene.webcam.camera.c)
        assert cam["lens"] / 36 * scene.webcam.canvas[0] == pytest.approx(
            scene.webcam.camera.focal)

    def test_blender_side_imports_only_the_stdlib_and_blender(self) -> None:
        source = (ROOT / "datasets" / "photoreal" / "blender_scene.py").read_text()
        names = set()
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.Import):
                names |= {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module:
                names.add(node.module.split(".")[0])
        assert names <= {"__future__", "json", "math", "sys", "typing", "bpy", "bmesh",
                         "mathutils"}


class TestWithoutBlender:
    def test_missing_bpy_says_how_to_install_it(self, monkeypatch: pytest.MonkeyPatch,
                                                 tmp_path: Path) -> None:
        monkeypatch.setenv("MTRAIN_RENDER_PYTHON", str(tmp_path / "no-python"))
        with pytest.raises(BadInputError, match="make render-env"):
            render_python()

    def test_a_python_without_bpy_is_refused(self, monkeypatch: pytest.MonkeyPatch) -> None:
        import sys

        monkeypatch.setenv("MTRAIN_RENDER_PYTHON", sys.executable)  # the test venv: no bpy
        with pytest.raises(BadInputError, match="bpy"):
            render_python()

    def test_cli_exits_2_with_one_line(self, monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
        monkeypatch.setenv("MTRAIN_RENDER_PYTHON", str(tmp_path / "no-python"))
        assert main(["--out", str(tmp_path / "out"), "--count", "2"]) == 2
        out = capsys.readouterr().out.strip().splitlines()
        assert len(out) == 1 and MISSING in out[0]
        assert not (tmp_path / "out").exists()

    def test_an_inline_share_outside_0_to_1_is_refused(
            self, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
        assert main(["--out", str(tmp_path / "out"), "--count", "1",
                     "--inline-doubles", "1.5"]) == 2
        assert "--inline-doubles" in capsys.readouterr().out

    def test_surfaces_are_choices(self, tmp_path: Path) -> None:
        with pytest.raises(SystemExit):
            main(["--out", str(tmp_path), "--count", "1", "--surface", "marble"])
        assert "wood" in SURFACES

    def test_make_and_pyproject_pin_the_same_bpy(self) -> None:
        make = re.search(r'"bpy==([\d.]+)"', (ROOT / "Makefile").read_text())
        extra = re.search(r'"bpy==([\d.]+);', (ROOT / "pyproject.toml").read_text())
        assert make and extra and make.group(1) == extra.group(1)


class TestBenchmark:
    def test_no_rendered_scenes_skips_and_writes_nothing(
            self, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:

        from benchmarks import photoreal

        before = photoreal.RESULTS.stat().st_mtime if photoreal.RESULTS.exists() else None
        assert photoreal.main(["--folder", str(tmp_path / "none")]) == 0
        assert "skipped: no rendered scenes" in capsys.readouterr().out
        after = photoreal.RESULTS.stat().st_mtime if photoreal.RESULTS.exists() else None
        assert after == before
