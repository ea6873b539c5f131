"""Reading again where the table says a tile must lie: at the mat's empty slots, and where
a tile does not match the end it lies on (``reread-tile``)."""

from __future__ import annotations

import math

import numpy as np

from engine import MEXICAN, Owner
from vision.mat.geometry import SLOT_RADIUS_MM
from vision.readings import TileReading
from vision.table.build import Chain, TableBuild
from vision.table.geometry import PlacedTile, cos_between, make_tile, nearest_slot, outline_at, perp
from vision.table.look_again import SURE_HALF
from vision.table.reading import Uncertainty

#: A single read again turned from its box (``read_in_place``) is taken only when read
#: at least this surely, and exactly as a single on the end.
TURNED_REREAD_SURE = 0.8


def look_at_slots(b: TableBuild) -> bool:
    """On the mat, read again where an empty slot's first tile would lie; True when a
    train was found so.

    A first tile's box slid in towards the hub over the printed arrow is print
    (``on_printed_ring``), and one slid aside starts no train, so the whole
    train would be lost. Where a box (loose, or taken for print) lies within
    1.5 widths of where a slot's first tile lies (lengthwise, its near end at
    ``SLOT_RADIUS_MM``), the image is read again there, also moved across to
    the box and centred on it; the surest reading the reader does not doubt
    whose near half could be the engine's count starts that slot's train
    (``reread-tile``). A slot whose train starts with a tile not showing the
    engine's count at the hub is read again so too: a box astride a train's first
    two tiles reads their touching halves as a double (a 6-4 4-8 on a 6 engine
    boxed as a 4-4) and the train goes on from nothing, or the first tile's own
    box is read as the double of its far count (a 12-4 read 4-4) and the train
    goes on from it. When a tile is read there, the train is laid again from it,
    its boxes back among the loose ones (rendered mat tables: fresh seeds
    1400000+ 68 -> 70 of 80 read whole, benchmark seeds 34 -> 35 of 40).
    """
    slots = b.players + 1
    # a train that does not start with the engine's count: read again there too
    astride = {nearest_slot(c.slot_angle, slots)[0]: c for c in b.chains
               if c.tiles[0][1] != b.e and all(i < len(b.read) for i, _, _ in c.tiles)}
    taken = {nearest_slot(c.slot_angle, slots)[0] for c in b.chains} - set(astride)
    boxes = [*b.pool.values(), *b.printed, *(c.head for c in astride.values())]
    found = False
    for slot in range(slots):
        if slot in taken:
            continue
        angle = 90.0 + 360.0 * slot / slots
        u = np.array([math.cos(math.radians(angle)), math.sin(math.radians(angle))])
        best = _read_at_slot(b, u, boxes)
        if best is None:
            continue
        corners, seen = best
        values = tuple(int(v) for v in seen.values)
        index = b.add_tile(seen)
        tile = make_tile(index, (b.e, values[1]), corners)
        was = astride.get(slot)
        if was is not None:  # its tiles are laid again from the tile read
            b.chains.remove(was)
            b.pool.update((i, b.read[i]) for i, _, _ in was.tiles)
        for o in [o for o in b.pool.values() if tile.distance_to_point(o.centre) < 0.4 * b.w]:
            b.pool.pop(o.index)
        owner: Owner = MEXICAN if slot == b.players else slot
        b.chains.append(Chain(owner, angle % 360.0, [(index, b.e, values[1])], tile.halves[1],
                              u, tile, tile, links=[(np.zeros(2), u)]))
        b.report(Uncertainty(
            "reread-tile", f"train {owner} starts where no box lay right: read again at its "
            f"slot as {values[0]}-{values[1]}, taken as {b.e}-{values[1]}", (index,), (owner,)))
        found = True
    b.chains.sort(key=lambda c: nearest_slot(c.slot_angle, slots)[0])
    return found


