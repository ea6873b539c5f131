"""Painted rounds for the known-table tests: a fixed camera over a patterned table,
bare first (``datasets.table_sequence``), and a reader that reads what was painted
(:class:`PaintedReader`) with a phantom on the printed domino and a tile it misses."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from datasets.table_game import camera_view, play_round
from datasets.table_layout import layout_sequence
from datasets.table_sequence import Picture, table_pictures
from engine import TableState
from vision.models.detections import Detections
from vision.models.onnx_models import BareBoxes, off_bare
from vision.reading.reader_interface import BoxReadings
from vision.readings import FrameReading, TileReading, TileReadings

SIZE = (640, 360)
#: What the painted reader reads where nothing was painted.
NOTHING = (13, 13)
#: What it reads on the printed domino (a phantom, read surely).
PRINTED = (6, 6)


@dataclass
class PaintedRound:
    """The true tables of a round (the first the engine alone) and their pictures (the
    first: the bare table)."""

    tables: list[TableState]
    pictures: list[Picture]
    players: int


def painted_round(seed: int, surface: str, mat: bool, tables: int = 5,
                  players: int = 3, size: tuple[int, int] = SIZE) -> PaintedRound:
    truth = camera_view(play_round(seed, players))[:tables]
    layouts = layout_sequence(truth, players, np.random.default_rng(seed), mat=mat)
    return PaintedRound(truth, table_pictures(layouts, surface, seed, size), players)


def box(centre: Sequence[float] | np.ndarray, length: float, angle: float = 0.3
        ) -> np.ndarray:
    """A tile-shaped outline (length by half the length) at ``centre``."""
    a = np.array([np.cos(angle), np.sin(angle)])
    b = np.array([-a[1], a[0]])
    c = np.asarray(centre, float)
    h, w = length / 2, length / 4
    return np.array([c - a * h - b * w, c - a * h + b * w, c + a * h + b * w,
                     c + a * h - b * w], np.float32)


def cloth_boxes(picture: Picture, n: int, rng: np.random.Generator,
                size: tuple[int, int] = SIZE) -> np.ndarray:
    """``n`` tile-sized outlines on bare cloth, far from every tile, marker and the printed
    domino."""
    corners = [c for _, c in picture.tiles] + list(picture.markers)
    if picture.printed is not None:
        corners.append(picture.printed)
    centres = np.array([c.mean(axis=0) for c in corners])
    length = float(np.median([np.linalg.norm(c[2] - c[1]) for _, c in picture.tiles]))
    length = max(length, float(np.median([np.linalg.norm(c[1] - c[0])
                                          for _, c in picture.tiles])))
    out: list[np.ndarray] = []
    while len(out) < n:
        at = rng.uniform([length, length], [size[0] - length, size[1] - length])
        if np.min(np.linalg.norm(centres - at, axis=1)) > 3 * length:
            out.append(box(at, length, float(rng.uniform(0, np.pi))))
    return np.array(out, np.float32)


def mark(frame: np.ndarray, k: int) -> np.ndarray:
    """``frame`` with the painted reader's key (which picture) in its corner pixel."""
    frame = frame.copy()
    frame[0, 0] = (k, 0, 0)
    return frame


