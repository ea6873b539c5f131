"""datasets.table_layout: where tiles and markers lie, and random legal-looking tables."""

from __future__ import annotations

import math

import numpy as np
import pytest

from datasets.table_layout import (
    TILE_LENGTH_MM,
    TILE_WIDTH_MM,
    layout_table,
    random_table,
)
from engine import MEXICAN, TableState, Train


def _layout(seed: int, players: int, n_tiles: int, mat: bool = False):
    rng = np.random.default_rng(seed)
    table = random_table(rng, players, 12, n_tiles, marker_rate=0.5)
    return table, layout_table(table, players, rng, mat=mat)


class TestRandomTable:
    @pytest.mark.parametrize("players", [2, 4, 8])
    def test_is_legal_and_lists_every_train(self, players: int) -> None:
        table = random_table(np.random.default_rng(players), players, 12, 40)
        assert table.problems(12, players) == []
        owners = [t.owner for t in table.trains]
        assert owners == [*range(players), MEXICAN]
        assert sum(len(t.tiles) for t in table.trains) == 40

    def test_zero_tiles_is_the_engine_alone(self) -> None:
        table = random_table(np.random.default_rng(0), 3, 12, 0)
        assert all(not t.tiles for t in table.trains)

    def test_same_seed_same_table(self) -> None:
        a = random_table(np.random.default_rng(7), 5, 12, 30)
        b = random_table(np.random.default_rng(7), 5, 12, 30)
        assert a == b


class TestLayout:
    @pytest.mark.parametrize(("seed", "players", "n_tiles", "mat"),
                             [(1, 2, 60, False), (2, 8, 60, True), (3, 5, 30, False)])
    def test_tiles_are_tile_sized_and_apart(self, seed: int, players: int, n_tiles: int,
                                            mat: bool) -> None:
        table, layout = _layout(seed, players, n_tiles, mat)
        assert len(layout.tiles) == 1 + sum(len(t.tiles) for t in table.trains)
        for tile in layout.tiles:
            c = tile.corners
            assert np.linalg.norm(c[1] - c[0]) == pytest.approx(TILE_WIDTH_MM, abs=0.01)
            assert np.linalg.norm(c[2] - c[1]) == pytest.approx(TILE_LENGTH_MM, abs=0.01)
        # No two tile centres closer than a tile width (nothing lies on top of anything).
        centres = np.array([t.centre for t in layout.tiles])
        d = np.linalg.norm(centres[:, None] - centres[None], axis=-1) + np.eye(len(centres)) * 1e9
        assert d.min() >= TILE_WIDTH_MM - 1.0

    def test_each_train_leaves_the_hub_in_its_seat_slot(self) -> None:
        table, layout = _layout(4, 6, 40)
        angles = dict(zip([*range(6), MEXICAN], layout.hub.slot_angles, strict=True))
        for tile in layout.tiles:
            if tile.owner is None or tile.index != 0:
                continue
            near = (tile.corners[0] + tile.corners[1]) / 2
            v = near - layout.hub.centre
            diff = (math.atan2(v[1], v[0]) - angles[tile.owner] + math.pi) % (2 * math.pi)
            assert abs(diff - math.pi) < math.radians(5)

    def test_seat_zero_is_at_the_bottom_and_seats_go_clockwise(self) -> None:
        _, layout = _layout(5, 4, 0)
        a0, a1 = layout.seat_angles[0], layout.seat_angles[1]
        assert math.sin(a0) > 0.99  # +y is down in the image
        # seat 1 is clockwise of seat 0 as seen in the image: towards the left edge
        assert math.cos(a1) < 0

    def test_values_run_near_to_far_along_each_train(self) -> None:
        table, layout = _layout(6, 3, 25)
        by_owner: dict[object, list[tuple[int, int]]] = {}
        for tile in sorted((t for t in layout.tiles if t.owner is not None),
                           key=lambda t: t.index):
            by_owner.setdefault(tile.owner, []).append(tile.values)
        for train in table.trains:
            assert tuple(by_owner.get(train.owner, [])) == train.tiles

    def test_a_marker_for_each_marked_train(self) -> None:
        table, layout = _layout(8, 4, 20)
        assert sorted(map(str, (m.owner for m in layout.markers))) == sorted(
            str(t.owner) for t in table.trains if t.marker)

    def test_long_trains_turn_to_stay_on_the_table(self) -> None:
        chain = [(5, 1), (1, 2), (2, 3), (3, 4), (4, 6), (6, 7), (7, 8), (8, 9), (9, 10),
                 (10, 11), (11, 12), (12, 0), (0, 3), (3, 6), (6, 8), (8, 10), (10, 12)]
        table = TableState(5, (Train(0, tuple(chain)), Train(1), Train(MEXICAN)))
        layout = layout_table(table, 2, np.random.default_rng(0))
        x0, y0, x1, y1 = layout.bounds()
        assert x0 >= 0 and y0 >= 0 and x1 <= 1000 and y1 <= 1000

    def test_owner_outside_the_seats_is_refused(self) -> None:
        table = TableState(5, (Train(4, ((5, 1),)),))
        with pytest.raises(ValueError, match="not a seat"):
            layout_table(table, 3, np.random.default_rng(0))


def _along_train(tile) -> bool:
    """Whether a laid tile lies along its train: its long side points the way it grows."""
    c = np.asarray(tile.corners)
    long_side = c[2] - c[1] if np.linalg.norm(c[2] - c[1]) > np.linalg.norm(c[1] - c[0]) \
        else c[1] - c[0]
    return abs(float(long_side @ tile.direction)) / float(np.linalg.norm(long_side)) > 0.9


def test_doubles_lie_across_their_train_unless_asked_to_lie_in_line() -> None:
    def doubles(inline: float) -> list[bool]:
        rng = np.random.default_rng(11)
        table = random_table(rng, 4, 12, 50)
        layout = layout_table(table, 4, rng, inline_doubles=inline)
        return [_along_train(t) for t in layout.tiles
                if t.owner is not None and t.values[0] == t.values[1]]

    across, in_line = doubles(0.0), doubles(1.0)
    assert across and not any(across)
    assert in_line and all(in_line)
    # without in-line doubles the layout draws nothing more: the benchmarks' tables stay
    rng_a, rng_b = np.random.default_rng(3), np.random.default_rng(3)
    table = random_table(rng_a, 3, 12, 30)
    random_table(rng_b, 3, 12, 30)
    a, b = layout_table(table, 3, rng_a), layout_table(table, 3, rng_b, inline_doubles=0.0)
    assert all(np.allclose(x.corners, y.corners) for x, y in zip(a.tiles, b.tiles, strict=True))
