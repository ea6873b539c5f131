"""The description of one photoreal scene, drawn from a seed: no pixels, no Blender.

The table comes from the project's own layout code (``datasets.table_layout``:
a legal table laid out round a hub or on the printed mat), so the labels are
exact; this module only places it in a room: the tiles as solid blocks on a
surface, a boneyard of face-down tiles, markers, a mug or a phone, arms
reaching in, the light, and a webcam above (``mtrain camera-plan``'s geometry:
straight down or tilted a little, seat 0 at the bottom edge).

World coordinates are millimetres with ``z`` up and the hub at the origin; the
layout's ``y`` (towards seat 0) becomes ``-y``, and with the mat the whole
layout may lie turned at any angle, since the mat says where each seat is.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from datasets.camera import Camera
from datasets.photoreal.lens import Finish, Webcam, diagonal_to_horizontal, pick_finish
from datasets.photoreal.looks import (
    Lighting,
    SetStyle,
    Surface,
    pick_lighting,
    pick_set_style,
    pick_surface,
)
from datasets.table_layout import TILE_LENGTH_MM, TILE_WIDTH_MM, layout_table, random_table
from datasets.table_scene import overlaps, tile_corners
from vision.mat.geometry import MAT_SIDE_MM

#: Output frame size: a webcam's 720p.
FRAME = (1280, 720)
#: The set the tables are drawn from (commercial double-12 sets; ``mtrain read``'s default).
SET_MAX = 12
#: Marker heights (mm) by kind.
MARKER_HEIGHT_MM = {"coin": 2.0, "toy-train": 22.0, "pawn": 25.0}


@dataclass(frozen=True)
class SolidTile:
    """A tile on the table: ``values`` (near, far), footprint ``corners`` (4, 2) mm with the
    first two at the near end; ``face_down``: its back shows (a boneyard tile)."""

    values: tuple[int, int]
    corners: np.ndarray
    face_down: bool = False


@dataclass(frozen=True)
class SolidMarker:
    kind: str
    corners: np.ndarray  # (4, 2) footprint, mm
    colour: tuple[float, float, float]

    @property
    def height(self) -> float:
        return MARKER_HEIGHT_MM.get(self.kind, 10.0)


@dataclass(frozen=True)
class Prop:
    """A thing standing on the table: ``mug`` (``size`` radius, height) or ``phone``
    (``size`` length, width, thickness), at ``centre`` turned ``angle``."""

    kind: str
    centre: tuple[float, float]
    angle: float
    size: tuple[float, ...]
    colour: tuple[float, float, float]

    def outline(self, samples: int = 16) -> np.ndarray:
        """Points ``(K, 3)`` round the prop's hull (mm), to work out what it hides."""
        cx, cy = self.centre
        if self.kind == "mug":
            r, height = self.size[0] * 1.25, self.size[1]
            t = np.linspace(0, 2 * np.pi, samples, endpoint=False)
            ring = np.stack([cx + r * np.cos(t), cy + r * np.sin(t)], axis=1)
        else:
            ring = _box(self.centre, self.angle, self.size[:2])
            height = self.size[2]
        low = np.concatenate([ring, np.zeros((len(ring), 1))], axis=1)
        high = np.concatenate([ring, np.full((len(ring), 1), height)], axis=1)
        return np.concatenate([low, high])


def _box(centre: tuple[float, float], angle: float, size: tuple[float, ...]) -> np.ndarray:
    d = np.array([np.cos(angle), np.sin(angle)]) * size[0] / 2
    p = np.array([-np.sin(angle), np.cos(angle)]) * size[1] / 2
    c = np.asarray(centre, np.float64)
    return np.stack([c - d - p, c - d + p, c + d + p, c + d - p])


@dataclass(frozen=True)
class Arm:
    """A forearm reaching in over the table, from ``start`` (outside the picture) to a
    fist at ``end`` (mm, 3D), ``radius`` thick."""

    start: tuple[float, float, float]
    end: tuple[float, float, float]
    radius: float
    skin: tuple[float, float, float]
    sleeve: tuple[float, float, float]

    def outline(self, samples: int = 12) -> np.ndarray:
        """Points round the arm and fist (mm, 3D), to work out what it hides."""
        a, b = np.asarray(self.start), np.asarray(self.end)
        t = np.linspace(0, 2 * np.pi, samples, endpoint=False)
        pts = []
        for centre, r in ((a, self.radius), (b, self.radius * 1.3)):
            for z in (-r, 0.0, r):
                pts.append(np.stack([centre[0] + r * np.cos(t), centre[1] + r * np.sin(t),
                                     np.full_like(t, centre[2] + z)], axis=1))
        return np.concatenate(pts)


@dataclass
class PhotoScene:
    """Everything needed to render one picture and to label it."""

    seed: int
    index: int
    players: int
    table: dict[str, Any]
    style: SetStyle
    tiles: list[SolidTile]
    markers: list[SolidMarker]
    surface: Surface
    lighting: Lighting
    webcam: Webcam
    finish: Finish
    mat: np.ndarray | None = None  # mat mm -> world mm (3x3), when the mat is down
    props: list[Prop] = field(default_factory=list)
    arms: list[Arm] = field(default_factory=list)

    @property
    def tile_height(self) -> float:
        return self.style.thickness_mm

    @property
    def face_up(self) -> list[SolidTile]:
        return [t for t in self.tiles if not t.face_down]


