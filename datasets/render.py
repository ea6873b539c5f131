"""Render labelled scenes: a seed in, an image and its label JSON out.

Kinds (see docs/DESIGN.md): ``hands`` (loose tiles, rows of tiles),
``table`` (a Mexican Train table round a hub), ``table-mat`` (the same on
the printed hub mat), ``closeup`` (one to three tiles filling the frame, like
a photo or crop of a single tile), ``crops`` (half-tile crops cut by
:func:`vision.crops.half_crops` from rendered scenes with jittered corners,
the pip model's training data) and ``crops-table`` (the same from webcam-sized
tables and small hands, JPEG-compressed, cut with the larger errors a tile
detector makes on small tiles); ``crops-high`` is ``crops-table`` with only the
halves of 9 pips or more (the blurred 10-12 halves the pip model misses most);
``crops-covered`` (half crops of hands scenes with an arm over them, each labelled
``covered`` when a hand hides part of its face, the cover check's training data).
Every image ``index`` of a seed has its own random generator, so the same seed
always gives the same files.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from datasets.camera import Camera
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
from datasets.textures import TileStyle, background, render_back, render_face
from vision.crops import HALF_PX, half_crops, half_polygons

KINDS = ("hands", "table", "table-mat", "closeup", "hands-face-down", "table-boneyard", "crops",
         "crops-table", "crops-high", "crops-covered")
#: The kinds that write half-tile crops (the pip model's data) rather than scenes.
CROP_KINDS = ("crops", "crops-table", "crops-high", "crops-covered")
#: ``crops-covered``: a half whose face shows less than this is ``covered``...
COVERED_BELOW = 0.9
#: ... and one that shows at least this is open; halves in between are not written.
OPEN_FROM = 0.995
#: ``crops-covered`` keeps an open half with this chance (most halves are open).
OPEN_KEPT = 0.12
#: ``crops-high`` keeps only the halves of at least this many pips.
HIGH_PIPS = 9

#: Output sizes (width, height), all with a long side of 1280 (webcam frames and
#: phone photos are all shrunk to the detector's input size anyway).
SIZES = [((1280, 720), 0.55), ((1280, 960), 0.15), ((720, 1280), 0.15), ((1280, 622), 0.15)]


@dataclass
class RenderedTile:
    values: tuple[int, int]
    corners: np.ndarray  # (4, 2) image pixels, top face, first two at the a end
    pips: list[tuple[int, np.ndarray]]  # (half, polygon (K, 2) in image pixels)
    visible: float = 1.0
    pip_visible: list[bool] = field(default_factory=list)
    #: The share of each half's face in view (an arm may cover one half more).
    half_visible: tuple[float, float] = (1.0, 1.0)
    #: Lying face down: its back shows, no values (``values`` is what it hides).
    face_down: bool = False


@dataclass
class RenderedMarker:
    kind: str
    corners: np.ndarray  # (4, 2)


@dataclass
class Scene:
    """One rendered image with everything needed to label it."""

    image: np.ndarray  # uint8 BGR
    kind: str
    set_size: int
    tiles: list[RenderedTile]
    markers: list[RenderedMarker]
    table: dict[str, Any] | None = None
    #: Tiles lying face down (a boneyard, a hand not turned over): they carry no
    #: values to read, and are left out of ``tiles`` and of the labels' tiles.
    face_down: list[RenderedTile] = field(default_factory=list)

    def labels(self, image_name: str, min_visible: float = 0.35) -> dict[str, Any]:
        """The label JSON of DESIGN.md; tiles hidden below ``min_visible`` are left out."""
        h, w = self.image.shape[:2]
        tiles: list[dict[str, Any]] = []
        pips: list[dict[str, Any]] = []
        for t in self.tiles:
            if t.visible < min_visible:
                continue
            index = len(tiles)
            tiles.append(
                {
                    "values": [int(t.values[0]), int(t.values[1])],
                    "corners": _round(t.corners),
                    "visible": round(float(t.visible), 3),
                }
            )
            for (half, poly), seen in zip(
                t.pips, t.pip_visible or [True] * len(t.pips), strict=True
            ):
                if seen:
                    x0, y0 = poly.min(0)
                    x1, y1 = poly.max(0)
                    pips.append(
                        {
                            "tile": index,
                            "half": int(half),
                            "box": [round(float(v), 2) for v in (x0, y0, x1, y1)],
                        }
                    )
        markers = [{"corners": _round(m.corners), "kind": m.kind} for m in self.markers]
        extra: dict[str, Any] = {}
        if self.face_down:
            extra["face_down"] = [
                {"corners": _round(t.corners), "visible": round(float(t.visible), 3)}
                for t in self.face_down if t.visible >= min_visible]
        return {
            "image": image_name,
            "width": int(w),
            "height": int(h),
            "kind": self.kind,
            "set": int(self.set_size),
            "tiles": tiles,
            "pips": pips,
            "markers": markers,
            "table": self.table,
            **extra,
        }


def _round(points: np.ndarray) -> list[list[float]]:
    return [[round(float(x), 2), round(float(y), 2)] for x, y in np.asarray(points).reshape(-1, 2)]


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


# --------------------------------------------------------------------------- drawing


def _blend_polygon(
    img: np.ndarray,
    pts: np.ndarray,
    colour: np.ndarray | float,
    alpha: float = 1.0,
    mask_out: np.ndarray | None = None,
) -> None:
    """Anti-aliased filled convex polygon ``pts`` (N, 2) blended into float ``img``."""
    h, w = img.shape[:2]
    x0, y0 = np.floor(pts.min(0)).astype(int) - 2
    x1, y1 = np.ceil(pts.max(0)).astype(int) + 2
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
    if x1 <= x0 or y1 <= y0:
        return
    m = np.zeros((y1 - y0, x1 - x0), np.uint8)
    hull = cv2.convexHull(((pts - [x0, y0]) * 16).astype(np.int32))
    cv2.fillConvexPoly(m, hull, 255, cv2.LINE_AA, 4)
    a = m.astype(np.float32)[..., None] * (alpha / 255)
    region = img[y0:y1, x0:x1]
    region[:] = region * (1 - a) + np.asarray(colour, np.float32) * a
    if mask_out is not None:
        mask_out[y0:y1, x0:x1] = np.maximum(mask_out[y0:y1, x0:x1], m)


def _rounded_outline(corners: np.ndarray, radius: float, per_arc: int = 4) -> np.ndarray:
    """Outline points (N, 2) of the rectangle ``corners`` with rounded corners."""
    pts = []
    for i in range(4):
        c = corners[i]
        prev, nxt = corners[i - 1], corners[(i + 1) % 4]
        u = (prev - c) / np.linalg.norm(prev - c)
        v = (nxt - c) / np.linalg.norm(nxt - c)
        centre = c + radius * (u + v)
        for t in np.linspace(0, 1, per_arc):
            d = (1 - t) * (-v) + t * (-u)
            d = d / np.linalg.norm(d)
            pts.append(centre + radius * d)
    return np.array(pts)


class _Painter:
    """Draws plane objects through a camera into one float image."""

    def __init__(self, cam: Camera, rng: np.random.Generator, style: TileStyle) -> None:
        self.cam = cam
        self.rng = rng
        self.style = style
        self.img = background(cam.width, cam.height, rng)
        self.shadow = np.zeros((cam.height, cam.width), np.float32)
        ang = rng.uniform(0, 2 * np.pi)
        self.light = np.array([np.cos(ang), np.sin(ang)]) * rng.uniform(0.15, 0.9)
        self.shadow_strength = float(rng.uniform(0.2, 0.55))
        self.occluder = np.zeros((cam.height, cam.width), np.uint8)

    # shadows ----------------------------------------------------------------
    def cast_shadow(self, outline: np.ndarray, height: float) -> None:
        pts = np.concatenate([outline, outline + self.light * height])
        img_pts = self.cam.project(pts)
        sh = np.zeros_like(self.shadow)
        _blend_polygon(sh[..., None], img_pts, 1.0)
        self.shadow = np.maximum(self.shadow, sh)

    def apply_shadows(self, blur_px: float) -> None:
        k = max(3, int(blur_px) * 2 + 1)
        s = cv2.GaussianBlur(self.shadow, (k, k), blur_px / 2)
        self.img *= (1 - self.shadow_strength * s)[..., None]

    # tiles ------------------------------------------------------------------
    def tile(
        self, values: tuple[int, int], corners_mm: np.ndarray, width_mm: float,
        face_down: bool = False,
    ) -> RenderedTile:
        st, cam = self.style, self.cam
        height = st.thickness * width_mm
        outline = _rounded_outline(corners_mm, st.corner * width_mm)
        low = cam.project(np.concatenate([outline, np.zeros((len(outline), 1))], 1))
        high = cam.project(np.concatenate([outline, np.full((len(outline), 1), height)], 1))
        side = st.face * self.rng.uniform(0.62, 0.8)
        _blend_polygon(self.img, np.concatenate([low, high]), side)
        top = cam.project(np.concatenate([corners_mm, np.full((4, 1), height)], 1))
        width_px = float(np.linalg.norm(top[1] - top[0]))
        tex_w = int(np.clip(round(2 * width_px), 24, 220))
        if face_down:
            face, alpha = render_back(st, tex_w, self.rng)
            pips: list[tuple[int, float, float, float]] = []
        else:
            face, alpha, pips = render_face(values, st, tex_w, self.rng)
        sigma = 0.45 * tex_w / max(width_px, 1)
        if sigma > 0.6:
            face = cv2.GaussianBlur(face, (0, 0), sigma)
        src = np.array([[0, 0], [tex_w, 0], [tex_w, 2 * tex_w], [0, 2 * tex_w]], np.float32)
        x0, y0 = np.floor(top.min(0)).astype(int) - 1
        x1, y1 = np.ceil(top.max(0)).astype(int) + 2
        hgt, wid = self.img.shape[:2]
        cx0, cy0, cx1, cy1 = max(x0, 0), max(y0, 0), min(x1, wid), min(y1, hgt)
        matrix = cv2.getPerspectiveTransform(src, top.astype(np.float32))
        if cx1 > cx0 and cy1 > cy0:
            shift = np.array([[1, 0, -cx0], [0, 1, -cy0], [0, 0, 1]], np.float64)
            m = shift @ matrix
            size = (cx1 - cx0, cy1 - cy0)
            warped = cv2.warpPerspective(face, m, size, flags=cv2.INTER_LINEAR)
            a = cv2.warpPerspective(alpha, m, size, flags=cv2.INTER_LINEAR)[..., None]
            region = self.img[cy0:cy1, cx0:cx1]
            region[:] = region * (1 - a) + warped * a
        # pip outlines in image pixels
        ring = np.stack(
            [
                np.cos(np.linspace(0, 2 * np.pi, 16, endpoint=False)),
                np.sin(np.linspace(0, 2 * np.pi, 16, endpoint=False)),
            ],
            1,
        )
        out: list[tuple[int, np.ndarray]] = []
        for half, px, py, pr in pips:
            pts = np.array([px, py]) + pr * ring
            mapped = cv2.perspectiveTransform(pts[None].astype(np.float64), matrix)[0]
            out.append((half, mapped))
        return RenderedTile(values=values, corners=top, pips=out, face_down=face_down)

    # markers ----------------------------------------------------------------
    def marker(self, m: PlaneMarker) -> RenderedMarker:
        cam, rng = self.cam, self.rng
        ring = np.stack(
            [
                np.cos(np.linspace(0, 2 * np.pi, 24, endpoint=False)),
                np.sin(np.linspace(0, 2 * np.pi, 24, endpoint=False)),
            ],
            1,
        )
        pts_all: list[np.ndarray] = []

        def at(points: np.ndarray, z: float) -> np.ndarray:
            return cam.project(np.concatenate([points, np.full((len(points), 1), z)], 1))

        if m.kind == "coin":
            r = m.size / 2
            circ = m.centre + r * ring
            metal = np.array(
                rng.choice([[60, 110, 180], [170, 170, 175], [50, 150, 200]]), np.float32
            )
            metal = metal * rng.uniform(0.8, 1.15)
            body = np.concatenate([at(circ, 0), at(circ, 1.8)])
            _blend_polygon(self.img, body, metal * 0.6)
            _blend_polygon(self.img, at(circ, 1.8), metal)
            _blend_polygon(self.img, at(m.centre + 0.8 * r * ring, 1.8), metal * 0.85)
            _blend_polygon(
                self.img, at(m.centre + 0.4 * r * ring + [0.2 * r, -0.1 * r], 1.8), metal * 1.1
            )
            pts_all.append(body)
        elif m.kind == "pawn":
            r = m.size / 2
            colour = np.array(rng.uniform(20, 235, 3), np.float32)
            tall = m.size * rng.uniform(1.4, 2.2)
            base = np.concatenate(
                [at(m.centre + r * ring, 0), at(m.centre + 0.55 * r * ring, tall * 0.7)]
            )
            _blend_polygon(self.img, base, colour * 0.7)
            head = at(m.centre + 0.55 * r * ring, tall)
            _blend_polygon(
                self.img,
                np.concatenate([head, at(m.centre + 0.45 * r * ring, tall * 0.75)]),
                colour,
            )
            _blend_polygon(
                self.img,
                at(m.centre + 0.2 * r * ring + [0.15 * r, -0.15 * r], tall),
                np.minimum(colour * 1.4 + 40, 255),
            )
            pts_all += [base, head]
        else:  # toy train: a box body, a cab at one end and a chimney
            length, wide = m.size, m.size * rng.uniform(0.38, 0.5)
            d = np.array([np.cos(m.angle), np.sin(m.angle)])
            p = np.array([-d[1], d[0]])
            colour = np.array(rng.uniform(20, 235, 3), np.float32)
            rect = np.array(
                [
                    m.centre + sx * length / 2 * d + sy * wide / 2 * p
                    for sx, sy in ((-1, -1), (1, -1), (1, 1), (-1, 1))
                ]
            )
            h_body = wide * rng.uniform(0.8, 1.2)
            body = np.concatenate([at(rect, 0), at(rect, h_body)])
            _blend_polygon(self.img, body, colour * 0.6)
            _blend_polygon(self.img, at(rect, h_body), colour)
            cab_c = m.centre - 0.3 * length * d
            cab = np.array(
                [
                    cab_c + sx * 0.2 * length * d + sy * wide / 2 * p
                    for sx, sy in ((-1, -1), (1, -1), (1, 1), (-1, 1))
                ]
            )
            cab_top = at(cab, h_body * 1.5)
            _blend_polygon(self.img, np.concatenate([at(cab, h_body), cab_top]), colour * 0.7)
            _blend_polygon(self.img, cab_top, np.minimum(colour * 1.2 + 20, 255))
            chim = m.centre + 0.3 * length * d + 0.18 * wide * ring
            _blend_polygon(
                self.img,
                np.concatenate([at(chim, h_body), at(chim, h_body * 1.4)]),
                np.array([30, 30, 30], np.float32),
            )
            pts_all += [body, cab_top]
        pts = np.concatenate(pts_all)
        if m.kind == "toy-train":
            box = cv2.boxPoints(cv2.minAreaRect(pts.astype(np.float32)))
        else:
            x0, y0 = pts.min(0)
            x1, y1 = pts.max(0)
            box = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]])
        return RenderedMarker(kind=m.kind, corners=np.asarray(box, np.float64))

    def hub(self, centre: np.ndarray, radius: float) -> None:
        sides = int(self.rng.choice([8, 40]))
        ang = np.linspace(0, 2 * np.pi, sides, endpoint=False) + self.rng.uniform(0, 1)
        ring = np.stack([np.cos(ang), np.sin(ang)], 1)
        colour = np.array(self.rng.uniform(30, 230, 3), np.float32)
        low = self.cam.project(np.concatenate([centre + radius * ring, np.zeros((sides, 1))], 1))
        high = self.cam.project(
            np.concatenate([centre + radius * ring, np.full((sides, 1), 6.0)], 1)
        )
        _blend_polygon(self.img, np.concatenate([low, high]), colour * 0.7)
        _blend_polygon(self.img, high, colour)
        inner = self.cam.project(
            np.concatenate([centre + 0.55 * radius * ring, np.full((sides, 1), 6.0)], 1)
        )
        _blend_polygon(self.img, inner, colour * 0.85)

    def mat(self, players: int, mat_to_plane: np.ndarray) -> None:
        """The printed hub mat (``vision.mat``) lying flat on the table."""
        from vision.mat import mat_image
        from vision.mat_geometry import MAT_SIDE_MM

        px_per_mm = 3.0
        sheet = mat_image(players, px_per_mm)
        half = MAT_SIDE_MM / 2
        px_to_mat = np.array([[1 / px_per_mm, 0, -half], [0, 1 / px_per_mm, -half], [0, 0, 1]])
        quad = np.array([[-half, -half], [half, -half], [half, half], [-half, half]], float)
        on_plane = cv2.perspectiveTransform(quad[None], mat_to_plane)[0]
        on_image = self.cam.project(np.concatenate([on_plane, np.zeros((4, 1))], 1))
        plane_to_image = cv2.getPerspectiveTransform(
            on_plane.astype(np.float32), on_image.astype(np.float32)
        )
        warp = plane_to_image @ mat_to_plane @ px_to_mat
        h, w = self.img.shape[:2]
        flat = cv2.warpPerspective(sheet, warp, (w, h), flags=cv2.INTER_AREA)
        area = cv2.warpPerspective(
            np.full(sheet.shape[:2], 255, np.uint8), warp, (w, h), flags=cv2.INTER_LINEAR
        )
        paper = float(self.rng.uniform(0.8, 1.0))  # paper a little grey or cream
        tint = np.array(self.rng.uniform(0.92, 1.0, 3), np.float32)
        alpha = (area.astype(np.float32) / 255.0)[..., None]
        self.img = self.img * (1 - alpha) + flat.astype(np.float32) * paper * tint * alpha

    # clutter --------------------------------------------------------------------
    def clutter(self, region: np.ndarray, width_mm: float) -> None:
        """Things that are not tiles: playing cards, paper, a cup, a pen (hard negatives)."""
        rng = self.rng
        lo, hi = region.min(0), region.max(0)
        for _ in range(int(rng.integers(1, 4))):
            c = lo + (hi - lo) * rng.random(2)
            ang = rng.uniform(0, 2 * np.pi)
            d = np.array([np.cos(ang), np.sin(ang)])
            p = np.array([-d[1], d[0]])
            kind = rng.choice(["card", "paper", "cup", "pen", "block"])
            if kind in ("card", "paper", "block"):
                a, b = {"card": (63, 88), "paper": (105, 148), "block": (1.2, 1.6)}[str(kind)]
                if kind == "block":  # a plain tile-sized block: not a tile without pips and a bar
                    a, b = width_mm * a, width_mm * b
                rect = np.array(
                    [
                        c + sx * a / 2 * p + sy * b / 2 * d
                        for sx, sy in ((-1, -1), (1, -1), (1, 1), (-1, 1))
                    ]
                )
                colour = np.array(
                    rng.uniform(200, 250, 3) if kind != "block" else rng.uniform(30, 230, 3),
                    np.float32,
                )
                z = 0.3 if kind != "block" else 0.4 * width_mm
                top = self.cam.project(np.concatenate([rect, np.full((4, 1), z)], 1))
                if kind == "block":
                    low = self.cam.project(np.concatenate([rect, np.zeros((4, 1))], 1))
                    _blend_polygon(self.img, np.concatenate([low, top]), colour * 0.7)
                _blend_polygon(self.img, top, colour)
                if kind != "block":
                    for k in range(int(rng.integers(0, 8))):  # print: lines or symbols
                        t = (k + 1) / 9
                        line = np.array(
                            [
                                c + (-0.35 * a) * p + (t - 0.5) * b * d,
                                c + (0.35 * a) * p + (t - 0.5) * b * d,
                                c + (0.35 * a) * p + (t - 0.5 + 0.02) * b * d,
                                c + (-0.35 * a) * p + (t - 0.5 + 0.02) * b * d,
                            ]
                        )
                        _blend_polygon(
                            self.img,
                            self.cam.project(line),
                            np.array(rng.uniform(0, 200, 3), np.float32),
                            0.8,
                        )
            elif kind == "cup":
                r = rng.uniform(35, 45)
                ring = np.stack(
                    [np.cos(np.linspace(0, 2 * np.pi, 32)), np.sin(np.linspace(0, 2 * np.pi, 32))],
                    1,
                )
                colour = np.array(rng.uniform(30, 250, 3), np.float32)
                h = rng.uniform(60, 100)
                low = self.cam.project(np.concatenate([c + r * ring, np.zeros((32, 1))], 1))
                high = self.cam.project(np.concatenate([c + r * ring, np.full((32, 1), h)], 1))
                _blend_polygon(self.img, np.concatenate([low, high]), colour * 0.75)
                _blend_polygon(self.img, high, colour)
                inner = self.cam.project(
                    np.concatenate([c + 0.88 * r * ring, np.full((32, 1), h)], 1)
                )
                _blend_polygon(self.img, inner, np.array(rng.uniform(10, 90, 3), np.float32))
            else:
                rect = np.array(
                    [
                        c + sx * 4 * p + sy * 70 * d
                        for sx, sy in ((-1, -1), (1, -1), (1, 1), (-1, 1))
                    ]
                )
                _blend_polygon(
                    self.img, self.cam.project(rect), np.array(rng.uniform(0, 255, 3), np.float32)
                )

    # hands and arms -------------------------------------------------------------
    def arm(self) -> None:
        rng, w, h = self.rng, self.cam.width, self.cam.height
        side = int(rng.integers(4))
        t = rng.uniform(0.15, 0.85)
        start = [
            np.array([t * w, -20]),
            np.array([w + 20, t * h]),
            np.array([t * w, h + 20]),
            np.array([-20, t * h]),
        ][side]
        inward = np.array([[0, 1], [-1, 0], [0, -1], [1, 0]][side], float)
        inward = inward + rng.normal(0, 0.35, 2)
        inward /= np.linalg.norm(inward)
        reach = rng.uniform(0.15, 0.5) * min(w, h)
        end = start + inward * reach
        thick = rng.uniform(0.07, 0.14) * min(w, h)
        skin = np.array(
            rng.choice(
                [[130, 160, 220], [90, 120, 175], [60, 85, 130], [40, 60, 95], [150, 180, 235]]
            ),
            np.float32,
        )
        skin = skin * rng.uniform(0.85, 1.1)
        perp = np.array([-inward[1], inward[0]])
        sleeve = rng.random() < 0.6
        arm_poly = np.array(
            [
                start + perp * thick * 0.6,
                start - perp * thick * 0.6,
                end - perp * thick / 2,
                end + perp * thick / 2,
            ]
        )
        colour = np.array(rng.uniform(20, 220, 3), np.float32) if sleeve else skin
        # shadow first, offset
        off = rng.uniform(5, 25) * np.array([1, 1])
        sh = np.zeros((h, w), np.float32)
        _blend_polygon(sh[..., None], arm_poly + off, 1.0)
        palm = end + inward * thick * 0.5
        palm_pts = palm + np.stack(
            [
                np.cos(np.linspace(0, 2 * np.pi, 20)) * thick * 0.7,
                np.sin(np.linspace(0, 2 * np.pi, 20)) * thick * 0.6,
            ],
            1,
        )
        _blend_polygon(sh[..., None], palm_pts + off, 1.0)
        blurred = cv2.GaussianBlur(sh, (0, 0), thick * 0.2)
        self.img *= (1 - 0.4 * blurred)[..., None]
        _blend_polygon(self.img, arm_poly, colour, mask_out=self.occluder)
        _blend_polygon(self.img, palm_pts, skin, mask_out=self.occluder)
        for k in range(int(rng.integers(2, 5))):  # fingers
            fd = inward + perp * (k - 1.5) * 0.35 + rng.normal(0, 0.1, 2)
            fd /= np.linalg.norm(fd)
            base = palm + perp * (k - 1.5) * thick * 0.3
            tip = base + fd * thick * rng.uniform(0.7, 1.2)
            fp = np.array(
                [
                    base + perp * thick * 0.1,
                    base - perp * thick * 0.1,
                    tip - perp * thick * 0.08,
                    tip + perp * thick * 0.08,
                ]
            )
            _blend_polygon(self.img, fp, skin * rng.uniform(0.9, 1.05), mask_out=self.occluder)

    def finish(self, rng: np.random.Generator) -> np.ndarray:
        """Lighting, colour cast, glare, blur and noise; returns uint8."""
        img, (h, w) = self.img, self.img.shape[:2]
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        ang = rng.uniform(0, 2 * np.pi)
        grad = ((xx / w - 0.5) * np.cos(ang) + (yy / h - 0.5) * np.sin(ang)) * rng.uniform(0, 0.5)
        vig = 1 - rng.uniform(0, 0.35) * (((xx / w - 0.5) ** 2 + (yy / h - 0.5) ** 2) * 2)
        light = (1 + grad) * vig * rng.uniform(0.65, 1.15)
        img = img * light[..., None]
        img = img * rng.normal(1, 0.06, 3).astype(np.float32)[None, None, :]
        if rng.random() < 0.35:  # glare
            gx, gy = rng.uniform(0, w), rng.uniform(0, h)
            s = rng.uniform(0.05, 0.25) * min(w, h)
            img += (
                rng.uniform(40, 140) * np.exp(-((xx - gx) ** 2 + (yy - gy) ** 2) / (2 * s * s))
            )[..., None]
        r = rng.random()
        if r < 0.35:
            img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.4, 1.6))
        elif r < 0.45:  # motion blur
            k = int(rng.integers(3, 9))
            kernel = np.zeros((k, k), np.float32)
            kernel[k // 2] = 1 / k
            rot = cv2.getRotationMatrix2D((k / 2 - 0.5, k / 2 - 0.5), rng.uniform(0, 180), 1)
            turned = cv2.warpAffine(kernel, rot, (k, k))
            img = cv2.filter2D(img, -1, turned / max(turned.sum(), 1e-6))
        img = img + rng.normal(0, rng.uniform(0, 6), img.shape).astype(np.float32)
        return np.clip(img, 0, 255).astype(np.uint8)


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
    style: TileStyle | None = None,
) -> Scene:
    """Paint ``plane`` through ``cam``. With ``steady`` (a seed), each tile's look
    and the finishing light, blur and noise come from ``steady`` and the tile's
    values alone, not from what else is on the table: successive frames of one
    game, each painted anew, then show a tile that has not moved the same way.
    ``style``: the set's look (None: one drawn from ``rng``)."""
    style = TileStyle.random(rng) if style is None else style
    painter = _Painter(cam, rng, style)
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
        painter.clutter(region, width_mm)
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
            markers.append(painter.marker(obj))
        else:
            if steady is not None:
                painter.rng = np.random.default_rng([steady, *sorted(obj.values)])
            tiles[i] = painter.tile(obj.values, obj.corners, width_mm, obj.face_down)
            painter.rng = rng
    for _ in range(arms):
        painter.arm()
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
    style: TileStyle | None = None,
) -> Scene:
    """Loose tiles on a table, seen from above or at an angle; ``arms`` reaching over
    them (``None``: none, one or two, drawn); ``face_down`` of them (at most) lying face
    down (``Scene.face_down``); ``style`` the set's look (None: drawn). Without them the
    scene is drawn as it always was."""
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
    return _paint(plane, cam, rng, width_mm, "hands", arms, style=style)


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
    boneyard: int = 0, style: TileStyle | None = None,
) -> Scene:
    """A Mexican Train table seen by a webcam above it (sometimes at an angle); with
    ``mat``, laid out on the printed hub mat; with ``boneyard``, that many tiles lying
    face down beside the layout (``Scene.face_down``); ``style`` the set's look (None:
    drawn). Without them the scene is drawn as it always was."""
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
                  style=style)


