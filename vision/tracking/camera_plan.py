"""How high to mount a webcam over the table, and how many pixels a pip gets.

A camera looking straight down with a horizontal field of view ``h`` sees a
strip ``2 * height * tan(h / 2)`` wide. The table (its long side along the
image's width) must fit both ways; the pixels per millimetre then follow
from the resolution.

>>> plan = plan_camera(100, 100, 78, (1920, 1080))
>>> round(plan.height_cm), round(plan.px_per_pip, 1)
(139, 3.9)
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

#: A pip on a common double-12 tile (about 48 x 24 mm) is about this wide.
PIP_MM = 4.0
#: A tile's short side.
TILE_WIDTH_MM = 24.0
#: Pixels across one pip from which the reader reads 99 % of 12-pip halves right, measured
#: on rendered tables shrunk to that scale (``benchmarks/pip_scale.py``): with a
#: webcam's softness, noise and JPEG, and on a sharp frame.
TWELVE_PX_PER_PIP, TWELVE_PX_PER_PIP_SHARP = 2.5, 2.0
#: Pixels across one pip below which pips are hard to count reliably: the measured
#: figure with a margin for focus, light and a camera not quite straight above.
MIN_PX_PER_PIP = 3.0
#: Pixels across one pip above which the camera could sit higher (or see more).
COMFORTABLE_PX_PER_PIP = 5.0
#: Space kept round the table's edge in the image (fraction of each side).
MARGIN = 0.05


@dataclass(frozen=True)
class CameraPlan:
    """Where to put a camera, and what it then sees."""

    table_cm: tuple[float, float]
    fov_deg: float
    resolution: tuple[int, int]
    hfov_deg: float
    vfov_deg: float
    height_cm: float
    px_per_mm: float
    px_per_pip: float
    px_per_tile_width: float
    verdict: str

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        for key, value in out.items():
            if isinstance(value, float):
                out[key] = round(value, 2)
        return out

    def text(self) -> str:
        w, h = self.table_cm
        return "\n".join([
            f"table            {w:g} x {h:g} cm",
            f"camera           {self.resolution[0]}x{self.resolution[1]}, "
            f"{self.fov_deg:g} degrees diagonal ({self.hfov_deg:.0f} x {self.vfov_deg:.0f})",
            f"mount height     {self.height_cm:.0f} cm above the table, lens straight down",
            f"pixels per mm    {self.px_per_mm:.2f}",
            f"pixels per pip   {self.px_per_pip:.1f} (a {PIP_MM:g} mm pip)",
            f"12-pip halves    read right (99 %) from {TWELVE_PX_PER_PIP:g} px per pip "
            f"({TWELVE_PX_PER_PIP_SHARP:g} on a sharp frame); {MIN_PX_PER_PIP:g} needed here "
            "for margin",
            f"pixels per tile  {self.px_per_tile_width:.0f} across a tile's short side",
            f"verdict          {self.verdict}",
        ])


def fov_axes(diagonal_deg: float, resolution: tuple[int, int]) -> tuple[float, float]:
    """Horizontal and vertical field of view (degrees) from the diagonal one."""
    w, h = resolution
    d = math.hypot(w, h)
    t = math.tan(math.radians(diagonal_deg) / 2)
    return (math.degrees(2 * math.atan(t * w / d)), math.degrees(2 * math.atan(t * h / d)))


def plan_camera(table_w_cm: float, table_h_cm: float, fov_deg: float,
                resolution: tuple[int, int], pip_mm: float = PIP_MM) -> CameraPlan:
    """The lowest mounting height that shows the whole table, and what a pip gets there.

    ``fov_deg`` is the diagonal field of view, as webcam makers quote it.
    Raises ``ValueError`` for impossible numbers.
    """
    if table_w_cm <= 0 or table_h_cm <= 0:
        raise ValueError("the table size must be positive")
    if not 10 <= fov_deg < 170:
        raise ValueError("the field of view must be between 10 and 170 degrees")
    if resolution[0] <= 0 or resolution[1] <= 0:
        raise ValueError("the resolution must be positive")
    long_side, short_side = max(table_w_cm, table_h_cm), min(table_w_cm, table_h_cm)
    img_long, img_short = max(resolution), min(resolution)
    hfov, vfov = fov_axes(fov_deg, (img_long, img_short))
    need_long = long_side * 10 * (1 + 2 * MARGIN)
    need_short = short_side * 10 * (1 + 2 * MARGIN)
    height_mm = max(need_long / (2 * math.tan(math.radians(hfov) / 2)),
                    need_short / (2 * math.tan(math.radians(vfov) / 2)))
    seen_long = 2 * height_mm * math.tan(math.radians(hfov) / 2)
    px_per_mm = img_long / seen_long
    px_per_pip = px_per_mm * pip_mm
    if px_per_pip < MIN_PX_PER_PIP:
        verdict = (f"too few pixels per pip (need {MIN_PX_PER_PIP:g}): use a higher "
                   "resolution, a narrower lens, or watch a smaller area")
    elif px_per_pip < COMFORTABLE_PX_PER_PIP:
        verdict = "workable; pips are small, so light the table evenly and keep the focus sharp"
    else:
        verdict = "good"
    if resolution[0] < resolution[1]:
        hfov, vfov = vfov, hfov
    return CameraPlan((float(table_w_cm), float(table_h_cm)), float(fov_deg),
                      (int(resolution[0]), int(resolution[1])), hfov, vfov, height_mm / 10,
                      px_per_mm, px_per_pip, px_per_mm * TILE_WIDTH_MM, verdict)


def parse_size(text: str, source: str) -> tuple[float, float]:
    """``"100"`` or ``"90x160"`` (centimetres) as ``(w, h)``."""
    from engine.errors import BadInputError

    parts = text.lower().replace("×", "x").split("x")
    try:
        values = [float(p) for p in parts]
    except ValueError:
        raise BadInputError(source, f"expected a size like 100 or 90x160, got {text!r}") from None
    if len(values) == 1:
        values = values * 2
    if len(values) != 2 or min(values) <= 0:
        raise BadInputError(source, f"expected a size like 100 or 90x160, got {text!r}")
    return values[0], values[1]


def parse_resolution(text: str, source: str = "--resolution") -> tuple[int, int]:
    """``"1920x1080"`` as ``(1920, 1080)``."""
    from engine.errors import BadInputError

    parts = text.lower().replace("×", "x").split("x")
    try:
        w, h = (int(p) for p in parts)
    except ValueError:
        raise BadInputError(source, f"expected WIDTHxHEIGHT like 1920x1080, got {text!r}") from None
    if w <= 0 or h <= 0:
        raise BadInputError(source, f"expected WIDTHxHEIGHT like 1920x1080, got {text!r}")
    return w, h
