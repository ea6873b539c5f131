"""vision.tracking.window_look: a still frame looked at only where it changed, on painted
rounds seen by a fixed camera; the real detector's window look against its whole look."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from known_table_fakes import FramesCapture, PaintedReader, PaintedRound, mark, painted_round
from reader_fixtures import ROOT, needs_trained_models

from datasets.table_sequence import exposed, shifted
from engine import RuleSet
from vision.change.table_view import table_view, tile_scale
from vision.events import AlertRaised, TableSettled
from vision.models.detections import Detections, polygon_iou
from vision.models.onnx_models import BareBoxes
from vision.reading.reader import UNCERTAIN_BELOW
from vision.tracking.tile_memory import TileMemory, grey_of
from vision.tracking.tracker import Tracker
from vision.tracking.view_change import ViewWatch
from vision.tracking.window_look import (
    MAX_WINDOWS,
    Core,
    Window,
    WindowLook,
    WindowSource,
    change_windows,
    in_cores,
)


class WindowedReader(PaintedReader):
    """The painted reader, able to look at a window: it finds there the painted boxes, a
    box crossing the window's edge cut at it (as a detector sees a tile half shown)."""

    def __init__(self, rnd: PaintedRound, missed: dict[int, int] | None = None) -> None:
        super().__init__(rnd, missed)
        self.whole_looks = 0
        self.windows: list[Window] = []

    def detect(self, frame: np.ndarray, bare: BareBoxes | None = None) -> Detections:
        self.whole_looks += 1
        return super().detect(frame, bare)

    def window_gain(self, shape: tuple[int, int]) -> float | None:
        return 768 / max(shape)

    def detect_window(self, image: np.ndarray, window: Window, gain: float, core: Core,
                      bare: BareBoxes | None = None) -> Detections:
        self.windows.append(window)
        found = PaintedReader.detect(self, image, bare)
        x0, y0, x1, y1 = window
        inside = ((found.corners[..., 0] > x0) & (found.corners[..., 0] < x1)
                  & (found.corners[..., 1] > y0) & (found.corners[..., 1] < y1)).any(axis=1)
        found = found[np.asarray(inside, bool)]
        found.corners[..., 0] = np.clip(found.corners[..., 0], x0, x1)
        found.corners[..., 1] = np.clip(found.corners[..., 1], y0, y1)
        c = found.center
        return found[(c[:, 0] >= core[0]) & (c[:, 0] < core[2])
                     & (c[:, 1] >= core[1]) & (c[:, 1] < core[3])]


@pytest.fixture(scope="module", params=["stripes", "checks"])
def rnd(request: pytest.FixtureRequest) -> PaintedRound:
    """A round on the mat (without it the painted tiles are too large at 640x360 for
    windows two tile lengths wide to fit)."""
    return painted_round(31 if request.param == "checks" else 32, request.param, True)


def frame_of(rnd: PaintedRound, k: int, gain: float = 1.0) -> np.ndarray:
    return mark(exposed(rnd.pictures[k].image, gain, 3.0, np.random.default_rng(k)), k)


def tile_long(rnd: PaintedRound, k: int) -> float:
    scale = tile_scale(np.array([c for _, c in rnd.pictures[k].tiles], np.float32))
    assert scale is not None
    return scale[1]


def looked_after(reader: WindowedReader, rnd: PaintedRound, k: int, frame: np.ndarray
                 ) -> tuple[WindowLook, Detections]:
    """The window look of ``frame`` after the whole look at picture ``k``."""
    look = WindowLook(reader)
    before = frame_of(rnd, k)
    look.detect(before, table_view(before))
    return look, look.detect(frame, table_view(frame), tile_long(rnd, k))


def same_boxes(a: Detections, b: Detections) -> bool:
    if len(a) != len(b):
        return False
    if not len(a):
        return True
    return bool((polygon_iou(a.corners, b.corners).max(axis=1) > 0.99).all())


