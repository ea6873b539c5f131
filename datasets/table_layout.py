"""Lay a table out on the table plane: where every tile and marker lies, in millimetres.

Geometry only, no pixels: the renderer draws a :class:`TableLayout`, and the
table tests and benchmarks use it without drawing anything.

Conventions (see docs/DESIGN.md):

- Table-plane millimetres with ``x`` to the right and ``y`` towards seat 0
  (the bottom edge of a camera image), so angles grow clockwise as seen from
  above, the way seats are numbered.
- Each laid tile carries its values as laid, ``(near, far)`` from the hub
  outward, and its corners (4, 2) with the first two on the near half, going
  round the tile. A double's "near" half is just one of its halves.
- With ``P`` players there are ``P + 1`` train slots evenly spaced round the
  hub: seat ``k``'s train leaves in slot ``k`` (seat 0 points at the bottom
  edge), the Mexican train in the last slot. This is the printed mat's layout
  (:mod:`vision.mat.geometry`) and the heuristic that reads a table without
  the mat.
- Trains run tile against tile; doubles lie crosswise (or in line, as many
  tables lay them: ``inline_doubles``); a long train turns a
  right angle, its next tile's near end against the side of the far half of
  the tile before. Tiles of different trains never touch.

:func:`random_table` (:mod:`datasets.random_table`, importable from here too) builds a
legal-looking :class:`engine.TableState` to lay out (tests, benchmarks, the generator).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

import numpy as np

from datasets.random_table import random_table as random_table  # re-exported
from vision.mat.geometry import SLOT_RADIUS_MM, mat_to_table, slot_angles
from vision.readings import TileReading

if TYPE_CHECKING:
    from engine import TableState

#: Long side of a tile.
TILE_LENGTH_MM = 48.0
#: Short side of a tile.
TILE_WIDTH_MM = 24.0
#: Side of the square table the layout keeps inside (when it can).
TABLE_MM = 1000.0
#: Least free space between tiles that do not touch (and round markers).
CLEARANCE_MM = 9.0
#: Space kept free along the table's edge.
EDGE_MM = 12.0
#: Least free space between a marker and the tiles of trains it does not mark.
MARKER_APART_MM = 24.0

MarkerKind = Literal["coin", "toy-train", "pawn"]
MARKER_KINDS: tuple[MarkerKind, ...] = ("coin", "toy-train", "pawn")
#: Footprint (length, width) of each marker kind seen from above.
MARKER_SIZE_MM: dict[str, tuple[float, float]] = {
    "coin": (23.0, 23.0),
    "toy-train": (40.0, 18.0),
    "pawn": (18.0, 18.0),
}

Owner = int | str


@dataclass(frozen=True)
class LaidTile:
    """One tile on the table plane.

    ``values`` are ``(near, far)``; ``corners`` (4, 2) mm, first two on the
    near half. ``owner`` is the train's owner (``None`` for the engine) and
    ``index`` the tile's place in that train (0 next to the hub).
    """

    values: tuple[int, int]
    corners: np.ndarray
    owner: Owner | None
    index: int
    #: Where the train's open end is after this tile, and the way it grows from there.
    end: np.ndarray | None = field(default=None, repr=False, compare=False)
    direction: np.ndarray | None = field(default=None, repr=False, compare=False)

    @property
    def is_engine(self) -> bool:
        return self.owner is None

    @property
    def centre(self) -> np.ndarray:
        return np.asarray(self.corners.mean(axis=0))


@dataclass(frozen=True)
class LaidMarker:
    """A train marker: its footprint's corners (4, 2) mm, its kind and its train."""

    corners: np.ndarray
    kind: MarkerKind
    owner: Owner

    @property
    def centre(self) -> np.ndarray:
        return np.asarray(self.corners.mean(axis=0))


