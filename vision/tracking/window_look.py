"""Looking for tiles only where the table changed: windows of the full-resolution frame.

A fixed camera's still frame differs from the one looked at before only where a
tile was laid, a marker moved or a hand rested. :class:`WindowLook` keeps the
detector's boxes of the frame it looked at last (the *reference*) and, for the
next still frame, compares the two small views of the known table
(``vision.change.table_view.changed_mask``: fine detail and colour, light aside),
and adds where the view watch finds the frame changed since the table settled
(``vision.tracking.view_change``: a white tile on a pale cloth changes the known
table's detail too little, its pips a pixel there, and a change missed once would
be in the reference from then on); around each changed region it cuts a square
window of the full-resolution frame, padded by ``WINDOW_PAD`` tile lengths, and has
the detector look at it on the scale of a look at the whole frame (so tiles keep the
size the detector knows: that of the last whole look), sides a multiple of its stride
(no padding); windows that overlap are joined into one where it fits in the frame.
Boxes whose centre lies in a window's core (the window less half a tile on each side
inside the frame) come from the window (the first of two that overlap there); the
others are the reference's. An unchanged frame needs no look at all.

The whole frame is looked at instead: at the first still frames (no reference, or
no tile's size known yet; until a table settled, a frame that changed at all since
the frame looked at before), when the detector takes one input size only, when the
frame changed in more than ``MAX_WINDOWS`` places or over more than ``MAX_SHARE`` of
it (a new round, a bumped camera, a hand), when a window would not fit in the frame,
when a sure tile box of the frame before in a window's core is not found again
(``FOUND_AGAIN``), and every ``WHOLE_EVERY`` still frames in case a change slipped
under the comparison's thresholds.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import cv2
import numpy as np

from vision.change.table_view import TableView, changed_mask
from vision.models.detections import Detections
from vision.models.onnx_models import BareBoxes

#: Stride of the detector: a window's sides, scaled, are multiples of it.
STRIDE = 32
#: A window reaches this many tile lengths beyond the region that changed. The detector
#: needs context: on a checked cloth with the mat, windows reaching 1.25 tile lengths
#: missed a tile of a train that the whole look found (0.37 where it scores 0.8), 2
#: found it as surely.
WINDOW_PAD = 2.0
#: A tile box scored at least ``SURE_TILE`` that the frame before showed in a window's
#: core is found again when a tile box of the window lies within ``FOUND_AGAIN`` of a
#: tile's length of it; else the frame is looked at whole (tiles are not taken away in
#: play: a tile lost is the window's miss). Boxes scored lower come and go on a
#: patterned cloth from one look to the next.
FOUND_AGAIN = 0.25
SURE_TILE = 0.5
#: Changed regions of at most this many pixels of the small view are noise.
SPECK_PIXELS = 2
#: More windows than this, or windows over more than this share of the frame, and the
#: whole frame is looked at. A window costs about its share of one detector pass; a
#: whole look up to two (the detector pair) and the mat: on 1280x720, one window over
#: 52 % of the frame 27-61 ms, the whole frame 74-95 ms. Where tiles are large (125 px
#: long at 1280 px) the window around one new tile is already half the frame.
MAX_WINDOWS = 4
MAX_SHARE = 0.75
#: The whole frame is looked at every this many still frames.
WHOLE_EVERY = 20

#: A window of a frame: x0, y0, x1, y1 (frame pixels).
Window = tuple[int, int, int, int]
#: A window's core, where the boxes taken from it are centred: x0, y0, x1, y1.
Core = tuple[float, float, float, float]


@runtime_checkable
class WindowSource(Protocol):
    """A reader that can look at a window of a frame on the scale of its whole look;
    ``tile_class`` is the detector's class of tiles."""

    tile_class: int

    def detect(self, image: np.ndarray, bare: BareBoxes | None = None) -> Detections:
        """Tiles and markers found in the whole ``image``; no tile where ``bare`` says the
        boxes lie on table known to be bare."""
        ...

    def window_gain(self, shape: tuple[int, int]) -> float | None:
        """Detector input pixels per frame pixel of a frame of ``shape`` looked at as the
        last whole frame was; None when the detector cannot look at a window on that
        scale."""
        ...

    def detect_window(self, image: np.ndarray, window: Window, gain: float, core: Core,
                      bare: BareBoxes | None = None) -> Detections:
        """Tiles and markers centred in ``core`` found in ``window`` of ``image`` (frame
        pixels), on scale ``gain``; ``bare`` as in :meth:`detect`."""
        ...