def scene_rng(seed: int, index: int) -> np.random.Generator:
    """The generator of scene ``index`` of ``seed`` (independent of every other scene)."""
    return np.random.default_rng([int(seed), int(index), 0x70686F74])


def _world(points: np.ndarray, hub: np.ndarray, scale: float, turn: float) -> np.ndarray:
    """Layout millimetres (``y`` towards seat 0) to world millimetres (``y`` away)."""
    p = (np.asarray(points, np.float64) - hub) * scale * [1.0, -1.0]
    c, s = np.cos(turn), np.sin(turn)
    return p @ np.array([[c, s], [-s, c]])


def _laid_table(rng: np.random.Generator, mat: bool,
                inline_doubles: float = 0.0) -> tuple[int, Any]:
    players = int(rng.integers(2, 9))
    n_tiles = int(rng.integers(0, 14 + 4 * players))
    for tries in range(6):
        table = random_table(rng, players, SET_MAX, n_tiles >> (tries // 2), marker_rate=0.35)
        try:
            return players, layout_table(table, players, rng, mat=mat,
                                         inline_doubles=inline_doubles)
        except ValueError:
            continue
    raise ValueError("no table could be laid out")


_MARKER_COLOURS = ((0.8, 0.1, 0.1), (0.1, 0.3, 0.8), (0.1, 0.6, 0.2), (0.9, 0.75, 0.1),
                   (0.5, 0.2, 0.6), (0.95, 0.5, 0.1), (0.1, 0.1, 0.1), (0.9, 0.9, 0.9))


def _boneyard(rng: np.random.Generator, taken: list[np.ndarray], count: int,
              width: float) -> list[SolidTile]:
    """``count`` face-down tiles in a loose heap beside everything ``taken``."""
    pts = np.concatenate(taken)
    side = rng.uniform(0, 2 * np.pi)
    direction = np.array([np.cos(side), np.sin(side)])
    reach = float(np.max(pts @ direction))
    spread = 1.1 * width * np.sqrt(count)
    heap = direction * (reach + spread + width * rng.uniform(1.5, 3))
    out: list[SolidTile] = []
    for _ in range(40 * count):
        if len(out) >= count:
            break
        corners = tile_corners(heap + rng.normal(0, spread / 2, 2), rng.uniform(0, 2 * np.pi),
                               width)
        if not any(overlaps(corners, other, 2.0) for other in taken):
            out.append(SolidTile((0, 0), corners, face_down=True))
            taken.append(corners)
    return out


def _webcam(rng: np.random.Generator, points: np.ndarray, height: float, mat: bool) -> Webcam:
    """A webcam framing every point of ``points`` (N, 2), seat 0 at the bottom edge."""
    w, h = FRAME
    fov = diagonal_to_horizontal(float(rng.uniform(65, 90)), FRAME)
    tilt = float(rng.uniform(14, 28) if rng.random() < 0.25 else abs(rng.normal(0, 5)))
    azimuth = (-90.0 if tilt > 1e-6 else 0.0) + float(rng.normal(0, 2))
    roll = float(rng.normal(0, 1.5))
    k1 = float(rng.uniform(-0.01, 0.09))
    centre = (points.min(0) + points.max(0)) / 2 + rng.normal(0, 8, 2)
    target = (float(centre[0]), float(centre[1]))
    spread = float(np.max(np.linalg.norm(points - centre, axis=1)))
    distance = 0.5 * w / np.tan(np.radians(fov) / 2) * 2 * spread / h * rng.uniform(0.8, 0.95)
    top = np.concatenate([points, np.full((len(points), 1), height)], axis=1)
    base = np.concatenate([points, np.zeros((len(points), 1))], axis=1)
    margin = 0.03 * h
    for _ in range(40):
        cam = Webcam(Camera.look_at(w, h, fov, target, distance, tilt, azimuth, roll), k1)
        seen = np.concatenate([cam.project(top), cam.project(base)])
        inside = (seen.min(0) >= margin).all() and (seen.max(0) <= (w - margin, h - margin)).all()
        if inside:
            return cam
        distance *= 1.05
    return cam


def _props(rng: np.random.Generator, cam: Webcam, taken: list[np.ndarray]) -> list[Prop]:
    """A mug and/or a phone somewhere in view, touching no tile, marker or mat."""
    wanted = [k for k, p in (("mug", 0.35), ("phone", 0.3), ("mug", 0.1)) if rng.random() < p]
    w, h = cam.size
    props: list[Prop] = []
    for kind in wanted:
        for _ in range(60):
            pixel = np.array([[rng.uniform(0.05, 0.95) * w, rng.uniform(0.05, 0.95) * h]])
            centre = cam.camera.image_to_plane(cam.undistort(pixel))[0]
            angle = float(rng.uniform(0, 2 * np.pi))
            if kind == "mug":
                r = float(rng.uniform(38, 45))
                size: tuple[float, ...] = (r, float(rng.uniform(85, 105)))
                foot_size: tuple[float, ...] = (2.6 * r, 2.6 * r)
            else:
                size = (float(rng.uniform(140, 165)), float(rng.uniform(68, 78)), 8.0)
                foot_size = size[:2]
            foot = _box((float(centre[0]), float(centre[1])), angle, foot_size)
            if any(overlaps(foot, other, 25.0) for other in taken):
                continue
            colour = tuple(float(v) for v in rng.uniform(0.05, 0.9, 3))
            props.append(Prop(kind, (float(centre[0]), float(centre[1])), angle, size,
                              (colour[0], colour[1], colour[2])))
            taken.append(foot)
            break
    return props


_SKINS = ((0.80, 0.60, 0.48), (0.62, 0.44, 0.32), (0.42, 0.28, 0.20), (0.90, 0.72, 0.60))


def _arms(rng: np.random.Generator, cam: Webcam) -> list[Arm]:
    """Zero to two forearms reaching in from the picture's edges."""
    n = int(rng.random() < 0.35) + int(rng.random() < 0.12)
    w, h = cam.size
    arms = []
    for _ in range(n):
        edge = int(rng.integers(4))
        along = rng.uniform(0.15, 0.85)
        outside = [(along * w, 1.3 * h), (along * w, -0.3 * h), (-0.3 * w, along * h),
                   (1.3 * w, along * h)][edge]
        reach = rng.uniform(0.12, 0.65)
        inside = [(along * w, (1 - reach) * h), (along * w, reach * h), (reach * w, along * h),
                  ((1 - reach) * w, along * h)][edge]
        start, end = cam.camera.image_to_plane(np.array([outside, inside], np.float64))
        lift = rng.uniform(50, 110)
        skin = _SKINS[int(rng.integers(len(_SKINS)))]
        sleeve = tuple(float(v) for v in rng.uniform(0.05, 0.8, 3))
        arms.append(Arm((float(start[0]), float(start[1]), float(lift + 60)),
                        (float(end[0]), float(end[1]), float(lift)), float(rng.uniform(30, 40)),
                        skin, (sleeve[0], sleeve[1], sleeve[2])))
    return arms


def build_scene(seed: int, index: int, mat: bool | None = None,
                surface: str | None = None, inline_doubles: float = 0.0) -> PhotoScene:
    """Scene ``index`` of ``seed``: the same arguments always give the same scene.

    ``mat`` (default: drawn, half the scenes) lays the table on the printed mat;
    ``surface`` fixes the table top (one of ``looks.SURFACES``); ``inline_doubles``
    lays that share of the doubles in line with their train (0: every one across).
    """
    rng = scene_rng(seed, index)
    on_mat = bool(rng.random() < 0.5) if mat is None else mat
    players, layout = _laid_table(rng, on_mat, inline_doubles)
    style = pick_set_style(rng)
    scale = style.scale
    turn = float(rng.uniform(0, 2 * np.pi)) if on_mat else 0.0
    hub = np.asarray(layout.hub.centre, np.float64)
    tiles = [SolidTile((int(t.values[0]), int(t.values[1])), _world(t.corners, hub, scale, turn))
             for t in layout.tiles]
    markers = [SolidMarker(str(m.kind), _world(m.corners, hub, scale, turn),
                           _MARKER_COLOURS[int(rng.integers(len(_MARKER_COLOURS)))])
               for m in layout.markers]
    mat_matrix = None
    taken = [t.corners for t in tiles] + [m.corners for m in markers]
    if on_mat:
        c, s = np.cos(turn), np.sin(turn)
        to_world = np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]]) @ np.diag(
            [scale, -scale, 1.0]) @ np.array([[1.0, 0.0, -hub[0]], [0.0, 1.0, -hub[1]], [0, 0, 1]])
        mat_matrix = to_world @ layout.hub.mat_matrix
        half = MAT_SIDE_MM / 2
        sheet = np.array([[-half, -half, 1], [half, -half, 1], [half, half, 1], [-half, half, 1]])
        corners = sheet @ mat_matrix.T
        taken.append(corners[:, :2] / corners[:, 2:])
    width = TILE_WIDTH_MM * scale
    if rng.random() < 0.5:
        tiles += _boneyard(rng, taken, int(rng.integers(4, 15)), width)
    points = np.concatenate(taken)
    cam = _webcam(rng, points, style.thickness_mm + 25.0, on_mat)
    centre = (points.min(0) + points.max(0)) / 2
    return PhotoScene(
        seed=seed, index=index, players=players, table=dict(layout.table.to_json()),
        style=style, tiles=tiles, markers=markers, surface=pick_surface(rng, surface),
        lighting=pick_lighting(rng, centre), webcam=cam, finish=pick_finish(rng),
        mat=mat_matrix, props=_props(rng, cam, taken), arms=_arms(rng, cam),
    )


def tile_length(scene: PhotoScene) -> float:
    return TILE_LENGTH_MM * scene.style.scale
