"""The generator on disk: determinism, the CLI, the YOLO exports, label files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from datasets.labels import iter_scenes, load_labels
from datasets.synth import synthesize
from datasets.yolo_export import export_obb, export_pips
from engine.errors import BadInputError
from mtrain.cli import main


def _files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if not p.name.startswith(".")}


@pytest.fixture(scope="module")
def scenes(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("hands")
    synthesize(out, "hands", 3, seed=11, progress=False)
    return out


def test_same_seed_same_files(scenes: Path, tmp_path: Path) -> None:
    synthesize(tmp_path, "hands", 3, seed=11, progress=False, jobs=2)
    assert _files(tmp_path) == _files(scenes)


def test_other_seed_other_files(scenes: Path, tmp_path: Path) -> None:
    synthesize(tmp_path, "hands", 1, seed=12, progress=False)
    assert _files(tmp_path)["hands_12_000000.jpg"] != _files(scenes)["hands_11_000000.jpg"]


@pytest.mark.parametrize(
    ("kind", "count"),
    [("crops", 10), ("crops-table", 30), ("crops-high", 12), ("crops-covered", 12)],
)
def test_crops_are_deterministic_and_counted(tmp_path: Path, kind: str, count: int) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    assert synthesize(a, kind, count, seed=3, progress=False) == count
    synthesize(b, kind, count, seed=3, progress=False)
    assert _files(a) == _files(b)
    assert len(list(a.glob(f"{kind}_3_*.png"))) == count


def test_label_files_load(scenes: Path) -> None:
    found = list(iter_scenes(scenes))
    assert len(found) == 3
    for image, labels in found:
        assert image.exists()
        assert labels["kind"] == "hands" and labels["table"] is None


def test_load_labels_rejects_bad_files(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(BadInputError):
        load_labels(bad)
    bad.write_text(json.dumps({"image": "x.jpg"}))
    with pytest.raises(BadInputError, match="lacks"):
        load_labels(bad)
    with pytest.raises(BadInputError):
        load_labels(tmp_path / "missing.json")
    with pytest.raises(BadInputError):
        list(iter_scenes(tmp_path / "nowhere"))


def test_obb_export_format(scenes: Path, tmp_path: Path) -> None:
    yaml = export_obb({"train": [scenes], "val": [scenes]}, tmp_path / "y")
    text = yaml.read_text()
    assert "0: tile" in text and "1: marker" in text and "val: images/val" in text
    labels = sorted((tmp_path / "y" / "labels" / "train").glob("*.txt"))
    assert len(labels) == 3
    for path in labels:
        scene = load_labels(scenes / f"{path.stem}.json")
        lines = path.read_text().splitlines()
        assert len(lines) == len(scene["tiles"]) + len(scene["markers"])
        for line in lines:
            parts = line.split()
            assert len(parts) == 9 and parts[0] in ("0", "1")
            assert all(0 <= float(v) <= 1 for v in parts[1:])
    assert (tmp_path / "y" / "images" / "train" / f"{labels[0].stem}.jpg").exists()


def test_detect_export_format(tmp_path: Path) -> None:
    crops = tmp_path / "crops"
    synthesize(crops, "crops", 6, seed=5, progress=False)
    export_pips({"train": [crops]}, tmp_path / "y")
    for path in (tmp_path / "y" / "labels" / "train").glob("*.txt"):
        value = load_labels(crops / f"{path.stem}.json")["value"]
        lines = path.read_text().splitlines()
        assert len(lines) <= value
        for line in lines:
            parts = line.split()
            assert len(parts) == 5 and parts[0] == "0"
            assert all(0 <= float(v) <= 1 for v in parts[1:])


def test_cli_synth_writes_images(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "s"
    assert (
        main(
            [
                "synth",
                "--out",
                str(out),
                "--count",
                "1",
                "--seed",
                "1",
                "--kind",
                "table",
                "--yolo",
                str(tmp_path / "y"),
            ]
        )
        == 0
    )
    assert (out / "table_1_000000.jpg").exists() and (out / "table_1_000000.json").exists()
    assert (tmp_path / "y" / "data.yaml").exists()
    assert "wrote 1 table images" in capsys.readouterr().out


@pytest.mark.parametrize(
    "args",
    [
        ["--count", "0"],
        ["--count", "2", "--seed", "-1"],
        ["--count", "2", "--jobs", "0"],
        ["--count", "2", "--max-quality", "5"],
    ],
)
def test_cli_synth_bad_numbers_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str]
) -> None:
    assert main(["synth", "--out", str(tmp_path / "s"), *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith("mtrain: ") and err.count("\n") == 1


def test_cli_synth_out_is_a_file_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "file"
    f.write_text("x")
    assert main(["synth", "--out", str(f), "--count", "1"]) == 2
    assert "not a folder" in capsys.readouterr().err


def test_cli_synth_unknown_kind_exits_2(tmp_path: Path) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["synth", "--out", str(tmp_path), "--count", "1", "--kind", "faces"])
    assert exc.value.code == 2
