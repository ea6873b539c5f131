"""vision.tracking.tracker: following a game through synthetic frames, and surviving bad cameras."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from tracker_fakes import (
    NOTHING,
    FakeCapture,
    FakeReader,
    Game,
    alert_codes,
    expected_alerts,
    track,
    video,
)

from vision.events import CameraReason, CameraStatus, TableSettled
from vision.mat.geometry import apply_homography
from vision.models.detections import Detections
from vision.models.onnx_models import BareBoxes
from vision.readings import TileReading, TileReadings
from vision.tracking.tracker import Tracker


def test_settles_each_state_once_and_alerts_like_the_observer(tmp_path: Path) -> None:
    game = Game(1)
    states = list(range(len(game.order) + 1))
    frames = video(game, states, np.random.default_rng(0), light_drift=True)
    tracker, events = track(tmp_path, game, frames, FakeReader(game))
    settled = [e.table for e in events if e.kind == "table"]
    assert settled == [game.state(k) for k in states]
    alerts = [(e.alert.at, e.alert.code, e.alert.train) for e in events if e.kind == "alert"]
    assert alerts == expected_alerts(game, states)
    assert events[-1].kind == "status" and "end of" in events[-1].message


def test_an_illegal_move_seen_on_camera_raises_the_alert(tmp_path: Path) -> None:
    game = Game(2)
    states = [0, 1, 3]  # two tiles appear in one turn
    frames = video(game, states, np.random.default_rng(1))
    _, events = track(tmp_path, game, frames, FakeReader(game))
    codes = [e.alert.code for e in events if e.kind == "alert"]
    assert codes == [code for _, code, _ in expected_alerts(game, states)]
    assert codes  # something was wrong


def test_flickering_reads_are_voted_away(tmp_path: Path) -> None:
    game = Game(3)
    states = list(range(len(game.order) + 1))
    frames = video(game, states, np.random.default_rng(2), hold=16)
    _, events = track(tmp_path, game, frames, FakeReader(game, flicker=0.04, seed=5))
    settled = [e.table for e in events if e.kind == "table"]
    assert settled == [game.state(k) for k in states]


def test_a_hand_resting_over_the_table_hides_nothing(tmp_path: Path) -> None:
    game = Game(4)
    rng = np.random.default_rng(3)
    still = [game.draw(2, rng) for _ in range(10)]
    # A hand that stays still over the table for a long while (hiding a tile), then leaves.
    covered = [game.draw(2, rng, hand=0.6) for _ in range(12)]
    after = [game.draw(3, rng) for _ in range(10)]
    _, events = track(tmp_path, game, [*still, *covered, *after], FakeReader(game))
    settled = [(e.frame, e.table) for e in events if e.kind == "table"]
    assert [t for _, t in settled] == [game.state(2), game.state(3)]
    assert settled[1][0] >= len(still) + len(covered)
    assert "tile-removed" not in alert_codes(events)


def test_unmoved_tiles_are_not_read_again(tmp_path: Path) -> None:
    game = Game(5, n_tiles=10)
    states = list(range(len(game.order) + 1))
    frames = video(game, states, np.random.default_rng(4))
    reader = FakeReader(game)
    tracker, _ = track(tmp_path, game, frames, reader)
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

    def detect(self, frame: np.ndarray, bare: BareBoxes | None = None) -> Detections:
        found = super().detect(frame, bare)
        k = int(frame[0, 0, 0]) if frame[0, 0, 0] < 200 else 0
        if k < 4:
            return found
        lost = apply_homography(self.game.to_image, self.game.order[1].corners).mean(axis=0)
        keep = np.linalg.norm(found.corners.mean(axis=1) - lost, axis=1) > 2.0
        return found[keep]

    def read_at(self, frame: np.ndarray, corners: np.ndarray) -> TileReadings:
        self.looked_again += len(corners)
        out = []
        for c in corners:
            near = [t for t in self.game.tiles(int(frame[0, 0, 0]))
                    if np.linalg.norm(apply_homography(self.game.to_image, t.corners).mean(axis=0)
                                      - c.mean(axis=0)) < 2.0]
            values = NOTHING if self.gone or not near else near[0].values
            out.append(TileReading(values, c))
        return TileReadings.of(out)


def test_a_tile_the_detector_misses_is_kept_while_it_looks_the_same(tmp_path: Path) -> None:
    game = Game(6, n_tiles=7)
    states = list(range(len(game.order) + 1))
    frames = video(game, states, np.random.default_rng(6))
    reader = MissingReader(game)
    tracker, events = track(tmp_path, game, frames, reader)
    assert tracker.tiles_kept > 0 and reader.looked_again == 0  # no need to look again
    assert [e.table for e in events if e.kind == "table"] == [game.state(k) for k in states]
    assert "tile-removed" not in alert_codes(events)


def test_a_missed_tile_that_looks_changed_is_kept_when_it_reads_the_same(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import vision.tracking.tile_memory

    monkeypatch.setattr(vision.tracking.tile_memory, "same_look", lambda a, b: False)
    game = Game(6, n_tiles=7)
    states = list(range(len(game.order) + 1))
    frames = video(game, states, np.random.default_rng(6))
    reader = MissingReader(game)
    tracker, events = track(tmp_path, game, frames, reader)
    assert reader.looked_again > 0 and tracker.tiles_kept > 0
    assert [e.table for e in events if e.kind == "table"] == [game.state(k) for k in states]
    assert "tile-removed" not in alert_codes(events)


class DoubtingReader(MissingReader):
    """A :class:`MissingReader` that reads the second tile played with doubt, its far
    count otherwise every third time: the table settles on the reading most voted for,
    mostly not the still frame's own."""

    doubts = 0

    def read_tiles(self, frame: np.ndarray, tiles: Detections) -> list[Any]:
        doubted = apply_homography(self.game.to_image, self.game.order[1].corners).mean(axis=0)
        out = []
        for r in super().read_tiles(frame, tiles):
            if np.linalg.norm(np.asarray(r.corners).mean(axis=0) - doubted) < 2.0:
                self.doubts += 1
                values = r.values if self.doubts % 3 else (r.values[0], (r.values[1] + 1) % 13)
                r = replace(r, values=values, uncertain=True)
            out.append(r)
        return out


