"""Following a game: frames in, settled tables and the rules engine's alerts out.

A :class:`Tracker` reads frames from a camera index, a video file or a folder
of images and yields :data:`vision.events.TrackerEvent` s:

- frames in which the view moves (a hand laying a tile, a lamp being
  switched) are skipped, and so are still frames in which one large region
  reaching in from the edge of the view differs from the last settled view
  (a hand resting over the table); frames are compared small, each colour
  normalised and their smooth shading removed, so that light that changes
  slowly or all at once is not taken for a hand;
- a still frame is read (tiles, then the table) — but not when it shows the
  view of the last settled table, and tiles that have not moved and were
  read the same way twice keep their values without being read again; the
  tiles of a settled table keep theirs for as long as they look as they did
  then (brightness and contrast aside), so that a tile hard to read is not
  read differently at every move (each new reading of an old tile would be
  a tile taken away and another laid); the backs of tiles lying face down
  (the boneyard) are set apart by the reader once, and a box found where a
  back lay that looks as it did then is that back, unread;
- a table is *settled* when the same reading wins a vote over the still
  frames of a short while; each settled table that differs from the last is
  passed to the round's :class:`vision.referee.Referee`, whose alerts become events;
- a camera that cannot be opened, stops delivering frames or disappears gives
  a :class:`~vision.events.CameraStatus` (its reason) and a retry, never an exception.
"""

from __future__ import annotations

import contextlib
import time
from collections import Counter, deque
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from engine import RuleSet, TableState
from engine.errors import BadInputError
from vision.events import (
    AlertRaised,
    CameraReason,
    CameraStatus,
    TableSettled,
    TrackerEvent,
    Uncertain,
)
from vision.referee import Referee
from vision.table import TableReading, reconstruct

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".webp", ".tif", ".tiff")
#: Width (pixels) of the small grey copy each frame is judged on.
SMALL_WIDTH = 320
#: A pixel of the small copy whose normalised brightness moved more than this has changed.
PIXEL_CHANGE = 0.35
#: Share of changed pixels between consecutive frames above which the view is moving.
MOTION_SHARE = 0.004
#: Share of changed pixels against the last settled view above which the table is covered.
COVER_SHARE = 0.12
#: A view that stays still this many settling times while it differs from the settled
#: one is the new normal (the light or the camera changed), not a resting hand.
COVER_RESET = 4
#: Changed pixels (of the small copy) since the table settled up to which a still frame
#: is not read again: a coin laid on the table changes a dozen.
REREAD_PIXELS = 3
#: Even an unchanged view is read again this often (seconds), in case a change slipped by.
RECHECK_S = 2.0
#: Whether the live tracker's reader lets the ``halves`` classifier vote on pip counts
#: (``vision.half_votes``), as stills do. Off in session 11: on the benchmark's game
#: followed on the mat (``benchmarks/table.py``, round 1) it read a box lying on the
#: engine as a sure 9-0 that started train 1, and the tracker raised 23 false alerts
#: in 24 tables. On since the table drops other boxes on the mat's hub (pieces of the
#: engine, ``vision.table``): both game settings 10/10 breaches, no false alert.
TRACKER_CLASSIFIES_HALVES = True


# --- where frames come from -----------------------------------------------------------


Capture = Any  # cv2.VideoCapture or anything with isOpened/read/release/get


