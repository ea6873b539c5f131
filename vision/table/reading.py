"""What a table reconstruction gives: the table read and what it could not resolve."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from engine import Owner, TableState
from vision.readings import TileReading

#: Reads the image again inside each of image corners ``(N, 4, 2)`` (corner convention):
#: a read tile or ``None`` for each, in order. The outlines a stage weighs against one
#: another are read at once: the models take them in one batch, which on 2 cores costs
#: little more than one outline alone.
Look = Callable[[np.ndarray], Sequence[TileReading | None]]


@dataclass(frozen=True)
class Uncertainty:
    """Something on the table that could not be resolved.

    ``kind`` is one of ``no-engine``, ``engine-tie``, ``fits-two-trains``,
    ``branch``, ``gap``, ``loose-tile``, ``slot-conflict``, ``between-seats``,
    ``marker-between``, ``loose-marker``, ``players-mismatch``, ``unsure-tile``,
    ``engine-read``, ``matched-read``, ``inferred-tile``, ``reread-tile``,
    ``set-decoded``, and from a tracker ``unsure-marker`` (a marker the detector scored
    low, or found where the table changed, not by the detector).
    ``tiles`` and ``markers`` index the inputs; ``owners`` names the trains.
    """

    kind: str
    message: str
    tiles: tuple[int, ...] = ()
    owners: tuple[Owner, ...] = ()
    markers: tuple[int, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "message": self.message, "tiles": list(self.tiles),
                "owners": list(self.owners), "markers": list(self.markers)}


#: Uncertainties of a tile read on no train: beyond a train's end past a gap, or by none.
UNPLACED = ("loose-tile", "gap")


@dataclass(frozen=True)
class TableReading:
    """The table read from one image.

    ``table`` is ``None`` when no engine was found. ``seats`` maps each train
    found to the direction it leaves the hub in (degrees, clockwise from the
    image's +x). ``assignment[i]`` says where input tile ``i`` went:
    ``"engine"``, a train's owner, or ``None``; ``marker_owners[j]`` likewise
    for marker ``j``. ``positions[owner]`` lists the input tiles of that train
    in train order; an index past the input tiles is a tile inferred in a gap
    (``inferred-tile``) or read again where the train goes on (``reread-tile``).
    ``decoded`` maps each tile whose counts were taken otherwise than read because the
    table holds each tile once (``set-decoded``) to the counts taken.
    """

    table: TableState | None
    seats: dict[Owner, float]
    uncertainties: list[Uncertainty]
    assignment: list[Owner | None] = field(default_factory=list)
    marker_owners: list[Owner | None] = field(default_factory=list)
    players: int = 0
    positions: dict[Owner, list[int]] = field(default_factory=dict)
    decoded: dict[int, tuple[int, int]] = field(default_factory=dict)

    def inferred(self, owner: Owner, k: int) -> bool:
        """Whether the ``k``-th tile of ``owner``'s train was inferred in a gap."""
        tiles = self.positions.get(owner, [])
        return k < len(tiles) and tiles[k] >= len(self.assignment) and any(
            tiles[k] in u.tiles for u in self.uncertainties if u.kind == "inferred-tile")

    def doubted(self, owner: Owner, k: int) -> bool:
        """Whether the ``k``-th tile of ``owner``'s train was read with doubt, taken
        otherwise than read, inferred, or laid on the train across a short gap
        (``unsure-tile``, ``matched-read``, ``inferred-tile``, ``reread-tile``,
        ``set-decoded``, ``short-gap``)."""
        tiles = self.positions.get(owner, [])
        if k >= len(tiles):
            return False
        return any(tiles[k] in u.tiles for u in self.uncertainties
                   if u.kind in ("unsure-tile", "matched-read", "inferred-tile",
                                 "reread-tile", "set-decoded", "short-gap"))

    @property
    def unplaced(self) -> tuple[int, ...]:
        """The input tiles read on no train (``loose-tile``, ``gap``)."""
        return tuple(i for u in self.uncertainties if u.kind in UNPLACED for i in u.tiles)

    @property
    def certain(self) -> bool:
        return self.table is not None and not self.uncertainties

    def to_json(self) -> dict[str, Any]:
        return {"table": None if self.table is None else self.table.to_json(),
                "seats": {str(k): round(v, 1) for k, v in self.seats.items()},
                "uncertainties": [u.to_json() for u in self.uncertainties],
                "decoded": self.decoded_json()}

    def decoded_json(self) -> list[dict[str, Any]]:
        """The tiles the set's constraint changed: ``[{"tile": i, "taken": [a, b]}, ...]``."""
        return [{"tile": i, "taken": [a, c]} for i, (a, c) in sorted(self.decoded.items())]


def with_unsure_markers(reading: TableReading, made: np.ndarray,
                        faint: np.ndarray | None = None) -> TableReading:
    """``reading`` with each marker ``j`` flagged in ``made`` (found where the table
    changed, not by the detector) or in ``faint`` (scored low by the detector) that it
    gives a train reported ``unsure-marker``."""
    faint = np.zeros(len(made), bool) if faint is None else faint
    doubts = [Uncertainty("unsure-marker",
                          f"marker {j} of train {owner} was found "
                          + ("where the table changed, not by the detector" if made[j]
                             else "faintly by the detector") + ": check it",
                          owners=(owner,), markers=(j,))
              for j, owner in enumerate(reading.marker_owners)
              if j < len(made) and (made[j] or faint[j]) and owner is not None]
    return replace(reading, uncertainties=[*reading.uncertainties, *doubts]) if doubts \
        else reading
