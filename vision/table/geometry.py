"""The geometry of one read tile on the working plane (image pixels, or the mat's
millimetres): its halves, axis and size, and the small vector helpers the stages share."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

#: Counts each half could be, ``((low, high), (low, high))``.
Ranges = tuple[tuple[int, int], tuple[int, int]]


@dataclass
class PlacedTile:
    """A read tile (or an outline read again) placed on the working plane."""

    index: int
    values: tuple[int, int]
    corners: np.ndarray  # working plane
    halves: tuple[np.ndarray, np.ndarray]  # centre of the values[0] half, values[1] half
    centre: np.ndarray
    axis: np.ndarray  # unit, from the values[0] end to the values[1] end
    length: float
    width: float
    #: The counts each half could be (``vision.reading.reader.RANGE_BAND``); None: as read.
    ranges: Ranges | None = None
    #: The reader doubted its counts (``uncertain``).
    unsure: bool = False

    def could_be(self, value: int) -> bool:
        """Whether both halves could count ``value`` (the tile could be its double)."""
        if self.ranges is None:
            return self.values == (value, value)
        return all(low <= value <= high for low, high in self.ranges)

    @property
    def is_double(self) -> bool:
        return self.values[0] == self.values[1]

    def distance_to_point(self, p: np.ndarray) -> float:
        local = p - self.centre
        x, y = float(local @ self.axis), float(local @ perp(self.axis))
        return math.hypot(max(abs(x) - self.length / 2, 0.0), max(abs(y) - self.width / 2, 0.0))

    def gap_to(self, other: PlacedTile) -> float:
        """Least distance between the two outlines (0 when they touch or overlap)."""
        best = math.inf
        for a, b in ((self, other), (other, self)):
            for k in range(4):
                best = min(best, a.distance_to_point(b.corners[k]))
            for k in range(4):
                mid = (b.corners[k] + b.corners[(k + 1) % 4]) / 2
                best = min(best, a.distance_to_point(mid))
        return best


def perp(v: np.ndarray) -> np.ndarray:
    return np.array([-v[1], v[0]])


def unit(v: np.ndarray) -> np.ndarray:
    n = float(np.linalg.norm(v))
    return v / n if n > 1e-9 else np.array([1.0, 0.0])


def cos_between(a: np.ndarray, b: np.ndarray) -> float:
    return float(unit(a) @ unit(b))


def make_tile(index: int, values: Sequence[int], corners: np.ndarray,
              ranges: Ranges | None = None, unsure: bool = False) -> PlacedTile:
    c = np.asarray(corners, dtype=np.float64).reshape(4, 2)
    end_a, end_b = (c[0] + c[1]) / 2, (c[2] + c[3]) / 2
    length = float(np.linalg.norm(end_b - end_a))
    width = float((np.linalg.norm(c[1] - c[0]) + np.linalg.norm(c[3] - c[2])) / 2)
    return PlacedTile(index=index, values=(int(values[0]), int(values[1])), corners=c,
                halves=(0.75 * end_a + 0.25 * end_b, 0.25 * end_a + 0.75 * end_b),
                centre=c.mean(axis=0), axis=unit(end_b - end_a), length=length, width=width,
                ranges=None if ranges is None else (
                    (int(ranges[0][0]), int(ranges[0][1])),
                    (int(ranges[1][0]), int(ranges[1][1]))), unsure=unsure)


def nearer_half(t: PlacedTile, point: np.ndarray) -> int:
    """Which half of ``t`` (0 or 1) lies nearer ``point``; the first on a tie."""
    return 0 if np.linalg.norm(t.halves[0] - point) <= np.linalg.norm(t.halves[1] - point) else 1


def angle_deg(v: np.ndarray) -> float:
    return math.degrees(math.atan2(float(v[1]), float(v[0]))) % 360.0


def nearest_slot(angle: float, slots: int) -> tuple[int, float]:
    """Nearest slot to ``angle`` (degrees) and the offset from it in slot spacings."""
    step = 360.0 / slots
    x = ((angle - 90.0) % 360.0) / step
    k = round(x)
    return k % slots, abs(x - k)


def outline_at(centre: np.ndarray, axis: np.ndarray, w: float) -> np.ndarray:
    """Corners of a tile two widths long along ``axis`` (its ``values[0]`` end first) and
    one wide, centred on ``centre``."""
    a_end, b_end, half = centre - w * axis, centre + w * axis, 0.5 * w * perp(axis)
    return np.array([a_end - half, a_end + half, b_end + half, b_end - half])
