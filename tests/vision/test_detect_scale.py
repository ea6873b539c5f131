"""Looking at a frame from the right distance: dynamic-size detector input and the
reader's closer look at tiny tiles (vision.models.onnx_models, vision.reading.reader.detect)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from reader_fixtures import untrained_dir

from vision.models.detections import Detections
from vision.models.onnx_models import ObbDetector
from vision.reading import missed_markers
from vision.reading.missed_markers import CONFIRM_MARKER_SIDE, MARKER_SIDE
from vision.reading.reader import (
    SMALL_TILE_PX,
    ZOOM_IN_SIDE,
    TileReader,
)


@pytest.fixture(scope="module")
def untrained_models(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return untrained_dir(tmp_path_factory)


def _detector(dynamic: bool, size: int = 416) -> ObbDetector:
    det = ObbDetector.__new__(ObbDetector)
    det.model = SimpleNamespace(dynamic_size=dynamic, size=(size, size))  # type: ignore[assignment]
    return det


class TestInputSize:
    def test_a_fixed_export_takes_its_own_size(self) -> None:
        assert _detector(False).input_for((720, 1280)) == (416, 416)
        assert _detector(False).input_for((720, 1280), 640) == (416, 416)

    def test_a_dynamic_export_pads_only_to_the_stride(self) -> None:
        det = _detector(True)
        assert det.input_for((720, 1280)) == (256, 416)  # 234 px high -> 256
        assert det.input_for((720, 1280), 640) == (384, 640)  # 360 -> 384
        assert det.input_for((1280, 720), 640) == (640, 384)  # portrait
        assert det.input_for((640, 640)) == (416, 416)
        h, w = det.input_for((3024, 4032), 640)
        assert w == 640 and h % 32 == 0 and h >= 480


class FakeDetector:
    """Tiles ``width`` image pixels wide; reports the gain a 1280-wide frame has at
    the requested long side, like the real detector's metadata."""

    def __init__(self, width: float, dynamic: bool = True) -> None:
        self.model = SimpleNamespace(dynamic_size=dynamic, size=(416, 416))
        self.input_size = (416, 416)
        self.width = width
        self.calls: list[int | None] = []
        self.unchecked_calls: list[int | None] = []
        self.windows: list[tuple[int, int, int, int]] = []

    def __call__(self, image: np.ndarray, zoom_out: float = 1.0,
                 long_side: int | None = None) -> Detections:
        self.calls.append(long_side)
        side = long_side or 416
        w = self.width
        box = np.array([[100, 100], [100, 100 + w], [100 + 2 * w, 100 + w], [100 + 2 * w, 100]],
                       np.float32)
        found = Detections(box[None], np.array([0.9]), np.array([0]))
        found.metadata["gain"] = side / max(image.shape[:2])
        found.metadata["side"] = side
        return found

    def unchecked(self, image: np.ndarray, zoom_out: float = 1.0,
                  long_side: int | None = None) -> Detections:
        """A look whose tile boxes are not judged (the real detector's tile check):
        recorded apart too."""
        self.unchecked_calls.append(long_side)
        return self(image, zoom_out, long_side)

    def unchecked_window(self, image: np.ndarray, window: tuple[int, int, int, int],
                         gain: float, core: tuple[float, float, float, float] | None = None
                         ) -> Detections:
        """What the look on the scale ``gain`` finds centred in ``window`` (recorded as
        that look's long side, the window apart)."""
        self.windows.append(window)
        found = self.unchecked(image, long_side=round(gain * max(image.shape[:2])))
        x0, y0, x1, y1 = window
        c = found.center
        return found[(c[:, 0] >= x0) & (c[:, 0] < x1) & (c[:, 1] >= y0) & (c[:, 1] < y1)]


def _reader(untrained_models: Path, detector: FakeDetector) -> TileReader:
    reader = TileReader(untrained_models)
    vars(reader)["detector"] = detector
    return reader


FRAME = np.zeros((720, 1280, 3), np.uint8)


def test_tiny_tiles_are_looked_at_closer_and_video_keeps_the_closer_look(
    untrained_models: Path,
) -> None:
    at_base = SMALL_TILE_PX * 0.7  # narrower than the detector learnt, at 416
    det = FakeDetector(at_base * 1280 / 416)
    reader = _reader(untrained_models, det)
    side = reader.detect(FRAME).metadata["side"]
    assert det.calls == [None, side]
    assert side == ZOOM_IN_SIDE
    assert reader.look_side == side
    reader.detect(FRAME)  # the next frame goes straight to the closer look
    assert det.calls == [None, side, side]
    reader.reset()  # a still: read afresh, at the trained size first
    assert reader.look_side == 416