class PaintedReader:
    """A ``TileSource`` that reads what was painted: the frame's key pixel names the
    picture; boxes are its tiles (shifted by ``shift`` from frame ``shift_from`` on) but
    the tile of ``missed`` (picture index -> tile index) it does not find, plus a box on
    the printed domino, read surely as a 6-6 (unless not ``sees_printed``); and the
    markers painted (none with ``miss_markers``: a detector that misses them all), scored
    ``marker_score``."""

    tile_class, marker_class = 0, 1
    marker_threshold = 0.0
    join_fragments = False

    def __init__(self, rnd: PaintedRound, missed: dict[int, int] | None = None,
                 miss_markers: bool = False, sees_printed: bool = True,
                 marker_score: float = 0.9) -> None:
        self.rnd = rnd
        self.marker_score = marker_score
        self.sees_printed = sees_printed
        self.missed = missed or {}
        self.miss_markers = miss_markers
        self.offset = np.zeros(2)
        self.boxes_read: list[np.ndarray] = []
        #: The picture each look at a whole frame (``detect``) was at.
        self.looked_at: list[int] = []
        #: For each look told the bare table (``bare``): the boxes it called bare, as
        #: (picture, the printed domino among them, real tiles among them).
        self.told_bare: list[tuple[int, bool, int]] = []
        #: The picture each look not told the bare table (none known yet) was at.
        self.untold: list[int] = []

    def _truth(self, frame: np.ndarray) -> Picture:
        return self.rnd.pictures[int(frame[0, 0, 0])]

    def detect(self, frame: np.ndarray, bare: BareBoxes | None = None) -> Detections:
        picture = self._truth(frame)
        k = int(frame[0, 0, 0])
        self.looked_at.append(k)
        corners = [c + self.offset for i, (_, c) in enumerate(picture.tiles)
                   if self.missed.get(k) != i]
        if picture.printed is not None and self.sees_printed:
            corners.append(picture.printed + self.offset)
        markers = [] if self.miss_markers else [m + self.offset for m in picture.markers]
        n, m = len(corners), len(markers)
        found = Detections(np.array(corners + markers, np.float32).reshape(-1, 4, 2),
                           np.r_[np.full(n, 0.9), np.full(m, self.marker_score)],
                           np.r_[np.zeros(n), np.ones(m)])
        if bare is None:
            self.untold.append(k)
        else:
            on_bare = np.asarray(bare(found.corners), bool)[:n]
            printed = picture.printed is not None and self.sees_printed and bool(on_bare[-1])
            self.told_bare.append((k, printed, int(on_bare.sum()) - printed))
        return off_bare(found, bare, self.tile_class)

    def _value(self, frame: np.ndarray, corners: np.ndarray) -> tuple[int, int]:
        picture = self._truth(frame)
        centre = np.asarray(corners, float).mean(axis=0)
        for values, c in picture.tiles:
            c = c + self.offset
            if np.linalg.norm(c.mean(axis=0) - centre) < 0.3 * np.linalg.norm(c[1] - c[0]):
                return values
        if picture.printed is not None and np.linalg.norm(
                picture.printed.mean(axis=0) + self.offset - centre) < 5:
            return PRINTED
        return NOTHING

    def read_tiles_and_backs(self, frame: np.ndarray, tiles: Detections
                             ) -> tuple[list[Any], list[Any]]:
        self.boxes_read += list(tiles.corners)
        return [TileReading(self._value(frame, c), c) for c in tiles.corners], []

    def read_at(self, frame: np.ndarray, corners: np.ndarray) -> TileReadings:
        return TileReadings.of([TileReading(self._value(frame, c), c) for c in corners])

    def read_boxes(self, frame: np.ndarray, tiles: Detections, again: np.ndarray
                   ) -> BoxReadings:
        fresh, backs = self.read_tiles_and_backs(frame, tiles) if len(tiles) else ([], [])
        return BoxReadings(TileReadings.of(fresh), TileReadings.of(backs),
                           self.read_at(frame, again))

    def read(self, frame: np.ndarray) -> FrameReading:
        found = self.detect(frame)
        tiles, _ = self.read_tiles_and_backs(frame, found[found.class_id == self.tile_class])
        return FrameReading(TileReadings.of(tiles), found[found.class_id == self.marker_class])


class FramesCapture:
    """A capture over a list of frames."""

    def __init__(self, frames: list[np.ndarray], on_frame: Any = None) -> None:
        self.frames = list(frames)
        self.on_frame = on_frame
        self.index = 0

    def isOpened(self) -> bool:  # noqa: N802 - OpenCV's name
        return True

    def read(self) -> tuple[bool, np.ndarray | None]:
        if self.index >= len(self.frames):
            return False, None
        if self.on_frame is not None:
            self.on_frame(self.index)
        self.index += 1
        return True, self.frames[self.index - 1]

    def get(self, prop: int) -> float:
        return 10.0 if prop == cv2.CAP_PROP_FPS else 0.0

    def release(self) -> None:
        self.frames = []
