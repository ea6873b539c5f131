"""Counts settled by what the table says: a tile's neighbours on its train, the set's one
tile of each kind, the reader's ranges (``matched-read``).

:func:`correct_counts` is the step that decides the counts of the tiles laid on the
trains once the trains are laid; each rule below is one part of it.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace

from vision.readings import TileReading
from vision.table.build import Chain, TableBuild, end_ranges, lies_along
from vision.table.counts.decode import decode_set
from vision.table.reading import Uncertainty
from vision.table.rereads import reread_mismatches


def within_ranges(tile: TileReading) -> TileReading:
    """``tile``, or its counts moved into the ranges the reader gives them.

    The reader keeps a count beyond the set as read (a blurred 12 read 13 in a
    double-12 set, flagged) but gives it the set's top counts as its range; on
    the table such a count would lay a tile the set does not have (a 13-13 laid
    on it), so it is taken at the nearest count its range allows.
    """
    ranges = tile.ranges
    if ranges is None:
        return tile
    values = tuple(int(v) for v in tile.values)
    settled = tuple(min(max(v, int(lo)), int(hi)) for v, (lo, hi) in zip(values, ranges,
                                                                          strict=True))
    if settled == values:
        return tile
    spans = ((int(ranges[0][0]), int(ranges[0][1])), (int(ranges[1][0]), int(ranges[1][1])))
    return replace(tile, values=(settled[0], settled[1]), ranges=spans)


def as_settled(tile: TileReading) -> TileReading:
    """``tile`` as a settled table gave it: no half's range goes below its count, so that
    no rule weighing the reader's doubt takes pips off it (``TableBuild.keeps``)."""
    a, c = (int(v) for v in tile.values)
    if tile.ranges is None:
        return replace(tile, ranges=((a, a), (c, c)))
    (_, ha), (_, hc) = tile.ranges
    return replace(tile, ranges=((a, max(a, int(ha))), (c, max(c, int(hc)))))


def correct_counts(b: TableBuild) -> None:
    """Settle the counts of the tiles on the trains, in this order: a double read as
    the engine (``engine_twins``), halves misread within the reader's doubt
    (``match_neighbours``), a mismatch read again where its train puts it (with
    ``look``: ``rereads.reread_mismatches``), a tile matching neither neighbour
    (``correct_sandwiched``), a train's open end repeating a tile on the table
    (``avoid_repeats``), then the whole table under the set's one tile of each kind
    (``decode.decode_set``)."""
    engine_twins(b)
    for chain in b.chains:
        match_neighbours(b, chain)
    if b.look is not None:
        reread_mismatches(b)
    correct_sandwiched(b)
    avoid_repeats(b)
    decode_set(b)


def fits(value: int, span: tuple[int, int] | None) -> bool:
    return span is not None and span[0] <= value <= span[1]


def correct_sandwiched(b: TableBuild) -> None:
    """A tile inside a train that matches neither neighbour is the tile both say it is.

    A box shifted along a small tile misreads both halves at once (a 2-8 read
    1-7 between a 2 and an 8). A tile really laid wrong still matches whatever
    is laid on it afterwards (the next player plays on the end they see), so a
    mismatch on both sides at once is a misreading: the tile is taken as the
    end before it and the near end after it. A tile matching the end it lies on
    but not the tile laid on it is taken so too when the same tile is read
    elsewhere on the table (a set has one of each: a 9-7 read 9-5 beside the
    real 9-5), or when it was read as a double lying along the train (doubles
    lie across it: a 6-7 read 6-6). A single matching only the tile laid on it
    stays, even when read elsewhere too: the next player laid on what they saw,
    so it may be a tile laid wrong, a second set's among them (the rules' and a
    tracker's ``duplicate-tile``); so does a double, unless it is read twice and
    lies along the train (a second set's double laid wrong would lie across).
    Otherwise a tile read as a double is taken so only when both ends are one
    count (a double stays a double). Never a tile already on the table
    elsewhere. A train's first tile lies on the engine's count. A tile a settled
    table gave matching one neighbour keeps a count of more pips than the other shows
    (``TableBuild.keeps``). Reported (``matched-read``).
    """
    e = b.e
    on_table = Counter((min(near, far), max(near, far)) for chain in b.chains
                       for _, near, far in chain.tiles)
    on_table[(e, e)] += 1
    for chain in b.chains:
        for k in range(len(chain.tiles) - 1):
            idx, near, far = chain.tiles[k]
            end = chain.tiles[k - 1][2] if k else e
            after = chain.tiles[k + 1][1]
            if (near == end and b.keeps(idx, far, after)) or (far == after
                                                               and b.keeps(idx, near, end)):
                continue  # settled, one side vouches for it: the other tile is misread
            read_as = (min(near, far), max(near, far))
            twin = on_table[read_as] >= 2
            # a double lies across its train: one read lying along it is a single misread
            along = near == far and lies_along(chain, k, b.w)
            if far == after and not (twin and along):
                continue  # laid wrong (maybe a second set's tile): for the rules
            if near == end and not ((twin or along) and far != after):
                continue
            pair = (min(end, after), max(end, after))
            if (near == far and end != after and not (twin or along)) or on_table[pair]:
                continue
            chain.tiles[k] = (idx, end, after)
            on_table[read_as] -= 1
            on_table[pair] += 1
            if near != end and far != after:
                why = f"matching neither the {end} it lies on nor the {after} laid on it"
            else:
                why = ("a tile also read elsewhere on the table" if twin
                       else "a double lying along its train") + ", not matching the " + (
                    f"{end} it lies on" if near != end else f"{after} laid on it")
            b.report(Uncertainty(
                "matched-read", f"tile {idx} was read {near}-{far}, {why}; taken as "
                f"{end}-{after}, as its neighbours on train {chain.owner} have it", (idx,),
                (chain.owner,)))


