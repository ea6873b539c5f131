"""The hub: which box is the engine and its count; on the mat, what is print, not tiles."""

from __future__ import annotations

import math

import numpy as np

from vision.mat.geometry import (
    ARROW_TO_MM,
    ARUCO_SIDE_MM,
    SLOT_RADIUS_MM,
    TILE_WIDTH_MM,
    marker_corners_mm,
)
from vision.readings import TileReading
from vision.table.build import TableBuild
from vision.table.geometry import PlacedTile, cos_between, make_tile, nearer_half, outline_at
from vision.table.reading import Uncertainty

#: On the mat, the engine is a double centred within this many widths of the hub.
ENGINE_REACH_WIDTHS = 1.5
#: At the hub, a tiles' width this far (a factor) from the width of the tiles the mat
#: is drawn for is no measure (one misplaced box decided it): the mat's is taken.
WIDTH_FACTOR = 1.5
#: Boxes centred this close (widths) to the engine read again at the hub were pieces of it.
HUB_INSIDE = 0.25
#: Turns (degrees) at which the engine is read again at the hub.
HUB_TURNS = tuple(15.0 * k for k in range(12))


def on_printed_marker(centre: np.ndarray) -> bool:
    """Whether a point of the mat frame lies on one of the mat's four ArUco markers."""
    half = 0.5 * ARUCO_SIDE_MM
    for position in range(4):
        middle = marker_corners_mm(position).mean(axis=0)
        if np.all(np.abs(np.asarray(centre) - middle) <= half):
            return True
    return False


def on_printed_ring(tile: PlacedTile, w: float) -> bool:
    """Whether a box on the mat (its frame) lies on the print between the engine and the
    slots, the seat arrows and labels, rather than being a tile: centred there (a
    train's first tile starts at ``SLOT_RADIUS_MM``, so even a crosswise double is
    centred half a width beyond it), or reaching in over the arrows' tips (measured on
    rendered mat tables: every true tile's nearest corner lay 101 mm or more from the
    hub, the boxes a detector found on the print 102 mm or less, nearly all under 99)."""
    r = float(np.linalg.norm(tile.centre))
    if r <= ENGINE_REACH_WIDTHS * w:
        return False  # the engine's place
    nearest = float(np.min(np.linalg.norm(tile.corners, axis=1)))
    return r < SLOT_RADIUS_MM - 0.25 * w or nearest < ARROW_TO_MM


def starts(centre: np.ndarray, value: int, read: list[PlacedTile], w: float,
           skip: PlacedTile | None = None) -> int:
    """How many tiles start a train from ``centre`` with ``value``: that end towards it,
    pointing away, within 9 widths."""
    count = 0
    for t in read:
        if t is skip or value not in t.values:
            continue
        k = nearer_half(t, centre)
        if t.values[k] != value:
            continue
        out = t.halves[k] - centre
        if (float(np.linalg.norm(out)) <= 9 * w
                and cos_between(out, t.halves[1 - k] - t.halves[k])
                >= math.cos(math.radians(30))):
            count += 1
    return count


def hub_value(tile: PlacedTile, read: list[PlacedTile], w: float) -> int:
    """The engine's count for a tile on the hub not read as a double: of the counts its
    halves could be, the one most tiles around start a train with."""
    options: set[int] = set(tile.values)
    for low, high in tile.ranges or ():
        options.update(range(low, high + 1))
    return max(sorted(options), key=lambda v: (starts(tile.centre, v, read, w, tile),
                                               v in tile.values))


def hub_width(w: float) -> float:
    """The tiles' width for the look at the hub: ``w`` if plausible, else the mat's."""
    if TILE_WIDTH_MM / WIDTH_FACTOR <= w <= TILE_WIDTH_MM * WIDTH_FACTOR:
        return w
    return TILE_WIDTH_MM


