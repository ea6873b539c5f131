"""From tiles read in one image to the table: the engine, each train, its seat, its marker.

:func:`reconstruct` works on geometry and values alone (no pixels), so it is
tested on laid-out tables without drawing anything.

How a table is read:

1. **The engine** is the double in the hub: with the mat, the double on the
   mat's centre (any other box there is a piece of it); without it, a double
   that touches no other tile and from which the most tiles carrying its
   number lead away, radially.
2. **Trains** start with a tile lying radially near the hub, its near half
   towards the engine, and grow tile by tile: the next tile's near half lies
   one tile width from the previous tile's far half (straight on, or turned a
   right angle against the side of that half), and a double lies crosswise,
   its centre one width on. The values are not needed to chain tiles (a tile
   laid with the wrong number is still on that train, for the rules engine to
   judge), but they break ties.
3. **Seats**: ``P`` players' trains and the Mexican train leave the hub in
   ``P + 1`` evenly spaced slots, seat 0 towards the bottom of the image (or
   the mat's seat-0 slot), clockwise; the last slot is the Mexican train's.
4. **Markers** belong to the train whose end (or empty slot) they lie by.

Given a way to read the image again (``look``), boxes that fit no train are
read again where the table says a tile must lie (``reread-tile``).

Whatever cannot be resolved (two possible engines, a tile that fits two
trains, a tile laid after a gap, a tile that touches nothing, a marker between
two trains) is reported in :attr:`TableReading.uncertainties`, never guessed
silently.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from engine import MEXICAN, Owner, TableState, Train
from vision.mat_geometry import (
    ARROW_TO_MM,
    ARUCO_SIDE_MM,
    SLOT_RADIUS_MM,
    TILE_WIDTH_MM,
    apply_homography,
    marker_corners_mm,
)

if TYPE_CHECKING:
    from vision.detections import Detections
    from vision.mat import MatView

#: A tile's long side in tile widths.
ASPECT = 2.0
#: Distance (in tile widths) between one tile's far-half centre and the next tile's
#: near reference is 1; this much either way is still "touching".
TOUCH_LOW, TOUCH_HIGH = 0.6, 1.5
#: Largest angle between where a tile lies and the way it points, for chaining.
MAX_BEND_DEG = 32.0
#: A tile further than this (in widths) beyond a train's end, in line, is a gap.
GAP_WIDTHS = 5.0
#: On the mat, the engine is a double centred within this many widths of the hub.
ENGINE_REACH_WIDTHS = 1.5
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
#: Score added to a tile lying crosswise that was not read as a double but could be the
#: double of the end it lies at (``_attach``): a read double that fits scores nothing.
CROSSWISE_READ_PENALTY = 0.3
#: ... and to one read with doubt whose counts could not be that double's.
CROSSWISE_UNSURE_PENALTY = 0.6
#: Two candidates whose scores differ by less than this are a tie worth reporting.
TIE_MARGIN = 0.25


#: Reads the image again inside image corners ``(4, 2)`` (corner convention): a read
#: tile, or ``None``.
Look = Callable[[np.ndarray], Any]


class TileLike(Protocol):
    """What :func:`reconstruct` needs of a read tile (``vision.reader.TileReading``)."""

    @property
    def values(self) -> Any: ...

    @property
    def corners(self) -> Any: ...


@dataclass(frozen=True)
class Uncertainty:
    """Something on the table that could not be resolved.

    ``kind`` is one of ``no-engine``, ``engine-tie``, ``fits-two-trains``,
    ``branch``, ``gap``, ``loose-tile``, ``slot-conflict``, ``between-seats``,
    ``marker-between``, ``loose-marker``, ``players-mismatch``, ``unsure-tile``,
    ``engine-read``, ``matched-read``, ``inferred-tile``, ``reread-tile``.
    ``tiles`` and ``markers`` index the inputs; ``owners`` names the trains.
    """

    kind: str
    message: str
    tiles: tuple[int, ...] = ()
    owners: tuple[Owner, ...] = ()
    markers: tuple[int, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "message": self.message, "tiles": list(self.tiles),
                "owners": list(self.owners), "markers": list(self.markers)}


@dataclass(frozen=True)
class TableReading:
    """The table read from one image.

    ``table`` is ``None`` when no engine was found. ``seats`` maps each train
    found to the direction it leaves the hub in (degrees, clockwise from the
    image's +x). ``assignment[i]`` says where input tile ``i`` went:
    ``"engine"``, a train's owner, or ``None``; ``marker_owners[j]`` likewise
    for marker ``j``. ``positions[owner]`` lists the input tiles of that train
    in train order; an index past the input tiles is a tile inferred in a gap
    (``inferred-tile``) or read again where the train goes on (``reread-tile``).
    """

    table: TableState | None
    seats: dict[Owner, float]
    uncertainties: list[Uncertainty]
    assignment: list[Owner | None] = field(default_factory=list)
    marker_owners: list[Owner | None] = field(default_factory=list)
    players: int = 0
    positions: dict[Owner, list[int]] = field(default_factory=dict)

    def inferred(self, owner: Owner, k: int) -> bool:
        """Whether the ``k``-th tile of ``owner``'s train was inferred in a gap."""
        tiles = self.positions.get(owner, [])
        return k < len(tiles) and tiles[k] >= len(self.assignment) and any(
            tiles[k] in u.tiles for u in self.uncertainties if u.kind == "inferred-tile")

    def doubted(self, owner: Owner, k: int) -> bool:
        """Whether the ``k``-th tile of ``owner``'s train was read with doubt, taken
        otherwise than read or inferred (``unsure-tile``, ``matched-read``,
        ``inferred-tile``, ``reread-tile``)."""
        tiles = self.positions.get(owner, [])
        if k >= len(tiles):
            return False
        return any(tiles[k] in u.tiles for u in self.uncertainties
                   if u.kind in ("unsure-tile", "matched-read", "inferred-tile",
                                 "reread-tile"))

    @property
    def certain(self) -> bool:
        return self.table is not None and not self.uncertainties

    def to_json(self) -> dict[str, Any]:
        return {"table": None if self.table is None else self.table.to_json(),
                "seats": {str(k): round(v, 1) for k, v in self.seats.items()},
                "uncertainties": [u.to_json() for u in self.uncertainties]}


# --- geometry of one read tile ------------------------------------------------


@dataclass
class _Tile:
    index: int
    values: tuple[int, int]
    corners: np.ndarray  # working plane
    halves: tuple[np.ndarray, np.ndarray]  # centre of the values[0] half, values[1] half
    centre: np.ndarray
    axis: np.ndarray  # unit, from the values[0] end to the values[1] end
    length: float
    width: float
    #: The counts each half could be (``vision.reader.RANGE_BAND``); None: as read.
    ranges: tuple[tuple[int, int], tuple[int, int]] | None = None
    #: The reader doubted its counts (``uncertain``).
    unsure: bool = False

    def could_be(self, value: int) -> bool:
        """Whether both halves could count ``value`` (the tile could be its double)."""
        if self.ranges is None:
            return self.values == (value, value)
        return all(low <= value <= high for low, high in self.ranges)

    @property
    def is_double(self) -> bool:
        return self.values[0] == self.values[1]

    def distance_to_point(self, p: np.ndarray) -> float:
        local = p - self.centre
        x, y = float(local @ self.axis), float(local @ _perp(self.axis))
        return math.hypot(max(abs(x) - self.length / 2, 0.0), max(abs(y) - self.width / 2, 0.0))

    def gap_to(self, other: _Tile) -> float:
        """Least distance between the two outlines (0 when they touch or overlap)."""
        best = math.inf
        for a, b in ((self, other), (other, self)):
            for k in range(4):
                best = min(best, a.distance_to_point(b.corners[k]))
            for k in range(4):
                mid = (b.corners[k] + b.corners[(k + 1) % 4]) / 2
                best = min(best, a.distance_to_point(mid))
        return best


def _perp(v: np.ndarray) -> np.ndarray:
    return np.array([-v[1], v[0]])


def _unit(v: np.ndarray) -> np.ndarray:
    n = float(np.linalg.norm(v))
    return v / n if n > 1e-9 else np.array([1.0, 0.0])


def _cos(a: np.ndarray, b: np.ndarray) -> float:
    return float(_unit(a) @ _unit(b))


def _make_tile(index: int, values: Sequence[int], corners: np.ndarray,
               ranges: Any = None, unsure: bool = False) -> _Tile:
    c = np.asarray(corners, dtype=np.float64).reshape(4, 2)
    end_a, end_b = (c[0] + c[1]) / 2, (c[2] + c[3]) / 2
    length = float(np.linalg.norm(end_b - end_a))
    width = float((np.linalg.norm(c[1] - c[0]) + np.linalg.norm(c[3] - c[2])) / 2)
    return _Tile(index=index, values=(int(values[0]), int(values[1])), corners=c,
                 halves=(0.75 * end_a + 0.25 * end_b, 0.25 * end_a + 0.75 * end_b),
                 centre=c.mean(axis=0), axis=_unit(end_b - end_a), length=length, width=width,
                 ranges=None if ranges is None else (
                     (int(ranges[0][0]), int(ranges[0][1])),
                     (int(ranges[1][0]), int(ranges[1][1]))), unsure=unsure)


# --- chains ---------------------------------------------------------------------


@dataclass
class _Chain:
    owner: Owner
    slot_angle: float  # measured, degrees
    tiles: list[tuple[int, int, int]]  # (input index, near, far)
    end_ref: np.ndarray  # far half centre (or a crosswise double's centre)
    direction: np.ndarray
    last: _Tile
    head: _Tile  # its first tile
    #: ``(end_ref, direction)`` of the train before each of its tiles was laid
    links: list[tuple[np.ndarray, np.ndarray]] = field(default_factory=list)
    #: Boxes the last tile read again took in as pieces of it (``_look_again``): they
    #: may reach on over the next tile, which no box of its own may show
    ghosts: list[_Tile] = field(default_factory=list)

    def lay(self, entry: tuple[int, int, int], end_ref: np.ndarray, direction: np.ndarray,
            last: _Tile) -> None:
        """Add ``entry`` (input index, near, far); the train's end moves to ``end_ref``."""
        self.ghosts = []
        self.links.append((self.end_ref, self.direction))
        self.tiles.append(entry)
        self.end_ref, self.direction, self.last = end_ref, direction, last


@dataclass(frozen=True)
class _Attach:
    score: float
    tile: _Tile
    near: int
    far: int
    end_ref: np.ndarray
    direction: np.ndarray


def _attach(end_ref: np.ndarray, direction: np.ndarray, end_value: int, t: _Tile,
            w: float, after_double: bool = False) -> _Attach | None:
    """How well ``t`` continues a train whose open end is at ``end_ref`` (or ``None``).

    ``w`` is the tile width (the median over the table: single tiles' sizes
    are too noisy to scale by). ``after_double``: the train ends in the double of
    ``end_value``; a tile lying lengthwise on it read as that same double is a single
    whose far half was misread (a set has one of each tile), and is not taken so.
    """
    options: list[_Attach] = []
    # Lengthwise: the nearer half one width away, the tile pointing away from the end.
    k = _nearer_half(t, end_ref)
    near_c, far_c = t.halves[k], t.halves[1 - k]
    d = near_c - end_ref
    r = float(np.linalg.norm(d)) / w
    v = far_c - near_c
    cos_dv = _cos(d, v)
    near, far = t.values[k], t.values[1 - k]
    repeat = after_double and near == far == end_value
    if (TOUCH_LOW <= r <= TOUCH_HIGH and cos_dv >= math.cos(math.radians(MAX_BEND_DEG))
            and _cos(v, direction) >= -0.3 and not repeat):
        score = abs(r - 1) + (1 - cos_dv) + (0.0 if near == end_value else 0.6)
        options.append(_Attach(score, t, near, far, far_c, _unit(v)))
    # Crosswise (doubles only): the centre one width away, the long side across the train.
    # A tile lying so that could be the end's double (within the reader's doubt), or whose
    # counts the reader doubts, is taken for it: only doubles are laid crosswise, and the
    # halves of a blurred 11-11 are misread apart (12-13).
    if t.is_double or t.could_be(end_value) or t.unsure:
        d = t.centre - end_ref
        r = float(np.linalg.norm(d)) / w
        across = abs(_cos(t.axis, d))
        if TOUCH_LOW <= r <= TOUCH_HIGH and across <= 0.5 and _cos(d, direction) >= -0.3:
            if t.is_double:
                value, penalty = t.values[0], (0.0 if t.values[0] == end_value else 0.6)
            elif t.could_be(end_value):
                value, penalty = end_value, CROSSWISE_READ_PENALTY
            else:
                value, penalty = end_value, CROSSWISE_UNSURE_PENALTY
            score = abs(r - 1) + across + penalty
            options.append(_Attach(score, t, value, value, t.centre, _unit(d)))
    return min(options, key=lambda o: o.score) if options else None


def _nearer_half(t: _Tile, point: np.ndarray) -> int:
    """Which half of ``t`` (0 or 1) lies nearer ``point``; the first on a tie."""
    return 0 if np.linalg.norm(t.halves[0] - point) <= np.linalg.norm(t.halves[1] - point) else 1


def _angle_deg(v: np.ndarray) -> float:
    return math.degrees(math.atan2(float(v[1]), float(v[0]))) % 360.0


def _slot(angle: float, slots: int) -> tuple[int, float]:
    """Nearest slot to ``angle`` (degrees) and the offset from it in slot spacings."""
    step = 360.0 / slots
    x = ((angle - 90.0) % 360.0) / step
    k = round(x)
    return k % slots, abs(x - k)


def reconstruct(tiles: Sequence[TileLike], markers: Detections | None, players: int,
                mat: MatView | None = None, engine: int | None = None,
                infer_gaps: bool = True, look: Look | None = None) -> TableReading:
    """Read the table from the tiles and markers found in one image.

    ``tiles`` carry ``values`` (as read, either order) and ``corners`` in image
    pixels following the corner convention; ``markers`` are the marker
    detections (``None`` for none). With ``mat`` (from
    :func:`vision.mat.detect_mat`) geometry is taken on the mat's plane in
    millimetres, and seats come from the mat. ``engine``, when the round's
    engine is known (the companion knows the round; a tracker knows it once a
    table has settled), is the double looked for first; with the mat, the tile
    on its centre is the engine even when it was read otherwise (its count, when
    the engine is not given, the one the trains leaving the hub start with). An
    engine read otherwise is reported (``engine-read``). With
    ``infer_gaps``, a train continues across one tile no box was found for
    (``inferred-tile``, see ``_bridge_gap``); without, the gap is reported.
    ``look`` (image corners ``(4, 2)`` -> a read tile, or ``None``) reads the
    image again where the boxes found do not fit the table (``reread-tile``):
    where a train must go on and the boxes there continue nothing
    (``_look_again``, tried before a gap is inferred), at an empty slot of the
    mat (``_look_at_slots``), and where a tile does not match the end it lies
    on (``_reread_mismatches``).
    """
    uncertain: list[Uncertainty] = []
    if mat is not None:
        if mat.players != players:
            uncertain.append(Uncertainty(
                "players-mismatch",
                f"the mat is printed for {mat.players} players, not {players}; using the mat"))
            players = mat.players
        to_plane = np.asarray(mat.image_to_mat, dtype=np.float64)
    else:
        to_plane = np.eye(3)
    tiles = [_within_ranges(t) for t in tiles]
    read = [_make_tile(i, tuple(t.values), apply_homography(to_plane, np.asarray(t.corners)),
                       getattr(t, "ranges", None), bool(getattr(t, "uncertain", False)))
            for i, t in enumerate(tiles)]
    # the mat's printed markers, arrows and labels are not tiles, though a detector may
    # take them for some
    live = [t for t in read if mat is None or not _on_printed_marker(t.centre)]
    printed: list[_Tile] = []
    if mat is not None and live:
        w = float(np.median([t.width for t in live]))
        printed = [t for t in live if _on_printed_ring(t, w)]
        live = [t for t in live if t not in printed]
    n_markers = 0 if markers is None else len(markers)
    marker_pts = (apply_homography(to_plane, np.asarray(markers.corners, dtype=np.float64))
                  if markers is not None and n_markers else np.zeros((0, 4, 2)))
    # a marker the detector also boxed as a tile reads as a doubtful tile: it is the marker
    # (a marker laid on a tile covers half of it at most: that tile stays)
    if n_markers and live:
        from vision.detections import polygon_iou  # OpenCV, only where markers were found

        overlap = polygon_iou(np.array([t.corners for t in live]), marker_pts).max(axis=1)
        live = [t for t, o in zip(live, overlap, strict=True)
                if not (t.unsure and o >= MARKER_TILE_IOU)]
    for t in live:
        if bool(getattr(tiles[t.index], "uncertain", False)):
            uncertain.append(Uncertainty("unsure-tile", f"tile {t.index} was read with doubt",
                                         (t.index,)))

    assignment: list[Owner | None] = [None] * len(read)
    if not live and (mat is None or look is None):
        uncertain.append(Uncertainty("no-engine", "no tiles on the table"))
        return TableReading(None, {}, uncertain, assignment, [None] * n_markers, players)
    w = float(np.median([t.width for t in live])) if live else TILE_WIDTH_MM

    tiles = list(tiles)  # tiles read again or inferred in gaps are appended
    to_image = np.linalg.inv(to_plane)
    at_hub = None
    if look is not None and mat is not None:
        # no double read as such on the hub: the engine is read again where it lies
        on_hub = _find_engine(live, w, True, [], engine)
        if on_hub is None or on_hub[0].values != (on_hub[1], on_hub[1]):
            at_hub = _look_at_hub(live, tiles, _hub_width(w), look, to_image, engine,
                                  uncertain)
            if at_hub is not None:
                engine_tile = at_hub[0]
                live = [t for t in live if engine_tile.distance_to_point(t.centre)
                        > HUB_INSIDE * engine_tile.width]
    if at_hub is None and not live:
        uncertain.append(Uncertainty("no-engine", "no tiles on the table"))
        return TableReading(None, {}, uncertain, assignment, [None] * n_markers, players)
    if at_hub is None:
        at_hub = _find_engine(live, w, mat is not None, uncertain, engine)
    if at_hub is None:
        return TableReading(None, {}, uncertain, assignment, [None] * n_markers, players)
    hub_tile, e = at_hub
    if hub_tile.index < len(assignment):
        assignment[hub_tile.index] = "engine"
    if hub_tile.values != (e, e):
        uncertain.append(Uncertainty(
            "engine-read", f"the engine was read {hub_tile.values[0]}-{hub_tile.values[1]}; "
            f"taken as {e}-{e}, " + ("the round's engine" if engine is not None else
                                     "the count the trains leaving the hub start with"),
            (hub_tile.index,)))
    hub = np.zeros(2) if mat is not None else hub_tile.centre
    pool = {t.index: t for t in live if t is not hub_tile}
    if mat is not None:
        # on the mat only the engine lies on the hub: another box there is a piece of it
        pool = {i: t for i, t in pool.items()
                if float(np.linalg.norm(t.centre)) > ENGINE_REACH_WIDTHS * w}

    chains = _start_trains(pool, hub, e, w, players, mat is not None, uncertain)
    for chain in chains:
        first = chain.tiles[0][0]
        pool.pop(first)
    _grow(chains, pool, w, uncertain)
    looked: set[tuple[Any, ...]] = set()
    if look is not None and mat is not None and _look_at_slots(
            chains, pool, printed, read, tiles, e, w, players, look, to_image, uncertain):
        _grow(chains, pool, w, uncertain)
    # a train's last tile misread where it lies on goes on from a count that is not there
    if look is not None and _reread_mismatches(chains, read, w, look, to_image, uncertain,
                                               ends_only=True):
        _grow(chains, pool, w, uncertain)
    # (a tile laid meanwhile that does not match its end is read again, and the train
    # looked at again from where it then ends)
    while ((look is not None
            and (_look_again(chains, pool, tiles, w, look, to_image, looked, uncertain)
                 or _reread_mismatches(chains, read, w, look, to_image, uncertain,
                                       ends_only=True)))
           or (infer_gaps and _bridge_gap(chains, pool, tiles, e, w, uncertain))):
        _grow(chains, pool, w, uncertain)
    _engine_twins(chains, tiles, e, uncertain)
    for chain in chains:
        _match_neighbours(chain, tiles, e, w, uncertain)
    if look is not None:
        _reread_mismatches(chains, read, w, look, to_image, uncertain)
    _settle_sandwiched(chains, e, w, uncertain)
    _avoid_repeats(chains, tiles, e, uncertain)
    for chain in chains:
        for idx, _, _ in chain.tiles:
            if idx < len(assignment):
                assignment[idx] = chain.owner
    _report_leftovers(chains, pool, w, uncertain)

    # Where each empty slot's train would start, for markers on empty trains.
    if mat is not None:
        start_r = SLOT_RADIUS_MM + 0.5 * w
    else:
        firsts = [float(np.linalg.norm(c.head.halves[0] - hub)) for c in chains]
        start_r = float(np.median(firsts)) if firsts else 6.0 * w
    marker_owners = _place_markers(marker_pts, chains, read, hub, start_r, w, players, uncertain,
                                   on_print=mat is not None)

    by_owner = {c.owner: c for c in chains}
    owners: list[Owner] = [*range(players), MEXICAN]
    trains = []
    for owner in owners:
        found = by_owner.get(owner)
        pairs = tuple((near, far) for _, near, far in found.tiles) if found else ()
        trains.append(Train(owner, pairs, owner in marker_owners))
    seats = {c.owner: c.slot_angle for c in chains}
    positions = {c.owner: [idx for idx, _, _ in c.tiles] for c in chains}
    return TableReading(TableState(e, tuple(trains)), seats, uncertain, assignment,
                        marker_owners, players, positions)


def _on_printed_marker(centre: np.ndarray) -> bool:
    """Whether a point of the mat frame lies on one of the mat's four ArUco markers."""
    half = 0.5 * ARUCO_SIDE_MM
    for position in range(4):
        middle = marker_corners_mm(position).mean(axis=0)
        if np.all(np.abs(np.asarray(centre) - middle) <= half):
            return True
    return False


def _on_printed_ring(tile: _Tile, w: float) -> bool:
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


def _starts(centre: np.ndarray, value: int, read: list[_Tile], w: float,
            skip: _Tile | None = None) -> int:
    """How many tiles start a train from ``centre`` with ``value``: that end towards it,
    pointing away, within 9 widths."""
    count = 0
    for t in read:
        if t is skip or value not in t.values:
            continue
        k = _nearer_half(t, centre)
        if t.values[k] != value:
            continue
        out = t.halves[k] - centre
        if (float(np.linalg.norm(out)) <= 9 * w
                and _cos(out, t.halves[1 - k] - t.halves[k]) >= math.cos(math.radians(30))):
            count += 1
    return count


def _hub_value(tile: _Tile, read: list[_Tile], w: float) -> int:
    """The engine's count for a tile on the hub not read as a double: of the counts its
    halves could be, the one most tiles around start a train with."""
    options: set[int] = set(tile.values)
    for low, high in tile.ranges or ():
        options.update(range(low, high + 1))
    return max(sorted(options), key=lambda v: (_starts(tile.centre, v, read, w, tile),
                                               v in tile.values))


#: At the hub, a tiles' width this far (a factor) from the width of the tiles the mat
#: is drawn for is no measure (one misplaced box decided it): the mat's is taken.
WIDTH_FACTOR = 1.5


def _hub_width(w: float) -> float:
    """The tiles' width for the look at the hub: ``w`` if plausible, else the mat's."""
    if TILE_WIDTH_MM / WIDTH_FACTOR <= w <= TILE_WIDTH_MM * WIDTH_FACTOR:
        return w
    return TILE_WIDTH_MM


def _find_engine(read: list[_Tile], w: float, on_mat: bool,
                 uncertain: list[Uncertainty],
                 engine: int | None = None) -> tuple[_Tile, int] | None:
    """The engine tile and its count (``None``: none found, reported)."""
    doubles = [t for t in read if t.is_double]
    if engine is not None and any(t.values == (engine, engine) for t in doubles):
        doubles = [t for t in doubles if t.values == (engine, engine)]
    if on_mat:
        near = sorted(doubles, key=lambda t: float(np.linalg.norm(t.centre)))
        if near and float(np.linalg.norm(near[0].centre)) <= ENGINE_REACH_WIDTHS * w:
            return near[0], engine if engine is not None else near[0].values[0]
        central = sorted(read, key=lambda t: float(np.linalg.norm(t.centre)))
        if central and float(np.linalg.norm(central[0].centre)) <= 0.6 * w:
            # the engine, misread (reported by the caller); when the round's engine is
            # not known, the count the trains leaving the hub start with tells it
            return central[0], engine if engine is not None else _hub_value(
                central[0], read, w)
        uncertain.append(Uncertainty("no-engine", "no double on the mat's centre"))
        return None
    if not doubles:
        uncertain.append(Uncertainty("no-engine", "no double on the table to be the engine"))
        return None
    lonely = [d for d in doubles if all(d.gap_to(t) > 0.4 * w for t in read if t is not d)]
    candidates = lonely or doubles
    centroid = np.mean([t.centre for t in read], axis=0)

    def starts(d: _Tile) -> int:
        return _starts(d.centre, d.values[0], read, w, d)

    ranked = sorted(((starts(d), -float(np.linalg.norm(d.centre - centroid)) / w, d)
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
    return best[2], engine if engine is not None else best[2].values[0]


#: Boxes centred this close (widths) to the engine read again at the hub were pieces of it.
HUB_INSIDE = 0.25
#: Turns (degrees) at which the engine is read again at the hub.
HUB_TURNS = tuple(15.0 * k for k in range(12))


def _look_at_hub(live: list[_Tile], tiles: list[Any], w: float, look: Look,
                 to_image: np.ndarray, engine: int | None, uncertain: list[Uncertainty]
                 ) -> tuple[_Tile, int] | None:
    """On the mat, read the engine again where it lies: on the hub's centre.

    When no double read as such lies on the hub (the engine's box slid off it, or
    it was misread), the image is read in a tile's outline centred on the hub,
    turned every 15 degrees. An outline turned off the tile cuts pips off its
    halves and never adds any (nothing else lies that near the hub), so of the
    readings the reader does not doubt that are a double (the round's engine,
    when known), the one with the most pips is the engine; on a tie, the surest
    (``reread-tile``; appended to ``tiles``). ``None``: none was read.
    """
    best: tuple[int, float, np.ndarray, Any] | None = None
    for turn in HUB_TURNS:
        axis = np.array([math.cos(math.radians(turn)), math.sin(math.radians(turn))])
        corners = _outline(np.zeros(2), axis, w)
        again = _read_again(look, to_image, corners)
        if again is None:
            continue
        seen, values, _ = again
        if values[0] != values[1] or (engine is not None and values[0] != engine):
            continue
        rank = (values[0], float(getattr(seen, "confidence", 1.0)))
        if best is None or rank > best[:2]:
            best = (*rank, corners, seen)
    if best is None:
        return None
    value, _, corners, seen = best
    index = len(tiles)
    tiles.append(seen)
    uncertain.append(Uncertainty(
        "reread-tile", f"no double read on the hub: read again there as {value}-{value}, "
        "taken as the engine", (index,)))
    return _make_tile(index, (value, value), corners), value


def _start_trains(pool: dict[int, _Tile], hub: np.ndarray, e: int, w: float, players: int,
                  on_mat: bool, uncertain: list[Uncertainty]) -> list[_Chain]:
    slots = players + 1
    radial: list[tuple[float, _Tile, int]] = []
    for t in pool.values():
        k = _nearer_half(t, hub)
        out = t.halves[k] - hub
        if _cos(out, t.halves[1 - k] - t.halves[k]) >= math.cos(math.radians(30)):
            radial.append((float(np.linalg.norm(out)), t, k))
    radial.sort(key=lambda r: r[0])
    if on_mat:
        reach = SLOT_RADIUS_MM + 1.8 * w
    else:
        matching = [r for r, t, k in radial if t.values[k] == e and r <= 9 * w]
        reach = (matching[0] if matching else 2.0 * w) + 1.3 * w
    chains: dict[int, _Chain] = {}
    for r, t, k in radial:
        if r > reach:
            break
        angle = _angle_deg(t.halves[k] - hub)
        slot, off = _slot(angle, slots)
        owner: Owner = MEXICAN if slot == players else slot
        if slot in chains:
            uncertain.append(Uncertainty(
                "slot-conflict", f"two trains start in the slot of train {owner}",
                (chains[slot].tiles[0][0], t.index), (owner,)))
            continue
        if off > 0.3:
            uncertain.append(Uncertainty(
                "between-seats", f"a train leaves the hub at {angle:.0f} degrees, between seats; "
                f"took train {owner}", (t.index,), (owner,)))
        near, far = t.values[k], t.values[1 - k]
        chains[slot] = _Chain(owner, angle, [(t.index, near, far)], t.halves[1 - k],
                              _unit(t.halves[1 - k] - t.halves[k]), t, t,
                              links=[(hub, _unit(t.halves[k] - hub))])
    return [chains[s] for s in sorted(chains)]


def _claim(chain: _Chain, pool: dict[int, _Tile], w: float) -> list[tuple[_Attach, bool, bool]]:
    """Grow ``chain`` as if it were alone: ``(attach, clean, tied)`` per tile it would take.

    ``clean`` says every value matched up to and including this tile; ``tied``
    that another tile continued the train about as well (``TIE_MARGIN``): of
    those, the one the train goes on from by the most matching tiles is taken
    (``_run_length``; a spurious box read 3-5 on a 5 end, beside the 5-5 the
    rest of a 15-tile train goes on from), on a tie the one fitting best.
    """
    end_ref, direction, end_value = chain.end_ref, chain.direction, chain.tiles[-1][2]
    after_double = chain.tiles[-1][1] == end_value
    clean = True
    taken: set[int] = set()
    out: list[tuple[_Attach, bool, bool]] = []
    while True:
        options = _options(end_ref, direction, end_value, after_double, pool, taken, w)
        if not options:
            return out
        best = options[0]
        tied = len(options) > 1 and options[1].score - best.score < TIE_MARGIN
        if tied:
            # of tiles continuing the train about as well, the one it goes on furthest from
            close = [a for a in options if a.score - best.score < TIE_MARGIN]
            best = max(close, key=lambda a: _run_length(a, end_value, pool, taken, w))
        clean = clean and best.near == end_value
        out.append((best, clean, tied))
        taken.add(best.tile.index)
        end_ref, direction, end_value = best.end_ref, best.direction, best.far
        after_double = best.near == best.far


def _options(end_ref: np.ndarray, direction: np.ndarray, end_value: int, after_double: bool,
             pool: dict[int, _Tile], taken: set[int], w: float) -> list[_Attach]:
    """The loose tiles that could continue a train's end, best first."""
    return sorted((a for t in pool.values() if t.index not in taken
                   and (a := _attach(end_ref, direction, end_value, t, w, after_double))),
                  key=lambda a: a.score)


def _run_length(first: _Attach, end_value: int, pool: dict[int, _Tile], taken: set[int],
                w: float) -> int:
    """How many tiles a train ending in ``end_value`` goes on by, each matching, once
    ``first`` is laid on it (it included; 0 when it does not match): each the best that
    continues it."""
    if first.near != end_value:
        return 0
    used = set(taken) | {first.tile.index}
    n, a = 1, first
    while True:
        options = _options(a.end_ref, a.direction, a.far, a.near == a.far, pool, used, w)
        if not options or options[0].near != a.far:
            return n
        a = options[0]
        used.add(a.tile.index)
        n += 1


def _grow(chains: list[_Chain], pool: dict[int, _Tile], w: float,
          uncertain: list[Uncertainty]) -> None:
    """Give each train the tiles that continue it; a tile two trains want is reported."""
    claims = [_claim(chain, pool, w) for chain in chains]
    lengths = [len(c) for c in claims]
    contested: dict[int, list[int]] = {}
    while True:
        winner: dict[int, tuple[tuple[bool, int], int]] = {}
        for ci, claim in enumerate(claims):
            for k, (attach, clean, _) in enumerate(claim[:lengths[ci]]):
                key = (not clean, k)
                index = attach.tile.index
                if len(claims) > 1:
                    contested.setdefault(index, [])
                    if ci not in contested[index]:
                        contested[index].append(ci)
                if index not in winner or key < winner[index][0]:
                    winner[index] = (key, ci)
        changed = False
        for ci, claim in enumerate(claims):
            for k, (attach, _, _) in enumerate(claim[:lengths[ci]]):
                if winner[attach.tile.index][1] != ci:
                    lengths[ci] = k
                    changed = True
                    break
        if not changed:
            break
    reported: set[int] = set()
    for index, claimants in contested.items():
        if len(claimants) < 2 or index in reported:
            continue
        owner_ci = winner[index][1] if index in winner else None
        losers = [ci for ci in claimants if ci != owner_ci]
        first_loss = [ci for ci in losers
                      if lengths[ci] < len(claims[ci])
                      and claims[ci][lengths[ci]][0].tile.index == index]
        if owner_ci is None or not first_loss:
            continue
        reported.add(index)
        names = [chains[owner_ci].owner] + [chains[ci].owner for ci in first_loss]
        uncertain.append(Uncertainty(
            "fits-two-trains",
            f"tile {index} fits trains {' and '.join(map(str, names))}; took train {names[0]}",
            (index,), tuple(names)))
    for ci, chain in enumerate(chains):
        for attach, _, tied in claims[ci][:lengths[ci]]:
            if tied:
                uncertain.append(Uncertainty(
                    "branch", f"two tiles could continue train {chain.owner} after tile "
                    f"{chain.tiles[-1][0]}; took tile {attach.tile.index}",
                    (attach.tile.index,), (chain.owner,)))
            chain.lay((attach.tile.index, attach.near, attach.far), attach.end_ref,
                      attach.direction, attach.tile)
            read = attach.tile.values
            if (attach.near, attach.far) not in (read, read[::-1]):
                uncertain.append(Uncertainty(
                    "matched-read", f"tile {attach.tile.index} was read {read[0]}-{read[1]}; "
                    f"it lies crosswise at the end of train {chain.owner}: taken as "
                    f"{attach.near}-{attach.far}", (attach.tile.index,), (chain.owner,)))
            pool.pop(attach.tile.index)


def _end_ranges(tile: TileLike, near: int, far: int) -> tuple[tuple[int, int], tuple[int, int]]:
    """The counts the near and far end of a tile laid ``near``-``far`` could be."""
    read = tuple(int(v) for v in tile.values)
    ranges = getattr(tile, "ranges", None)
    if ranges is None or (near, far) not in (read, read[::-1]):
        return (near, near), (far, far)
    k = 0 if read == (near, far) else 1
    return (int(ranges[k][0]), int(ranges[k][1])), (int(ranges[1 - k][0]), int(ranges[1 - k][1]))


def _fits(value: int, span: tuple[int, int] | None) -> bool:
    return span is not None and span[0] <= value <= span[1]


@dataclass(frozen=True)
class _Settled:
    """A tile read with a count beyond its own range, taken at the nearest count of
    that range (``_within_ranges``)."""

    values: tuple[int, int]
    corners: np.ndarray
    ranges: tuple[tuple[int, int], tuple[int, int]]
    uncertain: bool
    confidence: float


def _within_ranges(tile: TileLike) -> TileLike:
    """``tile``, or its counts moved into the ranges the reader gives them.

    The reader keeps a count beyond the set as read (a blurred 12 read 13 in a
    double-12 set, flagged) but gives it the set's top counts as its range; on
    the table such a count would lay a tile the set does not have (a 13-13 laid
    on it), so it is taken at the nearest count its range allows.
    """
    ranges = getattr(tile, "ranges", None)
    if ranges is None:
        return tile
    values = tuple(int(v) for v in tile.values)
    settled = tuple(min(max(v, int(lo)), int(hi)) for v, (lo, hi) in zip(values, ranges,
                                                                          strict=True))
    if settled == values:
        return tile
    spans = ((int(ranges[0][0]), int(ranges[0][1])), (int(ranges[1][0]), int(ranges[1][1])))
    return _Settled((settled[0], settled[1]), np.asarray(tile.corners), spans,
                    bool(getattr(tile, "uncertain", False)),
                    float(getattr(tile, "confidence", 0.0)))


@dataclass(frozen=True)
class _Inferred:
    """A tile no box was found for, inferred from a train's gap (``_bridge_gap``);
    ``corners`` on the working plane (the mat's millimetres with a mat)."""

    values: tuple[int, int]
    corners: np.ndarray


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


def _turned_beyond_single(chain: _Chain, pool: dict[int, _Tile], w: float,
                          laid: set[tuple[int, ...]]
                          ) -> tuple[float, _Tile, int, tuple[int, int], np.ndarray] | None:
    """A loose tile that turns a right angle off a train's end one unseen single on:
    its near half beside the far half of a single lying straight on from the end,
    pointing away to that side. ``(miss, tile, near half, missing tile, where the
    missing single's outline stops)`` for ``_bridge_gap``, or None."""
    end_v = chain.tiles[-1][2]
    far_half = chain.end_ref + 2.0 * w * chain.direction
    straight = math.cos(math.radians(BRIDGE_BEND_DEG))
    best = None
    for side in (_perp(chain.direction), -_perp(chain.direction)):
        expected = far_half + w * side
        for t in pool.values():
            for k in (0, 1):
                miss = float(np.linalg.norm(t.halves[k] - expected)) / w
                if miss > BRIDGE_TURN_REACH or _cos(t.halves[1 - k] - t.halves[k],
                                                     side) < straight:
                    continue
                missing = (end_v, t.values[k])
                if t.values[k] == end_v or tuple(sorted(missing)) in laid or (
                        best is not None and miss >= best[0]):
                    continue
                best = (miss, t, k, missing, chain.end_ref + 3.0 * w * chain.direction)
    return best


def _bridge_gap(chains: list[_Chain], pool: dict[int, _Tile], tiles: list[Any], e: int,
                w: float, uncertain: list[Uncertainty]) -> bool:
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
    single (``_turned_beyond_single``). Boxes lying in the gap (pieces, or a
    box straddling two tiles) are dropped. Reported (``inferred-tile``); its
    index in ``positions`` is beyond the input tiles.
    """
    laid = {tuple(sorted((near, far))) for c in chains for _, near, far in c.tiles}
    laid.add((e, e))
    for chain in chains:
        if not chain.tiles:
            continue
        _, near_v, end_v = chain.tiles[-1]
        best: tuple[float, _Tile, int, tuple[int, int], np.ndarray] | None = None
        for t in pool.values():
            k = _nearer_half(t, chain.end_ref)
            d = t.halves[k] - chain.end_ref
            r = float(np.linalg.norm(d)) / w
            straight = math.cos(math.radians(BRIDGE_BEND_DEG))
            # the way on: straight, or for an unseen double (a train turns at a double)
            # a right angle to either side
            way = max((chain.direction, _perp(chain.direction), -_perp(chain.direction)),
                      key=lambda u: _cos(d, u))
            if _cos(d, way) < straight or _cos(t.halves[1 - k] - t.halves[k], way) < straight:
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
        if best is None:
            best = _turned_beyond_single(chain, pool, w, laid)
        if best is None:
            continue
        _, t, k, missing, stop = best
        start = chain.end_ref
        # the unseen tile's outline: between the end and the tile beyond
        axis = _unit(stop - start)
        across = _perp(axis) * 0.5 * w
        a_end, b_end = start + axis * 0.5 * w, stop - axis * 0.5 * w
        if missing[0] == missing[1]:  # a double lies across: its long side across the train
            mid = (a_end + b_end) / 2
            a_end, b_end, across = mid - _perp(axis) * w, mid + _perp(axis) * w, axis * 0.5 * w
        corners = np.array([a_end - across, a_end + across, b_end + across, b_end - across])
        inferred = len(tiles)
        tiles.append(_Inferred(missing, corners))
        gap = _make_tile(inferred, missing, corners)
        for other in [o for o in pool.values() if o is not t]:
            if gap.distance_to_point(other.centre) < 0.25 * w:
                pool.pop(other.index)
                uncertain.append(Uncertainty(
                    "inferred-tile", f"tile {other.index} {list(other.values)} lies in a gap "
                    f"of train {chain.owner}: not a tile of its own", (other.index,),
                    (chain.owner,)))
        chain.lay((inferred, missing[0], missing[1]),
                  (a_end + b_end) / 2 if missing[0] == missing[1] else gap.halves[1], axis, gap)
        chain.lay((t.index, t.values[k], t.values[1 - k]), t.halves[1 - k],
                  _unit(t.halves[1 - k] - t.halves[k]), t)
        pool.pop(t.index)
        uncertain.append(Uncertainty(
            "inferred-tile", f"train {chain.owner} has a gap before tile {t.index}: "
            f"taken as an unseen {missing[0]}-{missing[1]}", (inferred,), (chain.owner,)))
        return True
    return False


def _outline(centre: np.ndarray, axis: np.ndarray, w: float) -> np.ndarray:
    """Corners of a tile two widths long along ``axis`` (its ``values[0]`` end first) and
    one wide, centred on ``centre``."""
    a_end, b_end, half = centre - w * axis, centre + w * axis, 0.5 * w * _perp(axis)
    return np.array([a_end - half, a_end + half, b_end + half, b_end - half])


def _read_again(look: Look, to_image: np.ndarray, corners: np.ndarray, doubted: bool = False
                ) -> tuple[Any, tuple[int, ...], tuple[tuple[int, int], ...]] | None:
    """``look`` in ``corners`` (working plane): the reading, its values and ranges; ``None``
    when nothing was read or, unless ``doubted``, the reader doubts it."""
    seen = look(apply_homography(to_image, corners))
    if seen is None or (not doubted and bool(getattr(seen, "uncertain", False))):
        return None
    values = tuple(int(v) for v in seen.values)
    ranges = getattr(seen, "ranges", None) or ((values[0], values[0]), (values[1], values[1]))
    return seen, values, tuple((int(lo), int(hi)) for lo, hi in ranges)


#: A loose box centred this close (widths) to where a train's next tile could lie
#: makes ``_look_again`` read every place it could lie ... (1.0 until session 9: a
#: box slid a whole half along a tile turned at a train's end lay 1.01 widths off;
#: at 1.25, on one rendered mat table, a look misread a blurred 0-10 as 0-8 where
#: the gap would have been bridged from the tile beyond)
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
#: Nor is such an outline ever a 0-0: bare table shows no pips, so it reads as two
#: blank halves, and surely (0.94-1.0 in five outlines past a 9-0 end, rendered
#: no-mat seed 1100013, where a 0-0 no one played was laid).
#: A double read again across a train's end is taken only when a half reads as the
#: end's count: within both halves' ranges alone, a 2-2 whose ranges reached 4 was
#: laid as a 4-4 on a 4 end, where a 4-7 lay (rendered no-mat seed 1400047).


def _look_again(chains: list[_Chain], pool: dict[int, _Tile], tiles: list[Any], w: float,
                look: Look, to_image: np.ndarray, looked: set[tuple[Any, ...]],
                uncertain: list[Uncertainty]) -> bool:
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
    it, that shows the end's count (``_over_other_half``). The boxes
    centred in the tile (nearer its outline than a touching tile's centre can
    be) were no tiles of their own; the next look at that train still counts
    them as boxes lying about (``_Chain.ghosts``): a box askew over the tile
    read again may reach over the next one, a double turned beside it that no
    box of its own shows. Reported (``reread-tile``); its index in
    ``positions`` is beyond the input tiles.
    """
    for chain in chains:
        if not chain.tiles:
            continue
        # each end once; an end read again (``_reread_mismatches``) is a new one
        end = (chain.owner, len(chain.tiles), chain.tiles[-1][2],
               *np.round(chain.end_ref, 3).tolist())
        if end in looked:
            continue
        looked.add(end)
        end_v = chain.tiles[-1][2]
        # (double, centre, axis from the near end, way on)
        single = chain.tiles[-1][1] != end_v
        ways = [chain.direction] + ([_perp(chain.direction), -_perp(chain.direction)]
                                    if single else [])
        outlines = [(False, chain.end_ref + 1.5 * w * u, u, u) for u in ways]
        if single:
            outlines += [(True, chain.end_ref + w * u, _perp(u), u) for u in ways]
        around = [*pool.values(), *chain.ghosts]
        if not any(float(np.linalg.norm(t.centre - o[1])) <= LOOK_AROUND_WIDTHS * w
                   for t in around for o in outlines):
            continue
        best: tuple[float, bool, np.ndarray, np.ndarray, np.ndarray, Any] | None = None
        # boxes read without doubt, except those over the train's last tile (a box
        # slid half a tile off it, over its far half and the next tile's near half)
        read_sure = [t for t in pool.values() if not t.unsure
                     and not _halves_meet(t, chain.last, w)]
        for double, expected, axis, way in outlines:
            near = [t.centre for t in around
                    if float(np.linalg.norm(t.centre - expected)) <= LOOK_NEAR_WIDTHS * w]
            for centre in [expected, *near]:
                corners = _outline(centre, axis, w)
                if _over_other_half(_make_tile(-1, (0, 0), corners), read_sure, w,
                                    chain.end_ref, end_v):
                    continue
                again = _read_again(look, to_image, corners)
                if again is None:
                    continue
                seen, values, ranges = again
                spans = ranges if double else ranges[:1]
                if not all(low <= end_v <= high for low, high in spans) or (
                        not double and values[0] == values[1]) or (
                        double and end_v not in values):
                    continue  # a double read as neither half the end's count is no double of it
                sure_halves = getattr(seen, "half_certainty", (0.0, 0.0))
                if double and any(v != end_v and float(c) >= SURE_HALF
                                  for v, c in zip(values, sure_halves, strict=True)):
                    continue  # a half surely not the end's count: no double of it
                # the surest; on a tie, one read exactly as the end (a double: both halves)
                exact = all(v == end_v for v in (values if double else values[:1]))
                sure = float(getattr(seen, "confidence", 1.0)) + (0.01 if exact else 0.0)
                outline = _make_tile(-1, (0, 0), corners)
                if (sure < EMPTY_OUTLINE_SURE or not any(values)) and not any(
                        outline.distance_to_point(t.centre) < 0.4 * w for t in around):
                    continue  # no box in it: only a sure reading of pips shows a tile there
                if best is None or sure > best[0]:
                    best = (sure, double, centre, corners, way, seen)
        if best is None:
            continue
        _, double, centre, corners, way, seen = best
        values = tuple(int(v) for v in seen.values)
        near_v, far_v = end_v, (end_v if double else values[1])
        index = len(tiles)
        tiles.append(seen)
        tile = _make_tile(index, (near_v, far_v), corners)
        inside = [o for o in pool.values() if tile.distance_to_point(o.centre) < 0.4 * w]
        for o in inside:
            pool.pop(o.index)
        chain.lay((index, near_v, far_v), centre if double else tile.halves[1], way, tile)
        chain.ghosts = inside
        gone = ", ".join(f"{o.index} {list(o.values)}" for o in inside) or "none"
        uncertain.append(Uncertainty(
            "reread-tile", f"train {chain.owner} goes on where no box lay right: read again "
            f"there as {values[0]}-{values[1]}, taken as {near_v}-{far_v} (boxes there: "
            f"{gone})", (index, *(o.index for o in inside)), (chain.owner,)))
        return True
    return False


#: A half of a box read without doubt this close (widths) to a half of an outline
#: read again, the box not centred on the outline, means the outline spans two tiles.
OVER_HALF_WIDTHS = 0.5


def _halves_meet(a: _Tile, b: _Tile, w: float) -> bool:
    """Whether a half of ``a`` lies on a half of ``b`` (``OVER_HALF_WIDTHS``)."""
    return any(float(np.linalg.norm(p - q)) < OVER_HALF_WIDTHS * w
               for p in a.halves for q in b.halves)


def _over_other_half(outline: _Tile, sure: list[_Tile], w: float, end_ref: np.ndarray,
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
        k = _nearer_half(t, end_ref)
        if t.values[k] == end_value and any(
                float(np.linalg.norm(p - t.halves[k])) < OVER_HALF_WIDTHS * w
                for p in outline.halves):
            return True
    return False


def _look_at_slots(chains: list[_Chain], pool: dict[int, _Tile], printed: list[_Tile],
                   read: list[_Tile], tiles: list[Any], e: int, w: float, players: int, look: Look,
                   to_image: np.ndarray, uncertain: list[Uncertainty]) -> bool:
    """On the mat, read again where an empty slot's first tile would lie; True when a
    train was found so.

    A first tile's box slid in towards the hub over the printed arrow is print
    (``_on_printed_ring``), and one slid aside starts no train, so the whole
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
    slots = players + 1
    # a train that does not start with the engine's count: read again there too
    astride = {_slot(c.slot_angle, slots)[0]: c for c in chains
               if c.tiles[0][1] != e and all(i < len(read) for i, _, _ in c.tiles)}
    taken = {_slot(c.slot_angle, slots)[0] for c in chains} - set(astride)
    boxes = [*pool.values(), *printed, *(c.head for c in astride.values())]
    found = False
    for slot in range(slots):
        if slot in taken:
            continue
        angle = 90.0 + 360.0 * slot / slots
        u = np.array([math.cos(math.radians(angle)), math.sin(math.radians(angle))])
        expected = (SLOT_RADIUS_MM + w) * u
        near = [t.centre for t in boxes if float(np.linalg.norm(t.centre - expected)) <= 1.5 * w]
        if not near:
            continue
        across = [expected + _perp(u) * float((c - expected) @ _perp(u)) for c in near]
        best: tuple[float, np.ndarray, Any] | None = None
        for centre in [expected, *across, *near]:
            corners = _outline(centre, u, w)
            again = _read_again(look, to_image, corners)
            if again is None:
                continue
            seen, values, ranges = again
            if not ranges[0][0] <= e <= ranges[0][1] or values[0] == values[1]:
                continue
            sure = float(getattr(seen, "confidence", 1.0)) + (0.01 if values[0] == e else 0.0)
            if best is None or sure > best[0]:
                best = (sure, corners, seen)
        if best is None:
            continue
        _, corners, seen = best
        values = tuple(int(v) for v in seen.values)
        index = len(tiles)
        tiles.append(seen)
        tile = _make_tile(index, (e, values[1]), corners)
        was = astride.get(slot)
        if was is not None:  # its tiles are laid again from the tile read
            chains.remove(was)
            pool.update((i, read[i]) for i, _, _ in was.tiles)
        for o in [o for o in pool.values() if tile.distance_to_point(o.centre) < 0.4 * w]:
            pool.pop(o.index)
        owner: Owner = MEXICAN if slot == players else slot
        chains.append(_Chain(owner, angle % 360.0, [(index, e, values[1])], tile.halves[1], u,
                             tile, tile, links=[(np.zeros(2), u)]))
        uncertain.append(Uncertainty(
            "reread-tile", f"train {owner} starts where no box lay right: read again at its "
            f"slot as {values[0]}-{values[1]}, taken as {e}-{values[1]}", (index,), (owner,)))
        found = True
    chains.sort(key=lambda c: _slot(c.slot_angle, slots)[0])
    return found


def _reread_mismatches(chains: list[_Chain], read: list[_Tile], w: float, look: Look,
                       to_image: np.ndarray, uncertain: list[Uncertainty],
                       ends_only: bool = False) -> bool:
    """Read a tile laid on a count it does not show again where its train puts it.

    A box shifted along its tile cuts the pips nearest one end off that half's
    crop, and they are missed without doubt (an 11 read 9, no range to settle it
    by its neighbours). Where a tile's near half still does not match the end
    it is laid on, the image is read again in the outline the train gives it
    (lengthwise, or a double across, as the box lies, else turned the other way:
    :func:`_read_in_place`); a reading that fits the end is the tile
    (``reread-tile``). When it reads the same again, the tile before it is read
    again instead (:func:`_reread_before`). A tile that really does not match
    reads the same again, and stays for the rules to judge. With ``ends_only``, only
    each train's last tile is looked at (its far count is where the train goes on).
    A train's last tile taken so moves the train's end to where the outline puts it:
    the box lay off its tile (turned, a box slid), and the next tile, turned a right
    angle beside its far half, would not fit on the box's far half.
    True when a tile was taken otherwise.
    """
    changed = False
    for chain in chains:
        for k in range(max(len(chain.tiles) - 1, 1) if ends_only else 1, len(chain.tiles)):
            idx, near, far = chain.tiles[k]
            end = chain.tiles[k - 1][2]
            if near == end or idx >= len(read):
                continue
            end_ref, direction = chain.links[k]
            lying = abs(_cos(read[idx].axis, direction)) < 0.5  # lying across
            found = _read_in_place(end_ref, direction, lying, end, w, look, to_image)
            if found is not None:
                double, centre, corners, values = found
                chain.tiles[k] = (idx, end, end if double else values[1])
                if k == len(chain.tiles) - 1:
                    # the train goes on from where it puts the tile, not from the box
                    tile = _make_tile(idx, (end, chain.tiles[k][2]), corners)
                    chain.end_ref = centre if double else tile.halves[1]
                    chain.direction, chain.last = direction, tile
                was = read[idx].values
                uncertain.append(Uncertainty(
                    "reread-tile", f"tile {idx} was read {was[0]}-{was[1]}, not matching "
                    f"the {end} it lies on; read again where train {chain.owner} puts it: "
                    f"{values[0]}-{values[1]}, taken as {end}-{chain.tiles[k][2]}", (idx,),
                    (chain.owner,)))
                changed = True
                continue
            changed = _reread_before(chain, k, read, w, look, to_image, uncertain) or changed
    return changed


#: A single read again turned from its box (``_read_in_place``) is taken only when read
#: at least this surely, and exactly as a single on the end.
TURNED_REREAD_SURE = 0.8


def _read_in_place(end_ref: np.ndarray, direction: np.ndarray, lying: bool, end: int,
                   w: float, look: Look, to_image: np.ndarray
                   ) -> tuple[bool, np.ndarray, np.ndarray, tuple[int, ...]] | None:
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
    for double in (lying, not lying):
        centre = end_ref + (1.0 if double else 1.5) * w * direction
        corners = _outline(centre, _perp(direction) if double else direction, w)
        if double == lying:
            again = _read_again(look, to_image, corners)
            # (a double read lengthwise is two tiles' halves: a double lies across)
            if again is not None and all(low <= end <= high for low, high
                                         in (again[2] if double else again[2][:1])) and (
                    double or again[1][0] != again[1][1]):
                return double, centre, corners, again[1]
            continue
        turned = _read_again(look, to_image, corners, doubted=True)
        if turned is None:
            continue
        seen, values, _ = turned
        if double:
            # the end's double read exactly, a half of it surely (bare table beside a
            # single reads as blank halves: never a 0-0)
            fits = (end != 0 and values == (end, end)
                    and max(getattr(seen, "half_certainty", (0.0, 0.0))) >= SURE_HALF)
        else:
            fits = (not bool(getattr(seen, "uncertain", False))
                    and float(getattr(seen, "confidence", 1.0)) >= TURNED_REREAD_SURE
                    and values[0] == end != values[1])
        if fits:
            return double, centre, corners, values
    return None


def _reread_before(chain: _Chain, k: int, read: list[_Tile], w: float, look: Look,
                   to_image: np.ndarray, uncertain: list[Uncertainty]) -> bool:
    """The other side of a mismatch: the tile before it, a single lying lengthwise, may
    be the misread one (its far half, which the next tile vouches for). It is read
    again where its train puts it; a reading the reader does not doubt whose near
    half is still the count it lies on and whose far half could be the next tile's
    near count is taken (``reread-tile``; True)."""
    prev, near, far = chain.tiles[k - 1]
    want = chain.tiles[k][1]
    if prev >= len(read) or near == far:
        return False
    end_ref, direction = chain.links[k - 1]
    if abs(_cos(read[prev].axis, direction)) < 0.5:  # lying across: a double's place
        return False
    again = _read_again(look, to_image, _outline(end_ref + 1.5 * w * direction, direction, w))
    if again is None:
        return False
    _, values, ranges = again
    if not (ranges[0][0] <= near <= ranges[0][1] and ranges[1][0] <= want <= ranges[1][1]):
        return False
    chain.tiles[k - 1] = (prev, near, want)
    was = read[prev].values
    uncertain.append(Uncertainty(
        "reread-tile", f"tile {prev} was read {was[0]}-{was[1]}, its far end not matching "
        f"the {want} laid on it; read again where train {chain.owner} puts it: "
        f"{values[0]}-{values[1]}, taken as {near}-{want}", (prev,), (chain.owner,)))
    return True


def _settle_sandwiched(chains: list[_Chain], e: int, w: float,
                       uncertain: list[Uncertainty]) -> None:
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
    elsewhere. A train's first tile lies on the engine's count. Reported
    (``matched-read``).
    """
    on_table = Counter((min(near, far), max(near, far)) for chain in chains
                       for _, near, far in chain.tiles)
    on_table[(e, e)] += 1
    for chain in chains:
        for k in range(len(chain.tiles) - 1):
            idx, near, far = chain.tiles[k]
            end = chain.tiles[k - 1][2] if k else e
            after = chain.tiles[k + 1][1]
            read_as = (min(near, far), max(near, far))
            twin = on_table[read_as] >= 2
            # a double lies across its train: one read lying along it is a single misread
            along = near == far and _lies_along(chain, k, w)
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
            uncertain.append(Uncertainty(
                "matched-read", f"tile {idx} was read {near}-{far}, {why}; taken as "
                f"{end}-{after}, as its neighbours on train {chain.owner} have it", (idx,),
                (chain.owner,)))


def _lies_along(chain: _Chain, k: int, w: float) -> bool:
    """Whether the train's ``k``-th tile lies along the train: laying it moved the
    train's end on about two tile widths (to its far half), not one (to the centre
    of a double lying across)."""
    before = chain.links[k][0]
    after = chain.links[k + 1][0] if k + 1 < len(chain.links) else chain.end_ref
    return float(np.linalg.norm(after - before)) > 1.5 * w


def _engine_twins(chains: list[_Chain], tiles: Sequence[TileLike], e: int,
                  uncertain: list[Uncertainty]) -> None:
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
    on_table = {(near, far) for chain in chains for _, near, far in chain.tiles}
    for chain in chains:
        for j in range(1, len(chain.tiles)):
            idx, near, far = chain.tiles[j]
            if near != e or far != e:
                continue
            prev = chain.tiles[j - 1]
            prev_far = _end_ranges(tiles[prev[0]], prev[1], prev[2])[1]
            nxt = chain.tiles[j + 1] if j + 1 < len(chain.tiles) else None
            next_near = _end_ranges(tiles[nxt[0]], nxt[1], nxt[2])[0] if nxt else None

            options = {prev[2], *range(prev_far[0], prev_far[1] + 1)}
            if next_near is not None:
                options.update(range(next_near[0], next_near[1] + 1))
            options = {x for x in options if x >= 0 and x != e and (x, x) not in on_table}
            if not options:
                continue
            support = {v: 2 * (v == prev[2]) + _fits(v, prev_far) + _fits(v, next_near)
                       for v in options}
            x = max(sorted(options), key=lambda v: (support[v], -abs(v - e)))
            if support[x] == 0:  # nothing around it says what else it could be
                continue
            chain.tiles[j] = (idx, x, x)
            on_table.add((x, x))
            if prev[2] != x and _fits(x, prev_far):
                chain.tiles[j - 1] = (prev[0], prev[1], x)
            if nxt is not None and nxt[1] != x and _fits(x, next_near):
                chain.tiles[j + 1] = (nxt[0], x, nxt[2])
            read = tuple(int(v) for v in tiles[idx].values)
            uncertain.append(Uncertainty(
                "matched-read", f"tile {idx} was read {read[0]}-{read[1]}, the engine's twin; "
                f"taken as {x}-{x}, as its neighbours on train {chain.owner} have it",
                (idx,), (chain.owner,)))


def _match_neighbours(chain: _Chain, tiles: Sequence[TileLike], e: int, w: float,
                      uncertain: list[Uncertainty]) -> None:
    """Settle misread halves of ``chain`` by their neighbours, within the reader's doubt.

    Where a tile's near end does not match the end before it (the engine, or the
    far end of the tile before), and a count both halves could be (the reader's
    ``ranges``, see ``vision.reader.RANGE_BAND``) makes them match, both take it:
    a misread pip on a blurred 11 is a far likelier story than a mismatch. A
    count the reader is sure of is never changed, so a real mismatch stays one.
    A double's ends move together: where its other half's doubt allows, or
    whatever it read where it lies across the train (a double, however blurred:
    an 11-11 read 10-10 between two 11s is not an 11-10). The tile before a link
    keeps a double's far end. Each change is reported (``matched-read``).
    """
    entries: list[list[Any]] = []
    for idx, near, far in chain.tiles:
        read = tuple(int(v) for v in tiles[idx].values)
        k = 0 if read == (near, far) else 1
        ranges = getattr(tiles[idx], "ranges", None) or ((read[0], read[0]), (read[1], read[1]))
        sure = getattr(tiles[idx], "half_certainty", None) or (1.0, 1.0)
        entries.append([idx, near, far, tuple(ranges[k]), tuple(ranges[1 - k]), read,
                        float(sure[k]), float(sure[1 - k])])
    changed: list[int] = []
    for j, entry in enumerate(entries):
        idx, near, far, near_range, far_range, _, near_sure, _ = entry
        end = e if j == 0 else entries[j - 1][2]
        if near == end:
            continue
        if j == 0:
            end_range: tuple[int, int] = (e, e)
            end_sure = 1.0
        else:
            before = entries[j - 1]
            double_before = before[1] == before[2]
            end_range = (end, end) if double_before else before[4]
            end_sure = 1.0 if double_before else before[7]
        lo, hi = max(near_range[0], end_range[0]), min(near_range[1], end_range[1])
        read = entry[5]
        if lo > hi and read[0] == read[1] \
                and max(far_range[0], end_range[0]) <= min(far_range[1], end_range[1]):
            # a tile read as a double could lie either way round: its other half's doubt
            # allows the end
            near_range, far_range, near_sure = far_range, near_range, entry[7]
            entry[3], entry[4], entry[6], entry[7] = near_range, far_range, near_sure, entry[6]
            lo, hi = max(near_range[0], end_range[0]), min(near_range[1], end_range[1])
        if lo > hi:
            continue
        # the count nearest both readings; on a tie, the one the surer half read
        keep = near if near_sure > end_sure else end
        value = min(range(lo, hi + 1), key=lambda v: (abs(v - near) + abs(v - end), abs(v - keep)))
        if j > 0 and value != end:
            entries[j - 1][2] = value
            changed.append(entries[j - 1][0])
        if near == far and (far_range[0] <= value <= far_range[1]
                            or not _lies_along(chain, j, w)):
            entry[2] = value
        entry[1] = value
        changed.append(idx)
    if not changed:
        return
    chain.tiles = [(idx, near, far) for idx, near, far, *_ in entries]
    for idx, near, far, _, _, read, _, _ in entries:
        if idx in changed and (near, far) not in (read, read[::-1]):
            uncertain.append(Uncertainty(
                "matched-read", f"tile {idx} was read {read[0]}-{read[1]}; taken as "
                f"{near}-{far}, as its neighbours on train {chain.owner} have it",
                (idx,), (chain.owner,)))


def _avoid_repeats(chains: list[_Chain], tiles: Sequence[TileLike], e: int,
                   uncertain: list[Uncertainty]) -> None:
    """A set holds each tile once: the open end of a train that repeats a tile
    already on the table takes the nearest count the reader's doubt allows that
    repeats none (a blurred 3-11 read 3-12 where a 3-12 lies elsewhere). Only a
    train's last tile's far end, which no neighbour vouches for, is changed; a
    repeat read without doubt stays, for the rules to report. A train ending in
    the same double twice holds one tile found as two boxes: the last is dropped
    (``loose-tile``).
    """
    def key(a: int, b: int) -> tuple[int, int]:
        return (min(a, b), max(a, b))

    for chain in chains:
        # the same double twice at a train's end: one tile, two boxes on it
        if len(chain.tiles) > 1 and chain.tiles[-1][1:] == chain.tiles[-2][1:] \
                and chain.tiles[-1][1] == chain.tiles[-1][2]:
            idx, v, _ = chain.tiles.pop()
            chain.links.pop()
            uncertain.append(Uncertainty(
                "loose-tile", f"tile {idx} [{v}, {v}] lies on the {v}-{v} at the end of train "
                f"{chain.owner}: not a tile of its own", (idx,), (chain.owner,)))
    seen = Counter(key(near, far) for chain in chains for _, near, far in chain.tiles)
    seen[(e, e)] += 1
    for chain in chains:
        if not chain.tiles:
            continue
        idx, near, far = chain.tiles[-1]
        if seen[key(near, far)] < 2 or near == far:
            continue
        read = tuple(int(v) for v in tiles[idx].values)
        ranges = getattr(tiles[idx], "ranges", None)
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
        uncertain.append(Uncertainty(
            "matched-read", f"tile {idx} was read {read[0]}-{read[1]}, a tile already on the "
            f"table; taken as {near}-{value}", (idx,), (chain.owner,)))


def _report_leftovers(chains: list[_Chain], pool: dict[int, _Tile], w: float,
                      uncertain: list[Uncertainty]) -> None:
    for t in sorted(pool.values(), key=lambda t: t.index):
        gap_of: Owner | None = None
        for chain in chains:
            k = _nearer_half(t, chain.end_ref)
            d = t.halves[k] - chain.end_ref
            r = float(np.linalg.norm(d)) / w
            if TOUCH_HIGH < r <= GAP_WIDTHS and _cos(d, chain.direction) >= math.cos(
                    math.radians(35)):
                gap_of = chain.owner
                break
        if gap_of is not None:
            uncertain.append(Uncertainty(
                "gap", f"tile {t.index} {list(t.values)} lies beyond the end of train {gap_of} "
                "with a gap", (t.index,), (gap_of,)))
        else:
            uncertain.append(Uncertainty(
                "loose-tile", f"tile {t.index} {list(t.values)} touches no train", (t.index,)))


def _place_markers(marker_pts: np.ndarray, chains: list[_Chain], read: list[_Tile],
                   hub: np.ndarray, start_r: float, w: float, players: int,
                   uncertain: list[Uncertainty], on_print: bool = False) -> list[Owner | None]:
    """The train each marker marks (``None``: none, reported). With ``on_print`` (the
    mat's frame) a marker centred on the mat's print, no further out than its arrows'
    tips and labels, is the print (a detector looking closely takes an arrow with its
    label for one): no train runs there, since trains start at ``SLOT_RADIUS_MM``."""
    by_owner = {c.owner: c for c in chains}
    step = 2 * math.pi / (players + 1)
    owners: list[Owner] = [*range(players), MEXICAN]
    out: list[Owner | None] = []
    for j, corners in enumerate(marker_pts):
        m = corners.mean(axis=0)
        if on_print and float(np.linalg.norm(m)) < ARROW_TO_MM + PRINT_MARGIN_MM:
            uncertain.append(Uncertainty(
                "loose-marker", f"marker {j} lies on the mat's print, where no train runs; "
                "taken for the print", markers=(j,)))
            out.append(None)
            continue
        outline = _make_tile(-1, (-1, -2), corners)
        distances: list[tuple[float, Owner]] = []
        for slot, owner in enumerate(owners):
            chain = by_owner.get(owner)
            angle = math.pi / 2 + slot * step
            if chain is None:
                # Distance to the slot's ray, from the engine's side to a little past
                # where trains start.
                ray = np.array([math.cos(angle), math.sin(angle)])
                rel = m - hub
                along = float(rel @ ray)
                lateral = abs(float(rel @ _perp(ray))) - outline.width / 2
                d = (max(lateral, 0.0) + max(along - start_r - 2.5 * w, 0.0)
                     + max(1.5 * w - along, 0.0))
                distances.append((d, owner))
                continue
            d = min(chain.last.gap_to(outline), chain.head.gap_to(outline) + 0.5 * w)
            distances.append((d, owner))
        distances.sort(key=lambda x: x[0])
        best_d, best = distances[0]
        if best_d > MARKER_REACH_WIDTHS * w:
            uncertain.append(Uncertainty("loose-marker", f"marker {j} lies by no train",
                                         markers=(j,)))
            out.append(None)
            continue
        if len(distances) > 1 and distances[1][0] < 1.5 * best_d + 0.25 * w:
            uncertain.append(Uncertainty(
                "marker-between",
                f"marker {j} lies between trains {best} and {distances[1][1]}; took train {best}",
                owners=(best, distances[1][1]), markers=(j,)))
        out.append(best)
    return out
