"""Giving a small tile's box the shape of its neighbours.

Seen from above, every tile of a set has one shape, twice as long as it is
wide, and a webcam over a table sees them all at nearly one size. On such
tiles (10-25 px wide) the detector's box is sometimes short or fat: cut off
at one end, or widened over a neighbour or a marker. The half crops cut from
such a box lose a row of pips at one end or show another tile's pips, and the
pip model miscounts them, though it reads the same tile right at its true
corners. Measured on rendered 1920x1080 tables (20 on the mat): boxes read
right are 0.99 of the true length and width at the median (0.93-1.06 from
the 5th to the 95th percentile), boxes misread where the true corners read
right are 0.92 of the length and up to 1.33 of the width.

A box noticeably shorter or wider than the median of its nearest neighbours
is given that median shape, about its own centre and along its own axis
(:func:`vision.reading.boxes.divider.snap_to_divider` then moves it along the train, as
for any small box). Only where those neighbours look like tiles seen from
above (length about twice the width): in a slanted photo tiles are
foreshortened, and there the box is left as found.
"""

from __future__ import annotations

import numpy as np

#: How many boxes (the box itself included) give the shape a box should have,
#: and the fewest a frame needs for any box to be reshaped.
NEIGHBOURS = 9
FEWEST = 5
#: A box shorter than this share of its neighbours' median length, or wider
#: than this share of their median width, is reshaped.
SHORT = 0.95
WIDE = 1.08
#: Beyond these it is not a tile's box gone astray but something else (a piece
#: of a tile, or two tiles side by side): :mod:`vision.reading.boxes.fragments` and the
#: table's rules deal with those.
SHORTEST = 0.6
WIDEST = 1.5
#: Length over width of the neighbours' median shape for tiles seen from above.
TOP_DOWN_ASPECT = (1.8, 2.2)