# --------------------------------------------------------------------------- crops


def jitter_corners(
    corners: np.ndarray, rng: np.random.Generator, amount: float = 1.0
) -> np.ndarray:
    """Corners as an imperfect detector would give them: shifted, scaled, turned a little,
    sometimes squared into a rectangle (what an OBB detector returns)."""
    c = np.asarray(corners, np.float64).reshape(4, 2)
    if rng.random() < 0.5:  # an oriented rectangle, corners matched to the originals
        box = cv2.boxPoints(cv2.minAreaRect(c.astype(np.float32))).astype(np.float64)
        best = min(range(4), key=lambda k: float(np.sum((np.roll(box, -k, 0) - c) ** 2)))
        rolled = np.roll(box, -best, 0)
        flipped = np.roll(
            box[::-1],
            -min(range(4), key=lambda k: float(np.sum((np.roll(box[::-1], -k, 0) - c) ** 2))),
            0,
        )
        c = rolled if np.sum((rolled - c) ** 2) <= np.sum((flipped - c) ** 2) else flipped
    centre = c.mean(0)
    size = float(np.linalg.norm(c[2] - c[1]))
    ang = np.radians(rng.normal(0, 2.0 * amount))
    rot = np.array([[np.cos(ang), -np.sin(ang)], [np.sin(ang), np.cos(ang)]])
    scale = 1 + rng.normal(0, 0.03 * amount)
    shift = rng.normal(0, 0.025 * amount, 2) * size
    c = (c - centre) @ rot.T * scale + centre + shift
    return c + rng.normal(0, 0.008 * amount * size, (4, 2))