def _read_at_slot(b: TableBuild, u: np.ndarray, boxes: list[PlacedTile]
                  ) -> tuple[np.ndarray, TileReading] | None:
    """The surest undoubted reading of a first tile along ``u`` from the hub, where it
    lies and moved to each box about it, whose near half could be the engine's count."""
    w = b.w
    expected = (SLOT_RADIUS_MM + w) * u
    near = [t.centre for t in boxes if float(np.linalg.norm(t.centre - expected)) <= 1.5 * w]
    if not near:
        return None
    across = [expected + perp(u) * float((c - expected) @ perp(u)) for c in near]
    best: tuple[float, np.ndarray, TileReading] | None = None
    places = [outline_at(centre, u, w) for centre in [expected, *across, *near]]
    for corners, again in zip(places, b.read_again_all(places), strict=True):
        if again is None:
            continue
        seen, values, ranges = again
        if not ranges[0][0] <= b.e <= ranges[0][1] or values[0] == values[1]:
            continue
        sure = float(seen.confidence) + (0.01 if values[0] == b.e else 0.0)
        if best is None or sure > best[0]:
            best = (sure, corners, seen)
    return None if best is None else (best[1], best[2])


def reread_mismatches(b: TableBuild, ends_only: bool = False) -> bool:
    """Read a tile laid on a count it does not show again where its train puts it.

    A box shifted along its tile cuts the pips nearest one end off that half's
    crop, and they are missed without doubt (an 11 read 9, no range to settle it
    by its neighbours). Where a tile's near half still does not match the end
    it is laid on, the image is read again in the outline the train gives it
    (lengthwise, or a double across, as the box lies, else turned the other way:
    :func:`read_in_place`); a reading that fits the end is the tile
    (``reread-tile``). When it reads the same again, or it keeps its count against the
    end (``TableBuild.keeps``), the tile before it is read again instead
    (:func:`reread_before`). A tile that really does not match
    reads the same again, and stays for the rules to judge. With ``ends_only``, only
    each train's last tile is looked at (its far count is where the train goes on).
    A train's last tile taken so moves the train's end to where the outline puts it:
    the box lay off its tile (turned, a box slid), and the next tile, turned a right
    angle beside its far half, would not fit on the box's far half.
    True when a tile was taken otherwise.
    """
    changed = False
    for chain in b.chains:
        for k in range(max(len(chain.tiles) - 1, 1) if ends_only else 1, len(chain.tiles)):
            idx, near, _ = chain.tiles[k]
            end = chain.tiles[k - 1][2]
            if near == end or idx >= len(b.read):
                continue
            if b.keeps(idx, near, end):  # settled: only the tile before it is in question
                changed = reread_before(b, chain, k) or changed
                continue
            end_ref, direction = chain.links[k]
            lying = abs(cos_between(b.read[idx].axis, direction)) < 0.5  # lying across
            found = read_in_place(b, end_ref, direction, lying, end)
            if found is not None:
                _retake(b, chain, k, found)
                changed = True
                continue
            changed = reread_before(b, chain, k) or changed
    return changed


#: A tile read again in place: (a double across, its centre, its corners, its values).
InPlace = tuple[bool, np.ndarray, np.ndarray, tuple[int, int]]


def _retake(b: TableBuild, chain: Chain, k: int, found: InPlace) -> None:
    """Take the ``k``-th tile of ``chain`` as read again in place (``read_in_place``)."""
    idx, _, _ = chain.tiles[k]
    end = chain.tiles[k - 1][2]
    double, centre, corners, values = found
    chain.tiles[k] = (idx, end, end if double else values[1])
    if k == len(chain.tiles) - 1:
        # the train goes on from where it puts the tile, not from the box
        tile = make_tile(idx, (end, chain.tiles[k][2]), corners)
        chain.end_ref = centre if double else tile.halves[1]
        chain.direction, chain.last = chain.links[k][1], tile
    was = b.read[idx].values
    b.report(Uncertainty(
        "reread-tile", f"tile {idx} was read {was[0]}-{was[1]}, not matching "
        f"the {end} it lies on; read again where train {chain.owner} puts it: "
        f"{values[0]}-{values[1]}, taken as {end}-{chain.tiles[k][2]}", (idx,),
        (chain.owner,)))