def box_sizes(boxes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Widths (edge 0-1) and lengths (between the short edges' midpoints) of ``(N, 4, 2)``
    boxes in the corner convention."""
    b = np.asarray(boxes, np.float64).reshape(-1, 4, 2)
    widths = np.linalg.norm(b[:, 1] - b[:, 0], axis=1)
    lengths = np.linalg.norm((b[:, 2] + b[:, 3] - b[:, 0] - b[:, 1]) / 2, axis=1)
    return widths, lengths


def neighbour_shapes(boxes: np.ndarray, k: int = NEIGHBOURS) -> np.ndarray | None:
    """``(N, 2)`` median width and length of each box's ``k`` nearest boxes (itself
    included); None when there are fewer than :data:`FEWEST` boxes to go by."""
    b = np.asarray(boxes, np.float64).reshape(-1, 4, 2)
    if len(b) < FEWEST:
        return None
    widths, lengths = box_sizes(b)
    centres = b.mean(axis=1)
    distance = np.linalg.norm(centres[:, None] - centres[None], axis=2)
    nearest = np.argsort(distance, axis=1, kind="stable")[:, :k]
    return np.stack([np.median(widths[nearest], axis=1), np.median(lengths[nearest], axis=1)],
                    axis=1)


def reshape_box(corners: np.ndarray, width: float, length: float) -> np.ndarray:
    """``corners`` given ``width`` and ``length`` about the same centre and axis; the
    corner convention (0-1 the first short edge, then round the box) is kept."""
    c = np.asarray(corners, np.float64).reshape(4, 2)
    centre = c.mean(axis=0)
    axis = (c[2] + c[3] - c[0] - c[1]) / 2
    u = axis / max(float(np.linalg.norm(axis)), 1e-9)
    v = np.array([-u[1], u[0]])
    if float((c[1] - c[0]) @ v) < 0:
        v = -v
    return _box_about(centre, u, v, width, length)


def _box_about(centre: np.ndarray, u: np.ndarray, v: np.ndarray, width: float,
               length: float) -> np.ndarray:
    """The box (corner convention) of ``width`` and ``length`` about ``centre``, long
    along the unit vector ``u``, its first short edge running along ``v``."""
    a, b = length / 2, width / 2
    return np.array([centre - a * u - b * v, centre - a * u + b * v,
                     centre + a * u + b * v, centre + a * u - b * v], np.float32)


def to_neighbour_shape(corners: np.ndarray, shape: np.ndarray) -> np.ndarray | None:
    """The box ``corners`` reshaped to ``shape`` (width, length) when it is noticeably
    short or wide for it, and the shape is a top-down tile's; else None."""
    width, length = float(shape[0]), float(shape[1])
    if width <= 0 or not TOP_DOWN_ASPECT[0] <= length / width <= TOP_DOWN_ASPECT[1]:
        return None
    w, n = box_sizes(corners)
    bw, bl = float(w[0]), float(n[0])
    if not (bl < SHORT * length or bw > WIDE * width):
        return None
    if bl < SHORTEST * length or bw > WIDEST * width:
        return None
    return reshape_box(corners, width, length)


# -- nearly square boxes ---------------------------------------------------------------
#
# Now and then the detector frames a small tile with a box nearly as wide as it is
# long (a double laid across a train, boxed over the train's tiles beside it). Such
# a box's axis is a guess, often 30-60 degrees off, and reading it along that axis
# cuts crops across both halves. A tile in a train lies along the train or across it
# (a double), so such a box is also read turned to the axis of each tile that
# continues a train from it (one whose own axis points at the box, end to end), and
# across it, and the reader keeps the most confident reading. In a hand laid out
# for scoring, tiles lie side by side, not end to end, and are left as found.

#: A box shorter than this many times its width is nearly square.
SQUARISH = 1.5
#: A neighbour continues a train from the box when the line between their centres is
#: within ``TRAIN_DEG`` of the neighbour's axis, and the centres are no further apart
#: than ``TRAIN_REACH`` tile lengths; its axis is clear when it is ``CLEAR_AXIS``
#: times as long as wide.
TRAIN_DEG = 20.0
TRAIN_REACH = 1.25
CLEAR_AXIS = 1.7
#: Axes closer than this (degrees) count as one.
SAME_AXIS_DEG = 15.0


def axis_degrees(boxes: np.ndarray) -> np.ndarray:
    """Direction of each ``(N, 4, 2)`` box's long axis (corner convention), 0-180 degrees."""
    b = np.asarray(boxes, np.float64).reshape(-1, 4, 2)
    axis = (b[:, 2] + b[:, 3] - b[:, 0] - b[:, 1]) / 2
    return np.degrees(np.arctan2(axis[:, 1], axis[:, 0])) % 180.0


def _apart(a: float, b: float) -> float:
    d = abs(a - b) % 180.0
    return min(d, 180.0 - d)


def box_at(centre: np.ndarray, degrees: float, width: float, length: float) -> np.ndarray:
    """A box (corner convention) of ``width`` and ``length`` about ``centre``, its long
    axis at ``degrees``."""
    t = np.radians(degrees)
    u = np.array([np.cos(t), np.sin(t)])
    return _box_about(np.asarray(centre, np.float64), u, np.array([-u[1], u[0]]), width,
                      length)


def turned_boxes(boxes: np.ndarray, i: int, shape: np.ndarray) -> list[np.ndarray]:
    """When box ``i`` of ``boxes`` is nearly square (``SQUARISH``) and ``shape`` (width,
    length) is a top-down tile's, boxes of that shape about its centre lying along and
    across each neighbour that continues a train from it (``TRAIN_DEG``,
    ``TRAIN_REACH``), but for its own axis; else none."""
    b = np.asarray(boxes, np.float64).reshape(-1, 4, 2)
    width, length = float(shape[0]), float(shape[1])
    if width <= 0 or not TOP_DOWN_ASPECT[0] <= length / width <= TOP_DOWN_ASPECT[1]:
        return []
    own_width, own_length = box_sizes(b[i])
    if not own_length[0] < SQUARISH * own_width[0]:
        return []
    widths, lengths = box_sizes(b)
    centres = b.mean(axis=1)
    angles = axis_degrees(b)
    way = centres - centres[i]
    apart = np.linalg.norm(way, axis=1)
    bearing = np.degrees(np.arctan2(way[:, 1], way[:, 0])) % 180.0
    train = [j for j in np.argsort(apart, kind="stable").tolist()
             if j != i and 0 < apart[j] <= TRAIN_REACH * length
             and lengths[j] >= CLEAR_AXIS * widths[j]
             and _apart(float(bearing[j]), float(angles[j])) <= TRAIN_DEG]
    taken = [float(angles[i])]
    turned = []
    for j in train:
        for degrees in (float(angles[j]), float(angles[j]) + 90.0):
            if all(_apart(degrees, t) >= SAME_AXIS_DEG for t in taken):
                taken.append(degrees)
                turned.append(box_at(centres[i], degrees, width, length))
    return turned
