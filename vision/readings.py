"""What reading an image gives: each tile's values, where it lies and how sure the
reading is (:class:`TileReading`), and everything read from one image
(:class:`FrameReading`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple, Protocol

import numpy as np

from vision.detections import Detections

#: Largest pip count of any set the rules know (double-18).
MAX_VALUE = 18


class _Read(Protocol):
    @property
    def values(self) -> tuple[int, int]: ...
    @property
    def corners(self) -> np.ndarray: ...
    @property
    def confidence(self) -> float: ...


def tile_detections(tiles: Sequence[_Read], track_ids: Sequence[int] | None = None
                    ) -> Detections:
    """Read tiles as one ``Detections`` (class 0): their boxes and confidences, their
    values in ``data["values"]`` (``(N, 2)`` int64) and, when given, their track ids in
    ``data["track_id"]``: what the reader and the tracker's memory hand on."""
    data: dict[str, np.ndarray] = {
        "values": np.array([t.values for t in tiles], np.int64).reshape(-1, 2)}
    if track_ids is not None:
        data["track_id"] = np.asarray(track_ids, np.int64).reshape(-1)
    corners = np.array([np.asarray(t.corners, np.float32) for t in tiles],
                       np.float32).reshape(-1, 4, 2)
    return Detections(corners, np.array([t.confidence for t in tiles], np.float32),
                      np.zeros(len(tiles), np.int64), data=data)


@dataclass(frozen=True, eq=False)
class TileReading:
    """One tile read from an image.

    ``corners`` ``(4, 2)`` follow the corner convention: ``corners[0:2]`` are
    the short edge at the ``values[0]`` end. ``confidence`` is in ``[0, 1]``.
    """

    values: tuple[int, int]
    corners: np.ndarray
    confidence: float
    uncertain: bool
    #: The tile detector's own score.
    detector_confidence: float = 1.0
    #: How sure each half's pip count is, ``[0, 1]``.
    half_certainty: tuple[float, float] = (1.0, 1.0)
    #: Pips found on each half crop (crop pixels), for drawing and debugging.
    pips: tuple[Detections, Detections] | None = field(default=None, repr=False)
    #: The counts each half could be, ``((low, high), (low, high))`` (``RANGE_BAND``).
    ranges: tuple[tuple[int, int], tuple[int, int]] | None = None
    #: A hand covers part of it (``vision.cover_check``; hand photos only): some pips
    #: may be out of view, and the tile is ``uncertain``.
    covered: bool = False
    #: Why the tile is doubted besides its counts (``uncertain`` then too): the domino
    #: check's ``"not-a-domino?"`` (``vision.domino_check``); None when not.
    doubt: str | None = None

    def to_json(self) -> dict[str, Any]:
        """The ``read --json`` form of this tile (``doubt`` only when there is one)."""
        out: dict[str, Any] = {
            "values": [int(v) for v in self.values],
            "corners": [[round(float(x), 1), round(float(y), 1)] for x, y in self.corners],
            "confidence": round(float(self.confidence), 3),
            "uncertain": bool(self.uncertain)}
        if self.doubt is not None:
            out["doubt"] = self.doubt
        return out

    def __str__(self) -> str:
        mark = "  uncertain" if self.uncertain else ""
        mark += f" ({self.doubt})" if self.doubt else ""
        return f"{self.values[0]}-{self.values[1]}  confidence {self.confidence:.2f}{mark}"


class HalfCount(NamedTuple):
    """One half crop's pips: the count (``value``), how sure it is, the pips
    counted, and the lowest and highest counts it could be (``RANGE_BAND``)."""

    value: int
    certainty: float
    pips: Detections
    low: int
    high: int


@dataclass(frozen=True, eq=False)
class FrameReading:
    """Everything read from one image: tiles (best first) and train markers."""

    tiles: list[TileReading]
    markers: Detections
    #: Image size (height, width) in pixels.
    shape: tuple[int, int] = (0, 0)
    #: The boxes (corners ``(4, 2)``, image pixels) of tiles lying face down: the
    #: boneyard, a tile not turned over (``vision.face_down``). They carry no values.
    face_down: tuple[np.ndarray, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """``{"tiles": [...]}`` as ``read --json`` prints it (without ``table``), and
        ``"face_down": [{"corners": ...}, ...]`` when some tiles lie face down."""
        out: dict[str, Any] = {"tiles": [t.to_json() for t in self.tiles]}
        if self.face_down:
            out["face_down"] = [{"corners": [[round(float(x), 1), round(float(y), 1)]
                                             for x, y in c]} for c in self.face_down]
        return out

    @property
    def uncertain(self) -> list[TileReading]:
        return [t for t in self.tiles if t.uncertain]

    @property
    def detections(self) -> Detections:
        """The tiles read as one ``Detections`` with their values (:func:`tile_detections`)."""
        return tile_detections(self.tiles)
