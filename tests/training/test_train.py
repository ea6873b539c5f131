"""training (``mtrain train``): argument checks, offline setup, and a tiny end-to-end run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from mtrain.cli import main
from vision.models.domino_check import CLASSES, CROP_SIZE

ROOT = Path(__file__).resolve().parents[2]
# the vision tests' helpers (``reader_fixtures``) serve these tests too
sys.path.insert(0, str(ROOT / "tests" / "vision"))


def test_importing_train_does_not_import_torch_or_ultralytics() -> None:
    code = (
        "import sys, training, training.cli, datasets.cli; "
        "print(any(m in sys.modules for m in ('torch', 'ultralytics')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "False"


@pytest.mark.parametrize(
    "args",
    [
        ["--epochs", "0"],
        ["--count", "-3"],
        ["--imgsz", "100"],
        ["--hours", "0"],
        ["--threads", "0"],
        ["--high-crops", "-1"],
        ["--device", "cuda:zero"],
        ["--init", "runs/no-such-weights.pt", "--which", "tiles"],
        ["--init", "models/tiles.pt"],  # continues one model only: --which is needed
        ["--composite-crops", "-1"],
        ["--which", "tiles", "--composite-crops", "10", "--sprites", "tests/datasets/sprites"],
        ["--which", "halves", "--composite-crops", "10"],  # no sprite folder
        ["--which", "verifier", "--composite-crops", "10"],  # no sprite folder
    ],
)
def test_bad_arguments_exit_2(args: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["train", *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith("mtrain: ") and err.count("\n") == 1


def test_evaluate_needs_models_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["train", "--evaluate", "--out", str(tmp_path)]) == 2
    assert "models.json" in capsys.readouterr().err


def test_setup_offline_puts_a_font_in_place(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from training import setup_offline

    for key in ("YOLO_CONFIG_DIR", "MPLCONFIGDIR", "YOLO_OFFLINE"):
        monkeypatch.delenv(key, raising=False)
    setup_offline(tmp_path)
    assert os.environ["YOLO_OFFLINE"] == "1"
    assert Path(os.environ["YOLO_CONFIG_DIR"]) == (tmp_path / ".yolo").resolve()
    assert (tmp_path / ".yolo" / "Ultralytics" / "Arial.ttf").stat().st_size > 10_000


@pytest.mark.filterwarnings("ignore")
def test_tiny_training_run_exports_onnx_and_models_json(tmp_path: Path) -> None:
    """All five models, a handful of images, one epoch, 64 px: the whole pipeline runs
    offline."""
    pytest.importorskip("ultralytics")
    env = {
        **os.environ,
        "YOLO_OFFLINE": "1",
        "YOLO_CONFIG_DIR": str(ROOT / ".yolo"),
        "MPLCONFIGDIR": str(ROOT / ".yolo" / "mpl"),
        "ORT_DISABLE_TELEMETRY": "1",
    }
    cmd = [
        sys.executable,
        "-m",
        "mtrain",
        "train",
        "--which",
        "all",
        "--epochs",
        "1",
        "--count",
        "8",
        "--imgsz",
        "64",
        "--jobs",
        "1",
        "--high-crops",
        "1",
        "--out",
        str(tmp_path / "models"),
        "--data",
        str(tmp_path / "data"),
        "--runs",
        str(tmp_path / "runs"),
    ]
    done = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    spec = json.loads((tmp_path / "models" / "models.json").read_text())
    assert spec["tiles"] == {
        "file": "tiles.int8.onnx",
        "imgsz": 64,
        "names": ["tile", "marker"],
        "task": "obb",
    }
    assert spec["pips"] == {
        "file": "pips.int8.onnx", "imgsz": 96, "names": ["pip"], "task": "detect"}
    # the crops-high set was made and trained on
    assert len(list((tmp_path / "data" / "crops" / "high-train").glob("*.png"))) == 8
    # the half classifier: one class per count found in the crops, named by the count
    halves = spec["halves"]
    assert halves["file"] == "halves.int8.onnx"  # quantized like the pip model
    assert halves["weight_bits"] == 7  # but with 7-bit weights: 8-bit on every CPU
    assert "weight_bits" not in spec["tiles"] and "weight_bits" not in spec["pips"]
    assert (halves["imgsz"], halves["task"]) == (96, "classify")
    classes = sorted((tmp_path / "data" / "halves-cls" / "train").iterdir())
    assert halves["names"] == [c.name for c in classes] and len(classes) >= 2
    assert all(0 <= int(name) <= 18 and len(name) == 2 for name in halves["names"])

    import onnxruntime as ort

    for name in ("pips.onnx", "pips.int8.onnx"):  # the float export and its 8-bit version
        pips = ort.InferenceSession(str(tmp_path / "models" / name))
        out = pips.run(None, {pips.get_inputs()[0].name: np.zeros((3, 3, 96, 96), np.float32)})[0]
        assert out.shape[:2] == (3, 5)  # dynamic batch: 3 crops at once; 4 box values + 1 class
    # the quick classifier: the same classes at 64 px, trained on from the halves just made
    quick = spec["halves_quick"]
    assert (quick["file"], quick["imgsz"]) == ("halves_quick.int8.onnx", 64)
    assert quick["names"] == halves["names"] and quick["task"] == "classify"
    assert quick["weight_bits"] == 7
    trained = json.loads((tmp_path / "models" / "training.json").read_text())
    assert trained["halves_quick"]["init"] == str(tmp_path / "models" / "halves.pt")
    for name, side in (("halves.onnx", 96), ("halves.int8.onnx", 96),
                       ("halves_quick.onnx", 64), ("halves_quick.int8.onnx", 64)):
        classify = ort.InferenceSession(str(tmp_path / "models" / name))
        blob = np.zeros((3, 3, side, side), np.float32)
        out = classify.run(None, {classify.get_inputs()[0].name: blob})[0]
        assert out.shape == (3, len(halves["names"]))  # a probability per count, per crop
        assert np.allclose(out.sum(axis=1), 1.0, atol=1e-4)
    # the cover check: covered or open, at 64 px, kept in float
    assert spec["covered"] == {
        "file": "covered.onnx", "imgsz": 64, "names": ["covered", "open"], "task": "classify"}
    check = ort.InferenceSession(str(tmp_path / "models" / "covered.onnx"))
    out = check.run(None, {check.get_inputs()[0].name: np.zeros((3, 3, 64, 64), np.float32)})[0]
    assert out.shape == (3, 2) and np.allclose(out.sum(axis=1), 1.0, atol=1e-4)
    # the covered-half counter: the same crops by count, from the quick classifier, in float
    counter = spec["halves_covered"]
    assert (counter["file"], counter["imgsz"], counter["task"]) == (
        "halves_covered.onnx", 64, "classify")
    counted = sorted((tmp_path / "data" / "halves-covered-cls" / "train").iterdir())
    assert counter["names"] == [c.name for c in counted] and counted
    assert trained["halves_covered"]["init"] == str(tmp_path / "models" / "halves_quick.pt")
    check = ort.InferenceSession(str(tmp_path / "models" / "halves_covered.onnx"))
    out = check.run(None, {check.get_inputs()[0].name: np.zeros((2, 3, 64, 64), np.float32)})[0]
    assert out.shape == (2, len(counter["names"]))
    from reader_fixtures import softmax_axes

    for name in ("tiles.onnx", "tiles.int8.onnx", "pips.onnx", "pips.int8.onnx"):
        # the exported detectors' box decoding takes its softmax on the last axis
        assert 1 not in softmax_axes(tmp_path / "models" / name)
    for name in ("tiles.onnx", "tiles.int8.onnx"):
        tiles = ort.InferenceSession(str(tmp_path / "models" / name))
        assert tiles.get_inputs()[0].shape[1] == 3
        # dynamic size: a 16:9 frame goes in padded only to the stride
        blob = np.zeros((1, 3, 64, 96), np.float32)
        out = tiles.run(None, {tiles.get_inputs()[0].name: blob})[0]
        assert out.shape[:2] == (1, 4 + 2 + 1)  # box, two classes, angle


@pytest.mark.filterwarnings("ignore")
def test_a_half_classifier_trains_on_from_shipped_weights_with_composited_crops(
    tmp_path: Path,
) -> None:
    """A few painter crops and crops cut from composited frames, one epoch from the
    shipped quick classifier: the mix is made, trained on, exported and recorded."""
    pytest.importorskip("ultralytics")
    env = {**os.environ, "YOLO_OFFLINE": "1", "YOLO_CONFIG_DIR": str(ROOT / ".yolo"),
           "MPLCONFIGDIR": str(ROOT / ".yolo" / "mpl"), "ORT_DISABLE_TELEMETRY": "1"}
    sprites = ROOT / "tests" / "datasets" / "sprites"
    cmd = [sys.executable, "-m", "mtrain", "train", "--which", "halves_quick", "--epochs", "1",
           "--count", "8", "--jobs", "1", "--table-crops", "1", "--high-crops", "0",
           "--composite-crops", "24", "--sprites", str(sprites),
           "--init", str(ROOT / "models" / "halves_quick.pt"),
           "--out", str(tmp_path / "models"), "--data", str(tmp_path / "data"),
           "--runs", str(tmp_path / "runs")]
    done = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    crops = tmp_path / "data" / "crops"
    assert len(list((crops / "composite-train").glob("*.png"))) == 24
    assert len(list((crops / "composite-val").glob("*.png"))) == 16
    linked = list((tmp_path / "data" / "halves-cls" / "train").glob("*/composite-train_*"))
    assert len(linked) >= 20  # a count the validation crops lack lends one of its crops
    trained = json.loads((tmp_path / "models" / "training.json").read_text())["halves_quick"]
    assert trained["composite_crops"] == 24 and trained["sprites"] == [str(sprites)]
    assert "--composite-crops 24" in trained["command"]
    assert trained["init"] == str(ROOT / "models" / "halves_quick.pt")
    spec = json.loads((tmp_path / "models" / "models.json").read_text())["halves_quick"]
    import onnxruntime as ort

    for name in ("halves_quick.onnx", spec["file"]):
        classify = ort.InferenceSession(str(tmp_path / "models" / name))
        out = classify.run(None, {classify.get_inputs()[0].name:
                                  np.zeros((2, 3, 64, 64), np.float32)})[0]
        assert out.shape == (2, len(spec["names"]))


def test_the_domino_check_trains_on_from_shipped_weights_with_composited_frames(
    tmp_path: Path,
) -> None:
    """Two painted scenes and two composited frames, one epoch from the shipped check:
    both sources are cut, trained on, exported and recorded with the command."""
    sprites = ROOT / "tests" / "datasets" / "sprites"
    cmd = [sys.executable, "-m", "mtrain", "train", "--which", "verifier", "--epochs", "1",
           "--count", "2", "--composite-crops", "2", "--sprites", str(sprites),
           "--init", str(ROOT / "models" / "verifier.pt"), "--threads", "1", "--jobs", "1",
           "--out", str(tmp_path / "models"), "--data", str(tmp_path / "data"),
           "--runs", str(tmp_path / "runs")]
    env = {**os.environ, "ORT_DISABLE_TELEMETRY": "1"}
    done = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    cached = sorted(p.name.split("-")[0] for p in (tmp_path / "data" / "verifier").glob("*.npz"))
    assert cached == ["composite", "composite", "train", "val"]
    trained = json.loads((tmp_path / "models" / "training.json").read_text())["verifier"]
    assert f"--composite-crops 2 --sprites {sprites}" in trained["command"]
    assert "composited frames" in trained["data"] and "val_metrics_composite" in trained
    assert trained["init"] == str(ROOT / "models" / "verifier.pt")
    import onnxruntime as ort

    check = ort.InferenceSession(str(tmp_path / "models" / "verifier.onnx"))
    out = check.run(None, {check.get_inputs()[0].name:
                           np.zeros((2, 3, CROP_SIZE[1], CROP_SIZE[0]), np.float32)})[0]
    assert out.shape == (2, len(CLASSES)) and np.allclose(out.sum(1), 1.0, atol=1e-4)


def test_shipped_models_match_models_json() -> None:
    """``models/models.json`` names files that exist, with the input size the ONNX expects."""
    spec_path = ROOT / "models" / "models.json"
    if not spec_path.exists():
        pytest.skip("no trained models in models/")
    import onnxruntime as ort

    spec = json.loads(spec_path.read_text())
    assert spec["tiles"]["names"] == ["tile", "marker"] and spec["tiles"]["task"] == "obb"
    assert spec["pips"]["names"] == ["pip"] and spec["pips"]["task"] == "detect"
    for key in ("halves", "halves_quick"):
        counts = [int(name) for name in spec[key]["names"]]
        assert spec[key]["task"] == "classify" and counts == list(range(19))
        assert spec[key]["weight_bits"] == 7  # 8-bit on every CPU (vision.models.precision)
    assert (spec["halves"]["imgsz"], spec["halves_quick"]["imgsz"]) == (96, 64)
    assert spec["verifier"]["names"] == list(CLASSES) and spec["verifier"]["imgsz"] == CROP_SIZE[1]
    for key, entry in spec.items():
        session = ort.InferenceSession(str(ROOT / "models" / entry["file"]))
        shape = session.get_inputs()[0].shape
        assert shape[1] == 3
        if isinstance(shape[2], int):  # the domino check's box stands upright: 80 x 48
            wide = CROP_SIZE[0] if key == "verifier" else entry["imgsz"]
            assert shape[2:] == [entry["imgsz"], wide]


def test_the_8_bit_pip_model_counts_like_the_float_one(tmp_path: Path) -> None:
    """Quantizing the shipped float pip model keeps its counts on the eval set's tiles."""
    pytest.importorskip("onnx")
    if not (ROOT / "models" / "pips.onnx").exists():
        pytest.skip("no trained pip model in models/")

    from datasets.labels import iter_scenes
    from training.quantize import head_nodes_to_keep_float, quantize_pips
    from vision.images import load_image
    from vision.models.crops import half_crops
    from vision.models.onnx_models import BoxDetector, ModelSpec
    from vision.reading.reader import PIP_THRESHOLD

    crops: list[np.ndarray] = []
    for image, labels in list(iter_scenes(ROOT / "datasets" / "eval"))[:6]:
        frame = load_image(image)
        for tile in labels["tiles"][:12]:
            crops += half_crops(frame, np.array(tile["corners"], np.float32))
    assert len(crops) >= 60
    quantize_pips(ROOT / "models" / "pips.onnx", tmp_path / "q.onnx", crops[::3])

    import onnx

    kept = head_nodes_to_keep_float(onnx.load(str(ROOT / "models" / "pips.onnx")))
    assert any("/dfl/" in name for name in kept)  # the head's decoding stays float
    assert not any(name.endswith("cv2.0.0/conv/Conv") for name in kept)  # its branches do not

    def counts(path: Path) -> list[int]:
        spec = ModelSpec(path, 96, ("pip",), "detect")
        found = BoxDetector(spec, threads=1)(crops)
        return [int((d.confidence >= PIP_THRESHOLD).sum()) for d in found]

    float_counts, int8_counts = counts(ROOT / "models" / "pips.onnx"), counts(tmp_path / "q.onnx")
    agree = np.mean([a == b for a, b in zip(float_counts, int8_counts, strict=True)])
    assert agree >= 0.9
    assert max(float_counts) >= 4  # the crops do show pips to count


