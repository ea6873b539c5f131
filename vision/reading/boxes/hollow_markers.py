"""A train marker is a solid thing: a box whose middle is the table itself is none.

The detector takes a loop of the background's thread, or a thread crossing the
cloth, for a coin now and then (rendered 1920x1080 tables: blue cloth with green
thread loops, scores up to 0.73). Coins, pawns and toy trains are solid: the
middle of their box shows the marker, not the table. So a marker box whose
middle has the very colour of the table around it is a hollow ring or a line,
and is dropped.

The measure: the median colour (CIE Lab, OpenCV's 8-bit scale) of a disc in the
box's middle against the median colour of a ring of table around the box. Medians
keep a thread crossing the disc, or a tile lying in part of the ring, from
deciding it.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.models.detections import Detections
from vision.reading.boxes.box_shape import box_sizes

#: A marker box whose middle differs from the table around it by less than this (Lab
#: distance, OpenCV's 8-bit scale) is a hollow ring or a thread, not a marker. Chosen on
#: rendered tables not in the benchmark (fresh seeds 1300000+ and 1400000+, mat and no
#: mat, 1920x1080): of 460 marker boxes found on real markers, the least distinct
#: middle was 5.0 (a blue toy train on blue cloth, a grey coin on grey); 8 of the 32
#: boxes found on no marker lay below 4.5 (thread loops and lines: 0.0-3.3).
HOLLOW_LAB = 4.0
#: The middle disc's radius, in halves of the box's short side.
MIDDLE_RADIUS = 0.35
#: The ring of table around the box, in halves of its long side.
RING = (1.4, 2.2)
#: Fewest pixels the middle disc must hold to judge it (smaller boxes are kept).
MIN_MIDDLE_PX = 5


def middle_contrast(image: np.ndarray, corners: np.ndarray) -> float | None:
    """How far (Lab distance) the middle of the box ``corners`` lies from the table
    around it in ``image`` (BGR); ``None`` when the box is too small, or too near the
    image's edge, to tell."""
    corners = np.asarray(corners, np.float64)
    centre = corners.mean(axis=0)
    sides = np.concatenate(box_sizes(corners))
    short, long = 0.5 * float(sides.min()), 0.5 * float(sides.max())
    reach = int(np.ceil(RING[1] * long)) + 1
    h, w = image.shape[:2]
    x0, y0 = int(np.floor(centre[0])) - reach, int(np.floor(centre[1])) - reach
    x1, y1 = x0 + 2 * reach + 2, y0 + 2 * reach + 2
    if x0 < 0 or y0 < 0 or x1 > w or y1 > h:
        return None
    ys, xs = np.mgrid[y0:y1, x0:x1]
    dist = np.hypot(xs - centre[0], ys - centre[1])
    patch = image[y0:y1, x0:x1]
    if patch.ndim == 2:
        patch = cv2.cvtColor(patch, cv2.COLOR_GRAY2BGR)
    patch = cv2.cvtColor(np.ascontiguousarray(patch[..., :3]), cv2.COLOR_BGR2LAB)
    patch = patch.reshape(-1, 3).astype(np.float32)
    dist = dist.reshape(-1)
    middle = patch[dist <= MIDDLE_RADIUS * short]
    ring = patch[(dist >= RING[0] * long) & (dist <= RING[1] * long)]
    if len(middle) < MIN_MIDDLE_PX or not len(ring):
        return None
    return float(np.linalg.norm(np.median(middle, axis=0) - np.median(ring, axis=0)))


def drop_hollow(markers: Detections, image: np.ndarray) -> Detections:
    """``markers`` without those whose middle is the table around them
    (``HOLLOW_LAB``), in ``image`` (BGR)."""
    if not len(markers):
        return markers
    keep = [j for j, c in enumerate(markers.corners)
            if (contrast := middle_contrast(image, c)) is None or contrast >= HOLLOW_LAB]
    return markers if len(keep) == len(markers) else markers[np.array(keep, dtype=np.int64)]