def test_the_window_look_finds_the_new_tile_as_the_whole_look(rnd: PaintedRound) -> None:
    k = len(rnd.pictures) - 2
    reader = WindowedReader(rnd)
    frame = frame_of(rnd, k + 1, 0.93)
    look, found = looked_after(reader, rnd, k, frame)
    assert not look.last.whole and 1 <= len(look.last.windows) <= 2
    assert reader.whole_looks == 1  # the reference frame's only
    whole = PaintedReader.detect(reader, frame)
    assert same_boxes(found, whole)
    old = {tuple(np.round(c.mean(axis=0))) for _, c in rnd.pictures[k].tiles}
    new = [c for _, c in rnd.pictures[k + 1].tiles if tuple(np.round(c.mean(axis=0))) not in old]
    assert new and in_cores(np.array([c.mean(axis=0) for c in new]), look.last.windows,
                            frame.shape[:2], tile_long(rnd, k) / 2).all()


def test_the_window_look_reads_as_the_whole_look(rnd: PaintedRound) -> None:
    k = len(rnd.pictures) - 2
    before, frame = frame_of(rnd, k), frame_of(rnd, k + 1, 0.95)

    def read(windows: bool) -> list[tuple[int, ...]]:
        reader = WindowedReader(rnd)
        memory = TileMemory(reader)
        memory.update_with_detections(before, reader.detect(before))
        memory.mark_settled(grey_of(before))
        look = WindowLook(reader)
        look.detect(before, table_view(before))
        found = (look.detect(frame, table_view(frame), tile_long(rnd, k)) if windows
                 else reader.detect(frame))
        tiles, _ = memory.update_with_detections(frame, found)
        return sorted(tuple(sorted(v)) for v in tiles.values.tolist())

    got = read(True)
    assert got == read(False)  # the painted domino's phantom too: no known table here
    assert not Counter(tuple(sorted(v)) for v, _ in rnd.pictures[k + 1].tiles) - Counter(got)


def test_an_unchanged_frame_is_not_looked_at_again(rnd: PaintedRound) -> None:
    reader = WindowedReader(rnd)
    k = len(rnd.pictures) - 1
    look, found = looked_after(reader, rnd, k, frame_of(rnd, k, 1.1))
    assert not look.last.whole and look.last.windows == ()
    assert reader.whole_looks == 1 and reader.windows == []
    assert same_boxes(found, PaintedReader.detect(reader, frame_of(rnd, k)))


def test_a_bumped_or_much_changed_frame_is_looked_at_whole(rnd: PaintedRound) -> None:
    k = len(rnd.pictures) - 1
    reader = WindowedReader(rnd)
    look, _ = looked_after(reader, rnd, k, mark(shifted(rnd.pictures[k].image, 9.0, -6.0), k))
    assert look.last.whole and reader.whole_looks == 2
    # many places changed: more windows than allowed
    frame = frame_of(rnd, k)
    h, w = frame.shape[:2]
    rng = np.random.default_rng(3)
    for x in np.linspace(0.1 * w, 0.9 * w, MAX_WINDOWS + 2):
        y = int(rng.uniform(0.1 * h, 0.9 * h))
        frame[y:y + 8, int(x):int(x) + 8] = (0, 0, 255)
    look, _ = looked_after(reader, rnd, k, frame)
    assert look.last.whole


def test_the_first_frames_and_every_so_often_are_looked_at_whole(rnd: PaintedRound) -> None:
    k = len(rnd.pictures) - 1
    reader = WindowedReader(rnd)
    look = WindowLook(reader, whole_every=3)
    frame = frame_of(rnd, k)
    view = table_view(frame)

    def whole(length: float | None) -> bool:
        look.detect(frame, view, length)
        return look.last.whole

    looks = [whole(None)] + [whole(tile_long(rnd, k)) for _ in range(6)]  # None: size unknown
    assert looks == [True, False, False, True, False, False, True]