def engine_twins(b: TableBuild) -> None:
    """A double inside a train read as the engine is another double, misread.

    A set holds one ``e-e``, and it is the engine at the hub. A train's double
    read ``e-e`` is taken for the double its neighbours could show: the end it
    is laid on, else a count a neighbour's half could be (the reader's ranges;
    the nearest to ``e``: a blurred 11-11 read 12-12 beside a 12-12 engine,
    often with the 11s next to it read 12 as well). Neighbour halves follow when
    their ranges allow. Never a double already on the table; with nothing
    around it to say otherwise it stays, for the rules to report. Reported
    (``matched-read``).
    """
    e, tiles = b.e, b.tiles
    on_table = {(near, far) for chain in b.chains for _, near, far in chain.tiles}
    for chain in b.chains:
        for j in range(1, len(chain.tiles)):
            idx, near, far = chain.tiles[j]
            if near != e or far != e:
                continue
            prev = chain.tiles[j - 1]
            prev_far = end_ranges(tiles[prev[0]], prev[1], prev[2])[1]
            nxt = chain.tiles[j + 1] if j + 1 < len(chain.tiles) else None
            next_near = end_ranges(tiles[nxt[0]], nxt[1], nxt[2])[0] if nxt else None

            options = {prev[2], *range(prev_far[0], prev_far[1] + 1)}
            if next_near is not None:
                options.update(range(next_near[0], next_near[1] + 1))
            options = {x for x in options if x >= 0 and x != e and (x, x) not in on_table}
            if not options:
                continue
            support = {v: 2 * (v == prev[2]) + fits(v, prev_far) + fits(v, next_near)
                       for v in options}
            x = max(sorted(options), key=lambda v: (support[v], -abs(v - e)))
            if support[x] == 0:  # nothing around it says what else it could be
                continue
            chain.tiles[j] = (idx, x, x)
            on_table.add((x, x))
            if prev[2] != x and fits(x, prev_far):
                chain.tiles[j - 1] = (prev[0], prev[1], x)
            if nxt is not None and nxt[1] != x and fits(x, next_near):
                chain.tiles[j + 1] = (nxt[0], x, nxt[2])
            read = tuple(int(v) for v in tiles[idx].values)
            b.report(Uncertainty(
                "matched-read", f"tile {idx} was read {read[0]}-{read[1]}, the engine's twin; "
                f"taken as {x}-{x}, as its neighbours on train {chain.owner} have it",
                (idx,), (chain.owner,)))


@dataclass
class _Entry:
    """One tile of a train being matched to its neighbours (``match_neighbours``)."""

    idx: int
    near: int
    far: int
    near_range: tuple[int, int]
    far_range: tuple[int, int]
    read: tuple[int, int]
    near_sure: float
    far_sure: float


def _entry(tile: TileReading, idx: int, near: int, far: int) -> _Entry:
    read = (int(tile.values[0]), int(tile.values[1]))
    k = 0 if read == (near, far) else 1
    ranges = tile.ranges or ((read[0], read[0]), (read[1], read[1]))
    sure = tile.half_certainty
    return _Entry(idx, near, far, (ranges[k][0], ranges[k][1]),
                  (ranges[1 - k][0], ranges[1 - k][1]), read, float(sure[k]), float(sure[1 - k]))


def _end_before(entries: list[_Entry], j: int, e: int) -> tuple[tuple[int, int], float]:
    """The counts the end the ``j``-th tile lies on could be, and how sure it is."""
    if j == 0:
        return (e, e), 1.0
    before = entries[j - 1]
    if before.near == before.far:
        return (before.far, before.far), 1.0
    return before.far_range, before.far_sure


