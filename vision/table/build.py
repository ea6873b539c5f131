"""What one table reconstruction builds: the trains growing from the hub (:class:`Chain`)
and the state every stage shares (:class:`TableBuild`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from engine import Owner
from vision.mat.geometry import TILE_WIDTH_MM, apply_homography
from vision.readings import TileReading
from vision.table.geometry import PlacedTile, Ranges
from vision.table.reading import Look, Uncertainty

#: One tile of a train: (index into ``TableBuild.tiles``, near count, far count).
Link = tuple[int, int, int]


@dataclass
class Chain:
    """A train as it is built: its tiles from the hub out, and where it ends."""

    owner: Owner
    slot_angle: float  # measured, degrees
    tiles: list[Link]
    end_ref: np.ndarray  # far half centre (or a crosswise double's centre)
    direction: np.ndarray
    last: PlacedTile
    head: PlacedTile  # its first tile
    #: ``(end_ref, direction)`` of the train before each of its tiles was laid
    links: list[tuple[np.ndarray, np.ndarray]] = field(default_factory=list)
    #: Boxes the last tile read again took in as pieces of it (``look_again``): they
    #: may reach on over the next tile, which no box of its own may show
    ghosts: list[PlacedTile] = field(default_factory=list)

    def lay(self, entry: Link, end_ref: np.ndarray, direction: np.ndarray,
            last: PlacedTile) -> None:
        """Add ``entry`` (input index, near, far); the train's end moves to ``end_ref``."""
        self.ghosts = []
        self.links.append((self.end_ref, self.direction))
        self.tiles.append(entry)
        self.end_ref, self.direction, self.last = end_ref, direction, last


class Reread(NamedTuple):
    """A reading of an outline read again: the reading, its values and ranges."""

    seen: TileReading
    values: tuple[int, int]
    ranges: Ranges


#: Where a train's end was looked beyond: (owner, tiles, end count, end x, end y).
EndKey = tuple[Owner, int, int, float, float]


@dataclass
class TableBuild:
    """The state the stages of one reconstruction share.

    ``tiles`` are the input tiles (counts moved into their ranges), then each tile
    read again or inferred in a gap, appended (its index is past the inputs);
    ``read`` the input tiles on the working plane, by index. ``pool`` holds the
    boxes no train has taken yet, ``chains`` the trains, ``printed`` the boxes
    taken for the mat's print. ``w`` is the tiles' width (the median over the
    table), ``e`` the engine's count and ``hub`` where the trains start from.
    Each stage reports what it could not settle to ``uncertain``.
    """

    tiles: list[TileReading]
    read: list[PlacedTile]
    players: int
    to_image: np.ndarray
    look: Look | None = None
    on_mat: bool = False
    infer_gaps: bool = True
    uncertain: list[Uncertainty] = field(default_factory=list)
    printed: list[PlacedTile] = field(default_factory=list)
    w: float = TILE_WIDTH_MM
    e: int = 0
    hub: np.ndarray = field(default_factory=lambda: np.zeros(2))
    pool: dict[int, PlacedTile] = field(default_factory=dict)
    chains: list[Chain] = field(default_factory=list)
    #: Train ends already looked beyond (``look_again``).
    looked: set[EndKey] = field(default_factory=set)
    #: Tiles whose counts the set's one tile of each kind changed (``decode``): index ->
    #: the counts taken (near, far).
    decoded: dict[int, tuple[int, int]] = field(default_factory=dict)
    #: Input tiles whose counts a settled table gave without doubt (a tracker's): see
    #: :meth:`keeps`.
    settled: frozenset[int] = frozenset()

    def report(self, uncertainty: Uncertainty) -> None:
        self.uncertain.append(uncertainty)

    def keeps(self, idx: int, count: int, other: int) -> bool:
        """Whether tile ``idx``'s ``count`` stands against the ``other`` a neighbour shows
        where they meet: a tile a settled table gave without doubt (``settled``) keeps a
        count of more pips than its neighbour's. Pips are lost to a faint print or a box
        slid off them, seldom made up: a new tile read 0 where a settled 6 lies is the
        misread one, a settled 0 where a new tile shows 9 may be."""
        return idx in self.settled and count > other

    def add_tile(self, tile: TileReading) -> int:
        """Append a tile read again or inferred; its index."""
        self.tiles.append(tile)
        return len(self.tiles) - 1

    def read_again(self, corners: np.ndarray, doubted: bool = False) -> Reread | None:
        """``look`` in ``corners`` (working plane): the reading, its values and ranges;
        ``None`` when nothing was read or, unless ``doubted``, the reader doubts it."""
        return self.read_again_all([corners], doubted)[0]

    def read_again_all(self, outlines: Sequence[np.ndarray], doubted: bool = False
                       ) -> list[Reread | None]:
        """:meth:`read_again` in each of ``outlines`` (working plane), looked at at once."""
        if self.look is None or not len(outlines):
            return [None] * len(outlines)
        image = apply_homography(self.to_image, np.stack(outlines))
        return [_reread(seen, doubted) for seen in self.look(image)]


def _reread(seen: TileReading | None, doubted: bool) -> Reread | None:
    """``seen`` with its values and ranges; ``None`` as :meth:`TableBuild.read_again` says."""
    if seen is None or (not doubted and bool(seen.uncertain)):
        return None
    values = (int(seen.values[0]), int(seen.values[1]))
    ranges = seen.ranges or ((values[0], values[0]), (values[1], values[1]))
    return Reread(seen, values, ((int(ranges[0][0]), int(ranges[0][1])),
                                 (int(ranges[1][0]), int(ranges[1][1]))))


def end_ranges(tile: TileReading, near: int, far: int) -> Ranges:
    """The counts the near and far end of a tile laid ``near``-``far`` could be."""
    read = tuple(int(v) for v in tile.values)
    ranges = tile.ranges
    if ranges is None or (near, far) not in (read, read[::-1]):
        return (near, near), (far, far)
    k = 0 if read == (near, far) else 1
    return (int(ranges[k][0]), int(ranges[k][1])), (int(ranges[1 - k][0]), int(ranges[1 - k][1]))


def lies_along(chain: Chain, k: int, w: float) -> bool:
    """Whether the train's ``k``-th tile lies along the train: laying it moved the
    train's end on about two tile widths (to its far half), not one (to the centre
    of a double lying across)."""
    before = chain.links[k][0]
    after = chain.links[k + 1][0] if k + 1 < len(chain.links) else chain.end_ref
    return float(np.linalg.norm(after - before)) > 1.5 * w
