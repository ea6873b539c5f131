"""The GPU recipe (``training/recipes/composite_gpu.py``), every step on the CPU at a tiny
size, run as a script as on the GPU machine: composited and painter frames, windows,
validation before, one epoch from ``models/tiles.pt``, float and 8-bit ONNX, eval JSON;
with hand photos among the composited frames and windows at two looks."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from datasets.composite import write_frames

ROOT = Path(__file__).resolve().parents[2]
SPRITES = ROOT / "tests" / "datasets" / "sprites"


def test_the_recipe_runs_every_step_on_the_cpu(tmp_path: Path) -> None:
    stills = tmp_path / "stills"
    write_frames(stills, [SPRITES], 2, 77)  # stand-ins for labelled photoreal stills
    out = tmp_path / "out"
    env = {**os.environ, "YOLO_OFFLINE": "1", "ORT_DISABLE_TELEMETRY": "1"}
    cmd = [sys.executable, str(ROOT / "training" / "recipes" / "composite_gpu.py"),
           "--out", str(out), "--work", str(tmp_path / "work"), "--sprites", str(SPRITES),
           "--photoreal", str(stills), "--budget", "0", "--frames", "5", "--imgsz", "96",
           "--epochs", "1", "--device", "cpu", "--jobs", "2", "--threads", "2",
           "--calibration", "4", "--looks", "full,416", "--hands-share", "0.5"]
    done = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=900, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads((out / "eval.json").read_text())
    for name in ("tiles.pt", "tiles.onnx", "tiles.int8.onnx"):
        assert (out / name).stat().st_size > 100_000
    assert report["frames"] == {"train": 5, "val": 2}
    assert report["windows"]["train"] == 10 and report["epochs"] == 1
    assert report["looks"] == [None, 416] and report["hands_share"] == 0.5
    hands = list((tmp_path / "work" / "frames" / "composite-hands-train").glob("*.json"))
    assert len(hands) == 2 and all(json.loads(h.read_text())["kind"] == "hands-composite"
                                   for h in hands)
    scales = {json.loads(w.read_text())["scale"]
              for w in (tmp_path / "work" / "windows" / "train").glob("*.json")}
    assert 1.0 in scales and min(scales) < 0.4  # full size, and shrunk to 416
    for key in ("composite_val", "photoreal_val"):
        for when in ("before", "after"):
            assert 0.0 <= report[key][when]["metrics/mAP50(B)"] <= 1.0
    onnx = report["onnx"]
    assert onnx["float"]["output"][:2] == onnx["int8"]["output"][:2] == [1, 7]
    assert onnx["int8"]["bytes"] < onnx["float"]["bytes"]
    assert set(report["seconds"]) == {"frames", "windows", "validate_before", "train",
                                      "export", "total"}