@pytest.mark.parametrize("key", ["halves", "halves_quick"])
def test_the_8_bit_half_classifier_counts_like_the_float_one(tmp_path: Path, key: str) -> None:
    """Quantizing a shipped float half classifier keeps its counts on the eval set's tiles."""
    pytest.importorskip("onnx")

    from datasets.labels import iter_scenes
    from training.quantize import quantize_halves
    from vision.images import load_image
    from vision.models.crops import half_crops
    from vision.models.onnx_models import Classifier, load_specs

    spec = load_specs(ROOT / "models")[key]
    crops: list[np.ndarray] = []
    counts: list[int] = []
    for image, labels in list(iter_scenes(ROOT / "datasets" / "eval"))[-6:]:  # tables
        frame = load_image(image)
        for tile in labels["tiles"][:15]:
            crops += half_crops(frame, np.array(tile["corners"], np.float32))
            counts += tile["values"]
    assert len(crops) >= 60
    source = ROOT / "models" / f"{key}.onnx"
    quantize_halves(source, tmp_path / "q.onnx", crops[::3], spec.imgsz)
    float_spec = type(spec)(source, spec.imgsz, spec.names, spec.task)
    int8_spec = type(spec)(tmp_path / "q.onnx", spec.imgsz, spec.names, spec.task)
    values = np.array([int(n) for n in spec.names])
    by_float = values[Classifier(float_spec, threads=1)(crops).argmax(axis=1)]
    by_int8 = values[Classifier(int8_spec, threads=1)(crops).argmax(axis=1)]
    assert np.mean(by_float == by_int8) >= 0.9
    assert np.mean(by_float == np.array(counts)) >= 0.8  # and it counts, at the true corners
    assert len(set(counts)) >= 8