@dataclass(frozen=True)
class Hub:
    """Where the engine sits and where the trains start.

    ``radius`` is the distance from ``centre`` to the near end of each
    train's first tile; ``rotation`` turns the whole hub clockwise (radians).
    With ``mat``, the printed mat lies centred on ``centre`` turned by
    ``rotation``; :attr:`mat_matrix` maps mat millimetres to the table.
    """

    centre: np.ndarray
    radius: float
    rotation: float
    players: int
    mat: bool

    @property
    def slot_angles(self) -> tuple[float, ...]:
        """Angles of the ``players + 1`` slots; the last is the Mexican train's."""
        return tuple(a + self.rotation for a in slot_angles(self.players))

    @property
    def mat_matrix(self) -> np.ndarray:
        return mat_to_table(self.centre, self.rotation)

    def slot_of(self, owner: Owner) -> int:
        return self.players if owner == "mexican" else int(owner)


@dataclass(frozen=True)
class TableLayout:
    """Everything a renderer needs to draw a table, in table millimetres."""

    table: TableState
    tiles: list[LaidTile]
    markers: list[LaidMarker]
    hub: Hub
    seat_angles: tuple[float, ...]
    mexican_angle: float
    size: tuple[float, float] = (TABLE_MM, TABLE_MM)
    players: int = field(default=0)

    def bounds(self) -> tuple[float, float, float, float]:
        """``(x0, y0, x1, y1)`` round every tile and marker."""
        pts = [t.corners for t in self.tiles] + [m.corners for m in self.markers]
        allp = np.concatenate(pts) if pts else np.zeros((1, 2))
        return (float(allp[:, 0].min()), float(allp[:, 1].min()),
                float(allp[:, 0].max()), float(allp[:, 1].max()))


# --- rectangles -------------------------------------------------------------


@dataclass(frozen=True)
class _Rect:
    """An oriented rectangle: centre, unit long axis, half length, half width."""

    c: np.ndarray
    a: np.ndarray
    hl: float
    hw: float

    def corners(self) -> np.ndarray:
        n = _perp(self.a)
        c, a = self.c, self.a
        return np.array([c - self.hl * a - self.hw * n, c - self.hl * a + self.hw * n,
                         c + self.hl * a + self.hw * n, c + self.hl * a - self.hw * n])

    def overlaps(self, other: _Rect, gap: float) -> bool:
        """True if the two are closer than ``gap`` along every separating axis."""
        d = other.c - self.c
        for axis in (self.a, _perp(self.a), other.a, _perp(other.a)):
            r1 = self.hl * abs(axis @ self.a) + self.hw * abs(axis @ _perp(self.a))
            r2 = other.hl * abs(axis @ other.a) + other.hw * abs(axis @ _perp(other.a))
            if abs(d @ axis) >= r1 + r2 + gap:
                return False
        return True

    def distance_to_point(self, p: np.ndarray) -> float:
        local = p - self.c
        x, y = local @ self.a, local @ _perp(self.a)
        dx, dy = max(abs(x) - self.hl, 0.0), max(abs(y) - self.hw, 0.0)
        return math.hypot(dx, dy)


def _perp(v: np.ndarray) -> np.ndarray:
    """``v`` turned a quarter clockwise (image axes)."""
    return np.array([-v[1], v[0]])


def _unit(angle: float) -> np.ndarray:
    return np.array([math.cos(angle), math.sin(angle)])


def _turn(v: np.ndarray, angle: float) -> np.ndarray:
    c, s = math.cos(angle), math.sin(angle)
    return np.array([c * v[0] - s * v[1], s * v[0] + c * v[1]])


# --- the walk that lays one train -------------------------------------------


@dataclass
class _TrainWalk:
    owner: Owner
    tiles: list[tuple[int, int]]
    slot: np.ndarray
    end: np.ndarray  # midpoint of the open end's short edge (or the slot point)
    u: np.ndarray  # direction the train grows in
    last: _Rect | None = None
    last_double: bool = False
    run: int = 0
    run_limit: int = 6
    placed: int = 0
    #: Share of this train's doubles laid in line with it, not crosswise.
    inline_doubles: float = 0.0
    rects: list[_Rect] = field(default_factory=list)


