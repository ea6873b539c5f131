"""The ``watch``, ``camera-plan`` and ``mat`` sub-commands."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mtrain.cli import main


def test_camera_plan_prints_height_and_pixels_per_pip(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["camera-plan", "--table-cm", "100", "--fov", "78",
                 "--resolution", "1920x1080"]) == 0
    out = capsys.readouterr().out
    assert "mount height" in out and "pixels per pip" in out


def test_camera_plan_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["camera-plan", "--table-cm", "90x160", "--json"]) == 0
    plan = json.loads(capsys.readouterr().out)
    assert plan["table_cm"] == [90.0, 160.0]
    assert plan["height_cm"] > 0 and plan["px_per_pip"] > 0


def test_camera_plan_bad_input_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["camera-plan", "--resolution", "big"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("mtrain: --resolution:") and err.count("\n") == 1
    assert main(["camera-plan", "--fov", "0"]) == 2


def test_mat_writes_svg_and_pdf(tmp_path: Path) -> None:
    assert main(["mat", "--out", str(tmp_path / "m.svg"), "--players", "5"]) == 0
    assert main(["mat", "--out", str(tmp_path / "m.pdf")]) == 0
    assert (tmp_path / "m.svg").read_text().startswith("<?xml")
    assert (tmp_path / "m.pdf").read_bytes()[:4] == b"%PDF"


def test_mat_bad_folder_and_suffix(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["mat", "--out", str(tmp_path / "nope" / "m.svg")]) == 2
    assert main(["mat", "--out", str(tmp_path / "m.png")]) == 2
    assert main(["mat", "--out", str(tmp_path / "m.svg"), "--players", "1"]) == 2


def test_watch_missing_source_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["watch", "/no/such/video.mp4", "--players", "4"]) == 2
    assert "no such file" in capsys.readouterr().err


def test_watch_bad_players_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["watch", "0", "--players", "12"]) == 2


def test_watch_engine_outside_the_set_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["watch", "0", "--players", "3", "--engine", "13"]) == 2
    assert "--engine" in capsys.readouterr().err


def test_watch_passes_the_engine_to_the_tracker(monkeypatch: pytest.MonkeyPatch) -> None:
    import vision.reading.reader
    import vision.tracking.tracker

    seen = {}

    class Spy(vision.tracking.tracker.Tracker):
        def __init__(self, *args: object, **kwargs: object) -> None:
            seen.update(kwargs)
            super().__init__(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(vision.reading.reader, "TileReader", lambda models_dir, **_: object())
    monkeypatch.setattr(vision.tracking.tracker, "Tracker", Spy)
    assert main(["watch", "97", "--players", "3", "--engine", "9", "--retries", "0"]) == 0
    assert seen["engine"] == 9


def test_watch_without_models_exits_2(capsys: pytest.CaptureFixture[str],
                                      tmp_path: Path) -> None:
    video = tmp_path / "game.mp4"
    video.write_bytes(b"")
    assert main(["watch", str(video), "--players", "3", "--models", str(tmp_path)]) == 2
    assert "models" in capsys.readouterr().err


def test_watch_unopenable_camera_gives_up_with_a_message(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    import vision.reading.reader

    monkeypatch.setattr(vision.reading.reader, "TileReader", lambda models_dir, **_: object())
    # Camera index 97 does not exist: no retry, then a clear message and exit 0.
    assert main(["watch", "97", "--players", "3", "--retries", "0", "--json"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert lines and all(line["event"] == "status" for line in lines)
    assert "giving up" in lines[-1]["message"]
