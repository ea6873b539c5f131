"""The painter: draws tiles, the hub and the mat through a camera into one float image,
then lights, blurs and adds noise to it as a camera would."""

from __future__ import annotations

import cv2
import numpy as np

from datasets.camera import Camera
from datasets.scene import RenderedTile
from datasets.surfaces import draw_surface
from datasets.textures import TileStyle, background, render_back, render_face


def blend_polygon(
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


def rounded_outline(corners: np.ndarray, radius: float, per_arc: int = 4) -> np.ndarray:
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


class Painter:
    """Draws plane objects through a camera into one float image."""

    def __init__(self, cam: Camera, rng: np.random.Generator, style: TileStyle,
                 surface: str | None = None) -> None:
        self.cam = cam
        self.rng = rng
        self.style = style
        # the painter's own table tops, or a surface people play on (datasets.surfaces)
        self.img = (background(cam.width, cam.height, rng) if surface is None
                    else draw_surface(surface, cam, rng))
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
        blend_polygon(sh[..., None], img_pts, 1.0)
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
        outline = rounded_outline(corners_mm, st.corner * width_mm)
        low = cam.project(np.concatenate([outline, np.zeros((len(outline), 1))], 1))
        high = cam.project(np.concatenate([outline, np.full((len(outline), 1), height)], 1))
        side = st.face * self.rng.uniform(0.62, 0.8)
        blend_polygon(self.img, np.concatenate([low, high]), side)
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
    def hub(self, centre: np.ndarray, radius: float) -> None:
        sides = int(self.rng.choice([8, 40]))
        ang = np.linspace(0, 2 * np.pi, sides, endpoint=False) + self.rng.uniform(0, 1)
        ring = np.stack([np.cos(ang), np.sin(ang)], 1)
        colour = np.array(self.rng.uniform(30, 230, 3), np.float32)
        low = self.cam.project(np.concatenate([centre + radius * ring, np.zeros((sides, 1))], 1))
        high = self.cam.project(
            np.concatenate([centre + radius * ring, np.full((sides, 1), 6.0)], 1)
        )
        blend_polygon(self.img, np.concatenate([low, high]), colour * 0.7)
        blend_polygon(self.img, high, colour)
        inner = self.cam.project(
            np.concatenate([centre + 0.55 * radius * ring, np.full((sides, 1), 6.0)], 1)
        )
        blend_polygon(self.img, inner, colour * 0.85)

    def mat(self, players: int, mat_to_plane: np.ndarray) -> None:
        """The printed hub mat (``vision.mat.hub_mat``) lying flat on the table."""
        from vision.mat.geometry import MAT_SIDE_MM
        from vision.mat.hub_mat import mat_image

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