def _candidate(walk: _TrainWalk, double: bool, turn: int) -> tuple[_Rect, np.ndarray, np.ndarray]:
    """Where the next tile would lie: ``(rect, new end, new direction)``.

    ``turn`` is 0 (straight), +1 (a quarter clockwise) or -1.
    """
    u, p = walk.u, walk.end
    if turn == 0:
        along = u
        start = p
    else:
        along = turn * _perp(u)
        far_half = p - (TILE_WIDTH_MM / 2) * u
        start = far_half + (TILE_WIDTH_MM / 2) * along
    if double:
        centre = start + (TILE_WIDTH_MM / 2) * along
        rect = _Rect(centre, _perp(along), TILE_LENGTH_MM / 2, TILE_WIDTH_MM / 2)
        return rect, start + TILE_WIDTH_MM * along, along
    centre = start + (TILE_LENGTH_MM / 2) * along
    rect = _Rect(centre, along, TILE_LENGTH_MM / 2, TILE_WIDTH_MM / 2)
    return rect, start + TILE_LENGTH_MM * along, along


class _Placer:
    """Free-space bookkeeping for one layout attempt."""

    def __init__(self, hub_centre: np.ndarray, hub_radius: float, size: tuple[float, float],
                 bounded: bool) -> None:
        self.rects: list[_Rect] = []
        self.hub_centre = hub_centre
        self.hub_radius = hub_radius
        self.size = size
        self.bounded = bounded

    def fits(self, rect: _Rect, touching: _Rect | None, gap: float = CLEARANCE_MM,
             near: Sequence[_Rect] = (), near_gap: float = 0.0) -> bool:
        if rect.distance_to_point(self.hub_centre) < self.hub_radius - 4.0:
            return False
        if self.bounded:
            cs = rect.corners()
            high = np.array(self.size) - EDGE_MM
            if (cs.min(axis=0) < EDGE_MM).any() or (cs.max(axis=0) > high).any():
                return False
        for other in self.rects:
            g = -0.5 if other is touching else gap
            if any(other is r for r in near):
                g = near_gap
            if rect.overlaps(other, g):
                return False
        return True


def layout_table(table: TableState, players: int, rng: np.random.Generator, *,
                 mat: bool = False, size: tuple[float, float] = (TABLE_MM, TABLE_MM),
                 attempts: int = 12, inline_doubles: float = 0.0) -> TableLayout:
    """Lay ``table`` out round a hub for ``players`` seats.

    Trains leave the hub in their seat's slot (the Mexican train in its own),
    doubles lie crosswise (``inline_doubles`` of them, a share, in line with the
    train as many tables lay them), long trains turn right angles to stay on the table
    and clear of the others. Without ``mat`` the hub is turned a few degrees
    at most (a camera squared to the table); with it, the mat may lie turned
    up to 45 degrees, since the mat says where each seat is.

    Raises ``ValueError`` if no layout without touching trains was found.
    """
    if not 2 <= players <= 8:
        raise ValueError(f"players must be 2..8, not {players}")
    owners_seen = {t.owner for t in table.trains}
    for owner in owners_seen:
        if owner != "mexican" and not (isinstance(owner, int) and 0 <= owner < players):
            raise ValueError(f"train owner {owner!r} is not a seat of {players} players")
    n_slots = players + 1
    chord_need = 2 * TILE_LENGTH_MM / 2 + CLEARANCE_MM + 8.0
    min_radius = max(58.0, chord_need / (2 * math.sin(math.pi / n_slots)))
    last_error = ""
    for attempt in range(attempts):
        bounded = attempt < attempts - 2
        if mat:
            radius = SLOT_RADIUS_MM
            rotation = float(rng.uniform(-math.pi / 4, math.pi / 4))
        else:
            radius = min_radius + float(rng.uniform(0, 12)) + 6.0 * attempt
            rotation = float(rng.uniform(-math.radians(5), math.radians(5)))
        centre = np.array(size, dtype=np.float64) / 2 + rng.uniform(-25, 25, size=2)
        hub = Hub(centre=centre, radius=radius, rotation=rotation, players=players, mat=mat)
        try:
            tiles, markers = _lay(table, hub, rng, size, bounded, inline_doubles)
        except _NoRoom as exc:
            last_error = str(exc)
            continue
        angles = hub.slot_angles
        return TableLayout(table=table, tiles=tiles, markers=markers, hub=hub,
                           seat_angles=tuple(angles[:players]), mexican_angle=angles[players],
                           size=size, players=players)
    raise ValueError(f"no room to lay out the table: {last_error}")


