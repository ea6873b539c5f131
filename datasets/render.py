"""Render labelled scenes: a seed in, an image and its label JSON out.

Kinds (see docs/DESIGN.md): ``hands`` (loose tiles, rows of tiles),
``table`` (a Mexican Train table round a hub), ``table-mat`` (the same on
the printed hub mat), ``closeup`` (one to three tiles filling the frame, like
a photo or crop of a single tile); the crop kinds (``crops``, ``crops-table``,
``crops-high``, ``crops-covered``) are cut from these scenes by
:mod:`datasets.crop_sets`. Every image ``index`` of a seed has its own random
generator, so the same seed always gives the same files.
"""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np

from datasets.box_jitter import detector_jitter, jitter_corners
from datasets.camera import Camera
from datasets.painter import Painter
from datasets.props import draw_arm, draw_clutter, draw_marker
from datasets.scene import RenderedMarker, RenderedTile, Scene
from datasets.surfaces import pick_surface, webcam
from datasets.table_scene import (
    PlaneMarker,
    PlaneScene,
    PlaneTile,
    hands_objects,
    overlaps,
    pick_set_size,
    random_values,
    table_objects,
    tile_corners,
)
from datasets.textures import TileStyle
from vision.models.crops import half_polygons

__all__ = [
    "CROP_KINDS", "KINDS", "SIZES", "SURFACE_KINDS", "RenderedMarker", "RenderedTile", "Scene",
    "add_boneyard", "detector_jitter", "jitter_corners", "render", "render_closeup",
    "render_empty", "render_hands", "render_table", "scene_rng",
]

#: Scenes on a surface people play on (``datasets.surfaces``): a table, loose tiles, or
#: the surface with no domino on it.
SURFACE_KINDS = ("table-surface", "hands-surface", "surface-empty")
KINDS = ("hands", "table", "table-mat", "closeup", "hands-face-down", "table-boneyard",
         *SURFACE_KINDS, "crops", "crops-table", "crops-high", "crops-covered")
#: The kinds that write half-tile crops (the pip model's data) rather than scenes.
CROP_KINDS = ("crops", "crops-table", "crops-high", "crops-covered")

#: Output sizes (width, height), all with a long side of 1280 (webcam frames and
#: phone photos are all shrunk to the detector's input size anyway).
SIZES = [((1280, 720), 0.55), ((1280, 960), 0.15), ((720, 1280), 0.15), ((1280, 622), 0.15)]


def scene_rng(seed: int, index: int) -> np.random.Generator:
    """The generator of image ``index`` of ``seed`` (independent of every other image)."""
    return np.random.default_rng([int(seed), int(index), 0x6D7472])


# --------------------------------------------------------------------------- cameras


def _pick_size(rng: np.random.Generator) -> tuple[int, int]:
    sizes, weights = zip(*SIZES, strict=True)
    return sizes[int(rng.choice(len(sizes), p=np.array(weights) / sum(weights)))]


def _camera_for(
    rng: np.random.Generator, size: tuple[int, int], oblique: bool, distance: float
) -> Camera:
    tilt = rng.uniform(25, 55) if oblique else abs(rng.normal(0, 8))
    return Camera.look_at(
        size[0],
        size[1],
        fov_deg=float(rng.uniform(55, 75)),
        target=(0.0, 0.0),
        distance=distance,
        tilt_deg=float(tilt),
        azimuth_deg=float(rng.uniform(0, 360)),
        roll_deg=float(rng.normal(0, 4)),
    )


def _plane_region(cam: Camera, margin: float = 0.04) -> np.ndarray:
    w, h = cam.width, cam.height
    m = margin * min(w, h)
    px = np.array([[m, m], [w - m, m], [w - m, h - m], [m, h - m]], float)
    return cam.image_to_plane(px)


# --------------------------------------------------------------------------- painting


def _visible_fraction(occluder: np.ndarray, poly: np.ndarray) -> float:
    h, w = occluder.shape
    x0, y0 = np.floor(poly.min(0)).astype(int)
    x1, y1 = np.ceil(poly.max(0)).astype(int) + 1
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
    if x1 <= x0 or y1 <= y0:
        return 0.0
    m = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.fillConvexPoly(m, cv2.convexHull((poly - [x0, y0]).astype(np.int32)), 1)
    total = int(m.sum())
    if total == 0:
        return 0.0
    hidden = int(((occluder[y0:y1, x0:x1] > 127) & (m > 0)).sum())
    return 1 - hidden / total