def read_in_place(b: TableBuild, end_ref: np.ndarray, direction: np.ndarray, lying: bool,
                  end: int) -> InPlace | None:
    """Read the tile laid on the count ``end`` again where its train puts it.

    First as its box lies (``lying`` across: a double; else a single on along the
    train): taken when the reader does not doubt it and the near half's range (a
    double's both) holds ``end``, but never a single read as a double (a double lies
    across; lengthwise, the outline showed halves of two tiles). Then turned the
    other way: taken only when read exactly so, a single surely
    (``TURNED_REREAD_SURE``), a double with a half sure (``SURE_HALF``) though the
    reader doubts the other, and never a 0-0. A double found as two boxes, each a
    half lying lengthwise and read as another tile, is read whole only across (the
    Mexican train of the table benchmark's first trained game without the mat: an
    11-11 read 1-5 and 5-9 left the train stopped there, and 8 false alerts; read
    lengthwise, the 11-11's half and the 11-8's near half showed 11-11).
    Returns (double, centre, corners, values) or ``None``.
    """
    w = b.w
    for double in (lying, not lying):
        centre = end_ref + (1.0 if double else 1.5) * w * direction
        corners = outline_at(centre, perp(direction) if double else direction, w)
        if double == lying:
            again = b.read_again(corners)
            # (a double read lengthwise is two tiles' halves: a double lies across)
            if again is not None and all(low <= end <= high for low, high
                                         in (again[2] if double else again[2][:1])) and (
                    double or again[1][0] != again[1][1]):
                return double, centre, corners, again[1]
            continue
        turned = b.read_again(corners, doubted=True)
        if turned is None:
            continue
        seen, values, _ = turned
        if double:
            # the end's double read exactly, a half of it surely (bare table beside a
            # single reads as blank halves: never a 0-0)
            fits = (end != 0 and values == (end, end)
                    and max(seen.half_certainty) >= SURE_HALF)
        else:
            fits = (not bool(seen.uncertain)
                    and float(seen.confidence) >= TURNED_REREAD_SURE
                    and values[0] == end != values[1])
        if fits:
            return double, centre, corners, values
    return None


def reread_before(b: TableBuild, chain: Chain, k: int) -> bool:
    """The other side of a mismatch: the tile before it, a single lying lengthwise, may
    be the misread one (its far half, which the next tile vouches for). It is read
    again where its train puts it; a reading the reader does not doubt whose near
    half is still the count it lies on and whose far half could be the next tile's
    near count is taken (``reread-tile``; True). Never a tile that keeps its far count
    against the next tile's (``TableBuild.keeps``): that tile is the one misread."""
    prev, near, far = chain.tiles[k - 1]
    want = chain.tiles[k][1]
    if prev >= len(b.read) or near == far or b.keeps(prev, far, want):
        return False
    end_ref, direction = chain.links[k - 1]
    if abs(cos_between(b.read[prev].axis, direction)) < 0.5:  # lying across: a double's place
        return False
    again = b.read_again(outline_at(end_ref + 1.5 * b.w * direction, direction, b.w))
    if again is None:
        return False
    _, values, ranges = again
    if not (ranges[0][0] <= near <= ranges[0][1] and ranges[1][0] <= want <= ranges[1][1]):
        return False
    chain.tiles[k - 1] = (prev, near, want)
    was = b.read[prev].values
    b.report(Uncertainty(
        "reread-tile", f"tile {prev} was read {was[0]}-{was[1]}, its far end not matching "
        f"the {want} laid on it; read again where train {chain.owner} puts it: "
        f"{values[0]}-{values[1]}, taken as {near}-{want}", (prev,), (chain.owner,)))
    return True