@dataclass(frozen=True)
class Look:
    """How a still frame was looked at: ``windows`` (empty for an unchanged frame), or the
    whole frame (``whole``)."""

    whole: bool
    windows: tuple[Window, ...] = ()


def _square(rect: Sequence[float], gain: float, shape: tuple[int, int]) -> Window | None:
    """The square window around ``rect`` (x0, y0, x1, y1) whose side times ``gain`` is a
    multiple of the stride, moved inside a frame of ``shape`` (None: it does not fit)."""
    h, w = shape
    need = max(rect[2] - rect[0], rect[3] - rect[1])
    side = round(STRIDE * int(np.ceil(need * gain / STRIDE - 1e-6)) / gain)
    if side > min(h, w):
        return None
    cx, cy = (rect[0] + rect[2]) / 2, (rect[1] + rect[3]) / 2
    x0 = int(np.clip(round(cx - side / 2), 0, w - side))
    y0 = int(np.clip(round(cy - side / 2), 0, h - side))
    return x0, y0, x0 + side, y0 + side


def _overlap(a: Sequence[float], b: Sequence[float]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _joined(a: Sequence[float], b: Sequence[float]) -> list[float]:
    return [min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3])]


def change_windows(mask: np.ndarray, scale: float, shape: tuple[int, int], tile_long: float,
                   gain: float) -> list[Window] | None:
    """Windows (frame pixels) around the regions changed in ``mask`` (bool, small size;
    ``scale`` frame pixels per small pixel), ``WINDOW_PAD`` tile lengths ``tile_long``
    beyond them, overlapping ones joined where one window around both fits in the
    frame (two changes far apart across a short frame, a tile laid and a sleeve at the
    frame's edge, keep two windows that overlap); None when the whole frame is to be
    looked at (too many, too large, or one does not fit in the frame of ``shape``)."""
    count, _, stats, _ = cv2.connectedComponentsWithStats(mask.astype(np.uint8), connectivity=8)
    pad = WINDOW_PAD * tile_long
    rects = [[x * scale - pad, y * scale - pad, (x + bw) * scale + pad, (y + bh) * scale + pad]
             for x, y, bw, bh, area in stats[1:].tolist() if area > SPECK_PIXELS]
    while True:
        if len(rects) > 4 * MAX_WINDOWS:
            return None
        squares = [_square(r, gain, shape) for r in rects]
        if any(s is None for s in squares):
            return None
        windows = [s for s in squares if s is not None]
        pair = next(((i, j) for i in range(len(windows)) for j in range(i + 1, len(windows))
                     if _overlap(windows[i], windows[j])
                     and _square(_joined(rects[i], rects[j]), gain, shape) is not None), None)
        if pair is None:
            break
        i, j = pair  # two windows overlap: one window around both regions
        rects = [r for k, r in enumerate(rects) if k not in pair] + [
            _joined(rects[i], rects[j])]
    area = sum((x1 - x0) * (y1 - y0) for x0, y0, x1, y1 in windows)
    if len(windows) > MAX_WINDOWS or area > MAX_SHARE * shape[0] * shape[1]:
        return None
    return windows


def core_of(window: Window, shape: tuple[int, int], inset: float) -> Core:
    """``window`` less ``inset`` on each side that is not the edge of a frame of ``shape``
    (such a side reaches to infinity): a box centred there lies in the window whole."""
    x0, y0, x1, y1 = window
    h, w = shape
    return (x0 + inset if x0 > 0 else -np.inf, y0 + inset if y0 > 0 else -np.inf,
            x1 - inset if x1 < w else np.inf, y1 - inset if y1 < h else np.inf)


def in_cores(centres: np.ndarray, windows: Sequence[Window], shape: tuple[int, int],
             inset: float) -> np.ndarray:
    """For each point ``centres`` (N, 2): whether it lies in a window's core
    (:func:`core_of`)."""
    out = np.zeros(len(centres), bool)
    for window in windows:
        x0, y0, x1, y1 = core_of(window, shape, inset)
        out |= ((centres[:, 0] >= x0) & (centres[:, 0] < x1)
                & (centres[:, 1] >= y0) & (centres[:, 1] < y1))
    return out