def _paint(
    plane: PlaneScene,
    cam: Camera,
    rng: np.random.Generator,
    width_mm: float,
    kind: str,
    arms: int,
    steady: int | None = None,
    surface: str | None = None,
    style: TileStyle | None = None,
) -> Scene:
    """Paint ``plane`` through ``cam``. With ``steady`` (a seed), each tile's look
    and the finishing light, blur and noise come from ``steady`` and the tile's
    values alone, not from what else is on the table: successive frames of one
    game, each painted anew, then show a tile that has not moved the same way.
    With ``surface`` (``datasets.surfaces.SURFACES``) the table top is that surface
    and the frame comes out as a webcam streams it (``datasets.surfaces.webcam``).
    ``style``: the set's look (None: one drawn from ``rng``)."""
    style = TileStyle.random(rng) if style is None else style
    painter = Painter(cam, rng, style, surface)
    if "mat" in plane.extras:
        painter.mat(*plane.extras["mat"])
    height = style.thickness * width_mm
    for t in plane.tiles:
        painter.cast_shadow(t.corners, height)
    for m in plane.markers:
        painter.cast_shadow(
            m.centre
            + m.size
            / 2
            * np.array([[np.cos(a), np.sin(a)] for a in np.linspace(0, 2 * np.pi, 12)]),
            m.size,
        )
    tile_px = float(
        np.linalg.norm(
            cam.project(np.array([[0.0, 0.0], [width_mm, 0.0]]))[1]
            - cam.project(np.array([[0.0, 0.0]]))[0]
        )
    )
    painter.apply_shadows(max(1.5, 0.2 * tile_px))
    if plane.hub is not None:
        painter.hub(*plane.hub)
    region = plane.extras.get("region")
    if region is not None and rng.random() < 0.35:
        draw_clutter(painter, region, width_mm)
    objects: list[tuple[float, int, Any]] = []
    for i, t in enumerate(plane.tiles):
        c = t.corners.mean(0)
        objects.append((-float(cam.depth(np.array([c[0], c[1], 0.0]))[0]), i, t))
    for j, m in enumerate(plane.markers):
        objects.append(
            (
                -float(cam.depth(np.array([m.centre[0], m.centre[1], 0.0]))[0]),
                len(plane.tiles) + j,
                m,
            )
        )
    objects.sort(key=lambda o: (o[0], o[1]))
    tiles: list[RenderedTile] = [None] * len(plane.tiles)  # type: ignore[list-item]
    markers: list[RenderedMarker] = []
    for _, i, obj in objects:
        if isinstance(obj, PlaneMarker):
            markers.append(draw_marker(painter, obj))
        else:
            if steady is not None:
                painter.rng = np.random.default_rng([steady, *sorted(obj.values)])
            tiles[i] = painter.tile(obj.values, obj.corners, width_mm, obj.face_down)
            painter.rng = rng
    for _ in range(arms):
        draw_arm(painter)
    for drawn in tiles:
        drawn.visible = _visible_fraction(painter.occluder, drawn.corners)
        drawn.pip_visible = (
            [bool(_visible_fraction(painter.occluder, poly) > 0.5) for _, poly in drawn.pips]
            if drawn.visible < 1
            else [True] * len(drawn.pips)
        )
        if drawn.visible < 1:
            first, second = half_polygons(drawn.corners)
            drawn.half_visible = (_visible_fraction(painter.occluder, first),
                                  _visible_fraction(painter.occluder, second))
    image = painter.finish(rng if steady is None else np.random.default_rng([steady, 1 << 20]))
    if surface is not None:
        image = webcam(image, rng)
    return Scene(
        image=image,
        kind=kind,
        set_size=plane.set_size,
        tiles=[t for t in tiles if not t.face_down],
        markers=markers,
        table=plane.table,
        face_down=[t for t in tiles if t.face_down],
    )


def _inside(points: np.ndarray, w: int, h: int, margin: float = 1.0) -> bool:
    return bool(
        np.all(
            (points[:, 0] >= margin)
            & (points[:, 0] <= w - 1 - margin)
            & (points[:, 1] >= margin)
            & (points[:, 1] <= h - 1 - margin)
        )
    )


