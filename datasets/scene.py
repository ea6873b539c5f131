"""One rendered image with everything needed to label it (the label JSON of DESIGN.md)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np


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
