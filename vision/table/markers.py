"""Markers: which train each marker marks, and which tile boxes are markers boxed twice."""

from __future__ import annotations

import math

import numpy as np

from engine import MEXICAN, Owner
from vision.mat.geometry import ARROW_TO_MM, SLOT_RADIUS_MM
from vision.table.build import Chain, TableBuild
from vision.table.geometry import PlacedTile, make_tile, perp
from vision.table.reading import Uncertainty

#: A marker further than this (in widths) from every train belongs to none.
MARKER_REACH_WIDTHS = 2.6
#: On the mat, a marker centred less than this beyond the arrows' tips lies on the print
#: (the arrows' labels included); the nearest a marker beside an empty slot lies is
#: ``SLOT_RADIUS_MM`` plus half a pawn.
PRINT_MARGIN_MM = 6.0
#: A doubtful tile box overlapping a marker found at least this much (IoU) is that
#: marker boxed twice (a toy train is about a tile's size); a coin or pawn laid on a
#: tile covers less of it.
MARKER_TILE_IOU = 0.5


def drop_marker_boxes(live: list[PlacedTile], marker_pts: np.ndarray) -> list[PlacedTile]:
    """``live`` without the boxes that are markers: a marker the detector also boxed as
    a tile reads as a doubtful tile (a marker laid on a tile covers half of it at most:
    that tile stays)."""
    if not len(marker_pts) or not live:
        return live
    from vision.models.detections import polygon_iou  # OpenCV, only where markers were found

    overlap = polygon_iou(np.array([t.corners for t in live]), marker_pts).max(axis=1)
    return [t for t, o in zip(live, overlap, strict=True)
            if not (t.unsure and o >= MARKER_TILE_IOU)]


def _start_radius(b: TableBuild) -> float:
    """Where each empty slot's train would start, for markers on empty trains."""
    if b.on_mat:
        return SLOT_RADIUS_MM + 0.5 * b.w
    firsts = [float(np.linalg.norm(c.head.halves[0] - b.hub)) for c in b.chains]
    return float(np.median(firsts)) if firsts else 6.0 * b.w


def _distance(b: TableBuild, chain: Chain | None, m: np.ndarray, outline: PlacedTile, slot: int,
              start_r: float) -> float:
    """How far a marker (centred on ``m``) lies from ``chain``, the train of ``slot``, or
    (``None``) from where that train would start."""
    w = b.w
    if chain is not None:
        return min(chain.last.gap_to(outline), chain.head.gap_to(outline) + 0.5 * w)
    # Distance to the slot's ray, from the engine's side to a little past where trains
    # start.
    step = 2 * math.pi / (b.players + 1)
    angle = math.pi / 2 + slot * step
    ray = np.array([math.cos(angle), math.sin(angle)])
    rel = m - b.hub
    along = float(rel @ ray)
    lateral = abs(float(rel @ perp(ray))) - outline.width / 2
    return (max(lateral, 0.0) + max(along - start_r - 2.5 * w, 0.0)
            + max(1.5 * w - along, 0.0))


def place_markers(b: TableBuild, marker_pts: np.ndarray) -> list[Owner | None]:
    """The train each marker marks (``None``: none, reported). On the mat, a marker
    centred on the mat's print, no further out than its arrows' tips and labels, is
    the print (a detector looking closely takes an arrow with its label for one): no
    train runs there, since trains start at ``SLOT_RADIUS_MM``."""
    start_r = _start_radius(b)
    by_owner = {c.owner: c for c in b.chains}
    owners: list[Owner] = [*range(b.players), MEXICAN]
    out: list[Owner | None] = []
    for j, corners in enumerate(marker_pts):
        m = corners.mean(axis=0)
        if b.on_mat and float(np.linalg.norm(m)) < ARROW_TO_MM + PRINT_MARGIN_MM:
            b.report(Uncertainty(
                "loose-marker", f"marker {j} lies on the mat's print, where no train runs; "
                "taken for the print", markers=(j,)))
            out.append(None)
            continue
        outline = make_tile(-1, (-1, -2), corners)
        distances = sorted(((_distance(b, by_owner.get(owner), m, outline, slot, start_r), owner)
                            for slot, owner in enumerate(owners)), key=lambda x: x[0])
        best_d, best = distances[0]
        if best_d > MARKER_REACH_WIDTHS * b.w:
            b.report(Uncertainty("loose-marker", f"marker {j} lies by no train",
                                 markers=(j,)))
            out.append(None)
            continue
        if len(distances) > 1 and distances[1][0] < 1.5 * best_d + 0.25 * b.w:
            b.report(Uncertainty(
                "marker-between",
                f"marker {j} lies between trains {best} and {distances[1][1]}; took train {best}",
                owners=(best, distances[1][1]), markers=(j,)))
        out.append(best)
    return out