def test_a_tile_read_with_doubt_is_held_once_its_table_settles(tmp_path: Path) -> None:
    # the detector stops seeing it two moves later: a tile of the settled table, it is
    # kept while it looks the same, whichever reading of it the vote chose
    game = Game(6, n_tiles=7)
    states = list(range(len(game.order) + 1))
    frames = video(game, states, np.random.default_rng(6))
    tracker, events = track(tmp_path, game, frames, DoubtingReader(game))
    tables = [e.table for e in events if e.kind == "table"]
    assert [[len(t.tiles) for t in table.trains] for table in tables] == [
        [len(t.tiles) for t in game.state(k).trains] for k in states]
    assert tracker.tiles_kept > 0
    assert "tile-removed" not in alert_codes(events)


def test_a_tile_taken_away_is_gone(tmp_path: Path) -> None:
    game = Game(6, n_tiles=7)
    game.taken, game.taken_from = {1}, 4  # the second tile played is taken back
    states = list(range(len(game.order) + 1))
    frames = video(game, states, np.random.default_rng(6))
    tracker, events = track(tmp_path, game, frames, MissingReader(game, gone=True))
    assert tracker.tiles_kept == 0
    assert "tile-removed" in alert_codes(events)


def test_a_tile_swapped_for_another_in_its_place_is_read_again(tmp_path: Path) -> None:
    game = Game(7, n_tiles=6)
    last = len(game.order) - 1
    a, b = (0 if v >= 4 else 9 for v in game.order[last].values)  # another tile altogether
    game.swapped, game.swapped_from = {last: (a, b)}, len(game.order) + 1
    states = [*range(len(game.order) + 1), len(game.order) + 1]
    frames = video(game, states, np.random.default_rng(7))
    _, events = track(tmp_path, game, frames, FakeReader(game))
    settled = [e.table for e in events if e.kind == "table"]
    assert settled[:-1] == [game.state(k) for k in states[:-1]]
    owner = game.order[last].owner
    train = settled[-1].train(owner)
    assert train is not None and sorted(train.tiles[-1]) == sorted((a, b))


def test_a_recording_can_be_played_at_its_own_pace(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    game = Game(9)
    rng = np.random.default_rng(7)
    for i in range(12):
        cv2.imwrite(str(tmp_path / f"f{i:03d}.png"), game.draw(1, rng))
    waits: list[float] = []
    fast = list(Tracker(tmp_path, game.players, reader=FakeReader(game), mat=False,
                        sleep=waits.append))
    assert waits == []  # as fast as frames are read
    # a clock that stands still, as if reading took no time (a busy machine reads late)
    monkeypatch.setattr("vision.tracking.tracker.time.monotonic", lambda: 100.0)
    paced = list(Tracker(tmp_path, game.players, reader=FakeReader(game), mat=False,
                         sleep=waits.append, realtime=True))
    monkeypatch.undo()
    # a folder plays at 10 frames a second: each read waits for its frame's time
    # (none for the first; this sleep does not pass time, so the waits add up)
    assert waits == pytest.approx([k / 10 for k in range(1, 13)])
    assert [e.table for e in paced if isinstance(e, TableSettled)] == [
        e.table for e in fast if isinstance(e, TableSettled)]

