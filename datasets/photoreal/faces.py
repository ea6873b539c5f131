"""A tile's face as the renderer textures it: colour and height, and where its pips are.

The face is painted in the tile's own frame: ``u`` along the tile from its near
end (0) to its far end (1), ``v`` across it from its first corner's side (0) to
its second's (1). The near half shows ``values[0]``, seen from the near end; the
far half ``values[1]``, seen from the far end (turned half a turn). Pips are
slightly sunken with a darker rim; the divider is a faint engraved line.
"""

from __future__ import annotations

import cv2
import numpy as np

from datasets.photoreal.looks import SetStyle

#: Texture pixels per half (a half is square).
HALF_PX = 128


def pip_circles(values: tuple[int, int], style: SetStyle) -> list[tuple[int, float, float, float]]:
    """``(half, u, v, radius)`` of every pip, in the tile's unit frame (radius in ``u``)."""
    out = []
    for half, n in enumerate(values):
        for x, y, r in style.pip_layout(int(n)):
            if half == 0:
                u, v = 0.5 * y, x
            else:
                u, v = 1 - 0.5 * y, 1 - x
            out.append((half, float(u), float(v), float(r) * 0.5))
    return out


def paint_face(values: tuple[int, int], style: SetStyle,
               rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """The face's colour (BGR uint8, ``HALF_PX`` x ``2 * HALF_PX``, rows ``v``, columns
    ``u``) and height (uint8, 255 the face, lower sunken)."""
    h, w = HALF_PX, 2 * HALF_PX
    body = np.array(style.body[::-1]) * 255
    colour = np.empty((h, w, 3), np.float32)
    colour[:] = body
    colour += rng.normal(0, 1.5, (h, w, 1)).astype(np.float32)  # a faint grain
    height = np.full((h, w), 255, np.uint8)
    k = 4  # paint at 4x and shrink, for round pips
    big_c = cv2.resize(colour, (w * k, h * k), interpolation=cv2.INTER_NEAREST)
    big_h = cv2.resize(height, (w * k, h * k), interpolation=cv2.INTER_NEAREST)
    groove = int(round(0.012 * w * k))
    cv2.line(big_c, (w * k // 2, int(0.1 * h * k)), (w * k // 2, int(0.9 * h * k)),
             (body * 0.8).tolist(), groove, cv2.LINE_AA)
    cv2.line(big_h, (w * k // 2, int(0.1 * h * k)), (w * k // 2, int(0.9 * h * k)), 190, groove,
             cv2.LINE_AA)
    for half, u, v, r in pip_circles(values, style):
        n = values[half]
        pip = np.array(style.pips[n][::-1]) * 255
        centre = (int(round(u * w * k)), int(round(v * h * k)))
        radius = int(round(r * w * k))
        cv2.circle(big_c, centre, radius, (pip * 0.55 + body * 0.05).tolist(), -1, cv2.LINE_AA)
        cv2.circle(big_c, centre, int(radius * 0.8), pip.tolist(), -1, cv2.LINE_AA)
        cv2.circle(big_h, centre, radius, int(135 - 100 * style.pip_depth / 1.2), -1,
                   cv2.LINE_AA)
    small_c: np.ndarray = cv2.resize(big_c, (w, h), interpolation=cv2.INTER_AREA)
    small_h: np.ndarray = cv2.GaussianBlur(
        cv2.resize(big_h, (w, h), interpolation=cv2.INTER_AREA), (0, 0), 0.8)
    return np.clip(small_c, 0, 255).astype(np.uint8), small_h.astype(np.uint8)


def face_point(corners: np.ndarray, u: float | np.ndarray, v: float | np.ndarray) -> np.ndarray:
    """World points of tile-frame ``(u, v)`` on a tile with footprint ``corners`` (4, 2)."""
    c = np.asarray(corners, np.float64)
    u = np.asarray(u, np.float64)[..., None]
    v = np.asarray(v, np.float64)[..., None]
    return c[0] + u * (c[3] - c[0]) + v * (c[1] - c[0])