class _NoRoom(Exception):
    pass


def _lay(table: TableState, hub: Hub, rng: np.random.Generator, size: tuple[float, float],
         bounded: bool, inline_doubles: float = 0.0) -> tuple[list[LaidTile], list[LaidMarker]]:
    placer = _Placer(hub.centre, hub.radius, size, bounded)
    engine_axis = _unit(hub.rotation + (0.0 if hub.mat else float(rng.uniform(0, math.pi))))
    engine_rect = _Rect(hub.centre.copy(), engine_axis, TILE_LENGTH_MM / 2, TILE_WIDTH_MM / 2)
    e = int(table.engine)
    laid: list[LaidTile] = [LaidTile((e, e), engine_rect.corners(), None, 0)]

    angles = hub.slot_angles
    walks: list[_TrainWalk] = []
    for train in table.trains:
        angle = angles[hub.slot_of(train.owner)]
        u = _unit(angle + float(rng.uniform(-0.03, 0.03)))
        start = hub.centre + hub.radius * _unit(angle)
        pairs = [(int(t[0]), int(t[1])) for t in train.tiles]
        walks.append(_TrainWalk(owner=train.owner, tiles=pairs,
                                slot=start.copy(), end=start.copy(), u=u,
                                run_limit=int(rng.integers(5, 10)),
                                inline_doubles=inline_doubles))

    longest = max((len(w.tiles) for w in walks), default=0)
    for step in range(longest):
        for walk in walks:
            if step < len(walk.tiles):
                laid.append(_place_next(walk, placer, hub, rng))
    markers = _place_markers(table, walks, placer, hub, rng)
    return laid, markers


def _place_next(walk: _TrainWalk, placer: _Placer, hub: Hub,
                rng: np.random.Generator) -> LaidTile:
    near, far = (int(v) for v in walk.tiles[walk.placed])
    is_double = near == far
    # a double lies across the train, unless laid in line (no rng drawn unless some are)
    across = is_double and not (walk.inline_doubles > 0 and rng.random() < walk.inline_doubles)
    options: list[int] = [0]
    if walk.last is not None and not walk.last_double:
        radial = walk.end - hub.centre
        sides = sorted((1, -1), key=lambda t: (-(t * _perp(walk.u)) @ radial, rng.random()))
        options = [*sides, 0] if walk.run >= walk.run_limit else [0, *sides]
    for turn in options:
        rect, end, along = _candidate(walk, across, turn)
        # A little play: tiles never lie perfectly square or perfectly flush.
        gap = float(rng.uniform(0.0, 1.2))
        jitter = float(rng.normal(0.0, 0.012))
        rect = _Rect(rect.c + gap * along, _turn(rect.a, jitter), rect.hl, rect.hw)
        if not placer.fits(rect, walk.last):
            continue
        placer.rects.append(rect)
        walk.rects.append(rect)
        if turn != 0:
            walk.run = 0
            walk.run_limit = int(rng.integers(2, 6))
        walk.run += 1
        walk.u = _turn(along, jitter)
        walk.end = end + gap * along
        walk.last, walk.last_double = rect, across
        walk.placed += 1
        corners = rect.corners()
        if is_double and rng.random() < 0.5:
            corners = np.roll(corners, 2, axis=0)
        return LaidTile((near, far), corners, walk.owner, walk.placed - 1, walk.end.copy(),
                        walk.u.copy())
    raise _NoRoom(f"train {walk.owner!r} has no room for tile {walk.placed}")


