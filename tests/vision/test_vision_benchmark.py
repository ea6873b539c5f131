"""The vision benchmark's ``synthetic_more`` part: hands rendered at run time and scored.

A reader that hands back the labelled tiles scores them all found and right; one
that sees nothing scores none, so the figures do move with what is read.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.vision_face_down import FACE_DOWN_SEED, face_down
from benchmarks.vision_synthetic import (
    MORE_SEED,
    pips_in_view,
    render_more,
    synthetic_more,
)
from vision.images import load_image
from vision.models.detections import Detections
from vision.readings import FrameReading, TileReading, TileReadings

ROOT = Path(__file__).resolve().parents[2]

NO_MARKERS = Detections(np.zeros((0, 4, 2)), np.zeros(0), np.zeros(0))


class LabelReader:
    """Reads a scene's labelled tiles in its image, and nothing in any other image (a
    hand's view from above, ``vision.stills.slanted_photo``)."""

    def __init__(self, folder: Path) -> None:
        self.scenes = {}
        for path in sorted(folder.glob("*.json")):
            labels = json.loads(path.read_text())
            self.scenes[load_image(folder / labels["image"]).tobytes()] = labels

        self.told: list[int | None] = []

    def for_set(self, top: int | None) -> LabelReader:
        self.told.append(top)
        return self

    def read(self, image: np.ndarray) -> FrameReading:
        scene = self.scenes.get(image.tobytes(), {"tiles": []})
        tiles = [TileReading((t["values"][0], t["values"][1]), np.array(t["corners"]))
                 for t in scene["tiles"]]
        return FrameReading(TileReadings.of(tiles), NO_MARKERS, image.shape[:2])


class BlindReader(LabelReader):
    def read(self, image: np.ndarray) -> FrameReading:
        return FrameReading(TileReadings.empty(), NO_MARKERS, image.shape[:2])


def test_more_hands_are_rendered_from_their_seed_and_scored(tmp_path: Path) -> None:
    render_more(tmp_path, 8)  # scene 6 is tilted 32 degrees: read from above too
    labels = sorted(tmp_path.glob("*.json"))
    assert [p.name for p in labels] == [f"hands_{MORE_SEED}_{i:06d}.json" for i in range(8)]
    tiles = sum(len(json.loads(p.read_text())["tiles"]) for p in labels)
    assert tiles > 0

    reader = LabelReader(tmp_path)
    right = synthetic_more(reader, tmp_path)  # type: ignore[arg-type]
    assert right["seed"] == MORE_SEED and right["images"] == 8 and right["tiles"] == tiles
    assert right["recall"] == right["tile_exact"] == right["hand_total_exact"] == 1.0
    # each scene is read for its own set
    assert reader.told == [json.loads(p.read_text())["set"] for p in labels]
    assert right["pips_in_view"]["tiles"] + right["pips_hidden"]["tiles"] == tiles
    assert right["pips_in_view"]["tile_exact"] == 1.0

    blind = synthetic_more(BlindReader(tmp_path), tmp_path)  # type: ignore[arg-type]
    assert blind["recall"] == blind["tile_exact"] == 0.0


def test_a_tile_with_pips_hidden_is_told_apart() -> None:
    labels = {"tiles": [{"values": [2, 1]}, {"values": [0, 3]}, {"values": [0, 0]}],
              "pips": [{"tile": 0}, {"tile": 0}, {"tile": 0}, {"tile": 1}, {"tile": 1}]}
    assert pips_in_view(labels) == [True, False, True]


class BackReader:
    """Reads the rendered face-down scenes as if it set apart every back but the first,
    which it reads as a 0-0 tile, and reads every tile face up right."""

    def __init__(self, count: int) -> None:
        from datasets.render import render_hands, render_table, scene_rng

        self.scenes = {}
        for i in range(count):
            for scene in (render_table(scene_rng(FACE_DOWN_SEED, i), boneyard=12),
                          render_hands(scene_rng(FACE_DOWN_SEED + 1, i), face_down=3)):
                self.scenes[scene.image.tobytes()] = scene

    def reset(self) -> None:
        pass

    def read(self, image: np.ndarray) -> Any:
        scene = self.scenes.get(image.tobytes())
        if scene is None:
            return FrameReading(TileReadings.empty(), NO_MARKERS, image.shape[:2])
        backs = [t.corners.astype(np.float32) for t in scene.face_down if t.visible >= 0.35]
        tiles = [TileReading(t.values, t.corners.astype(np.float32), 0.9, False)
                 for t in scene.tiles if t.visible >= 0.35]
        tiles += [TileReading((0, 0), c, 0.9, False) for c in backs[:1]]
        return FrameReading(TileReadings.of(tiles), NO_MARKERS, image.shape[:2], tuple(backs[1:]))


def test_face_down_counts_backs_set_apart_and_read_as_tiles() -> None:
    result = face_down(BackReader(2), 2)  # type: ignore[arg-type]
    for kind in ("table", "hands"):
        part = result[kind]
        assert part["backs"] > 2 and part["backs_found"] == part["backs"]
        assert part["read_as_tiles"] == 2 and part["set_apart"] == part["backs"] - 2
        assert part["set_apart_on_no_back"] == 0
        assert part["blank_faces_read"] == part["blank_faces"]


def test_the_summary_says_what_share_of_a_frame_the_detector_takes() -> None:
    from benchmarks.vision import summary, targets_met

    latency = {"frame_ms": 130.0, "frame_tiles": 27, "frame_detect_ms": 80.0,
               "frame_detect_side": 768, "cpu_sums_8_bits_exactly": False,
               "photo_ms": 680.0, "photo_load_ms": 99.0, "photo_tiles": 31,
               "hand_photo_ms": 400.0,
               "hand_photo_tiles": 6, "models": {"tiles": "tiles.onnx"}}
    results: dict[str, Any] = {"latency": latency}
    results["met"] = targets_met(results)
    assert results["met"]["frame_ms"] is False and results["met"]["photo_ms"] is True
    text = summary(results)
    assert "130.0 ms per 1280x720 frame" in text
    assert "680.0 ms per 12 MP photo of a table (31 tiles)" in text
    assert "tile detector (tiles.onnx) at 768 px: 80.0 ms" in text
    assert "exactly: no" in text