def test_the_closer_look_is_bounded_by_the_image(untrained_models: Path) -> None:
    det = FakeDetector(0.5)
    reader = _reader(untrained_models, det)
    small = np.zeros((300, 500, 3), np.uint8)  # never look closer than the image itself
    det.calls.clear()
    reader.detect(small)
    assert det.calls[1] == 512


def test_the_closer_look_ends_when_tiles_grow(untrained_models: Path) -> None:
    det = FakeDetector(SMALL_TILE_PX * 1280 / 416 * 0.7)
    reader = _reader(untrained_models, det)
    reader.detect(FRAME)
    side = det.calls[1]
    det.width = SMALL_TILE_PX * 1280 / 416 * 2  # the camera came closer
    reader.detect(FRAME)
    reader.detect(FRAME)
    assert det.calls == [None, side, side, None]


class TinyOnlyDetector(FakeDetector):
    """Finds its tiles only when looking closer than the trained size (with ``found``)."""

    def __init__(self, width: float, found: bool = True) -> None:
        super().__init__(width)
        self.found = found

    def __call__(self, image: np.ndarray, zoom_out: float = 1.0,
                 long_side: int | None = None) -> Detections:
        tiles = super().__call__(image, zoom_out, long_side)
        self.calls[-1] = long_side if zoom_out == 1.0 else -1  # -1: the look from further
        return tiles if long_side and self.found else Detections.empty()


def test_a_table_with_only_tiny_tiles_is_looked_at_closer_when_nothing_shows(
    untrained_models: Path,
) -> None:
    det = TinyOnlyDetector(SMALL_TILE_PX * 1280 / 416 * 0.7)  # the lone engine of a table
    reader = _reader(untrained_models, det)
    assert len(reader.detect(FRAME)) == 1
    assert det.calls == [None, -1, ZOOM_IN_SIDE]
    reader.detect(FRAME)  # the next frame goes straight to the closer look
    assert det.calls[3:] == [ZOOM_IN_SIDE]
    # an empty table: looked at from all three distances, nothing found
    empty = TinyOnlyDetector(10.0, found=False)
    assert len(_reader(untrained_models, empty).detect(FRAME)) == 0
    assert empty.calls == [None, -1, ZOOM_IN_SIDE]


def test_windows_are_looked_at_on_the_scale_of_the_last_whole_look(
    untrained_models: Path,
) -> None:
    # the lone engine of a table seen near: nothing shows at the trained size, the
    # closer look finds it wide enough to need no closer look at the next frame; the
    # windows of the next frame keep the tiles at the size that look saw them at
    det = TinyOnlyDetector(SMALL_TILE_PX * 1280 / 416 * 1.5)
    reader = _reader(untrained_models, det)
    found = reader.detect(FRAME)
    assert det.calls == [None, -1, ZOOM_IN_SIDE]
    assert reader.window_gain(FRAME.shape[:2]) == pytest.approx(found.metadata["gain"], 1e-3)
    reader.detect(FRAME)  # not kept: the next frame is looked at at the trained size first
    assert det.calls[3:] == [None, -1, ZOOM_IN_SIDE]
    reader.reset()
    assert reader.window_gain(FRAME.shape[:2]) == pytest.approx(416 / 1280)


class FarBlobDetector(TinyOnlyDetector):
    """Tiny tiles only closer; from further away one box ``far_length`` image pixels long
    (a blob over the tiny tiles, or a close-up's tile)."""

    def __init__(self, width: float, far_length: float) -> None:
        super().__init__(width)
        self.far_length = far_length

    def __call__(self, image: np.ndarray, zoom_out: float = 1.0,
                 long_side: int | None = None) -> Detections:
        found = super().__call__(image, zoom_out, long_side)
        if zoom_out == 1.0:
            return found
        n = self.far_length
        box = np.array([[0, n / 2], [0, 0], [n, 0], [n, n / 2]], np.float32) + 50
        return Detections(box[None], np.array([0.3]), np.array([0]))


def test_a_small_box_from_further_away_is_no_close_up(untrained_models: Path) -> None:
    # a whole table with its engine and a tile: a box 0.14 of the frame long from further
    # away, the two tiles when looked at closer: the closer look wins
    det = FarBlobDetector(SMALL_TILE_PX * 1280 / 416 * 0.7, far_length=0.14 * 1280)
    found = _reader(untrained_models, det).detect(FRAME)
    assert det.calls == [None, -1, ZOOM_IN_SIDE]
    assert found.metadata["side"] == ZOOM_IN_SIDE
    # a close-up's tile, a third of the frame long: taken, no closer look
    det = FarBlobDetector(SMALL_TILE_PX * 1280 / 416 * 0.7, far_length=0.34 * 1280)
    found = _reader(untrained_models, det).detect(FRAME)
    assert det.calls == [None, -1] and "side" not in found.metadata
    # nothing closer: the small box is all there is
    det = FarBlobDetector(SMALL_TILE_PX * 1280 / 416 * 0.7, far_length=0.14 * 1280)
    det.found = False
    assert len(_reader(untrained_models, det).detect(FRAME)) == 1
    assert det.calls == [None, -1, ZOOM_IN_SIDE]


