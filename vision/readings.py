"""What reading an image gives, the types the reader and the table reconstruction
share: a read tile (:class:`ReadTile`, :class:`TileReading`), and everything read
from one image (:class:`FrameReading`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple, Protocol

import numpy as np

from vision.models.detections import Detections

#: Largest pip count of any set the rules know (double-18).
MAX_VALUE = 18


class ReadTile(Protocol):
    """A read tile as every reader reports it and every consumer reads it
    (:class:`TileReading`; :class:`SeenTile` for laid-out tables).

    ``values`` as read, either order; ``corners`` ``(4, 2)`` in image pixels (corner
    convention); ``confidence`` in ``[0, 1]``; ``uncertain``: the reader doubted its
    counts; ``half_certainty``: how sure each half's count is; ``ranges``: the counts
    each half could be (``vision.reading.reader.RANGE_BAND``), ``None`` for exactly as read.
    """

    @property
    def values(self) -> tuple[int, int]: ...

    @property
    def corners(self) -> np.ndarray: ...

    @property
    def confidence(self) -> float: ...

    @property
    def uncertain(self) -> bool: ...

    @property
    def half_certainty(self) -> tuple[float, float]: ...

    @property
    def ranges(self) -> tuple[tuple[int, int], tuple[int, int]] | None: ...


@dataclass(frozen=True)
class SeenTile:
    """A read tile given as it is, sure unless told: a laid-out table's tiles, the
    tiles a reading stored in the app lists. Every field of :class:`ReadTile`."""

    values: tuple[int, int]
    corners: np.ndarray
    confidence: float = 1.0
    uncertain: bool = False
    half_certainty: tuple[float, float] = (1.0, 1.0)
    ranges: tuple[tuple[int, int], tuple[int, int]] | None = None


class TileReadings(Detections):
    """Read tiles as one ``Detections`` (class 0), each tile's reading always in
    ``data``: ``values`` ``(N, 2)``, ``ranges`` ``(N, 2, 2)`` (the counts each half could
    be; a half read exactly, its count twice), ``half_certainty`` ``(N, 2)``,
    ``uncertain`` ``(N,)`` and ``track_id`` ``(N,)`` (a tracked tile's id, the same from
    one still frame to the next; -1: not tracked). What the reader and the tracker's
    memory hand on (:attr:`FrameReading.detections`, ``TileMemory.detections``)."""

    KEYS = ("values", "ranges", "half_certainty", "uncertain", "track_id")

    def __post_init__(self) -> None:
        super().__post_init__()
        missing = [k for k in self.KEYS if k not in self.data]
        if missing:
            raise ValueError(f"TileReadings.data lacks {', '.join(missing)}")

    @classmethod
    def of(cls, tiles: Sequence[ReadTile], track_ids: Sequence[int] | None = None
           ) -> TileReadings:
        """``tiles`` as one value, with their track ids when given."""
        n = len(tiles)
        data: dict[str, np.ndarray] = {
            "values": np.array([t.values for t in tiles], np.int64).reshape(-1, 2),
            "ranges": np.array([t.ranges if t.ranges is not None
                                else ((t.values[0],) * 2, (t.values[1],) * 2) for t in tiles],
                               np.int64).reshape(-1, 2, 2),
            "half_certainty": np.array([t.half_certainty for t in tiles],
                                       np.float32).reshape(-1, 2),
            "uncertain": np.array([t.uncertain for t in tiles], bool).reshape(-1),
            "track_id": (np.full(n, -1, np.int64) if track_ids is None
                         else np.asarray(track_ids, np.int64).reshape(-1))}
        corners = np.array([np.asarray(t.corners, np.float32) for t in tiles],
                           np.float32).reshape(-1, 4, 2)
        return cls(corners, np.array([t.confidence for t in tiles], np.float32),
                   np.zeros(n, np.int64), data=data)

    @property
    def values(self) -> np.ndarray:
        return self.data["values"]

    @property
    def ranges(self) -> np.ndarray:
        return self.data["ranges"]

    @property
    def half_certainty(self) -> np.ndarray:
        return self.data["half_certainty"]

    @property
    def uncertain(self) -> np.ndarray:
        return self.data["uncertain"]

    @property
    def track_id(self) -> np.ndarray:
        return self.data["track_id"]


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
    #: A hand covers part of it (``vision.reading.cover_check``; hand photos only): some pips
    #: may be out of view, and the tile is ``uncertain``.
    covered: bool = False
    #: Why the tile is doubted besides its counts (``uncertain`` then too): the domino
    #: check's ``"not-a-domino?"`` (``vision.models.domino_check``); None when not.
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
    #: boneyard, a tile not turned over (``vision.reading.face_down``). They carry no values.
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
    def detections(self) -> TileReadings:
        """The tiles read as one :class:`TileReadings`."""
        return TileReadings.of(self.tiles)