def test_the_8_bit_tile_detector_finds_what_the_float_one_finds(tmp_path: Path) -> None:
    """Quantizing the shipped float detector keeps its tiles on eval scenes."""
    pytest.importorskip("onnx")
    if not (ROOT / "models" / "tiles.onnx").exists():
        pytest.skip("no trained tile model in models/")
    from datasets.labels import iter_scenes
    from datasets.render import render_table, scene_rng
    from training import poly_iou
    from training.quantize import quantize_tiles
    from vision.images import load_image
    from vision.models.onnx_models import ModelSpec, ObbDetector

    calibration = [render_table(scene_rng(4242, i), size=(1280, 720)).image for i in range(4)]
    quantize_tiles(ROOT / "models" / "tiles.onnx", tmp_path / "q.onnx", calibration)
    scenes = list(iter_scenes(ROOT / "datasets" / "eval"))
    frames = [load_image(image) for image, _ in scenes[:2] + scenes[-2:]]  # hands and tables

    def boxes(path: Path) -> list[np.ndarray]:
        detector = ObbDetector(ModelSpec(path, 416, ("tile", "marker"), "obb"), threads=1)
        found = [detector(f, long_side=640) for f in frames]
        return [d.corners[d.class_id == 0] for d in found]

    ref, got = boxes(ROOT / "models" / "tiles.onnx"), boxes(tmp_path / "q.onnx")
    matched = total = 0
    for a, b in zip(ref, got, strict=True):
        total += len(a)
        matched += sum(max((poly_iou(x, y) for y in b), default=0.0) >= 0.5 for x in a)
    assert total >= 40 and matched / total >= 0.9


