"""Where the colour of the tiles read says another tile lies, in a hand photo.

A set's faces share one colour (ivory, white, cream), and the faces read give it: the
pixels inside each box read (``FACE_SHARE`` of it, its edges and sides left out). A
pixel is of that colour within ``COLOUR_REACH`` times the distance (CIE Lab) from the
faces' median colour that holds ``COLOUR_SHARE`` of their own pixels (never less than
``COLOUR_FLOOR``); the pips and the divider are closed over (``CLOSE_SHARE`` of a
tile's width). Outside the boxes read (``KNOWN_MARGIN`` round each), that colour shows
where a tile may lie that no box was read at:

:func:`tile_coloured`: a patch of it of a tile's size and shape (sides within
``SIZE_RANGE`` times the read tiles' median ones, filling ``FILL_SHARE`` of its
rectangle, ``MIN_ASPECT`` times longer than wide).

``vision.stills.missed_tiles`` takes these for tiles perhaps missed.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.models.detections import box_sides
from vision.readings import FrameReading

#: A tile's short and long sides, as shares of the read tiles' median ones: a factor of
#: two either way (a photo's perspective makes near tiles bigger than far ones).
SIZE_RANGE = (0.5, 2.0)
#: The tiles' colour is looked for at this long side (pixels) at most.
COLOUR_SIDE = 800
#: The faces' pixels sampled, and how far from their colour a pixel may be (module
#: docstring).
FACE_SHARE = 0.7
COLOUR_SHARE = 0.75
COLOUR_REACH = 1.5
#: CIE Lab units: faces of one flat colour still reach their shading.
COLOUR_FLOOR = 10.0
#: Pips and the divider are closed over, and threads of colour cut, at this share of a
#: tile's width; a box read keeps ``KNOWN_MARGIN`` more round it out of the search.
CLOSE_SHARE = 0.2
KNOWN_MARGIN = 1.15
#: A patch is a tile's when it fills this share of its rectangle and is this many
#: times longer than wide (a domino 2, its face at a slant less).
FILL_SHARE = 0.7
MIN_ASPECT = 1.3
def _scaled(corners: np.ndarray, factor: float) -> np.ndarray:
    centre = corners.mean(axis=0)
    return centre + (corners - centre) * factor


def _fill(shape: tuple[int, ...], boxes: np.ndarray, factor: float) -> np.ndarray:
    mask = np.zeros(shape[:2], np.uint8)
    for c in boxes:
        cv2.fillConvexPoly(mask, np.round(_scaled(c, factor)).astype(np.int32), 1)
    return mask


def _read(frame: FrameReading) -> tuple[np.ndarray, np.ndarray]:
    read = np.asarray(frame.tiles.corners, np.float32).reshape(-1, 4, 2)
    down = np.array(frame.backs, np.float32).reshape(-1, 4, 2)
    return read, np.concatenate([read, down])


def colour_mask(image: np.ndarray, read: np.ndarray) -> tuple[np.ndarray, float] | None:
    """Which pixels of ``image``, shrunk to ``COLOUR_SIDE`` at most, are of the colour
    of the faces ``read`` ``(N, 4, 2)``, pips closed over (uint8 0/1), and the scale it
    was shrunk by; None when the faces show too few pixels to tell."""
    scale = min(1.0, COLOUR_SIDE / max(image.shape[:2]))
    small = (cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
             if scale < 1.0 else image)
    lab = cv2.cvtColor(small, cv2.COLOR_BGR2LAB).astype(np.float32)
    samples = lab[_fill(small.shape, read * scale, FACE_SHARE) > 0]
    if len(samples) < 50:
        return None
    centre = np.median(samples, axis=0)
    reach = max(COLOUR_FLOOR, COLOUR_REACH * float(np.quantile(
        np.linalg.norm(samples - centre, axis=1), COLOUR_SHARE)))
    mask = (np.linalg.norm(lab - centre, axis=2) < reach).astype(np.uint8)
    width = float(np.median(box_sides(read * scale)[:, 0]))
    kernel = np.ones((max(3, int(CLOSE_SHARE * width) | 1),) * 2, np.uint8)
    return cv2.morphologyEx(mask, cv2.MORPH_CLOSE, kernel), scale


def tile_coloured(image: np.ndarray, frame: FrameReading) -> np.ndarray:
    """Boxes ``(N, 4, 2)`` round the patches of ``image`` of the colour of the faces
    ``frame`` read, outside every box it holds, of a tile's size and shape; none when
    no tile was read (no colour to look for)."""
    read, known = _read(frame)
    found = colour_mask(image, read) if len(read) else None
    if found is None:
        return np.zeros((0, 4, 2), np.float32)
    mask, scale = found
    width, length = np.median(box_sides(read * scale), axis=0)
    kernel = np.ones((max(3, int(CLOSE_SHARE * width) | 1),) * 2, np.uint8)
    mask = mask * (_fill(mask.shape, known * scale, KNOWN_MARGIN) == 0)
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, kernel)
    count, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=4)
    boxes = []
    low, high = SIZE_RANGE
    for k in range(1, count):
        area = float(stats[k, cv2.CC_STAT_AREA])
        if not low ** 2 * width * length <= area <= high ** 2 * width * length:
            continue
        points = np.column_stack(np.nonzero(labels == k)[::-1]).astype(np.float32)
        rect = cv2.minAreaRect(points)
        short, long = sorted(float(v) for v in rect[1])
        if (low * width <= short <= high * width and low * length <= long <= high * length
                and area >= FILL_SHARE * short * long and long >= MIN_ASPECT * short):
            boxes.append(cv2.boxPoints(rect) / scale)
    return np.array(boxes, np.float32).reshape(-1, 4, 2)