def test_windows_are_squares_on_the_detectors_stride() -> None:
    mask = np.zeros((90, 160), bool)
    mask[40:44, 20:30] = True
    mask[10:12, 140:143] = True
    windows = change_windows(mask, 4.0, (360, 640), 40.0, 0.6)
    assert windows is not None and len(windows) == 2
    for x0, y0, x1, y1 in windows:
        assert x1 - x0 == y1 - y0 and round((x1 - x0) * 0.6) % 32 == 0
        assert 0 <= x0 < x1 <= 640 and 0 <= y0 < y1 <= 360
    assert change_windows(np.ones((90, 160), bool), 4.0, (360, 640), 40.0, 0.6) is None


class BoxesSource:
    """A detector that finds the same ``boxes`` in every look; a window's those centred
    in its core."""

    tile_class = 0

    def __init__(self, boxes: Detections) -> None:
        self.boxes = boxes
        self.windows: list[Window] = []
        self.whole_looks = 0

    def detect(self, image: np.ndarray, bare: BareBoxes | None = None) -> Detections:
        self.whole_looks += 1
        return self.boxes

    def window_gain(self, shape: tuple[int, int]) -> float | None:
        return 0.6

    def detect_window(self, image: np.ndarray, window: Window, gain: float, core: Core,
                      bare: BareBoxes | None = None) -> Detections:
        self.windows.append(window)
        c = self.boxes.center
        return self.boxes[(c[:, 0] >= core[0]) & (c[:, 0] < core[2])
                          & (c[:, 1] >= core[1]) & (c[:, 1] < core[3])]


def test_changes_too_far_apart_for_one_window_get_two_that_overlap() -> None:
    # a sleeve at the frame's top edge and a tile laid two tile lengths below it: one
    # window around both would be taller than the frame
    mask = np.zeros((90, 160), bool)
    mask[0:2, 40:45] = True
    mask[60:63, 50:56] = True
    windows = change_windows(mask, 4.0, (360, 640), 40.0, 0.6)
    assert windows is not None and len(windows) == 2
    (ax0, ay0, ax1, ay1), (bx0, by0, bx1, by1) = windows
    assert ax0 < bx1 and bx0 < ax1 and ay0 < by1 and by0 < ay1
    # every box centred in the windows is taken once, from the first window holding it
    centres = [(170, 40), (200, 175), (210, 245), (600, 300)]  # (200, 175): in both
    corners = np.array([[[x - 20, y - 10], [x + 20, y - 10], [x + 20, y + 10], [x - 20, y + 10]]
                        for x, y in centres], np.float32)
    source = BoxesSource(Detections(corners, np.full(4, 0.9), np.zeros(4, int)))
    look = WindowLook(source)
    frame = np.zeros((360, 640, 3), np.uint8)
    look.detect(frame, table_view(frame))
    found = look.detect(frame, table_view(frame), 40.0, changed=mask)
    assert not look.last.whole and len(look.last.windows) == 2 and len(source.windows) == 2
    assert sorted(map(tuple, np.round(found.center).astype(int).tolist())) == sorted(centres)


def test_a_whole_look_asked_for_is_spared_only_for_the_same_frame() -> None:
    # before a table settles the tracker asks for whole looks; the frame looked at
    # before, seen again, needs none, and a frame changed anywhere gets one
    rng = np.random.default_rng(5)
    frame = rng.integers(0, 255, (360, 640, 3), dtype=np.uint8)
    box = np.array([[[100, 100], [140, 100], [140, 120], [100, 120]]], np.float32)
    source = BoxesSource(Detections(box, np.array([0.9]), np.zeros(1, int)))
    look = WindowLook(source)
    look.detect(frame, table_view(frame), 40.0, whole=True)
    found = look.detect(frame, table_view(frame), 40.0, whole=True)
    assert source.whole_looks == 1 and not look.last.whole and len(found) == 1
    changed = frame.copy()
    changed[300:330, 500:560] = 255
    look.detect(changed, table_view(changed), 40.0, whole=True)
    assert source.whole_looks == 2 and look.last.whole and source.windows == []


