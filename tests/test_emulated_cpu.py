"""The emulated-CPU benchmark tells the same tiles from other tiles, whatever order the
answers list them in, and measures how far the same tiles moved."""

from __future__ import annotations

import json

from benchmarks.emulated_cpu import differences


def _answer(*tiles: tuple[tuple[int, int], float, float, bool]) -> str:
    return json.dumps({"tiles": [
        {"values": list(v), "corners": [[x, 10.0], [x + 40, 10.0], [x + 40, 30.0], [x, 30.0]],
         "confidence": c, "uncertain": u} for v, x, c, u in tiles]})


def test_the_same_tiles_listed_otherwise_differ_only_by_how_far_they_moved() -> None:
    here = _answer(((3, 4), 0.0, 0.9, False), ((6, 6), 100.0, 0.8, False))
    there = _answer(((6, 6), 101.5, 0.8, False), ((3, 4), 0.0, 0.85, False))
    diff = differences(here, there)
    assert diff["only_here"] == [] and diff["only_emulated"] == []
    assert diff["corner_px"] == 1.5 and diff["confidence"] == 0.05


def test_a_tile_read_otherwise_or_doubted_only_there_is_named() -> None:
    here = _answer(((3, 4), 0.0, 0.9, False))
    there = _answer(((3, 4), 0.0, 0.9, True), ((11, 5), 100.0, 0.4, True))
    diff = differences(here, there)
    assert diff["only_here"] == [((3, 4), False)]
    assert diff["only_emulated"] == [((3, 4), True), ((11, 5), True)]
