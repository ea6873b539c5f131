"""``datasets.verifier_crops``: the domino check's training crops, seeded, cut as the
reader cuts, labelled by what lies in the box."""

from __future__ import annotations

import numpy as np

from datasets.render import render_hands, scene_rng
from datasets.verifier_crops import BACK, FACE, NOT, slid_and_halves, verifier_set
from vision.models.detections import polygon_iou
from vision.models.domino_check import CLASSES, CROP_SIZE


def test_the_same_seed_gives_the_same_crops_and_every_class_shows() -> None:
    crops, labels = verifier_set(31, 4)
    again, labels_again = verifier_set(31, 4)
    assert crops.shape[1:] == (CROP_SIZE[1], CROP_SIZE[0], 3) and crops.dtype == np.uint8
    assert len(crops) == len(labels) > 20
    assert np.array_equal(crops, again) and np.array_equal(labels, labels_again)
    assert set(labels.tolist()) <= set(range(len(CLASSES)))
    # scenes 0-1 are empty frames, 2 a table, 3 loose tiles: faces and no dominoes
    assert {FACE, NOT} <= set(labels.tolist())
    assert tuple(CLASSES.index(c) for c in ("face", "back", "not")) == (FACE, BACK, NOT)


def test_a_slid_box_and_a_half_overlap_the_tile_too_little_to_be_it() -> None:
    scene = render_hands(scene_rng(32, 0))
    tile = np.asarray(scene.tiles[0].corners, np.float32)
    rng = np.random.default_rng(0)
    for _ in range(10):
        for box in slid_and_halves(tile, rng):
            assert float(polygon_iou(np.asarray(box, np.float32)[None], tile[None])[0, 0]) < 0.5