def _place_markers(table: TableState, walks: Sequence[_TrainWalk], placer: _Placer, hub: Hub,
                   rng: np.random.Generator) -> list[LaidMarker]:
    markers: list[LaidMarker] = []
    for train, walk in zip(table.trains, walks, strict=True):
        if train.marker:
            markers += _place_markers_for(walk, placer, rng)
    return markers


def _place_markers_for(walk: _TrainWalk, placer: _Placer, rng: np.random.Generator,
                       force: bool = False) -> list[LaidMarker]:
    """One marker for ``walk``'s train: beyond its end, else beside its last tile.

    With ``force``, a marker with no free spot goes beyond the end anyway.
    """
    kind = MARKER_KINDS[int(rng.integers(len(MARKER_KINDS)))]
    length, width = MARKER_SIZE_MM[kind]
    spots: list[tuple[np.ndarray, np.ndarray]] = []
    u, n = walk.u, _perp(walk.u)
    if walk.last is None:
        spots += [(walk.slot + (length / 2 + 3 + k * 6) * u, u) for k in range(4)]
    else:
        beyond = walk.end + (length / 2 + 5.0) * u
        spots += [(beyond + k * 6 * u, u) for k in range(4)]
        side = walk.last.c + (walk.last.hw + width / 2 + 5) * n
        spots += [(side, u), (walk.last.c - (walk.last.hw + width / 2 + 5) * n, u)]
    for centre, axis in spots:
        spin = float(rng.uniform(-math.pi, math.pi)) if kind != "toy-train" else 0.0
        rect = _Rect(centre, _turn(axis, spin + float(rng.normal(0, 0.05))),
                     length / 2, width / 2)
        # Close to its own train, clearly apart from every other.
        if placer.fits(rect, None, gap=MARKER_APART_MM, near=walk.rects, near_gap=4.0):
            placer.rects.append(rect)
            return [LaidMarker(rect.corners(), kind, walk.owner)]
    if force:
        centre, axis = spots[0]
        rect = _Rect(centre, axis, length / 2, width / 2)
        placer.rects.append(rect)
        return [LaidMarker(rect.corners(), kind, walk.owner)]
    raise _NoRoom(f"no room for the marker of train {walk.owner!r}")


# --- a game: one layout, many tables ----------------------------------------


def _rect_of(corners: np.ndarray) -> _Rect:
    c = np.asarray(corners, dtype=np.float64)
    near, far = (c[0] + c[1]) / 2, (c[2] + c[3]) / 2
    axis = far - near
    return _Rect(c.mean(axis=0), axis / np.linalg.norm(axis), float(np.linalg.norm(axis)) / 2,
                 float(np.linalg.norm(c[1] - c[0])) / 2)


def layout_sequence(tables: Sequence[TableState], players: int, rng: np.random.Generator, *,
                    mat: bool = False,
                    size: tuple[float, float] = (TABLE_MM, TABLE_MM)) -> list[TableLayout]:
    """Lay out the tables a camera sees during one round, each tile always in one place.

    Every train of a later table must extend the same train of an earlier one
    (tiles are laid, not moved); a train may also lose tiles from its end (a
    tile taken back). Markers are placed per table, the same way each time a
    train has the same length. Raises ``ValueError`` otherwise.
    """
    if not tables:
        return []
    engine = tables[0].engine
    longest: dict[Owner, tuple[tuple[int, int], ...]] = {}
    for table in tables:
        if table.engine != engine:
            raise ValueError("the engine changes during the round")
        for train in table.trains:
            have = longest.get(train.owner, ())
            tiles = tuple((int(a), int(b)) for a, b in train.tiles)
            if have[:len(tiles)] == tiles:
                continue
            if tiles[:len(have)] != have:
                raise ValueError(f"train {train.owner!r} changes tiles it already had")
            longest[train.owner] = tiles
        for train in table.trains:
            longest.setdefault(train.owner, ())
    from engine import TableState as State
    from engine import Train as TrainType

    union = State(engine, tuple(TrainType(o, t, False) for o, t in longest.items()))
    base = layout_table(union, players, rng, mat=mat, size=size)
    seed = int(rng.integers(2**31))
    angles = base.hub.slot_angles
    out = []
    for table in tables:
        counts = {t.owner: len(t.tiles) for t in table.trains}
        shown = [base.tiles[0]] + [t for t in base.tiles[1:]
                                   if t.owner is not None and t.index < counts.get(t.owner, 0)]
        placer = _Placer(base.hub.centre, base.hub.radius, size, bounded=False)
        placer.rects = [_rect_of(t.corners) for t in shown]
        markers: list[LaidMarker] = []
        for train in table.trains:
            if not train.marker:
                continue
            slot = base.hub.slot_of(train.owner)
            u = _unit(angles[slot])
            start = base.hub.centre + base.hub.radius * u
            own = [t for t in shown if t.owner == train.owner]
            walk = _TrainWalk(owner=train.owner, tiles=[], slot=start, end=start.copy(), u=u)
            if own:
                last = max(own, key=lambda t: t.index)
                assert last.end is not None and last.direction is not None
                walk.end, walk.u, walk.last = last.end, last.direction, _rect_of(last.corners)
                walk.rects = [_rect_of(t.corners) for t in own]
            marker_rng = np.random.default_rng([seed, slot, len(own)])
            markers += _place_markers_for(walk, placer, marker_rng, force=True)
        out.append(TableLayout(table=table, tiles=shown, markers=markers, hub=base.hub,
                               seat_angles=base.seat_angles, mexican_angle=base.mexican_angle,
                               size=size, players=players))
    return out


