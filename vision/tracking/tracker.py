"""Following a game: frames in, settled tables and the rules engine's alerts out.

A :class:`Tracker` reads frames from a camera index, a video file or a folder
of images (``vision.tracking.frame_source``) and yields :data:`vision.events.TrackerEvent` s:

- frames in which the view moves (a hand laying a tile, a lamp being
  switched) are skipped, and so are still frames in which one large region
  reaching in from the edge of the view differs from the last settled view
  (a hand resting over the table); frames are compared small, each colour
  normalised and their smooth shading removed, so that light that changes
  slowly or all at once is not taken for a hand (``vision.tracking.view_change``);
- a still frame is read (tiles, then the table) — but not when it shows the
  view of the last settled table (or of the bare table, once the known table
  learned it); a reader that finds boxes and reads them
  apart (``vision.reading.reader_interface.TileSource``) reads only the boxes the
  tracker's memory of the tiles does not know already (``vision.tracking.tile_memory``:
  tiles that have not moved and were read the same way twice, tiles of a
  settled table that look as they did then, backs of the boneyard set apart
  before), so that a tile hard to read is not read differently at every move
  (each new reading of an old tile would be a tile taken away and another laid); the
  tiles the last settled table showed without doubt keep, in the table read, the pips
  a new tile laid on them does not show (``reconstruct(..., settled=...)``);
- a table is *settled* when the same reading wins a vote over the still
  frames of a short while (``vision.tracking.table_vote``), but not one that takes a
  tile away from the settled table while a hand may cover it, or while that tile lies
  on no train (a train read broken, for up to ``BROKEN_WAIT_S``); each settled table that
  differs from the last is passed to the round's :class:`engine.Referee`
  (``unseen_moves``: after a breach it tells, it follows a move the camera missed where
  the next table bears that out), whose alerts become events;
- a camera that cannot be opened, stops delivering frames or disappears gives
  a :class:`~vision.events.CameraStatus` (its reason) and a retry, never an exception;
- with ``known_table`` (and a reader that reads boxes apart) the tracker knows the
  table it watches (``vision.change.known_table``): boxes on table unchanged since it was
  bare are dropped (by the detector, before its tile check looks at them), tile-sized
  changes since the last settled table that no box covers are read as tiles, a new box
  read with doubt on table unchanged since the last settled table is no tile, and a
  bumped camera re-learns the table and says so
  (``CameraStatus`` ``MOVED``); once a table settled, the detector looks only at
  windows of the frame around what changed since the frame before
  (``vision.tracking.window_look``), and the mat is found again only when it looks
  at the whole frame; with ``marker_candidates`` a marker-sized change since the bare
  table by a tile that no box covers is a marker (the detector missed it), reported
  doubtful (``unsure-marker``);
- an alert that rests on a tile or marker read with doubt, or on whose turn a change
  is once the round showed a move it may not have seen, is marked doubtful
  (``AlertDetails.doubtful``, ``vision.tracking.alert_doubts``): to be checked, not
  believed.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Generator, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from engine import RuleSet, TableState
from engine.referee import Referee, Reread
from vision.change.known_table import KnownTable
from vision.change.table_view import tile_scale
from vision.events import (
    AlertRaised,
    CameraReason,
    CameraStatus,
    TableSettled,
    TrackerEvent,
    Uncertain,
)
from vision.models.detections import Detections
from vision.reading.reader_interface import FrameReader, TileSource
from vision.readings import TileReading, TileReadings
from vision.table import TableReading, reconstruct, with_unsure_markers
from vision.tracking.alert_doubts import SURE_MARKER, AlertDoubts
from vision.tracking.frame_source import Capture, FrameSource, frame_source
from vision.tracking.table_vote import (
    SureTracks,
    TableVote,
    breaks_a_train,
    fills_a_known_place,
    rereadings,
    same_but_doubted,
    settled_inputs,
    sure_tracks,
    takes_away,
    vote_key,
)
from vision.tracking.tile_memory import ReadCounts, TileMemory, grey_of
from vision.tracking.view_change import Still, ViewWatch, same_view
from vision.tracking.window_look import WindowLook, WindowSource

#: Whether the live tracker's reader lets the ``halves`` classifier vote on pip counts
#: (``vision.reading.count_vote``), as stills do. It is safe because the table drops other
#: boxes on the mat's hub (pieces of the engine, ``vision.table``): without that, a box
#: lying on the engine was read as a sure 9-0 starting train 1 and raised false
#: alerts. Both game settings of ``benchmarks/table.py``: 10/10 breaches found.
TRACKER_CLASSIFIES_HALVES = True

#: How long (seconds of still frames) a reading that shows a train broken (a tile gone
#: from it lying on no train) waits for the tile to be read on its train again before
#: it may settle (the tile then taken away: a tile knocked off and left there).
BROKEN_WAIT_S = 20.0


class Tracker:
    """Follow a game from ``source``; iterate to get its :data:`~vision.events.TrackerEvent` s.

    ``reader`` reads a frame: a ``TileReader`` (``TileReader(models_dir)``
    by default, made on first use), or any :class:`~vision.reading.reader_interface.TileSource`
    (its boxes read apart, so that unmoved tiles can be skipped), or any
    :class:`~vision.reading.reader_interface.FrameReader` (read whole at every still frame).
    ``settle_s`` is how long a view must stay still, ``votes``
    how many still readings a table must win (out of ``window``) to settle.
    ``retry_s`` is the pause between attempts to reach a camera and
    ``max_retries`` how many attempts in a row (``None``: keep trying).
    ``realtime`` plays a video file or folder at its frame rate, as a camera would.
    ``known_table`` keeps a model of the table watched (``vision.change.known_table``) when
    the reader reads boxes apart; with it, ``windows`` looks for tiles only where a still
    frame changed when the reader can look at part of a frame
    (``vision.tracking.window_look``), and ``marker_candidates`` adds the markers the
    detector missed where the table changed (each reported ``unsure-marker``).
    """

    def __init__(self, source: str | int | Path, players: int, rules: RuleSet | None = None, *,
                 reader: FrameReader | None = None, models_dir: str | Path = "models",
                 first: int = 0, engine: int | None = None, mat: bool = True,
                 settle_s: float = 0.4, votes: int = 3, window: int = 5,
                 retry_s: float = 2.0, max_retries: int | None = None,
                 opener: Callable[[Any], Capture] | None = None,
                 sleep: Callable[[float], None] = time.sleep,
                 realtime: bool = False, known_table: bool = True,
                 windows: bool = True, marker_candidates: bool = True) -> None:
        self.source = frame_source(source, opener)
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
        #: Whether the table watched is known (``vision.change.known_table``), and the model of it
        #: (made when a reader that reads boxes apart follows a source).
        self.use_known_table = known_table
        self.known: KnownTable | None = None
        #: The view of the last still frame read bare while the bare table is learned: the
        #: same view again is the bare table again, taken without a read (on a busy cloth a
        #: whole read of a bare frame costs a second on 2 cores).
        self._bare_view: np.ndarray | None = None
        #: Whether still frames are looked at only where they changed, once the table is
        #: known (``vision.tracking.window_look``), and that look (made with the known table
        #: when the reader can look at part of a frame).
        self.use_windows = windows
        self.windows: WindowLook | None = None
        #: Whether the known table adds markers the detector missed where a marker-sized
        #: region changed by a tile (``KnownTable.marker_candidates``; reported doubtful).
        self.use_marker_candidates = marker_candidates
        #: The round's referee: every table settled so far, judged.
        self.referee = Referee(self.rules, players, first, engine, unseen_moves=True)
        #: Which of its alerts rest on doubt (and whether its turns may have slipped).
        self.alert_doubts = AlertDoubts()
        #: The reading the last settled table came from.
        self.settled_reading: TableReading | None = None
        #: When a reading first showed a train of the settled table broken (None: since it
        #: settled, none has).
        self._broken_since: float | None = None
        #: The tiles the last settled table showed without doubt, by track id (the ids
        #: of this video's tile memory).
        self._sure: SureTracks = {}
        self.frames = 0
        self.reads = 0
        #: What reading took and saved: tiles read and reused, tiles the detector missed
        #: kept, backs of the boneyard set apart and found again unread.
        self.counts = ReadCounts()

    @property
    def tiles_read(self) -> int:
        return self.counts.tiles_read

    @property
    def tiles_reused(self) -> int:
        return self.counts.tiles_reused

    @property
    def tiles_kept(self) -> int:
        return self.counts.tiles_kept

    @property
    def backs_read(self) -> int:
        return self.counts.backs_read

    @property
    def backs_reused(self) -> int:
        return self.counts.backs_reused

    @property
    def settled(self) -> TableState | None:
        """The last settled table."""
        return None if self.settled_reading is None else self.settled_reading.table

    @property
    def reader(self) -> FrameReader:
        if self._reader is None:
            from vision.reading.reader import TileReader

            self._reader = TileReader(self.models_dir, max_value=self.rules.set,
                                      classify_halves=TRACKER_CLASSIFIES_HALVES)
        return self._reader

    # -- reading one still frame ---------------------------------------------------

    def _read(self, frame: np.ndarray, memory: TileMemory | None, still: Still
              ) -> tuple[TileReadings, Detections]:
        """Tiles and markers of a still frame: through ``memory`` (which reads only what it
        does not know) when the reader reads boxes apart, else the whole frame read."""
        if memory is not None:
            found = self._detect(frame, memory, still)
            if self.known is not None:  # phantoms on bare table out, missed tiles in
                marker_class = (memory.reader.marker_class if self.use_marker_candidates
                                else -1)
                # a tile held only while boxed is no taken place: where the detector
                # misses it again, the change it made is its candidate again
                held = memory.lasting_outlines()
                found = self.known.screen(frame, found, memory.reader.tile_class, held,
                                          marker_class)
                known = self.known
                return memory.update_with_detections(
                    frame, found, lambda c: known.unchanged_since_settled(frame, c))
            return memory.update_with_detections(frame, found)
        frame_reading = self.reader.read(frame)
        self.counts.tiles_read += len(frame_reading.tiles)
        return frame_reading.tiles, frame_reading.markers

    def _detect(self, frame: np.ndarray, memory: TileMemory, still: Still) -> Detections:
        """The detector's boxes in a still frame: in windows around what changed since the
        frame looked at before or the table settled (``vision.tracking.window_look``), once
        a table settled, else in the whole frame unless it is the frame looked at before.
        Boxes on table the known table knows bare are dropped before the detector looks at
        them (its looks cost milliseconds a box, and a checked cloth is boxed by the
        dozen)."""
        bare = None if self.known is None else self.known.bare_boxes(frame)
        if self.windows is None or self.known is None:
            return memory.reader.detect(frame, bare)
        scale = tile_scale(memory.detections.corners)
        return self.windows.detect(frame, self.known.view(frame),
                                   None if scale is None else scale[1],
                                   whole=self.settled_reading is None, changed=still.changed,
                                   bare=bare)

    def _reconstruct(self, frame: np.ndarray, tiles: TileReadings, markers: Detections,
                     mat_view: Any) -> TableReading:
        # the round's engine, once known (given, or from the first settled table)
        engine = self.referee.engine
        # a train stopping at a misplaced box is read again where it goes on
        reader = self.reader
        look = None
        if isinstance(reader, TileSource):
            def look(corners: np.ndarray) -> list[TileReading]:
                return reader.read_at(frame, corners).each()
        # a tile the settled table showed without doubt keeps its counts: a tile laid
        # on it that does not match is the one misread
        settled = settled_inputs(tiles, self._sure)
        reading = reconstruct(tiles, markers, self.players, mat_view, engine=engine, look=look,
                              settled=settled)
        if self.settled_reading is not None and fills_a_known_place(self.settled_reading,
                                                                    reading):
            # a tile the settled table showed is gone from the middle of its train: that
            # gap is a tile taken away, not one the detector missed
            reading = reconstruct(tiles, markers, self.players, mat_view, engine=engine,
                                  infer_gaps=False, look=look, settled=settled)
        if len(markers):  # markers the detector missed or scored low: doubtful
            made = (self.known.made_markers(markers.corners) if self.known is not None
                    else np.zeros(len(markers), bool))
            reading = with_unsure_markers(reading, made, markers.confidence < SURE_MARKER)
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
        view = ViewWatch(max(2, round(self.settle_s * fps)), fps)
        ballot = TableVote(self.votes, self.window)
        reader = self.reader
        memory = TileMemory(reader, self.counts) if isinstance(reader, TileSource) else None
        self._sure = {}  # a new memory's track ids
        self._know_table(memory is not None)
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
            still = view.look(frame, index)
            if still is None:
                continue
            moved = self._moved(frame, index, stamp)
            if moved is not None:
                yield moved
            if self._bare_again(still):
                self._learn_bare(frame, still, view)
                continue
            tiles, markers = self._read(frame, memory, still)
            if self.use_mat and (self.windows is None or self.windows.last.whole):
                # the mat lies where it lay unless the frame was looked at whole
                from vision.mat.hub_mat import detect_mat

                mat_view = detect_mat(frame) or mat_view
            reading = self._reconstruct(frame, tiles, markers, mat_view)
            self.reads += 1
            if self.known is not None and self.settled is None and not still.covered \
                    and self._bare(reading, tiles):
                self._learn_bare(frame, still, view)
            chosen = self._vote(reading, tiles, still, ballot, stamp)
            if chosen is None:
                continue
            view.settled(still.detail)
            self._sure = {}
            if memory is not None and vote_key(reading) == vote_key(chosen):
                # the tiles just read are its, but for counts it doubts (the vote may
                # choose an earlier reading of them): held from now on while they look so
                memory.mark_settled(grey_of(frame))
                self._sure = sure_tracks(reading, tiles)
            if self.known is not None:
                self.known.settle(frame, None if memory is None else memory.detections.corners)
            ballot.clear()
            yield from self._settle(chosen, index, stamp)

    def _know_table(self, reads_boxes: bool) -> None:
        """Keep the known table (and the look at only what changed) when the reader reads
        boxes apart."""
        if reads_boxes and self.use_known_table and self.known is None:
            self.known = KnownTable()
        reader = self.reader
        if self.known is not None and self.use_windows and isinstance(reader, WindowSource):
            self.windows = WindowLook(reader)

    def _moved(self, frame: np.ndarray, index: int, stamp: float) -> CameraStatus | None:
        """Whether the camera was bumped (the table is then learned again)."""
        bump = None if self.known is None else self.known.bumped(frame)
        if bump is None:
            return None
        if self.windows is not None:
            self.windows.forget()
        dx, dy = bump.shift
        return CameraStatus(CameraReason.MOVED, f"the camera moved ({dx:+.0f}, {dy:+.0f} px): "
                            f"the table is learned again", index, stamp)

    def _learn_bare(self, frame: np.ndarray, still: Still, view: ViewWatch) -> None:
        """``frame`` (seen as ``still``) shows the bare table: the known table learns it."""
        assert self.known is not None
        knew = self.known.knows_empty
        self.known.see_empty(frame)
        self._bare_view = still.detail
        if not knew and self.known.knows_empty:  # the bare table just learned: read
            view.settled(still.detail)  # again once it changes, not every frame

    def _bare_again(self, still: Still) -> bool:
        """Whether ``still`` shows the view of the last frame read bare, unchanged and
        uncovered, while the bare table is still being learned (before any table settled)."""
        known, seen = self.known, self._bare_view
        return (known is not None and seen is not None and not known.knows_empty
                and self.settled is None and not still.covered
                and same_view(seen, still.detail))

    def _bare(self, reading: TableReading, tiles: TileReadings) -> bool:
        """Whether a still frame read before the first table settled shows the bare table:
        no engine double read in it when the round's engine is told (a printed domino
        can make a table of its own without the mat), else no table read."""
        engine = self.referee.engine
        if engine is None:
            return reading.table is None
        return not any(sorted(t.values) == [engine, engine] for t in tiles.each())

    def _vote(self, reading: TableReading, tiles: TileReadings, still: Still,
              ballot: TableVote, stamp: float) -> TableReading | None:
        """The table that settles with ``reading`` (of ``tiles``, read at ``stamp``), if one
        does (and is news).

        A reading that takes a tile away from the settled table does not vote while a
        hand may cover it, nor while that tile lies on no train (a train read broken: a
        box missed or slipped where it goes on) for up to ``BROKEN_WAIT_S``.
        """
        if reading.table is None:
            return None
        if self.settled is not None:
            if still.covered and takes_away(self.settled, reading.table):
                return None
            if breaks_a_train(self.settled, reading, tiles.values):
                if self._broken_since is None:
                    self._broken_since = stamp
                if stamp - self._broken_since < BROKEN_WAIT_S:
                    return None
        chosen = ballot.cast(reading)
        if chosen is None or (self.settled_reading is not None
                              and same_but_doubted(self.settled_reading, chosen)):
            return None  # no winner yet, or the settled table, a doubtful count read otherwise
        return chosen

    def _settle(self, chosen: TableReading, index: int, stamp: float) -> Iterator[TrackerEvent]:
        """The events of a newly settled table: it, what it left unresolved, its alerts."""
        assert chosen.table is not None
        fixes: Reread = {}
        if self.settled_reading is not None and self.referee.started:
            fixes = rereadings(self.settled_reading, chosen)
        before = self.settled_reading
        self.settled_reading = chosen
        self._broken_since = None
        # earlier tables showed re-read tiles as first read: the referee judges the
        # game again as if they had been read so all along (their alerts were given)
        self.referee.reread(fixes)
        missed = self.referee.moves_missed
        ruling = self.referee.settle(chosen.table)
        yield TableSettled(chosen.table, ruling.to_move, frame=index, time_s=stamp,
                           reading=chosen)
        for unsure in chosen.uncertainties:
            yield Uncertain(unsure.message, index, stamp)
        if self.referee.moves_missed > missed:
            yield Uncertain("the turns go on as if the camera missed a move before this "
                            "one: the alert that came before it may be wrong", index, stamp)
        for (owner, k), (was, got) in sorted(fixes.items(), key=str):
            yield Uncertain(f"tile {k} of train {owner}, read {was[0]}-{was[1]} before, is "
                            f"{got[0]}-{got[1]}: read again", index, stamp)
        doubts = self.alert_doubts.marks(ruling.alerts, chosen, before)
        for (alert, details), doubtful in zip(ruling, doubts, strict=True):
            if doubtful:  # to be checked, not believed
                details = replace(details, doubtful=True)
            yield AlertRaised(alert, details, index, stamp)
