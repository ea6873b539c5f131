"""vision.stills.trouble_spots: the detector looks again, closer, around a table's loose tiles."""

from __future__ import annotations

from dataclasses import replace
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest
from reader_fixtures import MODELS, needs_trained_models

from vision.models.detections import Detections
from vision.models.domino_check import DOUBT_REASON
from vision.readings import FrameReading, TileReading, TileReadings
from vision.stills.trouble_spots import (
    MAX_WINDOWS,
    WINDOW_SIDE,
    WINDOW_WIDTHS,
    _windows,
    end_centres,
    look_at_doubts,
    look_closer,
    look_where_changed,
    loose_centres,
    unlaid_indices,
)

W = 10.0  # tile width in image pixels
SIDE = int(WINDOW_WIDTHS * W)  # a closer look's window side, in image pixels


def origin(cx: float, cy: float) -> np.ndarray:
    """The top left corner of the closer look's window around ``(cx, cy)`` (inside the
    image)."""
    return np.array([round(cx - SIDE / 2), round(cy - SIDE / 2)], np.float32)


def tile(cx: float, cy: float, values: tuple[int, int] = (1, 2),
         confidence: float = 0.9) -> TileReading:
    """A tile lying along x, centred at ``(cx, cy)``, ``values[0]`` at its left end."""
    corners = np.array([[cx - W, cy - W / 2], [cx - W, cy + W / 2],
                        [cx + W, cy + W / 2], [cx + W, cy - W / 2]], np.float32)
    return TileReading(values, corners, confidence, False)


class FakeDetector:
    """Finds the given boxes (image pixels) in any window that holds them, as a
    detector run on the window's crop would: in crop pixels."""

    def __init__(self, boxes: list[TileReading]) -> None:
        self.boxes = boxes
        self.calls: list[tuple[tuple[int, ...], int | None]] = []
        self.origins: list[np.ndarray] = []

    def __call__(self, crop: np.ndarray, long_side: int | None = None) -> Detections:
        self.calls.append((crop.shape, long_side))
        origin = self.origins[len(self.calls) - 1]
        corners = np.array([b.corners for b in self.boxes], np.float32).reshape(-1, 4, 2)
        return Detections(corners - origin, np.full(len(corners), 0.9),
                          np.zeros(len(corners), np.int64))


class FakeReader:
    """Reads each box the detector found as the values of the fake box it is."""

    tile_class = 0
    #: The long side the whole image was looked at with (None: not told).
    look_side: int | None = None

    def __init__(self, boxes: list[TileReading], image: np.ndarray) -> None:
        self.detector = FakeDetector(boxes)
        self.boxes = boxes
        self.image = image

    def read_tiles(self, image: np.ndarray, found: Detections) -> TileReadings:
        assert image is self.image
        out = []
        for corners in found.corners:
            match = min(self.boxes, key=lambda b: float(np.abs(b.corners - corners).sum()))
            out.append(TileReading(match.values, corners, 0.95, False))
        return TileReadings.of(out)


class FakeBackReader(FakeReader):
    """Reads as :class:`FakeReader` does, and sets the boxes read 0-0 apart as backs."""

    def read_tiles_and_backs(self, image: np.ndarray, found: Detections
                             ) -> tuple[TileReadings, TileReadings]:
        read = self.read_tiles(image, found).each()
        return (TileReadings.of([t for t in read if t.values != (0, 0)]),
                TileReadings.of([t for t in read if t.values == (0, 0)]))


def table_reading(assignment: list[Any], laid: int) -> Any:
    trains = [SimpleNamespace(tiles=[(0, 0)] * laid)]
    return SimpleNamespace(assignment=assignment, table=SimpleNamespace(trains=trains))


def frame_of(tiles: list[TileReading]) -> FrameReading:
    return FrameReading(TileReadings.of(tiles), Detections.empty(), (400, 600))


def test_the_loose_tiles_are_those_on_no_train_and_not_the_engine() -> None:
    frame = frame_of([tile(50, 50), tile(100, 50), tile(150, 50)])
    reading = table_reading(["engine", None, 0], 1)
    centres = loose_centres(reading, frame)
    assert len(centres) == 1
    np.testing.assert_allclose(centres[0], [100, 50])