def pale_table(tile: bool, seed: int) -> np.ndarray:
    """A 1280x720 pale pink cloth, and on it a white tile with small pips when ``tile``."""
    frame = np.full((720, 1280, 3), (226, 216, 236), np.float32)
    if tile:
        frame[330:386, 620:650] = 246
        frame[357:359, 622:648] = 90
        for x, y in ((627, 337), (643, 337), (635, 344), (627, 351), (643, 351),
                     (627, 366), (643, 379), (635, 372)):
            frame[y - 2:y + 2, x - 2:x + 2] = 30
    frame += np.random.default_rng(seed).normal(0, 3.0, frame.shape)
    return np.clip(frame, 0, 255).astype(np.uint8)


def test_a_change_the_view_watch_sees_is_looked_at_in_windows() -> None:
    """A white tile on a pale cloth changes the known table's detail too little (its pips
    a pixel there); the view watch sees it change since the table settled, and the
    window look looks there: a change missed once would be in the reference for good."""
    watch = ViewWatch(settle_frames=2, fps=10.0)
    before = [pale_table(False, k) for k in range(3)]
    after = [pale_table(True, 10 + k) for k in range(3)]
    still = None
    for k, frame in enumerate(before):
        still = watch.look(frame, k) or still
    assert still is not None
    watch.settled(still.detail)
    changed = None
    for k, frame in enumerate(after):
        seen = watch.look(frame, 10 + k)
        changed = seen.changed if seen is not None else changed
    assert changed is not None and changed.any()

    class Watcher(WindowedReader):
        def __init__(self) -> None:
            self.windows: list[Window] = []

        def detect(self, frame: np.ndarray, bare: BareBoxes | None = None) -> Detections:
            return Detections(np.array([[[180, 600], [236, 600], [236, 630], [180, 630]]],
                                       np.float32), np.ones(1), np.zeros(1, np.int64))

        def detect_window(self, image: np.ndarray, window: Window, gain: float, core: Core,
                          bare: BareBoxes | None = None) -> Detections:
            self.windows.append(window)
            return Detections.empty()

    for given in (None, changed):
        reader = Watcher()
        look = WindowLook(reader)
        look.detect(before[-1], table_view(before[-1]))
        look.detect(after[-1], table_view(after[-1]), 56.0, changed=given)
        assert not look.last.whole
        if given is None:  # the known table's views alone see nothing changed
            assert reader.windows == []
        else:
            assert len(reader.windows) == 1
            assert in_cores(np.array([[635.0, 358.0]]), reader.windows, (720, 1280), 30.0).all()

def follow(tmp_path: Path, rnd: PaintedRound, reader: PaintedReader, *, windows: bool,
           bump_at: int | None = None) -> list[Any]:
    rng = np.random.default_rng(5)
    frames: list[np.ndarray] = []
    for k, picture in enumerate(rnd.pictures):
        for j in range(10):
            image = picture.image if bump_at is None or k < bump_at else shifted(
                picture.image, 9.0, -6.0)
            frames.append(mark(exposed(image, 1.0 + 0.08 * np.sin(0.3 * (10 * k + j)), 3.0,
                                       rng), k))
    bumped_from = None if bump_at is None else 10 * bump_at

    def on_frame(i: int) -> None:
        if bumped_from is not None and i >= bumped_from:
            reader.offset = np.array([9.0, -6.0])

    video = tmp_path / "round.mp4"
    video.write_bytes(b"")
    tracker = Tracker(video, rnd.players, RuleSet.preset("standard"), reader=reader,
                      mat=False, opener=lambda _: FramesCapture(frames, on_frame),
                      sleep=lambda _: None, engine=rnd.tables[0].engine, windows=windows)
    events = list(tracker)
    assert (tracker.windows is not None) == windows
    if tracker.windows is not None:
        assert tracker.windows.window_looks >= 2
    return events