def test_reader_rates_match_readings_to_the_labelled_tiles() -> None:
    from datasets.labels import iter_scenes
    from training import reader_rates

    scenes = [s for s in iter_scenes(ROOT / "datasets" / "eval") if s[1]["kind"] == "table"][:2]
    rates = reader_rates(ROOT / "models", scenes, threads=1)
    visible = sum(1 for _, lab in scenes for t in lab["tiles"] if t.get("visible", 1) >= 1)
    assert rates["tiles"] == rates["by_kind"]["table"]["tiles"] == visible > 10
    assert rates["found"] >= rates["read_right"] > 0.5
    # the same tiles labelled with values no set has: found as before, none read right
    wrong = [(path, {**lab, "tiles": [{**t, "values": [99, 99]} for t in lab["tiles"]]})
             for path, lab in scenes]
    again = reader_rates(ROOT / "models", wrong, threads=1)
    assert again["found"] == rates["found"] and again["read_right"] == 0.0


def test_half_crops_become_one_folder_per_count(tmp_path: Path) -> None:
    from training.data import class_folders
    from training.plan import BORROW_EVERY

    def crops(folder: str, values: list[int]) -> Path:
        path = tmp_path / folder
        path.mkdir()
        for k, value in enumerate(values):
            (path / f"c_{k:03d}.png").write_bytes(b"png")
            (path / f"c_{k:03d}.json").write_text(json.dumps({"value": value, "pips": []}))
        return path

    train = crops("train", [0] * 3 + [5] * 2 * BORROW_EVERY + [12])
    val = crops("val", [0, 12, 17])  # no 5, and a 17 never trained on
    out = class_folders({"train": [train], "val": [val]}, tmp_path / "cls")
    listed = {split: {d.name: sorted(f.name for f in d.iterdir())
                      for d in (out / split).iterdir()} for split in ("train", "val")}
    assert sorted(listed["train"]) == sorted(listed["val"]) == ["00", "05", "12"]
    assert len(listed["train"]["00"]) == 3 and len(listed["val"]["00"]) == 1
    # the 5s the validation crops lack: two of them moved there, none left in both
    assert len(listed["val"]["05"]) == 2 and len(listed["train"]["05"]) == 2 * BORROW_EVERY - 2
    assert not set(listed["val"]["05"]) & set(listed["train"]["05"])
    last = f"c_{3 + 2 * BORROW_EVERY:03d}.png"  # the 12
    assert (out / "train" / "12" / f"train_{last}").resolve() == (train / last).resolve()
    # made again from scratch: nothing of an earlier run stays
    (out / "train" / "00" / "stale.png").write_bytes(b"x")
    class_folders({"train": [train], "val": [val]}, tmp_path / "cls")
    assert not (out / "train" / "00" / "stale.png").exists()


