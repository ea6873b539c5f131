"""What reading an image gives, the types the reader and the table reconstruction
share: read tiles (:class:`TileReadings`, one :class:`TileReading` each), and
everything read from one image (:class:`FrameReading`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from vision.models.detections import Detections

#: Largest pip count of any set the rules know (double-18).
MAX_VALUE = 18


@dataclass(frozen=True, eq=False)
class TileReading:
    """One tile read from an image: one element of :class:`TileReadings`
    (:meth:`TileReadings.each`), and a tile given as it is (a laid-out table's tiles,
    the tiles a reading stored in the app lists: sure unless told).

    ``values`` as read, either order; ``corners`` ``(4, 2)`` follow the corner
    convention: ``corners[0:2]`` are the short edge at the ``values[0]`` end.
    ``confidence`` is in ``[0, 1]``; ``uncertain``: the reader doubted its counts.
    """

    values: tuple[int, int]
    corners: np.ndarray
    confidence: float = 1.0
    uncertain: bool = False
    #: The tile detector's own score.
    detector_confidence: float = 1.0
    #: How sure each half's pip count is, ``[0, 1]``.
    half_certainty: tuple[float, float] = (1.0, 1.0)
    #: The counts each half could be, ``((low, high), (low, high))``
    #: (``vision.reading.reader.RANGE_BAND``); None: exactly as read.
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


class TileReadings(Detections):
    """Read tiles as one ``Detections`` (class 0): what the reader hands on
    (:attr:`FrameReading.tiles`) and the tracker's memory holds
    (``TileMemory.detections``). ``confidence`` is the reading's (float64, as the
    reader computed it); ``corners`` float32, or float64 when given so (a laid-out
    table's exact outlines). Each tile's reading always in ``data``: ``values`` ``(N, 2)``,
    ``ranges`` ``(N, 2, 2)`` (the counts each half could be; a half read exactly, its
    count twice), ``half_certainty`` ``(N, 2)``, ``uncertain`` ``(N,)``, ``track_id``
    ``(N,)`` (a tracked tile's id, the same from one still frame to the next; -1: not
    tracked), ``detector_confidence`` ``(N,)``, ``covered`` ``(N,)``, ``doubt`` ``(N,)``
    (objects: a reason or None) and ``ranged`` ``(N,)`` (whether the reader gave ranges;
    a tile given as it is has none). One tile at a time: :meth:`each`, :meth:`reading`."""

    KEYS = ("values", "ranges", "half_certainty", "uncertain", "track_id",
            "detector_confidence", "covered", "doubt", "ranged")

    def __post_init__(self) -> None:
        corners = np.asarray(self.corners)
        confidence = np.asarray(self.confidence, np.float64)
        super().__post_init__()
        if corners.dtype == np.float64:  # exact outlines given (a laid-out table's) stay so
            self.corners = corners.reshape(self.corners.shape)
        self.confidence = confidence.reshape(self.confidence.shape)
        missing = [k for k in self.KEYS if k not in self.data]
        if missing:
            raise ValueError(f"TileReadings.data lacks {', '.join(missing)}")

    @classmethod
    def empty(cls) -> TileReadings:
        """No tiles."""
        return cls.of([])

    @classmethod
    def of(cls, tiles: Sequence[TileReading], track_ids: Sequence[int] | None = None
           ) -> TileReadings:
        """``tiles`` as one value, with their track ids when given."""
        n = len(tiles)
        doubt = np.empty(n, object)
        doubt[:] = [t.doubt for t in tiles]
        data: dict[str, np.ndarray] = {
            "values": np.array([t.values for t in tiles], np.int64).reshape(-1, 2),
            "ranges": np.array([t.ranges if t.ranges is not None
                                else ((t.values[0],) * 2, (t.values[1],) * 2) for t in tiles],
                               np.int64).reshape(-1, 2, 2),
            "half_certainty": np.array([t.half_certainty for t in tiles],
                                       np.float64).reshape(-1, 2),
            "uncertain": np.array([t.uncertain for t in tiles], bool).reshape(-1),
            "track_id": (np.full(n, -1, np.int64) if track_ids is None
                         else np.asarray(track_ids, np.int64).reshape(-1)),
            "detector_confidence": np.array([t.detector_confidence for t in tiles],
                                            np.float64).reshape(-1),
            "covered": np.array([t.covered for t in tiles], bool).reshape(-1),
            "doubt": doubt,
            "ranged": np.array([t.ranges is not None for t in tiles], bool).reshape(-1)}
        corners = (np.array([np.asarray(t.corners) for t in tiles]) if tiles
                   else np.zeros((0, 4, 2), np.float32)).reshape(-1, 4, 2)
        return cls(corners, np.array([t.confidence for t in tiles], np.float64).reshape(-1),
                   np.zeros(n, np.int64), data=data)

    def reading(self, i: int) -> TileReading:
        """Tile ``i`` as one :class:`TileReading`."""
        v, r, h = self.values[i], self.ranges[i], self.half_certainty[i]
        return TileReading(
            (int(v[0]), int(v[1])), self.corners[i], float(self.confidence[i]),
            bool(self.uncertain[i]), float(self.data["detector_confidence"][i]),
            (float(h[0]), float(h[1])),
            ((int(r[0, 0]), int(r[0, 1])), (int(r[1, 0]), int(r[1, 1])))
            if self.data["ranged"][i] else None,
            bool(self.data["covered"][i]), self.data["doubt"][i])

    def each(self) -> list[TileReading]:
        """Every tile as one :class:`TileReading`, in order."""
        return [self.reading(i) for i in range(len(self))]

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

    tiles: TileReadings
    markers: Detections
    #: Image size (height, width) in pixels.
    shape: tuple[int, int] = (0, 0)
    #: The boxes (corners ``(4, 2)``, image pixels) of tiles lying face down: the
    #: boneyard, a tile not turned over (``vision.reading.face_down``). They carry no values.
    backs: tuple[np.ndarray, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """``{"tiles": [...]}`` as ``read --json`` prints it (without ``table``), and
        ``"face_down": [{"corners": ...}, ...]`` when some tiles lie face down."""
        out: dict[str, Any] = {"tiles": [t.to_json() for t in self.tiles.each()]}
        if self.backs:
            out["face_down"] = [{"corners": [[round(float(x), 1), round(float(y), 1)]
                                             for x, y in c]} for c in self.backs]
        return out

    @property
    def uncertain(self) -> list[TileReading]:
        return [t for t in self.tiles.each() if t.uncertain]
