"""The table as a fixed camera's comparisons see it, and how two such views differ.

:func:`table_view` makes a small copy of a frame in which light does not count (every
colour normalised for brightness and contrast, smooth shading taken away, colour kept
as chromaticity with the light's cast taken out); :func:`changed_mask`,
:func:`shadow_mask` and :func:`box_change` say where and how much two views differ.
``vision.change.known_table`` keeps such views of the bare and the settled table.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.change.channels import channel_max, channel_mean, channel_sum
from vision.models.detections import box_sides

#: Width (pixels) of the small copy the table is compared on.
VIEW_WIDTH = 480
#: Added to every grey level before its logarithm (the sensor's noise floor).
LOG_FLOOR = 12.0
#: Smooth shading (a lamp, a vignette, a soft shadow) is what a blur this wide (small
#: pixels) keeps; the rest is detail.
SHADING_SIGMA = 10.0
#: A pixel whose normalised detail moved more than this, or more than ``SPREAD_TIMES``
#: its spread over the empty frames, has changed.
PIXEL_CHANGE = 0.45
SPREAD_TIMES = 4.0
#: A change of this much in chromaticity (r or g of r, g, b summing to 1) counts.
CHROMA_CHANGE = 0.05
#: Added to r + g + b before the chromaticity is taken (dark pixels have little colour).
CHROMA_FLOOR = 90.0
#: Detail (log brightness) a flat bare table is taken to have at least, so that a
#: plain cloth's noise is not a change.
TEXTURE_FLOOR = 0.1
#: A change of this much in log brightness (the frame's overall change taken out) is
#: an object's, not the cloth's (``tone_changed``).
TONE_CHANGE = 0.2
#: A shadow: darker by this factor range with its colour kept.
SHADOW_RATIO = (0.3, 0.9)


def _small(frame: np.ndarray, width: int = VIEW_WIDTH) -> np.ndarray:
    """``frame`` shrunk to ``width`` by pixel-area averaging: first by the whole factor that
    fits (OpenCV's fast path), then the rest (a fractional factor on a full frame takes
    OpenCV's slow path, 20 ms for 1280x720 to 480)."""
    h, w = frame.shape[:2]
    size = (width, max(1, round(h * width / w)))
    k = w // width
    if k >= 2 and w % width:
        frame = cv2.resize(frame, (w // k, h // k), interpolation=cv2.INTER_AREA)
    return cv2.resize(frame, size, interpolation=cv2.INTER_AREA).astype(np.float32)


def _shading(image: np.ndarray) -> np.ndarray:
    """The smooth shading of ``image`` (h, w, c): a Gaussian blur of ``SHADING_SIGMA``,
    taken on an eighth of the size (a wide blur costs little there)."""
    h, w = image.shape[:2]
    tiny = cv2.resize(image, (max(1, w // 8), max(1, h // 8)), interpolation=cv2.INTER_AREA)
    tiny = cv2.GaussianBlur(tiny, (0, 0), SHADING_SIGMA / 8)
    return np.asarray(cv2.resize(tiny, (w, h), interpolation=cv2.INTER_LINEAR)
                      .reshape(image.shape))


@dataclass(frozen=True)
class TableView:
    """A frame as the known table compares it: ``detail`` (h, w, c) normalised fine detail,
    ``chroma`` (h, w, 2) chromaticity, ``grey`` (h, w) brightness over its mean, and the
    full frame's ``scale`` (frame pixels per small pixel)."""

    detail: np.ndarray
    chroma: np.ndarray
    grey: np.ndarray
    scale: float


def table_view(frame: np.ndarray, width: int = VIEW_WIDTH) -> TableView:
    """``frame`` as :class:`TableView`: what a lamp, auto-exposure and noise leave alone."""
    small = cv2.GaussianBlur(_small(frame, width), (3, 3), 0)
    if small.ndim == 2:
        small = small[..., None]
    # in log brightness a lamp, a shadow or the exposure multiplies nothing but adds a
    # smooth term, which taking the smooth shading away removes
    log = cv2.log(small + LOG_FLOOR)
    detail = log - _shading(log)
    total = channel_sum(small) + CHROMA_FLOOR
    chroma = (np.dstack([small[..., 1] / total, small[..., 2] / total])
              if small.shape[2] == 3 else np.zeros(small.shape[:2] + (2,), np.float32))
    grey = channel_mean(small)
    grey = grey / (float(grey.mean()) + 1e-6)
    return TableView(np.asarray(detail, np.float32), np.asarray(chroma, np.float32),
                     np.asarray(grey, np.float32), frame.shape[1] / small.shape[1])


def changed_mask(base: TableView, now: TableView, spread: np.ndarray | None = None
                 ) -> np.ndarray:
    """Pixels of ``now`` that differ from ``base`` (bool, small size): in fine detail
    beyond ``PIXEL_CHANGE`` (or ``SPREAD_TIMES`` the pixel's ``spread``), or in colour
    beyond ``CHROMA_CHANGE`` once the light's overall colour cast is taken out."""
    d = channel_max(np.abs(now.detail - base.detail))
    limit = PIXEL_CHANGE if spread is None else np.maximum(PIXEL_CHANGE, SPREAD_TIMES * spread)
    return np.asarray((d > limit) | (_colour_change(base, now) > CHROMA_CHANGE))


def _colour_change(base: TableView, now: TableView) -> np.ndarray:
    """Each pixel's change in chromaticity, the light's overall colour cast taken out
    (the median change, over every 16th pixel)."""
    out = []
    for k in range(2):  # channel by channel: NumPy is slow over a short last axis
        c = now.chroma[..., k] - base.chroma[..., k]
        c -= np.median(c.reshape(-1)[::16])
        out.append(np.abs(c))
    return np.asarray(np.maximum(out[0], out[1]))


def tone_changed(base: TableView, now: TableView) -> np.ndarray:
    """Pixels of ``now`` whose brightness (the frame's overall change taken out) moved by
    ``TONE_CHANGE`` in log or whose colour moved by ``CHROMA_CHANGE`` from ``base``: what
    an object laid there changes, and the cloth between tiles does not (its detail moves
    with the tiles' glow in the shading it is measured against)."""
    r = np.log(np.maximum(now.grey, 1e-3)) - np.log(np.maximum(base.grey, 1e-3))
    r -= float(np.median(r.reshape(-1)[::16]))
    return np.asarray((np.abs(r) > TONE_CHANGE) | (_colour_change(base, now) > CHROMA_CHANGE))


def shadow_mask(base: TableView, now: TableView) -> np.ndarray:
    """Pixels of ``now`` darker than in ``base`` by ``SHADOW_RATIO`` with their colour
    kept: a shadow, not a tile."""
    ratio = now.grey / np.maximum(base.grey, 1e-3)
    same_colour = _colour_change(base, now) <= CHROMA_CHANGE
    return np.asarray((ratio >= SHADOW_RATIO[0]) & (ratio <= SHADOW_RATIO[1]) & same_colour)


def box_change(empty: TableView, now: TableView, inside: np.ndarray, slack: int = 0,
               origin: tuple[int, int] = (0, 0), noise: float = 0.0) -> float:
    """How much the pixels ``inside`` (bool, small size; or a patch of it whose top left
    corner lies at ``origin`` (y, x)) changed from ``empty`` to ``now``: their mean
    change in detail over the bare table's own detail there (plus ``TEXTURE_FLOOR``). A
    striped cloth's noise and aliasing grow with its stripes' contrast; a tile on it
    changes far more than that. With ``slack`` (pixels), the bare table is also tried
    moved by up to that much each way and the least change kept (two photos registered
    by hand-held features lie a pixel or two apart). ``noise`` (detail) is added to the
    floor: what two shots of one bare table differ by anyway (their own sensor noise and
    JPEG, strong in log brightness on a dark cloth)."""
    ys, xs = np.nonzero(inside)
    ys, xs = ys + origin[0], xs + origin[1]
    h, w = empty.grey.shape
    y0, y1 = max(int(ys.min()) - slack, 0), min(int(ys.max()) + 1 + slack, h)
    x0, x1 = max(int(xs.min()) - slack, 0), min(int(xs.max()) + 1 + slack, w)
    part = np.zeros((y1 - y0, x1 - x0), bool)
    part[ys - y0, xs - x0] = True
    here = now.detail[y0:y1, x0:x1]
    best = np.inf
    for dy in range(-slack, slack + 1):
        for dx in range(-slack, slack + 1):
            ey0, ey1, ex0, ex1 = y0 + dy, y1 + dy, x0 + dx, x1 + dx
            if ey0 < 0 or ex0 < 0 or ey1 > h or ex1 > w:
                continue
            there = empty.detail[ey0:ey1, ex0:ex1]
            d = channel_max(np.abs(here - there))[part]
            texture = channel_max(np.abs(there))[part]
            best = min(best, float(d.mean() / (texture.mean() + TEXTURE_FLOOR + noise)))
    return best


def change_map(empty: TableView, now: TableView, size: int, slack: int = 0,
               noise: float = 0.0) -> np.ndarray:
    """What :func:`box_change` measures, for a ``size`` x ``size`` box about every pixel
    (small size, float): each pixel's least change in detail from ``empty`` to ``now`` over
    the bare table moved by up to ``slack`` pixels each way, averaged over the box, over the
    bare table's own detail there (plus ``TEXTURE_FLOOR`` and ``noise``). Where it reaches
    what a tile's box changes, something was laid."""
    h, w = now.grey.shape
    pad = np.pad(empty.detail, ((slack, slack), (slack, slack), (0, 0)), mode="edge")
    least: np.ndarray | None = None
    for dy in range(2 * slack + 1):
        for dx in range(2 * slack + 1):
            d = channel_max(np.abs(now.detail - pad[dy:dy + h, dx:dx + w]))
            least = d if least is None else np.minimum(least, d)
    assert least is not None
    k = (max(1, size), max(1, size))
    texture = cv2.blur(channel_max(np.abs(empty.detail)), k)
    return np.asarray(cv2.blur(least, k) / (texture + TEXTURE_FLOOR + noise), np.float32)


def polygon_patch(shape: tuple[int, int], corners: np.ndarray, scale: float,
                   rim: int = 1) -> tuple[tuple[int, int], np.ndarray]:
    """:func:`polygon_mask` cut to the polygon's bounding box: the patch's top left
    corner (y, x) and the mask there (empty where the polygon lies off ``shape``)."""
    pts = np.round(np.asarray(corners, np.float32).reshape(-1, 2) / scale).astype(np.int32)
    h, w = shape
    x0, y0 = max(int(pts[:, 0].min()) - rim, 0), max(int(pts[:, 1].min()) - rim, 0)
    x1 = min(int(pts[:, 0].max()) + rim + 1, w)
    y1 = min(int(pts[:, 1].max()) + rim + 1, h)
    if x1 <= x0 or y1 <= y0:
        return (0, 0), np.zeros((0, 0), bool)
    mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.fillPoly(mask, [pts - np.array([x0, y0], np.int32)], 1)
    if rim:
        return (y0, x0), np.asarray(cv2.dilate(mask, np.ones((2 * rim + 1, 2 * rim + 1),
                                                             np.uint8)), bool)
    return (y0, x0), mask.astype(bool)


def covered_mask(shape: tuple[int, int], outlines: np.ndarray, scale: float,
                 rim: int = 1) -> np.ndarray:
    """Where any of ``outlines`` (N, 4, 2; frame pixels, ``scale`` of them a pixel of the
    small copy ``shape``) lies, grown by ``rim`` pixels: :func:`polygon_patch` of each."""
    out = np.zeros(shape, bool)
    for c in outlines:
        (y0, x0), inside = polygon_patch(shape, c, scale, rim)
        out[y0:y0 + inside.shape[0], x0:x0 + inside.shape[1]] |= inside
    return out


def polygon_mask(shape: tuple[int, int], corners: np.ndarray, scale: float,
                  rim: int = 1) -> np.ndarray:
    mask = np.zeros(shape, np.uint8)
    cv2.fillPoly(mask, [np.round(np.asarray(corners, np.float32) / scale).astype(np.int32)], 1)
    if rim:
        return np.asarray(cv2.dilate(mask, np.ones((2 * rim + 1, 2 * rim + 1), np.uint8)),
                          bool)
    return mask.astype(bool)


def tile_scale(corners: np.ndarray) -> tuple[float, float] | None:
    """Median short and long side (pixels) of the tile outlines ``corners`` (N, 4, 2)."""
    sides = box_sides(corners)
    if not len(sides):
        return None
    short, long = np.median(sides, axis=0)
    return float(short), float(long)