def _engine_on_mat(read: list[PlacedTile], doubles: list[PlacedTile], w: float,
                   uncertain: list[Uncertainty], engine: int | None
                   ) -> tuple[PlacedTile, int] | None:
    near = sorted(doubles, key=lambda t: float(np.linalg.norm(t.centre)))
    if near and float(np.linalg.norm(near[0].centre)) <= ENGINE_REACH_WIDTHS * w:
        return near[0], engine if engine is not None else near[0].values[0]
    central = sorted(read, key=lambda t: float(np.linalg.norm(t.centre)))
    if central and float(np.linalg.norm(central[0].centre)) <= 0.6 * w:
        # the engine, misread (reported by the caller); when the round's engine is
        # not known, the count the trains leaving the hub start with tells it
        return central[0], engine if engine is not None else hub_value(central[0], read, w)
    uncertain.append(Uncertainty("no-engine", "no double on the mat's centre"))
    return None


def find_engine(read: list[PlacedTile], w: float, on_mat: bool,
                uncertain: list[Uncertainty],
                engine: int | None = None) -> tuple[PlacedTile, int] | None:
    """The engine tile and its count (``None``: none found, reported)."""
    doubles = [t for t in read if t.is_double]
    if engine is not None and any(t.values == (engine, engine) for t in doubles):
        doubles = [t for t in doubles if t.values == (engine, engine)]
    if on_mat:
        return _engine_on_mat(read, doubles, w, uncertain, engine)
    misread = _misread_doubles(read, doubles, w, engine)
    if not doubles and not misread:
        uncertain.append(Uncertainty("no-engine", "no double on the table to be the engine"))
        return None
    if doubles:
        found = _likeliest_double(read, doubles, w, uncertain)
        best = (starts(found.centre, found.values[0], read, w, found), found, found.values[0])
    if misread and (not doubles or misread[0][0] > best[0]):
        best = misread[0]  # more trains leave it than any double read as such
    return best[1], engine if engine is not None else best[2]


def _misread_doubles(read: list[PlacedTile], doubles: list[PlacedTile], w: float, engine: int | None
                     ) -> list[tuple[int, PlacedTile, int]]:
    """Tiles touching no other that the reader's doubt allows to be a double, from which
    at least two trains start with that count: ``(trains, tile, count)``, most first.
    (A double's half misread, 4-5 for a 4-4: the trains leaving it say what it is.)"""
    out = []
    for t in read:
        if t.is_double or t.ranges is None or any(t.gap_to(o) <= 0.4 * w for o in read
                                                  if o is not t):
            continue
        low = max(t.ranges[0][0], t.ranges[1][0])
        high = min(t.ranges[0][1], t.ranges[1][1])
        counts = [v for v in range(low, high + 1) if engine is None or v == engine]
        ranked = sorted(((starts(t.centre, v, read, w, t), t, v) for v in counts),
                        key=lambda s: (s[0], s[2] in t.values), reverse=True)
        if ranked and ranked[0][0] >= 2:
            out.append(ranked[0])
    return sorted(out, key=lambda s: s[0], reverse=True)


def _likeliest_double(read: list[PlacedTile], doubles: list[PlacedTile], w: float,
                      uncertain: list[Uncertainty]) -> PlacedTile:
    """Of the doubles read as such, the engine: one touching no other tile from which the
    most trains start with its count (on a tie, the most central; reported)."""
    lonely = [d for d in doubles if all(d.gap_to(t) > 0.4 * w for t in read if t is not d)]
    candidates = lonely or doubles
    centroid = np.mean([t.centre for t in read], axis=0)

    def starts_from(d: PlacedTile) -> int:
        return starts(d.centre, d.values[0], read, w, d)

    ranked = sorted(((starts_from(d), -float(np.linalg.norm(d.centre - centroid)) / w, d)
                     for d in candidates), key=lambda s: (s[0], s[1]), reverse=True)
    best = ranked[0]
    if len(ranked) > 1 and ranked[1][0] == best[0] and (best[0] > 0 or len(read) > 1):
        others = tuple(r[2].index for r in ranked[1:] if r[0] == best[0])
        uncertain.append(Uncertainty(
            "engine-tie", f"{len(others) + 1} doubles could be the engine; took the most central",
            (best[2].index, *others)))
    if not lonely:
        uncertain.append(Uncertainty("no-engine", "every double touches another tile; "
                                     "took the likeliest as the engine", (best[2].index,)))
    return best[2]


