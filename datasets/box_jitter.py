"""Tile corners as a detector gives them: shifted, scaled, turned a little (the crops the
pip and half models learn from are cut with these boxes)."""

from __future__ import annotations

import cv2
import numpy as np


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
