"""One box read on a hand photo, as the app keeps it (:class:`PhotoTile`).

A hand photo's boxes are stored as JSON in the ``hands`` table (``readings``): a
list of objects, one per box. :meth:`PhotoTile.to_json` writes the keys the
reader always wrote (``values``, ``corners``, ``confidence``, ``uncertain``,
``covered``, ``doubts``, ``left_out``), then only the marks that are set
(``face_down``, ``on_table``, and a person's answers: ``not_tile``,
``corrected``, ``confirmed``); a tile face down is only its ``corners`` and
``face_down``. :meth:`PhotoTile.from_json` reads any stored row, older ones
with fewer keys included (a key missing reads as unset).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

Point = tuple[float, float]


@dataclass(frozen=True)
class PhotoTile:
    """A box on a hand photo: a tile read (``values``), or a tile face down (no values).

    ``corners`` are in the photo's pixels; ``confidence`` is the reader's (None when it
    gave none); ``doubts`` the reasons it needs a look
    (:class:`vision.stills.hand_photos.Doubt` values, or another check's). ``left_out``:
    not counted, as it may not be a tile; ``on_table``: a tile of the table, not the
    hand's. ``confirmed``, ``corrected`` and ``not_tile`` are a person's answers
    (``companion_app.hand_check``).
    """

    corners: tuple[Point, ...]
    values: tuple[int, int] | None = None
    confidence: float | None = None
    uncertain: bool = False
    covered: bool = False
    doubts: tuple[str, ...] = ()
    left_out: bool = False
    face_down: bool = False
    on_table: bool = False
    not_tile: bool = False
    corrected: bool = False
    confirmed: bool = False

    @classmethod
    def face_down_at(cls, corners: Sequence[Sequence[float]]) -> PhotoTile:
        """A tile lying face down at ``corners`` (not read)."""
        return cls(corners=_points(corners), face_down=True)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> PhotoTile:
        """A box from its stored JSON object (missing keys: unset)."""
        values = data.get("values")
        confidence = data.get("confidence")
        return cls(
            corners=_points(data.get("corners") or []),
            values=None if not values else (int(values[0]), int(values[1])),
            confidence=None if confidence is None else float(confidence),
            uncertain=bool(data.get("uncertain")),
            covered=bool(data.get("covered")),
            doubts=tuple(str(d) for d in data.get("doubts") or []),
            left_out=bool(data.get("left_out")),
            face_down=bool(data.get("face_down")),
            on_table=bool(data.get("on_table")),
            not_tile=bool(data.get("not_tile")),
            corrected=bool(data.get("corrected")),
            confirmed=bool(data.get("confirmed")),
        )

    def to_json(self) -> dict[str, Any]:
        """The stored JSON object (keys in the order the reader writes them)."""
        out: dict[str, Any] = {}
        if self.values is not None:
            out["values"] = [self.values[0], self.values[1]]
        out["corners"] = [[x, y] for x, y in self.corners]
        if self.values is not None:
            out.update(confidence=self.confidence, uncertain=self.uncertain,
                       covered=self.covered, doubts=list(self.doubts),
                       left_out=self.left_out)
        marks = {"face_down": self.face_down, "on_table": self.on_table,
                 "not_tile": self.not_tile, "corrected": self.corrected,
                 "confirmed": self.confirmed}
        out.update((key, True) for key, on in marks.items() if on)
        return out

    @property
    def text(self) -> str:
        """``"5-7"`` as read (``""``: no values)."""
        return "" if self.values is None else f"{self.values[0]}-{self.values[1]}"


def _points(corners: Sequence[Sequence[float]]) -> tuple[Point, ...]:
    return tuple((float(x), float(y)) for x, y in corners)


def tiles_from_json(data: Sequence[Mapping[str, Any]]) -> list[PhotoTile]:
    """The boxes of a stored ``readings`` list."""
    return [PhotoTile.from_json(r) for r in data]


def tiles_to_json(tiles: Sequence[PhotoTile]) -> list[dict[str, Any]]:
    """The stored ``readings`` list of ``tiles``."""
    return [t.to_json() for t in tiles]
