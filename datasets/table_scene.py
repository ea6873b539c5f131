"""Objects on the table plane (millimetres) for one scene: tiles, markers, a hub.

``hands_objects`` scatters loose tiles or lays them in rows; ``table_objects``
lays a Mexican Train table round a hub (with ``datasets.table_layout`` when
that module is present, else with a simple layout of its own).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

MARKER_KINDS = ("coin", "toy-train", "pawn")


@dataclass
class PlaneTile:
    """A tile lying face up: ``values`` (a, b) and corners in mm, first two at the ``a`` end;
    or, ``face_down``, a tile of the boneyard (or of a hand not yet turned over) showing
    its back."""

    values: tuple[int, int]
    corners: np.ndarray  # (4, 2)
    face_down: bool = False


@dataclass
class PlaneMarker:
    kind: str
    centre: np.ndarray  # (2,)
    angle: float  # radians
    size: float  # mm, the marker's main dimension


@dataclass
class PlaneScene:
    tiles: list[PlaneTile]
    markers: list[PlaneMarker]
    hub: tuple[np.ndarray, float] | None = None  # centre, radius
    table: dict[str, Any] | None = None
    set_size: int = 12
    extras: dict[str, Any] = field(default_factory=dict)


def tile_corners(centre: np.ndarray, angle: float, width: float) -> np.ndarray:
    """Corners of a tile centred at ``centre``, its ``a`` end at ``-direction``."""
    d = np.array([np.cos(angle), np.sin(angle)])
    p = np.array([-d[1], d[0]])
    a_end, b_end = centre - width * d, centre + width * d
    return np.stack(
        [a_end - width / 2 * p, a_end + width / 2 * p, b_end + width / 2 * p, b_end - width / 2 * p]
    )


def _rect(corners: np.ndarray) -> Any:
    return cv2.minAreaRect(corners.astype(np.float32))


def overlaps(a: np.ndarray, b: np.ndarray, pad: float = 1.0) -> bool:
    """Whether two quads (4, 2) overlap once ``a`` is grown by ``pad`` mm."""
    (ca, sa, ta), rb = _rect(a), _rect(b)
    kind, _ = cv2.rotatedRectangleIntersection((ca, (sa[0] + 2 * pad, sa[1] + 2 * pad), ta), rb)
    return kind != cv2.INTERSECT_NONE


def random_values(
    set_size: int, rng: np.random.Generator, used: set[tuple[int, int]]
) -> tuple[int, int]:
    for _ in range(50):
        a, b = (int(v) for v in rng.integers(0, set_size + 1, 2))
        if rng.random() < 0.12:
            b = a
        key = (min(a, b), max(a, b))
        if key not in used:
            used.add(key)
            return a, b
    return a, b


def pick_set_size(rng: np.random.Generator) -> int:
    return int(rng.choice([6, 9, 12, 15, 18], p=[0.08, 0.1, 0.6, 0.12, 0.1]))


def hands_objects(
    rng: np.random.Generator, region: np.ndarray, width: float, count: int, set_size: int
) -> PlaneScene:
    """Loose tiles (or rows of them) inside the plane polygon ``region`` (N, 2)."""
    tiles: list[PlaneTile] = []
    used: set[tuple[int, int]] = set()
    lo, hi = region.min(0), region.max(0)
    poly = region.astype(np.float32)

    def inside(corners: np.ndarray) -> bool:
        return all(cv2.pointPolygonTest(poly, (float(x), float(y)), False) > 0 for x, y in corners)

    def free(corners: np.ndarray) -> bool:
        return inside(corners) and not any(overlaps(corners, t.corners, 1.5) for t in tiles)

    mode = rng.random()
    if mode < 0.45:  # rows of tiles side by side, like a hand laid out for the camera
        rows = int(rng.integers(1, 4))
        per_row = int(rng.integers(2, 11))
        angle = rng.uniform(0, 2 * np.pi)
        d = np.array([np.cos(angle), np.sin(angle)])
        p = np.array([-d[1], d[0]])
        gap = rng.uniform(0.2, 6)
        centre0 = lo + (hi - lo) * rng.uniform(0.35, 0.65, 2)
        for r in range(rows):
            for i in range(per_row):
                c = (
                    centre0
                    + p * (i - per_row / 2) * (width + gap)
                    + d * (r - rows / 2) * (2 * width + gap + rng.uniform(0, 10))
                )
                c = c + rng.normal(0, 0.6, 2)
                a = angle + rng.normal(0, 0.02) + (np.pi if rng.random() < 0.5 else 0)
                corners = tile_corners(c, a, width)
                if free(corners):
                    tiles.append(PlaneTile(random_values(set_size, rng, used), corners))
    target = count if mode >= 0.45 else min(count, len(tiles) + int(rng.integers(0, 4)))
    tries = 0
    while len(tiles) < target and tries < 300:
        tries += 1
        c = lo + (hi - lo) * rng.random(2)
        corners = tile_corners(c, rng.uniform(0, 2 * np.pi), width)
        if free(corners):
            tiles.append(PlaneTile(random_values(set_size, rng, used), corners))
    markers: list[PlaneMarker] = []
    n_markers = int(rng.choice([0, 0, 1, 2, 3]))
    for _ in range(40):
        if len(markers) >= n_markers:
            break
        m = _random_marker(rng, lo + (hi - lo) * rng.random(2), width)
        box = tile_corners(m.centre, m.angle, m.size / 2)
        if inside(box) and not any(overlaps(box, t.corners, 2) for t in tiles):
            markers.append(m)
    return PlaneScene(tiles=tiles, markers=markers, set_size=set_size)


def _random_marker(rng: np.random.Generator, centre: np.ndarray, width: float) -> PlaneMarker:
    kind = MARKER_KINDS[int(rng.integers(3))]
    size = {
        "coin": rng.uniform(0.7, 1.15),
        "toy-train": rng.uniform(1.4, 2.0),
        "pawn": rng.uniform(0.6, 0.9),
    }[kind] * width
    return PlaneMarker(
        kind=kind,
        centre=np.asarray(centre, float),
        angle=float(rng.uniform(0, 2 * np.pi)),
        size=float(size),
    )


def table_objects(rng: np.random.Generator, width: float, mat: bool = False) -> PlaneScene:
    """A Mexican Train table: an engine double in a hub, trains radiating from it.

    With ``mat`` the hub is the printed mat (``hardware/``): trains start in its
    slots and ``extras["mat"]`` holds ``(players, mat mm -> plane 3x3)``.
    """
    scene = _from_table_layout(rng, width, mat)
    if scene is None and mat:
        raise ValueError("no table could be laid out on the mat")
    return scene if scene is not None else _own_table(rng, width)


def _from_table_layout(
    rng: np.random.Generator, width: float, mat: bool = False
) -> PlaneScene | None:
    """A table from ``datasets.table_layout`` (the shared layout), when it is importable.

    Its plane has ``y`` towards seat 0 (image down); ours has ``y`` up, so ``y``
    is flipped and ``extras["seat0_down"]`` asks the renderer to keep seat 0 at
    the bottom of the image.
    """
    try:
        from datasets.random_table import random_table
        from datasets.table_layout import layout_table
    except ImportError:
        return None
    set_size = int(rng.choice([9, 12, 15], p=[0.15, 0.7, 0.15]))
    players = int(rng.integers(2, 9))
    n_tiles = int(rng.integers(0, 14 + 4 * players))
    table = random_table(rng, players, set_size, n_tiles, marker_rate=0.35)
    try:
        layout = layout_table(table, players, rng, mat=mat)
    except ValueError:
        table = random_table(rng, players, set_size, n_tiles // 2, marker_rate=0.35)
        try:
            layout = layout_table(table, players, rng, mat=mat)
        except ValueError:
            return None
    flip = np.array([1.0, -1.0])
    scale = width / 24.0  # the layout's tiles are 48 x 24 mm
    origin = np.asarray(layout.hub.centre, float)

    def plane(points: np.ndarray) -> np.ndarray:
        return (np.asarray(points, float) - origin) * scale * flip

    tiles = [
        PlaneTile((int(t.values[0]), int(t.values[1])), plane(t.corners)) for t in layout.tiles
    ]
    markers = []
    for m in layout.markers:
        c = plane(m.corners)
        edge = (
            c[1] - c[0]
            if np.linalg.norm(c[1] - c[0]) >= np.linalg.norm(c[2] - c[1])
            else c[2] - c[1]
        )
        size = {"coin": 23.0, "toy-train": 40.0, "pawn": 18.0}.get(str(m.kind), 20.0) * scale
        markers.append(
            PlaneMarker(
                kind=str(m.kind),
                centre=c.mean(0),
                angle=float(np.arctan2(edge[1], edge[0])),
                size=size,
            )
        )
    extras: dict[str, Any] = {"seat0_down": True}
    if mat:
        to_plane = np.array(
            [[scale, 0.0, -scale * origin[0]], [0.0, -scale, scale * origin[1]], [0.0, 0.0, 1.0]]
        )
        extras["mat"] = (players, to_plane @ layout.hub.mat_matrix)
        hub = None
    else:
        hub = (np.zeros(2), float(layout.hub.radius) * scale - 3) if rng.random() < 0.7 else None
    return PlaneScene(
        tiles=tiles,
        markers=markers,
        hub=hub,
        table=table.to_json(),
        set_size=set_size,
        extras=extras,
    )


def _own_table(rng: np.random.Generator, width: float) -> PlaneScene:
    set_size = int(rng.choice([9, 12, 15], p=[0.15, 0.7, 0.15]))
    engine = int(rng.integers(0, set_size + 1))
    players = int(rng.integers(2, 9))
    used: set[tuple[int, int]] = {(engine, engine)}
    hub_r = float(rng.uniform(2.2, 3.2) * width) if rng.random() < 0.6 else 1.3 * width
    hub = (np.zeros(2), hub_r) if hub_r > 2 * width else None
    eng_angle = rng.uniform(0, np.pi)
    tiles = [PlaneTile((engine, engine), tile_corners(np.zeros(2), eng_angle, width))]
    markers: list[PlaneMarker] = []
    base = rng.uniform(0, 2 * np.pi)
    trains_json: list[dict[str, Any]] = []
    stage = rng.random()  # how far the round has gone
    owners: list[int | str] = [*range(players), "mexican"]
    for i, owner in enumerate(owners):
        ang = base + i * 2 * np.pi / len(owners) + rng.normal(0, 0.05)
        d = np.array([np.cos(ang), np.sin(ang)])
        p = np.array([-d[1], d[0]])
        r = hub_r + rng.uniform(1, 6)
        drift = 0.0
        near = engine
        laid: list[list[int]] = []
        length = int(rng.integers(0, 2 + int(stage * 11)))
        for _ in range(length):
            options = [
                (near, v) for v in range(set_size + 1) if (min(near, v), max(near, v)) not in used
            ]
            if not options:
                break
            doubles = [o for o in options if o[0] == o[1]]
            pick = (
                doubles[0]
                if doubles and rng.random() < 0.2
                else options[int(rng.integers(len(options)))]
            )
            is_double = pick[0] == pick[1]
            extent = width if is_double else 2 * width
            drift += rng.normal(0, 0.8)
            centre = d * (r + extent / 2) + p * drift
            jitter = rng.normal(0, 0.03)
            angle = ang + jitter + (np.pi / 2 if is_double else 0)
            corners = tile_corners(centre, angle, width)
            if np.linalg.norm(centre) > 560 or any(
                overlaps(corners, t.corners, 0.3) for t in tiles
            ):
                break
            used.add((min(pick), max(pick)))
            tiles.append(PlaneTile(pick, corners))
            laid.append([pick[0], pick[1]])
            near = pick[1]
            r += extent + rng.uniform(0.3, 3)
        marker = owner != "mexican" and rng.random() < 0.35
        if marker or (owner == "mexican" and rng.random() < 0.5):
            centre = (
                d * (hub_r + rng.uniform(1.0, 2.2) * width) + p * rng.choice([-1, 1]) * 1.6 * width
            )
            m = _random_marker(rng, centre, width)
            if owner == "mexican":
                m.kind = "toy-train"
            box = tile_corners(m.centre, m.angle, m.size / 2)
            if not any(overlaps(box, t.corners, 1) for t in tiles) and not any(
                np.linalg.norm(m.centre - o.centre) < (m.size + o.size) / 2 for o in markers
            ):
                markers.append(m)
            else:
                marker = False
        trains_json.append({"owner": owner, "tiles": laid, "marker": bool(marker)})
    table = {"engine": engine, "trains": trains_json}
    return PlaneScene(tiles=tiles, markers=markers, hub=hub, table=table, set_size=set_size)
