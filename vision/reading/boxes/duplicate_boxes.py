"""Boxes that are no tile of their own: the same tile found twice, and a double
boxed over the seam between two tiles of a train; and of the readings of a box
moved or turned, the one that stands (:func:`best_readings`)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from vision.models.detections import polygon_iou
from vision.readings import TileReading

#: Two readings whose boxes overlap by this much (IoU) are one tile found twice: the
#: less confident one is dropped.
DUPLICATE_IOU = 0.5
#: Two readings of one image's boxes that read the same two values and overlap by this
#: much are one tile too (:func:`best_readings`), the other box slid along it (a box
#: slid by half a tile overlaps it by a third): a set holds one tile of each, and two
#: tiles lying flat do not overlap. On the composited still pairs a 10-12 boxed twice
#: at 0.50 and two doubted 4-3 and 10-6 at 0.33 and 0.39 were each read as two tiles.
SAME_VALUES_IOU = 0.3
#: A tile's box moved (snapped to a divider, or evened) onto the seam between two tiles
#: of a train reads their touching halves, which match: a double. Such a reading does
#: not replace a sure single read where the box was found when the move took it over another
#: box found by at least this much more (IoU with it). On the eval set, a 3-7 between
#: a 12-3 and a 7-5 was snapped onto the 12-3's seam (IoU 0.00 -> 0.23) and read 3-3 as
#: surely as the 3-7 was (both 0.91); the only such snap among its 60 images. On 320
#: rendered 1920x1080 tables (where the table settles a double lying along its train
#: by its neighbours anyway), no table read differently but one (still wrong).
SEAM_IOU = 0.1
#: A box read as a double lying along two tiles read, over the far half of one and the
#: near half of the other, each showing the double's count, is the detector's box on
#: the seam between them, not a tile: it overlaps each by about a third (IoU), where a
#: double laid across a train only touches its neighbours. Boxes overlapping a tile
#: read from this IoU (up to ``DUPLICATE_IOU``, the same tile) count. On the eval set's
#: 20 table images, 6 of 13 extra tiles were such doubles (each overlapping its two
#: neighbours 0.18-0.49), and precision rose 97.4 -> 98.3 % with no tile lost; 320
#: rendered 1920x1080 tables read exactly as before.
SEAM_OVERLAP = 0.15
#: Two boxes lie along each other when their axes' cosine is at least this (25 degrees).
ALONG_COS = 0.9


def on_a_seam(moved: TileReading, held: TileReading, boxes: list[np.ndarray], i: int,
               k: int, boxes_found: int) -> bool:
    """Whether ``moved``, the reading of box ``k`` (box ``i`` moved), is box ``i`` slid
    onto the seam between two tiles: a double, where box ``i`` read a sure single, and
    lying over another box found more than box ``i`` did (``SEAM_IOU``)."""
    if moved.values[0] != moved.values[1] or held.values[0] == held.values[1] \
            or held.uncertain or boxes_found < 2:
        return False
    others = np.array([b for j, b in enumerate(boxes[:boxes_found]) if j != i], np.float64)
    before, after = polygon_iou(np.array([boxes[i], boxes[k]], np.float64), others).max(axis=1)
    return float(after) > float(before) + SEAM_IOU


def _ends(tile: TileReading) -> tuple[np.ndarray, np.ndarray]:
    """The middles of the short edges at ``values[0]`` and at ``values[1]``."""
    c = np.asarray(tile.corners, np.float64)
    return (c[0] + c[1]) / 2, (c[2] + c[3]) / 2


def over_a_seam(j: int, readings: Sequence[TileReading]) -> bool:
    """Whether reading ``j`` is a double boxed over the seam between two tiles read:
    lying along both (``ALONG_COS``), overlapping each (``SEAM_OVERLAP``), one before
    its middle and one beyond, and the half of each nearer it showing its count."""
    tile = readings[j]
    if tile.values[0] != tile.values[1] or len(readings) < 3:
        return False
    first, second = _ends(tile)
    length = float(np.linalg.norm(second - first))
    if length == 0.0:
        return False
    axis, middle = (second - first) / length, (first + second) / 2
    others = [k for k in range(len(readings)) if k != j]
    overlaps = polygon_iou(np.asarray(tile.corners, np.float64)[None],
                           np.array([readings[k].corners for k in others], np.float64))[0]
    sides: set[bool] = set()
    for k, overlap in zip(others, overlaps, strict=True):
        if not SEAM_OVERLAP <= overlap < DUPLICATE_IOU:
            continue
        ends = _ends(readings[k])
        way = ends[1] - ends[0]
        if abs(float(way @ axis)) < ALONG_COS * float(np.linalg.norm(way)):
            continue
        gaps = [float(np.linalg.norm(end - middle)) for end in ends]
        if readings[k].values[int(np.argmin(gaps))] != tile.values[0]:
            continue  # its half under this box shows another count
        sides.add(float((ends[0] + ends[1]) @ axis / 2 - middle @ axis) > 0)
    return len(sides) == 2



def distinct(readings: Sequence[TileReading], iou: float = DUPLICATE_IOU,
             same_values_iou: float | None = None) -> list[int]:
    """Indices of ``readings`` to keep when boxes overlapping by ``iou`` or more, or by
    ``same_values_iou`` or more where they read the same two values, are one tile: the
    first of each such group stays (give them best first)."""
    if len(readings) < 2:
        return list(range(len(readings)))
    overlap = polygon_iou(np.array([r.corners for r in readings], np.float32),
                          np.array([r.corners for r in readings], np.float32))
    tiles = [tuple(sorted(r.values)) for r in readings]
    same = iou if same_values_iou is None else min(iou, same_values_iou)
    keep: list[int] = []
    for i in range(len(readings)):
        if all(overlap[i, j] < (same if tiles[i] == tiles[j] else iou) for j in keep):
            keep.append(i)
    return keep


def best_readings(found: Sequence[TileReading], boxes: list[np.ndarray], owner: list[int],
                  turned_at: set[int], boxes_found: int) -> list[TileReading]:
    """Of the readings ``found`` of each box and its variants (``owner``: the box each
    stands for), the most confident one of each box (a turned box's only when sure, a
    move onto a seam never), best first, one per tile, no double over a seam."""
    best: dict[int, TileReading] = {}
    for k, reading in enumerate(found):
        if k in turned_at and reading.uncertain:
            continue  # a turned box is a guess: only a sure reading of it counts
        held = best.get(owner[k])  # a snapped or evened box wins a tie: it comes later
        if held is None or reading.confidence >= held.confidence:
            if held is not None and on_a_seam(reading, held, boxes, owner[k], k,
                                               boxes_found):
                continue
            best[owner[k]] = reading
    readings = sorted(best.values(), key=lambda t: -t.confidence)
    readings = [readings[i] for i in distinct(readings, same_values_iou=SAME_VALUES_IOU)]
    return [t for j, t in enumerate(readings) if not over_a_seam(j, readings)]