def test_the_unlaid_tiles_are_the_loose_ones_and_an_engine_no_train_goes_on_from() -> None:
    """What ``read_table`` lets ``look_at_doubts`` look at: a doubted box a train goes on
    from is where the rules expect a tile, and stays."""
    frame = frame_of([tile(50, 50), tile(100, 50), tile(150, 50)])
    reading = table_reading(["engine", None, 0], 1)
    reading.positions = {0: [2]}
    assert unlaid_indices(reading, frame) == [1]
    alone = table_reading(["engine", None, None], 0)  # a lone box taken for the engine
    alone.positions = {}
    assert unlaid_indices(alone, frame) == [0, 1, 2]


def test_each_train_ends_at_its_last_tile_a_box_shows() -> None:
    frame = frame_of([tile(50, 50), tile(100, 50), tile(150, 50), tile(50, 100)])
    reading = table_reading(["engine", 0, 0, 1], 2)
    reading.positions = {0: [1, 2, 7], 1: [3], "mexican": [9]}  # 7 and 9: inferred tiles
    assert [c.tolist() for c in end_centres(reading, frame)] == [[150, 50], [50, 100]]


def test_a_table_with_nothing_loose_is_not_looked_at_again() -> None:
    image = np.zeros((400, 600, 3), np.uint8)
    frame = frame_of([tile(50, 50), tile(100, 50)])
    reading = table_reading(["engine", 0], 1)
    reader = FakeReader([], image)
    rebuilt: list[FrameReading] = []
    got = look_closer(reader, image, frame, reading, lambda f: rebuilt.append(f))
    assert got == (frame, reading)
    assert reader.detector.calls == [] and rebuilt == []


def test_boxes_found_closer_replace_those_they_overlap_and_join_the_rest() -> None:
    image = np.zeros((400, 600, 3), np.uint8)
    misplaced = tile(203, 104, (8, 1), 0.3)  # a box slid off its tile, read wrong
    frame = frame_of([tile(100, 100), misplaced])
    reading = table_reading(["engine", None], 0)
    right = tile(200, 100, (0, 10))
    unseen = tile(200, 111, (10, 10))  # a tile no box was found for
    reader = FakeReader([right, unseen], image)
    reader.detector.origins = [origin(203, 104)]  # around the loose box
    rebuilt: list[FrameReading] = []

    def rebuild(f: FrameReading) -> Any:
        rebuilt.append(f)
        return table_reading(["engine", 0, 0], 2)

    closer, again = look_closer(reader, image, frame, reading, rebuild)
    assert reader.detector.calls == [((SIDE, SIDE, 3), WINDOW_SIDE)]
    assert closer is rebuilt[0] and again.table.trains[0].tiles == [(0, 0)] * 2
    assert sorted(t.values for t in closer.tiles.each()) == [(0, 10), (1, 2), (10, 10)]
    assert misplaced.values not in [t.values for t in closer.tiles.each()]
    assert list(closer.tiles.confidence) == sorted(closer.tiles.confidence, reverse=True)


def test_the_first_table_stays_when_the_closer_look_lays_no_more_tiles() -> None:
    image = np.zeros((400, 600, 3), np.uint8)
    frame = frame_of([tile(100, 100), tile(200, 100, (8, 1))])
    reading = table_reading(["engine", None], 1)
    reader = FakeReader([tile(200, 100, (0, 10))], image)
    reader.detector.origins = [origin(200, 100)]
    got = look_closer(reader, image, frame, reading, lambda f: table_reading([], 1))
    assert got == (frame, reading)
    assert len(reader.detector.calls) == 1


def test_a_window_that_finds_only_tiles_read_surely_is_not_read_again() -> None:
    image = np.zeros((400, 600, 3), np.uint8)
    loose = tile(200, 100, (8, 1))  # read surely, but on no train
    frame = frame_of([tile(100, 100), loose])
    reading = table_reading(["engine", None], 0)
    again = tile(201, 100.5, (8, 1))  # the same tile, boxed a little differently
    reader = FakeReader([again], image)
    reader.detector.origins = [origin(200, 100)]
    read: list[Detections] = []

    def read_tiles(image: np.ndarray, found: Detections) -> TileReadings:
        read.append(found)
        return TileReadings.empty()

    reader.read_tiles = read_tiles  # type: ignore[method-assign]
    rebuilt: list[FrameReading] = []
    got = look_closer(reader, image, frame, reading, lambda f: rebuilt.append(f))
    assert len(reader.detector.calls) == 1  # looked at closer ...
    assert got == (frame, reading) and read == [] and rebuilt == []  # ... not read again
    # the same window over a tile read with doubt is read, and the table rebuilt
    doubted = TileReading(loose.values, loose.corners, 0.4, True)
    frame = frame_of([tile(100, 100), doubted])
    reader = FakeReader([again], image)
    reader.detector.origins = [origin(200, 100)]
    closer, _ = look_closer(reader, image, frame, reading, lambda f: table_reading([], 1))
    assert [t.uncertain for t in closer.tiles.each()] == [False, False]


