"""What a composited frame shows, in table millimetres, and the webcam that sees it.

The table comes from the layout code (``datasets.table_layout``: trains round a hub
or on the printed mat, doubles across or in line, markers at train ends); beside it
may lie a player's hand laid out face up in a row and a heap of face-down tiles
(the boneyard). No pixels here: :mod:`datasets.composite.compose` draws the plan.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from datasets.camera import Camera
from datasets.table_layout import (
    MARKER_SIZE_MM,
    TILE_WIDTH_MM,
    TableLayout,
    layout_table,
    random_table,
)
from datasets.table_scene import overlaps, tile_corners

#: Output frame: a webcam's 720p.
FRAME = (1280, 720)
#: The sets a table is played with (its largest half), and how often each is drawn.
SETS = (6, 9, 12, 15)
SET_SHARES = (0.05, 0.15, 0.65, 0.15)
#: Heights (mm) of what stands on the table, by kind.
HEIGHT_MM = {"tile": 8.5, "back": 8.5, "coin": 2.0, "toy-train": 22.0, "pawn": 25.0,
             "block": 14.0}
#: Footprints of markers the layout does not lay (length, width; mm).
EXTRA_MARKER_MM = {"block": (16.0, 16.0)}


@dataclass(frozen=True)
class Placed:
    """One object on the table: ``kind`` (tile, back, marker), its footprint ``corners``
    (4, 2) mm (a tile's first two at ``values[0]``'s end), and a marker's kind."""

    kind: str
    corners: np.ndarray
    values: tuple[int, int] = (0, 0)
    marker: str = ""
    part: str = "train"  # train, hand, boneyard


@dataclass
class FramePlan:
    """Everything a frame shows: the objects, the table they come from, the webcam."""

    objects: list[Placed]
    camera: Camera
    set_max: int
    players: int
    table: dict[str, Any] | None
    mat: np.ndarray | None  # mat mm -> table mm (3x3) when the mat lies under the table
    tile_px: float  # a tile's length in pixels at the table's middle
    extras: dict[str, Any] = field(default_factory=dict)