def detector_jitter(corners: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Corners as the tile detector gives them on small, crowded tiles.

    On rendered validation tables (1280x720, tiles 12-28 px wide) the shipped
    detector's boxes, against the true tiles, measured: shift along the tile
    p50 0.03, p90 0.20, p98 0.45 tile widths (a misread tile's mean: 0.18);
    angle p50 1.3, p90 4, p98 9-14 degrees; length and width +-10 % at p90.
    :func:`jitter_corners` covers the middle of that; this adds the tails,
    kept under a third of a width of shift so that the half still shows.
    """
    c = jitter_corners(corners, rng)  # 0-1 stays the short edge at the first end
    centre = c.mean(0)
    axis = (c[2] + c[3] - c[0] - c[1]) / 2
    length = float(np.linalg.norm(axis))
    if length < 1e-6:
        return c
    u = axis / length
    v = np.array([-u[1], u[0]])
    width = float(np.linalg.norm(c[1] - c[0]))
    rel = c - centre
    a, b = rel @ u, rel @ v
    if rng.random() < 0.3:  # longer or shorter than the tile
        a = a * rng.uniform(0.92, 1.15)
    if rng.random() < 0.2:
        b = b * rng.uniform(0.94, 1.12)
    c = centre + a[:, None] * u + b[:, None] * v
    if rng.random() < 0.45:  # slid along the train, towards a gap or a neighbour
        c = c + u * rng.uniform(-0.32, 0.32) * width
    if rng.random() < 0.2:  # turned
        ang = np.radians(rng.normal(0, 5.0))
        rot = np.array([[np.cos(ang), -np.sin(ang)], [np.sin(ang), np.cos(ang)]])
        m = c.mean(0)
        c = (c - m) @ rot.T + m
    return c


def crop_labels(
    tile: RenderedTile, corners: np.ndarray, half: int, half_px: int = HALF_PX
) -> list[list[float]]:
    """Pip boxes ``[x0, y0, x1, y1]`` of ``half`` inside its crop cut at ``corners``."""
    w, h = half_px, 2 * half_px
    m = 0.06 * w
    dst = np.array([[m, m], [w - m, m], [w - m, h - m], [m, h - m]], np.float32)
    matrix = cv2.getPerspectiveTransform(np.asarray(corners, np.float32), dst)
    boxes = []
    for hf, poly in tile.pips:
        if hf != half:
            continue
        p = cv2.perspectiveTransform(poly[None].astype(np.float64), matrix.astype(np.float64))[0]
        if half == 1:  # the second half is turned half a circle
            p[:, 1] -= half_px
            p = np.array([w, half_px]) - p
        x0, y0 = p.min(0)
        x1, y1 = p.max(0)
        area = max((x1 - x0) * (y1 - y0), 1e-6)
        cx0, cy0, cx1, cy1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, half_px)
        if cx1 <= cx0 or cy1 <= cy0 or (cx1 - cx0) * (cy1 - cy0) / area < 0.45:
            continue
        boxes.append([float(cx0), float(cy0), float(cx1), float(cy1)])
    return boxes


def render_crops(
    rng: np.random.Generator, limit: int = 24
) -> list[tuple[np.ndarray, dict[str, Any]]]:
    """Half-tile crops (image, label) from one rendered scene, cut with jittered corners."""
    if rng.random() < 0.2:
        scene = render_table(rng, size=(1280, 720))
    else:
        size = (960, 720) if rng.random() < 0.5 else (720, 960)
        scene = render_hands(rng, size=size, tile_px=(45, 330))
    out: list[tuple[np.ndarray, dict[str, Any]]] = []
    for i, t in enumerate(scene.tiles):
        if t.visible < 0.999 or len(out) >= limit:
            continue
        corners = jitter_corners(t.corners, rng)
        out.extend(_crop_pair(scene.image, t, corners, scene.set_size, i))
    return out


def render_table_crops(
    rng: np.random.Generator, limit: int = 24, high_only: bool = False
) -> list[tuple[np.ndarray, dict[str, Any]]]:
    """Half-tile crops of webcam-sized tiles (``crops-table``): tables, tables on the
    mat and hands of small tiles, JPEG-compressed as a camera stream is, cut with
    :func:`detector_jitter`. ``high_only`` (``crops-high``) keeps only the halves
    of :data:`HIGH_PIPS` pips or more."""
    pick = rng.random()
    if pick < 0.75:
        scene = render_table(rng, size=(1280, 720), mat=pick >= 0.5)
    else:
        scene = render_hands(rng, size=(1280, 720), tile_px=(24, 70))
    quality = int(rng.integers(55, 96))
    ok, buf = cv2.imencode(".jpg", scene.image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    assert ok
    image = np.asarray(cv2.imdecode(buf, cv2.IMREAD_COLOR))
    order = rng.permutation(len(scene.tiles))
    out: list[tuple[np.ndarray, dict[str, Any]]] = []
    for i in order:
        t = scene.tiles[int(i)]
        if t.visible < 0.999 or len(out) >= limit:
            continue
        if high_only and max(t.values) < HIGH_PIPS:
            continue
        corners = detector_jitter(t.corners, rng)
        pair = _crop_pair(image, t, corners, scene.set_size, int(i))
        out.extend(c for c in pair if not high_only or c[1]["value"] >= HIGH_PIPS)
    return out


def render_covered_crops(
    rng: np.random.Generator, limit: int = 24
) -> list[tuple[np.ndarray, dict[str, Any]]]:
    """Half crops of hands scenes with one or two arms reaching over the tiles, cut with
    jittered corners, JPEG-compressed: each label's ``covered`` says whether a hand hides
    part of the half (less than ``COVERED_BELOW`` of it in view; open: ``OPEN_FROM`` or
    more). Every covered half is kept and an open one with the chance ``OPEN_KEPT``."""
    scene = render_hands(rng, arms=int(rng.integers(1, 3)))
    quality = int(rng.integers(55, 96))
    ok, buf = cv2.imencode(".jpg", scene.image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    assert ok
    image = np.asarray(cv2.imdecode(buf, cv2.IMREAD_COLOR))
    out: list[tuple[np.ndarray, dict[str, Any]]] = []
    for i in rng.permutation(len(scene.tiles)).tolist():
        t = scene.tiles[i]
        if t.visible < 0.35 or len(out) >= limit:  # as labelled: hidden tiles are not
            continue
        corners = jitter_corners(t.corners, rng)
        for half, (crop, label) in enumerate(_crop_pair(image, t, corners, scene.set_size, i)):
            shown = float(t.half_visible[half])
            if COVERED_BELOW <= shown < OPEN_FROM:
                continue
            covered = shown < COVERED_BELOW
            if not covered and rng.random() >= OPEN_KEPT:
                continue
            label.update(covered=covered, visible=round(shown, 3))
            out.append((crop, label))
    return out


def _crop_pair(
    image: np.ndarray, t: RenderedTile, corners: np.ndarray, set_size: int, index: int
) -> list[tuple[np.ndarray, dict[str, Any]]]:
    out = []
    for half, crop in enumerate(half_crops(image, corners)):
        boxes = crop_labels(t, corners, half)
        label = {
            "image": "",
            "width": HALF_PX,
            "height": HALF_PX,
            "kind": "crops",
            "set": set_size,
            "value": int(t.values[half]),
            "tiles": [],
            "pips": [{"tile": 0, "half": half, "box": [round(v, 2) for v in b]} for b in boxes],
            "markers": [],
            "table": None,
            "source_tile": index,
        }
        out.append((crop, label))
    return out


def render(kind: str, rng: np.random.Generator) -> Scene:
    """One scene of ``kind`` (``hands``, ``table``, ``table-mat``, ``closeup``; or
    ``hands-face-down``, hands with one to four tiles face down, and ``table-boneyard``,
    a table with a boneyard of 6 to 24 tiles beside it)."""
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
    raise ValueError(f"unknown scene kind {kind!r}")
