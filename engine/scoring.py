"""Penalty points of a hand."""

from __future__ import annotations

from collections.abc import Iterable

from engine.rules import RuleSet
from engine.tiles import Tile


def tile_points(tile: Tile, rules: RuleSet) -> int:
    """Points one tile counts in a hand: its pips, 0-0 and blank halves per the rules."""
    if tile.a == 0 and tile.b == 0:
        return rules.double_blank
    points = tile.a + tile.b
    if tile.a == 0:
        points += rules.blank_half
    return points


def hand_points(tiles: Iterable[Tile], rules: RuleSet) -> int:
    """Penalty of a hand under ``rules``.

    >>> from engine.rules import RuleSet
    >>> hand_points([Tile(0, 0), Tile(3, 4)], RuleSet())
    57
    """
    return sum(tile_points(t, rules) for t in tiles)
