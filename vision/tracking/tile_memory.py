"""The tiles a video tracker knows already, matched to each still frame's boxes.

In the spirit of supervision's trackers: the tracker hands each still frame's
detections to a :class:`TileMemory` (``update_with_detections``), which
matches them to the tiles it holds (their track ids, ``data["track_id"]``) and
to the backs of the tiles lying face down it has set apart, has the reader read
only what it does not know, and gives back the frame's tiles and markers.

- a tile of the last settled table that looks as it did then
  (:func:`tile_look`, brightness and contrast aside) keeps its reading unread,
  and so does a tile not moved since it was read the same way
  ``CONFIRMED_READS`` times in a row;
- a known tile the detector missed is still there while it looks as it did,
  or else when it reads the same looked at again where it lay;
- a back set apart before, where it lay and looking as it did, is that back,
  unread (a tile turned face up there looks otherwise), and a marker the
  detector finds on a back is no marker;
- a box read 0-0 where a marker is found is that marker
  (``vision.reading.boxes.blank_markers``), as a still's reader takes it;
- given where the table has not changed since it last settled, a new box read
  with doubt there is no new tile: a tile laid since changes the view, and a box
  that was there at the settled table and was not a tile of it is not one now
  (on a painted checked cloth, two boxes over a train's first tile, settled long
  before, read 12-12 and 7-8 with doubt and took its place).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from vision.models.detections import Detections
from vision.reading.boxes.blank_markers import blank_on_markers
from vision.reading.boxes.duplicate_boxes import distinct
from vision.reading.face_down import markers_on_backs
from vision.reading.reader_interface import TileSource, sure_markers, tile_boxes
from vision.readings import TileReading, TileReadings

#: Size (width, height) of the small upright picture of a tile's face compared between
#: frames, and how far inside the outline it is taken (neighbours stay out of it).
LOOK_SIZE = (8, 16)
LOOK_INSET = 0.12
#: A tile looks the same when its picture correlates this well with the earlier one
#: (brightness and contrast do not count: lamps and clouds change those).
LOOK_SAME = 0.7
#: Pictures flatter than this (grey levels, standard deviation) are compared by their
#: flatness alone: a blank face has nothing for a correlation to follow.
LOOK_FLAT = 6.0
LOOK_FLAT_RATIO = 0.7
#: A tile read the same way this many times in a row, unmoved, is not read again.
CONFIRMED_READS = 2
#: A box whose centre lies within this share of a tile's width of a back set apart
#: before lies where that back lay (the detector's boxes move a pixel or two).
BACK_MOVED = 0.25
#: A box whose centre lies within this share of a known tile's width of it is that tile.
TILE_MOVED = 0.15


def tile_look(grey: np.ndarray, corners: np.ndarray) -> np.ndarray:
    """A small upright picture of the face of the tile at ``corners``."""
    c = np.asarray(corners, np.float32).reshape(4, 2)
    centre = c.mean(axis=0)
    inner = centre + (c - centre) * (1.0 - LOOK_INSET)
    if np.linalg.norm(inner[1] - inner[0]) > np.linalg.norm(inner[2] - inner[1]):
        inner = np.roll(inner, -1, axis=0)
    w, h = LOOK_SIZE
    dst = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    matrix = cv2.getPerspectiveTransform(inner.astype(np.float32), dst)
    return cv2.warpPerspective(grey, matrix, (w, h), flags=cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_REPLICATE).astype(np.float32)


def same_look(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether two :func:`tile_look` pictures show the same face (either way round)."""
    a0, b0 = a - a.mean(), b - b.mean()
    sa, sb = float(a0.std()), float(b0.std())
    if max(sa, sb) < LOOK_FLAT:  # blank faces: as bright, give or take a lamp
        low, high = sorted((float(a.mean()), float(b.mean())))
        return low >= LOOK_FLAT_RATIO * high
    if min(sa, sb) < 1e-6:
        return False
    best = max(float((a0 * b0).mean()), float((a0 * b0[::-1, ::-1]).mean()))
    return best / (sa * sb) >= LOOK_SAME


def grey_of(frame: np.ndarray) -> np.ndarray:
    """``frame`` in grey levels."""
    return frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)


def _nearest(held: np.ndarray, corners: np.ndarray, share: float) -> int | None:
    """Index of the outline of ``held`` ``(N, 4, 2)`` whose centre lies within ``share``
    of its width of the centre of ``corners``, if the nearest one does."""
    d = np.linalg.norm(held.mean(axis=1) - np.asarray(corners, np.float32).mean(axis=0),
                       axis=1)
    k = int(np.argmin(d))
    size = float(np.linalg.norm(held[k][1] - held[k][0]))
    return k if d[k] < share * max(size, 1.0) else None


