"""Surfaces people play on (``datasets.surfaces``): seeded, every kind drawn, and only
when asked for."""

from __future__ import annotations

import numpy as np
import pytest

from datasets.camera import Camera
from datasets.render import (
    KINDS,
    SURFACE_KINDS,
    render,
    render_empty,
    render_table,
    scene_rng,
)
from datasets.surfaces import MORE_SURFACES, SURFACES, draw_surface, webcam


def _camera(tilt: float = 0.0) -> Camera:
    return Camera.look_at(160, 90, 65.0, (0.0, 0.0), 150.0, tilt, 30.0)


@pytest.mark.parametrize("kind", SURFACES + MORE_SURFACES)
def test_each_surface_is_drawn_the_same_from_the_same_seed(kind: str) -> None:
    first = draw_surface(kind, _camera(), np.random.default_rng(5))
    again = draw_surface(kind, _camera(), np.random.default_rng(5))
    other = draw_surface(kind, _camera(), np.random.default_rng(6))
    assert first.shape == (90, 160, 3) and first.dtype == np.float32
    assert np.array_equal(first, again)
    assert not np.array_equal(first, other)
    assert float(first.min()) >= 0.0 and float(first.max()) <= 255.0


def test_patterns_show_their_pattern_and_plain_surfaces_do_not() -> None:
    """A checked cloth seen from above changes from square to square; felt barely."""
    def spread(kind: str) -> float:
        return float(np.mean([draw_surface(kind, _camera(), np.random.default_rng(s)).mean(2).std()
                              for s in range(4)]))

    assert spread("checks") > 3 * spread("felt")
    assert spread("gingham") > 3 * spread("felt")


def test_a_surface_seen_at_a_slant_runs_off_towards_the_horizon_without_failing() -> None:
    img = draw_surface("gingham", _camera(tilt=80.0), np.random.default_rng(1))
    assert np.isfinite(img).all()


def test_an_unknown_surface_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown surface"):
        draw_surface("lace", _camera(), np.random.default_rng(0))


def test_webcam_frames_are_seeded_and_keep_their_size() -> None:
    frame = (np.random.default_rng(0).random((72, 128, 3)) * 255).astype(np.uint8)
    one = webcam(frame, np.random.default_rng(3))
    assert one.shape == frame.shape and one.dtype == np.uint8
    assert np.array_equal(one, webcam(frame, np.random.default_rng(3)))


def test_surface_kinds_are_synth_kinds() -> None:
    assert set(SURFACE_KINDS) <= set(KINDS)


def test_an_empty_surface_frame_has_nothing_to_read() -> None:
    scene = render_empty(scene_rng(31, 0), "checks", size=(320, 180))
    labels = scene.labels("x.jpg")
    assert labels["kind"] == "empty" and labels["tiles"] == [] and labels["pips"] == []
    assert scene.image.shape == (180, 320, 3)


def test_a_table_on_a_surface_is_the_table_the_seed_lays() -> None:
    """The surface is painted after the layout: the same seed lays the same tiles, on
    felt as on the painter's own table top; the pixels differ."""
    plain = render_table(scene_rng(32, 0), size=(640, 360))
    on_felt = render_table(scene_rng(32, 0), size=(640, 360), surface="felt")
    assert on_felt.table == plain.table and on_felt.tiles
    assert all(np.allclose(a.corners, b.corners) for a, b in zip(on_felt.tiles, plain.tiles,
                                                                   strict=True))
    assert not np.array_equal(on_felt.image, plain.image)
    drawn = render("table-surface", scene_rng(33, 0))
    assert drawn.kind == "table" and drawn.tiles and drawn.table is not None
