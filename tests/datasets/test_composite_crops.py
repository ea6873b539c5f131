"""Half crops cut from composited frames: labelled with the frame's tile values,
the same for a seed, the count asked for, kept when already written."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from datasets.composite import SpriteLibrary, compose_frame
from datasets.composite.crops import RENDERED, frame_crops, write_composite_crops
from engine.errors import BadInputError
from vision.models.crops import HALF_PX

SPRITES = Path(__file__).resolve().parent / "sprites"


@pytest.fixture(scope="module")
def library() -> SpriteLibrary:
    return SpriteLibrary([SPRITES])


def test_crops_carry_their_tiles_values(library: SpriteLibrary) -> None:
    for index in range(3):
        _, labels = compose_frame(library, 5, index, RENDERED)
        crops = frame_crops(library, 5, index)
        assert crops, "a table frame gives crops"
        for crop, label in crops:
            assert crop.shape == (HALF_PX, HALF_PX, 3)
            tile = labels["tiles"][label["source_tile"]]
            assert tile["visible"] >= 0.999
            assert label["value"] in tile["values"]
        # both halves of a tile, first then second
        pairs = [(crops[k][1], crops[k + 1][1]) for k in range(0, len(crops), 2)]
        for first, second in pairs:
            tile = labels["tiles"][first["source_tile"]]
            assert [first["value"], second["value"]] == tile["values"]


def test_a_seed_writes_the_same_crops(tmp_path: Path) -> None:
    a = write_composite_crops(tmp_path / "a", [SPRITES], 30, 3)
    b = write_composite_crops(tmp_path / "b", [SPRITES], 30, 3, jobs=2)
    names = sorted(p.name for p in a.glob("*.png"))
    assert len(names) == 30 and names == sorted(p.name for p in b.glob("*.png"))
    for name in names[::7]:
        assert (a / name).read_bytes() == (b / name).read_bytes()
    values = [json.loads(p.read_text())["value"] for p in sorted(a.glob("*.json"))]
    assert len(values) == 30 and len(set(values)) > 3
    before = (a / names[0]).stat().st_mtime_ns
    write_composite_crops(tmp_path / "a", [SPRITES], 30, 3)  # stamped: kept as it is
    assert (a / names[0]).stat().st_mtime_ns == before


def test_no_sprites_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    with pytest.raises(BadInputError):
        write_composite_crops(tmp_path / "out", [tmp_path / "empty"], 10, 0)
    with pytest.raises(BadInputError):
        write_composite_crops(tmp_path / "out", [tmp_path / "missing"], 10, 0)


def test_crops_are_not_blank(library: SpriteLibrary) -> None:
    crops = frame_crops(library, 6, 0)
    spread = [float(np.std(c)) for c, _ in crops]
    assert min(spread) > 1.0
