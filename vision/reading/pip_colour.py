"""The colour of the pips on one half crop, measured against the tile's own face.

Colour-coded sets paint every count its own colour (1 light blue, 2 green, ...).
A half crop's pip colour is taken in CIE Lab as the pips' offset from the
face around them: the chroma offset ``(a, b)`` and how much darker the pips are
(``L``, as a share of the face's lightness). Measured against the face, the cue
survives a colour cast or dimmer light that shifts face and pips alike.
"""

from __future__ import annotations

import cv2
import numpy as np

#: Share of the crop's side left out along its three outer edges (the tile's rim and
#: the table beyond it) and along the divider edge.
EDGE = 0.14
#: A pixel is pip rather than face when it is this far from the face's colour (Lab units).
PIP_DISTANCE = 22.0
#: Fewer pip pixels than this share of the looked-at area: no pips to measure (a blank).
MIN_PIP_SHARE = 0.012
#: A spot smaller than this share of the looked-at area is a speck, not a pip.
MIN_BLOB_SHARE = 0.0015
#: Weight of the darkness offset next to the chroma: pips in a black-pip set differ
#: from each other only by it.
DARKNESS_SCALE = 60.0


def half_colour(crop: np.ndarray) -> np.ndarray | None:
    """``(da, db, dark)`` of the pips in a half crop (BGR, the tile's end at the top and
    the divider at the bottom), or None when it shows too few pip pixels (a blank half).

    ``da, db``: the pips' median Lab chroma less the face's; ``dark``: how much darker
    than the face they are, ``DARKNESS_SCALE`` for black on the face, 0 for none.
    """
    if crop.ndim != 3 or crop.shape[2] != 3 or min(crop.shape[:2]) < 8:
        return None
    h, w = crop.shape[:2]
    x0, x1, y0, y1 = int(EDGE * w), int((1 - EDGE) * w), int(EDGE * h), int((1 - EDGE) * h)
    lab = cv2.cvtColor(np.ascontiguousarray(crop[y0:y1, x0:x1]), cv2.COLOR_BGR2LAB)
    lab = lab.reshape(-1, 3).astype(np.float32)
    face = np.median(lab, axis=0)
    gap = lab - face
    distance = np.sqrt(gap[:, 0] ** 2 + gap[:, 1] ** 2 + gap[:, 2] ** 2)
    pip = (distance > PIP_DISTANCE) & (gap[:, 0] < 0)  # pips are darker than the face
    if pip.sum() < MIN_PIP_SHARE * len(lab):
        return None
    # the pips' cores: the most distant half of the pip pixels (their rims blend in)
    far = distance >= np.median(distance[pip])
    core = gap[pip & far]
    lightness = max(float(face[0]), 1.0)
    return np.array([float(np.median(core[:, 1])), float(np.median(core[:, 2])),
                     DARKNESS_SCALE * float(-np.median(core[:, 0])) / lightness], np.float64)


def pip_blobs(crop: np.ndarray) -> int:
    """How many separate pip-coloured spots a half crop shows (as ``half_colour`` tells
    pip from face): a count of the pips that needs no model, for sets whose layouts
    the models never saw."""
    if crop.ndim != 3 or crop.shape[2] != 3 or min(crop.shape[:2]) < 8:
        return 0
    h, w = crop.shape[:2]
    x0, x1, y0, y1 = int(EDGE * w), int((1 - EDGE) * w), int(EDGE * h), int((1 - EDGE) * h)
    lab = cv2.cvtColor(np.ascontiguousarray(crop[y0:y1, x0:x1]), cv2.COLOR_BGR2LAB)
    lab = lab.astype(np.float32)
    gap = lab - np.median(lab.reshape(-1, 3), axis=0)
    mask = ((np.sqrt((gap ** 2).sum(axis=2)) > PIP_DISTANCE) & (gap[..., 0] < 0))
    _, _, stats, _ = cv2.connectedComponentsWithStats(mask.astype(np.uint8), connectivity=8)
    stats = np.asarray(stats)
    areas = stats[1:, cv2.CC_STAT_AREA]
    return int(np.sum(areas >= MIN_BLOB_SHARE * mask.size))


def half_colours(crops: list[np.ndarray]) -> list[np.ndarray | None]:
    """``half_colour`` of each crop."""
    return [half_colour(c) for c in crops]