def test_big_tiles_and_fixed_exports_are_looked_at_once(untrained_models: Path) -> None:
    det = FakeDetector(SMALL_TILE_PX * 1280 / 416 * 2)
    _reader(untrained_models, det).detect(FRAME)
    assert det.calls == [None]
    fixed = FakeDetector(SMALL_TILE_PX * 1280 / 416 * 0.6, dynamic=False)
    _reader(untrained_models, fixed).detect(FRAME)
    assert fixed.calls == [None]


class MarkerDetector(FakeDetector):
    """Tiny tiles everywhere; a marker on every look, a second one (a pawn too small for
    the closer look) only at ``MARKER_SIDE`` or beyond, where the closer look's marker
    and one inside the tile are found again too."""

    def __call__(self, image: np.ndarray, zoom_out: float = 1.0,
                 long_side: int | None = None) -> Detections:
        found = super().__call__(image, zoom_out, long_side)
        spots = [(600.0, 600.0)]
        if (long_side or 0) >= MARKER_SIDE:
            spots += [(603, 598), (900, 300), (100 + self.width - 10, 100 + self.width / 2 - 10)]
        return _with_markers(found, spots, 0.8)


def _with_markers(found: Detections, spots: list[tuple[float, float]],
                  score: float) -> Detections:
    """``found`` and a 20 px square marker scored ``score`` at each of ``spots``."""
    if not spots:
        return found
    square = np.array([[0, 0], [0, 20], [20, 20], [20, 0]], np.float32)
    markers = Detections(np.array([square + s for s in spots]), np.full(len(spots), score),
                         np.ones(len(spots), np.int64))
    both = Detections.merge([found, markers])
    both.metadata.update(found.metadata)
    return both


