"""Snapping a tile box to its divider: the bar across the middle of every domino.

On a table, tiles lie end to end in trains, and at the detector's input size a
train is a row of pale rectangles crossed by dark lines: dividers and the gaps
between tiles look alike. The detector then often places a box half a tile off
along the train (its centre on a gap, one half from each of two tiles), and the
pip model dutifully counts what that box shows. Its values are then wrong.

The divider settles it. Seen across the tile, the divider is dark over the
middle of the face while the face stays pale at both sides; the gap between two
tiles is dark right across, sides included (the rounded corners of both tiles
open onto the table there). This module finds the divider in a strip cut along
the box's long axis, at full resolution, and moves the box so that its centre
sits on it. A box with no clear divider in reach is left where it was.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from vision.models.crops import order_corners

#: Strip resolution: samples per tile width, across and along.
SAMPLES_PER_WIDTH = 32
#: How far (in tile widths) from the box centre a divider is looked for: half a
#: tile length each way, so a box centred on the gap between two tiles reaches
#: the divider of either.
REACH = 1.05
#: Least divider score (0-1: share of the face's darkness) that counts.
MIN_SCORE = 0.1
#: The best divider must beat the best other position (beyond ``SEPARATION``
#: tile widths from it) by this much, or the box is left alone.
MIN_MARGIN = 0.05
SEPARATION = 0.5
#: Bands across the face, in tile widths from one side: the divider's middle
#: (pip columns and a centre spinner avoided by taking a low quantile) and the
#: face's two sides.
MIDDLE = ((0.16, 0.42), (0.58, 0.84))
SIDES = ((0.03, 0.11), (0.89, 0.97))
#: Weight of the tile ends' darkness against the divider's.
END_WEIGHT = 0.5
#: A divider this far off a box's middle (tile widths), but no further than
#: ``EVEN_UP_TO`` and clearer than the next best place by ``EVEN_MARGIN``, makes
#: ``even_about_divider`` lengthen the box (further off, it is another tile's).
#: Measured, the reader keeping the more confident of the two readings: rendered
#: validation close-ups (seeds 204) 93.1 -> 94.8 % of tiles read right, hands
#: (201, 140 scenes) 88.1 -> 88.0 %; the real single-tile photos 12 -> 14 of 14.
#: Without the upper limit and the margin, a hand tile of the eval set was
#: lengthened onto its neighbour's divider (0.59 widths off, margin 0.08).
EVEN_ABOVE = 0.05
EVEN_UP_TO = 0.25
EVEN_MARGIN = 0.2


@dataclass(frozen=True)
class DividerFit:
    """Where the divider was found: ``shift`` along the box's first-to-second-end
    axis in image pixels, and how clearly (``score``, ``margin``)."""

    shift: float
    score: float
    margin: float

    @property
    def found(self) -> bool:
        return self.score >= MIN_SCORE and self.margin >= MIN_MARGIN


#: A box's centre, unit vectors along and across it, length and width (``_axes``).
Axes = tuple[np.ndarray, np.ndarray, np.ndarray, float, float]


def _axes(corners: np.ndarray) -> Axes:
    """Centre, unit vectors along (first end to second) and across (corner 0 to 1), length
    and width of the box ``corners`` (any start corner); in plain floats, not numpy calls
    on 2-vectors, which cost more than the arithmetic (this runs three times per tile)."""
    (x0, y0), (x1, y1), (x2, y2), (x3, y3) = order_corners(corners).tolist()
    ax, ay, bx, by = (x0 + x1) / 2, (y0 + y1) / 2, (x2 + x3) / 2, (y2 + y3) / 2
    length = math.hypot(bx - ax, by - ay)
    e01 = math.hypot(x1 - x0, y1 - y0)
    width = (e01 + math.hypot(x2 - x3, y2 - y3)) / 2
    along, across = max(length, 1e-6), max(e01, 1e-6)
    return (np.array([(x0 + x1 + x2 + x3) / 4, (y0 + y1 + y2 + y3) / 4]),
            np.array([(bx - ax) / along, (by - ay) / along]),
            np.array([(x1 - x0) / across, (y1 - y0) / across]), length, width)


def _quantile(values: np.ndarray, q: float, axis: int | None = None) -> np.ndarray:
    """``np.percentile(values, 100 * q, axis)`` (linear), by partial sorting: the
    profile takes three per tile and ``np.percentile``'s overhead dominated it."""
    a = values.reshape(-1) if axis is None else values
    ax = 0 if axis is None else axis
    count = a.shape[ax]
    pos = q * (count - 1)
    lo = int(np.floor(pos))
    hi = min(lo + 1, count - 1)
    part = np.partition(a, [lo, hi], axis=ax)
    low = np.take(part, lo, axis=ax)
    high = np.take(part, hi, axis=ax)
    return np.asarray(low + (high - low) * (pos - lo))


