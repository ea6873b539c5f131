"""Whether the view of a table changed: frames are compared small, each colour
normalised and their smooth shading removed, so that light that changes slowly
or all at once is not taken for a hand (:class:`ViewWatch`)."""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.change.channels import channel_max, channel_sum

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


def small_view(frame: np.ndarray) -> np.ndarray:
    """A small copy, each colour normalised for brightness and contrast (lighting drifts).

    Colour is kept: a red pawn on a green cloth can have the cloth's grey.
    """
    h, w = frame.shape[:2]
    resized = cv2.resize(frame, (SMALL_WIDTH, max(1, round(h * SMALL_WIDTH / w))),
                         interpolation=cv2.INTER_AREA).astype(np.float32)
    small = cv2.GaussianBlur(resized, (3, 3), 0)
    if small.ndim == 2:
        small = small[..., None]
    mean, std = cv2.meanStdDev(small)
    channels = small.shape[2]
    return np.asarray((small - mean.reshape(1, 1, channels).astype(np.float32))
                      / (std.reshape(1, 1, channels).astype(np.float32) + 8.0), np.float32)


#: A change of this much in a pixel's chromaticity (r or g of r, g, b summing to 1) counts.
CHROMA_CHANGE = 0.04


def view_detail(frame: np.ndarray, small: np.ndarray) -> np.ndarray:
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
    total = channel_sum(raw) + 30.0
    gain = PIXEL_CHANGE / CHROMA_CHANGE
    chroma = np.dstack([raw[..., 1] / total * gain, raw[..., 2] / total * gain])
    return np.asarray(np.concatenate([fine, chroma], axis=2), dtype=np.float32)


def _difference(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Pixels of two small copies that differ in any channel.

    Colour channels beyond the first three are compared after taking away the
    change they share across the whole view (a colour cast of the light).
    """
    d = a - b
    for k in range(3, d.shape[2]):
        d[..., k] -= np.median(d[..., k])
    return np.asarray(channel_max(np.abs(d)) > PIXEL_CHANGE)


def same_view(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether two views (:func:`view_detail`) show the same table: at most
    ``REREAD_PIXELS`` of the small copy differ (a coin laid changes a dozen)."""
    return a.shape == b.shape and int(np.count_nonzero(_difference(a, b))) <= REREAD_PIXELS


def changed_share(a: np.ndarray, b: np.ndarray) -> float:
    """Share of pixels that changed between two small copies."""
    return float(np.mean(_difference(a, b)))


def covered(base: np.ndarray, detail: np.ndarray) -> bool:
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



@dataclass
class Still:
    """A still frame worth reading: its :func:`view_detail`, whether something large
    covers part of the table settled last (what it hides is not taken away), and the
    pixels of the small copy that differ from the settled view (None: none settled)."""

    detail: np.ndarray
    covered: bool
    changed: np.ndarray | None = None


class ViewWatch:
    """Follows the view frame by frame and says which frames to read.

    A frame is read when the view has stayed still for ``settle_frames`` frames,
    unless it shows the view of the last settled table (:meth:`settled`) within
    ``REREAD_PIXELS``, and was read less than ``RECHECK_S`` seconds ago.
    """

    def __init__(self, settle_frames: int, fps: float) -> None:
        self.settle_frames = settle_frames
        self.fps = fps
        self.prev: np.ndarray | None = None
        #: The view when the table last settled.
        self.base: np.ndarray | None = None
        self.still = 0
        self.checked = 0

    def settled(self, detail: np.ndarray) -> None:
        """The table settled on the view ``detail``."""
        self.base = detail

    def look(self, frame: np.ndarray, index: int) -> Still | None:
        """Frame ``index``, if it is to be read."""
        small = small_view(frame)
        moving = self.prev is not None and (self.prev.shape != small.shape
                                            or changed_share(self.prev, small) > MOTION_SHARE)
        self.prev = small
        if moving:
            self.still = 0
            return None
        self.still += 1
        detail = view_detail(frame, small)
        hidden = False
        base = self.base
        if base is not None and base.shape == detail.shape and covered(base, detail):
            # Something large differs from the settled view: a hand resting over the
            # table, or the light or the camera changed. Its reading may add to the
            # table but not take anything away (what a hand would hide).
            hidden = self.still < COVER_RESET * self.settle_frames
            if not hidden:
                self.base = base = None  # still for long: the view itself changed
        if self.still < self.settle_frames:
            return None
        changed = (_difference(base, detail) if base is not None and base.shape == detail.shape
                   else None)
        if changed is not None and np.count_nonzero(changed) <= REREAD_PIXELS \
                and index - self.checked < RECHECK_S * self.fps:
            return None  # nothing changed since the table last settled: nothing to read
        self.checked = index
        return Still(detail, hidden, changed)
