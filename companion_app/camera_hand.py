"""One hand read from the table camera: the tiles read that are not the table's.

The table camera sees the whole table: the engine on the hub, the trains, the
boneyard face down, and the hand a player lays face up beside them. The frame
is read like a hand photo (every tile face up), then the table is rebuilt from
those tiles (:func:`vision.reconstruct`, with the round's engine and seats)
and every tile it lays on the hub or a train is left out, as is any tile the
round's last settled table holds (a set has one of each tile). The tiles left
are the hand. Tiles lying face down are the boneyard's, not the hand's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from engine import TableState, Tile


@dataclass(frozen=True)
class SeenTile:
    """A tile as the hand reading reports it, in the shape :func:`vision.reconstruct` reads."""

    values: tuple[int, int]
    corners: np.ndarray
    uncertain: bool = False


@dataclass(frozen=True)
class CameraHand:
    """The hand's readings, and the readings left out as the table's (drawn apart)."""

    hand: list[dict[str, Any]]
    table: list[dict[str, Any]]


def table_tiles(settled: Mapping[str, Any] | None) -> set[Tile]:
    """The tiles of the round's last settled table (CONTRACTS.md TABLE JSON), if any."""
    if not settled:
        return set()
    return set(TableState.from_json(dict(settled), "the settled table").tiles())


def split_hand(readings: Sequence[Mapping[str, Any]], *, players: int, engine: int,
               settled: Mapping[str, Any] | None = None) -> CameraHand:
    """Split the readings of a whole camera frame into the hand and the table.

    ``readings`` are the hand reading's tiles (``values``, ``corners`` in image
    pixels); ``players`` and ``engine`` are the round's; ``settled`` the round's
    last settled table (TABLE JSON), or None.
    """
    from vision import reconstruct

    seen = [SeenTile((int(r["values"][0]), int(r["values"][1])),
                     np.asarray(r["corners"], dtype=np.float64), bool(r.get("uncertain")))
            for r in readings]
    on_table: set[int] = set()
    if seen:
        rebuilt = reconstruct(seen, None, players, engine=engine, infer_gaps=False)
        on_table = {i for i, owner in enumerate(rebuilt.assignment) if owner is not None}
    known = table_tiles(settled)
    on_table |= {i for i, t in enumerate(seen) if Tile(*t.values) in known}
    hand = [dict(r) for i, r in enumerate(readings) if i not in on_table]
    table = [dict(r) | {"on_table": True} for i, r in enumerate(readings) if i in on_table]
    return CameraHand(hand, table)