def test_a_box_cut_by_the_windows_edge_is_no_tile() -> None:
    image = np.zeros((400, 600, 3), np.uint8)
    frame = frame_of([tile(100, 100), tile(200, 100, (8, 1))])
    reading = table_reading(["engine", None], 0)
    cut = tile(196 + SIDE / 2, 100, (3, 4))  # reaches past the window's right edge
    reader = FakeReader([cut], image)
    reader.detector.origins = [origin(200, 100)]
    rebuilt: list[FrameReading] = []
    got = look_closer(reader, image, frame, reading, lambda f: rebuilt.append(f))
    assert got == (frame, reading) and rebuilt == []


def test_windows_cover_each_spot_once_inside_the_image_and_are_few() -> None:
    spots = [np.array([5.0, 5.0]), np.array([12.0, 8.0]), np.array([300.0, 390.0])]
    windows = _windows(spots, 80, (400, 600))
    assert windows == [(0, 0, 80), (260, 320, 80)]  # the second spot lies in the first
    many = [np.array([x, 200.0]) for x in range(20, 600, 25)]
    assert len(many) > MAX_WINDOWS
    assert len(_windows(many, 20, (400, 600))) == MAX_WINDOWS
    # a window never outgrows the image
    assert _windows([np.array([10.0, 10.0])], 1000, (400, 600)) == [(0, 0, 400)]


@pytest.mark.parametrize("reader", [SimpleNamespace()])
def test_a_reader_without_a_detector_changes_nothing(reader: Any) -> None:
    image = np.zeros((400, 600, 3), np.uint8)
    frame = frame_of([tile(100, 100), tile(200, 100)])
    reading = table_reading(["engine", None], 0)
    assert look_closer(reader, image, frame, reading, lambda f: None) == (frame, reading)


def test_a_box_found_closer_across_two_others_is_dropped() -> None:
    image = np.zeros((400, 600, 3), np.uint8)
    frame = frame_of([tile(100, 100), tile(200, 100, (8, 1), 0.3)])
    reading = table_reading(["engine", None], 0)
    left, right = tile(190, 100, (0, 10)), tile(210, 111, (10, 10))
    across = tile(200, 105, (4, 11))  # over the seam between the two
    reader = FakeReader([left, right, across], image)
    reader.detector.origins = [origin(200, 100)]

    def read_tiles(image: np.ndarray, found: Detections) -> TileReadings:
        sure = {(0, 10): 0.95, (10, 10): 0.9, (4, 11): 0.4}
        return TileReadings.of([TileReading(b.values, b.corners, sure[b.values], False)
                                for b in (left, right, across)])

    reader.read_tiles = read_tiles  # type: ignore[method-assign]
    closer, _ = look_closer(reader, image, frame, reading,
                            lambda f: table_reading([], 2))
    assert sorted(t.values for t in closer.tiles.each()) == [(0, 10), (1, 2), (10, 10)]


