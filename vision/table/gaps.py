"""Gaps: a train that goes on one unseen tile beyond its end continues across a tile
inferred from the counts on both sides (``inferred-tile``); one that goes on a little
beyond its end, too close for a tile between, goes on across nothing (``short-gap``)."""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from vision.readings import TileReading
from vision.table.build import Chain, TableBuild
from vision.table.chains import TOUCH_HIGH
from vision.table.geometry import (
    PlacedTile,
    cos_between,
    make_tile,
    nearer_half,
    perp,
    unit,
)
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


#: Two unseen singles in line: the tile beyond lies this far (widths) beyond the end,
#: and a box in the gap shows the count where they meet (a box across their joint,
#: or one misplaced on either) within this many widths of the facing halves.
BRIDGE_TWO = (4.5, 5.5)
JOINT_REACH = 0.5

#: A tile whose near half lies up to this far (widths) beyond a train's end, in line and
#: pointing on, has no room for a tile between: it was laid on the train, a little off
#: (``close_short_gap``). Touching tiles lie 1 apart (``chains.TOUCH_HIGH`` reaches 1.5);
#: an unseen double across makes 2, an unseen single 3.
SHORT_GAP = 2.0


class Beyond(NamedTuple):
    """A tile found beyond a gap: how far off where it would lie, the tile, its near half,
    the unseen tiles' counts in train order, where their outlines stop, and whether the
    tile beyond is a double lying across the train."""

    miss: float
    tile: PlacedTile
    k: int
    missing: tuple[tuple[int, int], ...]
    stop: np.ndarray
    across: bool = False


