"""A marker boxed as a tile too: a box read blank where a marker is found is that marker.

A pawn, a block or a toy train seen from above is a plain solid shape about a tile's
width; the detector may box it both as a marker and as a tile, and the tile box,
read, shows no pip (0-0: a blank tile has a divider, a pawn none the half counts
see). On the photoreal stills 3 of 18 phantom tiles read with a bare table were
such boxes. A tile read 0-0 whose box is a marker's (``SAME_AS_MARKER_IOU``) is
dropped: the marker stays. A tile read with pips there stays (a tile read is
stronger evidence than a marker box), as does a blank tile beside a marker.
"""

from __future__ import annotations

import numpy as np

from vision.models.detections import Detections, polygon_iou
from vision.readings import TileReadings

#: A tile box and a marker box overlapping this much (polygon IoU) are one thing.
SAME_AS_MARKER_IOU = 0.5


def blank_on_markers(tiles: TileReadings, markers: Detections) -> np.ndarray:
    """For each tile of ``tiles``: whether it is read 0-0 and its box is one of
    ``markers``' (see the module's notes)."""
    out = np.zeros(len(tiles), bool)
    if not len(tiles) or not len(markers):
        return out
    blank = np.flatnonzero((np.asarray(tiles.values).reshape(-1, 2) == 0).all(axis=1))
    if not len(blank):
        return out
    overlap = polygon_iou(np.asarray(tiles.corners, np.float32)[blank],
                          np.asarray(markers.corners, np.float32))
    out[blank] = overlap.max(axis=1) >= SAME_AS_MARKER_IOU
    return out