def render_hands(
    rng: np.random.Generator,
    size: tuple[int, int] | None = None,
    tile_px: tuple[float, float] = (55, 260),
    arms: int | None = None,
    face_down: int = 0,
    surface: str | None = None,
    style: TileStyle | None = None,
) -> Scene:
    """Loose tiles on a table, seen from above or at an angle; ``arms`` reaching over
    them (``None``: none, one or two, drawn); ``face_down`` of them (at most) lying face
    down (``Scene.face_down``); on ``surface`` (``datasets.surfaces``), through a webcam;
    ``style`` the set's look (None: drawn). Without these the scene is drawn as it
    always was."""
    size = size or _pick_size(rng)
    width_mm = float(rng.uniform(21, 26))
    oblique = rng.random() < 0.3
    fov_probe = Camera.look_at(size[0], size[1], 65, (0, 0), 1000, 0, 0)
    length_px = rng.uniform(*tile_px)
    distance = fov_probe.focal * 2 * width_mm / length_px * (0.8 if oblique else 1.0)
    cam = _camera_for(rng, size, oblique, distance)
    region = _plane_region(cam)
    # keep oblique scenes from running off to the horizon: at most 12 tile widths either
    # way from the point the camera looks at (the region's own middle lies far out
    # where its far corners run towards the horizon)
    region = np.clip(region, -12 * width_mm, 12 * width_mm)
    set_size = pick_set_size(rng)
    plane = hands_objects(rng, region, width_mm, int(rng.integers(1, 19)), set_size)
    plane = _keep_inside(plane, cam, width_mm)
    plane.extras["region"] = region
    if arms is None:
        arms = int(rng.random() < 0.3) + int(rng.random() < 0.1)
    if face_down and plane.tiles:
        turn = rng.choice(len(plane.tiles), min(face_down, len(plane.tiles)), replace=False)
        for i in turn:
            plane.tiles[int(i)].face_down = True
    return _paint(plane, cam, rng, width_mm, "hands", arms, surface=surface, style=style)


def render_closeup(rng: np.random.Generator, size: tuple[int, int] | None = None) -> Scene:
    """One tile (or two or three laid side by side) filling most of the frame: a phone
    photo of a single tile, or a tight crop of one."""
    size = size or _pick_size(rng)
    width_mm = float(rng.uniform(21, 26))
    oblique = rng.random() < 0.2
    set_size = pick_set_size(rng)
    used: set[tuple[int, int]] = set()
    n = 1 if rng.random() < 0.6 else int(rng.integers(2, 4))
    gap = float(rng.uniform(0.0, 3.0))
    # tiles side by side along the plane's y axis, their long axes along x
    centres = [np.array([0.0, (i - (n - 1) / 2) * (width_mm + gap)]) for i in range(n)]
    tiles = [
        PlaneTile(
            random_values(set_size, rng, used),
            tile_corners(
                c + rng.normal(0, 0.3, 2),
                (np.pi if rng.random() < 0.5 else 0.0) + rng.normal(0, 0.015),
                width_mm,
            ),
        )
        for c in centres
    ]
    pts = np.concatenate([t.corners for t in tiles])
    fill = float(rng.uniform(0.6, 0.97))
    fov = float(rng.uniform(55, 75))
    tilt = float(rng.uniform(20, 40) if oblique else abs(rng.normal(0, 5)))
    # mostly with the tile's long side along the image's long side, as crops are taken
    aligned = rng.random() < 0.7
    roll = float(rng.normal(0, 4)) if aligned else float(rng.uniform(0, 360))
    azimuth = float(rng.uniform(0, 360))
    probe = Camera.look_at(size[0], size[1], fov, (0.0, 0.0), 1000.0, 0.0, 0.0)
    extent = float(np.ptp(pts, axis=0).max())
    distance = probe.focal * extent / (fill * max(size))
    cam = Camera.look_at(size[0], size[1], fov, (0.0, 0.0), distance, tilt, azimuth, roll)
    if aligned:  # turn the tiles in the plane so their long axis runs along the image's
        want = 0.0 if size[0] >= size[1] else np.pi / 2
        a, b = cam.project(np.array([[0.0, 0.0, 0.0], [10.0, 0.0, 0.0]]))
        turn = want - float(np.arctan2(b[1] - a[1], b[0] - a[0]))
        jitter = float(rng.normal(0, 0.05))
        for sign in (1.0, -1.0):  # the plane may be seen mirrored
            t = sign * turn + jitter
            rot = np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]])
            a, b = cam.project(np.array([[0.0, 0.0, 0.0], [*(rot @ [10.0, 0.0]), 0.0]]))
            off = (float(np.arctan2(b[1] - a[1], b[0] - a[0])) - want) % np.pi
            if min(off, np.pi - off) < 0.3:
                break
        for tile in tiles:
            tile.corners = tile.corners @ rot.T
        pts = pts @ rot.T
    for _ in range(25):  # step back until every tile shows whole
        cam = Camera.look_at(size[0], size[1], fov, (0.0, 0.0), distance, tilt, azimuth, roll)
        top = cam.project(np.concatenate([pts, np.full((len(pts), 1), 0.5 * width_mm)], 1))
        if _inside(top, size[0], size[1], 0.02 * min(size)):
            break
        distance *= 1.08
    plane = PlaneScene(tiles=tiles, markers=[], set_size=set_size)
    plane = _keep_inside(plane, cam, width_mm)
    plane.extras["region"] = _plane_region(cam, 0.0)
    return _paint(plane, cam, rng, width_mm, "closeup", int(rng.random() < 0.1))


