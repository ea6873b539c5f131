"""The webcam: a pinhole camera over the table, then what its lens and sensor do.

:class:`Webcam` is a :class:`datasets.camera.Camera` plus radial lens distortion
(barrel, as cheap wide webcams show it) and the image's finish: blur, vignetting,
sensor noise, white balance and a JPEG round trip (a frame of compressed video).
The renderer draws the undistorted pinhole picture on a slightly larger canvas
(:attr:`Webcam.canvas`) with the same focal length, and :meth:`Webcam.finish`
bends it into the output frame; :meth:`Webcam.project` sends table points
through both, so labels land where the pixels do.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from datasets.camera import Camera


@dataclass(frozen=True)
class Finish:
    """What the sensor and the encoder do: blur (px), motion blur length (px) and
    angle, vignetting (fraction lost at the corners), noise (of 255), white balance
    gains (B, G, R), brightness target (median grey), the camera's contrast and
    saturation boost, JPEG quality."""

    blur: float
    motion: float
    motion_angle: float
    vignette: float
    noise: float
    white_balance: tuple[float, float, float]
    brightness: float
    contrast: float
    saturation: float
    quality: int


def pick_finish(rng: np.random.Generator) -> Finish:
    wb = np.clip(1 + rng.normal(0, 0.04, 3), 0.88, 1.12)
    return Finish(
        blur=float(rng.uniform(0.3, 1.1)),
        motion=float(rng.uniform(0, 2.5) if rng.random() < 0.2 else 0.0),
        motion_angle=float(rng.uniform(0, 180)),
        vignette=float(rng.uniform(0.1, 0.35)),
        noise=float(rng.uniform(1.5, 5.0)),
        white_balance=(float(wb[0]), float(wb[1]), float(wb[2])),
        brightness=float(rng.uniform(105, 150)),
        contrast=float(rng.uniform(1.05, 1.3)),
        saturation=float(rng.uniform(0.95, 1.2)),
        quality=int(rng.integers(55, 91)),
    )


@dataclass(frozen=True)
class Webcam:
    """A pinhole ``camera`` whose lens bends points radially: a point the pinhole sends
    to normalised ``p_u`` shows at ``p_d`` with ``p_u = p_d * (1 + k1 * |p_d|^2)``."""

    camera: Camera
    k1: float

    @property
    def size(self) -> tuple[int, int]:
        return self.camera.width, self.camera.height

    @property
    def canvas(self) -> tuple[int, int]:
        """The pinhole picture's size (same focal length and centre): big enough that
        every output pixel finds its source in it."""
        w, h = self.size
        r2 = ((w / 2) ** 2 + (h / 2) ** 2) / self.camera.focal**2
        grow = 1 + max(self.k1, 0.0) * r2 + 0.01
        return 2 * int(np.ceil(w * grow / 2)), 2 * int(np.ceil(h * grow / 2))

    def _normalised(self, pixels: np.ndarray) -> np.ndarray:
        w, h = self.size
        return (np.asarray(pixels, np.float64) - (w / 2, h / 2)) / self.camera.focal

    def _pixels(self, normalised: np.ndarray) -> np.ndarray:
        w, h = self.size
        return normalised * self.camera.focal + (w / 2, h / 2)

    def distort(self, pinhole_px: np.ndarray) -> np.ndarray:
        """Output pixels ``(N, 2)`` of points the pinhole camera sees at ``pinhole_px``."""
        pu = self._normalised(pinhole_px).reshape(-1, 2)
        pd = pu.copy()
        for _ in range(20):
            pd = pu / (1 + self.k1 * (pd**2).sum(axis=1, keepdims=True))
        return self._pixels(pd).reshape(np.shape(pinhole_px))

    def undistort(self, output_px: np.ndarray) -> np.ndarray:
        """Pinhole pixels of output pixels (the inverse of :meth:`distort`)."""
        pd = self._normalised(output_px).reshape(-1, 2)
        pu = pd * (1 + self.k1 * (pd**2).sum(axis=1, keepdims=True))
        return self._pixels(pu).reshape(np.shape(output_px))

    def project(self, points: np.ndarray) -> np.ndarray:
        """Output pixels of world points ``(..., 3)`` (mm, ``z`` up)."""
        return self.distort(self.camera.project(points))

    def finish(self, canvas: np.ndarray, look: Finish, rng: np.random.Generator) -> np.ndarray:
        """The output frame (BGR uint8, JPEG round trip) from the rendered pinhole
        ``canvas`` (BGR uint8 of :attr:`canvas` size)."""
        w, h = self.size
        cw, ch = self.canvas
        if canvas.shape[:2] != (ch, cw):
            raise ValueError(f"canvas is {canvas.shape[1]}x{canvas.shape[0]}, want {cw}x{ch}")
        grid = np.mgrid[0:h, 0:w].astype(np.float64)
        ys, xs = grid[0], grid[1]
        src = self.undistort(np.stack([xs, ys], axis=-1)) + ((cw - w) / 2, (ch - h) / 2)
        img: np.ndarray = cv2.remap(
            canvas, src[..., 0].astype(np.float32), src[..., 1].astype(np.float32),
            cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT).astype(np.float32)
        # auto white balance (the brightest pixels, tiles and paper, towards white; part of
        # the way) then the camera's own cast
        grey = img.mean(axis=2)
        white = img[grey >= np.percentile(grey, 97.0)].mean(axis=0) + 1.0
        img *= (white.mean() / white) ** 0.6 * np.asarray(look.white_balance, np.float32)
        # auto exposure: the median towards the target, without burning large bright areas
        grey = img.mean(axis=2)
        gain = look.brightness / max(float(np.median(grey)), 1.0)
        gain = min(gain, 250.0 / max(float(np.percentile(grey, 99.0)), 1.0))
        img *= float(np.clip(gain, 0.6, 1.5))
        grey = img.mean(axis=2, keepdims=True)
        img = grey + look.saturation * (img - grey)
        img = 128 + look.contrast * (img - 128)
        r2 = ((xs - w / 2) ** 2 + (ys - h / 2) ** 2) / ((w / 2) ** 2 + (h / 2) ** 2)
        img *= (1 - look.vignette * r2)[..., None].astype(np.float32)
        img = cv2.GaussianBlur(img, (0, 0), look.blur)
        if look.motion > 0.5:
            img = _motion_blur(img, look.motion, look.motion_angle)
        shot = rng.normal(0, 1, img.shape).astype(np.float32) * np.sqrt(np.maximum(img, 0) / 255)
        img += look.noise * (shot + 0.5 * rng.normal(0, 1, img.shape).astype(np.float32))
        out = np.clip(img, 0, 255).astype(np.uint8)
        ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, look.quality])
        if not ok:
            raise RuntimeError("JPEG encoding failed")
        decoded = cv2.imdecode(buf, cv2.IMREAD_COLOR)
        if decoded is None:
            raise RuntimeError("JPEG decoding failed")
        return np.asarray(decoded)


def _motion_blur(img: np.ndarray, length: float, angle_deg: float) -> np.ndarray:
    n = int(np.ceil(length)) * 2 + 1
    kernel = np.zeros((n, n), np.float32)
    c = n // 2
    d = np.array([np.cos(np.radians(angle_deg)), np.sin(np.radians(angle_deg))]) * length / 2
    cv2.line(kernel, (int(round(c - d[0])), int(round(c - d[1]))),
             (int(round(c + d[0])), int(round(c + d[1]))), 1.0, 1)
    return cv2.filter2D(img, -1, kernel / kernel.sum())


def diagonal_to_horizontal(fov_diag_deg: float, size: tuple[int, int]) -> float:
    """Horizontal field of view (degrees) of a lens quoted by its diagonal one."""
    w, h = size
    half = np.tan(np.radians(fov_diag_deg) / 2) * w / np.hypot(w, h)
    return float(np.degrees(2 * np.arctan(half)))
