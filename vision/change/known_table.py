"""The table a fixed camera watches, known: the bare table and the last settled one.

A :class:`KnownTable` keeps two pictures of the table, each a small copy of a
frame in which light does not count (:func:`table_view`: every colour
normalised for brightness and contrast, smooth shading taken away, colour kept
as chromaticity with the light's cast taken out, as ``vision.tracking.view_change``
compares frames):

- the **empty table** (cloth, mat, hub, props), learned from the first still
  frames before the round's first table settled in which no engine was read,
  as the mean and spread of every pixel, and kept up to date where the table
  stays bare;
- the **last settled table**, the frame each table settled on, kept whole too.

From them, for each still frame (:meth:`KnownTable.screen`):

- a box the detector finds where the view has not changed since the table was
  known empty is not a tile (the cloth's pattern, the mat's print, a knot in
  the wood, a printed picture of a domino) and is dropped: by the detector, before
  its tile check looks at it (:meth:`KnownTable.bare_boxes`), and here;
- a region that changed since the last settled table, is not a shadow (darker
  with its colour unchanged) and has a tile's size and shape (the scale from
  the tiles already known) is a tile candidate even where the detector found
  none: its oriented rectangle is fitted on the change in the full-resolution
  frame (``vision.change.tile_fit``) and it is added as a tile box, to be read there;
  not where a tile of the last settled table lay (a change there is that tile taken
  away or moved, not a tile laid);
- a region changed since the table was bare that no box covers, of a marker's
  size and shape (a coin, a pawn, a toy train: a fifth to most of a tile's
  area, neither a sliver nor longer than a tile), changed in brightness or colour
  too (cloth hemmed in by tiles changes in detail alone: ``MARKER_TONED``), lying
  by a tile (a train's end) and alone (two within ``MARKERS_APART`` are pieces of
  one larger change), is a marker candidate even where the detector found none: it
  stays one while the marker lies there, and the table's reading decides whose it
  is. Marker candidates are looked for before tile candidates (a coin or toy train
  laid since the last settled table is long enough for a tile candidate too), and one
  whose change since the last settled table is longer than any marker
  (``MARKER_LONGEST``) is a tile candidate after all (a tile the detector missed,
  pale on a pale cloth, changes in pieces the size of a marker), unless the tile
  fitted there would lie on a tile found surely (``SURE_BOX``; tiles do not lie on
  one another: that is a marker set on beyond a tile laid where it stood, changed
  together with the tile's end);
- a box lying on table unchanged since the last settled table
  (:meth:`KnownTable.unchanged_since_settled`, the same bound against the settled
  view) is no tile laid since: the tracker's tile memory drops such a new box the
  reader reads with doubt;
- a view that shifted as a whole (:meth:`KnownTable.bumped`, phase correlation
  against the last settled table) is a bumped camera: the empty table is moved
  with it and the table learned again from the new view.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.change.channels import channel_max, channel_mean
from vision.change.table_view import (
    VIEW_WIDTH,
    TableView,
    box_change,
    changed_mask,
    covered_mask,
    polygon_patch,
    shadow_mask,
    table_view,
    tile_scale,
    tone_changed,
)
from vision.change.tile_fit import disc, fit_tile
from vision.models.crops import order_corners
from vision.models.detections import Detections
from vision.models.onnx_models import BareBoxes

#: A box lies on unchanged table when its detail moved less than this share of the
#: bare table's own detail there (:func:`box_change`). Measured on painted tables
#: (five surfaces, with and without the mat, exposure 0.6-1.25, noise, a shadow):
#: real tiles 0.46 and up, bare cloth 0.24 at most, printed dominoes 0.12
#: (``benchmarks/results/sequences.json``).
UNCHANGED_BELOW = 0.3
#: A box on bare table that overlaps a box kept by this share of the smaller is kept.
OVERLAP_KEPT = 0.3
#: A box is judged on the part of it the bare table is known at (a photo of the bare
#: table shot by hand frames the table a little otherwise) when that is at least this
#: share of it; else it is kept.
SEEN_SHARE = 0.5
#: Still frames without a table averaged into the empty table before it is used.
EMPTY_FRAMES = 2
#: Where the table stayed bare (``ADAPT_CLEAR`` small pixels from any change), the empty
#: table moves this far towards each settled view (light that drifts over the evening).
EMPTY_ADAPT = 0.25
ADAPT_CLEAR = 11
#: A tile candidate's changed area (of the small copy) lies within these factors of a
#: tile's (``vision.change.tile_fit`` then fits it in the full frame).
CANDIDATE_AREA = (0.1, 2.0)
#: A candidate's confidence as a detection (the reader's own look decides the rest).
CANDIDATE_CONFIDENCE = 0.3
#: A tile box the detector scores at least this is a tile found surely: no tile fitted
#: to a marker candidate lies on one (a box scored lower may be junk on a checked
#: cloth, over the very tile the detector missed).
SURE_BOX = 0.7
#: A marker candidate's changed area lies within these shares of a tile's area, its
#: oriented outline no longer than ``MARKER_LONG`` of a tile's length and no narrower than
#: ``MARKER_SHORT`` of its width (a coin 23 mm, a pawn 18 mm, a toy train 40 by 18 mm,
#: against a 48 by 24 mm tile), and its centre within ``MARKER_REACH`` tile lengths of a
#: tile's centre (markers lie at a train's end or beside its last tile; an empty train's
#: at its slot, up to about 3.8 tile lengths from the engine). A toy train seen from
#: above with its height and shadow changes as much as a tile's area (1.04 of it on the
#: painted rounds; a tile, with its rim, 1.2 or more): the length tells them apart.
MARKER_AREA = (0.15, 1.1)
#: At least this share of a marker candidate changed in brightness or colour too
#: (``tone_changed``): cloth hemmed in by tiles changes in detail alone.
MARKER_TONED = 0.25
MARKER_LONG = 1.0
MARKER_SHORT = 0.45
MARKER_REACH = 4.0
#: A marker candidate whose change in the full frame (as a tile candidate's is fitted) is
#: at least this share of a tile long is a tile the detector missed: the longest marker,
#: a toy train, is 0.83 of one; a tile with its raised side 1.0-1.2 (a pale tile on a
#: pale cloth, changed in part, can be shorter: it stays a marker, in doubt).
MARKER_LONGEST = 0.9
#: The rest of a tile of which a marker candidate is a piece lies within this many tile
#: lengths of it: its change is fitted there (a pale tile's far half on a pale square
#: changes at its pips only, away from the piece the small copy saw).
PIECE_REACH = 0.25
#: Marker candidates whose centres lie within this many tile lengths of one another are
#: pieces of one larger change (a pale tile that changed at its pips and edges), not
#: markers: each train has one marker, and trains lie apart.
MARKERS_APART = 0.75
#: The whole view shifted at least this many small pixels, and the shift is clear
#: (phase correlation's response), is a bumped camera.
BUMP_PX = 1.5
BUMP_RESPONSE = 0.15

@dataclass(frozen=True)
class Bump:
    """The camera moved: the view shifted by ``shift`` frame pixels (x, y)."""

    shift: tuple[float, float]


class KnownTable:
    """The table a fixed camera watches (see the module's notes).

    Feed it the still frames: :meth:`see_empty` those in which no table was read
    before the first table settled, :meth:`settle` each frame a table settled on;
    ask :meth:`screen` for each still frame's detections and :meth:`bumped` whether
    the camera moved.
    """

    def __init__(self, width: int = VIEW_WIDTH, slack: int = 0) -> None:
        self.width = width
        #: Pixels (small size) a box's detail may lie off the bare table's and still match
        #: it (:func:`box_change`): 0 for a fixed camera.
        self.slack = slack
        #: Detail two views of the bare table differ by anyway (:func:`box_change`'s
        #: ``noise``): 0 for a fixed camera's averaged frames.
        self.noise = 0.0
        #: The empty table: the mean view of the bare frames, and each pixel's spread.
        self.empty: TableView | None = None
        self.spread: np.ndarray | None = None
        #: Bare frames seen so far (the empty table is used from ``EMPTY_FRAMES`` on).
        self.empty_seen = 0
        #: Where the empty table is known (a bumped camera shows table it never saw bare).
        self.known_area: np.ndarray | None = None
        #: Outlines (K, 4, 2, frame pixels) where no box is taken for bare table however
        #: little it changed the view: the engine's outline printed on the mat, where a
        #: white engine (a double blank above all) looks much like the print.
        self.kept: np.ndarray = np.zeros((0, 4, 2), np.float32)
        self._sum: list[TableView] = []
        #: The last settled table: its view, the frame in grey (full size), and the
        #: outlines of its tiles (K, 4, 2, frame pixels).
        self.settled_view: TableView | None = None
        self.settled_grey: np.ndarray | None = None
        self.settled_tiles: np.ndarray = np.zeros((0, 4, 2), np.float32)
        #: Boxes dropped (by :meth:`screen`, and in each of the detector's looks that asked
        #: :meth:`bare_boxes`), tile candidates and marker candidates added so far.
        self.dropped = 0
        self.added = 0
        self.markers_added = 0
        #: The marker candidates the last :meth:`screen` added (M, 4, 2).
        self.last_marker_candidates = np.zeros((0, 4, 2), np.float32)
        self._last: tuple[np.ndarray, TableView] | None = None

    def view(self, frame: np.ndarray) -> TableView:
        """:func:`table_view` of ``frame``, made once however often it is asked for."""
        if self._last is not None and self._last[0] is frame:
            return self._last[1]
        view = table_view(frame, self.width)
        self._last = (frame, view)
        return view

    @property
    def knows_empty(self) -> bool:
        return self.empty is not None and self.empty_seen >= EMPTY_FRAMES

    # -- learning --------------------------------------------------------------------

    def see_empty(self, frame: np.ndarray) -> None:
        """A still frame of the bare table (no table read in it, none settled yet). The
        first ``EMPTY_FRAMES`` make the bare table; later ones are not taken (a tile laid
        but not yet read must not become bare table)."""
        if self.empty_seen >= EMPTY_FRAMES:
            return
        view = self.view(frame)
        if self._sum and self._sum[0].detail.shape != view.detail.shape:
            self._sum = []
        self._sum = [*self._sum, view][-8:]
        details = np.stack([v.detail for v in self._sum])
        chroma = np.stack([v.chroma for v in self._sum])
        grey = np.stack([v.grey for v in self._sum])
        self.empty = TableView(details.mean(axis=0), chroma.mean(axis=0), grey.mean(axis=0),
                               view.scale)
        self.spread = (channel_max(details.std(axis=0)) if len(self._sum) > 1
                       else np.zeros(view.grey.shape, np.float32))
        self.known_area = np.ones(view.grey.shape, bool)
        self.empty_seen = len(self._sum)

    def settle(self, frame: np.ndarray, tiles: np.ndarray | None = None) -> None:
        """A table settled on ``frame`` with its tiles at the outlines ``tiles`` (K, 4, 2;
        None: where they lay before): it is the last settled table, and where the table
        is still bare the empty table follows the light."""
        view = self.view(frame)
        self.settled_view = view
        if tiles is not None:
            self.settled_tiles = np.asarray(tiles, np.float32).reshape(-1, 4, 2)
        self.settled_grey = frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        empty = self.empty
        if empty is None or empty.detail.shape != view.detail.shape:
            return
        # well clear of anything that changed: a tile's flat face is like a flat cloth
        bare = ~cv2.dilate(changed_mask(empty, view, self.spread).astype(np.uint8),
                           disc(ADAPT_CLEAR)).astype(bool)
        a = EMPTY_ADAPT * bare.astype(np.float32)
        self.empty = TableView(empty.detail + a[..., None] * (view.detail - empty.detail),
                               empty.chroma + a[..., None] * (view.chroma - empty.chroma),
                               empty.grey + a * (view.grey - empty.grey), empty.scale)

    def forget(self) -> None:
        """Forget the table (a camera that changed resolution)."""
        self.__init__(self.width, self.slack)  # type: ignore[misc]

    # -- a bumped camera -------------------------------------------------------------

    def bumped(self, frame: np.ndarray) -> Bump | None:
        """Whether the whole view shifted since the last settled table (the camera was
        bumped); if so, the table is learned again from ``frame``: the empty table moves
        with the view (the strip it never saw bare is not known), and ``frame`` is the
        settled table's view."""
        base = self.settled_view
        if base is None:
            return None
        view = self.view(frame)
        if view.grey.shape != base.grey.shape:
            self.forget()
            return Bump((0.0, 0.0))
        a, b = _half(base.detail), _half(view.detail)
        window = cv2.createHanningWindow(a.shape[::-1], cv2.CV_32F)
        (dx, dy), response = cv2.phaseCorrelate(a, b, window)
        dx, dy = 2 * dx, 2 * dy
        if response < BUMP_RESPONSE or np.hypot(dx, dy) < BUMP_PX:
            return None
        dx, dy = _refined(channel_mean(base.detail), channel_mean(view.detail), dx, dy)
        self._move_empty(dx, dy)
        shift = np.array([dx, dy], np.float32) * np.float32(view.scale)
        self.kept = self.kept + shift
        self.settle(frame, self.settled_tiles + shift)
        return Bump((float(dx * view.scale), float(dy * view.scale)))

    def _move_empty(self, dx: float, dy: float) -> None:
        empty = self.empty
        if empty is None or self.spread is None or self.known_area is None:
            return
        h, w = empty.grey.shape
        matrix = np.array([[1.0, 0.0, dx], [0.0, 1.0, dy]], np.float32)

        def move(a: np.ndarray) -> np.ndarray:
            return np.asarray(cv2.warpAffine(a, matrix, (w, h), flags=cv2.INTER_LINEAR,
                                             borderMode=cv2.BORDER_REPLICATE))

        detail = np.dstack([move(empty.detail[..., k]) for k in range(empty.detail.shape[2])])
        chroma = np.dstack([move(empty.chroma[..., k]) for k in range(2)])
        self.empty = TableView(detail, chroma, move(empty.grey), empty.scale)
        self.spread = move(self.spread)
        area = cv2.warpAffine(self.known_area.astype(np.uint8), matrix, (w, h),
                              flags=cv2.INTER_NEAREST, borderValue=0)
        self.known_area = cv2.erode(area, np.ones((5, 5), np.uint8)).astype(bool)
        self._sum = []

    # -- screening a still frame's detections ----------------------------------------

    def box_change(self, frame_view: TableView, corners: np.ndarray,
                   since_settled: bool = False) -> np.ndarray:
        """For each box ``corners`` (N, 4, 2): how much it changed since the table was
        bare, or ``since_settled`` since the last settled table (:func:`box_change`), over
        the part of it where that table is known; ``inf`` where that is less than
        ``SEEN_SHARE`` of it."""
        out = np.full(len(corners), np.inf)
        base = self.settled_view if since_settled else self.empty
        if not self.knows_empty or base is None or base.grey.shape != frame_view.grey.shape:
            return out
        area = self.known_area if self.known_area is not None and not since_settled \
            else np.ones(base.grey.shape, bool)
        for i, c in enumerate(corners):
            (y0, x0), inside = polygon_patch(base.grey.shape, c, frame_view.scale)
            seen = inside & area[y0:y0 + inside.shape[0], x0:x0 + inside.shape[1]]
            # judged on what the bare table shows of it: a tile changes wherever it lies
            if inside.any() and seen.sum() >= SEEN_SHARE * inside.sum():
                out[i] = box_change(base, frame_view, seen, self.slack, (y0, x0),
                                    self.noise)
        return out

    def unchanged_boxes(self, frame_view: TableView, corners: np.ndarray,
                        since_settled: bool = False) -> np.ndarray:
        """For each box ``corners`` (N, 4, 2): whether it lies on table that has not
        changed since the table was known bare (and not in a :attr:`kept` outline), or
        ``since_settled`` since the last settled table (False where that is not known)."""
        out = np.asarray(self.box_change(frame_view, corners, since_settled)
                         < UNCHANGED_BELOW)
        return out if since_settled else out & ~self.in_kept(corners)

    def in_kept(self, corners: np.ndarray) -> np.ndarray:
        """For each box ``corners`` (N, 4, 2): whether its middle lies in a :attr:`kept`
        outline."""
        boxes = np.asarray(corners, np.float32).reshape(-1, 4, 2)
        out = np.zeros(len(boxes), bool)
        for outline in self.kept:
            spot = outline.reshape(-1, 1, 2).astype(np.float32)
            out |= np.array([cv2.pointPolygonTest(spot, (float(x), float(y)), False) >= 0
                             for x, y in boxes.mean(axis=1)], bool)
        return out

    def bare_boxes(self, frame: np.ndarray) -> BareBoxes | None:
        """Which boxes in ``frame`` the table known bare shows (:meth:`screen` drops them),
        for the detector to drop before it looks at them; None while the bare table is
        not known."""
        if not self.knows_empty:
            return None
        view = self.view(frame)

        def bare(corners: np.ndarray) -> np.ndarray:
            on_bare = self._on_bare(view, np.asarray(corners, np.float32))
            self.dropped += int(on_bare.sum())
            return on_bare
        return bare

    def _on_bare(self, view: TableView, corners: np.ndarray) -> np.ndarray:
        """For each box ``corners`` (N, 4, 2): whether it lies on unchanged bare table and
        overlaps no box that does not (a piece of a tile is the reader's to judge)."""
        if not len(corners):
            return np.zeros(0, bool)
        keep = ~self.unchanged_boxes(view, corners)
        return ~(keep | _on_kept(corners, keep))

    def unchanged_since_settled(self, frame: np.ndarray, corners: np.ndarray) -> np.ndarray:
        """:meth:`unchanged_boxes` since the last settled table, for boxes in ``frame``."""
        return self.unchanged_boxes(self.view(frame), np.asarray(corners, np.float32), True)

    def candidates(self, grey: np.ndarray, frame_view: TableView, taken: np.ndarray,
                   scale: tuple[float, float] | None) -> np.ndarray:
        """Outlines (M, 4, 2) of tile-sized regions changed since the last settled table
        that no box ``taken`` (K, 4, 2) covers, in the frame ``grey`` (full size) seen as
        ``frame_view``: tiles the detector missed."""
        base, grey0 = self.settled_view, self.settled_grey
        if base is None or grey0 is None or scale is None \
                or base.grey.shape != frame_view.grey.shape or grey0.shape != grey.shape:
            return np.zeros((0, 4, 2), np.float32)
        mask = changed_mask(base, frame_view) & ~shadow_mask(base, frame_view)
        s = frame_view.scale
        covered = covered_mask(mask.shape, taken, s, rim=2)
        short, long = scale
        # a pale tile on a pale cloth changes at its pips and edges only: closed, and the
        # pieces within a tile of one another taken together
        mask = cv2.morphologyEx((mask & ~covered).astype(np.uint8), cv2.MORPH_CLOSE,
                                disc(short / s / 2))
        count, _, stats, centres = cv2.connectedComponentsWithStats(mask, connectivity=8)
        small_area = short * long / (s * s)
        out = []
        for group in _groups(centres[1:], stats[1:], 0.75 * long / s):
            area = float(stats[1:][group, cv2.CC_STAT_AREA].sum())
            if not CANDIDATE_AREA[0] * small_area <= area <= CANDIDATE_AREA[1] * small_area:
                continue
            x0 = float(stats[1:][group, 0].min())
            y0 = float(stats[1:][group, 1].min())
            x1 = float((stats[1:][group, 0] + stats[1:][group, 2]).max())
            y1 = float((stats[1:][group, 1] + stats[1:][group, 3]).max())
            box = fit_tile(grey0, grey, (x0 * s, y0 * s, (x1 - x0) * s, (y1 - y0) * s), scale)
            if box is not None:
                out.append(box)
        return np.array(out, np.float32).reshape(-1, 4, 2)

    def _tiles_among(self, grey: np.ndarray, marks: np.ndarray, tiles: np.ndarray,
                     scale: tuple[float, float] | None) -> np.ndarray:
        """For each marker candidate ``marks`` (M, 4, 2) in the frame ``grey`` (full size):
        the outline of the tile fitted there when what changed since the last settled
        table is longer than any marker (``MARKER_LONGEST``) and the fit does not lie on
        one of the ``tiles`` (K, 4, 2) found surely, else zeros. (A marker set on beyond a tile
        laid where it stood changed together with that tile's end: fitted, the two make
        one tile-long change, half on the tile.)"""
        out = np.zeros((len(marks), 4, 2), np.float32)
        grey0 = self.settled_grey
        if not len(marks) or grey0 is None or scale is None or grey0.shape != grey.shape:
            return out
        reach = PIECE_REACH * scale[1]
        for i, m in enumerate(marks):
            (x0, y0), (x1, y1) = m.min(axis=0) - reach, m.max(axis=0) + reach
            box = fit_tile(grey0, grey, (float(x0), float(y0), float(x1 - x0), float(y1 - y0)),
                           scale, MARKER_LONGEST)
            if box is not None and not _overlapping(box[None], tiles)[0]:
                out[i] = box
        return out

    def marker_candidates(self, frame_view: TableView, tiles: np.ndarray, taken: np.ndarray,
                          scale: tuple[float, float] | None) -> np.ndarray:
        """Outlines (M, 4, 2) of marker-sized regions changed since the table was bare that
        no box ``taken`` (K, 4, 2) covers, each lying by one of the tile outlines
        ``tiles`` (a train's end): markers the detector missed."""
        empty, area = self.empty, self.known_area
        if not self.knows_empty or empty is None or scale is None or not len(tiles) \
                or empty.grey.shape != frame_view.grey.shape:
            return np.zeros((0, 4, 2), np.float32)
        s = frame_view.scale
        mask = changed_mask(empty, frame_view, self.spread) & ~shadow_mask(empty, frame_view)
        if area is not None:
            mask &= area
        mask &= ~covered_mask(mask.shape, taken, s, rim=2)
        short, long = scale[0] / s, scale[1] / s
        # a pale marker on a pale cloth changes in part: closed, then specks of thread out
        mask = cv2.morphologyEx(mask.astype(np.uint8), cv2.MORPH_CLOSE, disc(short / 3))
        mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, disc(short / 4))
        count, labels, stats, centres = cv2.connectedComponentsWithStats(mask, connectivity=8)
        near = np.asarray(tiles, np.float32).reshape(-1, 4, 2).mean(axis=1) / s
        toned: np.ndarray | None = None  # only once a component is marker-sized, by a tile
        out = []
        for k in range(1, count):
            if not MARKER_AREA[0] * short * long <= stats[k, cv2.CC_STAT_AREA] \
                    <= MARKER_AREA[1] * short * long:
                continue
            if np.min(np.linalg.norm(near - centres[k], axis=1)) > MARKER_REACH * long:
                continue
            inside = labels == k
            if toned is None:
                toned = tone_changed(empty, frame_view)
            if float(toned[inside].mean()) < MARKER_TONED:
                continue
            pts = np.column_stack(np.nonzero(inside)[::-1]).astype(np.float32)
            (cx, cy), (rw, rh), angle = cv2.minAreaRect(pts)
            if max(rw, rh) > MARKER_LONG * long or min(rw, rh) < MARKER_SHORT * short:
                continue
            out.append(order_corners(cv2.boxPoints(((cx * s, cy * s),
                                                    ((rw + 1) * s, (rh + 1) * s), angle))))
        marks = np.array(out, np.float32).reshape(-1, 4, 2)
        if len(marks) > 1:  # pieces of one thing (a pale tile changed at its pips), no markers
            centres = marks.mean(axis=1)
            gaps = np.linalg.norm(centres[:, None] - centres[None], axis=2)
            np.fill_diagonal(gaps, np.inf)
            marks = marks[gaps.min(axis=1) > MARKERS_APART * scale[1]]
        return marks

    def made_markers(self, corners: np.ndarray) -> np.ndarray:
        """For each marker outline ``corners`` (N, 4, 2): whether it is a marker candidate
        the last :meth:`screen` added (not the detector's)."""
        return same_outlines(corners, self.last_marker_candidates)

    def screen(self, frame: np.ndarray, found: Detections, tile_class: int,
               known: np.ndarray | None = None, marker_class: int = -1,
               marker_confidence: float = CANDIDATE_CONFIDENCE) -> Detections:
        """``found`` without the boxes lying on unchanged bare table, with tile boxes added
        where a tile-sized region changed since the last settled table and no box lies
        (``known``: outlines of the tiles held already, for the scale and as taken), and
        with ``marker_class`` (``marker_confidence``) boxes added where a marker-sized
        region changed since the table was bare by a tile and no box lies (looked for
        first: see the module's notes)."""
        view = self.view(frame)
        keep = ~self._on_bare(view, found.corners)
        self.dropped += int((~keep).sum())
        kept = found[keep] if len(found) else found
        boxed_tile = kept.class_id == tile_class
        tiles = kept.corners[boxed_tile] if len(kept) else kept.corners
        sure = (kept.corners[boxed_tile & (kept.confidence >= SURE_BOX)] if len(kept)
                else kept.corners)
        held = np.zeros((0, 4, 2), np.float32) if known is None else np.asarray(
            known, np.float32).reshape(-1, 4, 2)
        taken = np.concatenate([kept.corners, held])
        found_tiles = np.concatenate([tiles.reshape(-1, 4, 2), held])
        scale = tile_scale(found_tiles)
        marks = np.zeros((0, 4, 2), np.float32)
        if marker_class >= 0:  # first: a toy train or coin laid since the last table is
            # also long enough for a tile candidate, while a tile changes more than a marker
            marks = self.marker_candidates(view, found_tiles, taken, scale)
        grey = frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        laid = self._tiles_among(grey, marks, np.concatenate([sure.reshape(-1, 4, 2), held]),
                                 scale)
        is_tile = laid.any(axis=(1, 2))
        marks, laid = marks[~is_tile], laid[is_tile]
        self.last_marker_candidates = marks
        # where a tile of the settled table lay, a change is that tile's (taken away,
        # moved), not a tile laid
        places = np.concatenate([taken, marks, laid, self.settled_tiles])
        new = np.concatenate([laid, self.candidates(grey, view, places, scale)])
        if len(new):  # a change back to the bare table is no tile (a lamp on the mat's print)
            new = new[~self.unchanged_boxes(view, new)]
        if not len(new) and not len(marks):
            return kept
        self.added += len(new)
        self.markers_added += len(marks)
        return kept.extended(np.concatenate([new, marks]),
                             np.r_[np.full(len(new), CANDIDATE_CONFIDENCE),
                                   np.full(len(marks), marker_confidence)],
                             np.r_[np.full(len(new), tile_class),
                                   np.full(len(marks), marker_class)])


