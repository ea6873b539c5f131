"""benchmarks/table.py's rendered part: painted tables read as ``mtrain read`` reads them.

The trained models are not needed: the oracle hands over the painted tiles
(so everything but the models is measured on real pictures), and a blind
reader that sees nothing shows that the rates do fall.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from benchmarks.table import RENDERED_SEED_BASE, rendered
from datasets.table_game import OracleReader
from vision.models.detections import Detections
from vision.readings import FrameReading, TileReadings

ROOT = Path(__file__).resolve().parents[2]

RATES = ("whole_table_exact", "per_train_exact", "seat_assignment", "marker_attachment",
         "tiles_read_right", "tables_with_uncertainty", "mat_found")


class BlindReader:
    """Finds no tile and no marker in any picture."""

    def read(self, image: np.ndarray) -> FrameReading:
        return FrameReading(TileReadings.empty(), Detections(np.zeros((0, 4, 2)), np.zeros(0),
                                                             np.zeros(0)))


def _check_shape(part: dict[str, Any], mat: bool) -> None:
    assert part["tables"] == 2 and part["mat"] is mat
    assert part["seeds"] == f"{RENDERED_SEED_BASE}..{RENDERED_SEED_BASE + 1}"
    for key in RATES:
        assert 0.0 <= part[key] <= 1.0, key
    assert part["read_ms_median"] > 0
    assert 5 < part["tile_width_px_median"] < 40
    assert len(part["failures"]) <= 10


@pytest.mark.parametrize("mat", [True, False])
def test_the_drawn_tiles_make_the_true_tables(mat: bool) -> None:
    part = rendered(2, mat, OracleReader())
    _check_shape(part, mat)
    assert part["reader"] == "oracle (the drawn tiles)"
    assert part["tiles_read_right"] == 1.0
    assert part["mat_found"] == (1.0 if mat else 0.0)
    assert part["whole_table_exact"] == 1.0, part["failures"]
    assert part["failures"] == []


def test_a_reader_that_sees_nothing_gets_nothing_right() -> None:
    part = rendered(2, True, BlindReader())
    _check_shape(part, True)
    assert part["reader"] == "BlindReader"
    assert part["whole_table_exact"] == 0.0
    assert part["tiles_read_right"] == 0.0
    assert part["seat_assignment"] == 0.0
    assert part["mat_found"] == 1.0  # the mat is found in the picture, not by the reader
    assert [f.split(":")[0] for f in part["failures"]] == [
        f"seed {RENDERED_SEED_BASE}", f"seed {RENDERED_SEED_BASE + 1}"]
    assert all("no table" in f for f in part["failures"])


def test_the_camera_can_frame_just_the_tiles() -> None:
    whole = rendered(2, False, OracleReader())
    fit = rendered(2, False, OracleReader(), camera="fit")
    assert fit["tile_width_px_median"] > whole["tile_width_px_median"]
    with pytest.raises(ValueError):
        rendered(1, False, OracleReader(), camera="closer")