def _keep_inside(plane: PlaneScene, cam: Camera, width_mm: float) -> PlaneScene:
    """Drop objects whose top face would leave the image."""

    def ok(corners: np.ndarray, z: float) -> bool:
        pts = cam.project(np.concatenate([corners, np.full((len(corners), 1), z)], 1))
        base = cam.project(np.concatenate([corners, np.zeros((len(corners), 1))], 1))
        return _inside(pts, cam.width, cam.height, 2) and _inside(base, cam.width, cam.height, 2)

    tiles = [t for t in plane.tiles if ok(t.corners, 0.45 * width_mm)]
    markers = [
        m
        for m in plane.markers
        if ok(m.centre + m.size * np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]]), m.size * 2)
    ]
    plane.tiles, plane.markers = tiles, markers
    return plane


def add_boneyard(plane: PlaneScene, count: int, width_mm: float,
                 rng: np.random.Generator) -> None:
    """Lay ``count`` face-down tiles (the boneyard) in a loose heap beside the layout,
    on a side drawn at random, touching none of its tiles or markers."""
    pts = np.concatenate([t.corners for t in plane.tiles] + [m.centre[None] for m in plane.markers])
    lo, hi = pts.min(0), pts.max(0)
    centre_of_play = (lo + hi) / 2
    side = rng.uniform(0, 2 * np.pi)
    direction = np.array([np.cos(side), np.sin(side)])
    reach = float(np.max(np.abs((pts - centre_of_play) @ direction)))
    spread = 1.2 * width_mm * np.sqrt(count)
    heap = centre_of_play + direction * (reach + spread + width_mm * rng.uniform(1, 3))
    taken = [t.corners for t in plane.tiles] + [
        tile_corners(m.centre, m.angle, m.size / 2) for m in plane.markers]
    laid = 0
    for _ in range(40 * count):
        if laid >= count:
            break
        c = heap + rng.normal(0, spread / 2, 2)
        corners = tile_corners(c, rng.uniform(0, 2 * np.pi), width_mm)
        if any(overlaps(corners, other, 1.0) for other in taken):
            continue
        plane.tiles.append(PlaneTile((0, 0), corners, face_down=True))
        taken.append(corners)
        laid += 1


