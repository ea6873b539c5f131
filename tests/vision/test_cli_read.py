"""``mtrain read`` and ``mtrain score`` from the command line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from PIL import Image
from reader_fixtures import ROOT, needs_trained_models, untrained_dir

from mtrain.cli import main


@pytest.fixture(scope="session")
def untrained_models(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return untrained_dir(tmp_path_factory)



@pytest.fixture
def photo(tmp_path: Path) -> Path:
    rng = np.random.default_rng(0)
    pixels = (rng.random((360, 480, 3)) * 255).astype(np.uint8)
    path = tmp_path / "photo.jpg"
    Image.fromarray(pixels).save(path)
    return path


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


class TestBadInput:
    @pytest.mark.parametrize("content", [None, b"", b"not an image", b"\xff\xd8\xff\xe0trunc"])
    @pytest.mark.parametrize("command", ["read", "score"])
    def test_one_line_and_exit_2(self, capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                 untrained_models: Path, content: bytes | None,
                                 command: str) -> None:
        path = tmp_path / "in.jpg"
        if content is not None:
            path.write_bytes(content)
        code, out, err = run(capsys, command, str(path), "--models", str(untrained_models))
        assert code == 2
        assert out == ""
        assert err.count("\n") == 1 and err.startswith(f"mtrain: {path}: ")
        assert "Traceback" not in err

    def test_missing_models_is_one_line(self, capsys: pytest.CaptureFixture[str],
                                        photo: Path, tmp_path: Path) -> None:
        code, _, err = run(capsys, "read", str(photo), "--models", str(tmp_path / "none"))
        assert code == 2 and "models.json" in err and err.count("\n") == 1

    def test_unwritable_annotation(self, capsys: pytest.CaptureFixture[str], photo: Path,
                                   tmp_path: Path, untrained_models: Path) -> None:
        out = tmp_path / "no-such-folder" / "out.png"
        code, _, err = run(capsys, "read", str(photo), "--models", str(untrained_models),
                           "--annotate", str(out))
        assert code == 2 and str(out) in err

    def test_bad_rule(self, capsys: pytest.CaptureFixture[str], photo: Path,
                      untrained_models: Path) -> None:
        code, _, err = run(capsys, "score", str(photo), "--models", str(untrained_models),
                           "--rule", "nonsense")
        assert code == 2 and err.count("\n") == 1

    def test_no_traceback_through_the_installed_command(self, tmp_path: Path) -> None:
        proc = subprocess.run([sys.executable, "-m", "mtrain.cli", "read",
                               str(tmp_path / "missing.png")], cwd=ROOT,
                              capture_output=True, text=True, timeout=60)
        assert proc.returncode == 2
        assert proc.stderr.strip() == f"mtrain: {tmp_path / 'missing.png'}: no such file"


class TestRead:
    def test_json_shape(self, capsys: pytest.CaptureFixture[str], photo: Path,
                        untrained_models: Path) -> None:
        code, out, _ = run(capsys, "read", str(photo), "--json", "--models",
                           str(untrained_models))
        assert code == 0
        obj = json.loads(out)
        assert set(obj) == {"tiles", "table", "decoded"}
        assert all(set(d) == {"tile", "taken"} for d in obj["decoded"])
        for tile in obj["tiles"]:
            assert set(tile) == {"values", "corners", "confidence", "uncertain"}
            assert len(tile["values"]) == 2 and all(isinstance(v, int) for v in tile["values"])
            assert np.array(tile["corners"]).shape == (4, 2)
            assert 0 <= tile["confidence"] <= 1 and isinstance(tile["uncertain"], bool)

    def test_text_and_annotation(self, capsys: pytest.CaptureFixture[str], photo: Path,
                                 tmp_path: Path, untrained_models: Path) -> None:
        annotated = tmp_path / "out.png"
        code, out, _ = run(capsys, "read", str(photo), "--models", str(untrained_models),
                           "--annotate", str(annotated), "--players", "3")
        assert code == 0
        assert out.startswith(f"{photo}: ") and " tile" in out
        with Image.open(annotated) as im:
            assert im.size == (480, 360)

    def test_players_must_be_a_seat_count(self, capsys: pytest.CaptureFixture[str],
                                          photo: Path) -> None:
        with pytest.raises(SystemExit) as exc:
            main(["read", str(photo), "--players", "1"])
        assert exc.value.code == 2


class TestScore:
    def test_json_one_hand_per_photo(self, capsys: pytest.CaptureFixture[str], photo: Path,
                                     untrained_models: Path) -> None:
        code, out, _ = run(capsys, "score", str(photo), str(photo), "--json",
                           "--models", str(untrained_models), "--rule", "double_blank=25")
        assert code == 0
        obj = json.loads(out)
        assert len(obj["hands"]) == 2
        for hand in obj["hands"]:
            assert isinstance(hand["points"], int)
            assert all(len(t) == 2 for t in hand["tiles"])
        assert obj["hands"][0]["tiles"] == obj["hands"][1]["tiles"]

    def test_text_names_each_seat(self, capsys: pytest.CaptureFixture[str], photo: Path,
                                  untrained_models: Path) -> None:
        code, out, _ = run(capsys, "score", str(photo), "--models", str(untrained_models))
        assert code == 0
        assert out.startswith(f"seat 0 ({photo}): ") and "points" in out


@needs_trained_models
def test_read_an_eval_scene_with_the_bundled_models(capsys: pytest.CaptureFixture[str]) -> None:
    labels = sorted((ROOT / "datasets" / "eval").glob("hands_*.json"))
    assert labels, "no hands scenes in datasets/eval"
    label = json.loads(labels[0].read_text())
    code, out, _ = run(capsys, "read", str(labels[0].parent / label["image"]), "--json")
    assert code == 0
    read = sorted(sorted(t["values"]) for t in json.loads(out)["tiles"])
    assert read == sorted(sorted(t["values"]) for t in label["tiles"])


def test_read_hands_a_mat_in_view_to_the_table_reconstruction(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import vision.table
    from vision.mat.hub_mat import MatView, mat_image
    from vision.models.detections import Detections
    from vision.readings import FrameReading, TileReading, TileReadings
    from vision.stills import table_photo

    seen: list[object] = []
    looks: list[vision.table.Look | None] = []

    def spy(tiles: object, markers: object, players: int, mat: object = None,
            look: vision.table.Look | None = None) -> None:
        seen.append(mat)
        looks.append(look)

    monkeypatch.setattr(vision.table, "reconstruct", spy)
    frame = FrameReading(tiles=TileReadings.empty(), markers=Detections.empty())
    with_mat = cv2_bgr(mat_image(4, px_per_mm=3.0))
    table_photo.reconstruct_table(frame, 4, with_mat)
    table_photo.reconstruct_table(frame, 4, np.full((300, 400, 3), 200, np.uint8))
    assert isinstance(seen[0], MatView) and seen[0].players == 4
    assert seen[1] is None
    assert looks == [None, None]  # no reader: nothing to look again with

    class Reader:
        def __init__(self) -> None:
            self.asked: list[np.ndarray] = []

        def read_at(self, image: np.ndarray, corners: np.ndarray) -> TileReadings:
            self.asked.append(corners)
            return TileReadings.of([TileReading((2, 5 + k), c) for k, c in enumerate(corners)])

    reader = Reader()
    image = np.full((300, 400, 3), 200, np.uint8)
    table_photo.reconstruct_table(frame, 4, image, reader)  # type: ignore[arg-type]
    look = looks[-1]
    assert look is not None
    box = np.array([[10, 10], [30, 10], [30, 50], [10, 50]], np.float32)
    read = look(np.stack([box, box + 40]))  # two outlines read in one look, in order
    assert [None if t is None else t.values for t in read] == [(2, 5), (2, 6)]
    assert len(reader.asked) == 1 and reader.asked[0].shape == (2, 4, 2)


def cv2_bgr(image: np.ndarray) -> np.ndarray:
    return np.dstack([image] * 3) if image.ndim == 2 else image


@needs_trained_models
def test_score_asks_for_a_look_at_a_tile_a_hand_covers(capsys: pytest.CaptureFixture[str]) -> None:
    """An eval hand with an arm over a 3-3: its covered half cannot be read, so it is
    named in the check-by-eye line as partly covered (``vision.reading.cover_check``)."""
    photo = ROOT / "datasets" / "eval" / "hands_9001_000018.jpg"
    label = json.loads(photo.with_suffix(".json").read_text())
    assert any(t["values"] == [3, 3] and t["visible"] < 0.8 for t in label["tiles"])
    code, out, _ = run(capsys, "score", str(photo), "--rules", "standard")
    assert code == 0
    line = next(x for x in out.splitlines() if x.startswith("check by eye: "))
    assert "partly covered" in line
