"""How far the reader looks at an image from: the sizes its looks at a whole image take.

The reader (``vision.reading.reader``) looks at an image at the tile detector's trained
input size first, then from further away when nothing shows (a close-up), or closer
when the tiles are tiny (a whole table). These are the sizes and thresholds, and the
measures of what a look found that they are compared with.
"""

from __future__ import annotations

import numpy as np

from vision.models.detections import Detections
from vision.reading.boxes.box_shape import box_sizes

#: The detector learnt tiles at most about a fifth of the image's long side
#: (``datasets.render``: 55-260 px long in 1280). When it finds no tile, the
#: image is looked at again this many times further away: a close-up of one
#: or two tiles then shows them at a size it knows.
ZOOM_OUT = 5.0
#: What that look from further away finds is a close-up only when a tile is at least
#: this share of the image's long side long: a smaller one would have shown at the
#: first look. Else, on a big frame, the closer look is taken too, and what it finds
#: wins. On a whole table with only its engine and one tile laid (1920x1080, fresh
#: seed 1300038 of the rendered table benchmark), the look from further away found one
#: 267 px box (0.14 of the frame) over both tiles, where the closer look finds the two
#: tiles and the three markers.
CLOSE_UP_SHARE = 0.18
#: Tiles narrower than this at the detector's input size (pixels) are also read
#: snapped to their divider (``vision.reading.boxes.divider``), and the more confident of the
#: two readings is kept: that small, the detector often puts a box half a tile
#: off along a train. Chosen on the rendered validation scenes (seeds 201/202,
#: not the eval set): table tiles read right 36 % -> 50 % at 416, hand tiles
#: unchanged (above this size snapping did more harm than good).
SNAP_BELOW_PX = 12.0
#: When the tiles found are narrower than this at the detector's input
#: (median, pixels), the frame is looked at again closer (``ZOOM_IN_SIDE``).
#: Hand tiles in training are 9-42 px wide at 416, table tiles 5-13 px, and the
#: smallest are found and read far worse. Needs a tile model exported with a
#: dynamic input size. For the shipped detector, trained at 640,
#: on the rendered validation hands (seeds 201/204, 60 scenes), hand tiles read
#: right 92.0 % at 9 px, 92.7 % at 13, 92.5 % at 17 (close-ups 98.1 % at each).
SMALL_TILE_PX = 13.0
#: When the tiles the table detector finds at the first look are at least this wide at
#: its input (pixels), or none shows, the still is a close-up and is read with the
#: close-up detector (``TileReader.closeup_detector``). A webcam over a table shows its
#: tiles 5-14 px wide at 416 (rendered tables 6-11, photoreal ones 6-14 but for one
#: laid close, 27); hand-held photos 17 px and wider (the real oblique photos 21-29 by
#: the float detector, 17-29 by the 8-bit one; hands from above 36-84, close-ups
#: 110-250).
CLOSE_UP_TILE_PX = 16.0
#: Long side of the detector's input for that closer look (the usual one is the
#: trained size, ``models.json`` ``imgsz``). Chosen on rendered validation
#: tables (1280x720, seeds 202/205, 60 each) with the shipped detector (trained at
#: 640, run in 8 bits), table / table on the mat: 576 px
#: 86.8 / 79.2 % (float), 640 87.6 / 79.7 %, 768 89.4 / 82.1 %, 832 90.0 / 81.8 %,
#: 896 90.7 / 82.2 %; the detector takes 24, 32, 37 and 40 ms from 640 to 896
#: (the float one 40 ms at 640): 768 reads better than the float model at 640
#: in less time.
ZOOM_IN_SIDE = 768
#: On frames bigger than 1280 px the table detector's closer look keeps the scale 768
#: gives a 1280 frame, this share of the frame's long side, up to ``ZOOM_IN_MAX``: it is
#: fine-tuned on tiles as the looks at 1280 frames show them (the close-up detector
#: keeps ``ZOOM_IN_SIDE``). On 16 rendered 1920x1080
#: tables with the mat (table benchmark seeds), tiles read right 97.7 -> 99.6 % at 1152.
ZOOM_IN_SHARE = 0.6
ZOOM_IN_MAX = 1152


def median_short_side(corners: np.ndarray) -> float:
    """Median short side of the boxes ``corners`` ``(N, 4, 2)``, N >= 1, whatever their
    corner order."""
    sides = np.linalg.norm(np.roll(corners, -1, axis=1) - corners, axis=2)
    return float(np.median(sides.min(axis=1)))


def tile_width(tiles: Detections) -> float | None:
    """Median short side of the tile boxes ``tiles``, in detector input pixels (None: no
    box)."""
    if not len(tiles):
        return None
    return median_short_side(tiles.corners) * float(tiles.metadata.get("gain", 1.0))


def is_close_up(tiles: Detections, image: np.ndarray) -> bool:
    """Whether a tile box in ``tiles`` is long enough for a close-up of ``image``
    (``CLOSE_UP_SHARE``)."""
    lengths = box_sizes(tiles.corners)[1]
    return bool(len(lengths)) and float(lengths.max()) >= CLOSE_UP_SHARE * max(image.shape[:2])
