"""Rectified tile crops: the only view of a tile the pip model ever sees.

Training data (``datasets``) and inference (``vision.reading.reader``) both cut crops
with these functions, so the two cannot drift apart.

Corner convention: ``corners[0], corners[1]`` are the short edge at the first
value's end, ``corners[2], corners[3]`` the short edge at the second value's
end, in polygon order.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

#: Side of one half-tile crop in pixels: the pip model's input size.
HALF_PX = 96
#: Extra border kept round the tile, as a fraction of the tile's short side, so
#: that a slightly tight box still shows every pip.
MARGIN = 0.06


def order_corners(corners: np.ndarray) -> np.ndarray:
    """Return ``corners`` (4, 2) re-ordered so that 0-1 is a short edge.

    The polygon order is kept; only the starting corner moves by one if the
    first edge was a long one.
    """
    c = np.asarray(corners, dtype=np.float32).reshape(4, 2)
    (x0, y0), (x1, y1), (x2, y2) = c[:3].tolist()
    # plain floats: numpy's norm of a 2-vector costs more than the arithmetic, and
    # this runs several times per tile per frame
    if math.hypot(x1 - x0, y1 - y0) > math.hypot(x2 - x1, y2 - y1):
        c = np.roll(c, -1, axis=0)
    return c


def rectify_tile(image: np.ndarray, corners: np.ndarray, half_px: int = HALF_PX,
                 margin: float = MARGIN) -> np.ndarray:
    """Warp one tile upright: the first half on top, shape ``(2*half_px, half_px, 3)``.

    ``corners`` must follow the corner convention (0-1 the short edge at the
    first value's end).
    """
    c = np.asarray(corners, dtype=np.float32).reshape(4, 2)
    w, h = half_px, 2 * half_px
    m = margin * w
    dst = np.array([[m, m], [w - m, m], [w - m, h - m], [m, h - m]], dtype=np.float32)
    matrix = cv2.getPerspectiveTransform(c, dst)
    return cv2.warpPerspective(image, matrix, (w, h), flags=cv2.INTER_AREA,
                               borderMode=cv2.BORDER_REPLICATE)


def half_polygons(corners: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The faces of a tile's two halves in image pixels, ``(4, 2)`` quadrilaterals, the
    first half's first (``corners`` in the corner convention: 0-1 the short edge at the
    first half). Float input keeps its precision."""
    c = np.asarray(corners)
    c = c.astype(np.result_type(c.dtype, np.float32), copy=False).reshape(4, 2)
    left, right = (c[0] + c[3]) / 2, (c[1] + c[2]) / 2
    return np.array([c[0], c[1], right, left]), np.array([left, right, c[2], c[3]])


def tile_halves(crop: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Split an upright crop into its two halves, each ``(half_px, half_px, 3)``.

    The second half is turned half a circle so that both halves are seen from
    their own end of the tile, the way the first one is.
    """
    half_px = crop.shape[1]
    first = crop[:half_px]
    second = cv2.rotate(crop[half_px:2 * half_px], cv2.ROTATE_180)
    return np.ascontiguousarray(first), np.ascontiguousarray(second)


def half_crops(image: np.ndarray, corners: np.ndarray,
               half_px: int = HALF_PX) -> tuple[np.ndarray, np.ndarray]:
    """Both half crops of the tile at ``corners``: ``tile_halves(rectify_tile(...))``."""
    return tile_halves(rectify_tile(image, corners, half_px))


#: When a tile is this many times larger than its crop, the region is first
#: shrunk with pixel-area averaging, so that pips of big photos do not alias.
PRESHRINK_ABOVE = 2.0


def tile_half_crops(image: np.ndarray, corners: np.ndarray,
                    half_px: int = HALF_PX) -> tuple[np.ndarray, np.ndarray]:
    """``vision.models.crops.half_crops`` of one tile, shrinking large tiles first.

    A tile many times bigger than its crop (a 12 MP photo) is cut out and
    shrunk with pixel-area averaging before the crop is made, so that the crop
    shows pips the way a smaller, sharp image would rather than aliased.
    """
    c = np.asarray(corners, dtype=np.float32)
    short = float(min(np.linalg.norm(c[1] - c[0]), np.linalg.norm(c[2] - c[3])))
    factor = short / half_px
    if factor <= PRESHRINK_ABOVE:
        return half_crops(image, c, half_px)
    h, w = image.shape[:2]
    pad = short * 0.25
    x0 = int(max(np.floor(c[:, 0].min() - pad), 0))
    y0 = int(max(np.floor(c[:, 1].min() - pad), 0))
    x1 = int(min(np.ceil(c[:, 0].max() + pad), w))
    y1 = int(min(np.ceil(c[:, 1].max() + pad), h))
    if x1 - x0 < 2 or y1 - y0 < 2:
        return half_crops(image, c, half_px)
    region = image[y0:y1, x0:x1]
    scale = 1.0 / factor
    size = (max(int(round((x1 - x0) * scale)), 1), max(int(round((y1 - y0) * scale)), 1))
    small = cv2.resize(region, size, interpolation=cv2.INTER_AREA)
    sx, sy = size[0] / (x1 - x0), size[1] / (y1 - y0)
    # pixel centres: x_small + 0.5 == (x + 0.5) * scale
    local = (c - np.array([x0, y0], np.float32) + 0.5) * np.array([sx, sy], np.float32) - 0.5
    return half_crops(small, local, half_px)
