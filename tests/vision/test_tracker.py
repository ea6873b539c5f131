"""vision.tracker: following a game through synthetic frames, and surviving bad cameras."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from datasets.table_layout import SeenTile, layout_table, overhead_homography, random_table
from engine import Observer, RuleSet, TableState, Train
from vision.detections import Detections
from vision.events import CameraReason, CameraStatus, TableSettled
from vision.mat_geometry import apply_homography
from vision.tracker import Tracker

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


class FakeReader:
    """Reads the state drawn into a frame; flickers one tile's value now and then."""

    tile_class, marker_class = 0, 1

    def __init__(self, game: Game, flicker: float = 0.0, seed: int = 0) -> None:
        self.game = game
        self.flicker = flicker
        self.rng = np.random.default_rng(seed)
        self.calls = 0
        self.read_tiles_count = 0
        self.truth: dict[tuple[float, float], tuple[int, int]] = {}

    def detector(self, frame: np.ndarray) -> Detections:
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
        return Detections(np.array(corners).reshape(-1, 4, 2), np.ones(n), np.zeros(n))

    def read_tiles(self, frame: np.ndarray, tiles: Detections) -> list[SeenTile]:
        out = []
        keys = np.array(list(self.truth))
        for c in tiles.corners:
            key = keys[int(np.argmin(np.linalg.norm(keys - c.mean(axis=0), axis=1)))]
            values = self.truth[tuple(key)]
            if self.rng.random() < self.flicker:
                values = (values[0], (values[1] + 1) % 13)
            out.append(SeenTile(values, c))
            self.read_tiles_count += 1
        return out


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


def _video(game: Game, states: list[int], rng: np.random.Generator, *, hold: int = 12,
           hands: bool = True, light_drift: bool = False) -> list[np.ndarray | None]:
    frames: list[np.ndarray | None] = []
    for i, k in enumerate(states):
        if hands and i > 0:
            for h in [0.2, 0.45, 0.7, 0.7, 0.45, 0.2]:
                frames.append(game.draw(k, rng, hand=h))
        light = 1.0 + (0.15 * (i % 2) if light_drift else 0.0)
        frames.extend(game.draw(k, rng, light=light) for _ in range(hold))
    return frames


def _track(tmp_path: Path, game: Game, frames: list[np.ndarray | None],
           reader: FakeReader) -> tuple[Tracker, list[Any]]:
    video = tmp_path / "game.mp4"
    video.write_bytes(b"")
    tracker = Tracker(video, game.players, RuleSet.preset("standard"), reader=reader,
                      mat=False, opener=lambda _: FakeCapture(frames), sleep=lambda _: None)
    return tracker, list(tracker)


def _alert_codes(events: list[Any]) -> list[str]:
    return [e.alert.code for e in events if e.kind == "alert" and e.alert is not None]


def _expected_alerts(game: Game, states: list[int]) -> list[tuple[int, str, object]]:
    observer = Observer(RuleSet.preset("standard"), game.players, game.final.engine, 0)
    for k in states:
        observer.observe(game.state(k))
    return [(a.at, a.code, a.train) for a in observer.alerts]


def test_settles_each_state_once_and_alerts_like_the_observer(tmp_path: Path) -> None:
    game = Game(1)
    states = list(range(len(game.order) + 1))
    frames = _video(game, states, np.random.default_rng(0), light_drift=True)
    tracker, events = _track(tmp_path, game, frames, FakeReader(game))
    settled = [e.table for e in events if e.kind == "table"]
    assert settled == [game.state(k) for k in states]
    alerts = [(e.alert.at, e.alert.code, e.alert.train) for e in events if e.kind == "alert"]
    assert alerts == _expected_alerts(game, states)
    assert events[-1].kind == "status" and "end of" in events[-1].message


def test_an_illegal_move_seen_on_camera_raises_the_alert(tmp_path: Path) -> None:
    game = Game(2)
    states = [0, 1, 3]  # two tiles appear in one turn
    frames = _video(game, states, np.random.default_rng(1))
    _, events = _track(tmp_path, game, frames, FakeReader(game))
    codes = [e.alert.code for e in events if e.kind == "alert"]
    assert codes == [code for _, code, _ in _expected_alerts(game, states)]
    assert codes  # something was wrong