@needs_trained_models
def test_a_train_broken_where_the_first_look_missed_a_tile_is_read_whole() -> None:
    """Rendered mat table 1100029 of the table benchmark: a train turning back on
    itself, whose 10-1 the close-up detector (``tiles_closeup``, read with alone here)
    misses at the frame's closer look; the train stopped there and its last four tiles
    lay loose. A closer look finds it. (A reader that turns nearly square boxes across
    the train, the default, holds the table together from the first look, so the
    closer look is tested with a reader that does not, ``turn_squarish=False``.)"""
    from datasets.table_draw import draw_table
    from datasets.table_pictures import render_tables
    from vision.reading.reader import TileReader
    from vision.stills.table_photo import read_table

    seed = 1_100_029
    players, _, truth, layout = draw_table(np.random.default_rng(seed), 29, True)
    shown = render_tables([layout], size=(1920, 1080), style_seed=seed,
                          area_mm=(0.0, 0.0, *layout.size))[0]
    reader = TileReader(MODELS, max_value=12, precision="float", turn_squarish=False)
    reader.detector = reader.closeup_detector
    frame = reader.read(shown.image)
    closer, reading = read_table(frame, players, shown.image, reader)
    assert closer is not frame  # the table was read again from the boxes found closer
    assert reading.table is not None
    assert reading.table.trains[1] == truth.trains[1]
    assert len(truth.trains[1].tiles) == 15
    reader = TileReader(MODELS, max_value=12, precision="float")
    reader.detector = reader.closeup_detector
    _, reading = read_table(reader.read(shown.image), players, shown.image, reader)
    assert reading.table is not None and reading.table.trains[1] == truth.trains[1]


def test_a_tile_box_found_closer_over_a_marker_is_the_marker() -> None:
    image = np.zeros((400, 600, 3), np.uint8)
    toy = tile(200, 100, (1, 0))  # a toy train, about a tile's size, boxed as a tile
    frame = FrameReading(TileReadings.of([tile(100, 100), toy]),
                         Detections(toy.corners[None], np.ones(1), np.ones(1, np.int64)),
                         (400, 600))
    reading = table_reading(["engine", None], 0)
    reader = FakeReader([tile(201, 101, (3, 1))], image)
    reader.detector.origins = [origin(200, 100)]
    rebuilt: list[FrameReading] = []
    got = look_closer(reader, image, frame, reading, lambda f: rebuilt.append(f))
    assert got == (frame, reading) and rebuilt == []


def test_where_the_photo_changed_with_no_box_the_tiles_found_closer_join_it() -> None:
    image = np.zeros((400, 600, 3), np.uint8)
    sure = tile(320, 180, (4, 4))
    across = replace(tile(300, 200.5, (6, 6)), detector_confidence=0.5)  # across two tiles
    frame = frame_of([tile(100, 100), sure, across])
    upper, lower = tile(300, 195, (3, 6)), tile(300, 206, (2, 6))  # the two it lies across
    new = tile(275, 180, (5, 0))  # a tile no box was found for
    back = tile(325, 215, (0, 0))
    on_sure = tile(322, 181, (9, 9))  # the sure tile boxed again, off a little
    on_bare = tile(300, 226, (1, 1))  # a box on table as bare as in the bare photo
    reader = FakeBackReader([upper, lower, new, back, on_sure, on_bare], image)
    reader.detector.origins = [origin(300, 200)]
    bare_below = 220.0

    def bare(corners: np.ndarray) -> np.ndarray:
        return np.asarray(corners, np.float32).mean(axis=1)[:, 1] > bare_below

    got = look_where_changed(reader, image, frame, [np.array([300.0, 200.0])], bare)
    assert reader.detector.calls == [((SIDE, SIDE, 3), WINDOW_SIDE)]
    assert sorted(t.values for t in got.tiles.each()) == [(1, 2), (2, 6), (3, 6), (4, 4),
                                                          (5, 0)]
    assert len(got.backs) == 1 and np.allclose(got.backs[0], back.corners)
    # nothing changed where no box lies: nothing is looked at
    assert look_where_changed(reader, image, frame, [], bare) is frame
    # a box across two tiles as sure of itself as they are stays, and they are not taken
    reader = FakeBackReader([upper, lower], image)
    reader.detector.origins = [origin(300, 200)]
    steady = frame_of([tile(100, 100), replace(across, detector_confidence=0.95)])
    got = look_where_changed(reader, image, steady, [np.array([300.0, 200.0])], bare)
    assert sorted(t.values for t in got.tiles.each()) == [(1, 2), (6, 6)]


def doubted(reading: TileReading) -> TileReading:
    return replace(reading, uncertain=True, doubt=DOUBT_REASON)


