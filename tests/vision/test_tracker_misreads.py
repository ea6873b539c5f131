"""vision.tracking.tracker: boxes found wrong (pieces of a tile, a box askew), tiles read with
doubt and read again, and a tile taken from the middle of a train."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from tracker_fakes import (
    FPS,
    NOTHING,
    FakeReader,
    Game,
    WholeFrames,
    alert_codes,
    expected_alerts,
    track,
    video,
)

from vision.mat.geometry import apply_homography
from vision.models.detections import Detections
from vision.models.onnx_models import BareBoxes
from vision.readings import TileReading, TileReadings
from vision.tracking.tracker import BROKEN_WAIT_S


class FragmentReader(FakeReader):
    """Its detector finds the fifth tile played as two overlapping squarish pieces, which
    it reads wrong."""

    def __init__(self, game: Game, join: bool) -> None:
        super().__init__(game)
        self.join_fragments = join

    def detect(self, frame: np.ndarray, bare: BareBoxes | None = None) -> Detections:
        found = super().detect(frame, bare)
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

    def read_tiles(self, frame: np.ndarray, tiles: Detections) -> list[TileReading]:
        out = super().read_tiles(frame, tiles)
        for i, c in enumerate(tiles.corners):
            sides = np.linalg.norm(np.roll(c, -1, axis=0) - c, axis=1)
            if sides.max() < 1.5 * sides.min():  # a piece: read wrong
                a, b = out[i].values
                out[i] = TileReading((a, (b + 5) % 13), c)
        return out


@pytest.mark.parametrize("join", [True, False])
def test_pieces_of_one_tile_are_followed_as_that_tile(tmp_path: Path, join: bool) -> None:
    game = Game(7, n_tiles=9)
    states = list(range(len(game.order) + 1))
    frames = video(game, states, np.random.default_rng(7), hold=16)
    _, events = track(tmp_path, game, frames, FragmentReader(game, join))
    settled = [e.table for e in events if e.kind == "table"]
    right = settled == [game.state(k) for k in states]
    assert right == join  # without joining, the pieces' readings reach the table


def _doubtful(values: tuple[int, int], corners: np.ndarray,
              ranges: tuple[tuple[int, int], tuple[int, int]]) -> TileReading:
    """A reading with the reader's doubt (``TileReading.uncertain`` and ``ranges``)."""
    return TileReading(values, corners, 0.5, True, ranges=ranges)


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
                out.append(_doubtful((a, b + 1), c, ((a, a), (b, b + 1))))
            else:
                out.append(reading)
        return out


def misread_pair(game: Game) -> tuple[int, int]:
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
    import vision.tracking.table_vote

    if not reread:
        monkeypatch.setattr(vision.tracking.table_vote, "MAX_REREADS", -1)
    game = Game(8, n_tiles=9)
    j, m = misread_pair(game)
    states = list(range(len(game.order) + 1))
    frames = video(game, states, np.random.default_rng(8))
    _, events = track(tmp_path, game, frames, OverReader(game, game.order[j]))
    settled = [e.table for e in events if e.kind == "table"]
    # read 1 pip over while it is the open end, then matched to the tile laid on it
    assert settled[j + 1] != game.state(j + 1)
    assert settled[m + 1:] == [game.state(k) for k in states[m + 1:]]
    alerts = [(e.alert.at, e.alert.code, e.alert.train) for e in events if e.kind == "alert"]
    if reread:
        assert alerts == expected_alerts(game, states)
        assert any("read again" in e.message for e in events if e.kind == "uncertain")
    else:
        assert "tile-removed" in alert_codes(events)


@pytest.mark.parametrize("guard", [True, False])
def test_a_tile_taken_from_the_middle_of_a_train_is_not_inferred_back(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, guard: bool) -> None:
    import vision.tracking.tracker

    if not guard:  # without the check, the gap it leaves is filled with an inferred tile
        monkeypatch.setattr(vision.tracking.tracker, "fills_a_known_place", lambda old, new: False)
    game = Game(8, n_tiles=9)
    j, m = misread_pair(game)  # a tile and the tile laid on it, same train
    later = [k for k, t in enumerate(game.order)
             if t.owner == game.order[m].owner and t.index == game.order[m].index + 1]
    assert later, "the train must run on past the tile laid on it"
    game.taken, game.taken_from = {m}, len(game.order)  # taken back once all are down
    states = [*range(len(game.order) + 1), len(game.order)]
    rng = np.random.default_rng(9)
    frames = video(game, states, rng)
    # the tiles beyond it lie past a gap, as on a train read broken: the table settles
    # once it has stayed so for BROKEN_WAIT_S
    frames += [game.draw(states[-1], rng) for _ in range(round(BROKEN_WAIT_S * FPS) + 10)]
    _, events = track(tmp_path, game, frames, FakeReader(game))
    assert ("tile-removed" in alert_codes(events)) == guard


class AskewReader(FakeReader):
    """Its detector finds the fifth tile played as a box turned 40 degrees about its
    centre, which it reads wrong; it cannot look again (no ``read_at``)."""

    def __init__(self, game: Game) -> None:
        super().__init__(game)
        self.askew = apply_homography(game.to_image, game.order[4].corners)

    def detect(self, frame: np.ndarray, bare: BareBoxes | None = None) -> Detections:
        found = super().detect(frame, bare)
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

    def read_tiles(self, frame: np.ndarray, tiles: Detections) -> list[TileReading]:
        out = super().read_tiles(frame, tiles)
        for i, c in enumerate(tiles.corners):
            if np.linalg.norm(c.mean(axis=0) - self.askew.mean(axis=0)) < 2 and np.linalg.norm(
                    c - self.askew, axis=1).max() > 3:  # the askew box: read wrong
                a, b = out[i].values
                out[i] = TileReading((a, (b + 5) % 13), c)
        return out



