"""Looking again where a train goes on: a train that stops where a loose box lies about
its next tile's place is read again in each outline that tile could have
(``reread-tile``)."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from vision.readings import TileReading
from vision.table.build import Chain, Reread, TableBuild
from vision.table.geometry import PlacedTile, make_tile, nearer_half, outline_at, perp
from vision.table.reading import Uncertainty

#: A loose box centred this close (widths) to where a train's next tile could lie
#: makes ``look_again`` read every place it could lie ... (a box slid a whole half
#: along a tile turned at a train's end lay 1.01 widths off; at 1.25, on one rendered
#: mat table, a look misread a blurred 0-10 as 0-8 where the gap would have been
#: bridged from the tile beyond)
LOOK_AROUND_WIDTHS = 1.1
#: ... and read again centred on each box this close to one of them.
LOOK_NEAR_WIDTHS = 0.75
#: A half read at least this surely (``half_certainty``) as another count than the
#: end's, in an outline where the end's double would lie across, says no double lies
#: there: a single lying along the train, read across its near half, showed its other
#: count (a 7-9 on a 7 end taken for 7-7, the 9-11 laid on it left loose: rendered table
#: seeds 1100036 and 1400028, no-mat; no table read worse over 320).
SURE_HALF = 0.9
#: An outline read again with no loose box centred in it (within 0.4 widths) is a
#: tile only when read at least this confidently: the detector saw nothing there,
#: and a half-sure reading of bare table beyond a train's end laid a tile no one
#: played (a 6-4 read at 0.53 past a 10-4 end, rendered no-mat seed 1400073; no
#: table read worse over 320).
EMPTY_OUTLINE_SURE = 0.8
# Nor is such an outline ever a 0-0: bare table shows no pips, so it reads as two
# blank halves, and surely (0.94-1.0 in five outlines past a 9-0 end, rendered
# no-mat seed 1100013, where a 0-0 no one played was laid).
# A double read again across a train's end is taken only when a half reads as the
# end's count: within both halves' ranges alone, a 2-2 whose ranges reached 4 was
# laid as a 4-4 on a 4 end, where a 4-7 lay (rendered no-mat seed 1400047).

#: A half of a box read without doubt this close (widths) to a half of an outline
#: read again, the box not centred on the outline, means the outline spans two tiles.
OVER_HALF_WIDTHS = 0.5


class Outline(NamedTuple):
    """A place a train's next tile could lie: a double across or a single along,
    centred on ``expected``, its ``axis`` from the near end, and the way on."""

    double: bool
    expected: np.ndarray
    axis: np.ndarray
    way: np.ndarray


class Found(NamedTuple):
    """The surest reading of a train's next tile."""

    sure: float
    double: bool
    centre: np.ndarray
    corners: np.ndarray
    way: np.ndarray
    seen: TileReading


def halves_meet(a: PlacedTile, b: PlacedTile, w: float) -> bool:
    """Whether a half of ``a`` lies on a half of ``b`` (``OVER_HALF_WIDTHS``)."""
    return any(float(np.linalg.norm(p - q)) < OVER_HALF_WIDTHS * w
               for p in a.halves for q in b.halves)


def over_other_half(outline: PlacedTile, sure: list[PlacedTile], w: float, end_ref: np.ndarray,
                    end_value: int) -> bool:
    """Whether a half of ``outline`` lies on the near half (the one nearer the train's
    end ``end_ref``) of one of the ``sure`` boxes, which is not a box on that outline
    itself (centred about it, ``LOOK_NEAR_WIDTHS``), and that half shows the end's
    count: that box is the tile laid on a double of the end's count where the train
    turns, and read there, the outline shows halves of two tiles (the double and
    that box's near half, read as one single). A box whose near half shows another
    count is more likely a box slid half a tile off, and does not count."""
    for t in sure:
        if float(np.linalg.norm(t.centre - outline.centre)) <= LOOK_NEAR_WIDTHS * w:
            continue
        k = nearer_half(t, end_ref)
        if t.values[k] == end_value and any(
                float(np.linalg.norm(p - t.halves[k])) < OVER_HALF_WIDTHS * w
                for p in outline.halves):
            return True
    return False


def _outlines(chain: Chain, w: float) -> list[Outline]:
    """Where the train's next tile could lie: straight on, lengthwise or (after a
    single) a double across; after a single also turned a right angle against either
    side of its far half."""
    single = chain.tiles[-1][1] != chain.tiles[-1][2]
    ways = [chain.direction] + ([perp(chain.direction), -perp(chain.direction)]
                                if single else [])
    outlines = [Outline(False, chain.end_ref + 1.5 * w * u, u, u) for u in ways]
    if single:
        outlines += [Outline(True, chain.end_ref + w * u, perp(u), u) for u in ways]
    return outlines


def _sureness(again: Reread, double: bool, end_v: int) -> float | None:
    """How surely ``again`` shows the train's next tile, read as a double across its
    end or a single along it (``None``: it does not)."""
    seen, values, ranges = again
    spans = ranges if double else ranges[:1]
    if not all(low <= end_v <= high for low, high in spans) or (
            not double and values[0] == values[1]) or (
            double and end_v not in values):
        return None  # a double read as neither half the end's count is no double of it
    if double and any(v != end_v and float(c) >= SURE_HALF
                      for v, c in zip(values, seen.half_certainty, strict=True)):
        return None  # a half surely not the end's count: no double of it
    # the surest; on a tie, one read exactly as the end (a double: both halves)
    exact = all(v == end_v for v in (values if double else values[:1]))
    return float(seen.confidence) + (0.01 if exact else 0.0)


