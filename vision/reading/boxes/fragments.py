"""Pieces of one tile found as several boxes, joined back into the tile.

A tile is twice as long as it is wide. The detector sometimes gives a tile it
cannot make out (a double laid crosswise with blurred 9-12 pip halves,
measured on the games benchmark's rendered tables) as two or three
overlapping boxes, each squarish or short, none of them the tile; read, they
are tiles that chain with nothing and stop a train. Boxes that are
**fragments** (far from the tile shape, or much shorter than the frame's
tiles) and overlap each other are replaced by the smallest rotated rectangle
around them all, when that rectangle has about the frame's tile size and
shape (the joined tile takes the frame's median sides: pieces found askew make
the rectangle too wide); a lone fragment lying mostly on a tile-shaped box is
dropped (the box is the tile).
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.models.detections import Detections

#: A box whose long side is less than this many times its short side is no tile.
FRAGMENT_ASPECT = 1.5
#: ... nor one shorter than this share of the frame's median tile length.
FRAGMENT_LENGTH = 0.7
#: Two fragments belong together when the smaller overlaps the other by this share
#: of its area.
FRAGMENT_OVERLAP = 0.2
#: The rectangle around the pieces must be about a tile of the frame: long and short
#: sides within these shares of the median ones, and at least this elongated (so
#: that its long axis is the tile's). Pieces found a little askew make it wider
#: than the tile, so the joined tile gets the frame's median sides, on its centre
#: and along its long axis.
JOINED_LENGTH = (0.8, 1.35)
JOINED_WIDTH = (0.7, 1.7)
JOINED_ASPECT = 1.3
#: A lone fragment this much covered by a tile-shaped box (share of the smaller's
#: area) is dropped: the box is the tile.
COVERED = 0.6
#: Fewer tile-shaped boxes than this in a frame give no reliable tile size.
MIN_TILES = 4


def _sides(corners: np.ndarray) -> np.ndarray:
    """``(N, 2)``: short and long side of each box."""
    s = np.linalg.norm(np.roll(corners, -1, axis=1) - corners, axis=2)
    a = (s[:, 0] + s[:, 2]) / 2
    b = (s[:, 1] + s[:, 3]) / 2
    return np.stack([np.minimum(a, b), np.maximum(a, b)], axis=1)


def _overlap(a: np.ndarray, b: np.ndarray) -> float:
    """Area of the intersection over the smaller box's area."""
    area, _ = cv2.intersectConvexConvex(a.astype(np.float32), b.astype(np.float32))
    smaller = min(abs(cv2.contourArea(a.astype(np.float32))),
                  abs(cv2.contourArea(b.astype(np.float32))))
    return float(area) / smaller if smaller > 0 else 0.0


def _groups(corners: np.ndarray, members: list[int]) -> list[list[int]]:
    """Connected groups of overlapping boxes among ``members``."""
    parent = {m: m for m in members}

    def root(m: int) -> int:
        while parent[m] != m:
            parent[m] = parent[parent[m]]
            m = parent[m]
        return m

    for i, a in enumerate(members):
        for b in members[i + 1:]:
            if _overlap(corners[a], corners[b]) >= FRAGMENT_OVERLAP:
                parent[root(a)] = root(b)
    groups: dict[int, list[int]] = {}
    for m in members:
        groups.setdefault(root(m), []).append(m)
    return list(groups.values())


def join_fragments(tiles: Detections) -> Detections:
    """``tiles`` with each group of overlapping fragments replaced by the tile they
    are pieces of (its score the group's best), and lone fragments covered by a
    tile-shaped box dropped; everything else unchanged."""
    if len(tiles) < 2:
        return tiles
    sides = _sides(tiles.corners)
    shaped = sides[:, 1] >= FRAGMENT_ASPECT * np.maximum(sides[:, 0], 1e-6)
    if int(shaped.sum()) < MIN_TILES:
        return tiles
    width, length = np.median(sides[shaped], axis=0)
    fragment = ~shaped | (sides[:, 1] < FRAGMENT_LENGTH * length)
    members = [int(i) for i in np.flatnonzero(fragment)]
    if not members:
        return tiles
    drop: set[int] = set()
    joined: list[tuple[int, tuple[tuple[float, float], tuple[float, float], float]]] = []
    whole = [int(i) for i in np.flatnonzero(~fragment)]
    for group in _groups(tiles.corners, members):
        if len(group) < 2:
            # a lone piece lying mostly on a tile-shaped box is a piece of that tile
            if any(_overlap(tiles.corners[group[0]], tiles.corners[k]) >= COVERED
                   for k in whole):
                drop.update(group)
            continue
        centre, size, angle = cv2.minAreaRect(
            tiles.corners[group].reshape(-1, 2).astype(np.float32))
        short, long_ = sorted(size)
        if not (JOINED_LENGTH[0] * length <= long_ <= JOINED_LENGTH[1] * length
                and JOINED_WIDTH[0] * width <= short <= JOINED_WIDTH[1] * width
                and long_ >= JOINED_ASPECT * short):
            continue
        along = angle if size[0] >= size[1] else angle + 90.0
        best = max(group, key=lambda i: float(tiles.confidence[i]))
        joined.append((best, ((float(centre[0]), float(centre[1])),
                              (float(length), float(width)), along)))
        drop.update(group)
    if not drop:
        return tiles
    rest = tiles[np.array([i for i in range(len(tiles)) if i not in drop], dtype=np.int64)]
    if not joined:
        return rest
    # the joined tiles: each group's best box (score, class, data), on the joined outline
    pieces = tiles[np.array([best for best, _ in joined], dtype=np.int64)]
    pieces.corners = np.array([cv2.boxPoints(rect) for _, rect in joined], np.float32)
    if "xywhr" in pieces.data:
        pieces.data["xywhr"] = np.array(
            [(*rect[0], *rect[1], np.radians(rect[2])) for _, rect in joined],
            pieces.data["xywhr"].dtype)
    return Detections.merge([rest, pieces])