def test_flickering_reads_are_voted_away(tmp_path: Path) -> None:
    game = Game(3)
    states = list(range(len(game.order) + 1))
    frames = _video(game, states, np.random.default_rng(2), hold=16)
    _, events = _track(tmp_path, game, frames, FakeReader(game, flicker=0.04, seed=5))
    settled = [e.table for e in events if e.kind == "table"]
    assert settled == [game.state(k) for k in states]


def test_a_hand_resting_over_the_table_hides_nothing(tmp_path: Path) -> None:
    game = Game(4)
    rng = np.random.default_rng(3)
    still = [game.draw(2, rng) for _ in range(10)]
    # A hand that stays still over the table for a long while (hiding a tile), then leaves.
    covered = [game.draw(2, rng, hand=0.6) for _ in range(12)]
    after = [game.draw(3, rng) for _ in range(10)]
    _, events = _track(tmp_path, game, [*still, *covered, *after], FakeReader(game))
    settled = [(e.frame, e.table) for e in events if e.kind == "table"]
    assert [t for _, t in settled] == [game.state(2), game.state(3)]
    assert settled[1][0] >= len(still) + len(covered)
    assert "tile-removed" not in _alert_codes(events)


def test_unmoved_tiles_are_not_read_again(tmp_path: Path) -> None:
    game = Game(5, n_tiles=10)
    states = list(range(len(game.order) + 1))
    frames = _video(game, states, np.random.default_rng(4))
    reader = FakeReader(game)
    tracker, _ = _track(tmp_path, game, frames, reader)
    assert tracker.tiles_reused > 2 * tracker.tiles_read


class TestCameraTrouble:
    def test_camera_that_will_not_open_is_retried_then_given_up(self) -> None:
        sleeps: list[float] = []
        tracker = Tracker(0, 3, reader=FakeReader(Game(6)), mat=False, max_retries=2,
                          opener=lambda _: FakeCapture([], opened=False), sleep=sleeps.append)
        events = list(tracker)
        assert [e.kind for e in events] == ["status"] * 3
        first, last = events[0], events[-1]
        assert isinstance(first, CameraStatus) and isinstance(last, CameraStatus)
        assert first.reason is CameraReason.RETRYING and "retrying" in first.message
        assert last.reason is CameraReason.GAVE_UP and "giving up" in last.message
        assert len(sleeps) == 2

    def test_camera_that_stops_and_comes_back_is_followed(self) -> None:
        game = Game(7)
        rng = np.random.default_rng(5)
        sessions = [
            FakeCapture([game.draw(0, rng) for _ in range(8)]),  # then stops
            FakeCapture([], opened=False),  # unplugged
            FakeCapture([game.draw(1, rng) for _ in range(8)]),
        ]
        opened: list[int] = []

        def opener(_: Any) -> FakeCapture:
            opened.append(1)
            return sessions[min(len(opened) - 1, len(sessions) - 1)] if len(opened) <= 3 \
                else FakeCapture([], opened=False)

        tracker = Tracker(0, game.players, reader=FakeReader(game), mat=False, max_retries=1,
                          opener=opener, sleep=lambda _: None)
        events = list(tracker)
        kinds = [e.kind for e in events]
        assert kinds.count("table") == 2
        messages = " | ".join(e.message for e in events if isinstance(e, CameraStatus))
        assert "stopped delivering frames" in messages
        assert "cannot be opened" in messages

    def test_a_capture_that_raises_is_a_status_not_a_crash(self) -> None:
        def opener(_: Any) -> Any:
            raise cv2.error("backend exploded")

        events = list(Tracker(1, 3, reader=FakeReader(Game(8)), mat=False, max_retries=0,
                              opener=opener, sleep=lambda _: None))
        last = events[-1]
        assert isinstance(last, CameraStatus) and "giving up" in last.message


def test_folder_of_images(tmp_path: Path) -> None:
    game = Game(9)
    rng = np.random.default_rng(6)
    for i in range(8):
        cv2.imwrite(str(tmp_path / f"f{i:03d}.png"), game.draw(1, rng))
    (tmp_path / "notes.txt").write_text("not an image")
    events = list(Tracker(tmp_path, game.players, reader=FakeReader(game), mat=False))
    assert [e.table for e in events if isinstance(e, TableSettled)] == [game.state(1)]


