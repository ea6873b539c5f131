"""The committed evaluation set: complete, small, labelled."""

from __future__ import annotations

from pathlib import Path

from datasets.labels import iter_scenes

EVAL = Path(__file__).resolve().parents[2] / "datasets" / "eval"


def test_eval_set_is_complete_and_small() -> None:
    scenes = list(iter_scenes(EVAL))
    kinds = [labels["kind"] for _, labels in scenes]
    assert kinds.count("hands") == 40 and kinds.count("table") == 20
    assert all(image.exists() for image, _ in scenes)
    total = sum(p.stat().st_size for p in EVAL.iterdir())
    assert total < 8 * 1024 * 1024
    assert sum(len(labels["tiles"]) for _, labels in scenes) > 300
