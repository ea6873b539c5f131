"""Scoring helpers the benchmarks share: matching read tiles to labelled ones, and rates."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from vision.models.detections import match_boxes

if TYPE_CHECKING:
    from vision.reading.reader import FrameReading


def match(truth: np.ndarray, read: np.ndarray, threshold: float = 0.5) -> list[tuple[int, int]]:
    """One-to-one pairs ``(truth index, read index)`` by polygon IoU, best first."""
    return match_boxes(truth, read, threshold)


@dataclass(frozen=True)
class LabelledRead:
    """A frame's read tiles against a scene's labels (``tiles``, ``face_down``)."""

    want: np.ndarray  #: the labelled tiles' corners (N, 4, 2)
    got: np.ndarray  #: the read tiles' corners (M, 4, 2)
    pairs: list[tuple[int, int]]  #: (label, read) pairs matched by IoU
    right: int  #: pairs whose values are the label's
    unmatched: list[int]  #: read tiles matching no labelled tile
    on_backs: int  #: of those, how many lie on a labelled face-down tile


def labelled_read(labels: dict[str, Any], frame: FrameReading) -> LabelledRead:
    """Match ``frame``'s read tiles to ``labels``' tiles and face-down tiles."""
    want = np.array([t["corners"] for t in labels["tiles"]], np.float32).reshape(-1, 4, 2)
    got = np.array([t.corners for t in frame.tiles.each()], np.float32).reshape(-1, 4, 2)
    pairs = match(want, got)
    right = sum(sorted(labels["tiles"][a]["values"]) == sorted(frame.tiles.reading(b).values)
                for a, b in pairs)
    backs = np.array([t["corners"] for t in labels.get("face_down", [])],
                     np.float32).reshape(-1, 4, 2)
    unmatched = sorted(set(range(len(got))) - {b for _, b in pairs})
    on_backs = len(match(backs, got[unmatched])) if unmatched and len(backs) else 0
    return LabelledRead(want, got, pairs, right, unmatched, on_backs)


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