def test_empty_folder_is_bad_input(tmp_path: Path) -> None:
    from engine.errors import BadInputError

    with pytest.raises(BadInputError):
        Tracker(tmp_path, 3)


class MissingReader(FakeReader):
    """Its detector stops seeing the second tile played once four are down; ``read_at``
    (looking again where a tile lay) sees it still there, or, with ``gone``, sees
    something else there."""

    def __init__(self, game: Game, gone: bool = False) -> None:
        super().__init__(game)
        self.gone = gone
        self.looked_again = 0

    def detector(self, frame: np.ndarray) -> Detections:
        found = super().detector(frame)
        k = int(frame[0, 0, 0]) if frame[0, 0, 0] < 200 else 0
        if k < 4:
            return found
        lost = apply_homography(self.game.to_image, self.game.order[1].corners).mean(axis=0)
        keep = np.linalg.norm(found.corners.mean(axis=1) - lost, axis=1) > 2.0
        return found[keep]

    def read_at(self, frame: np.ndarray, corners: np.ndarray) -> list[SeenTile]:
        self.looked_again += len(corners)
        out = []
        for c in corners:
            near = [t for t in self.game.tiles(int(frame[0, 0, 0]))
                    if np.linalg.norm(apply_homography(self.game.to_image, t.corners).mean(axis=0)
                                      - c.mean(axis=0)) < 2.0]
            values = (13, 13) if self.gone or not near else near[0].values
            out.append(SeenTile(values, c))
        return out


def test_a_tile_the_detector_misses_is_kept_while_it_looks_the_same(tmp_path: Path) -> None:
    game = Game(6, n_tiles=7)
    states = list(range(len(game.order) + 1))
    frames = _video(game, states, np.random.default_rng(6))
    reader = MissingReader(game)
    tracker, events = _track(tmp_path, game, frames, reader)
    assert tracker.tiles_kept > 0 and reader.looked_again == 0  # no need to look again
    assert [e.table for e in events if e.kind == "table"] == [game.state(k) for k in states]
    assert "tile-removed" not in _alert_codes(events)