def _best_reading(b: TableBuild, chain: Chain, outlines: list[Outline],
                  around: list[PlacedTile]) -> Found | None:
    """Read each outline where the train puts it and centred on each box about it (all
    in one look): the surest reading of the next tile."""
    w, end_v = b.w, chain.tiles[-1][2]
    best: Found | None = None
    # boxes read without doubt, except those over the train's last tile (a box
    # slid half a tile off it, over its far half and the next tile's near half)
    read_sure = [t for t in b.pool.values() if not t.unsure
                 and not halves_meet(t, chain.last, w)]
    places: list[tuple[bool, np.ndarray, np.ndarray, np.ndarray]] = []
    for double, expected, axis, way in outlines:
        near = [t.centre for t in around
                if float(np.linalg.norm(t.centre - expected)) <= LOOK_NEAR_WIDTHS * w]
        for centre in [expected, *near]:
            corners = outline_at(centre, axis, w)
            if not over_other_half(make_tile(-1, (0, 0), corners), read_sure, w,
                                   chain.end_ref, end_v):
                places.append((double, centre, corners, way))
    for (double, centre, corners, way), again in zip(
            places, b.read_again_all([p[2] for p in places]), strict=True):
        if again is None:
            continue
        sure = _sureness(again, double, end_v)
        if sure is None:
            continue
        outline = make_tile(-1, (0, 0), corners)
        if (sure < EMPTY_OUTLINE_SURE or not any(again.values)) and not any(
                outline.distance_to_point(t.centre) < 0.4 * w for t in around):
            continue  # no box in it: only a sure reading of pips shows a tile there
        if best is None or sure > best.sure:
            best = Found(sure, double, centre, corners, way, again.seen)
    return best


def look_again(b: TableBuild) -> bool:
    """Read one train's next tile again where it must lie; True when one was found.

    A detector box misplaced on a tile (shifted towards a marker, squarish on a
    double, or several boxes crossing one another where a train turns)
    continues nothing, and its halves are cut wrong, so the train stops there.
    When a loose box lies about where the train's next tile could lie, the
    image is read again in each outline that tile could have: straight on,
    lengthwise or a double across, and after a single also turned a right
    angle against either side of its far half; each outline is read where the
    train puts it and centred on each box lying about there. The surest
    reading the reader does not doubt whose near half could be the train's end
    count (a double's both halves, neither read surely as another count:
    ``SURE_HALF``) is the next tile; where no box lies in the outline, only a
    sure one (``EMPTY_OUTLINE_SURE``), and never a 0-0. A double read lengthwise
    is never taken: it is two tiles' halves (a double lies across); nor is an
    outline with a half on the near half of a box read without doubt, lying off
    it, that shows the end's count (``over_other_half``). The boxes
    centred in the tile (nearer its outline than a touching tile's centre can
    be) were no tiles of their own; the next look at that train still counts
    them as boxes lying about (``Chain.ghosts``): a box askew over the tile
    read again may reach over the next one, a double turned beside it that no
    box of its own shows. Reported (``reread-tile``); its index in
    ``positions`` is beyond the input tiles.
    """
    for chain in b.chains:
        if not chain.tiles:
            continue
        # each end once; an end read again (``reread_mismatches``) is a new one
        x, y = np.round(chain.end_ref, 3).tolist()
        end = (chain.owner, len(chain.tiles), chain.tiles[-1][2], x, y)
        if end in b.looked:
            continue
        b.looked.add(end)
        outlines = _outlines(chain, b.w)
        around = [*b.pool.values(), *chain.ghosts]
        if not any(float(np.linalg.norm(t.centre - o.expected)) <= LOOK_AROUND_WIDTHS * b.w
                   for t in around for o in outlines):
            continue
        best = _best_reading(b, chain, outlines, around)
        if best is None:
            continue
        _take(b, chain, best)
        return True
    return False


def _take(b: TableBuild, chain: Chain, best: Found) -> None:
    """Lay the tile read again on ``chain``; the boxes centred in it are its pieces."""
    _, double, centre, corners, way, seen = best
    end_v = chain.tiles[-1][2]
    values = tuple(int(v) for v in seen.values)
    near_v, far_v = end_v, (end_v if double else values[1])
    index = b.add_tile(seen)
    tile = make_tile(index, (near_v, far_v), corners)
    inside = [o for o in b.pool.values() if tile.distance_to_point(o.centre) < 0.4 * b.w]
    for o in inside:
        b.pool.pop(o.index)
    chain.lay((index, near_v, far_v), centre if double else tile.halves[1], way, tile)
    chain.ghosts = inside
    gone = ", ".join(f"{o.index} {list(o.values)}" for o in inside) or "none"
    b.report(Uncertainty(
        "reread-tile", f"train {chain.owner} goes on where no box lay right: read again "
        f"there as {values[0]}-{values[1]}, taken as {near_v}-{far_v} (boxes there: "
        f"{gone})", (index, *(o.index for o in inside)), (chain.owner,)))
