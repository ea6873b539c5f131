"""A pinhole camera over the table plane (millimetres, ``z`` up)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Camera:
    """Intrinsics ``k`` (3x3), rotation ``r`` (3x3, world to camera) and centre ``c``."""

    k: np.ndarray
    r: np.ndarray
    c: np.ndarray
    width: int
    height: int

    @classmethod
    def look_at(
        cls,
        width: int,
        height: int,
        fov_deg: float,
        target: tuple[float, float],
        distance: float,
        tilt_deg: float,
        azimuth_deg: float,
        roll_deg: float = 0.0,
    ) -> Camera:
        """A camera ``distance`` mm from ``target`` on the table, tilted ``tilt_deg`` from
        straight down, standing on the ``azimuth_deg`` side, rolled ``roll_deg``."""
        f = 0.5 * max(width, height) / np.tan(np.radians(fov_deg) / 2)
        k = np.array([[f, 0, width / 2], [0, f, height / 2], [0, 0, 1]], dtype=np.float64)
        tilt, az, roll = np.radians([tilt_deg, azimuth_deg, roll_deg])
        horiz = np.array([np.cos(az), np.sin(az), 0.0])
        t3 = np.array([target[0], target[1], 0.0])
        centre = t3 + distance * (np.sin(tilt) * horiz + np.array([0.0, 0.0, np.cos(tilt)]))
        forward = (t3 - centre) / np.linalg.norm(t3 - centre)
        far = -horiz if tilt_deg > 1e-6 else np.array([-np.sin(az), np.cos(az), 0.0])
        up = far - forward * float(far @ forward)
        up /= np.linalg.norm(up)
        y_cam = -up
        x_cam = np.cross(y_cam, forward)
        cr, sr = np.cos(roll), np.sin(roll)
        x_rot = cr * x_cam + sr * y_cam
        y_rot = -sr * x_cam + cr * y_cam
        r = np.stack([x_rot, y_rot, forward])
        return cls(k=k, r=r, c=centre, width=width, height=height)

    def project(self, points: np.ndarray) -> np.ndarray:
        """Image pixels ``(N, 2)`` of world points ``(N, 3)`` (or ``(N, 2)`` on ``z = 0``)."""
        p = np.asarray(points, dtype=np.float64)
        if p.shape[-1] == 2:
            p = np.concatenate([p, np.zeros((*p.shape[:-1], 1))], axis=-1)
        cam = (p.reshape(-1, 3) - self.c) @ self.r.T
        uvw = cam @ self.k.T
        return (uvw[:, :2] / uvw[:, 2:3]).reshape(*p.shape[:-1], 2)

    def depth(self, points: np.ndarray) -> np.ndarray:
        """Distance along the optical axis of world points ``(N, 3)``."""
        p = np.asarray(points, dtype=np.float64).reshape(-1, 3)
        return (p - self.c) @ self.r[2]

    def plane_homography(self, z: float = 0.0) -> np.ndarray:
        """3x3 homography from table-plane ``(x, y)`` at height ``z`` to image pixels."""
        t = -self.r @ self.c
        m = np.stack([self.r[:, 0], self.r[:, 1], self.r[:, 2] * z + t], axis=1)
        return self.k @ m

    def image_to_plane(self, pixels: np.ndarray) -> np.ndarray:
        """Points ``(N, 2)`` on the table plane seen at image ``pixels`` ``(N, 2)``."""
        h_inv = np.linalg.inv(self.plane_homography())
        p = (
            np.concatenate(
                [np.asarray(pixels, dtype=np.float64), np.ones((len(pixels), 1))], axis=1
            )
            @ h_inv.T
        )
        return p[:, :2] / p[:, 2:3]

    @property
    def focal(self) -> float:
        return float(self.k[0, 0])