class WindowLook:
    """The detector's boxes of each still frame, looked for only where the frame changed
    since the frame looked at before (see the module's notes)."""

    def __init__(self, reader: WindowSource, whole_every: int = WHOLE_EVERY) -> None:
        self.reader = reader
        self.whole_every = whole_every
        #: The frame looked at last: its view and the detector's boxes in it.
        self.reference: tuple[TableView, Detections] | None = None
        self.since_whole = 0
        #: How the last frame was looked at, and how often each way so far.
        self.last = Look(True)
        self.whole_looks = 0
        self.window_looks = 0
        self.windows_looked = 0
        #: Window looks given up for the whole frame because a box was not found again.
        self.lost = 0

    def forget(self) -> None:
        """Look at the next frame whole (the camera moved)."""
        self.reference = None

    def windows(self, frame: np.ndarray, view: TableView, tile_long: float | None,
                changed: np.ndarray | None = None) -> list[Window] | None:
        """The windows to look at in ``frame`` (its small ``view``), or None for the
        whole frame; ``changed`` (bool, any small size): where the frame differs from the
        table settled last, looked at too."""
        ref = self.reference
        if ref is None or tile_long is None or self.since_whole + 1 >= self.whole_every \
                or ref[0].grey.shape != view.grey.shape \
                or ref[1].metadata.get("shape", frame.shape[:2]) != frame.shape[:2]:
            return None
        gain = self.reader.window_gain(frame.shape[:2])
        if gain is None:
            return None
        mask = changed_mask(ref[0], view)
        if changed is not None and changed.any():
            h, w = mask.shape
            mask |= cv2.resize(changed.astype(np.uint8), (w, h),
                               interpolation=cv2.INTER_NEAREST).astype(bool)
        return change_windows(mask, view.scale, frame.shape[:2], tile_long, gain)

    def detect(self, frame: np.ndarray, view: TableView, tile_long: float | None = None,
               whole: bool = False, changed: np.ndarray | None = None,
               bare: BareBoxes | None = None) -> Detections:
        """Tiles and markers of the still ``frame`` (its small ``view``): looked for in
        windows around what changed (since the frame looked at before, and ``changed``:
        see :meth:`windows`) when ``tile_long`` (a tile's length, frame pixels) is known
        and ``whole`` is not asked for, else in the whole frame (asked for, a frame the
        same as the one looked at before is not looked at again all the same); none where
        ``bare`` says the boxes lie on table known to be bare."""
        windows = self.windows(frame, view, tile_long, None if whole else changed)
        if whole and windows:
            windows = None
        if windows is None or tile_long is None:
            found = self.reader.detect(frame, bare)
            self.last = Look(True)
            self.whole_looks += 1
            self.since_whole = 0
        else:
            assert self.reference is not None
            patched = self._patched(frame, self.reference[1], windows, tile_long, bare)
            self.windows_looked += len(windows)
            if patched is None:
                return self.detect(frame, view, tile_long, whole=True, bare=bare)
            found = patched
            self.last = Look(False, tuple(windows))
            self.window_looks += 1
            self.since_whole += 1
        self.reference = (view, found)
        return found

    def _patched(self, frame: np.ndarray, before: Detections, windows: Sequence[Window],
                 tile_long: float, bare: BareBoxes | None = None) -> Detections | None:
        """``before`` with what lies in the windows' cores looked at again in ``frame``;
        None when a box of ``before`` there is not found again."""
        if not windows:
            return before
        gain = self.reader.window_gain(frame.shape[:2])
        assert gain is not None
        shape = frame.shape[:2]
        inset = tile_long / 2 + 2.0
        inside = in_cores(before.center, windows, shape, inset) if len(before) else np.zeros(
            0, bool)
        new = []
        for k, window in enumerate(windows):
            found = self.reader.detect_window(frame, window, gain,
                                              core_of(window, shape, inset), bare)
            if k and len(found):  # a box centred where windows overlap: the first one's
                found = found[~in_cores(found.center, windows[:k], shape, inset)]
            new.append(found)
        tile = self.reader.tile_class
        now = np.concatenate([d.center[d.class_id == tile] for d in new])
        sure = inside & (before.class_id == tile) & (before.confidence >= SURE_TILE)
        for centre in before.center[sure]:
            if not len(now) or np.linalg.norm(now - centre, axis=1).min() > (
                    FOUND_AGAIN * tile_long):
                self.lost += 1
                return None
        return Detections.merge([before[~inside], *new])