def match_neighbours(b: TableBuild, chain: Chain) -> None:
    """Settle misread halves of ``chain`` by their neighbours, within the reader's doubt.

    Where a tile's near end does not match the end before it (the engine, or the
    far end of the tile before), and a count both halves could be (the reader's
    ``ranges``, see ``vision.reading.reader.RANGE_BAND``) makes them match, both take it:
    a misread pip on a blurred 11 is a far likelier story than a mismatch. A
    count the reader is sure of is never changed, so a real mismatch stays one.
    A double's ends move together: where its other half's doubt allows, or
    whatever it read where it lies across the train (a double, however blurred:
    an 11-11 read 10-10 between two 11s is not an 11-10). The tile before a link
    keeps a double's far end. Each change is reported (``matched-read``).
    """
    e = b.e
    entries = [_entry(b.tiles[idx], idx, near, far) for idx, near, far in chain.tiles]
    changed: list[int] = []
    for j, entry in enumerate(entries):
        near, far = entry.near, entry.far
        end = e if j == 0 else entries[j - 1].far
        if near == end:
            continue
        end_range, end_sure = _end_before(entries, j, e)
        lo, hi = max(entry.near_range[0], end_range[0]), min(entry.near_range[1], end_range[1])
        read = entry.read
        if lo > hi and read[0] == read[1] and max(entry.far_range[0], end_range[0]) <= min(
                entry.far_range[1], end_range[1]):
            # a tile read as a double could lie either way round: its other half's doubt
            # allows the end
            entry.near_range, entry.far_range = entry.far_range, entry.near_range
            entry.near_sure, entry.far_sure = entry.far_sure, entry.near_sure
            lo, hi = max(entry.near_range[0], end_range[0]), min(entry.near_range[1],
                                                                 end_range[1])
        if lo > hi:
            continue
        # the count nearest both readings; on a tie, the one the surer half read
        keep = near if entry.near_sure > end_sure else end
        value = min(range(lo, hi + 1), key=lambda v: (abs(v - near) + abs(v - end), abs(v - keep)))
        if j > 0 and value != end:
            entries[j - 1].far = value
            changed.append(entries[j - 1].idx)
        if near == far and (entry.far_range[0] <= value <= entry.far_range[1]
                            or not lies_along(chain, j, b.w)):
            entry.far = value
        entry.near = value
        changed.append(entry.idx)
    if not changed:
        return
    chain.tiles = [(x.idx, x.near, x.far) for x in entries]
    for x in entries:
        if x.idx in changed and (x.near, x.far) not in (x.read, x.read[::-1]):
            b.report(Uncertainty(
                "matched-read", f"tile {x.idx} was read {x.read[0]}-{x.read[1]}; taken as "
                f"{x.near}-{x.far}, as its neighbours on train {chain.owner} have it",
                (x.idx,), (chain.owner,)))


def avoid_repeats(b: TableBuild) -> None:
    """A set holds each tile once: the open end of a train that repeats a tile
    already on the table takes the nearest count the reader's doubt allows that
    repeats none (a blurred 3-11 read 3-12 where a 3-12 lies elsewhere). Only a
    train's last tile's far end, which no neighbour vouches for, is changed; a
    repeat read without doubt stays, for the rules to report. A train ending in
    the same double twice holds one tile found as two boxes: the last is dropped
    (``loose-tile``).
    """
    def key(a: int, c: int) -> tuple[int, int]:
        return (min(a, c), max(a, c))

    for chain in b.chains:
        # the same double twice at a train's end: one tile, two boxes on it
        if len(chain.tiles) > 1 and chain.tiles[-1][1:] == chain.tiles[-2][1:] \
                and chain.tiles[-1][1] == chain.tiles[-1][2]:
            idx, v, _ = chain.tiles.pop()
            chain.links.pop()
            b.report(Uncertainty(
                "loose-tile", f"tile {idx} [{v}, {v}] lies on the {v}-{v} at the end of train "
                f"{chain.owner}: not a tile of its own", (idx,), (chain.owner,)))
    seen = Counter(key(near, far) for chain in b.chains for _, near, far in chain.tiles)
    seen[(b.e, b.e)] += 1
    for chain in b.chains:
        if not chain.tiles:
            continue
        idx, near, far = chain.tiles[-1]
        if seen[key(near, far)] < 2 or near == far:
            continue
        read = tuple(int(v) for v in b.tiles[idx].values)
        ranges = b.tiles[idx].ranges
        if ranges is None:
            continue
        if read == (near, far):
            far_range = ranges[1]
        elif read == (far, near):
            far_range = ranges[0]
        else:  # already matched to its neighbour
            continue
        options = [v for v in range(far_range[0], far_range[1] + 1)
                   if v != far and v != near and seen[key(near, v)] == 0]
        if not options:
            continue
        value = min(options, key=lambda v: abs(v - far))
        seen[key(near, far)] -= 1
        seen[key(near, value)] += 1
        chain.tiles[-1] = (idx, near, value)
        b.report(Uncertainty(
            "matched-read", f"tile {idx} was read {read[0]}-{read[1]}, a tile already on the "
            f"table; taken as {near}-{value}", (idx,), (chain.owner,)))