class FrameSource:
    """Frames from a camera index, a video file or a folder of images.

    ``opener`` makes the capture (``cv2.VideoCapture`` by default; tests pass
    fakes). Only a camera is retried; a file or folder simply ends.
    """

    def __init__(self, source: str | int | Path,
                 opener: Callable[[Any], Capture] | None = None) -> None:
        self.name = str(source)
        self.opener = opener or cv2.VideoCapture
        self.capture: Capture | None = None
        self.files: list[Path] = []
        self.position = 0
        #: The latest frame delivered (a still of the table, for reading hands).
        self.latest: np.ndarray | None = None
        text = str(source)
        self.target: int | Path
        if isinstance(source, int) or text.isdigit():
            self.kind, self.target = "camera", int(text)
        else:
            path = Path(text)
            if path.is_dir():
                self.kind, self.target = "folder", path
                self.files = sorted(p for p in path.iterdir()
                                    if p.suffix.lower() in IMAGE_SUFFIXES)
                if not self.files:
                    raise BadInputError(self.name, "folder holds no images")
            elif path.is_file():
                self.kind, self.target = "video", path
            else:
                raise BadInputError(self.name, "no such file, folder or camera index")

    @property
    def live(self) -> bool:
        return self.kind == "camera"

    def open(self) -> bool:
        if self.kind == "folder":
            return True
        self.close()
        target = self.target if self.kind == "camera" else str(self.target)
        try:
            capture = self.opener(target)
        except (cv2.error, OSError):
            return False
        if capture is None or not capture.isOpened():
            return False
        self.capture = capture
        return True

    def fps(self) -> float:
        if self.capture is not None:
            try:
                value = float(self.capture.get(cv2.CAP_PROP_FPS))
            except (cv2.error, TypeError, ValueError):
                value = 0.0
            if 1.0 <= value <= 240.0:
                return value
        return 10.0

    def read(self) -> np.ndarray | None:
        """The next frame, or ``None`` (end of a file or folder, or a camera that failed);
        the frame is kept as :attr:`latest`."""
        frame = self._next()
        if frame is not None:
            self.latest = frame
        return frame

    def _next(self) -> np.ndarray | None:
        if self.kind == "folder":
            from vision.images import load_image

            while self.position < len(self.files):
                path = self.files[self.position]
                self.position += 1
                try:
                    return load_image(path)
                except BadInputError:
                    continue
            return None
        if self.capture is None:
            return None
        try:
            ok, frame = self.capture.read()
        except cv2.error:
            return None
        return frame if ok and frame is not None and frame.size else None

    def close(self) -> None:
        if self.capture is not None:
            with contextlib.suppress(cv2.error):
                self.capture.release()
            self.capture = None


# --- the tracker ----------------------------------------------------------------------


def _small(frame: np.ndarray) -> np.ndarray:
    """A small copy, each colour normalised for brightness and contrast (lighting drifts).

    Colour is kept: a red pawn on a green cloth can have the cloth's grey.
    """
    h, w = frame.shape[:2]
    resized = cv2.resize(frame, (SMALL_WIDTH, max(1, round(h * SMALL_WIDTH / w))),
                         interpolation=cv2.INTER_AREA).astype(np.float32)
    small = cv2.GaussianBlur(resized, (3, 3), 0)
    if small.ndim == 2:
        small = small[..., None]
    mean = small.mean(axis=(0, 1), keepdims=True)
    std = small.std(axis=(0, 1), keepdims=True)
    return np.asarray((small - mean) / (std + 8.0), dtype=np.float32)


#: A change of this much in a pixel's chromaticity (r or g of r, g, b summing to 1) counts.
CHROMA_CHANGE = 0.04


def _detail(frame: np.ndarray, small: np.ndarray) -> np.ndarray:
    """What a lamp does not change: fine detail (``small`` without its smooth shading)
    and colour (chromaticity, scaled so that ``CHROMA_CHANGE`` counts as a change).

    Returns (h, w, 5) for a colour frame: three detail channels, then r and g.
    """
    fine = small - cv2.GaussianBlur(small, (0, 0), 6.0).reshape(small.shape)
    if frame.ndim != 3:
        return np.asarray(fine, dtype=np.float32)
    h, w = small.shape[:2]
    raw = cv2.GaussianBlur(cv2.resize(frame, (w, h), interpolation=cv2.INTER_AREA)
                           .astype(np.float32), (3, 3), 0)
    total = raw.sum(axis=2, keepdims=True) + 30.0
    chroma = raw[..., 1:] / total * (PIXEL_CHANGE / CHROMA_CHANGE)
    return np.asarray(np.concatenate([fine, chroma], axis=2), dtype=np.float32)


