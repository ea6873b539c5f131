"""Pictures of a table's layouts from one fixed camera straight above it.

- :func:`render_tables` pictures each layout once (the generator's painter when it
  can draw a layout, else :func:`draw_layout`), with the hub mat laid under the
  tiles when the layout has one (:func:`composite_mat`);
- :class:`OverheadView` is that camera for the generator's painter;
- :func:`boneyard_tiles` places face-down tiles in a heap beside the layouts.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from datasets.table_layout import TableLayout
from vision.mat.geometry import apply_homography

FRAME_SIZE = (1280, 720)

#: Pip positions on a half (unit square, 0..1), for values 0..12 (simple layouts).
_PIPS: dict[int, list[tuple[float, float]]] = {
    0: [], 1: [(.5, .5)], 2: [(.25, .25), (.75, .75)], 3: [(.25, .25), (.5, .5), (.75, .75)],
    4: [(.25, .25), (.75, .25), (.25, .75), (.75, .75)],
    5: [(.25, .25), (.75, .25), (.5, .5), (.25, .75), (.75, .75)],
    6: [(.25, .2), (.75, .2), (.25, .5), (.75, .5), (.25, .8), (.75, .8)],
}
for _v in range(7, 19):
    _cols = 3 if _v > 9 else 2
    _rows = math.ceil(_v / _cols)
    _PIPS[_v] = [((c + .5) / _cols, (r + .5) / _rows) for r in range(_rows) for c in range(_cols)
                 ][:_v]
_KIND_COLOUR = {"coin": (40, 170, 210), "toy-train": (40, 40, 200), "pawn": (200, 60, 60)}


def _extent(layouts: Sequence[TableLayout],
            area_mm: tuple[float, float, float, float] | None) -> tuple[np.ndarray, np.ndarray]:
    """Lowest and highest table mm of every layout's tiles and markers (and of ``area_mm``);
    a bare table's layout frames nothing."""
    pts = np.concatenate([np.concatenate([t.corners for t in lay.tiles]
                                         + [m.corners for m in lay.markers])
                          for lay in layouts if lay.tiles or lay.markers]
                         or [np.zeros((1, 2))])
    lo, hi = pts.min(axis=0), pts.max(axis=0)
    if area_mm is not None:
        lo = np.minimum(lo, np.asarray(area_mm[:2], float))
        hi = np.maximum(hi, np.asarray(area_mm[2:], float))
    return lo, hi


@dataclass(frozen=True)
class OverheadView:
    """One fixed camera straight above the table (60° field of view) framing the table
    mm from ``lo`` to ``hi`` in a ``size`` frame, seat 0 at the bottom."""

    camera: Any  # datasets.camera.Camera
    origin: np.ndarray

    @classmethod
    def framing(cls, lo: np.ndarray, hi: np.ndarray, size: tuple[int, int]) -> OverheadView:
        from datasets.camera import Camera

        fov = 60.0
        probe = Camera.look_at(size[0], size[1], fov, (0.0, 0.0), 1000.0, 0.0, 0.0)
        half = (hi - lo) / 2
        distance = probe.focal * max(half[0] / (0.5 * size[0]), half[1] / (0.5 * size[1]))
        return cls(Camera.look_at(size[0], size[1], fov, (0.0, 0.0), distance, 0.0, 0.0),
                   (lo + hi) / 2)

    def plane(self, points: Any) -> np.ndarray:
        """Table mm as the generator's plane has them (y up; ours y towards seat 0)."""
        return (np.asarray(points, float) - self.origin) * np.array([1.0, -1.0])

    @property
    def table_to_plane(self) -> np.ndarray:
        """:meth:`plane` as a homography."""
        return np.array([[1.0, 0.0, -self.origin[0]], [0.0, -1.0, self.origin[1]],
                         [0.0, 0.0, 1.0]])

    @property
    def table_to_image(self) -> np.ndarray:
        """The homography table mm -> pixels."""
        return np.asarray(self.camera.plane_homography() @ self.table_to_plane)

    def scene(self, layout: TableLayout, backs: Sequence[np.ndarray] = ()) -> Any:
        """``layout`` (and face-down ``backs``) as the generator's painter takes it."""
        from datasets.table_scene import PlaneMarker, PlaneScene, PlaneTile

        markers = []
        for m in layout.markers:
            c = self.plane(m.corners)
            edge = c[1] - c[0]
            markers.append(PlaneMarker(kind=str(m.kind), centre=c.mean(axis=0),
                                       angle=float(np.arctan2(edge[1], edge[0])),
                                       size={"coin": 23.0, "toy-train": 40.0, "pawn": 18.0}
                                       .get(str(m.kind), 20.0)))
        return PlaneScene(tiles=[PlaneTile((int(t.values[0]), int(t.values[1])),
                                           self.plane(t.corners)) for t in layout.tiles]
                          + [PlaneTile((0, 0), self.plane(b), face_down=True) for b in backs],
                          markers=markers, hub=None, table=None, set_size=12)