def turned_beyond_single(chain: Chain, pool: dict[int, PlacedTile], w: float,
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
                best = Beyond(miss, t, k, (missing,), chain.end_ref + 3.0 * w * chain.direction)
    return best


def _in_line_beyond(chain: Chain, pool: dict[int, PlacedTile], w: float,
                    laid: set[tuple[int, ...]]) -> Beyond | None:
    """A loose tile lying in line one single (straight on) or one double's width
    (straight on or at a right angle) beyond the train's end, pointing on that way;
    or a double lying across the train one single on."""
    _, near_v, end_v = chain.tiles[-1]
    best: Beyond | None = None
    straight = math.cos(math.radians(BRIDGE_BEND_DEG))
    for t in pool.values():
        found = _double_across(chain, t, w, BRIDGE_SINGLE, 3.0, ((end_v, t.values[0]),))
        if found is not None and found.missing[0][1] != end_v and _fresh(found, laid) and (
                best is None or found.miss < best.miss):
            best = found
        k = nearer_half(t, chain.end_ref)
        d = t.halves[k] - chain.end_ref
        r = float(np.linalg.norm(d)) / w
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
        if best is None or miss < best.miss:
            best = Beyond(miss, t, k, (missing,), t.halves[k])
    return best


def _fresh(found: Beyond, laid: set[tuple[int, ...]]) -> bool:
    """Whether the unseen tiles are none on the table already, nor one another."""
    kinds = [tuple(sorted(m)) for m in found.missing]
    return len(set(kinds)) == len(kinds) and not any(k in laid for k in kinds)


def _double_across(chain: Chain, t: PlacedTile, w: float, reach: tuple[float, float], at: float,
                   missing: tuple[tuple[int, int], ...]) -> Beyond | None:
    """``t`` as a double lying across the train, straight on, its centre ``reach`` widths
    beyond the end (``at`` where it would lie), past the unseen ``missing``."""
    if not t.is_double:
        return None
    d = t.centre - chain.end_ref
    r = float(np.linalg.norm(d)) / w
    if not (reach[0] <= r <= reach[1]
            and cos_between(d, chain.direction) >= math.cos(math.radians(BRIDGE_BEND_DEG))
            and abs(cos_between(t.axis, d)) <= 0.5):
        return None
    return Beyond(abs(r - at), t, 0, missing, t.centre, across=True)


def _joint_count(chain: Chain, pool: dict[int, PlacedTile], w: float, skip: int) -> int | None:
    """The count where two unseen singles straight on from the train's end meet, as the
    boxes in the gap show it (their halves by the facing halves); None unless one."""
    facing = (chain.end_ref + 2.0 * w * chain.direction,
              chain.end_ref + 3.0 * w * chain.direction)
    shown = {t.values[k] for t in pool.values() if t.index != skip for k in (0, 1)
             if min(float(np.linalg.norm(t.halves[k] - p)) for p in facing) <= JOINT_REACH * w}
    return shown.pop() if len(shown) == 1 else None


def _two_beyond(chain: Chain, pool: dict[int, PlacedTile], w: float,
                laid: set[tuple[int, ...]]) -> Beyond | None:
    """A loose tile in line two unseen singles beyond the train's end (lengthwise, or a
    double across), the count where they meet shown by a box between (``_joint_count``)."""
    end_v = chain.tiles[-1][2]
    straight = math.cos(math.radians(BRIDGE_BEND_DEG))
    best: Beyond | None = None
    for t in pool.values():
        x = _joint_count(chain, pool, w, t.index)
        if x is None:
            continue
        found = _double_across(chain, t, w, BRIDGE_TWO, 5.0, ((end_v, x), (x, t.values[0])))
        if found is None:
            k = nearer_half(t, chain.end_ref)
            d = t.halves[k] - chain.end_ref
            r = float(np.linalg.norm(d)) / w
            if not (BRIDGE_TWO[0] <= r <= BRIDGE_TWO[1]
                    and cos_between(d, chain.direction) >= straight
                    and cos_between(t.halves[1 - k] - t.halves[k], chain.direction) >= straight):
                continue
            found = Beyond(abs(r - 5.0), t, k, ((end_v, x), (x, t.values[k])), t.halves[k])
        if _fresh(found, laid) and (best is None or found.miss < best.miss):
            best = found
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
            best = _two_beyond(chain, b.pool, b.w, laid)
        if best is None:
            continue
        _lay_across(b, chain, best)
        return True
    return False


def close_short_gap(b: TableBuild) -> bool:
    """Lay on a train the loose tile lying a little beyond its end; True when one was.

    A tile is laid touching the train's end, but a player may leave a small gap,
    and a box may sit off its tile: a box fitted where the table changed has the
    detector's boxes' size, a little smaller than a tile, and slides towards the
    half that changed most (a pale half on a pale cloth changes at its pips
    only), so two touching tiles' boxes can lie half a tile width further apart
    than touching allows. A single whose box the domino check does not doubt,
    its near half beyond touching but within ``SHORT_GAP`` widths of a
    train's end, straight on and pointing on, leaves no room for a tile between:
    it continues the train, with the counts it was read with, so a tile that
    does not match the end reaches the rules. Tried after the gaps of unseen
    tiles (``bridge_gap``: a tile matching the end two widths on lies beyond an
    unseen double). Reported (``short-gap``), and its place in the train is
    doubted (``TableReading.doubted``): an alert resting on it asks for a look.
    """
    straight = math.cos(math.radians(BRIDGE_BEND_DEG))
    best: tuple[float, Chain, PlacedTile, int] | None = None
    for chain in b.chains:
        if not chain.tiles:
            continue
        for t in b.pool.values():
            if t.is_double or b.tiles[t.index].doubt is not None:
                continue
            k = nearer_half(t, chain.end_ref)
            d = t.halves[k] - chain.end_ref
            r = float(np.linalg.norm(d)) / b.w
            if not TOUCH_HIGH < r <= SHORT_GAP or cos_between(d, chain.direction) < straight \
                    or cos_between(t.halves[1 - k] - t.halves[k], chain.direction) < straight:
                continue
            if best is None or r < best[0]:
                best = (r, chain, t, k)
    if best is None:
        return False
    _, chain, t, k = best
    chain.lay((t.index, t.values[k], t.values[1 - k]), t.halves[1 - k],
              unit(t.halves[1 - k] - t.halves[k]), t)
    b.pool.pop(t.index)
    b.report(Uncertainty(
        "short-gap", f"tile {t.index} {list(t.values)} lies a little beyond the end of train "
        f"{chain.owner}: taken as laid on it", (t.index,), (chain.owner,)))
    return True


def _lay_across(b: TableBuild, chain: Chain, beyond: Beyond) -> None:
    """Lay the unseen tiles and the tile beyond them on ``chain``; drop the boxes in the
    gap."""
    w = b.w
    t, k = beyond.tile, beyond.k
    start = chain.end_ref
    # the unseen tiles' outlines: between the end and the tile beyond, in equal parts
    axis = unit(beyond.stop - start)
    a_end, b_end = start + axis * 0.5 * w, beyond.stop - axis * 0.5 * w
    step = (b_end - a_end) / len(beyond.missing)
    laid_now = []
    for n, missing in enumerate(beyond.missing):
        lo, hi, across = a_end + n * step, a_end + (n + 1) * step, perp(axis) * 0.5 * w
        if missing[0] == missing[1]:  # a double lies across: its long side across the train
            mid = (lo + hi) / 2
            lo, hi, across = mid - perp(axis) * w, mid + perp(axis) * w, axis * 0.5 * w
        corners = np.array([lo - across, lo + across, hi + across, hi - across])
        # inferred, so no doubt and no ranges; ``corners`` on the working plane
        inferred = b.add_tile(TileReading(missing, corners))
        gap = make_tile(inferred, missing, corners)
        _drop_pieces(b, chain, gap, t)
        chain.lay((inferred, missing[0], missing[1]),
                  (lo + hi) / 2 if missing[0] == missing[1] else gap.halves[1], axis, gap)
        laid_now.append(inferred)
    if beyond.across:
        chain.lay((t.index, t.values[0], t.values[0]), t.centre, axis, t)
    else:
        chain.lay((t.index, t.values[k], t.values[1 - k]), t.halves[1 - k],
                  unit(t.halves[1 - k] - t.halves[k]), t)
    b.pool.pop(t.index)
    unseen = " and ".join(f"{m[0]}-{m[1]}" for m in beyond.missing)
    b.report(Uncertainty(
        "inferred-tile", f"train {chain.owner} has a gap before tile {t.index}: "
        f"taken as an unseen {unseen}", tuple(laid_now), (chain.owner,)))


def _drop_pieces(b: TableBuild, chain: Chain, gap: PlacedTile, beyond: PlacedTile) -> None:
    """Drop the boxes lying in an unseen tile's outline (pieces, a box straddling two
    tiles, a misplaced box)."""
    for other in [o for o in b.pool.values() if o is not beyond]:
        if gap.distance_to_point(other.centre) < 0.25 * b.w:
            b.pool.pop(other.index)
            b.report(Uncertainty(
                "inferred-tile", f"tile {other.index} {list(other.values)} lies in a gap "
                f"of train {chain.owner}: not a tile of its own", (other.index,),
                (chain.owner,)))
