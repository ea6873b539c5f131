"""One hand read from the table camera: the tiles read that are not the table's.

The table camera sees the whole table: the engine on the hub, the trains, the
boneyard face down, and the hand a player lays face up beside them. The frame
is read like a hand photo (every tile face up), then the table is rebuilt from
those tiles (:func:`vision.reconstruct`, with the round's engine and seats)
and every tile it lays on the hub or a train is left out, as is any tile the
round's last settled table holds (a set has one of each tile). The tiles left
are the hand. A table is only taken as such when the round's engine is on its
hub: a frame without it (the camera sees a hand only) keeps a hand's double and
the tiles touching it. Tiles lying face down are the boneyard's, not the hand's.

Which hand it is the camera cannot tell: the page asks for one hand at a time
face up beside the table, and the tiles left are counted in groups (tiles
within a tile's length of each other) so that two hands laid out at once are
pointed out rather than summed in silence.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from companion_app.photo_tiles import PhotoTile
from engine import TableState, Tile

#: Tiles whose centres lie closer than this many tile lengths are in one group.
GROUP_REACH = 1.5


@dataclass(frozen=True)
class CameraHand:
    """The hand's readings, the readings left out as the table's (drawn apart), and how
    many groups the hand's tiles lie in (more than one: maybe several hands)."""

    hand: list[PhotoTile]
    table: list[PhotoTile]
    groups: int = 0


def count_groups(corners: Sequence[np.ndarray]) -> int:
    """How many groups tiles lie in: chains of tiles each within ``GROUP_REACH`` tile
    lengths of the next."""
    if not corners:
        return 0
    centres = np.array([c.mean(axis=0) for c in corners])
    length = float(np.median([max(np.linalg.norm(c[0] - c[1]), np.linalg.norm(c[1] - c[2]))
                              for c in corners]))
    group = list(range(len(centres)))

    def root(i: int) -> int:
        while group[i] != i:
            group[i] = group[group[i]]
            i = group[i]
        return i

    near = np.linalg.norm(centres[:, None] - centres[None], axis=2) <= GROUP_REACH * length
    for i, j in zip(*np.nonzero(near), strict=True):
        group[root(int(i))] = root(int(j))
    return len({root(i) for i in range(len(centres))})


def table_tiles(settled: Mapping[str, Any] | None) -> set[Tile]:
    """The tiles of the round's last settled table (CONTRACTS.md TABLE JSON), if any."""
    if not settled:
        return set()
    return set(TableState.from_json(dict(settled), "the settled table").tiles())


def split_hand(readings: Sequence[PhotoTile], *, players: int, engine: int,
               settled: Mapping[str, Any] | None = None) -> CameraHand:
    """Split the readings of a whole camera frame into the hand and the table.

    ``readings`` are the hand reading's tiles (``values``, ``corners`` in image
    pixels); ``players`` and ``engine`` are the round's; ``settled`` the round's
    last settled table (TABLE JSON), or None.
    """
    from vision import reconstruct
    from vision.readings import TileReading

    if any(r.values is None for r in readings):
        raise ValueError("a tile face down is not read: it has no values to split")
    seen = [TileReading(r.values or (0, 0), np.asarray(r.corners, dtype=np.float64),
                     uncertain=r.uncertain)
            for r in readings]
    on_table: set[int] = set()
    if seen:
        rebuilt = reconstruct(seen, None, players, engine=engine, infer_gaps=False)
        hub = [i for i, owner in enumerate(rebuilt.assignment) if owner == "engine"]
        # only the round's own engine makes a table: another double is a hand's
        if hub and seen[hub[0]].values == (engine, engine):
            on_table = {i for i, owner in enumerate(rebuilt.assignment) if owner is not None}
    known = table_tiles(settled)
    on_table |= {i for i, t in enumerate(seen) if Tile(*t.values) in known}
    hand = [r for i, r in enumerate(readings) if i not in on_table]
    table = [replace(r, on_table=True) for i, r in enumerate(readings) if i in on_table]
    groups = count_groups([t.corners for i, t in enumerate(seen) if i not in on_table])
    return CameraHand(hand, table, groups)