def outcome(events: list[Any]) -> tuple[list[Any], list[str]]:
    return ([e.table for e in events if isinstance(e, TableSettled)],
            [e.alert.code for e in events if isinstance(e, AlertRaised)])


@pytest.mark.parametrize(("bump_at", "miss"), [(None, False), (3, False), (None, True)],
                         ids=["still", "bumped", "a-tile-missed"])
def test_the_tracker_settles_the_same_tables_looking_in_windows(
        tmp_path: Path, rnd: PaintedRound, bump_at: int | None, miss: bool) -> None:
    """The same tables and alerts as looking at every still frame whole; with a tile the
    detector misses, what the known table makes of it is the same either way."""
    last = len(rnd.pictures) - 1
    missed = {last: len(rnd.pictures[last].tiles) - 1} if miss else {}
    reader = WindowedReader(rnd, missed)
    assert isinstance(reader, WindowSource)
    got = outcome(follow(tmp_path, rnd, reader, windows=True, bump_at=bump_at))
    assert reader.windows  # some frames were looked at in windows only
    want = outcome(follow(tmp_path, rnd, WindowedReader(rnd, missed), windows=False,
                          bump_at=bump_at))
    assert got == want
    if not miss:
        assert got[0] == rnd.tables


@pytest.fixture(scope="module")
def painted_table() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A painted round at 1280x720 on checks with the mat: the table before the last move,
    after it, and the outline of the tile it laid."""
    rnd = painted_round(1_500_100, "checks", True, tables=6, size=(1280, 720))
    before, after = rnd.pictures[-2], rnd.pictures[-1]
    old = {tuple(np.round(c.mean(axis=0))) for _, c in before.tiles}
    new = [c for _, c in after.tiles if tuple(np.round(c.mean(axis=0))) not in old]
    rng = np.random.default_rng(7)
    return exposed(before.image, 1.0, 3.0, rng), exposed(after.image, 0.95, 3.0, rng), new[0]


@needs_trained_models
def test_the_detector_finds_in_a_window_what_it_finds_in_the_whole_frame(
        painted_table: tuple[np.ndarray, np.ndarray, np.ndarray]) -> None:
    from vision.reading.reader import TileReader

    before, after, new = painted_table
    reader = TileReader(ROOT / "models", max_value=12)
    memory = TileMemory(reader)
    look = WindowLook(reader)
    memory.update_with_detections(before, look.detect(before, table_view(before)))
    memory.mark_settled(grey_of(before))
    scale = tile_scale(memory.detections.corners)
    assert scale is not None
    whole = reader.detect(after)
    found = look.detect(after, table_view(after), scale[1])
    assert not look.last.whole and len(look.last.windows) == 1
    (x0, y0, x1, y1), = look.last.windows
    gain = reader.window_gain(after.shape[:2])
    assert gain is not None and round((x1 - x0) * gain) % 32 == 0
    # the new tile is boxed in the window as in the whole frame, and each tile in the
    # window's core the detector is sure of in one look is boxed and read alike in the other
    tiles = found[found.class_id == reader.tile_class]
    want = whole[whole.class_id == reader.tile_class]
    assert polygon_iou(new[None].astype(np.float32), tiles.corners).max() > 0.7
    reach = scale[1] / 2 + 2
    for one, other in ((want, tiles), (tiles, want)):
        sure = one[in_cores(one.center, look.last.windows, after.shape[:2], reach)
                   & (one.confidence >= UNCERTAIN_BELOW)]
        assert len(sure) >= 2
        overlap = polygon_iou(sure.corners, other.corners)
        assert (overlap.max(axis=1) > 0.6).all()
        twins = other.corners[overlap.argmax(axis=1)]
        assert sorted(sorted(v) for v in reader.read_at(after, sure.corners).values.tolist()) \
            == sorted(sorted(v) for v in reader.read_at(after, twins).values.tolist())