def test_a_doubted_box_not_found_again_closer_is_dropped() -> None:
    """A box the domino check doubts is looked at closer, in a window at its own size;
    it stays, still doubted, only where the detector finds it again there. Tiles read
    without that doubt are never looked at."""
    image = np.zeros((400, 600, 3), np.uint8)
    sure = tile(100, 100, (4, 4))
    pattern = doubted(tile(300, 200, (6, 6)))  # a box on a cloth's pattern
    real = doubted(tile(500, 300, (2, 5)))  # a tile the check was unsure of
    unsure = replace(tile(100, 300, (3, 3)), uncertain=True)  # a count in doubt only
    frame = frame_of([sure, pattern, real, unsure])
    reader = FakeReader([replace(real, corners=real.corners + 1.0)], image)
    reader.detector.origins = [origin(300, 200), origin(500, 300)]  # around each
    got = look_at_doubts(reader, image, frame)
    assert [c[1] for c in reader.detector.calls] == [WINDOW_SIDE, WINDOW_SIDE]
    assert [t.values for t in got.tiles.each()] == [(4, 4), (2, 5), (3, 3)]
    kept = got.tiles.reading(1)
    assert kept.doubt == DOUBT_REASON and np.allclose(kept.corners, real.corners)
    # nothing doubted: nothing looked at
    calm = frame_of([sure, unsure])
    assert look_at_doubts(reader, image, calm) is calm
    assert len(reader.detector.calls) == 2


def test_one_closer_look_serves_the_doubted_boxes_well_inside_it() -> None:
    image = np.zeros((400, 600, 3), np.uint8)
    a, b = doubted(tile(300, 200, (6, 6))), doubted(tile(300, 215, (1, 1)))
    reader = FakeReader([b], image)
    reader.detector.origins = [origin(300, 200)]
    got = look_at_doubts(reader, image, frame_of([a, b]))
    assert len(reader.detector.calls) == 1
    assert [t.values for t in got.tiles.each()] == [(1, 1)]


def test_a_doubted_tile_on_the_image_s_edge_found_again_there_stays() -> None:
    """The window's margin (a tile cut by a window's edge is a piece) does not hold at the
    image's own edge: the closer look sees no less of a tile there than the first."""
    image = np.zeros((400, 600, 3), np.uint8)
    edge = doubted(tile(591, 200, (2, 5)))  # its right end 1 px inside the image
    reader = FakeReader([edge], image)
    reader.detector.origins = [np.array([600 - SIDE, 200 - SIDE / 2], np.float32)]
    got = look_at_doubts(reader, image, frame_of([edge]))
    assert [t.values for t in got.tiles.each()] == [(2, 5)]


def test_a_doubted_box_across_a_seam_gives_way_to_the_tiles_found_under_it() -> None:
    """A box across the seam of two touching tiles (half of each) is not found again
    closer; the two tiles are, and are read in its place, but for one the frame holds
    already."""
    image = np.zeros((400, 600, 3), np.uint8)
    across = doubted(tile(300, 200, (6, 6)))
    left, right = tile(290, 200, (3, 4)), tile(310, 200, (5, 1))
    held = tile(310, 200.5, (5, 1), 0.8)  # the right one, read already
    reader = FakeReader([left, right], image)
    reader.detector.origins = [origin(300, 200)]
    got = look_at_doubts(reader, image, frame_of([across]))
    assert sorted(t.values for t in got.tiles.each()) == [(3, 4), (5, 1)]
    assert not any(t.uncertain for t in got.tiles.each())
    reader.detector.origins = [origin(300, 200)]
    reader.detector.calls.clear()
    got = look_at_doubts(reader, image, frame_of([held, across]))
    assert sorted((t.values, t.confidence) for t in got.tiles.each()) == [((3, 4), 0.95),
                                                                         ((5, 1), 0.8)]


def test_a_doubted_box_seen_large_already_is_not_looked_at_farther() -> None:
    """A close-up's tile, seen by the whole image's look larger than a window would show
    it, or too long for a window that fits the image, stays as it was, doubted."""
    image = np.zeros((400, 600, 3), np.uint8)
    box = doubted(tile(300, 200, (6, 6)))
    reader = FakeReader([], image)
    reader.look_side = 4000  # the whole image looked at ~7 times enlarged
    got = look_at_doubts(reader, image, frame_of([box]))
    assert reader.detector.calls == [] and [t.values for t in got.tiles.each()] == [(6, 6)]
    long = doubted(replace(box, corners=box.corners * np.array([12.0, 1.0], np.float32)
                           - np.array([3300.0, 0.0], np.float32)))  # 240 px long
    reader = FakeReader([], image)
    got = look_at_doubts(reader, image, frame_of([long]))
    assert reader.detector.calls == [] and len(got.tiles) == 1