def test_covered_crops_become_a_covered_and_an_open_folder(tmp_path: Path) -> None:
    from training.data import covered_dataset
    from training.plan import COVER_NAMES, SEEDS, Plan

    plan = Plan(pip_count=24)

    def crops(folder: str, covered: list[bool], seed: str, count: int) -> Path:
        path = tmp_path / "crops" / folder
        path.mkdir(parents=True)
        for k, hidden in enumerate(covered):
            (path / f"c_{k:03d}.png").write_bytes(b"png")
            (path / f"c_{k:03d}.json").write_text(json.dumps({"value": 3, "covered": hidden}))
        # as rendered already: covered_dataset renders nothing
        (path / ".done").write_text(json.dumps(
            {"kind": "crops-covered", "count": count, "seed": SEEDS[seed]}))
        return path

    crops("covered-train", [True, False, False, True, False], "crops-covered-train", 24)
    crops("covered-val", [False, True], "crops-covered-val", 16)
    out = covered_dataset(tmp_path, plan)
    listed = {split: {d.name: sorted(f.name for f in d.iterdir())
                      for d in (out / split).iterdir()} for split in ("train", "val")}
    assert sorted(listed["train"]) == sorted(listed["val"]) == sorted(COVER_NAMES)
    assert listed["train"]["covered"] == ["c_000.png", "c_003.png"]
    assert listed["train"]["open"] == ["c_001.png", "c_002.png", "c_004.png"]
    assert listed["val"] == {"covered": ["c_001.png"], "open": ["c_000.png"]}
    # the covered-half counter's dataset: the same crops, covered and open, by their count
    from training.data import halves_covered_dataset

    out = halves_covered_dataset(tmp_path, plan)
    assert sorted(f.name for f in (out / "train" / "03").iterdir()) == [
        f"covered-train_c_{k:03d}.png" for k in range(5)]
    assert [d.name for d in (out / "val").iterdir()] == ["03"]


def test_surfaces_add_patterned_scenes_and_empty_frames_to_the_tile_data(tmp_path: Path) -> None:
    from training.data import tile_dataset
    from training.plan import Plan

    plain = tile_dataset(tmp_path / "plain", Plan(tile_count=10, jobs=1))
    patterned = tile_dataset(tmp_path / "patterned", Plan(tile_count=10, jobs=1, surfaces=True))

    def labels(data_yaml: Path) -> dict[str, str]:
        folder = data_yaml.parent / "labels" / "train"
        return {f.name: f.read_text() for f in folder.iterdir()}

    plain_labels, more = labels(plain), labels(patterned)
    assert set(plain_labels) < set(more)
    added = {name: text for name, text in more.items() if name not in plain_labels}
    assert any(name.startswith("surface-empty") and not text.strip()
               for name, text in added.items())  # hard negatives: frames with no tile
    assert any(name.startswith("table-surface") and text.strip() for name, text in added.items())
