"""Looking closer where a table does not hold together.

A whole table seen by a webcam shows its tiles small: at the detector's closer
look (``vision.reading.reader.ZOOM_IN_SIDE``) a 1920x1080 frame's tiles are 10-13 px
wide, and where tiles crowd (a train turning, a double across its end, a
marker on a tile) the detector misses some and misplaces others. The same
detector on a small window around such a spot, enlarged to its input size,
sees the tiles at the size it learnt them and finds them (over the 14 rendered
tables of the development seeds read wrong for a missed tile, 24 of the 25
missed tiles were found at IoU >= 0.73 in a window looked at at 416 px).

A table's trouble spots are its loose boxes (a tile that continues no train
lies where a train broke off) and its trains' ends (a train stops short at a
tile the detector missed). :func:`look_closer` looks again in a window around
each (at most ``MAX_WINDOWS``), puts the boxes found there in place of those
they overlap, reads them, and reads the table again; the new table is taken
when it lays more tiles on trains than the first. A window that finds only tiles
the frame read surely already (``SAME_IOU``) is not read, and when no window finds
more, the table is not read again.

Over the 320 rendered development tables (1920x1080, seeds 1100000+, 1300000+
and 1400000+, with and without the mat) the closer look reads 302 whole against
293 without it (301 around the loose boxes alone), none worse, with windows 8 tile
widths wide; at 12 (``WINDOW_WIDTHS``) 240 of them read the same 221 whole, more
trains and tiles right, and the photoreal stills more tiles found. A box found
closer that overlaps a marker of the frame (a toy train boxed as a tile) is not
laid on a train's end (``MARKER_IOU``).

With a photo of the bare table, :func:`look_where_changed` looks closer where the
photo changed and no box lies (``vision.stills.bare_photo.BarePhoto.unexplained``):
what it finds there on changed table is a tile or a back whether or not the table
lays it on a train (a photo may show part of a table, and no hub).

A box the domino check doubts (``vision.reading.domino_verdicts``) that the table lays
on no train is a trouble spot of its own (:func:`look_at_doubts`, before the closer
look): closer, in a window at its own size, it stays (still doubted) only where the
detector finds it again; a box across the seam of two tiles gives way to the tiles
found under it. One a train goes on from is where the rules expect a tile, and stays.
A box on a cloth's pattern, on wood grain or glare is found at one scale and not at
another: on the 40 empty frames of ``benchmarks/realism.py`` no doubted box was found
again, on the composited photos of ``benchmarks/bare_photos.py`` every doubted box on
a tile was.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from vision.models.detections import Detections, polygon_iou
from vision.models.domino_check import DOUBT_REASON
from vision.reading.look_sizes import median_short_side
from vision.readings import FrameReading, TileReadings

#: Window side, in tile widths (the median short side of the boxes found): at
#: ``WINDOW_SIDE`` a tile is then 27 px wide, about the size the detector learnt whole
#: tables' tiles at. A window centred near a labelled tile finds it (IoU >= 0.5) on
#: the photoreal stills of ``benchmarks/photoreal.py`` 93 % of the time at 12 widths
#: and 84 % at 8 (a window enlarged 1.7 times shows a webcam's blur, not more tile),
#: on the rendered tables of ``benchmarks/table.py`` 98 % and 95 %.
WINDOW_WIDTHS = 12.0
#: Long side the detector looks at a window with (at 416 the rendered development
#: tables read the same in 1.5 times the time).
WINDOW_SIDE = 320
#: Most windows looked at in one image.
MAX_WINDOWS = 16
#: Whether each train's end is looked at closer too.
LOOK_AT_ENDS = True
#: A box found in a window is taken only this many tile widths clear of its edges
#: (a tile cut by the edge is found as a piece).
EDGE_WIDTHS = 0.3
#: Boxes found closer overlapping this much (IoU) are not two tiles: the less sure
#: one spans the seam between two (``_apart``).
OVERLAP_IOU = 0.1
#: A tile box found closer overlapping a marker this much (IoU) is the marker (a toy
#: train is about a tile's size).
MARKER_IOU = 0.3
#: A box found closer takes the place of each box it overlaps at least this much (IoU).
REPLACE_IOU = 0.2
#: A box found closer that overlaps a tile the frame read surely at least this much (IoU)
#: is that tile again (boxes a window finds of tiles found whole lie at IoU 0.82-0.99 on
#: rendered 1280x720 and 12 MP tables). A window that finds nothing else is not read:
#: its reading of those tiles could only replace sure readings with their like.
SAME_IOU = 0.8
#: A box the domino check doubts is kept when a box found closer around it overlaps it
#: at least this much (IoU): the same box. A box across the seam of two tiles overlaps
#: each by about a third; the doubted tiles found again lie at 0.8-0.95.
DOUBT_IOU = 0.5
#: A doubted box's window is this many of its own widths wide, as every closer look's
#: (over the 80 rendered tables of ``benchmarks/table.py``, 16 of 17 doubted tiles were
#: found again at 12 widths, 6 at 8, and 8 of 81 doubted boxes on no tile).
DOUBT_WIDTHS = WINDOW_WIDTHS
#: A doubted box's window (``DOUBT_WIDTHS`` of its widths, or less) sees it at least
#: this many times larger than the look at the whole image did, and holds it
#: ``DOUBT_HOLD`` times over (its long side), or it is not looked at: a close-up's
#: tiles, seen large already, have no closer look.
DOUBT_CLOSER = 1.5
DOUBT_HOLD = 2.0
#: A window looked at for one doubted box serves another well inside it when their
#: sides differ by at most this share.
SAME_WINDOW = 0.25
#: A box found where the photo changed overlapping a tile, back or box found before by
#: less than this (IoU) is a new one (boxes found there are first kept apart as
#: ``_apart`` keeps readings).
NEW_IOU = 0.1


def _width(frame: FrameReading) -> float | None:
    if not frame.tiles:
        return None
    return median_short_side(np.asarray(frame.tiles.corners, np.float32))


def loose_indices(reading: Any, frame: FrameReading) -> list[int]:
    """Indices of the tiles of ``frame`` that ``reading`` (a ``vision.table.TableReading``)
    laid on no train and did not take for the engine."""
    assignment = list(getattr(reading, "assignment", []) or [])
    return [i for i in range(min(len(frame.tiles), len(assignment))) if assignment[i] is None]


def unlaid_indices(reading: Any, frame: FrameReading) -> list[int]:
    """The loose tiles of ``frame`` (:func:`loose_indices`), and the engine ``reading``
    took when no train goes on from it."""
    out = loose_indices(reading, frame)
    if not any(getattr(reading, "positions", {}).values()):
        assignment = list(getattr(reading, "assignment", []) or [])
        out += [i for i, owner in enumerate(assignment[:len(frame.tiles)]) if owner == "engine"]
    return sorted(out)


def loose_centres(reading: Any, frame: FrameReading) -> list[np.ndarray]:
    """Image centres of the loose tiles (:func:`loose_indices`)."""
    return [np.asarray(frame.tiles.corners[i], np.float64).mean(axis=0)
            for i in loose_indices(reading, frame)]


def end_centres(reading: Any, frame: FrameReading) -> list[np.ndarray]:
    """Image centres of the last tile of each train ``reading`` laid that a box of
    ``frame`` shows (a train may stop short at a tile the detector missed)."""
    out = []
    for indices in (getattr(reading, "positions", None) or {}).values():
        shown = [i for i in indices if i < len(frame.tiles)]
        if shown:
            out.append(np.asarray(frame.tiles.corners[shown[-1]], np.float64).mean(axis=0))
    return out


def _windows(centres: list[np.ndarray], side: float, shape: tuple[int, int]
             ) -> list[tuple[int, int, int]]:
    """``(x0, y0, side)`` windows in the image covering ``centres``, a spot already well
    inside a window taken once."""
    h, w = shape
    s = int(min(side, h, w))
    out: list[tuple[int, int, int]] = []
    for c in centres:
        x0 = int(np.clip(round(c[0] - s / 2), 0, w - s))
        y0 = int(np.clip(round(c[1] - s / 2), 0, h - s))
        if (x0, y0, s) in out or any(
                a + s / 4 <= c[0] <= a + 3 * s / 4 and b + s / 4 <= c[1] <= b + 3 * s / 4
                for a, b, _ in out):
            continue
        out.append((x0, y0, s))
        if len(out) >= MAX_WINDOWS:
            break
    return out


def _found_in(reader: Any, image: np.ndarray, window: tuple[int, int, int],
              w: float, markers: Detections, image_edges: bool = True) -> Detections:
    """Tile boxes the detector finds in ``window``, in image pixels, clear of its edges
    (``EDGE_WIDTHS``; of those on the image's edge too unless not ``image_edges``) and of
    the frame's ``markers`` (``MARKER_IOU``)."""
    x0, y0, s = window
    crop = np.ascontiguousarray(image[y0:y0 + s, x0:x0 + s])
    found = reader.detector(crop, long_side=WINDOW_SIDE)
    if not len(found):
        return found
    found.corners = found.corners + np.array([x0, y0], np.float32)
    found = found[found.class_id == reader.tile_class]
    if not len(found):
        return found
    margin = EDGE_WIDTHS * w
    lo, hi = np.array([x0 + margin, y0 + margin]), np.array([x0 + s - margin, y0 + s - margin])
    if not image_edges:  # the image's own edge cuts no more than the first look saw
        h, wide = image.shape[:2]
        lo = np.where([x0 == 0, y0 == 0], -np.inf, lo)
        hi = np.where([x0 + s >= wide, y0 + s >= h], np.inf, hi)
    keep = np.all((found.corners >= lo) & (found.corners <= hi), axis=(1, 2))
    if len(markers) and keep.any():
        on_marker = polygon_iou(found.corners, markers.corners).max(axis=1) >= MARKER_IOU
        keep &= ~on_marker
    return found[keep]


def _known(found: Detections, tiles: list[Any]) -> bool:
    """Whether every box ``found`` is a tile of ``tiles`` read surely (``SAME_IOU``)."""
    sure = [np.asarray(t.corners, np.float32) for t in tiles if not t.uncertain]
    if not sure:
        return False
    overlap = polygon_iou(np.asarray(found.corners, np.float32), np.array(sure))
    return bool(np.all(overlap.max(axis=1) >= SAME_IOU))


def _apart(readings: list[Any]) -> list[Any]:
    """The readings whose boxes overlap no surer one by ``OVERLAP_IOU``: tiles lie
    side by side, and a box across two of them is a piece of each."""
    if len(readings) < 2:
        return readings
    readings = sorted(readings, key=lambda t: -t.confidence)
    boxes = np.array([np.asarray(t.corners, np.float32) for t in readings])
    confidence = np.array([t.confidence for t in readings])
    return [readings[j] for j in _surest_apart(boxes, confidence)]


def _surest_apart(corners: np.ndarray, confidence: np.ndarray) -> np.ndarray:
    """Indices (ascending) of the boxes ``corners`` that overlap no surer one by
    ``OVERLAP_IOU`` (see :func:`_apart`)."""
    order = np.argsort(-np.asarray(confidence), kind="stable")
    iou = polygon_iou(corners[order], corners[order])
    keep = [j for j in range(len(order)) if not np.any(iou[j, :j] >= OVERLAP_IOU)]
    return np.sort(order[keep])


def look_closer(reader: Any, image: np.ndarray, frame: FrameReading, reading: Any,
                rebuild: Callable[[FrameReading], Any]) -> tuple[FrameReading, Any]:
    """``(frame, reading)`` after looking closer around ``reading``'s loose tiles and
    its trains' last tiles.

    ``rebuild`` reads the table of a frame (``vision.stills.table_photo.reconstruct_table``). The
    boxes found closer replace the frame's boxes they overlap (``REPLACE_IOU``) and
    join it where they overlap none; the table is read again from them and kept
    when it lays more tiles on trains. Unchanged when there is nothing loose, no
    detector (an oracle reader), or nothing new found.
    """
    w = _width(frame)
    centres = loose_centres(reading, frame)
    if LOOK_AT_ENDS:
        centres += end_centres(reading, frame)
    if w is None or not centres or getattr(reader, "detector", None) is None:
        return frame, reading
    tiles = frame.tiles.each()
    changed = False
    for window in _windows(centres, WINDOW_WIDTHS * w, image.shape[:2]):
        found = _found_in(reader, image, window, w, frame.markers)
        if not len(found) or _known(found, tiles):
            continue
        new = _apart(reader.read_tiles(image, found).each())
        if not new:
            continue
        held = np.array([np.asarray(t.corners, np.float32) for t in tiles]).reshape(-1, 4, 2)
        fresh = np.array([np.asarray(t.corners, np.float32) for t in new])
        overlap = (polygon_iou(held, fresh) if len(held) else np.zeros((0, len(new))))
        kept = [t for t, o in zip(tiles, overlap, strict=True) if o.max() < REPLACE_IOU]
        if len(kept) == len(tiles) and not any(
                o.max() < REPLACE_IOU for o in overlap.T):
            continue
        tiles = kept + list(new)
        changed = True
    if not changed:
        return frame, reading
    tiles.sort(key=lambda t: -t.confidence)
    closer = FrameReading(TileReadings.of(tiles), frame.markers, frame.shape, frame.backs)
    again = rebuild(closer)
    return (closer, again) if tiles_laid(again) > tiles_laid(reading) else (frame, reading)


def look_at_doubts(reader: Any, image: np.ndarray, frame: FrameReading,
                   among: Sequence[int] | None = None) -> FrameReading:
    """``frame`` with each tile the domino check doubts (``DOUBT_REASON``) looked at
    closer, in a window ``DOUBT_WIDTHS`` of the box's own widths wide around it, or
    less where that is not closer (``_found_in``; ``DOUBT_CLOSER``, ``DOUBT_HOLD``): found
    again there (``DOUBT_IOU``) it stays, still doubted; else it goes, and the boxes
    found across it (``REPLACE_IOU``: the tiles under a box across a
    seam) that overlap no tile of the frame (``NEW_IOU``) are read in its place. A window
    serves every doubted box of about its size well inside it, at most ``MAX_WINDOWS``
    (boxes beyond them stay). A box found there counts on the image's edge too, and on
    a marker: the question is whether a tile lies there at all. Unchanged when nothing
    is doubted or there is no detector (an oracle reader). ``among``: the indices of the
    tiles that may be looked at (all by default)."""
    allowed = range(len(frame.tiles)) if among is None else set(among)
    doubted = [i for i, doubt in enumerate(frame.tiles.data["doubt"])
               if doubt == DOUBT_REASON and i in allowed]
    if not doubted or getattr(reader, "detector", None) is None:
        return frame
    corners = np.asarray(frame.tiles.corners, np.float32)
    keep = np.ones(len(corners), bool)
    looked: list[tuple[tuple[int, int, int], Detections]] = []
    under: list[Detections] = []
    side = getattr(reader, "look_side", None)  # the whole image's look, when known
    first = side / max(image.shape[:2]) if side else 0.0
    for i in doubted:
        box = corners[i]
        w = float(median_short_side(box[None]))
        long = float(np.linalg.norm(box - np.roll(box, -1, axis=0), axis=1).max())
        span = min(DOUBT_WIDTHS * w, WINDOW_SIDE / (DOUBT_CLOSER * first) if first else np.inf)
        wanted = _windows([box.mean(axis=0)], span, image.shape[:2])[0]
        if wanted[2] < DOUBT_HOLD * long:
            continue  # no closer look to be had
        seen = next((found for window, found in looked
                     if abs(window[2] - wanted[2]) <= SAME_WINDOW * wanted[2]
                     and _well_inside(box, window)), None)
        if seen is None:
            if len(looked) >= MAX_WINDOWS:
                continue
            seen = _found_in(reader, image, wanted, w, Detections.empty(), image_edges=False)
            looked.append((wanted, seen))
        over = (polygon_iou(seen.corners, box[None])[:, 0] if len(seen)
                else np.zeros(0))
        if len(over) and over.max() >= DOUBT_IOU:
            continue
        keep[i] = False
        under.append(seen[over >= REPLACE_IOU])
    if keep.all():
        return frame
    kept = frame.tiles[keep]
    found = Detections.merge(under) if under else Detections.empty()
    if len(found) and len(kept):
        found = found[polygon_iou(found.corners, kept.corners).max(axis=1) < NEW_IOU]
    if not len(found):
        return FrameReading(kept, frame.markers, frame.shape, frame.backs)
    found = found[_surest_apart(found.corners, found.confidence)]
    tiles = [*kept.each(), *reader.read_tiles(image, found).each()]
    tiles.sort(key=lambda t: -t.confidence)
    return FrameReading(TileReadings.of(tiles), frame.markers, frame.shape, frame.backs)


def _well_inside(box: np.ndarray, window: tuple[int, int, int]) -> bool:
    """Whether ``box`` lies in the middle half of ``window`` (x0, y0, side)."""
    x0, y0, s = window
    lo, hi = np.array([x0 + s / 4, y0 + s / 4]), np.array([x0 + 3 * s / 4, y0 + 3 * s / 4])
    return bool(np.all((box >= lo) & (box <= hi)))


def tiles_laid(reading: Any) -> int:
    """How many tiles the trains of ``reading`` (a ``vision.table.TableReading``) hold; -1
    with no table."""
    table = getattr(reading, "table", None)
    return -1 if table is None else sum(len(t.tiles) for t in table.trains)


def look_where_changed(reader: Any, image: np.ndarray, frame: FrameReading,
                       centres: Sequence[np.ndarray],
                       on_bare: Callable[[np.ndarray], np.ndarray]) -> FrameReading:
    """``frame`` with the tiles and backs found closer around ``centres`` (spots that changed
    from the bare table with no box on them): each box found in a window around one
    (``_found_in``) that overlaps no back or box found before (``NEW_IOU``), no tile of
    ``frame`` but one that two or more boxes found there overlap, each surer of itself (a
    box across two tiles: it gives way to them), and that ``on_bare`` (corners (N, 4, 2)
    -> bool) does not put on unchanged bare table, read (a back is set apart as the
    reader sets it apart). Unchanged when there is no spot, no tile to size the windows
    by, or no detector."""
    w = _width(frame)
    if w is None or not centres or getattr(reader, "detector", None) is None:
        return frame
    held = frame.tiles.each()
    corners = np.array([np.asarray(t.corners, np.float32) for t in held]).reshape(-1, 4, 2)
    sure = np.array([t.detector_confidence for t in held], np.float32)
    taken = np.array(frame.backs, np.float32).reshape(-1, 4, 2)
    replaced = np.zeros(len(held), bool)
    new: list[Detections] = []
    for window in _windows(list(centres), WINDOW_WIDTHS * w, image.shape[:2]):
        found = _found_in(reader, image, window, w, frame.markers)
        if len(found) and len(taken):
            found = found[polygon_iou(found.corners, taken).max(axis=1) < NEW_IOU]
        if len(found):
            found = found[~np.asarray(on_bare(found.corners), bool)]
        if len(found) and len(held):  # a box across two tiles gives way to the two
            over = polygon_iou(found.corners, corners) >= NEW_IOU
            surer = over & (found.confidence[:, None] > sure[None, :])
            across = (surer.sum(axis=0) >= 2) & (surer.sum(axis=0) == over.sum(axis=0))
            ok = np.flatnonzero(~(over & ~across[None, :]).any(axis=1))
            found = found[ok]
            replaced |= across
        if len(found):
            found = found[_surest_apart(found.corners, found.confidence)]
            new.append(found)
            taken = np.concatenate([taken, found.corners.astype(np.float32)])
    if not new:
        return frame
    tiles, backs = reader.read_tiles_and_backs(image, Detections.merge(new))
    kept = [t for t, gone in zip(held, replaced, strict=True) if not gone]
    return FrameReading(TileReadings.of([*kept, *tiles.each()]), frame.markers, frame.shape,
                        (*frame.backs, *backs.corners))