def test_markers_too_small_for_the_closer_look_are_looked_for_once_more(
    untrained_models: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(missed_markers, "TABLE_REACH_WIDTHS", 100.0)  # all the frame
    big = np.zeros((1080, 1920, 3), np.uint8)  # the closer look shrinks it 2.5 times
    for x, y in ((600, 600), (900, 300)):  # solid markers (a hollow box is no marker)
        big[y:y + 20, x:x + 20] = 200
    det = MarkerDetector(SMALL_TILE_PX * 0.7 * 1920 / 416)
    reader = _reader(untrained_models, det)
    markers = reader.read(big).markers
    # the pawn, missed by the closer look, is looked for once more to be sure of it
    # once round each of the two markers the closer look did not find
    assert det.calls == [None, ZOOM_IN_SIDE, MARKER_SIDE] + [CONFIRM_MARKER_SIDE] * 2
    assert len(det.windows) == 2
    # the looks for markers alone leave their tile boxes unjudged (no tile check's cost)
    assert det.unchecked_calls == [MARKER_SIDE] + [CONFIRM_MARKER_SIDE] * 2
    # the pawn is added; the closer look's marker is not found twice, nor is the tile a marker
    assert sorted(markers.corners.mean(axis=1)[:, 0].round().tolist()) == [610.0, 910.0]
    # a 1280x720 frame's closer look shrinks it less than twice: no more looks
    small = MarkerDetector(SMALL_TILE_PX * 0.7 * 1280 / 416)
    frame = FRAME.copy()
    frame[600:620, 600:620] = 200
    assert len(_reader(untrained_models, small).read(frame).markers) == 1
    assert small.calls == [None, ZOOM_IN_SIDE]


class DotDetector(FakeDetector):
    """Tiny tiles; no marker at the closer look; at ``MARKER_SIDE`` a sure marker at
    (600, 600) and one at (900, 300); the finest look (``CONFIRM_MARKER_SIDE``) finds
    the one at (600, 600) again only, as a dot of the cloth it took for a coin at one
    scale shows as none at the other."""

    def __call__(self, image: np.ndarray, zoom_out: float = 1.0,
                 long_side: int | None = None) -> Detections:
        found = super().__call__(image, zoom_out, long_side)
        side = long_side or 0
        spots: list[tuple[float, float]] = (
            [(601, 602)] if side >= CONFIRM_MARKER_SIDE
            else [(600, 600), (900, 300)] if side >= MARKER_SIDE else [])
        return _with_markers(found, spots, 0.8)


def test_a_marker_only_the_further_look_finds_needs_a_third_look_to_find_it_too(
    untrained_models: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(missed_markers, "TABLE_REACH_WIDTHS", 100.0)  # all the frame
    big = np.zeros((1080, 1920, 3), np.uint8)
    for x, y in ((600, 600), (900, 300)):  # solid markers (a hollow box is no marker)
        big[y:y + 20, x:x + 20] = 200
    det = DotDetector(SMALL_TILE_PX * 0.7 * 1920 / 416)
    markers = _reader(untrained_models, det).read(big).markers
    assert det.calls == [None, ZOOM_IN_SIDE, MARKER_SIDE] + [CONFIRM_MARKER_SIDE] * 2
    # that look sees only a window round each marker it is asked about, the marker inside
    x0, y0, x1, y1 = det.windows[0]
    assert len(det.windows) == 2 and (x1 - x0) * (y1 - y0) < big.shape[0] * big.shape[1] / 4
    assert x0 <= 610 < x1 and y0 <= 610 < y1
    assert markers.corners.mean(axis=1).round().tolist() == [[610.0, 610.0]]


class FaintMarkerDetector(FakeDetector):
    """Tiny tiles; two faint markers (scored under the tile threshold) at the closer
    look, at 300 and 1500; the look at ``MARKER_SIDE`` finds a faint one again at 300
    only, and a faint one of its own at 900 that the closer look missed."""

    def __call__(self, image: np.ndarray, zoom_out: float = 1.0,
                 long_side: int | None = None) -> Detections:
        found = super().__call__(image, zoom_out, long_side)
        spots: list[tuple[float, float]] = (
            [(302, 301), (900, 700)] if (long_side or 0) >= MARKER_SIDE
            else [(300, 300), (1500, 800)])
        return _with_markers(found, spots, 0.22)


def test_a_faint_marker_is_taken_only_where_both_looks_find_one(
    untrained_models: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(missed_markers, "TABLE_REACH_WIDTHS", 100.0)  # all the frame
    big = np.zeros((1080, 1920, 3), np.uint8)
    for x, y in ((300, 300), (1500, 800), (900, 700)):  # solid markers
        big[y:y + 20, x:x + 20] = 200
    det = FaintMarkerDetector(SMALL_TILE_PX * 0.7 * 1920 / 416)
    markers = _reader(untrained_models, det).read(big).markers
    assert det.calls == [None, ZOOM_IN_SIDE, MARKER_SIDE]
    # found twice, once; each of the others by one look only
    assert markers.corners.mean(axis=1).round().tolist() == [[310.0, 310.0]]
    # a 1280x720 frame gets one look: a faint marker is not taken from it
    small = FaintMarkerDetector(SMALL_TILE_PX * 0.7 * 1280 / 416)
    frame = FRAME.copy()
    frame[300:320, 300:320] = 200
    assert len(_reader(untrained_models, small).read(frame).markers) == 0


class NearFarDetector(FakeDetector):
    """Tiny tiles; no marker at the closer look; from ``MARKER_SIDE`` on a pawn near the
    tile (at 300, 300) and one far from it (at 1500, 900)."""

    def __call__(self, image: np.ndarray, zoom_out: float = 1.0,
                 long_side: int | None = None) -> Detections:
        found = super().__call__(image, zoom_out, long_side)
        near = (long_side or 0) >= MARKER_SIDE
        return _with_markers(found, [(300, 300), (1500, 900)] if near else [], 0.8)


def test_markers_are_looked_for_further_only_near_the_table(untrained_models: Path) -> None:
    big = np.zeros((1080, 1920, 3), np.uint8)
    for x, y in ((300, 300), (1500, 900)):  # solid markers (a hollow box is no marker)
        big[y:y + 20, x:x + 20] = 200
    det = NearFarDetector(SMALL_TILE_PX * 0.7 * 1920 / 416)  # one tile, at (100, 100)
    markers = _reader(untrained_models, det).read(big).markers
    x0, y0, x1, y1 = det.windows[0]  # the look at MARKER_SIDE: the table's part only,
    step = 32 * 1920 / MARKER_SIDE  # its edges on that look's stride grid
    reach = missed_markers.TABLE_REACH_WIDTHS * det.width
    assert (x0, y0) == (0, 0) and x1 % step == 0 and y1 % step == 0
    assert 0 <= x1 - (100 + 2 * det.width + reach) < step and x1 < 1500
    assert det.unchecked_calls[0] == MARKER_SIDE
    # the pawn near the tile is found (and confirmed); the one far from it, marking no
    # train, is not looked for
    assert markers.corners.mean(axis=1).round().tolist() == [[310.0, 310.0]]