def _layout(rng: np.random.Generator, mat: bool, set_max: int) -> tuple[int, TableLayout]:
    players = int(rng.integers(2, 9))
    n_tiles = int(rng.integers(0, 14 + 5 * players))
    inline = float(rng.choice([0.0, 0.3, 1.0], p=[0.6, 0.25, 0.15]))
    for tries in range(6):
        table = random_table(rng, players, set_max, n_tiles >> (tries // 2), marker_rate=0.4)
        try:
            return players, layout_table(table, players, rng, mat=mat, inline_doubles=inline)
        except ValueError:
            continue
    raise ValueError("no table could be laid out")


def _free(corners: np.ndarray, taken: list[np.ndarray], pad: float) -> bool:
    return not any(overlaps(corners, other, pad) for other in taken)


def _hand(rng: np.random.Generator, taken: list[np.ndarray], set_max: int,
          around: np.ndarray) -> list[Placed]:
    """A hand laid out face up in a row, long sides touching, clear of the table."""
    count = int(rng.integers(3, 11))
    width = TILE_WIDTH_MM
    for _ in range(30):
        angle = float(rng.uniform(0, 2 * np.pi))
        start = around + rng.normal(0, 1, 2) * rng.uniform(150, 350)
        step = np.array([np.cos(angle + np.pi / 2), np.sin(angle + np.pi / 2)]) * (width + 1.0)
        row = [tile_corners(start + k * step, angle, width) for k in range(count)]
        if all(_free(c, taken, 6.0) for c in row):
            taken += row
            values = [(int(rng.integers(set_max + 1)), int(rng.integers(set_max + 1)))
                      for _ in row]
            return [Placed("tile", c, v, part="hand") for c, v in zip(row, values, strict=True)]
    return []


def _boneyard(rng: np.random.Generator, taken: list[np.ndarray],
              around: np.ndarray) -> list[Placed]:
    """A loose heap of face-down tiles clear of everything else."""
    count = int(rng.integers(4, 15))
    heap = around + rng.normal(0, 1, 2) * rng.uniform(150, 350)
    spread = 1.1 * TILE_WIDTH_MM * np.sqrt(count)
    out: list[Placed] = []
    for _ in range(30 * count):
        if len(out) >= count:
            break
        corners = tile_corners(heap + rng.normal(0, spread / 2, 2), rng.uniform(0, 2 * np.pi),
                               TILE_WIDTH_MM)
        if _free(corners, taken, 2.0):
            taken.append(corners)
            out.append(Placed("back", corners, part="boneyard"))
    return out


def marker_footprint(kind: str, centre: np.ndarray, angle: float) -> np.ndarray:
    length, width = {**MARKER_SIZE_MM, **EXTRA_MARKER_MM}[kind]
    d = np.array([np.cos(angle), np.sin(angle)]) * length / 2
    p = np.array([-np.sin(angle), np.cos(angle)]) * width / 2
    return np.stack([centre - d - p, centre - d + p, centre + d + p, centre + d - p])


def webcam_over(rng: np.random.Generator, target: np.ndarray, tile_px: float,
                size: tuple[int, int] = FRAME) -> Camera:
    """A webcam over ``target`` (mm) at the height that makes a tile ``tile_px`` long:
    mostly straight down, a third of the time tilted 8-25 degrees."""
    w, h = size
    fov = float(rng.uniform(55, 80))
    focal = 0.5 * w / np.tan(np.radians(fov) / 2)
    distance = focal * 2 * TILE_WIDTH_MM / tile_px
    tilt = float(rng.uniform(8, 25) if rng.random() < 0.33 else abs(rng.normal(0, 4)))
    return Camera.look_at(w, h, fov, (float(target[0]), float(target[1])), distance, tilt,
                          float(rng.uniform(0, 360)), float(rng.normal(0, 2)))


def plan_frame(rng: np.random.Generator, size: tuple[int, int] = FRAME,
               mat: bool | None = None) -> FramePlan:
    """A table, perhaps a hand and a boneyard beside it, and a webcam over part of it;
    on the printed mat three times in ten (``mat``, when given, says whether)."""
    drawn = bool(rng.random() < 0.3)
    mat = drawn if mat is None else mat
    set_max = int(rng.choice(SETS, p=SET_SHARES))
    players, layout = _layout(rng, mat, set_max)
    objects = [Placed("tile", t.corners, (int(t.values[0]), int(t.values[1])))
               for t in layout.tiles]
    for m in layout.markers:
        kind = "block" if rng.random() < 0.2 else str(m.kind)
        c = m.corners
        angle = float(np.arctan2(*(c[3] - c[0])[::-1]))
        objects.append(Placed("marker", marker_footprint(kind, m.centre, angle), marker=kind))
    taken = [o.corners for o in objects]
    centre = np.asarray(layout.hub.centre, np.float64)
    if rng.random() < 0.3:
        objects += _hand(rng, taken, set_max, centre)
    if rng.random() < 0.4:
        objects += _boneyard(rng, taken, centre)
    tile_px = float(np.exp(rng.uniform(np.log(45), np.log(160))))
    look = objects[int(rng.integers(len(objects)))].corners.mean(axis=0) if objects else centre
    camera = webcam_over(rng, look + rng.normal(0, 60, 2), tile_px, size)
    return FramePlan(objects=objects, camera=camera, set_max=set_max, players=players,
                     table=dict(layout.table.to_json()), mat=layout.hub.mat_matrix if mat else None,
                     tile_px=tile_px)


def set_shown(set_max: int, tiles: list[dict[str, Any]]) -> int:
    """The set a frame's labelled ``tiles`` come from: ``set_max``, or the smallest of
    ``SETS`` that holds a tile of other values shown in place of one no sprite shows (a
    reader told the table's set reads a half beyond it as at most its top)."""
    top = max([set_max] + [max(t["values"]) for t in tiles])
    return next((s for s in SETS if s >= top), top)