def render_table(
    rng: np.random.Generator, size: tuple[int, int] | None = None, mat: bool = False,
    boneyard: int = 0, surface: str | None = None, style: TileStyle | None = None,
) -> Scene:
    """A Mexican Train table seen by a webcam above it (sometimes at an angle); with
    ``mat``, laid out on the printed hub mat; with ``boneyard``, that many tiles lying
    face down beside the layout (``Scene.face_down``); with ``surface``
    (``datasets.surfaces``), laid on it and streamed by a webcam; ``style`` the set's
    look (None: drawn). Without these the scene is drawn as it always was."""
    size = size or ((1280, 720) if rng.random() < 0.7 else _pick_size(rng))
    width_mm = float(rng.uniform(21, 26))
    plane = table_objects(rng, width_mm, mat)
    if boneyard:
        add_boneyard(plane, boneyard, width_mm, rng)
    pts = np.concatenate([t.corners for t in plane.tiles] + [m.centre[None] for m in plane.markers])
    oblique = rng.random() < 0.2
    centre = pts.mean(0) if rng.random() < 0.5 else (pts.min(0) + pts.max(0)) / 2
    centre = centre + rng.normal(0, 0.05, 2) * (pts.max(0) - pts.min(0))
    extent = float(np.max(np.linalg.norm(pts - centre, axis=1))) + 2 * width_mm
    fov = float(rng.uniform(55, 75))
    tilt = float(rng.uniform(20, 45) if oblique else abs(rng.normal(0, 6)))
    azimuth, roll = float(rng.uniform(0, 360)), float(rng.normal(0, 3))
    if plane.extras.get("seat0_down"):  # seat 0's side of the table at the bottom of the image
        azimuth = (-90.0 if tilt > 1e-6 else 0.0) + float(rng.normal(0, 2))
    probe = Camera.look_at(size[0], size[1], fov, (0, 0), 1000, 0, 0)
    distance = probe.focal * 2 * extent / (min(size) * rng.uniform(0.8, 1.05))
    # a webcam frames the play area, not the tiles: its short side sees 0.4-0.9 m
    framed = probe.focal * rng.uniform(400, 900) * width_mm / 24 / min(size)
    if rng.random() < 0.75:
        distance = max(distance, framed)
    target = (float(centre[0]), float(centre[1]))
    for _ in range(15):  # zoom out until the whole layout shows
        cam = Camera.look_at(size[0], size[1], fov, target, distance, tilt, azimuth, roll)
        proj = cam.project(np.concatenate([pts, np.full((len(pts), 1), 0.5 * width_mm)], 1))
        if _inside(proj, size[0], size[1], 0.02 * min(size)):
            break
        distance *= 1.1
    plane = _keep_inside(plane, cam, width_mm)
    plane.extras["region"] = _plane_region(cam, 0.0)
    arms = int(rng.random() < 0.35) + int(rng.random() < 0.15)
    return _paint(plane, cam, rng, width_mm, "table-mat" if mat else "table", arms,
                  surface=surface, style=style)


def render_empty(rng: np.random.Generator, surface: str,
                 size: tuple[int, int] | None = None) -> Scene:
    """A webcam frame of ``surface`` with no domino on it (sometimes cards, a cup or an
    arm): every tile a reader finds there is a phantom."""
    size = size or _pick_size(rng)
    oblique = rng.random() < 0.3
    cam = _camera_for(rng, size, oblique, float(rng.uniform(450, 1100)))
    plane = PlaneScene(tiles=[], markers=[], set_size=pick_set_size(rng))
    plane.extras["region"] = np.clip(_plane_region(cam), -300.0, 300.0)
    arms = int(rng.random() < 0.2)
    return _paint(plane, cam, rng, float(rng.uniform(21, 26)), "empty", arms, surface=surface)


def render(kind: str, rng: np.random.Generator) -> Scene:
    """One scene of ``kind`` (``hands``, ``table``, ``table-mat``, ``closeup``; or
    ``hands-face-down``, hands with one to four tiles face down, and ``table-boneyard``,
    a table with a boneyard of 6 to 24 tiles beside it; or one of ``SURFACE_KINDS``, on
    a surface drawn from ``datasets.surfaces.SURFACES``, through a webcam)."""
    if kind == "hands":
        return render_hands(rng)
    if kind == "table":
        return render_table(rng)
    if kind == "table-mat":
        return render_table(rng, mat=True)
    if kind == "closeup":
        return render_closeup(rng)
    if kind == "hands-face-down":
        return render_hands(rng, face_down=int(rng.integers(1, 5)))
    if kind == "table-boneyard":
        return render_table(rng, boneyard=int(rng.integers(6, 25)))
    if kind in SURFACE_KINDS:
        surface = pick_surface(rng)
        if kind == "surface-empty":
            return render_empty(rng, surface)
        return (render_table if kind == "table-surface" else render_hands)(rng, surface=surface)
    raise ValueError(f"unknown scene kind {kind!r}")