def look_at_hub(b: TableBuild, w: float, engine: int | None) -> tuple[PlacedTile, int] | None:
    """On the mat, read the engine again where it lies: on the hub's centre.

    When no double read as such lies on the hub (the engine's box slid off it, or
    it was misread), the image is read in a tile's outline (``w`` wide) centred on
    the hub, turned every 15 degrees. An outline turned off the tile cuts pips off
    its halves and never adds any (nothing else lies that near the hub), so of the
    readings the reader does not doubt that are a double (the round's engine,
    when known), the one with the most pips is the engine; on a tie, the surest
    (``reread-tile``; appended to ``b.tiles``). ``None``: none was read.
    """
    best: tuple[int, float, np.ndarray, TileReading] | None = None
    places = [outline_at(np.zeros(2), np.array([math.cos(math.radians(turn)),
                                                math.sin(math.radians(turn))]), w)
              for turn in HUB_TURNS]
    for corners, again in zip(places, b.read_again_all(places), strict=True):
        if again is None:
            continue
        seen, values, _ = again
        if values[0] != values[1] or (engine is not None and values[0] != engine):
            continue
        rank = (values[0], float(seen.confidence))
        if best is None or rank > best[:2]:
            best = (*rank, corners, seen)
    if best is None:
        return None
    value, _, corners, seen = best
    index = b.add_tile(seen)
    b.report(Uncertainty(
        "reread-tile", f"no double read on the hub: read again there as {value}-{value}, "
        "taken as the engine", (index,)))
    return make_tile(index, (value, value), corners), value


def place_engine(b: TableBuild, live: list[PlacedTile], engine: int | None) -> PlacedTile | None:
    """Find the engine among the ``live`` boxes (on the mat, read again on the hub when
    no double read as such lies there): sets ``b.e``, ``b.hub`` and the boxes left to
    lay (``b.pool``); the engine's tile, or ``None`` when there is none (reported)."""
    at_hub = None
    if b.look is not None and b.on_mat:
        # no double read as such on the hub: the engine is read again where it lies
        on_hub = find_engine(live, b.w, True, [], engine)
        if on_hub is None or on_hub[0].values != (on_hub[1], on_hub[1]):
            at_hub = look_at_hub(b, hub_width(b.w), engine)
            if at_hub is not None:
                engine_tile = at_hub[0]
                live = [t for t in live if engine_tile.distance_to_point(t.centre)
                        > HUB_INSIDE * engine_tile.width]
    if at_hub is None and not live:
        b.report(Uncertainty("no-engine", "no tiles on the table"))
        return None
    if at_hub is None:
        at_hub = find_engine(live, b.w, b.on_mat, b.uncertain, engine)
    if at_hub is None:
        return None
    hub_tile, b.e = at_hub
    if hub_tile.values != (b.e, b.e):
        b.report(Uncertainty(
            "engine-read", f"the engine was read {hub_tile.values[0]}-{hub_tile.values[1]}; "
            f"taken as {b.e}-{b.e}, " + ("the round's engine" if engine is not None else
                                         "the count the trains leaving the hub start with"),
            (hub_tile.index,)))
    b.hub = np.zeros(2) if b.on_mat else hub_tile.centre
    b.pool = {t.index: t for t in live if t is not hub_tile}
    if b.on_mat:
        # on the mat only the engine lies on the hub: another box there is a piece of it
        b.pool = {i: t for i, t in b.pool.items()
                  if float(np.linalg.norm(t.centre)) > ENGINE_REACH_WIDTHS * b.w}
    return hub_tile
