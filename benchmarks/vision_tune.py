"""Threshold sweeps on freshly rendered scenes (``--tune N``; never on real photos)."""

from __future__ import annotations

from typing import Any

import numpy as np

from benchmarks.matching import match, rate
from vision.models.crops import tile_half_crops
from vision.reading.count_certainty import inside_half
from vision.reading.reader import TileReader

#: Seed of the scenes rendered for the sweeps (not a training or eval seed).
TUNE_SEED = 777_001


def tune(reader: TileReader, count: int) -> dict[str, Any]:
    """Sweep the reader's thresholds on freshly rendered scenes (never on real photos).

    - pip score threshold: per-half accuracy of counting on every labelled
      tile, its box jittered like a detector's (``datasets.render.jitter_corners``);
    - tile detector threshold: recall and precision;
    - ``uncertain_below``: which share of wrong and of right readings it flags.
    """
    from datasets.render import jitter_corners, render, scene_rng

    jitter = np.random.default_rng(TUNE_SEED)
    scores: list[np.ndarray] = []
    truths: list[int] = []
    det_scores: list[float] = []  # best score of each labelled tile's match (0: none)
    spare_scores: list[float] = []  # scores of detections matching no tile
    readings: list[tuple[float, bool]] = []  # (confidence, read right)
    tile_floor = reader.detector.conf_threshold
    pip_floor = reader.pip_detector.conf_threshold
    reader.detector.conf_threshold = 0.05
    reader.pip_detector.conf_threshold = 0.05
    try:
        for index in range(count):
            scene = render("hands" if index % 2 else "table", scene_rng(TUNE_SEED, index))
            labels = scene.labels("tune.jpg")
            truth = np.array([t["corners"] for t in labels["tiles"]],
                             np.float32).reshape(-1, 4, 2)
            found = reader.detector(scene.image)
            found = found[found.class_id == reader.tile_class]
            pairs = match(truth, found.corners)
            matched = dict(pairs)
            det_scores += [float(found.confidence[matched[i]]) if i in matched else 0.0
                           for i in range(len(truth))]
            spare = set(range(len(found))) - set(matched.values())
            spare_scores += [float(found.confidence[j]) for j in spare]
            # pips on every labelled tile, boxed as an imperfect detector would
            crops: list[np.ndarray] = []
            for t in labels["tiles"]:
                corners = jitter_corners(np.array(t["corners"], np.float32), jitter)
                crops.extend(tile_half_crops(scene.image, corners.astype(np.float32)))
                truths.extend(int(v) for v in t["values"])
            for pips in reader.pip_detector(crops):
                scores.append(pips[inside_half(pips.center)].confidence)
            reader.detector.conf_threshold = tile_floor
            reader.pip_detector.conf_threshold = pip_floor
            reader.reset()  # a still: no closer look carried from the last one
            frame = reader.read(scene.image)
            for i, j in match(truth, np.array([t.corners for t in frame.tiles.each()],
                                               np.float32).reshape(-1, 4, 2)):
                tile = frame.tiles.reading(j)
                readings.append((tile.confidence,
                                 sorted(tile.values) == sorted(labels["tiles"][i]["values"])))
            reader.detector.conf_threshold = 0.05
            reader.pip_detector.conf_threshold = 0.05
    finally:
        reader.detector.conf_threshold = tile_floor
        reader.pip_detector.conf_threshold = pip_floor
    pip_sweep = {}
    for t in np.round(np.arange(0.15, 0.86, 0.05), 2):
        ok = sum(int(np.sum(s >= t)) == v for s, v in zip(scores, truths, strict=True))
        pip_sweep[f"{t:.2f}"] = rate(ok, len(truths))
    best = max(pip_sweep, key=lambda k: (pip_sweep[k] or 0, -abs(float(k) - 0.5)))
    tile_sweep = {}
    det = np.array(det_scores)
    spare_arr = np.array(spare_scores)
    for t in (0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.5):
        hits = int(np.sum(det >= t))
        extra = int(np.sum(spare_arr >= t))
        tile_sweep[f"{t:.2f}"] = {"recall": rate(hits, len(det)),
                                  "precision": rate(hits, hits + extra)}
    flag_sweep = {}
    right = [c for c, ok in readings if ok]
    wrong = [c for c, ok in readings if not ok]
    for t in (0.2, 0.3, 0.4, 0.5, 0.6, 0.7):
        flag_sweep[f"{t:.2f}"] = {
            "flags_wrong": rate(sum(c < t for c in wrong), len(wrong)),
            "flags_right": rate(sum(c < t for c in right), len(right))}
    return {"scenes": count, "halves": len(truths), "pip_sweep": pip_sweep,
            "best_pip_threshold": float(best), "tile_sweep": tile_sweep,
            "uncertain_sweep": flag_sweep, "readings": len(readings),
            "wrong_readings": len(wrong)}
