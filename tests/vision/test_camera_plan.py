"""vision.tracking.camera_plan: mounting height and pixels per pip."""

from __future__ import annotations

import math

import pytest

from engine.errors import BadInputError
from vision.tracking.camera_plan import fov_axes, parse_resolution, parse_size, plan_camera


def test_diagonal_fov_splits_by_aspect() -> None:
    h, v = fov_axes(78, (1920, 1080))
    assert h > v
    d = math.hypot(math.tan(math.radians(h) / 2), math.tan(math.radians(v) / 2))
    assert d == pytest.approx(math.tan(math.radians(39)), rel=1e-6)


def test_the_whole_table_fits_in_the_view() -> None:
    plan = plan_camera(100, 100, 78, (1920, 1080))
    seen_short = 2 * plan.height_cm * math.tan(math.radians(plan.vfov_deg) / 2)
    seen_long = 2 * plan.height_cm * math.tan(math.radians(plan.hfov_deg) / 2)
    assert seen_short >= 100 and seen_long >= 100
    assert plan.px_per_mm == pytest.approx(1920 / (seen_long * 10))


def test_more_pixels_more_per_pip_and_wider_lens_lower_mount() -> None:
    hd = plan_camera(100, 100, 78, (1280, 720))
    fhd = plan_camera(100, 100, 78, (1920, 1080))
    wide = plan_camera(100, 100, 90, (1920, 1080))
    assert fhd.px_per_pip == pytest.approx(1.5 * hd.px_per_pip)
    assert wide.height_cm < fhd.height_cm


def test_a_long_table_lies_along_the_image_width() -> None:
    a = plan_camera(90, 160, 78, (1920, 1080))
    b = plan_camera(160, 90, 78, (1920, 1080))
    assert a.height_cm == pytest.approx(b.height_cm)


def test_verdict_warns_when_pips_are_too_small() -> None:
    assert plan_camera(200, 200, 90, (640, 480)).verdict.startswith("too few")
    assert plan_camera(60, 60, 78, (3840, 2160)).verdict == "good"


@pytest.mark.parametrize("bad", ["x", "0", "10x-3", "1x2x3"])
def test_bad_size(bad: str) -> None:
    with pytest.raises(BadInputError):
        parse_size(bad, "--table-cm")


def test_sizes_and_resolutions_parse() -> None:
    assert parse_size("100", "t") == (100, 100)
    assert parse_size("90x160", "t") == (90, 160)
    assert parse_resolution("1280x720") == (1280, 720)
    with pytest.raises(BadInputError):
        parse_resolution("1280")


def test_impossible_fov_is_refused() -> None:
    with pytest.raises(ValueError):
        plan_camera(100, 100, 200, (1920, 1080))


def test_the_plan_quotes_the_measured_pixels_per_pip_of_a_12_pip_half() -> None:
    import json
    from pathlib import Path

    from vision.tracking import camera_plan

    measured = json.loads((Path(__file__).resolve().parents[2] / "benchmarks" / "results"
                           / "pip_scale.json").read_text())
    assert measured["webcam"]["px_per_pip_needed"] == camera_plan.TWELVE_PX_PER_PIP
    assert measured["sharp"]["px_per_pip_needed"] == camera_plan.TWELVE_PX_PER_PIP_SHARP
    assert camera_plan.MIN_PX_PER_PIP >= camera_plan.TWELVE_PX_PER_PIP
    assert "12-pip halves    read right (99 %) from 2.5 px per pip" in plan_camera(
        100, 100, 78, (1920, 1080)).text()
