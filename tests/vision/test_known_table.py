"""vision.change.known_table: the bare table and the last settled one, on painted rounds seen by
a fixed camera (patterned cloths, exposure changes, noise, a shadow, a bumped camera)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from known_table_fakes import (
    PRINTED,
    FramesCapture,
    PaintedReader,
    PaintedRound,
    box,
    cloth_boxes,
    mark,
    painted_round,
)

from datasets.table_sequence import exposed, shadowed, shifted
from engine import RuleSet
from vision.change.known_table import EMPTY_FRAMES, KnownTable
from vision.change.table_view import table_view, tile_scale
from vision.events import AlertRaised, CameraReason, CameraStatus, TableSettled
from vision.models.detections import Detections, polygon_iou
from vision.tracking.tracker import Tracker
from vision.tracking.view_change import RECHECK_S


@pytest.fixture(scope="module", params=[("stripes", False), ("checks", True)],
                ids=["stripes", "checks-mat"])
def rnd(request: pytest.FixtureRequest) -> PaintedRound:
    surface, mat = request.param
    return painted_round(21 if mat else 22, surface, mat)


def learned(rnd: PaintedRound, rng: np.random.Generator) -> KnownTable:
    known = KnownTable()
    for gain in (1.0, 0.97):
        known.see_empty(exposed(rnd.pictures[0].image, gain, 3.0, rng))
    return known


def test_boxes_on_unchanged_cloth_are_dropped_and_tiles_kept(rnd: PaintedRound) -> None:
    rng = np.random.default_rng(0)
    known = learned(rnd, rng)
    last = rnd.pictures[-1]
    # auto-exposure darkened the view, a player leans over it, the sensor is noisy
    frame = shadowed(exposed(last.image, 0.78, 5.0, rng, 6.0), (320, 180), 90, 0.35)
    tiles = np.array([c for _, c in last.tiles], np.float32)
    cloth = cloth_boxes(last, 12, rng)
    assert last.printed is not None
    found = Detections(np.concatenate([tiles, cloth, last.printed[None]]),
                       np.ones(len(tiles) + 13), np.zeros(len(tiles) + 13))
    kept = known.screen(frame, found, tile_class=0)
    assert len(kept) == len(tiles)
    assert np.allclose(kept.corners, tiles)
    assert known.dropped == 13


def test_nothing_is_dropped_before_the_bare_table_is_known(rnd: PaintedRound) -> None:
    known = KnownTable()
    frame = rnd.pictures[-1].image
    boxes = cloth_boxes(rnd.pictures[-1], 5, np.random.default_rng(1))
    assert not known.unchanged_boxes(table_view(frame), boxes).any()


def test_a_tile_the_detector_missed_is_found_where_the_table_changed(
        rnd: PaintedRound) -> None:
    rng = np.random.default_rng(2)
    known = learned(rnd, rng)
    before, after = rnd.pictures[-2], rnd.pictures[-1]
    known.settle(exposed(before.image, 1.0, 3.0, rng))
    old = {tuple(np.round(c.mean(axis=0), 1)) for _, c in before.tiles}
    new = [c for _, c in after.tiles if tuple(np.round(c.mean(axis=0), 1)) not in old]
    seen = np.array([c for _, c in after.tiles if tuple(np.round(c.mean(axis=0), 1)) in old],
                    np.float32)
    assert len(new) == 1
    frame = exposed(after.image, 0.85, 4.0, rng, 5.0)
    # the detector's per-box data (here a vector a box) is carried, zero for the candidate
    data = {"xywhr": np.ones((len(seen), 5), np.float32)}
    got = known.screen(frame, Detections(seen, np.ones(len(seen)), np.zeros(len(seen)), data), 0)
    assert got.data["xywhr"].shape == (len(got), 5) and not got.data["xywhr"][-1].any()
    added = got.corners[len(seen):]
    assert len(added) == 1 and known.added == 1
    assert polygon_iou(np.asarray(new, np.float32), added)[0, 0] > 0.6
    # the box it fits is tile-shaped: its sides those of the tiles read before
    scale = tile_scale(seen)
    assert scale is not None
    fitted = tile_scale(added)
    assert fitted is not None
    assert abs(fitted[0] - scale[0]) < 0.25 * scale[0]
    assert abs(fitted[1] - scale[1]) < 0.25 * scale[1]


def test_where_a_settled_tile_lay_a_change_is_no_tile_candidate(rnd: PaintedRound) -> None:
    # the last tile laid is taken back: where it lay the table changed by a tile's size,
    # but it is the settled tile gone, not a tile the detector missed (the bare table is
    # not known: a tracker started during the round, so it does not show bare table)
    rng = np.random.default_rng(3)
    before, after = rnd.pictures[-1], rnd.pictures[-2]
    tiles = np.array([c for _, c in before.tiles], np.float32)
    kept = np.array([c for _, c in after.tiles], np.float32)
    frame = exposed(after.image, 0.9, 4.0, rng)
    found = Detections(kept, np.ones(len(kept)), np.zeros(len(kept)))
    told = KnownTable()
    told.settle(exposed(before.image, 1.0, 3.0, rng), tiles)
    assert len(told.screen(frame, found, 0)) == len(kept) and told.added == 0
    # not told where the settled tiles lay, the change is taken for a missed tile
    untold = KnownTable()
    untold.settle(exposed(before.image, 1.0, 3.0, rng))
    assert untold.added == 0 and len(untold.screen(frame, found, 0)) > len(kept)


@pytest.mark.parametrize("surface", ["felt", "leather"])
def test_tiles_laid_on_a_dark_plain_cloth_are_found_where_it_changed(surface: str) -> None:
    # a dark cloth's sensor noise is large in log brightness; the tile, most of the crop
    # it is fitted in, is no smooth shading to take away
    rnd = painted_round(23, surface, False, tables=6)
    rng = np.random.default_rng(3)
    laid = found = 0
    for before, after in zip(rnd.pictures[1:-1], rnd.pictures[2:], strict=True):
        known = learned(rnd, rng)
        known.settle(exposed(before.image, 1.0, 3.0, rng))
        old = {tuple(np.round(c.mean(axis=0), 1)) for _, c in before.tiles}
        new = np.array([c for _, c in after.tiles
                        if tuple(np.round(c.mean(axis=0), 1)) not in old], np.float32)
        seen = np.array([c for _, c in after.tiles
                         if tuple(np.round(c.mean(axis=0), 1)) in old], np.float32)
        frame = exposed(after.image, 0.85, 4.0, rng, 5.0)
        got = known.screen(frame, Detections(seen, np.ones(len(seen)), np.zeros(len(seen))), 0)
        added = got.corners[len(got) - known.added:]
        laid += len(new)
        if len(new) and len(added):
            found += int((polygon_iou(new.reshape(-1, 4, 2), added).max(axis=1) > 0.6).sum())
    assert laid >= 4 and found >= laid - 1


def test_only_the_tile_laid_since_the_table_settled_changed_since(rnd: PaintedRound) -> None:
    rng = np.random.default_rng(4)
    known = learned(rnd, rng)
    before, after = rnd.pictures[-2], rnd.pictures[-1]
    old = {tuple(np.round(c.mean(axis=0), 1)) for _, c in before.tiles}
    new = np.array([c for _, c in after.tiles if tuple(np.round(c.mean(axis=0), 1)) not in old],
                   np.float32)
    seen = np.array([c for _, c in after.tiles if tuple(np.round(c.mean(axis=0), 1)) in old],
                    np.float32)
    frame = shadowed(exposed(after.image, 0.85, 4.0, rng, 5.0), (300, 200), 80, 0.3)
    assert not known.unchanged_since_settled(frame, seen).any()  # no table settled yet
    known.settle(exposed(before.image, 1.0, 3.0, rng))
    # a box shifted a third of a tile along an old one: the old tile boxed again
    along = seen[:, 2] - seen[:, 1]
    along = np.where((np.linalg.norm(along, axis=1) > np.linalg.norm(
        seen[:, 1] - seen[:, 0], axis=1))[:, None, None], along[:, None], (
        seen[:, 1] - seen[:, 0])[:, None])
    shifted = seen + along / 3
    cloth = cloth_boxes(after, 6, rng)
    assert known.unchanged_since_settled(frame, new).tolist() == [False]
    assert known.unchanged_since_settled(frame, seen).all()
    assert known.unchanged_since_settled(frame, cloth).all()
    # partly on the cloth beside the old tile (a train's end), still unchanged, unless
    # it reaches over the new tile
    off_new = polygon_iou(shifted, new)[:, 0] == 0
    assert off_new.any()
    assert known.unchanged_since_settled(frame, shifted[off_new]).all()
    assert known.unchanged_since_settled(frame, np.zeros((0, 4, 2), np.float32)).shape == (0,)


def test_a_still_table_gives_no_candidates(rnd: PaintedRound) -> None:
    rng = np.random.default_rng(3)
    known = learned(rnd, rng)
    last = rnd.pictures[-1]
    known.settle(exposed(last.image, 1.0, 3.0, rng))
    tiles = np.array([c for _, c in last.tiles], np.float32)
    frame = shadowed(exposed(last.image, 1.2, 4.0, rng), (200, 250), 70, 0.3)
    # one true tile unboxed: it was there when the table settled, so it is no candidate
    got = known.screen(frame, Detections(tiles[1:], np.ones(len(tiles) - 1),
                                         np.zeros(len(tiles) - 1)), 0)
    assert len(got) == len(tiles) - 1


def test_a_bumped_camera_is_learned_again(rnd: PaintedRound) -> None:
    rng = np.random.default_rng(4)
    known = learned(rnd, rng)
    last = rnd.pictures[-1]
    known.settle(exposed(last.image, 1.0, 3.0, rng))
    assert known.bumped(exposed(last.image, 0.9, 3.0, rng)) is None
    moved = exposed(shifted(last.image, 9.0, -6.0), 0.95, 3.0, rng)
    bump = known.bumped(moved)
    assert bump is not None
    assert abs(bump.shift[0] - 9.0) < 3.0 and abs(bump.shift[1] + 6.0) < 3.0
    assert known.bumped(exposed(shifted(last.image, 9.0, -6.0), 1.0, 3.0, rng)) is None
    # the bare table moved with the view: cloth is still cloth, tiles still tiles
    offset = np.array([9.0, -6.0], np.float32)
    tiles = np.array([c for _, c in last.tiles], np.float32) + offset
    cloth = cloth_boxes(last, 8, rng) + offset
    view = table_view(moved)
    assert not known.unchanged_boxes(view, tiles).any()
    assert known.unchanged_boxes(view, cloth).mean() >= 0.75


# --- the tracker --------------------------------------------------------------------


def follow(tmp_path: Path, rnd: PaintedRound, *, known: bool, missed: dict[int, int],
           bump_at: int | None = None, miss_markers: bool = False,
           marker_candidates: bool = False, bare_frames: int = 10, steady_bare: bool = False,
           sees_printed: bool = True, marker_score: float = 0.9,
           tracker_type: type[Tracker] = Tracker) -> tuple[list[Any], PaintedReader]:
    """The tracker over the round (10 frames a second): each picture held 10 frames (the
    bare table ``bare_frames``), the light changing (but on the bare table with
    ``steady_bare``); from picture ``bump_at`` on, the camera bumped by (9, -6) px. The
    engine is told, as the companion app tells it."""
    rng = np.random.default_rng(5)
    reader = PaintedReader(rnd, missed, miss_markers, sees_printed, marker_score)
    frames: list[np.ndarray] = []
    bumped_from: int | None = None
    for k, picture in enumerate(rnd.pictures):
        for j in range(bare_frames if k == 0 else 10):
            image = picture.image
            if bump_at is not None and k >= bump_at:
                image = shifted(image, 9.0, -6.0)
                bumped_from = len(frames) if bumped_from is None else bumped_from
            gain = 1.0 if steady_bare and k == 0 else 1.0 + 0.08 * np.sin(0.3 * (10 * k + j))
            frames.append(mark(exposed(image, gain, 3.0, rng), k))

    def on_frame(i: int) -> None:
        if bumped_from is not None and i >= bumped_from:
            reader.offset = np.array([9.0, -6.0])

    video = tmp_path / "round.mp4"
    video.write_bytes(b"")
    tracker = tracker_type(video, rnd.players, RuleSet.preset("standard"), reader=reader,
                           mat=False, opener=lambda _: FramesCapture(frames, on_frame),
                           sleep=lambda _: None, known_table=known,
                           engine=rnd.tables[0].engine, marker_candidates=marker_candidates)
    return list(tracker), reader


def settled(events: list[Any]) -> list[Any]:
    return [e.table for e in events if isinstance(e, TableSettled)]


def test_the_tracker_drops_the_phantom_and_reads_the_missed_tile(
        tmp_path: Path, rnd: PaintedRound) -> None:
    last = len(rnd.pictures) - 1
    missed = {k: len(rnd.pictures[k].tiles) - 1 for k in range(last, last + 1)}
    events, reader = follow(tmp_path, rnd, known=True, missed=missed)
    assert settled(events) == rnd.tables
    assert not [e for e in events if isinstance(e, AlertRaised) and e.alert.is_error]
    printed = rnd.pictures[0].printed
    assert printed is not None
    # read only while the bare table was being learned (the first still frames)
    with_known = sum(np.allclose(b, printed) for b in reader.boxes_read)
    assert with_known <= EMPTY_FRAMES
    # once it is learned, every look is told it: the printed domino is bare table,
    # dropped before the detector's looks at it, and no tile is
    told = reader.told_bare
    assert len(told) >= len(rnd.pictures) - 1
    assert all(printed_bare and tiles == 0 for _, printed_bare, tiles in told)
    # without the known table the printed domino (a sure 6-6 on the cloth) is
    # read and held, and the missed tile stays missing
    events, reader = follow(tmp_path, rnd, known=False, missed=missed)
    assert settled(events)[-1] != rnd.tables[-1]
    assert sum(np.allclose(b, printed) for b in reader.boxes_read) >= 1
    assert PRINTED == (6, 6)


class ReadingsKept(Tracker):
    """A tracker that keeps, for each still frame read, its picture and the tile
    outlines read in it."""

    kept: list[tuple[int, np.ndarray]] = []

    def _read(self, frame: np.ndarray, memory: Any, still: Any) -> Any:
        tiles, markers = super()._read(frame, memory, still)
        ReadingsKept.kept.append((int(frame[0, 0, 0]), tiles.corners.copy()))
        return tiles, markers


def test_a_missed_tile_found_where_the_table_changed_stays_in_every_reading(
        tmp_path: Path, rnd: PaintedRound) -> None:
    # the detector never boxes the last tile laid: found once where the table changed,
    # the tile is held; in the next still frames it is found there again (and read the
    # same, then kept), not left out of every other reading of the table
    last = len(rnd.pictures) - 1
    tile = rnd.pictures[last].tiles[-1][1]
    ReadingsKept.kept = []
    events, _ = follow(tmp_path, rnd, known=True, missed={last: len(rnd.pictures[last].tiles)
                                                          - 1}, tracker_type=ReadingsKept)
    assert settled(events) == rnd.tables
    held = [len(c) > 0 and polygon_iou(np.asarray(tile[None], np.float32),
                                       np.asarray(c, np.float32)).max() > 0.5
            for k, c in ReadingsKept.kept if k == last]
    assert True in held
    first = held.index(True)
    assert len(held) - first >= 3 and all(held[first:])


def test_a_known_bare_table_is_not_read_again_until_it_changes(
        tmp_path: Path, rnd: PaintedRound) -> None:
    # the bare table in view for 6 s before the first tile, no box on it: learned from
    # its first still frames, then looked at only when the view changes or to check it
    # now and then
    events, reader = follow(tmp_path, rnd, known=True, missed={}, bare_frames=60,
                            steady_bare=True, sees_printed=False)
    assert settled(events) == rnd.tables
    bare_looks = reader.looked_at.count(0)
    assert bare_looks <= EMPTY_FRAMES + 60 / (10 * RECHECK_S) + 1
    # a tracker that does not know its table reads every still frame of it
    _, plain = follow(tmp_path, rnd, known=False, missed={}, bare_frames=60, steady_bare=True,
                      sees_printed=False)
    assert plain.looked_at.count(0) > 4 * bare_looks


def test_the_bare_table_is_read_once_while_it_is_learned(
        tmp_path: Path, rnd: PaintedRound) -> None:
    # the same still view again is the bare table again: learned from two frames, read in
    # one (a whole read of a bare busy cloth costs a second)
    events, reader = follow(tmp_path, rnd, known=True, missed={}, bare_frames=60,
                            steady_bare=True, sees_printed=False)
    assert settled(events) == rnd.tables
    assert reader.untold == [0]
    assert reader.told_bare and reader.told_bare[0][0] == 0  # then known, and told


def test_a_bumped_camera_says_so_and_loses_nothing(tmp_path: Path, rnd: PaintedRound) -> None:
    events, _ = follow(tmp_path, rnd, known=True, missed={}, bump_at=3)
    moved = [e for e in events if isinstance(e, CameraStatus)
             and e.reason is CameraReason.MOVED]
    assert len(moved) == 1 and moved[0].ok and "moved" in moved[0].message
    assert settled(events) == rnd.tables
    codes = [e.alert.code for e in events if isinstance(e, AlertRaised)]
    assert "tile-removed" not in codes


def test_a_box_helper_is_tile_shaped() -> None:
    scale = tile_scale(box((10, 10), 40)[None])
    assert scale is not None and scale == pytest.approx((20.0, 40.0), abs=0.01)


def test_a_marker_the_detector_missed_is_found_where_the_table_changed() -> None:
    rnd = painted_round(21, "checks", True, tables=8)
    rng = np.random.default_rng(5)
    known = learned(rnd, rng)
    shown = [p for p in rnd.pictures if len(p.markers)]
    assert shown
    found = 0
    for picture in shown:
        tiles = np.array([c for _, c in picture.tiles], np.float32)
        frame = exposed(picture.image, 0.85, 4.0, rng, 5.0)
        boxed = Detections(tiles, np.ones(len(tiles)), np.zeros(len(tiles)))
        got = known.screen(frame, boxed, 0, marker_class=1, marker_confidence=0.5)
        marks = got.corners[got.class_id == 1]
        assert np.all(got.confidence[got.class_id == 1] == 0.5)
        # every marker candidate lies on a true marker
        for c in marks.mean(axis=1):
            assert np.min(np.linalg.norm(picture.markers.mean(axis=1) - c, axis=1)) < 8
        found += len(marks)
        # boxed by the detector, the marker is no candidate again
        with_marker = Detections.merge([boxed, Detections(
            picture.markers.astype(np.float32), np.ones(len(picture.markers)),
            np.ones(len(picture.markers)))])
        again = known.screen(frame, with_marker, 0, marker_class=1)
        assert (again.class_id == 1).sum() == len(picture.markers)
    assert found >= len(shown) // 2


def test_no_marker_candidates_on_a_table_that_did_not_change(rnd: PaintedRound) -> None:
    rng = np.random.default_rng(6)
    known = learned(rnd, rng)
    last = rnd.pictures[-1]
    tiles = np.array([c for _, c in last.tiles], np.float32)
    markers = last.markers.astype(np.float32).reshape(-1, 4, 2)
    frame = shadowed(exposed(last.image, 1.2, 4.0, rng), (200, 250), 70, 0.3)
    found = Detections(np.concatenate([tiles, markers]), np.ones(len(tiles) + len(markers)),
                       np.r_[np.zeros(len(tiles)), np.ones(len(markers))])
    got = known.screen(frame, found, 0, marker_class=1)
    assert (got.class_id == 1).sum() == len(markers) and known.markers_added == 0
    # the bare table itself: no tile to lie by, no change
    bare = exposed(rnd.pictures[0].image, 0.9, 4.0, rng)
    assert not len(known.marker_candidates(known.view(bare), tiles, tiles, tile_scale(tiles)))


def test_the_tracker_adds_the_markers_the_detector_missed_as_doubtful(tmp_path: Path) -> None:
    rnd = painted_round(21, "checks", True, tables=8)
    marked = [k for k, t in enumerate(rnd.tables) if any(tr.marker for tr in t.trains)]
    assert marked
    # a detector that misses every marker: without the candidates no table shows one
    events, _ = follow(tmp_path, rnd, known=True, missed={}, miss_markers=True)
    assert not any(tr.marker for t in settled(events) for tr in t.trains)
    events, _ = follow(tmp_path, rnd, known=True, missed={}, miss_markers=True,
                       marker_candidates=True)
    assert settled(events) == rnd.tables
    for event in (e for e in events if isinstance(e, TableSettled)):
        assert event.reading is not None
        owners = {tr.owner for tr in event.table.trains if tr.marker}
        unsure = {o for u in event.reading.uncertainties if u.kind == "unsure-marker"
                  for o in u.owners}
        assert unsure == owners  # every marker found so is reported, none other
    # found by the detector, the same markers are sure
    events, _ = follow(tmp_path, rnd, known=True, missed={}, marker_candidates=True)
    assert settled(events) == rnd.tables
    readings = [e.reading for e in events if isinstance(e, TableSettled)]
    assert not [u for r in readings if r is not None
                for u in r.uncertainties if u.kind == "unsure-marker"]
    # found by the detector but scored low, each is reported too
    events, _ = follow(tmp_path, rnd, known=True, missed={}, marker_candidates=True,
                       marker_score=0.35)
    assert settled(events) == rnd.tables
    for event in (e for e in events if isinstance(e, TableSettled)):
        assert event.reading is not None
        owners = {tr.owner for tr in event.table.trains if tr.marker}
        assert owners == {o for u in event.reading.uncertainties
                          if u.kind == "unsure-marker" for o in u.owners}


def test_a_box_on_a_kept_outline_is_never_bare_and_the_outline_moves_with_a_bump(
        rnd: PaintedRound) -> None:
    rng = np.random.default_rng(6)
    known = learned(rnd, rng)
    bare = rnd.pictures[0].image
    cloth = cloth_boxes(rnd.pictures[-1], 6, rng)
    view = table_view(bare)
    assert known.unchanged_boxes(view, cloth).all()
    known.kept = cloth[:1].copy()  # say the first box is the engine's printed outline
    assert known.unchanged_boxes(view, cloth).tolist() == [False] + [True] * 5
    assert known.unchanged_boxes(view, cloth, since_settled=True).sum() == 0  # not known
    known.settle(exposed(bare, 1.0, 3.0, rng))
    assert known.bumped(exposed(shifted(bare, 9.0, -6.0), 0.95, 3.0, rng)) is not None
    shift = known.kept.mean(axis=(0, 1)) - cloth[0].mean(axis=0)
    assert abs(shift[0] - 9.0) < 3.0 and abs(shift[1] + 6.0) < 3.0

