"""The DFL rewrite (``training.fast_dfl``): the same outputs, the softmax on the last axis."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

# the vision tests' helpers: an untrained models folder, an ONNX file's softmax axes
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "vision"))
from reader_fixtures import softmax_axes, untrained_dir  # noqa: E402

from training.fast_dfl import rewrite_file, softmax_on_last_axis  # noqa: E402

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")

ROOT = Path(__file__).resolve().parents[2]



@pytest.fixture(scope="module")
def exports(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Untrained exports with the shipped models' shapes (``reader_fixtures``)."""
    return untrained_dir(tmp_path_factory)


def run(path: Path, blob: np.ndarray) -> np.ndarray:
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    return session.run(None, {session.get_inputs()[0].name: blob})[0]


@pytest.mark.parametrize(("name", "shape"), [("tiles.onnx", (1, 3, 384, 384)),
                                             ("pips.onnx", (5, 3, 96, 96))])
def test_a_rewritten_export_gives_the_same_outputs(
    exports: Path, tmp_path: Path, name: str, shape: tuple[int, ...]
) -> None:
    """An ultralytics export of each head (OBB tiles, detect pips): one decoding
    rewritten, its softmax on the last axis, its outputs those of the export."""
    src = exports / name
    assert 1 in softmax_axes(src)  # the export's DFL softmax runs over axis 1
    dst = tmp_path / name
    assert rewrite_file(src, dst) == 1
    assert 1 not in softmax_axes(dst) and -1 in softmax_axes(dst)
    blob = np.random.default_rng(0).random(shape, dtype=np.float32)
    before, after = run(src, blob), run(dst, blob)
    assert before.shape == after.shape
    assert np.allclose(before, after, rtol=0, atol=1e-5)
    assert rewrite_file(dst) == 0  # nothing left to rewrite: the file stays as it is


def _dfl_graph(consumer: str) -> object:
    """Input (1, 64, A) -> Reshape (1, 4, 16, A) -> Transpose -> Softmax(1) -> Conv
    [0..15] -> ``consumer`` (Reshape to (1, 4, A), or an Add that needs (1, 1, 4, A))."""
    from onnx import TensorProto, helper, numpy_helper

    a = 7
    inits = [
        numpy_helper.from_array(np.array([1, 4, 16, a], np.int64), "shape4"),
        numpy_helper.from_array(np.arange(16, dtype=np.float32).reshape(1, 16, 1, 1), "w"),
        numpy_helper.from_array(np.array([1, 4, a], np.int64), "shape3"),
        numpy_helper.from_array(np.ones((1, 1, 4, a), np.float32), "one"),
    ]
    nodes = [
        helper.make_node("Reshape", ["x", "shape4"], ["r"], name="/model.23/Reshape"),
        helper.make_node("Transpose", ["r"], ["t"], perm=[0, 2, 1, 3],
                         name="/model.23/dfl/Transpose"),
        helper.make_node("Softmax", ["t"], ["s"], axis=1, name="/model.23/dfl/Softmax"),
        helper.make_node("Conv", ["s", "w"], ["c"], name="/model.23/dfl/conv/Conv"),
    ]
    if consumer == "Reshape":
        nodes.append(helper.make_node("Reshape", ["c", "shape3"], ["y"], name="/model.23/out"))
        out = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4, a])
    else:
        nodes.append(helper.make_node("Add", ["c", "one"], ["y"], name="/model.23/out"))
        out = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 1, 4, a])
    graph = helper.make_graph(nodes, "dfl", [helper.make_tensor_value_info(
        "x", TensorProto.FLOAT, [1, 64, a])], [out], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])


def test_the_rewrite_computes_the_expected_bin(tmp_path: Path) -> None:
    """The rewritten decoding is the expected bin of each side's distribution."""
    model = _dfl_graph("Reshape")
    assert softmax_on_last_axis(model) == 1
    names = [n.name for n in model.graph.node]  # type: ignore[attr-defined]
    assert all(n.startswith("/model.23/") for n in names)  # kept float by training.quantize
    assert "w" not in {i.name for i in model.graph.initializer}  # type: ignore[attr-defined]
    onnx.save(model, str(tmp_path / "m.onnx"))
    x = np.random.default_rng(1).normal(size=(1, 64, 7)).astype(np.float32)
    logits = x.reshape(1, 4, 16, 7)
    p = np.exp(logits - logits.max(axis=2, keepdims=True))
    p /= p.sum(axis=2, keepdims=True)
    expected = (p * np.arange(16, dtype=np.float32)[None, None, :, None]).sum(axis=2)
    assert np.allclose(run(tmp_path / "m.onnx", x), expected, atol=1e-5)


def test_a_decoding_not_followed_by_a_reshape_is_left_alone() -> None:
    """Only a reshape sees (1, 4, A, 1) and (1, 1, 4, A) as the same numbers."""
    model = _dfl_graph("Add")
    assert softmax_on_last_axis(model) == 0
    assert [n.op_type for n in model.graph.node] == [  # type: ignore[attr-defined]
        "Reshape", "Transpose", "Softmax", "Conv", "Add"]


def test_the_shipped_detectors_are_rewritten() -> None:
    """Every detector in ``models/`` (float and 8-bit) runs its softmax on the last axis."""
    spec_path = ROOT / "models" / "models.json"
    if not spec_path.exists():
        pytest.skip("no trained models in models/")
    spec = json.loads(spec_path.read_text())
    files = [ROOT / "models" / name for key in ("tiles", "pips")
             for name in (f"{key}.onnx", spec[key]["file"])]
    for path in files:
        assert softmax_axes(path) and 1 not in softmax_axes(path), path.name