class LookingAskewReader(AskewReader):
    """... whose ``read_at`` reads the true tile lying in the outline asked for."""

    def read_at(self, frame: np.ndarray, corners: np.ndarray) -> TileReadings:
        out = []
        for c in corners:
            values = NOTHING  # nothing lies so there: junk beyond the set
            for tile in self.game.tiles(int(frame[0, 0, 0])):
                t = apply_homography(self.game.to_image, tile.corners)
                if np.linalg.norm(t - c, axis=1).max() < 3:
                    values = tile.values
                elif np.linalg.norm(np.roll(t, 2, axis=0) - c, axis=1).max() < 3:
                    values = tile.values[::-1]
            out.append(TileReading(values, c))
        return TileReadings.of(out)


@pytest.mark.parametrize("look", [True, False])
def test_a_train_stopping_at_an_askew_box_is_read_again_where_it_goes_on(
        tmp_path: Path, look: bool) -> None:
    game = Game(7, n_tiles=9)
    states = list(range(len(game.order) + 1))
    frames = video(game, states, np.random.default_rng(7), hold=16)
    reader = LookingAskewReader(game) if look else AskewReader(game)
    _, events = track(tmp_path, game, frames, reader)
    settled = [e.table for e in events if e.kind == "table"]
    assert (settled == [game.state(k) for k in states]) == look
    assert any("read again there" in e.message for e in events if e.kind == "uncertain") == look




class SlipReader(FakeReader):
    """In the first ``slips`` still frames of state ``at``, its detector finds the tile
    ``tile`` (the end of its train) boxed two and a half tile lengths further on."""

    def __init__(self, game: Game, at: int, tile: Any, slips: int) -> None:
        super().__init__(game)
        self.at, self.slips = at, slips
        self.where = apply_homography(game.to_image, tile.corners)

    def detect(self, frame: np.ndarray, bare: BareBoxes | None = None) -> Detections:
        found = super().detect(frame, bare)
        k = int(frame[0, 0, 0]) if frame[0, 0, 0] < 200 else 0
        if k != self.at or frame[0, 1, 0] > 128 or self.slips <= 0:
            return found
        self.slips -= 1
        centres = found.corners.mean(axis=1)
        at = int(np.argmin(np.linalg.norm(centres - self.where.mean(axis=0), axis=1)))
        c = found.corners[at]
        along = (c[2] + c[3]) / 2 - (c[0] + c[1]) / 2
        corners = found.corners.copy()
        corners[at] = c + 2.5 * along
        keys = list(self.truth)
        key = keys[int(np.argmin([np.linalg.norm(np.subtract(q, c.mean(axis=0))) for q in keys]))]
        self.truth[tuple(np.round(corners[at].mean(axis=0), 3))] = self.truth.pop(key)
        return Detections(corners, found.confidence, found.class_id)


def end_on_another_train(game: Game) -> tuple[int, int]:
    """A state and an order index: the tile that ends its train then, on another train
    than the tile laid last."""
    for k in range(3, len(game.order) + 1):
        laid = game.order[k - 1]
        for j in range(k - 1):
            t = game.order[j]
            last = not any(u.owner == t.owner for u in game.order[j + 1:k])
            if last and t.owner != laid.owner and t.index > 0:
                return k, j
    raise AssertionError("no train ends before another's tile")


@pytest.mark.parametrize("guard", [True, False])
def test_a_train_read_broken_while_its_tile_lies_off_it_does_not_settle(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, guard: bool) -> None:
    import vision.tracking.tracker

    if not guard:  # without the check, the broken train settles: a tile taken away
        monkeypatch.setattr(vision.tracking.tracker, "breaks_a_train", lambda *_: False)
    game = Game(8, n_tiles=9)
    k, j = end_on_another_train(game)
    states = list(range(len(game.order) + 1))
    frames = video(game, states, np.random.default_rng(10), hold=16)
    # read whole at every still frame (no memory of the tiles to keep the tile in place)
    _, events = track(tmp_path, game, frames,
                      WholeFrames(SlipReader(game, k, game.order[j], slips=8)))
    settled = [e.table for e in events if e.kind == "table"]
    alerts = [(e.alert.at, e.alert.code, e.alert.train) for e in events if e.kind == "alert"]
    if guard:
        assert settled == [game.state(s) for s in states]
        assert alerts == expected_alerts(game, states)
    else:
        assert "tile-removed" in alert_codes(events)


@pytest.mark.parametrize("wait_s", [None, 0.5])
def test_a_train_read_broken_settles_once_it_stays_so(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, wait_s: float | None) -> None:
    import vision.tracking.tracker

    if wait_s is not None:
        monkeypatch.setattr(vision.tracking.tracker, "BROKEN_WAIT_S", wait_s)
    game = Game(8, n_tiles=9)
    k, j = end_on_another_train(game)
    states = list(range(k + 1))  # the last table read broken all along (1.6 s)
    frames = video(game, states, np.random.default_rng(10), hold=16)
    _, events = track(tmp_path, game, frames,
                      WholeFrames(SlipReader(game, k, game.order[j], slips=len(frames))))
    settled = [e.table for e in events if e.kind == "table"]
    assert settled[:k] == [game.state(s) for s in states[:k]]
    if wait_s is None:  # it waits for the tile to be read on its train again
        assert len(settled) == k
    else:
        assert len(settled) == k + 1 and "tile-removed" in alert_codes(events)
