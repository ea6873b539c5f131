"""Gaps: a train that goes on one unseen tile beyond its end continues across a tile
inferred from the counts on both sides (``inferred-tile``)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from vision.table.build import Chain, TableBuild
from vision.table.geometry import Ranges, Tile, cos_between, make_tile, nearer_half, perp, unit
from vision.table.reading import Uncertainty

#: A train's next tile found this far beyond its end (widths, near half to the end's
#: half centre), in line, means one tile between them went unseen: a single
#: (lengthwise) ...
BRIDGE_SINGLE = (2.5, 3.5)
#: ... or a double lying across the train, when the tile beyond matches the end
#: (straight on, or at a right angle: a train turns at a double).
BRIDGE_DOUBLE = (1.6, 2.4)
#: After an unseen single the train may turn: the tile beyond then starts beside the
#: single's far half, within this many widths of where it would lie.
BRIDGE_TURN_REACH = 0.5
#: How straight in line (degrees) the tile beyond must lie, and point (along the
#: train, or for a double at a right angle to it).
BRIDGE_BEND_DEG = 20.0


@dataclass(frozen=True)
class Inferred:
    """A tile no box was found for, inferred from a train's gap (``bridge_gap``);
    ``corners`` on the working plane (the mat's millimetres with a mat). Its counts are
    as inferred: no doubt, no ranges."""

    values: tuple[int, int]
    corners: np.ndarray
    confidence: float = 1.0
    uncertain: bool = False
    half_certainty: tuple[float, float] = (1.0, 1.0)
    ranges: Ranges | None = None


#: A tile found beyond a gap: (how far off where it would lie, the tile, its near half,
#: the missing tile's counts, where the missing tile's outline stops).
Beyond = tuple[float, Tile, int, tuple[int, int], np.ndarray]


def turned_beyond_single(chain: Chain, pool: dict[int, Tile], w: float,
                         laid: set[tuple[int, ...]]) -> Beyond | None:
    """A loose tile that turns a right angle off a train's end one unseen single on:
    its near half beside the far half of a single lying straight on from the end,
    pointing away to that side. ``(miss, tile, near half, missing tile, where the
    missing single's outline stops)`` for ``bridge_gap``, or None."""
    end_v = chain.tiles[-1][2]
    far_half = chain.end_ref + 2.0 * w * chain.direction
    straight = math.cos(math.radians(BRIDGE_BEND_DEG))
    best = None
    for side in (perp(chain.direction), -perp(chain.direction)):
        expected = far_half + w * side
        for t in pool.values():
            for k in (0, 1):
                miss = float(np.linalg.norm(t.halves[k] - expected)) / w
                if miss > BRIDGE_TURN_REACH or cos_between(t.halves[1 - k] - t.halves[k],
                                                            side) < straight:
                    continue
                missing = (end_v, t.values[k])
                if t.values[k] == end_v or tuple(sorted(missing)) in laid or (
                        best is not None and miss >= best[0]):
                    continue
                best = (miss, t, k, missing, chain.end_ref + 3.0 * w * chain.direction)
    return best


def _in_line_beyond(chain: Chain, pool: dict[int, Tile], w: float,
                    laid: set[tuple[int, ...]]) -> Beyond | None:
    """A loose tile lying in line one single (straight on) or one double's width
    (straight on or at a right angle) beyond the train's end, pointing on that way."""
    _, near_v, end_v = chain.tiles[-1]
    best: Beyond | None = None
    for t in pool.values():
        k = nearer_half(t, chain.end_ref)
        d = t.halves[k] - chain.end_ref
        r = float(np.linalg.norm(d)) / w
        straight = math.cos(math.radians(BRIDGE_BEND_DEG))
        # the way on: straight, or for an unseen double (a train turns at a double)
        # a right angle to either side
        way = max((chain.direction, perp(chain.direction), -perp(chain.direction)),
                  key=lambda u: cos_between(d, u))
        if cos_between(d, way) < straight or cos_between(t.halves[1 - k] - t.halves[k],
                                                         way) < straight:
            continue
        near = t.values[k]
        turned = way is not chain.direction
        if BRIDGE_SINGLE[0] <= r <= BRIDGE_SINGLE[1] and not turned:
            missing, miss = (end_v, near), abs(r - 3.0)
        elif BRIDGE_DOUBLE[0] <= r <= BRIDGE_DOUBLE[1] and near == end_v \
                and near_v != end_v:
            missing, miss = (end_v, end_v), abs(r - 2.0)
        else:
            continue
        if tuple(sorted(missing)) in laid:
            continue
        if best is None or miss < best[0]:
            best = (miss, t, k, missing, t.halves[k])
    return best


def bridge_gap(b: TableBuild) -> bool:
    """Fill one gap of one unseen tile at a train's end; True when one was filled.

    Tiles are laid touching, so a loose tile lying in line one tile (or a
    double's width) beyond a train's end, pointing on along it, continues the
    train across a tile the detector missed (a blurred 10 or 11 it could not
    make out). That tile is inferred: the end's count and the near count of the
    tile beyond (a double of the end when the gap is a double's width), unless
    the set's one such tile lies on the table already. A train turns at a
    double, so the double's width may also lie at a right angle to the end:
    a tile there starting with the end's count, pointing on that way, continues
    the train across the end's double. A train also turns after a single: a
    tile whose near half lies beside the far half of a single straight on from
    the end, pointing away to that side, continues the train across that
    single (``turned_beyond_single``). Boxes lying in the gap (pieces, or a
    box straddling two tiles) are dropped. Reported (``inferred-tile``); its
    index in ``positions`` is beyond the input tiles.
    """
    laid = {tuple(sorted((near, far))) for c in b.chains for _, near, far in c.tiles}
    laid.add((b.e, b.e))
    for chain in b.chains:
        if not chain.tiles:
            continue
        best = _in_line_beyond(chain, b.pool, b.w, laid)
        if best is None:
            best = turned_beyond_single(chain, b.pool, b.w, laid)
        if best is None:
            continue
        _lay_across(b, chain, best)
        return True
    return False


def _lay_across(b: TableBuild, chain: Chain, beyond: Beyond) -> None:
    """Lay the unseen tile and the tile beyond it on ``chain``; drop the boxes in the gap."""
    w = b.w
    _, t, k, missing, stop = beyond
    start = chain.end_ref
    # the unseen tile's outline: between the end and the tile beyond
    axis = unit(stop - start)
    across = perp(axis) * 0.5 * w
    a_end, b_end = start + axis * 0.5 * w, stop - axis * 0.5 * w
    if missing[0] == missing[1]:  # a double lies across: its long side across the train
        mid = (a_end + b_end) / 2
        a_end, b_end, across = mid - perp(axis) * w, mid + perp(axis) * w, axis * 0.5 * w
    corners = np.array([a_end - across, a_end + across, b_end + across, b_end - across])
    inferred = b.add_tile(Inferred(missing, corners))
    gap = make_tile(inferred, missing, corners)
    for other in [o for o in b.pool.values() if o is not t]:
        if gap.distance_to_point(other.centre) < 0.25 * w:
            b.pool.pop(other.index)
            b.report(Uncertainty(
                "inferred-tile", f"tile {other.index} {list(other.values)} lies in a gap "
                f"of train {chain.owner}: not a tile of its own", (other.index,),
                (chain.owner,)))
    chain.lay((inferred, missing[0], missing[1]),
              (a_end + b_end) / 2 if missing[0] == missing[1] else gap.halves[1], axis, gap)
    chain.lay((t.index, t.values[k], t.values[1 - k]), t.halves[1 - k],
              unit(t.halves[1 - k] - t.halves[k]), t)
    b.pool.pop(t.index)
    b.report(Uncertainty(
        "inferred-tile", f"train {chain.owner} has a gap before tile {t.index}: "
        f"taken as an unseen {missing[0]}-{missing[1]}", (inferred,), (chain.owner,)))