def _refined(before: np.ndarray, now: np.ndarray, dx: float, dy: float) -> tuple[float, float]:
    """The shift ``(dx, dy)`` from ``before`` to ``now`` refined to the pixel's fraction by
    ECC from that start (a checked cloth gives phase correlation more than one answer)."""
    warp = np.array([[1.0, 0.0, dx], [0.0, 1.0, dy]], np.float32)
    criteria = (cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_COUNT, 50, 1e-4)
    try:
        _, warp = cv2.findTransformECC(  # type: ignore[call-overload]
            np.asarray(before, np.float32), np.asarray(now, np.float32), warp,
            cv2.MOTION_TRANSLATION, criteria, None, 5)
    except cv2.error:  # did not converge: the coarse shift stands
        return dx, dy
    fine = float(warp[0, 2]), float(warp[1, 2])
    return fine if np.hypot(fine[0] - dx, fine[1] - dy) < 4 * BUMP_PX else (dx, dy)


def _half(detail: np.ndarray) -> np.ndarray:
    """The mean of ``detail``'s channels at half its size (what the bump is looked for on)."""
    h, w = detail.shape[:2]
    return np.asarray(cv2.resize(channel_mean(detail), (w // 2, h // 2),
                                 interpolation=cv2.INTER_AREA), np.float32)


def _on_kept(corners: np.ndarray, keep: np.ndarray) -> np.ndarray:
    """For each box: whether it is dropped but overlaps a box kept by at least
    ``OVERLAP_KEPT`` of the smaller one (a shifted or partial box of a real tile: the
    reader chooses among a tile's boxes, and so does nothing here)."""
    out = np.zeros(len(corners), bool)
    if keep.any() and (~keep).any():
        out[~keep] = _overlapping(np.asarray(corners)[~keep], np.asarray(corners)[keep])
    return out


def _overlapping(boxes: np.ndarray, others: np.ndarray) -> np.ndarray:
    """For each of the outlines ``boxes`` (N, 4, 2): whether one of ``others`` (K, 4, 2)
    overlaps it by at least ``OVERLAP_KEPT`` of the smaller of the two."""
    out = np.zeros(len(boxes), bool)
    outlines = np.asarray(others, np.float32).reshape(-1, 4, 2)
    if not len(outlines):
        return out
    lo, hi = outlines.min(axis=1), outlines.max(axis=1)
    for i, box in enumerate(np.asarray(boxes, np.float32)):
        area = abs(cv2.contourArea(box))
        near = np.flatnonzero(((lo <= box.max(axis=0)) & (hi >= box.min(axis=0))).all(axis=1))
        for other in outlines[near]:  # boxes apart share nothing
            common = cv2.intersectConvexConvex(box, other)[0]
            if common > OVERLAP_KEPT * max(min(area, abs(cv2.contourArea(other))), 1e-6):
                out[i] = True
                break
    return out


def _groups(centres: np.ndarray, stats: np.ndarray, reach: float) -> list[list[int]]:
    """Components (their ``centres`` and ``stats``) whose centres lie within ``reach`` of
    one another, gathered (single linkage); specks of a pixel or two left out."""
    ids = [k for k in range(len(stats)) if stats[k, cv2.CC_STAT_AREA] > 2]
    groups: list[list[int]] = []
    for k in ids:
        near = [g for g in groups
                if np.min(np.linalg.norm(centres[g] - centres[k], axis=1)) <= reach]
        merged = [k] + [m for g in near for m in g]
        groups = [g for g in groups if g not in near] + [merged]
    return groups


def same_outlines(corners: np.ndarray, outlines: np.ndarray) -> np.ndarray:
    """For each outline ``corners`` (N, 4, 2): whether it is one of ``outlines`` (M, 4, 2),
    corner for corner."""
    corners = np.asarray(corners, np.float32).reshape(-1, 4, 2)
    outlines = np.asarray(outlines, np.float32).reshape(-1, 4, 2)
    if not len(outlines) or not len(corners):
        return np.zeros(len(corners), bool)
    gaps = np.abs(corners[:, None] - outlines[None]).reshape(len(corners), len(outlines), -1)
    return np.asarray((gaps.max(axis=2) < 1e-3).any(axis=1))