@dataclass
class ReadCounts:
    """What reading the still frames of a video took, and what it saved."""

    #: Tiles read, and tiles that kept their reading unread.
    tiles_read: int = 0
    tiles_reused: int = 0
    #: Confirmed tiles the detector missed, kept because they look or read the same.
    tiles_kept: int = 0
    #: Backs of tiles lying face down set apart by a reading, and found again unread.
    backs_read: int = 0
    backs_reused: int = 0
    #: New boxes read with doubt on table unchanged since it settled, dropped.
    doubts_unchanged: int = 0


@dataclass
class _Held:
    """A tile held: its reading, how many reads in a row agreed on it, whether it is
    one of the last settled table, and how it looked then."""

    reading: TileReading
    agree: int = 1
    settled: bool = False
    look: np.ndarray | None = None
    #: The tile's track id: kept while the tile is held, a new one for a new tile.
    track_id: int = -1


class TileMemory:
    """The tiles (and backs) known from earlier still frames of one video; see the
    module's notes. ``counts`` adds up what was read and what was not."""

    def __init__(self, reader: TileSource, counts: ReadCounts | None = None) -> None:
        self.reader = reader
        self.counts = counts if counts is not None else ReadCounts()
        self.held: list[_Held] = []
        self._next_id = 0
        #: The backs of tiles lying face down set apart so far, and how each looked then.
        self.backs: list[TileReading] = []
        self.back_looks: list[np.ndarray] = []

    @property
    def readings(self) -> list[TileReading]:
        """The tiles held, as last read."""
        return [h.reading for h in self.held]

    @property
    def detections(self) -> TileReadings:
        """The tiles held as one :class:`~vision.readings.TileReadings`, their track ids
        the same for a tile from one still frame to the next while it is held."""
        return TileReadings.of(self.readings, [h.track_id for h in self.held])

    def lasting(self) -> np.ndarray:
        """For each tile held (as :attr:`detections`): whether it stays held when the
        detector misses it (a tile of a settled table, or one read the same way
        ``CONFIRMED_READS`` times): the others are held only while boxed."""
        return np.array([h.settled or h.agree >= CONFIRMED_READS for h in self.held], bool)

    def lasting_outlines(self) -> np.ndarray:
        """Outlines (K, 4, 2) of the tiles held that stay held when the detector misses
        them (:meth:`lasting`)."""
        return self._corners()[self.lasting()]

    def _corners(self) -> np.ndarray:
        if not self.held:
            return np.zeros((0, 4, 2), np.float32)
        return np.array([np.asarray(h.reading.corners, np.float32) for h in self.held])

    # -- matching ------------------------------------------------------------------

    def match(self, corners: np.ndarray) -> int | None:
        """Track id (index) of the tile held where ``corners`` lie, if any."""
        return _nearest(self._corners(), corners, TILE_MOVED) if self.held else None

    def known_back(self, grey: np.ndarray, corners: np.ndarray) -> int | None:
        """Index of the back set apart before that lies where ``corners`` lie and looks
        in ``grey`` as it did then, if any."""
        if not self.backs:
            return None
        held = np.array([np.asarray(b.corners, np.float32) for b in self.backs])
        k = _nearest(held, corners, BACK_MOVED)
        if k is None:
            return None
        return k if same_look(self.back_looks[k], tile_look(grey, held[k])) else None

    def unchanged(self, grey: np.ndarray) -> list[bool]:
        """For each tile held: settled, and looking in ``grey`` as it did then."""
        return [bool(h.settled and h.look is not None
                     and same_look(h.look, tile_look(grey, np.asarray(h.reading.corners))))
                for h in self.held]

    def mark_settled(self, grey: np.ndarray) -> None:
        """The tiles now held are those of a settled table, seen in ``grey``."""
        for h in self.held:
            h.agree = max(h.agree, CONFIRMED_READS)
            h.settled = True
            h.look = tile_look(grey, np.asarray(h.reading.corners, np.float32))

    # -- one still frame -----------------------------------------------------------

    def update_with_detections(self, frame: np.ndarray, found: Detections,
                               unchanged: Callable[[np.ndarray], np.ndarray] | None = None
                               ) -> tuple[TileReadings, Detections]:
        """The tiles and markers of the still ``frame`` whose detections are ``found``,
        reading only the boxes not known already; the memory then holds these tiles.
        ``unchanged`` tells for outlines (N, 4, 2) whether each lies on table unchanged
        since the table last settled: a new box read with doubt there is dropped.

        The tile boxes get their track ids (``data["track_id"]``: the tile held
        there, -1 for none); those of tiles known well enough keep their
        readings, the others are read (or found to be a known back). The tiles come
        back as :attr:`detections`.
        """
        grey = grey_of(frame)
        still = self.unchanged(grey)
        boxes = tile_boxes(self.reader, found)
        ids = np.array([-1 if (m := self.match(c)) is None else m for c in boxes.corners],
                       np.int64)
        boxes.data["track_id"] = ids
        known = np.array([m >= 0 and (still[m] or (self.held[m].agree >= CONFIRMED_READS
                                                   and not self.held[m].settled))
                          for m in ids.tolist()], bool)
        unread, on_back = self._off_known_backs(grey, boxes[~known])
        lasting = self.lasting()
        unseen = [m for m in range(len(self.held)) if m not in set(ids.tolist())
                  and (still[m] or lasting[m])]
        again = [m for m in unseen if not still[m]]
        read = self.reader.read_boxes(frame, unread, np.array(
            [np.asarray(self.held[m].reading.corners) for m in again]).reshape(-1, 4, 2))
        self._hold_backs(grey, on_back, read.backs.each())
        markers = self._off_backs(grey, sure_markers(self.reader, found))
        fresh = read.tiles.each()
        if fresh and len(markers):  # a marker boxed as a blank tile too is the marker
            fresh = [r for r, gone in zip(fresh, blank_on_markers(read.tiles, markers),
                                          strict=True) if not gone]
        self.counts.tiles_read += len(fresh)
        if unchanged is not None:
            fresh = self._off_unchanged(fresh, unchanged)
        self.counts.tiles_reused += int(known.sum())
        kept = [self.held[m] for m in ids[known].tolist()]
        kept += self._missed(still, unseen, again, read.again.each())
        self.held = self._deduplicated(kept + self._confirm(fresh))
        return self.detections, markers

    def _off_known_backs(self, grey: np.ndarray, boxes: Detections
                         ) -> tuple[Detections, dict[int, int]]:
        """The tile boxes not known already to be read, but for those lying on a back
        set apart before and looking as it did (that back, unread): the boxes, and
        which back each box found on one lies on (back index -> box)."""
        on_back: dict[int, int] = {}  # back index -> the box found on it
        for i, corners in enumerate(boxes.corners):
            k = self.known_back(grey, corners)
            if k is not None and k not in on_back:
                on_back[k] = i
        boxes = boxes[np.array([i for i in range(len(boxes)) if i not in set(on_back.values())],
                               dtype=np.int64)]
        return boxes, on_back

    def _hold_backs(self, grey: np.ndarray, on_back: dict[int, int],
                    backs: Sequence[TileReading]) -> None:
        """The backs held become those found again and those just set apart."""
        self.counts.backs_read += len(backs)
        self.counts.backs_reused += len(on_back)
        self.back_looks = ([self.back_looks[k] for k in on_back]
                           + [tile_look(grey, np.asarray(b.corners)) for b in backs])
        self.backs = [self.backs[k] for k in on_back] + list(backs)

    def _off_backs(self, grey: np.ndarray, markers: Detections) -> Detections:
        """``markers`` but those lying on a back held (a back the detector called a marker)."""
        if not self.backs or not len(markers):
            return markers
        return markers[~markers_on_backs(grey, markers.corners,
                                         [np.asarray(b.corners) for b in self.backs])]

    def _missed(self, still: list[bool], unseen: list[int], again: list[int],
                looked: Sequence[TileReading]) -> list[_Held]:
        """Known tiles the detector missed (``unseen``) that are still there: looking as
        they did when their table settled, or else (``again``) reading the same when
        looked at again where they lay (``looked``). A tile taken away changes the view
        and reads otherwise."""
        out = [self.held[m] for m in unseen if still[m]]
        for m, reading in zip(again, looked, strict=True):
            if sorted(reading.values) == sorted(self.held[m].reading.values):
                out.append(self.held[m])
        self.counts.tiles_kept += len(out)
        return out

    def _off_unchanged(self, fresh: list[TileReading],
                       unchanged: Callable[[np.ndarray], np.ndarray]) -> list[TileReading]:
        """``fresh`` but the new boxes (no tile held there) read with doubt that lie on
        table ``unchanged`` since it last settled."""
        new_doubted = [i for i, r in enumerate(fresh)
                       if r.uncertain and self.match(np.asarray(r.corners)) is None]
        if not new_doubted:
            return fresh
        still = unchanged(np.array([np.asarray(fresh[i].corners, np.float32)
                                    for i in new_doubted]))
        drop = {i for i, s in zip(new_doubted, still.tolist(), strict=True) if s}
        self.counts.doubts_unchanged += len(drop)
        return [r for i, r in enumerate(fresh) if i not in drop]

    def _confirm(self, fresh: list[TileReading]) -> list[_Held]:
        """Fresh readings held: one read as a known tile where it lies is that tile read
        once more (a reading the reader is unsure of is never confirmed, so that it is
        read again until it is sure or the table settles); others are new tiles."""
        out = []
        for reading in fresh:
            m = self.match(np.asarray(reading.corners))
            held = self.held[m] if m is not None else None
            if held is not None and sorted(held.reading.values) == sorted(reading.values):
                agree = 1 if reading.uncertain else held.agree + 1
                out.append(_Held(reading, agree, held.settled, held.look, held.track_id))
            else:
                out.append(_Held(reading, track_id=self._next_id))
                self._next_id += 1
        return out

    @staticmethod
    def _deduplicated(held: list[_Held]) -> list[_Held]:
        """A fresh box snapped onto a known tile is that tile: the known one stays."""
        return [held[i] for i in distinct([h.reading for h in held])] if held else held
