"""Fakes for following a game with ``vision.tracking.tracker``: a synthetic table drawn frame by
frame (:class:`Game`), a reader that reads what was drawn (:class:`FakeReader`, a
``vision.reading.reader_interface.TileSource``) and a capture over a list of frames."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from datasets.table_layout import layout_table, overhead_homography, random_table
from engine import Observer, RuleSet, TableState, Train
from vision.mat.geometry import apply_homography
from vision.models.detections import Detections
from vision.models.onnx_models import BareBoxes, off_bare
from vision.reading.reader_interface import BoxReadings
from vision.readings import FrameReading, TileReading, TileReadings
from vision.tracking.tracker import Tracker

SIZE = (640, 360)
FPS = 10.0


class Game:
    """A table laid out once; state ``k`` shows its first ``k`` tiles in play order."""

    def __init__(self, seed: int, players: int = 3, n_tiles: int = 8) -> None:
        rng = np.random.default_rng(seed)
        self.final = random_table(rng, players, 12, n_tiles, marker_rate=0.0)
        self.layout = layout_table(self.final, players, rng)
        self.to_image = overhead_homography(self.layout.size, SIZE)
        self.players = players
        order = sorted((t for t in self.layout.tiles if t.owner is not None),
                       key=lambda t: (t.index, str(t.owner)))
        self.order = order
        #: tiles of ``order`` taken off the table in states from ``taken_from`` on
        self.taken: set[int] = set()
        self.taken_from = 10**6
        #: ``order`` index -> other values shown there in states from ``swapped_from`` on
        self.swapped: dict[int, tuple[int, int]] = {}
        self.swapped_from = 10**6

    def state(self, k: int) -> TableState:
        shown = self.order[:k]
        trains = []
        for train in self.final.trains:
            n = sum(1 for t in shown if t.owner == train.owner)
            trains.append(Train(train.owner, train.tiles[:n], False))
        return TableState(self.final.engine, tuple(trains))

    def tiles(self, k: int) -> list[Any]:
        shown = [t for i, t in enumerate(self.order[:k])
                 if not (k >= self.taken_from and i in self.taken)]
        if k >= self.swapped_from:
            shown = [replace(t, values=self.swapped.get(self.order.index(t), t.values))
                     for t in shown]
        return [self.layout.tiles[0], *shown]

    def draw(self, k: int, rng: np.random.Generator, hand: float | None = None,
             light: float = 1.0) -> np.ndarray:
        frame = np.full((SIZE[1], SIZE[0], 3), (60, 110, 60), np.uint8)
        for tile in self.tiles(k):
            corners = apply_homography(self.to_image, tile.corners)
            pts = corners.astype(np.int32)
            cv2.fillPoly(frame, [pts], (235, 235, 235))
            cv2.polylines(frame, [pts], True, (20, 20, 20), 1)
            for half, value in enumerate(tile.values):  # a dot per pip, in a row
                end = corners[2 * half: 2 * half + 2].mean(axis=0)
                mid = corners.mean(axis=0)
                for j in range(int(value)):
                    at = mid + (end - mid) * (0.2 + 0.7 * (j + 0.5) / max(int(value), 1))
                    cv2.circle(frame, tuple(np.round(at).astype(int)), 1, (20, 20, 20), -1)
        if hand is not None:  # a hand reaching in from the bottom edge
            y = int(SIZE[1] * (1.0 - hand))
            cv2.ellipse(frame, (SIZE[0] // 2, y), (90, 140), 0, 0, 360, (120, 160, 220), -1)
            cv2.rectangle(frame, (SIZE[0] // 2 - 60, y), (SIZE[0] // 2 + 60, SIZE[1]),
                          (115, 155, 215), -1)  # the arm
        out = frame.astype(np.float32) * light + rng.normal(0, 1.5, frame.shape)
        out = np.clip(out, 0, 255).astype(np.uint8)
        out[0, 0] = (k, 0, 0)  # the fake reader's key to the truth; 1 pixel, no motion
        out[0, 1] = (255 if hand is not None else 0, 0, 0)  # the hand hides the last tile
        return out



#: What a fake reader reads where nothing it knows lies: junk beyond the set.
NOTHING = (13, 13)


class FakeReader:
    """Reads the state drawn into a frame; flickers one tile's value now and then.
    Looked at again where a tile lay (``read_at``), it sees nothing it knows."""

    tile_class, marker_class = 0, 1
    marker_threshold = 0.0
    join_fragments = False

    def __init__(self, game: Game, flicker: float = 0.0, seed: int = 0) -> None:
        self.game = game
        self.flicker = flicker
        self.rng = np.random.default_rng(seed)
        self.calls = 0
        self.read_tiles_count = 0
        self.read_boxes_calls = 0
        self.truth: dict[tuple[float, float], tuple[int, int]] = {}

    def detect(self, frame: np.ndarray, bare: BareBoxes | None = None) -> Detections:
        self.calls += 1
        k = int(frame[0, 0, 0]) if frame[0, 0, 0] < 200 else 0
        corners = []
        self.truth = {}
        shown = self.game.tiles(k)
        if frame[0, 1, 0] > 128 and len(shown) > 1:
            shown = shown[:-1]
        for tile in shown:
            c = apply_homography(self.game.to_image, tile.corners)
            c = c + self.rng.normal(0, 0.3, c.shape)
            corners.append(c)
            self.truth[tuple(np.round(c.mean(axis=0), 3))] = tile.values
        n = len(corners)
        return off_bare(Detections(np.array(corners).reshape(-1, 4, 2), np.ones(n),
                                   np.zeros(n)), bare, 0)

    def read_tiles(self, frame: np.ndarray, tiles: Detections) -> list[Any]:
        """The values of the tile boxed where each box lies; junk (``NOTHING``), read with
        doubt, for a box where it boxed none (a tile candidate of the known table on bare
        cloth)."""
        out = []
        keys = np.array(list(self.truth))
        for c in tiles.corners:
            gaps = np.linalg.norm(keys - c.mean(axis=0), axis=1)
            key = keys[int(np.argmin(gaps))]
            near = gaps.min() < 0.3 * np.linalg.norm(c[1] - c[0])
            values = self.truth[tuple(key)] if near else NOTHING
            if self.rng.random() < self.flicker:
                values = (values[0], (values[1] + 1) % 13)
            out.append(TileReading(values, c, uncertain=not near))
            self.read_tiles_count += 1
        return out

    def read_tiles_and_backs(self, frame: np.ndarray, tiles: Detections
                             ) -> tuple[list[Any], list[Any]]:
        return self.read_tiles(frame, tiles), []

    def read_at(self, frame: np.ndarray, corners: np.ndarray) -> TileReadings:
        return TileReadings.of([TileReading(NOTHING, c) for c in corners])

    def read_boxes(self, frame: np.ndarray, tiles: Detections, again: np.ndarray
                   ) -> BoxReadings:
        """As ``TileReader.read_boxes``: both kinds of reading in one call."""
        self.read_boxes_calls += 1
        fresh, backs = self.read_tiles_and_backs(frame, tiles) if len(tiles) else ([], [])
        return BoxReadings(TileReadings.of(fresh), TileReadings.of(backs),
                           self.read_at(frame, again))

    def read(self, frame: np.ndarray) -> FrameReading:
        found = self.detect(frame)
        return FrameReading(TileReadings.of(self.read_tiles(frame, found[found.class_id
                                                                         == self.tile_class])),
                            found[found.class_id == self.marker_class])



class WholeFrames:
    """Reads whole frames only (a ``vision.reading.reader_interface.FrameReader``): the
    tracker keeps no memory of the tiles."""

    def __init__(self, reader: FakeReader) -> None:
        self.reader = reader

    def read(self, frame: np.ndarray) -> FrameReading:
        return self.reader.read(frame)


class FakeCapture:
    """A capture over a list of frames (``None`` entries fail a read)."""

    def __init__(self, frames: list[np.ndarray | None], opened: bool = True) -> None:
        self.frames = list(frames)
        self.opened = opened

    def isOpened(self) -> bool:  # noqa: N802 - OpenCV's name
        return self.opened

    def read(self) -> tuple[bool, np.ndarray | None]:
        if not self.frames:
            return False, None
        frame = self.frames.pop(0)
        return (frame is not None), frame

    def get(self, prop: int) -> float:
        return FPS if prop == cv2.CAP_PROP_FPS else 0.0

    def release(self) -> None:
        self.frames = []


def video(game: Game, states: list[int], rng: np.random.Generator, *, hold: int = 12,
           hands: bool = True, light_drift: bool = False) -> list[np.ndarray | None]:
    frames: list[np.ndarray | None] = []
    for i, k in enumerate(states):
        if hands and i > 0:
            for h in [0.2, 0.45, 0.7, 0.7, 0.45, 0.2]:
                frames.append(game.draw(k, rng, hand=h))
        light = 1.0 + (0.15 * (i % 2) if light_drift else 0.0)
        frames.extend(game.draw(k, rng, light=light) for _ in range(hold))
    return frames


def track(tmp_path: Path, game: Game, frames: list[np.ndarray | None],
           reader: FakeReader | WholeFrames) -> tuple[Tracker, list[Any]]:
    video = tmp_path / "game.mp4"
    video.write_bytes(b"")
    tracker = Tracker(video, game.players, RuleSet.preset("standard"), reader=reader,
                      mat=False, opener=lambda _: FakeCapture(frames), sleep=lambda _: None)
    return tracker, list(tracker)


def alert_codes(events: list[Any]) -> list[str]:
    return [e.alert.code for e in events if e.kind == "alert" and e.alert is not None]


def expected_alerts(game: Game, states: list[int]) -> list[tuple[int, str, object]]:
    observer = Observer(RuleSet.preset("standard"), game.players, game.final.engine, 0,
                        unseen_moves=True)  # as the tracker's referee
    for k in states:
        observer.observe(game.state(k))
    return [(a.at, a.code, a.train) for a in observer.alerts]