def _difference(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Pixels of two small copies that differ in any channel.

    Colour channels beyond the first three are compared after taking away the
    change they share across the whole view (a colour cast of the light).
    """
    d = a - b
    if d.shape[2] > 3:
        d[..., 3:] -= np.median(d[..., 3:].reshape(-1, d.shape[2] - 3), axis=0)
    return np.asarray(np.abs(d).max(axis=2) > PIXEL_CHANGE)


def _changed(a: np.ndarray, b: np.ndarray) -> float:
    """Share of pixels that changed between two small copies."""
    return float(np.mean(_difference(a, b)))


def _changed_pixels(a: np.ndarray, b: np.ndarray) -> int:
    return int(np.count_nonzero(_difference(a, b)))


def _covered(base: np.ndarray, detail: np.ndarray) -> bool:
    """Something large reaches over the table from its edge (an arm), compared with ``base``.

    Scattered change (a lamp, a shadow moving, glare) does not count: the
    changed area must be one big region touching the border of the view.
    """
    mask = _difference(base, detail)
    if float(np.mean(mask)) <= COVER_SHARE:
        return False
    grown = cv2.dilate(mask.astype(np.uint8), np.ones((5, 5), np.uint8))
    count, labels, stats, _ = cv2.connectedComponentsWithStats(grown, connectivity=8)
    h, w = mask.shape
    for k in range(1, count):
        x, y, bw, bh, area = stats[k]
        touches = x == 0 or y == 0 or x + bw >= w or y + bh >= h
        if touches and area > COVER_SHARE * h * w:
            return True
    return False


def _grey(frame: np.ndarray) -> np.ndarray:
    return frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)


def _takes_away(old: TableState, new: TableState) -> bool:
    """True when ``new`` lacks a tile or a marker that ``old`` shows."""
    if new.engine != old.engine:
        return True
    for train in old.trains:
        now = new.train(train.owner)
        if now is None:
            if train.tiles or train.marker:
                return True
            continue
        if now.tiles[:len(train.tiles)] != train.tiles or (train.marker and not now.marker):
            return True
    return False


#: At most this many tiles of the settled table may be taken for other values by a
#: later reading and still count as re-readings (more is another reading of the table).
MAX_REREADS = 2

Reread = dict[tuple[Any, int], tuple[tuple[int, int], tuple[int, int]]]


def rereadings(old: TableReading, new: TableReading) -> Reread:
    """Tiles of the settled table ``old`` that ``new`` takes for other values where they lie.

    ``(owner, k) -> (old pair, new pair)``. A tile read with doubt may be read
    otherwise once the table around it grows (a blurred open end read 3-12 is
    3-11 once a 11-11 lies against it): that is a re-reading, not a tile taken
    away and another laid. Empty when ``new`` takes a tile away, when a changed
    tile was read without doubt both times (a tile swapped for another), or
    when more than ``MAX_REREADS`` tiles changed.
    """
    if old.table is None or new.table is None:
        return {}
    out: Reread = {}
    for train in old.table.trains:
        now = new.table.train(train.owner)
        if now is None or len(now.tiles) < len(train.tiles):
            return {}
        for k, (was, got) in enumerate(zip(train.tiles, now.tiles, strict=False)):
            if sorted(was) == sorted(got):
                continue
            if not (old.doubted(train.owner, k) or new.doubted(train.owner, k)):
                return {}
            out[(train.owner, k)] = (was, got)
    return out if len(out) <= MAX_REREADS else {}


def fills_a_known_place(old: TableReading, new: TableReading) -> bool:
    """Whether ``new`` infers a tile (``inferred-tile``) where ``old`` showed one read."""
    if old.table is None or new.table is None:
        return False
    return any(new.inferred(train.owner, k) and not old.inferred(train.owner, k)
               for train in old.table.trains for k in range(len(train.tiles)))


def vote_key(reading: TableReading) -> str:
    """What a still reading votes for: the table's text, with the values of the tiles
    read with doubt left out, so that readings of a table that differ only in a
    blurred tile's count vote together (the count most read wins)."""
    table = reading.table
    if table is None:
        return ""
    parts = [str(table.engine)]
    for train in table.trains:
        tokens = [f"{train.owner}:"]
        tokens += ["?" if reading.doubted(train.owner, k) else f"{min(a, b)}-{max(a, b)}"
                   for k, (a, b) in enumerate(train.tiles)]
        tokens += [f"^{a}-{b}" for a, b in train.feet]
        if train.marker:
            tokens.append("*")
        parts.append(" ".join(tokens))
    return " | ".join(parts)


def same_but_doubted(a: TableReading, b: TableReading) -> bool:
    """Whether two readings show the same tiles and markers but for the values of tiles
    one of them doubted: the same table, read twice."""
    if a.table is None or b.table is None or a.table.engine != b.table.engine:
        return False
    for train in a.table.trains:
        other = b.table.train(train.owner)
        if other is None or len(other.tiles) != len(train.tiles) \
                or other.marker != train.marker or other.feet != train.feet:
            return False
        for k, (x, y) in enumerate(zip(train.tiles, other.tiles, strict=True)):
            if sorted(x) != sorted(y) and not (a.doubted(train.owner, k)
                                               or b.doubted(train.owner, k)):
                return False
    return len(a.table.trains) == len(b.table.trains)


@dataclass
class _Cache:
    """Tiles read before, by where they lie, and how many reads in a row agreed on them.

    ``settled`` marks the tiles of the last settled table and ``looks`` holds
    how each looked then (:func:`tile_look`): they keep their reading, unread,
    for as long as they look the same.
    """

    corners: np.ndarray = field(default_factory=lambda: np.zeros((0, 4, 2), np.float32))
    readings: list[Any] = field(default_factory=list)
    agree: list[int] = field(default_factory=list)
    settled: list[bool] = field(default_factory=list)
    looks: list[np.ndarray | None] = field(default_factory=list)
    #: The backs of tiles lying face down set apart so far (their readings) and how each
    #: looked when it was (:func:`tile_look`).
    backs: list[Any] = field(default_factory=list)
    back_looks: list[np.ndarray] = field(default_factory=list)

    def match(self, corners: np.ndarray) -> int | None:
        """Index of the cached tile lying where ``corners`` lie, if any."""
        if not self.readings:
            return None
        centre = np.asarray(corners, np.float32).mean(axis=0)
        d = np.linalg.norm(self.corners.mean(axis=1) - centre, axis=1)
        k = int(np.argmin(d))
        size = float(np.linalg.norm(self.corners[k][1] - self.corners[k][0]))
        return k if d[k] < 0.15 * max(size, 1.0) else None

    def known_back(self, grey: np.ndarray, corners: np.ndarray) -> int | None:
        """Index of the back set apart before that lies where ``corners`` lie and
        looks in ``grey`` as it did then, if any."""
        if not self.backs:
            return None
        held = np.array([np.asarray(b.corners, np.float32) for b in self.backs])
        d = np.linalg.norm(held.mean(axis=1) - np.asarray(corners, np.float32).mean(axis=0),
                           axis=1)
        k = int(np.argmin(d))
        size = float(np.linalg.norm(held[k][1] - held[k][0]))
        if d[k] >= BACK_MOVED * max(size, 1.0):
            return None
        return k if same_look(self.back_looks[k], tile_look(grey, held[k])) else None

    def settle(self, grey: np.ndarray) -> None:
        """The tiles now held are those of a settled table, seen in ``grey``."""
        self.agree = [max(a, CONFIRMED_READS) for a in self.agree]
        self.settled = [True] * len(self.readings)
        self.looks = [tile_look(grey, c) for c in self.corners]

    def unchanged(self, grey: np.ndarray) -> list[bool]:
        """For each tile held: settled, and looking in ``grey`` as it did then."""
        out = []
        for m, flag in enumerate(self.settled):
            look = self.looks[m]
            out.append(bool(flag and look is not None
                            and same_look(look, tile_look(grey, self.corners[m]))))
        return out


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


#: A tile read the same way this many times in a row, unmoved, is not read again.
CONFIRMED_READS = 2
#: A box whose centre lies within this share of a tile's width of a back set apart
#: before lies where that back lay (the detector's boxes move a pixel or two).
BACK_MOVED = 0.25


class Tracker:
    """Follow a game from ``source``; iterate to get :class:`TrackerEvent` s.

    ``reader`` reads a frame: a ``TileReader`` (``TileReader(models_dir)``
    by default, made on first use), or anything with its ``read(image)``, or
    with ``detector(image)`` and ``read_tiles(image, tiles)`` so that unmoved
    tiles can be skipped. ``settle_s`` is how long a view must stay still, ``votes``
    how many still readings a table must win (out of ``window``) to settle.
    ``retry_s`` is the pause between attempts to reach a camera and
    ``max_retries`` how many attempts in a row (``None``: keep trying).
    ``realtime`` plays a video file or folder at its frame rate, as a camera would.
    """

    def __init__(self, source: str | int | Path, players: int, rules: RuleSet | None = None, *,
                 reader: Any = None, models_dir: str | Path = "models",
                 first: int = 0, engine: int | None = None, mat: bool = True,
                 settle_s: float = 0.4, votes: int = 3, window: int = 5,
                 retry_s: float = 2.0, max_retries: int | None = None,
                 opener: Callable[[Any], Capture] | None = None,
                 sleep: Callable[[float], None] = time.sleep,
                 realtime: bool = False) -> None:
        self.source = FrameSource(source, opener)
        self.players = players
        self.rules = rules or RuleSet.preset("standard")
        self._reader = reader
        self.models_dir = models_dir
        self.first = first
        self.engine = engine
        self.use_mat = mat
        self.settle_s = settle_s
        self.votes = votes
        self.window = window
        self.retry_s = retry_s
        self.max_retries = max_retries
        self.sleep = sleep
        #: Play a recording at its own frame rate (as a camera would deliver it)
        #: rather than as fast as frames can be read: the companion's demo.
        self.realtime = realtime
        #: The round's referee: every table settled so far, judged.
        self.referee = Referee(self.rules, players, first, engine)
        #: The reading the last settled table came from.
        self.settled_reading: TableReading | None = None
        self.frames = 0
        self.reads = 0
        self.tiles_read = 0
        self.tiles_reused = 0
        #: Confirmed tiles the detector missed, kept because they read the same again.
        self.tiles_kept = 0
        #: Backs of tiles lying face down set apart by a reading, and found again unread.
        self.backs_read = 0
        self.backs_reused = 0

    @property
    def settled(self) -> TableState | None:
        """The last settled table."""
        return None if self.settled_reading is None else self.settled_reading.table

    @property
    def reader(self) -> Any:
        if self._reader is None:
            from vision.reader import TileReader

            self._reader = TileReader(self.models_dir, max_value=self.rules.set,
                                      classify_halves=TRACKER_CLASSIFIES_HALVES)
        return self._reader

    # -- reading one still frame ---------------------------------------------------

    def _read(self, frame: np.ndarray, cache: _Cache) -> tuple[Any, Any]:
        """Tiles and markers of a still frame, reusing the tiles known already.

        A tile of the last settled table that looks as it did then keeps its
        reading without being read again, and so does a tile not moved since it
        was read the same way ``CONFIRMED_READS`` times in a row.
        """
        reader = self.reader
        detector = getattr(reader, "detector", None)
        read_tiles = getattr(reader, "read_tiles", None)
        if detector is None or read_tiles is None:
            frame_reading = reader.read(frame)
            self.tiles_read += len(frame_reading.tiles)
            return frame_reading.tiles, frame_reading.markers
        grey = _grey(frame)
        still = cache.unchanged(grey)

        def known(m: int) -> bool:
            return still[m] or (cache.agree[m] >= CONFIRMED_READS and not cache.settled[m])

        found = getattr(reader, "detect", detector)(frame)
        tile_class = getattr(reader, "tile_class", 0)
        marker_class = getattr(reader, "marker_class", 1)
        tiles_found = found[found.class_id == tile_class]
        if getattr(reader, "join_fragments", False) and len(tiles_found):
            # pieces of one tile are that tile before they are matched to known tiles
            from vision.fragments import join_fragments

            tiles_found = join_fragments(tiles_found)
        # markers sure enough to take from one look (a faint one needs a second look,
        # which a video frame does not get). Hollow markers are not dropped here: on the
        # table benchmark's 1280x720 mat video (markers about 11 px) that raised false
        # alerts (5.8 per 100 moves, against 0.0)
        floor = float(getattr(reader, "marker_threshold", 0.0))
        markers = found[(found.class_id == marker_class) & (found.confidence > floor)]
        matches = [cache.match(c) for c in tiles_found.corners]
        keep = [i for i, m in enumerate(matches) if m is not None and known(m)]
        fresh_rows = [i for i in range(len(matches)) if i not in set(keep)]
        both = getattr(reader, "read_tiles_and_backs", None)
        # a back of the boneyard seen before, where it lay and looking as it did, is
        # that back: not read again (a tile turned face up there looks otherwise)
        held_backs: dict[int, int] = {}  # back index -> the box found on it
        if both is not None and cache.backs:
            for i in fresh_rows:
                k = cache.known_back(grey, tiles_found.corners[i])
                if k is not None and k not in held_backs:
                    held_backs[k] = i
            on_backs = set(held_backs.values())
            fresh_rows = [i for i in fresh_rows if i not in on_backs]
        fresh, backs = [], []
        if fresh_rows:
            fresh_boxes = tiles_found[np.array(fresh_rows, dtype=np.int64)]
            fresh, backs = (both(frame, fresh_boxes) if both is not None
                            else (read_tiles(frame, fresh_boxes), []))
        self.backs_read += len(backs)
        self.backs_reused += len(held_backs)
        cache.back_looks = ([cache.back_looks[k] for k in held_backs]
                            + [tile_look(grey, np.asarray(b.corners)) for b in backs])
        cache.backs = [cache.backs[k] for k in held_backs] + list(backs)
        if cache.backs and len(markers):  # a back of the boneyard the detector called a marker
            from vision.face_down import markers_on_backs

            markers = markers[~markers_on_backs(grey, markers.corners,
                                                [np.asarray(b.corners) for b in cache.backs])]
        self.tiles_read += len(fresh)
        self.tiles_reused += len(keep)
        held: list[tuple[Any, int, bool, np.ndarray | None]] = []  # reading, agree, settled, look

        def carry(m: int, reading: Any = None, agree: int | None = None) -> None:
            held.append((cache.readings[m] if reading is None else reading,
                         cache.agree[m] if agree is None else agree,
                         cache.settled[m], cache.looks[m]))

        for i in keep:
            m = matches[i]
            assert m is not None
            carry(m)
        # A known tile the detector missed this time is still there if it looks as it
        # did when its table settled, or else if it reads the same when looked at again
        # where it lay. A tile taken away changes the view and reads otherwise.
        seen = {m for m in matches if m is not None}
        unseen = [m for m in range(len(cache.readings))
                  if m not in seen and (still[m] or cache.agree[m] >= CONFIRMED_READS)]
        for m in [m for m in unseen if still[m]]:
            carry(m)
            self.tiles_kept += 1
        unseen = [m for m in unseen if not still[m]]
        read_at = getattr(reader, "read_at", None)
        if read_at is not None and unseen:
            again = read_at(frame, np.array([cache.corners[m] for m in unseen]))
            for m, reading in zip(unseen, again, strict=True):
                if sorted(reading.values) == sorted(cache.readings[m].values):
                    carry(m)
                    self.tiles_kept += 1
        for reading in fresh:
            m = cache.match(np.asarray(reading.corners))
            if m is not None and sorted(cache.readings[m].values) == sorted(reading.values):
                # the same tile read the same; a reading the reader is unsure of is never
                # confirmed, so that it is read again until it is sure or the table settles
                sure = not getattr(reading, "uncertain", False)
                carry(m, reading, cache.agree[m] + 1 if sure else 1)
            else:
                held.append((reading, 1, False, None))
        if held and all(hasattr(h[0], "corners") for h in held):
            # a fresh box snapped onto a known tile is that tile: keep the known one
            from vision.reader import distinct

            held = [held[i] for i in distinct([h[0] for h in held])]
        tiles = [h[0] for h in held]
        cache.corners = (np.array([np.asarray(t.corners, np.float32) for t in tiles])
                         if tiles else np.zeros((0, 4, 2), np.float32))
        cache.readings = tiles
        cache.agree = [h[1] for h in held]
        cache.settled = [h[2] for h in held]
        cache.looks = [h[3] for h in held]
        return tiles, markers

    def _reconstruct(self, frame: np.ndarray, tiles: Any, markers: Any,
                     mat_view: Any) -> TableReading:
        # the round's engine, once known (given, or from the first settled table)
        engine = self.referee.engine
        # a train stopping at a misplaced box is read again where it goes on
        read_at = getattr(self.reader, "read_at", None)
        look = None if read_at is None else (lambda corners: read_at(frame, corners[None])[0])
        reading = reconstruct(tiles, markers, self.players, mat_view, engine=engine, look=look)
        if self.settled_reading is not None and fills_a_known_place(self.settled_reading,
                                                                    reading):
            # a tile the settled table showed is gone from the middle of its train: that
            # gap is a tile taken away, not one the detector missed
            reading = reconstruct(tiles, markers, self.players, mat_view, engine=engine,
                                  infer_gaps=False, look=look)
        return reading

    # -- the loop ----------------------------------------------------------------------

    def __iter__(self) -> Iterator[TrackerEvent]:
        return self.events()

    def events(self) -> Iterator[TrackerEvent]:
        src = self.source
        attempts = 0
        t0 = time.monotonic()

        def status(reason: CameraReason, message: str) -> CameraStatus:
            return CameraStatus(reason, message, self.frames, time.monotonic() - t0)

        while True:
            if not src.open():
                attempts += 1
                if not src.live:
                    yield status(CameraReason.UNREADABLE,
                                 f"cannot open {src.name}: not a video this build can read")
                    return
                if self.max_retries is not None and attempts > self.max_retries:
                    yield status(CameraReason.GAVE_UP,
                                 f"camera {src.name} could not be opened; giving up")
                    return
                yield status(CameraReason.RETRYING, f"camera {src.name} cannot be opened; "
                             f"retrying in {self.retry_s:g} s")
                self.sleep(self.retry_s)
                continue
            yield status(CameraReason.OPENED, f"reading {src.kind} {src.name}")
            attempts = 0
            lost = yield from self._follow(src, t0)
            src.close()
            if not lost:
                yield status(CameraReason.ENDED, f"end of {src.kind} {src.name}")
                return
            yield status(CameraReason.LOST, f"camera {src.name} stopped delivering frames; "
                         f"reconnecting in {self.retry_s:g} s")
            self.sleep(self.retry_s)

    def _follow(self, src: FrameSource, t0: float) -> Generator[TrackerEvent, None, bool]:
        """Read frames until the source ends; the generator's value says it was lost."""
        fps = src.fps()
        settle_frames = max(2, round(self.settle_s * fps))
        prev: np.ndarray | None = None
        base: np.ndarray | None = None  # the view when the table last settled
        still = 0
        checked = 0
        votes: deque[tuple[str, str]] = deque(maxlen=self.window)  # (vote key, text)
        tables: dict[str, TableReading] = {}
        cache = _Cache()
        mat_view = None
        misses = 0
        start = time.monotonic()
        first = self.frames
        while True:
            if self.realtime and not src.live:
                ahead = start + (self.frames - first) / fps - time.monotonic()
                if ahead > 0:
                    self.sleep(ahead)
            frame = src.read()
            if frame is None:
                misses += 1
                if src.live and misses < 3:
                    continue
                return src.live
            misses = 0
            self.frames += 1
            index = self.frames - 1
            stamp = index / fps if not src.live else time.monotonic() - t0
            small = _small(frame)
            moving = prev is not None and (prev.shape != small.shape
                                           or _changed(prev, small) > MOTION_SHARE)
            prev = small
            if moving:
                still = 0
                continue
            still += 1
            detail = _detail(frame, small)
            covered = False
            if base is not None and base.shape == detail.shape and _covered(base, detail):
                # Something large differs from the settled view: a hand resting over the
                # table, or the light or the camera changed. Its reading may add to the
                # table but not take anything away (what a hand would hide).
                covered = still < COVER_RESET * settle_frames
                if not covered:
                    base = None  # still for long: the view itself changed
            if still < settle_frames:
                continue
            if base is not None and base.shape == detail.shape \
                    and _changed_pixels(base, detail) <= REREAD_PIXELS \
                    and index - checked < RECHECK_S * fps:
                continue  # nothing changed since the table last settled: nothing to read
            checked = index
            if self.use_mat:
                from vision.mat import detect_mat

                mat_view = detect_mat(frame) or mat_view
            tiles, markers = self._read(frame, cache)
            reading = self._reconstruct(frame, tiles, markers, mat_view)
            self.reads += 1
            if reading.table is None:
                continue
            if covered and self.settled is not None and _takes_away(self.settled, reading.table):
                continue
            key, exact = vote_key(reading), reading.table.text()
            votes.append((key, exact))
            tables[exact] = reading
            winner, count = Counter(k for k, _ in votes).most_common(1)[0]
            if count < self.votes:
                continue
            # of the readings that voted for it, the one read most often (the latest of equals)
            texts = Counter(e for k, e in votes if k == winner)
            top = max(texts.values())
            pick = [e for k, e in votes if k == winner and texts[e] == top][-1]
            chosen = tables[pick]
            assert chosen.table is not None
            if self.settled_reading is not None and same_but_doubted(self.settled_reading,
                                                                     chosen):
                continue  # the settled table, a doubtful count read otherwise
            base = detail
            if exact == pick:  # the tiles just read are the settled table's
                cache.settle(_grey(frame))
            votes.clear()
            yield from self._settle(chosen, index, stamp)

    def _settle(self, chosen: TableReading, index: int, stamp: float) -> Iterator[TrackerEvent]:
        """The events of a newly settled table: it, what it left unresolved, its alerts."""
        assert chosen.table is not None
        fixes: Reread = {}
        if self.settled_reading is not None and self.referee.started:
            fixes = rereadings(self.settled_reading, chosen)
        self.settled_reading = chosen
        # earlier tables showed re-read tiles as first read: the referee judges the
        # game again as if they had been read so all along (their alerts were given)
        self.referee.reread(fixes)
        ruling = self.referee.settle(chosen.table)
        yield TableSettled(chosen.table, ruling.to_move, frame=index, time_s=stamp,
                           reading=chosen)
        for unsure in chosen.uncertainties:
            yield Uncertain(unsure.message, index, stamp)
        for (owner, k), (was, got) in sorted(fixes.items(), key=str):
            yield Uncertain(f"tile {k} of train {owner}, read {was[0]}-{was[1]} before, is "
                            f"{got[0]}-{got[1]}: read again", index, stamp)
        for alert, details in ruling:
            yield AlertRaised(alert, details, index, stamp)