def framing(layouts: Sequence[TableLayout], size: tuple[int, int] = FRAME_SIZE,
            margin_mm: float = 40.0,
            area_mm: tuple[float, float, float, float] | None = None) -> np.ndarray:
    """A homography table mm -> pixels of a camera straight above that frames every layout.

    ``area_mm`` ``(x0, y0, x1, y1)``: frame at least that part of the table too.
    """
    lo, hi = _extent(layouts, area_mm)
    x0, y0 = lo - margin_mm
    x1, y1 = hi + margin_mm
    scale = min(size[0] / (x1 - x0), size[1] / (y1 - y0))
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    return np.array([[scale, 0, size[0] / 2 - scale * cx],
                     [0, scale, size[1] / 2 - scale * cy], [0, 0, 1]], dtype=np.float64)


def draw_layout(layout: TableLayout, to_image: np.ndarray, size: tuple[int, int] = FRAME_SIZE,
                cloth: tuple[int, int, int] = (55, 105, 50)) -> np.ndarray:
    """A plain top-down picture of a layout: ivory tiles, black pips, coloured markers."""
    w, h = size
    img = np.empty((h, w, 3), np.uint8)
    img[:] = cloth
    yy, xx = np.mgrid[0:h, 0:w]
    weave = (((xx // 7 + yy // 5) % 3 - 1) * 3)[..., None]
    img = np.clip(img.astype(np.int16) + weave, 0, 255).astype(np.uint8)
    for tile in layout.tiles:
        pts = apply_homography(to_image, tile.corners)
        cv2.fillPoly(img, [np.round(pts * 4).astype(np.int32)], (226, 236, 240), cv2.LINE_AA, 2)
        cv2.polylines(img, [np.round(pts * 4).astype(np.int32)], True, (90, 90, 90), 1,
                      cv2.LINE_AA, 2)
        c = tile.corners
        mid0, mid1 = (c[0] + c[3]) / 2, (c[1] + c[2]) / 2
        line = apply_homography(to_image, np.array([mid0, mid1]))
        cv2.line(img, tuple(np.round(line[0] * 4).astype(int)),
                 tuple(np.round(line[1] * 4).astype(int)), (70, 70, 70), 1, cv2.LINE_AA, 2)
        scale = float(np.linalg.norm(pts[1] - pts[0])) / 24.0
        radius = max(1.0, 1.9 * scale)
        for half, value in enumerate(tile.values):
            a, b = (c[0], c[1]) if half == 0 else (c[2], c[3])
            e0, e1 = (c[3], c[2]) if half == 0 else (c[1], c[0])
            for u, v in _PIPS.get(int(value), []):
                # u across the tile, v from the end towards the middle
                edge = a + (b - a) * (0.15 + 0.7 * u)
                inner = e0 + (e1 - e0) * (0.15 + 0.7 * u)
                mid = (edge + inner) / 2
                p = edge + (mid - edge) * (0.18 + 0.64 * v)
                q = apply_homography(to_image, p)
                cv2.circle(img, tuple(np.round(q * 4).astype(int)), int(round(radius * 4)),
                           (25, 25, 25), -1, cv2.LINE_AA, 2)
    for marker in layout.markers:
        pts = apply_homography(to_image, marker.corners)
        colour = _KIND_COLOUR.get(marker.kind, (0, 0, 200))
        if marker.kind == "toy-train":
            cv2.fillPoly(img, [np.round(pts * 4).astype(np.int32)], colour, cv2.LINE_AA, 2)
        else:
            centre = pts.mean(axis=0)
            r = float(np.linalg.norm(pts[0] - pts[2])) / 2.6
            cv2.circle(img, tuple(np.round(centre * 4).astype(int)), int(r * 4), colour, -1,
                       cv2.LINE_AA, 2)
    return img


@dataclass
class Shown:
    """One table as pictured: the image and what a perfect reader would report on it."""

    image: np.ndarray
    tiles: list[tuple[tuple[int, int], np.ndarray]]
    markers: np.ndarray  # (M, 4, 2)
    renderer: str = "simple drawing"


def composite_mat(image: np.ndarray, table_to_image: np.ndarray, layout: TableLayout,
                  on_top: Sequence[np.ndarray], px_per_mm: float = 3.0) -> None:
    """Lay the printed hub mat under the picture's tiles and markers (in place).

    ``on_top`` are the image polygons (tiles, markers) that hide the mat.
    """
    from vision.mat.geometry import MAT_SIDE_MM
    from vision.mat.hub_mat import mat_image

    sheet = mat_image(layout.hub.players, px_per_mm)
    half = MAT_SIDE_MM / 2
    px_to_mat = np.array([[1 / px_per_mm, 0, -half], [0, 1 / px_per_mm, -half], [0, 0, 1]])
    warp = table_to_image @ layout.hub.mat_matrix @ px_to_mat
    h, w = image.shape[:2]
    flat = cv2.warpPerspective(sheet, warp, (w, h), flags=cv2.INTER_AREA,
                               borderValue=(0, 0, 0))
    area = cv2.warpPerspective(np.full(sheet.shape[:2], 255, np.uint8), warp, (w, h),
                               flags=cv2.INTER_NEAREST)
    for poly in on_top:
        grown = np.asarray(poly, float)
        grown = grown.mean(axis=0) + 1.08 * (grown - grown.mean(axis=0))
        cv2.fillPoly(area, [np.round(grown).astype(np.int32)], 0)
    shade = image.astype(np.float32).mean(axis=2, keepdims=True) / 255.0  # keep the lighting
    lit = np.clip(flat.astype(np.float32) * (0.55 + 0.6 * shade), 0, 255).astype(np.uint8)
    mask = area > 0
    image[mask] = lit[mask]


def render_tables(layouts: Sequence[TableLayout], size: tuple[int, int] = FRAME_SIZE,
                  style_seed: int = 0, renderer: str = "generator",
                  area_mm: tuple[float, float, float, float] | None = None,
                  boneyard: int = 0) -> list[Shown]:
    """Picture every layout from one fixed camera straight above the table.

    ``renderer`` ``"generator"`` uses the synthetic generator's painter (tile
    style, shadows, lighting as in the training images) when it is there,
    else (or with ``"simple"``) :func:`draw_layout`. The camera frames every
    layout's tiles and markers, and ``area_mm`` ``(x0, y0, x1, y1)`` when given.
    ``boneyard`` (the generator's painter only): that many tiles lying face down in a
    heap beside the layouts, the same in every picture (``boneyard_tiles``).
    """
    if renderer == "generator":
        try:
            return _render_with_generator(layouts, size, style_seed, area_mm, boneyard)
        except (ImportError, AttributeError, TypeError):  # the generator's internals moved
            pass
    to_image = framing(layouts, size, area_mm=area_mm)
    out = []
    for layout in layouts:
        image = draw_layout(layout, to_image, size)
        tiles = [(t.values, apply_homography(to_image, t.corners)) for t in layout.tiles]
        markers = np.array([apply_homography(to_image, m.corners) for m in layout.markers])
        if layout.hub.mat:
            composite_mat(image, to_image, layout, [c for _, c in tiles] + list(markers))
        out.append(Shown(image, tiles, markers.reshape(-1, 4, 2)))
    return out


def boneyard_tiles(layouts: Sequence[TableLayout], count: int,
                   seed: int = 0) -> list[np.ndarray]:
    """The corners (table mm) of ``count`` tiles lying face down in a loose heap to the
    right of every layout's tiles and markers, touching none of them or each other."""
    from datasets.table_scene import overlaps, tile_corners

    lo, hi = _extent(layouts, None)
    width = 24.0
    spread = 1.2 * width * np.sqrt(count)
    heap = np.array([hi[0] + spread + 2 * width, (lo[1] + hi[1]) / 2])
    rng = np.random.default_rng([seed, count])
    laid: list[np.ndarray] = []
    for _ in range(40 * count):
        if len(laid) >= count:
            break
        corners = tile_corners(heap + rng.normal(0, spread / 2, 2), rng.uniform(0, np.pi), width)
        if corners[:, 0].min() > hi[0] + width and not any(
                overlaps(corners, other, 1.0) for other in laid):
            laid.append(corners)
    return laid


def _render_with_generator(layouts: Sequence[TableLayout], size: tuple[int, int],
                           style_seed: int,
                           area_mm: tuple[float, float, float, float] | None = None,
                           boneyard: int = 0) -> list[Shown]:
    """The generator's painter (``datasets.render``), one fixed overhead camera, seat 0 down."""
    from datasets import render

    backs = boneyard_tiles(layouts, boneyard, style_seed) if boneyard else []
    if backs:
        pts = np.concatenate(backs)
        heap = (float(pts[:, 0].min()), float(pts[:, 1].min()),
                float(pts[:, 0].max()), float(pts[:, 1].max()))
        area_mm = heap if area_mm is None else (
            min(area_mm[0], heap[0]), min(area_mm[1], heap[1]),
            max(area_mm[2], heap[2]), max(area_mm[3], heap[3]))
    lo, hi = _extent(layouts, area_mm)
    view = OverheadView.framing(lo - 40.0, hi + 40.0, size)
    out = []
    for lay in layouts:
        scene = view.scene(lay, backs)
        painted = render._paint(scene, view.camera, np.random.default_rng(style_seed), 24.0,
                                "table", 0, steady=style_seed)
        tiles = [(t.values, np.asarray(t.corners, float)) for t in painted.tiles]
        if lay.hub.mat:
            keep = [c for _, c in tiles] + [np.asarray(m.corners, float) for m in painted.markers]
            composite_mat(painted.image, view.table_to_image, lay, keep)
        marker_corners = np.array([np.asarray(m.corners, float) for m in painted.markers])
        out.append(Shown(painted.image, tiles, marker_corners.reshape(-1, 4, 2),
                         "generator (datasets.render)"))
    return out
