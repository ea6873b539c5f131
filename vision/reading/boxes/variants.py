"""The boxes each tile box is read at: as the detector found it, and moved or turned.

A small tile's box is snapped to its divider and, when short or wide for its
neighbours, given their shape (``box_shape``); a larger one is evened out about its
divider (``divider``); a nearly square box is also turned along and across the train
it lies in. The reader reads every variant and keeps the best reading of each box
(``vision.reading.reader.TileReader.read_tiles_and_backs``).
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.models.crops import order_corners
from vision.models.detections import Detections
from vision.reading.boxes.box_shape import (
    box_sizes,
    neighbour_shapes,
    to_neighbour_shape,
    turned_boxes,
)
from vision.reading.boxes.divider import even_about_divider, snapped_off_middle


def box_variants(image: np.ndarray, tiles: Detections, input_size: tuple[int, int], *,
                 snap_below_px: float, reshape_small: bool, turn_squarish: bool,
                 even_halves: bool
                 ) -> tuple[list[np.ndarray], list[int], set[int], np.ndarray | None]:
    """The boxes to read for ``tiles`` (found by a detector taking ``input_size`` (h, w)):
    each as found (in corner order), then the moved and turned ones; the box each stands
    for (``owner``), which were turned, and the grey image if one was made. A box under
    ``snap_below_px`` wide at the detector's input is small: snapped to its divider, and
    with ``reshape_small`` given its neighbours' shape; with ``even_halves`` a larger
    one is evened out about its divider; with ``turn_squarish`` a nearly square one is
    also turned along and across its train."""
    boxes = [order_corners(c) for c in tiles.corners]
    owner = list(range(len(boxes)))
    boxes_found = len(boxes)
    h, w = image.shape[:2]
    size_h, size_w = input_size
    # image pixels -> detector input pixels
    gain = float(tiles.metadata.get("gain", min(size_h / h, size_w / w)))
    grey = None
    as_found = np.array(boxes)
    turned_at: set[int] = set()  # the boxes turned along or across a train
    shapes = neighbour_shapes(as_found) if reshape_small or turn_squarish else None
    for i in range(boxes_found):
        c = boxes[i]
        width = float(min(np.linalg.norm(c[1] - c[0]), np.linalg.norm(c[2] - c[3])))
        small = width * gain < snap_below_px
        if not (small or even_halves or turn_squarish):
            continue
        turned: list[np.ndarray] = []
        if shapes is not None:
            reshaped = to_neighbour_shape(c, shapes[i]) if small and reshape_small else None
            if reshaped is not None:
                c = boxes[i] = reshaped
            if turn_squarish:
                turned = turned_boxes(as_found, i, shapes[i])
        if grey is None:
            grey = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
        if small:
            moved = snapped_off_middle(grey, c, width)
        else:
            moved = even_about_divider(grey, c) if even_halves else None
        if moved is not None:
            boxes.append(moved)
            owner.append(i)
        for t in turned:
            snapped = snapped_off_middle(grey, t, float(box_sizes(t)[0][0]))
            turned_at.add(len(boxes))
            boxes.append(t if snapped is None else snapped)
            owner.append(i)
    return boxes, owner, turned_at, grey