def test_a_missed_tile_that_looks_changed_is_kept_when_it_reads_the_same(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import vision.tracker

    monkeypatch.setattr(vision.tracker, "same_look", lambda a, b: False)
    game = Game(6, n_tiles=7)
    states = list(range(len(game.order) + 1))
    frames = _video(game, states, np.random.default_rng(6))
    reader = MissingReader(game)
    tracker, events = _track(tmp_path, game, frames, reader)
    assert reader.looked_again > 0 and tracker.tiles_kept > 0
    assert [e.table for e in events if e.kind == "table"] == [game.state(k) for k in states]
    assert "tile-removed" not in _alert_codes(events)


def test_a_tile_taken_away_is_gone(tmp_path: Path) -> None:
    game = Game(6, n_tiles=7)
    game.taken, game.taken_from = {1}, 4  # the second tile played is taken back
    states = list(range(len(game.order) + 1))
    frames = _video(game, states, np.random.default_rng(6))
    tracker, events = _track(tmp_path, game, frames, MissingReader(game, gone=True))
    assert tracker.tiles_kept == 0
    assert "tile-removed" in _alert_codes(events)


def test_a_tile_swapped_for_another_in_its_place_is_read_again(tmp_path: Path) -> None:
    game = Game(7, n_tiles=6)
    last = len(game.order) - 1
    a, b = (0 if v >= 4 else 9 for v in game.order[last].values)  # another tile altogether
    game.swapped, game.swapped_from = {last: (a, b)}, len(game.order) + 1
    states = [*range(len(game.order) + 1), len(game.order) + 1]
    frames = _video(game, states, np.random.default_rng(7))
    _, events = _track(tmp_path, game, frames, FakeReader(game))
    settled = [e.table for e in events if e.kind == "table"]
    assert settled[:-1] == [game.state(k) for k in states[:-1]]
    owner = game.order[last].owner
    train = settled[-1].train(owner)
    assert train is not None and sorted(train.tiles[-1]) == sorted((a, b))


def test_a_recording_can_be_played_at_its_own_pace(tmp_path: Path) -> None:
    game = Game(9)
    rng = np.random.default_rng(7)
    for i in range(12):
        cv2.imwrite(str(tmp_path / f"f{i:03d}.png"), game.draw(1, rng))
    waits: list[float] = []
    fast = list(Tracker(tmp_path, game.players, reader=FakeReader(game), mat=False,
                        sleep=waits.append))
    assert waits == []  # as fast as frames are read
    paced = list(Tracker(tmp_path, game.players, reader=FakeReader(game), mat=False,
                         sleep=waits.append, realtime=True))
    # a folder plays at 10 frames a second: each read waits for its frame's time
    # (none for the first; this sleep does not pass time, so the waits add up)
    assert len(waits) == 12 and waits == sorted(waits)
    assert 0.7 < waits[-1] <= 1.2 and waits[0] <= 0.1
    assert [e.table for e in paced if isinstance(e, TableSettled)] == [
        e.table for e in fast if isinstance(e, TableSettled)]


class FragmentReader(FakeReader):
    """Its detector finds the fifth tile played as two overlapping squarish pieces, which
    it reads wrong."""

    def __init__(self, game: Game, join: bool) -> None:
        super().__init__(game)
        self.join_fragments = join

    def detector(self, frame: np.ndarray) -> Detections:
        found = super().detector(frame)
        k = int(frame[0, 0, 0]) if frame[0, 0, 0] < 200 else 0
        if k < 5:
            return found
        target = apply_homography(self.game.to_image, self.game.order[4].corners)
        at = int(np.argmin(np.linalg.norm(found.corners.mean(axis=1) - target.mean(axis=0),
                                          axis=1)))
        c = found.corners[at]
        a_end, b_end = (c[0] + c[1]) / 2, (c[2] + c[3]) / 2
        pieces = []
        for lo, hi in ((0.0, 0.65), (0.35, 1.0)):  # each piece 0.65 of the tile: they overlap
            near, far = a_end + (b_end - a_end) * lo, a_end + (b_end - a_end) * hi
            side = (c[1] - c[0]) / 2
            pieces.append(np.array([near - side, near + side, far + side, far - side]))
        keep = np.arange(len(found)) != at
        corners = np.concatenate([found.corners[keep], np.array(pieces, np.float32)])
        n = len(corners)
        return Detections(corners, np.ones(n), np.zeros(n))

    def read_tiles(self, frame: np.ndarray, tiles: Detections) -> list[SeenTile]:
        out = super().read_tiles(frame, tiles)
        for i, c in enumerate(tiles.corners):
            sides = np.linalg.norm(np.roll(c, -1, axis=0) - c, axis=1)
            if sides.max() < 1.5 * sides.min():  # a piece: read wrong
                a, b = out[i].values
                out[i] = SeenTile((a, (b + 5) % 13), c)
        return out


@pytest.mark.parametrize("join", [True, False])
def test_pieces_of_one_tile_are_followed_as_that_tile(tmp_path: Path, join: bool) -> None:
    game = Game(7, n_tiles=9)
    states = list(range(len(game.order) + 1))
    frames = _video(game, states, np.random.default_rng(7), hold=16)
    _, events = _track(tmp_path, game, frames, FragmentReader(game, join))
    settled = [e.table for e in events if e.kind == "table"]
    right = settled == [game.state(k) for k in states]
    assert right == join  # without joining, the pieces' readings reach the table


class _Doubtful:
    """A reading with the reader's doubt (``TileReading.uncertain`` and ``ranges``)."""

    uncertain = True
    confidence = 0.5
    half_certainty = (1.0, 1.0)

    def __init__(self, values: tuple[int, int], corners: np.ndarray,
                 ranges: tuple[tuple[int, int], tuple[int, int]]) -> None:
        self.values, self.corners, self.ranges = values, corners, ranges


class OverReader(FakeReader):
    """Reads one tile's far half one pip too many, with doubt (either count could be)."""

    def __init__(self, game: Game, tile: Any) -> None:
        super().__init__(game)
        self.tile = tile

    def read_tiles(self, frame: np.ndarray, tiles: Detections) -> list[Any]:
        out: list[Any] = []
        centre = apply_homography(self.game.to_image, self.tile.corners).mean(axis=0)
        for reading in super().read_tiles(frame, tiles):
            c = np.asarray(reading.corners)
            if np.linalg.norm(c.mean(axis=0) - centre) < 2.0:
                a, b = reading.values
                out.append(_Doubtful((a, b + 1), c, ((a, a), (b, b + 1))))
            else:
                out.append(reading)
        return out


def _misread_pair(game: Game) -> tuple[int, int]:
    """Order indices of a tile and the tile laid next on its train."""
    for j, t in enumerate(game.order):
        for m in range(j + 1, len(game.order)):
            u = game.order[m]
            if u.owner == t.owner and u.index == t.index + 1 and t.values[0] != t.values[1]:
                return j, m
    raise AssertionError("no train of two singles")


@pytest.mark.parametrize("reread", [True, False])
def test_a_doubtful_open_end_read_again_as_its_train_grows_is_no_tile_taken_away(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, reread: bool) -> None:
    import vision.tracker

    if not reread:
        monkeypatch.setattr(vision.tracker, "MAX_REREADS", -1)
    game = Game(8, n_tiles=9)
    j, m = _misread_pair(game)
    states = list(range(len(game.order) + 1))
    frames = _video(game, states, np.random.default_rng(8))
    _, events = _track(tmp_path, game, frames, OverReader(game, game.order[j]))
    settled = [e.table for e in events if e.kind == "table"]
    # read 1 pip over while it is the open end, then matched to the tile laid on it
    assert settled[j + 1] != game.state(j + 1)
    assert settled[m + 1:] == [game.state(k) for k in states[m + 1:]]
    alerts = [(e.alert.at, e.alert.code, e.alert.train) for e in events if e.kind == "alert"]
    if reread:
        assert alerts == _expected_alerts(game, states)
        assert any("read again" in e.message for e in events if e.kind == "uncertain")
    else:
        assert "tile-removed" in _alert_codes(events)


@pytest.mark.parametrize("guard", [True, False])
def test_a_tile_taken_from_the_middle_of_a_train_is_not_inferred_back(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, guard: bool) -> None:
    import vision.tracker

    if not guard:  # without the check, the gap it leaves is filled with an inferred tile
        monkeypatch.setattr(vision.tracker, "fills_a_known_place", lambda old, new: False)
    game = Game(8, n_tiles=9)
    j, m = _misread_pair(game)  # a tile and the tile laid on it, same train
    later = [k for k, t in enumerate(game.order)
             if t.owner == game.order[m].owner and t.index == game.order[m].index + 1]
    assert later, "the train must run on past the tile laid on it"
    game.taken, game.taken_from = {m}, len(game.order)  # taken back once all are down
    states = [*range(len(game.order) + 1), len(game.order)]
    frames = _video(game, states, np.random.default_rng(9))
    _, events = _track(tmp_path, game, frames, FakeReader(game))
    assert ("tile-removed" in _alert_codes(events)) == guard


class AskewReader(FakeReader):
    """Its detector finds the fifth tile played as a box turned 40 degrees about its
    centre, which it reads wrong; it cannot look again (no ``read_at``)."""

    def __init__(self, game: Game) -> None:
        super().__init__(game)
        self.askew = apply_homography(game.to_image, game.order[4].corners)

    def detector(self, frame: np.ndarray) -> Detections:
        found = super().detector(frame)
        k = int(frame[0, 0, 0]) if frame[0, 0, 0] < 200 else 0
        if k < 5:
            return found
        at = int(np.argmin(np.linalg.norm(found.corners.mean(axis=1) - self.askew.mean(axis=0),
                                          axis=1)))
        c = found.corners[at]
        m = c.mean(axis=0)
        a = np.radians(40)
        rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
        corners = found.corners.copy()
        corners[at] = (c - m) @ rot.T + m
        return Detections(corners, found.confidence, found.class_id)

    def read_tiles(self, frame: np.ndarray, tiles: Detections) -> list[SeenTile]:
        out = super().read_tiles(frame, tiles)
        for i, c in enumerate(tiles.corners):
            if np.linalg.norm(c.mean(axis=0) - self.askew.mean(axis=0)) < 2 and np.linalg.norm(
                    c - self.askew, axis=1).max() > 3:  # the askew box: read wrong
                a, b = out[i].values
                out[i] = SeenTile((a, (b + 5) % 13), c)
        return out



class LookingAskewReader(AskewReader):
    """... whose ``read_at`` reads the true tile lying in the outline asked for."""

    def read_at(self, frame: np.ndarray, corners: np.ndarray) -> list[SeenTile]:
        out = []
        for c in corners:
            values = (13, 13)  # nothing lies so there: junk beyond the set
            for tile in self.game.tiles(int(frame[0, 0, 0])):
                t = apply_homography(self.game.to_image, tile.corners)
                if np.linalg.norm(t - c, axis=1).max() < 3:
                    values = tile.values
                elif np.linalg.norm(np.roll(t, 2, axis=0) - c, axis=1).max() < 3:
                    values = tile.values[::-1]
            out.append(SeenTile(values, c))
        return out


@pytest.mark.parametrize("look", [True, False])
def test_a_train_stopping_at_an_askew_box_is_read_again_where_it_goes_on(
        tmp_path: Path, look: bool) -> None:
    game = Game(7, n_tiles=9)
    states = list(range(len(game.order) + 1))
    frames = _video(game, states, np.random.default_rng(7), hold=16)
    reader = LookingAskewReader(game) if look else AskewReader(game)
    _, events = _track(tmp_path, game, frames, reader)
    settled = [e.table for e in events if e.kind == "table"]
    assert (settled == [game.state(k) for k in states]) == look
    assert any("read again there" in e.message for e in events if e.kind == "uncertain") == look


#: A heap of four tiles lying face down in the corner of the view: plain boxes.
HEAP = [np.array([[40 + 22 * j, 40], [54 + 22 * j, 40], [54 + 22 * j, 68], [40 + 22 * j, 68]],
                 np.float32) for j in range(4)]


class HeapReader(FakeReader):
    """Also finds the heap's boxes and sets them apart as backs (``read_tiles_and_backs``);
    counts the backs it set apart. A marker box lies on the first back."""

    def __init__(self, game: Game) -> None:
        super().__init__(game)
        self.backs_set_apart = 0

    def detector(self, frame: np.ndarray) -> Detections:
        found = super().detector(frame)
        heap = np.array(HEAP) + self.rng.normal(0, 0.3, (len(HEAP), 4, 2))
        marker = HEAP[0] * 0.5 + HEAP[0].mean(axis=0) * 0.5
        return Detections.merge([found, Detections(heap, np.ones(len(HEAP)),
                                                   np.zeros(len(HEAP))),
                                 Detections(marker[None], np.ones(1), np.ones(1))])

    def read_tiles_and_backs(self, frame: np.ndarray, tiles: Detections
                             ) -> tuple[list[SeenTile], list[SeenTile]]:
        heap = np.array(HEAP).mean(axis=1)
        on_heap = np.array([np.min(np.linalg.norm(heap - c.mean(axis=0), axis=1)) < 3
                            for c in tiles.corners], bool)
        backs = [SeenTile((0, 0), c) for c in tiles.corners[on_heap]]
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
    frames = [_with_heap(f) for f in _video(game, states, np.random.default_rng(7))]
    reader = HeapReader(game)
    tracker, events = _track(tmp_path, game, frames, reader)
    assert [e.table for e in events if e.kind == "table"] == [game.state(k) for k in states]
    assert reader.backs_set_apart == tracker.backs_read == len(HEAP)
    assert tracker.backs_reused >= 4 * len(HEAP)


def test_a_back_that_looks_otherwise_is_read_again(tmp_path: Path) -> None:
    game = Game(7, n_tiles=8)
    rng = np.random.default_rng(8)
    frames = [_with_heap(game.draw(2, rng)) for _ in range(10)]
    frames += [_with_heap(game.draw(2, rng), turned=True) for _ in range(10)]
    reader = HeapReader(game)
    _track(tmp_path, game, frames, reader)
    # the heap once, then the tile turned over, and only it
    assert reader.backs_set_apart == len(HEAP) + 1


def test_a_marker_on_a_back_known_already_is_no_marker(tmp_path: Path) -> None:
    from vision.tracker import _Cache

    game = Game(7, n_tiles=8)
    rng = np.random.default_rng(9)
    frame = _with_heap(game.draw(2, rng))
    assert frame is not None
    video = tmp_path / "game.mp4"
    video.write_bytes(b"")
    tracker = Tracker(video, game.players, reader=HeapReader(game), mat=False,
                      opener=lambda _: FakeCapture([]), sleep=lambda _: None)
    cache = _Cache()
    for _ in range(3):  # the first read sets the heap apart; the next ones find it again
        _, markers = tracker._read(frame, cache)
        assert len(markers) == 0
    assert tracker.backs_read == len(HEAP) and tracker.backs_reused == 2 * len(HEAP)