def _quantiles(values: np.ndarray, qs: tuple[float, ...]) -> list[float]:
    """``[_quantile(values, q) for q in qs]`` with one partial sort for them all."""
    a = values.reshape(-1)
    last = len(a) - 1
    spots = [(q * last, int(math.floor(q * last))) for q in qs]
    kth = sorted({k for _, lo in spots for k in (lo, min(lo + 1, last))})
    part = np.partition(a, kth)
    return [float(part[lo] + (part[min(lo + 1, last)] - part[lo]) * (pos - lo))
            for pos, lo in spots]


def divider_profile(grey: np.ndarray, corners: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """How well a tile centred at each position along the box's long axis fits.

    A position scores when a divider crosses it (dark in the middle of the
    face, pale at the sides) and the tile's two ends lie one tile width either
    side (dark at the sides: the rounded corners and the table or the gap to the
    next tile). Returns ``(offsets, scores)``: offsets from the box centre in tile
    widths (``-REACH .. REACH``) and the score there (about 0-1).
    """
    return _profile(grey, _axes(corners))


def _profile(grey: np.ndarray, axes: Axes) -> tuple[np.ndarray, np.ndarray]:
    """``divider_profile`` of the box whose ``_axes`` are ``axes``."""
    centre, u, v, length, width = axes
    n = SAMPLES_PER_WIDTH
    half = max(length / 2 / max(width, 1e-6), 0.5)  # centre to end, in tile widths
    pad = half + 0.25
    along = int(round(2 * (REACH + pad) * n)) + 1
    scale = width / n  # image pixels per strip sample
    # strip pixel (x, y): x across the box (0..n), y along it (0..along)
    origin = centre - v * width / 2 - u * (REACH + pad) * width
    matrix = np.array([[v[0] * scale, u[0] * scale, origin[0]],
                       [v[1] * scale, u[1] * scale, origin[1]]], dtype=np.float64)
    src = grey
    if scale > 1.5:  # shrink before sampling so that pips and lines do not alias
        src, (x0, y0) = _blurred_around(grey, matrix, (n, along), 0.45 * scale)
        matrix[:, 2] -= (x0, y0)
    strip = cv2.warpAffine(src, matrix, (n, along), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                           borderMode=cv2.BORDER_REPLICATE).astype(np.float32)
    mid = (along - 1) // 2
    own = strip[max(mid - int(half * n), 0):mid + int(half * n) + 1, int(0.15 * n):int(0.85 * n)]
    face, floor = _quantiles(own, (0.85, 0.03))
    # np.minimum/np.maximum, not np.clip: the same values, without np.clip's checks of
    # its bounds, which cost more than clipping these few hundred samples
    dark = np.minimum(np.maximum((face - strip) / max(face - floor, 12.0), 0.0), 1.0)
    dark = cv2.GaussianBlur(dark, (1, 3), 0.6)

    def band(ranges: tuple[tuple[float, float], ...]) -> np.ndarray:
        return np.concatenate([dark[:, int(lo * n):max(int(hi * n), int(lo * n) + 1)]
                               for lo, hi in ranges], axis=1)

    middle = _quantile(band(MIDDLE), 0.25, axis=1)
    sides = band(SIDES).mean(axis=1)
    divider = np.minimum(np.maximum(middle - sides, 0.0), 1.0)
    step = int(round(half * n))
    offsets = (np.arange(along) - (along - 1) / 2) / n
    inside = np.flatnonzero(np.abs(offsets) <= REACH)
    lo, hi = np.maximum(inside - step, 0), np.minimum(inside + step, along - 1)
    ends = np.maximum(sides[lo], 0) + np.maximum(sides[hi], 0)
    score = divider[inside] + END_WEIGHT * ends / 2
    return offsets[inside], score


def _blurred_around(grey: np.ndarray, matrix: np.ndarray, size: tuple[int, int],
                    sigma: float) -> tuple[np.ndarray, tuple[int, int]]:
    """``grey`` blurred (``sigma``) where the strip ``matrix`` maps ``size`` samples to,
    and the region's top-left corner: the region reaches beyond them by the blur's
    reach, so the samples are those of the whole image blurred (the same border
    handling where it meets the image's edge), at a tile's cost, not the image's."""
    w, h = size
    corners = np.array([[0, 0, 1], [w, 0, 1], [0, h, 1], [w, h, 1]], np.float64) @ matrix.T
    reach = int(np.ceil(4 * sigma)) + 3
    x0 = int(max(np.floor(corners[:, 0].min()) - reach, 0))
    y0 = int(max(np.floor(corners[:, 1].min()) - reach, 0))
    x1 = int(min(np.ceil(corners[:, 0].max()) + reach + 1, grey.shape[1]))
    y1 = int(min(np.ceil(corners[:, 1].max()) + reach + 1, grey.shape[0]))
    if x1 <= x0 or y1 <= y0:  # the strip lies wholly off the image
        return cv2.GaussianBlur(grey, (0, 0), sigma), (0, 0)
    region = grey[y0:y1, x0:x1]
    return cv2.GaussianBlur(region, (0, 0), sigma), (x0, y0)


def fit_divider(grey: np.ndarray, corners: np.ndarray) -> DividerFit:
    """Find the divider near the centre of the box ``corners`` in a grey image."""
    return _fit(grey, _axes(corners))


def _fit(grey: np.ndarray, axes: Axes) -> DividerFit:
    """``fit_divider`` of the box whose ``_axes`` are ``axes``."""
    offsets, scores = _profile(grey, axes)
    if not len(scores):
        return DividerFit(0.0, 0.0, 0.0)
    best = int(np.argmax(scores))
    others = scores[np.abs(offsets - offsets[best]) > SEPARATION]
    margin = float(scores[best] - (others.max() if len(others) else 0.0))
    return DividerFit(float(offsets[best] * axes[4]), float(scores[best]), margin)


def snap_to_divider(grey: np.ndarray, corners: np.ndarray) -> tuple[np.ndarray, DividerFit]:
    """``corners`` (ordered, see ``vision.models.crops``) moved so the centre sits on the
    divider, and the fit; unchanged when no clear divider was found."""
    c = order_corners(corners)
    axes = _axes(c)
    fit = _fit(grey, axes)
    if not fit.found:
        return c, fit
    return (c + fit.shift * axes[1]).astype(np.float32), fit


def even_about_divider(grey: np.ndarray, corners: np.ndarray) -> np.ndarray | None:
    """``corners`` (ordered) lengthened at one end so that both halves reach as far from
    the divider, or None when no clear divider lies off the box's middle.

    A detector box that stops short of one end of a large tile (a close-up's top
    row of pips left out) splits the tile off its divider: one half crop then
    shows pips of the other half, the other misses its last row. The divider
    says where the middle is; the short end is moved out to match the long one.
    """
    c = order_corners(corners)
    axes = _axes(c)
    fit = _fit(grey, axes)
    u, width = axes[1], axes[4]
    if not (fit.found and fit.margin >= EVEN_MARGIN
            and EVEN_ABOVE * width < abs(fit.shift) <= EVEN_UP_TO * width):
        return None
    out = c.astype(np.float64).copy()
    if fit.shift > 0:  # the divider lies towards the second end: that end is short
        out[2:] += 2 * fit.shift * u
    else:
        out[:2] += 2 * fit.shift * u
    return out.astype(np.float32)


def snapped_off_middle(grey: np.ndarray, corners: np.ndarray,
                       width: float) -> np.ndarray | None:
    """``corners`` (a tile ``width`` wide) snapped to the divider (:func:`snap_to_divider`)
    when one shows clearly and off its middle, else None."""
    snapped, fit = snap_to_divider(grey, corners)
    return snapped if fit.found and abs(fit.shift) > 0.05 * width else None
