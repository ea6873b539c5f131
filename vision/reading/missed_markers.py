"""Markers a closer look at a big frame misses: looked for again further away.

A whole table seen in a big frame is looked at closer than the detector's trained
size (``vision.reading.reader.ZOOM_IN_SIDE``), and train markers then come out a few pixels
wide and are often missed; they are looked for again at ``MARKER_SIDE``.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.models.detections import Detections
from vision.models.onnx_models import STRIDE, ObbDetector
from vision.reading.boxes.box_shape import box_sizes
from vision.reading.reader_interface import TileSource, sure_markers

#: Markers (a pawn is 18 mm, 17 px in a 1920x1080 frame over a 1 m table) come out
#: of the closer look at about 7 px and are often missed there; when that look
#: shrinks the frame more than ``MARKER_LOOK_BELOW_GAIN`` times, markers are also
#: looked for at this long side, and those the closer look missed are added (see
#: :func:`more_markers`). The tiles stay those of the closer look: at 1024 they
#: were read worse (rendered 1920x1080 mat tables, seeds 1100000+: whole tables
#: 62.5 -> 50 %), while markers were attached 91.7 -> 95.2 %. Over 320
#: rendered 1920x1080 tables (the benchmark's 1100000+ and fresh 1300000+ and
#: 1400000+, mat and no mat), markers missed / added: 1024 12 / 5, 1280 4 / 7, 1536
#: 6 / 11, 1920 5 / 13: the further looks find the coins and pawns 1024 misses (no
#: box at any score there), and more loops and dots of the cloth's thread too; with
#: ``CONFIRM_MARKER_SIDE`` 5 / 5 (tables read whole 282 -> 288).
MARKER_SIDE = 1280
#: A marker the look at ``MARKER_SIDE`` finds that the closer look found at no score
#: at all is taken only when a look at this long side (or the frame's own size, if
#: smaller) finds one there too: a dot of thread the detector takes for a coin at one
#: scale is less often one at two (see ``MARKER_SIDE``).
CONFIRM_MARKER_SIDE = 1920
#: That look sees a window this many of its own pixels square round each marker it is
#: asked about (the marker and many tile lengths round it): on a 12 MP photo a look at
#: the whole frame at 1920 costs 1.7 s of CPU, at a window a seventh of it. (On a real
#: photo of loose tiles, a 384 px window confirmed a phantom marker that 256, 512, 640
#: and 960 px windows and the whole frame did not.)
CONFIRM_WINDOW = 512
MARKER_LOOK_BELOW_GAIN = 0.5
#: A marker scored from this up to the tile threshold is too faint to take alone, but
#: is a marker when the other look (``MARKER_SIDE``) finds one there too, at any score
#: from this: a toy train on the mat scored 0.23 at 768 and 0.24 at 1024 (rendered
#: 1920x1080 table seed 1100013). Over 320 rendered tables (the benchmark's and fresh
#: seeds), one more table read whole and none worse, from 0.15 to 0.2; the same floor
#: taken alone, without the second look's word, read three tables worse (false markers
#: on threads and tile corners).
FAINT_MARKER = 0.2


def found_near(corners: np.ndarray, other: np.ndarray) -> np.ndarray:
    """Which of the boxes ``corners`` (N, 4, 2) has a box of ``other`` centred within
    half its long side of its centre (a boolean mask)."""
    if not len(corners) or not len(other):
        return np.zeros(len(corners), bool)
    centres, others = corners.mean(axis=1), other.mean(axis=1)
    reach = 0.5 * np.maximum(*box_sizes(corners))
    gaps = np.linalg.norm(centres[:, None, :] - others[None, :, :], axis=2)
    return np.asarray(gaps.min(axis=1) < reach)


def ceil32(value: float) -> int:
    """``value`` rounded up to a multiple of 32."""
    return int(np.ceil(value / 32.0)) * 32


def more_markers(reader: TileSource, detector: ObbDetector, image: np.ndarray,
                 found: Detections, base_side: int, dynamic: bool) -> Detections:
    """The markers in ``found``, and when it came from a closer look that shrank a big
    frame a lot, those a look at ``MARKER_SIDE`` finds that it missed: one whose
    centre lies on no marker found and inside no tile found. That look sees only the
    part of the frame near the tiles found (``TABLE_REACH_WIDTHS``), where a marker can
    mark a train. A faint marker (``FAINT_MARKER``) is taken only where both looks find
    one; one the closer look found at no score, only where a third look finds it too
    (``CONFIRM_MARKER_SIDE``)."""
    every = found[found.class_id == reader.marker_class]
    markers = sure_markers(reader, found)
    if reader.marker_class < 0 or not dynamic or not len(found):
        return markers
    gain = float(found.metadata.get("gain", 1.0))
    long_side = max(image.shape[:2])
    if gain >= MARKER_LOOK_BELOW_GAIN or gain * long_side <= base_side + 1:
        return markers  # not a closer look, or one that shrank the frame little
    side = min(MARKER_SIDE, ceil32(long_side))
    if side <= gain * long_side + 32:
        return markers
    region = _table_region(found[found.class_id == reader.tile_class].corners, image.shape,
                           side / long_side)
    if region is None:
        again = detector.unchecked(image, long_side=side)  # its markers only: tiles unjudged
    else:
        again = detector.unchecked_window(image, region, side / long_side)
    further = again[again.class_id == reader.marker_class]
    sure = further.confidence > reader.marker_threshold
    # faint markers of either look that the other look finds too
    faint = [f[found_near(f.corners, other.corners)] for f, other in
             ((every[every.confidence <= reader.marker_threshold], further),
              (further[~sure], every))]
    more = Detections.merge([_confirmed(reader, detector, image, further[sure], every), *faint])
    if not len(more):
        return markers
    tiles = found[found.class_id == reader.tile_class].corners.astype(np.float32)
    reach = 0.5 * np.maximum(*box_sizes(more.corners))
    keep: list[int] = []
    for j, centre in enumerate(more.corners.mean(axis=1)):
        known = np.concatenate([markers.corners.mean(axis=1),
                                more.corners[keep].mean(axis=1).reshape(-1, 2)])
        if len(known) and np.min(np.linalg.norm(known - centre, axis=1)) < reach[j]:
            continue  # a marker found already
        point = (float(centre[0]), float(centre[1]))
        if any(cv2.pointPolygonTest(t, point, False) >= 0 for t in tiles):
            continue  # inside a tile
        keep.append(j)
    return Detections.merge([markers, more[np.array(keep)]]) if keep else markers


#: Markers that can mark a train lie this many tile widths from the table's tiles at
#: most (``vision.table.markers``: 2.6 from a train, an empty slot's some 5.5 from the
#: hub); the look for markers sees only the part of a big frame that near them.
TABLE_REACH_WIDTHS = 8.0
#: ... unless that part is most of the frame anyway.
REGION_SHARE = 0.8


def _table_region(tiles: np.ndarray, shape: tuple[int, ...], gain: float
                  ) -> tuple[int, int, int, int] | None:
    """The part ``(x0, y0, x1, y1)`` of a frame of ``shape`` within ``TABLE_REACH_WIDTHS``
    of the tile boxes ``tiles`` (N, 4, 2), its edges on the grid of the detector's
    stride in a look on the scale ``gain`` at the whole frame (so the part is seen as
    that look sees it); None when no tile is found or it is most of the frame
    (``REGION_SHARE``)."""
    if not len(tiles):
        return None
    reach = TABLE_REACH_WIDTHS * float(np.median(np.minimum(*box_sizes(tiles))))
    h, w = shape[:2]
    step = STRIDE / gain
    points = tiles.reshape(-1, 2)
    x0, y0 = (np.floor(np.maximum(points.min(axis=0) - reach, 0) / step) * step).astype(int)
    x1, y1 = (np.ceil((points.max(axis=0) + reach) / step) * step).astype(int)
    x1, y1 = min(int(x1), w), min(int(y1), h)
    if (x1 - x0) * (y1 - y0) >= REGION_SHARE * w * h:
        return None
    return int(x0), int(y0), x1, y1


def _confirmed(reader: TileSource, detector: ObbDetector, image: np.ndarray,
               found: Detections, seen: Detections) -> Detections:
    """The markers ``found`` at ``MARKER_SIDE`` that the closer look ``seen`` found
    too (at any score), or else a look at ``CONFIRM_MARKER_SIDE`` finds again: a look
    on that scale at a window round each (``CONFIRM_WINDOW``), not at the whole frame."""
    unseen = ~found_near(found.corners, seen.corners)
    if not unseen.any():
        return found
    long_side = max(image.shape[:2])
    gain = min(CONFIRM_MARKER_SIDE, ceil32(long_side)) / long_side
    finer = Detections.merge([
        detector.unchecked_window(image, _around(centre, CONFIRM_WINDOW / gain, image.shape),
                                  gain)
        for centre in found.corners[unseen].mean(axis=1)])
    finer = finer[finer.class_id == reader.marker_class] if len(finer) else finer
    unseen[unseen] = ~found_near(found.corners[unseen], finer.corners)
    return found[~unseen]


def _around(centre: np.ndarray, side: float, shape: tuple[int, ...]
            ) -> tuple[int, int, int, int]:
    """A square window ``(x0, y0, x1, y1)`` of ``side`` pixels centred on ``centre``, moved
    (or cut) to lie inside an image of ``shape``."""
    h, w = shape[:2]
    s = int(min(round(side), h, w))
    x0 = int(np.clip(round(float(centre[0]) - s / 2), 0, w - s))
    y0 = int(np.clip(round(float(centre[1]) - s / 2), 0, h - s))
    return x0, y0, x0 + s, y0 + s
