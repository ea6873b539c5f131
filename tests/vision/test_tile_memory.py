"""vision.tracking.tile_memory: the tiles and backs a tracker knows, matched to each still
frame's boxes; the backs of a boneyard set apart once."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from tracker_fakes import FakeReader, Game, track, video

from vision.models.detections import Detections
from vision.models.onnx_models import BareBoxes
from vision.reading.reader_interface import TileSource
from vision.readings import TileReading
from vision.tracking.tile_memory import CONFIRMED_READS, TileMemory

HEAP = [np.array([[40 + 22 * j, 40], [54 + 22 * j, 40], [54 + 22 * j, 68], [40 + 22 * j, 68]],
                 np.float32) for j in range(4)]


class HeapReader(FakeReader):
    """Also finds the heap's boxes and sets them apart as backs (``read_tiles_and_backs``);
    counts the backs it set apart. A marker box lies on the first back."""

    def __init__(self, game: Game) -> None:
        super().__init__(game)
        self.backs_set_apart = 0

    def detect(self, frame: np.ndarray, bare: BareBoxes | None = None) -> Detections:
        found = super().detect(frame, bare)
        heap = np.array(HEAP) + self.rng.normal(0, 0.3, (len(HEAP), 4, 2))
        marker = HEAP[0] * 0.5 + HEAP[0].mean(axis=0) * 0.5
        return Detections.merge([found, Detections(heap, np.ones(len(HEAP)),
                                                   np.zeros(len(HEAP))),
                                 Detections(marker[None], np.ones(1), np.ones(1))])

    def read_tiles_and_backs(self, frame: np.ndarray, tiles: Detections
                             ) -> tuple[list[TileReading], list[TileReading]]:
        heap = np.array(HEAP).mean(axis=1)
        on_heap = np.array([np.min(np.linalg.norm(heap - c.mean(axis=0), axis=1)) < 3
                            for c in tiles.corners], bool)
        backs = [TileReading((0, 0), c) for c in tiles.corners[on_heap]]
        self.backs_set_apart += len(backs)
        return self.read_tiles(frame, tiles[~on_heap]), backs


def _with_heap(frame: np.ndarray | None, turned: bool = False) -> np.ndarray | None:
    """``frame`` with the heap drawn on it (its first tile turned face up: a pip on it)."""
    if frame is None:
        return None
    out = frame.copy()
    for box in HEAP:
        cv2.fillPoly(out, [box.astype(np.int32)], (200, 200, 200))
    if turned:
        centre = HEAP[0].mean(axis=0).astype(int)
        cv2.circle(out, (int(centre[0]), int(centre[1]) - 7), 3, (20, 20, 20), -1)
        cv2.line(out, (42, 54), (52, 54), (20, 20, 20), 1)
    return out


def test_the_backs_of_a_heap_are_set_apart_once_not_at_every_frame(tmp_path: Path) -> None:
    game = Game(7, n_tiles=8)
    states = list(range(len(game.order) + 1))
    frames = [_with_heap(f) for f in video(game, states, np.random.default_rng(7))]
    reader = HeapReader(game)
    tracker, events = track(tmp_path, game, frames, reader)
    assert [e.table for e in events if e.kind == "table"] == [game.state(k) for k in states]
    assert reader.backs_set_apart == tracker.backs_read == len(HEAP)
    assert tracker.backs_reused >= 4 * len(HEAP)


def test_a_back_that_looks_otherwise_is_read_again(tmp_path: Path) -> None:
    game = Game(7, n_tiles=8)
    rng = np.random.default_rng(8)
    frames = [_with_heap(game.draw(2, rng)) for _ in range(10)]
    frames += [_with_heap(game.draw(2, rng), turned=True) for _ in range(10)]
    reader = HeapReader(game)
    track(tmp_path, game, frames, reader)
    # the heap once, then the tile turned over, and only it
    assert reader.backs_set_apart == len(HEAP) + 1




def test_a_marker_on_a_back_known_already_is_no_marker() -> None:
    game = Game(7, n_tiles=8)
    frame = _with_heap(game.draw(2, np.random.default_rng(9)))
    assert frame is not None
    reader = HeapReader(game)
    memory = TileMemory(reader)
    for _ in range(3):  # the first read sets the heap apart; the next ones find it again
        _, markers = memory.update_with_detections(frame, reader.detect(frame))
        assert len(markers) == 0
    assert memory.counts.backs_read == len(HEAP) and memory.counts.backs_reused == 2 * len(HEAP)


def test_the_fake_readers_are_tile_sources() -> None:
    game = Game(1)
    assert isinstance(FakeReader(game), TileSource) and isinstance(HeapReader(game), TileSource)


def test_boxes_get_track_ids_and_unmoved_tiles_are_read_until_confirmed() -> None:
    game = Game(5, n_tiles=6)
    frame = game.draw(4, np.random.default_rng(3))
    reader = FakeReader(game)
    memory = TileMemory(reader)
    for k in range(CONFIRMED_READS + 2):
        tiles, _ = memory.update_with_detections(frame, reader.detect(frame))
        assert sorted(tuple(sorted(t.values)) for t in tiles.each()) == sorted(
            tuple(sorted(t.values)) for t in game.tiles(4))
        # read until they agreed CONFIRMED_READS times, then kept unread
        read = reader.read_tiles_count
        assert read == len(tiles) * min(k + 1, CONFIRMED_READS)
    found = reader.detect(frame)
    memory.update_with_detections(frame, found)
    assert memory.counts.tiles_reused == 3 * len(tiles)
    ids = [memory.match(c) for c in found.corners]
    assert sorted(i for i in ids if i is not None) == list(range(len(tiles)))


def test_a_settled_tile_the_detector_misses_is_kept_while_it_looks_the_same() -> None:
    game = Game(5, n_tiles=6)
    frame = game.draw(4, np.random.default_rng(3))
    reader = FakeReader(game)
    memory = TileMemory(reader)
    memory.update_with_detections(frame, reader.detect(frame))
    memory.mark_settled(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY))
    found = reader.detect(frame)
    tiles, _ = memory.update_with_detections(frame, found[np.arange(len(found)) != 0])
    assert len(tiles) == len(found) and memory.counts.tiles_kept == 1
    # taken away, the missed tile looks otherwise, and reads as nothing known: gone
    centre = found.corners[0].mean(axis=0)
    outline = (found.corners[0] - centre) * 1.3 + centre
    cv2.fillPoly(frame, [np.round(outline).astype(np.int32)], (60, 110, 60))
    tiles, _ = memory.update_with_detections(frame, found[np.arange(len(found)) != 0])
    assert len(tiles) == len(found) - 1


def test_the_memory_hands_on_values_and_track_ids_that_follow_a_tile() -> None:
    game = Game(5, n_tiles=6)
    reader = FakeReader(game)
    memory = TileMemory(reader)
    first = game.draw(3, np.random.default_rng(3))
    memory.update_with_detections(first, reader.detect(first))
    before = memory.detections
    assert sorted(map(tuple, before.data["values"].tolist())) == sorted(
        tuple(t.values) for t in memory.readings)
    ids = dict(zip(map(tuple, before.data["values"].tolist()),
                   before.data["track_id"].tolist(), strict=True))
    assert len(set(ids.values())) == len(ids)
    later = game.draw(4, np.random.default_rng(4))  # one more tile laid
    memory.update_with_detections(later, reader.detect(later))
    after = memory.detections
    again = dict(zip(map(tuple, after.data["values"].tolist()),
                     after.data["track_id"].tolist(), strict=True))
    assert len(again) == len(ids) + 1
    assert all(again[v] == i for v, i in ids.items())  # the tiles kept their ids
    assert set(again.values()) - set(ids.values()) == {max(again.values())}


def test_a_still_frame_asks_the_reader_once_for_new_boxes_and_missed_tiles() -> None:
    game = Game(5, n_tiles=6)
    reader = FakeReader(game)
    memory = TileMemory(reader)
    first = game.draw(3, np.random.default_rng(3))
    for _ in range(CONFIRMED_READS):
        memory.update_with_detections(first, reader.detect(first))
    later = game.draw(4, np.random.default_rng(4))  # one more tile laid ...
    found = reader.detect(later)
    calls, read = reader.read_boxes_calls, reader.read_tiles_count
    memory.update_with_detections(later, found[1:])  # ... and a known tile missed
    assert reader.read_boxes_calls == calls + 1
    assert reader.read_tiles_count == read + 1  # only the new tile is read


class ShiftedBoxReader(FakeReader):
    """Also boxes the first tile again, shifted half its length along it, and reads
    that box as another tile (7-8), with doubt unless ``sure``."""

    sure = False

    def detect(self, frame: np.ndarray, bare: BareBoxes | None = None) -> Detections:
        found = super().detect(frame, bare)
        c = found.corners[0]
        sides = (c[1] - c[0], c[2] - c[1])
        self.shifted = c + max(sides, key=lambda v: float(np.linalg.norm(v))) / 2
        return Detections.merge([found, Detections(self.shifted[None], np.full(1, 0.37),
                                                   np.zeros(1))])

    def read_tiles(self, frame: np.ndarray, tiles: Detections) -> list[Any]:
        out = []
        for i, c in enumerate(tiles.corners):
            if np.abs(c - self.shifted).max() < 1e-3:
                out.append(TileReading((7, 8), c, 0.9 if self.sure else 0.07, not self.sure))
                self.read_tiles_count += 1
            else:
                out.extend(super().read_tiles(frame, tiles[[i]]))
        return out


def _values(tiles: Any) -> list[tuple[int, ...]]:
    return sorted(tuple(sorted(t.values)) for t in tiles)


@pytest.mark.parametrize(("sure", "unchanged", "extra"), [
    (False, True, []),  # a doubtful box where the table did not change: no new tile
    (False, False, [(7, 8)]),  # where it changed: the reader's doubt, shown as such
    (True, True, [(7, 8)]),  # read surely: a tile the detector missed before
])
def test_a_new_box_read_with_doubt_on_unchanged_table_is_no_tile(
        sure: bool, unchanged: bool, extra: list[tuple[int, int]]) -> None:
    game = Game(5, n_tiles=6)
    frame = game.draw(4, np.random.default_rng(3))
    reader = ShiftedBoxReader(game)
    reader.sure = sure
    memory = TileMemory(reader)
    asked: list[int] = []

    def still(corners: np.ndarray) -> np.ndarray:
        asked.append(len(corners))
        return np.full(len(corners), unchanged)

    for _ in range(CONFIRMED_READS + 1):
        tiles, _ = memory.update_with_detections(frame, reader.detect(frame), still)
        assert _values(tiles.each()) == sorted([*_values(game.tiles(4)), *extra])
    assert bool(asked) == (not sure)  # only new boxes read with doubt are asked about
    assert memory.counts.doubts_unchanged == (CONFIRMED_READS + 1 if extra == [] else 0)


class PawnReader(FakeReader):
    """Also boxes a pawn both as a marker and as a tile, and reads that tile 0-0."""

    PAWN = np.array([[300, 300], [330, 300], [330, 316], [300, 316]], np.float32)

    def detect(self, frame: np.ndarray, bare: BareBoxes | None = None) -> Detections:
        found = super().detect(frame, bare)
        return Detections.merge([found, Detections(np.array([self.PAWN, self.PAWN + 0.5]),
                                                   np.ones(2), np.array([0, 1]))])

    def read_tiles(self, frame: np.ndarray, tiles: Detections) -> list[Any]:
        pawn = np.linalg.norm(tiles.corners.mean(axis=1) - self.PAWN.mean(axis=0), axis=1) < 3
        out = super().read_tiles(frame, tiles[~pawn]) if (~pawn).any() else []
        return out + [TileReading((0, 0), c) for c in tiles.corners[pawn]]


def test_a_marker_boxed_as_a_blank_tile_too_is_the_marker() -> None:
    game = Game(5, n_tiles=6)
    frame = game.draw(4, np.random.default_rng(4))
    reader = PawnReader(game)
    tiles, markers = TileMemory(reader).update_with_detections(frame, reader.detect(frame))
    assert sorted(tuple(sorted(t.values)) for t in tiles.each()) == sorted(
        tuple(sorted(t.values)) for t in game.tiles(4))
    assert len(markers) == 1
