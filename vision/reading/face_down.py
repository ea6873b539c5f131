"""Tiles lying face down: the boneyard beside the trains, a hand's tile not turned over.

The back of a domino has no divider and no pips. The detector finds it like any
tile, the pip model finds nothing on it, and the reader would call it 0-0: a
boneyard on the table became a heap of double blanks, and a hand photo with one
tile not turned over cost its player 50 points under the standard rules. The
rules say the boneyard "is face down and carries no values" (RULES.md, what a
camera over the table sees).

Every face, the 0-0 included, has a dark divider bar across its middle; a back
has none. A reading of 0-0 whose box shows no dark mark around its middle is
taken for a back, and set apart from the tiles read. Two looks at the middle
must both find it plain: its darkest few pixels (a bar seen askew, as a loose
box or perspective turns it, still shows there) and its darkest row across the
tile (a thin, blurred bar on a small tile shows better as a row's average).

Tuned on rendered development scenes (seeds 911-914, never trained on: 1215
backs found as tiles and 536 blank faces read 0-0, tiles 10 to 260 px wide): 94-99 %
of the backs 12 px wide or more set apart (most of the rest are boxes reaching off
the back, over its thick side, a shadow or the next tile, whose edge crosses the
middle like a bar), one blank face lost (a tile 12 px wide). ``benchmarks/vision.py``
measures it again on other seeds (``face_down``).
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

from vision.models.crops import order_corners
from vision.readings import TileReading

#: A 0-0 reading is a back when the darkest 3 % of its middle is less than this much
#: darker than its face (a share of the face's brightness) ...
MAX_SPOT = 0.15
#: ... and its darkest row across the middle, on average, less than this.
MAX_ROW = 0.06
#: A box narrower than this (pixels across) is not judged: its divider, 4-8 % of a
#: tile's width thick, is under a pixel and blurred away, and a misread face there
#: would be lost rather than set right (the 0-0 reading is kept).
MIN_WIDTH_PX = 12.0
#: The box is looked at upright at this many pixels across (twice that along).
LOOK_PX = 32
#: Where the face's brightness is taken (across, along; shares of the box) and where
#: the divider is looked for: the middle, reaching a quarter of a tile width each way
#: of it for a box off centre.
FACE = ((0.15, 0.85), (0.1, 0.9))
MIDDLE = ((0.2, 0.8), (0.3, 0.7))
#: The darkest share of the middle taken as its darkest spot: a bar fills 6-10 % of it.
DARKEST = 0.03
#: Brightness below which a face is taken as this bright (grey levels): the contrast
#: of a dark back is not blown up by dividing by its low brightness.
DIM_FACE = 40.0


def middle_darkness(grey: np.ndarray, corners: np.ndarray) -> tuple[float, float]:
    """How much darker the box's middle is than its face, as shares of the face's
    brightness: its darkest spot (``DARKEST`` of it) and its darkest row across the
    tile on average. Both near 0 on a plain back; a divider bar makes them 0.1-0.9.

    ``grey`` is the image in grey levels; ``corners`` the tile's box (any start corner).
    """
    c = order_corners(corners)
    w, h = LOOK_PX, 2 * LOOK_PX
    upright = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    matrix = cv2.getPerspectiveTransform(c.astype(np.float32), upright)
    face = cv2.warpPerspective(grey, matrix, (w, h), flags=cv2.INTER_AREA,
                               borderMode=cv2.BORDER_REPLICATE).astype(np.float32)

    def part(box: tuple[tuple[float, float], tuple[float, float]]) -> np.ndarray:
        (x0, x1), (y0, y1) = box
        return face[int(y0 * h):int(y1 * h), int(x0 * w):int(x1 * w)]

    level = float(np.quantile(part(FACE), 0.7))
    middle = part(MIDDLE)
    scale = max(level, DIM_FACE)
    spot = max(level - float(np.quantile(middle, DARKEST)), 0.0) / scale
    row = max(level - float(middle.mean(axis=1).min()), 0.0) / scale
    return spot, row


def lies_face_down(grey: np.ndarray, reading: TileReading) -> bool:
    """Whether ``reading`` (read 0-0) is the back of a tile: no divider in its middle."""
    if tuple(reading.values) != (0, 0):
        return False
    c = order_corners(np.asarray(reading.corners))
    if float(np.hypot(*(c[1] - c[0]))) < MIN_WIDTH_PX:
        return False
    spot, row = middle_darkness(grey, c)
    return spot < MAX_SPOT and row < MAX_ROW


def split_face_down(image: np.ndarray, readings: Sequence[TileReading]
                    ) -> tuple[list[TileReading], list[TileReading]]:
    """``readings`` split into the tiles face up and the backs of tiles lying face down,
    in their order. ``image`` is BGR or grey."""
    if not any(tuple(r.values) == (0, 0) for r in readings):
        return list(readings), []
    grey = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    up: list[TileReading] = []
    down: list[TileReading] = []
    for r in readings:
        (down if lies_face_down(grey, r) else up).append(r)
    return up, down


#: A marker box is a back when its centre lies this far (tile widths) inside or around
#: a back set apart, or, tile-shaped (``BACK_ASPECT``) and plain in its middle, within
#: ``AMONG_BACKS`` tile widths of one: the detector sometimes calls a back a marker.
SAME_BACK = 0.5
AMONG_BACKS = 1.5
BACK_ASPECT = (1.6, 2.6)


def markers_on_backs(grey: np.ndarray, markers: np.ndarray,
                     backs: Sequence[np.ndarray]) -> np.ndarray:
    """Which of the marker boxes ``markers`` ``(N, 4, 2)`` are backs of tiles lying face
    down among the ``backs`` set apart (a boolean mask): a marker by the trains is kept,
    whatever it looks like."""
    out = np.zeros(len(markers), bool)
    if not len(markers) or not len(backs):
        return out
    boxes = [order_corners(b) for b in backs]
    width = float(np.median([np.hypot(*(b[1] - b[0])) for b in boxes]))
    for i, corners in enumerate(np.asarray(markers, np.float32).reshape(-1, 4, 2)):
        x, y = (float(v) for v in corners.mean(axis=0))
        reach = max(cv2.pointPolygonTest(b.astype(np.float32), (x, y), True) for b in boxes)
        if reach >= -SAME_BACK * width:
            out[i] = True
            continue
        if reach < -AMONG_BACKS * width:
            continue
        c = order_corners(corners)
        short, long = float(np.hypot(*(c[1] - c[0]))), float(np.hypot(*(c[2] - c[1])))
        if short < MIN_WIDTH_PX or not BACK_ASPECT[0] <= long / short <= BACK_ASPECT[1]:
            continue
        spot, row = middle_darkness(grey, c)
        out[i] = spot < MAX_SPOT and row < MAX_ROW
    return out