# --- what a camera would report, without pixels ------------------------------


def overhead_homography(size: tuple[float, float] = (TABLE_MM, TABLE_MM),
                        image: tuple[int, int] = (1280, 720),
                        rng: np.random.Generator | None = None, tilt: float = 0.03) -> np.ndarray:
    """A (3, 3) homography from table millimetres to pixels of a camera above the table.

    The table fills the image's height, centred; ``tilt`` moves each image
    corner of the table by up to that fraction of the image height at random
    (a camera not quite square over the table).
    """
    import cv2

    w, h = image
    scale = 0.96 * min(w / size[0], h / size[1])
    x0, y0 = (w - scale * size[0]) / 2, (h - scale * size[1]) / 2
    src = np.array([[0, 0], [size[0], 0], [size[0], size[1]], [0, size[1]]], np.float32)
    dst = np.array([[x0, y0], [x0 + scale * size[0], y0], [x0 + scale * size[0],
                   y0 + scale * size[1]], [x0, y0 + scale * size[1]]], np.float32)
    if rng is not None and tilt > 0:
        dst = dst + rng.uniform(-tilt * h, tilt * h, size=dst.shape).astype(np.float32)
    return np.asarray(cv2.getPerspectiveTransform(src, dst), dtype=np.float64)


def seen_tiles(layout: TableLayout, table_to_image: np.ndarray, rng: np.random.Generator, *,
               noise_px: float = 0.0, shuffle: bool = True) -> tuple[list[TileReading], np.ndarray]:
    """The layout's tiles and marker corners as a camera (and reader) would report them.

    A reader does not know which end of a tile is near the hub: with
    ``shuffle`` each tile's values are swapped at random (its corners turned
    with them, keeping the corner convention) and the tiles come in random
    order. Returns the tiles and the markers' corners ``(M, 4, 2)`` in pixels.
    """
    from vision.mat.geometry import apply_homography

    out = []
    order = rng.permutation(len(layout.tiles)) if shuffle else np.arange(len(layout.tiles))
    for i in order:
        t = layout.tiles[int(i)]
        corners = apply_homography(table_to_image, t.corners)
        values = t.values
        if shuffle and rng.random() < 0.5:
            corners, values = np.roll(corners, 2, axis=0), (values[1], values[0])
        if noise_px > 0:
            corners = corners + rng.normal(0.0, noise_px, size=corners.shape)
        out.append(TileReading((int(values[0]), int(values[1])), corners))
    markers = np.array([apply_homography(table_to_image, m.corners) for m in layout.markers])
    return out, markers.reshape(-1, 4, 2)
