"""Fitting a tile to what changed: the oriented box of a tile laid where two grey frames
of a fixed camera differ (``vision.change.known_table`` asks it for the tiles the detector
missed, and for the marker candidates that are tiles).

What changed is taken in log brightness, smoothed a tenth of a tile wide, with the change
at the crop's rim (the exposure, a lamp) taken away and a soft shadow left out (a broad
darkening: dark pips on a pale cloth darken it as much, in specks and lines); pips and
edges are closed into one region and ``cv2.minAreaRect`` gives its outline. The box is
then given the known tiles' size, placed where the outline's centre is, or, where the
outline is shorter than a tile (a pale tile on a pale cloth changes in part), where the
box covers most change.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.change.table_view import LOG_FLOOR, SHADOW_RATIO
from vision.models.crops import order_corners

#: A full-resolution pixel whose log brightness (the crop's overall change aside) moved
#: this much belongs to the tile fitted there.
FIT_CHANGE = 0.12
#: The changed part of a tile in the full frame is ``CANDIDATE_SIZE`` of a tile long (at
#: least the first unless told otherwise) and at most ``CANDIDATE_WIDTH`` of a tile wide
#: (a tile's raised side and contact shadow widen it by a third as seen from above).
CANDIDATE_SIZE = (0.5, 1.4)
CANDIDATE_WIDTH = 1.6
#: A changed region of at least ``PART_AREA`` of a tile's area is part of the tile; a
#: smaller one of at least ``PIP_AREA`` (a pip, 0.02-0.03 of a tile, blurred and thresholded)
#: is too where it lies within ``PIP_REACH`` tile lengths of such a part.
PART_AREA = 0.04
PIP_AREA = 0.008
PIP_REACH = 0.75


def disc(diameter: float) -> np.ndarray:
    """An elliptic structuring element about ``diameter`` pixels across (odd, 3 at least)."""
    k = max(3, int(round(diameter)) | 1)
    return np.asarray(cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)), np.uint8)


def fit_tile(before: np.ndarray, now: np.ndarray, region: tuple[float, float, float, float],
             scale: tuple[float, float], least: float = CANDIDATE_SIZE[0]
             ) -> np.ndarray | None:
    """The oriented outline of the tile that changed in ``region`` (x, y, w, h, frame
    pixels) between the grey frames ``before`` and ``now``: ``cv2.minAreaRect`` of what
    changed in the full-resolution crop (shadows left out, pips and edges closed into
    one), given the known tiles' ``scale`` (short, long); None unless tile-sized (at
    least ``least`` of a tile long)."""
    short, long = scale
    x, y, w, h = region
    pad = 0.5 * short
    x0, y0 = max(0, int(x - pad)), max(0, int(y - pad))
    x1, y1 = min(now.shape[1], int(x + w + pad)), min(now.shape[0], int(y + h + pad))
    if x1 - x0 < 3 or y1 - y0 < 3:
        return None
    # in log brightness, smoothed a tenth of a tile wide (a dark cloth's sensor noise is
    # a tenth of its log brightness a pixel), with the change the crop's rim shows taken
    # away (the exposure, a lamp): a crop hardly wider than the tile has no smooth
    # shading of its own to take away, the tile is most of it
    soft = max(0.8, short / 10)

    def log_crop(grey: np.ndarray) -> np.ndarray:
        crop = cv2.GaussianBlur(grey[y0:y1, x0:x1].astype(np.float32), (0, 0), soft)
        return np.asarray(cv2.log(np.asarray(crop) + LOG_FLOOR))

    d = log_crop(now) - log_crop(before)
    band = max(2, int(0.25 * short))
    rim = np.ones(d.shape, bool)
    rim[band:-band, band:-band] = False
    d -= float(np.median(d[rim]))  # the crop is 3 pixels or more: its rim is never empty
    noise = float(np.median(np.abs(d[rim])))
    diff = np.abs(d)
    limit = max(FIT_CHANGE, 4.0 * noise)
    # a shadow darkens broadly; what darkened in lines and specks narrower than a third
    # of a tile is pips (dark pips on a pale cloth darken it as much as a shadow does)
    shade = (diff > limit) & (d < 0) & (d > np.log(SHADOW_RATIO[0])) & (diff < 2 * FIT_CHANGE)
    shade = cv2.morphologyEx(shade.astype(np.uint8), cv2.MORPH_OPEN, disc(short / 3)) > 0
    mask = cv2.morphologyEx(((diff > limit) & ~shade).astype(np.uint8), cv2.MORPH_CLOSE,
                            disc(short / 3))
    count, labels, stats, centres = cv2.connectedComponentsWithStats(mask, connectivity=8)
    area = stats[:, cv2.CC_STAT_AREA]
    keep = [k for k in range(1, count) if area[k] >= PART_AREA * short * long]
    if not keep:
        return None
    # a pale tile on a pale cloth changes at its pips: specks a pip's size by what changed
    # more are part of it (they may be all its far half shows)
    near = [k for k in range(1, count) if k not in keep and area[k] >= PIP_AREA * short * long
            and np.min(np.linalg.norm(centres[keep] - centres[k], axis=1)) <= PIP_REACH * long]
    keep += near
    pts = np.column_stack(np.nonzero(np.isin(labels, keep))[::-1]).astype(np.float32)
    (cx, cy), (rw, rh), angle = cv2.minAreaRect(pts)
    got_short, got_long = sorted((rw, rh))
    if not (least * long <= got_long <= CANDIDATE_SIZE[1] * long
            and got_short <= CANDIDATE_WIDTH * short):
        return None
    size = (long, short) if rw >= rh else (short, long)
    # a pale tile on a pale cloth changes in part: of the places a tile-sized box has
    # over what changed, the one that changed most
    cx, cy = _strongest_place(np.minimum(diff, 1.0), (cx, cy), (rw, rh), size, angle)
    corners = cv2.boxPoints(((cx + x0, cy + y0), size, angle))
    return order_corners(corners)


def _strongest_place(weight: np.ndarray, centre: tuple[float, float],
                     outline: tuple[float, float], size: tuple[float, float], angle: float
                     ) -> tuple[float, float]:
    """The centre of the box ``size`` (w, h, turned by ``angle`` as ``cv2.minAreaRect``
    gives it) whose summed ``weight`` is largest, of the places where it covers the
    rectangle ``outline`` about ``centre`` each way it is longer than it (centred the
    other ways)."""
    slack = np.maximum(np.asarray(size, np.float64) - np.asarray(outline, np.float64), 0.0)
    if slack.max() < 1.0:
        return centre
    # the places, turned upright, a pixel a pixel
    bw, bh = max(1, int(round(size[0]))), max(1, int(round(size[1])))
    w, h = bw + int(np.ceil(slack[0])), bh + int(np.ceil(slack[1]))
    turn = cv2.getRotationMatrix2D(centre, angle, 1.0)
    turn[:, 2] += np.array([w / 2 - centre[0], h / 2 - centre[1]])
    upright = cv2.warpAffine(weight.astype(np.float32), turn, (w, h), flags=cv2.INTER_LINEAR)
    sums = cv2.integral(upright)
    totals = sums[bh:, bw:] - sums[:-bh, bw:] - sums[bh:, :-bw] + sums[:-bh, :-bw]
    y, x = np.unravel_index(int(np.argmax(totals)), totals.shape)
    # back from the upright places to the crop
    dx, dy = x + bw / 2 - w / 2, y + bh / 2 - h / 2
    a = np.deg2rad(angle)
    return (centre[0] + dx * np.cos(a) - dy * np.sin(a),
            centre[1] + dx * np.sin(a) + dy * np.cos(a))
