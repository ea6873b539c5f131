"""Scoring helpers the benchmarks share: matching read tiles to labelled ones, and rates."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from vision.models.detections import match_boxes


def match(truth: np.ndarray, read: np.ndarray, threshold: float = 0.5) -> list[tuple[int, int]]:
    """One-to-one pairs ``(truth index, read index)`` by polygon IoU, best first."""
    return match_boxes(truth, read, threshold)


def aligned_values(truth_corners: np.ndarray, read_corners: np.ndarray,
                   read_values: tuple[int, int]) -> tuple[int, int]:
    """The read values reordered so that the first lies at the labelled ``a`` end."""
    a_end = truth_corners[:2].mean(axis=0)
    mine_a = read_corners[:2].mean(axis=0)
    mine_b = read_corners[2:].mean(axis=0)
    if np.linalg.norm(mine_a - a_end) <= np.linalg.norm(mine_b - a_end):
        return read_values
    return read_values[1], read_values[0]


def box_corners(xyxy: Iterable[float]) -> np.ndarray:
    x0, y0, x1, y1 = xyxy
    return np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float32)


def rate(num: int, den: int) -> float | None:
    return round(num / den, 4) if den else None
