"""datasets.table_game: bots' rounds filmed, breaches injected, followed by the tracker."""

from __future__ import annotations

import json
import random
from dataclasses import replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from reader_fixtures import MODELS, needs_trained_models

from datasets.table_game import (
    BREACHES,
    FPS,
    OracleReader,
    camera_view,
    follow,
    game_frames,
    inject_breaches,
    observer_alerts,
    play_round,
)
from datasets.table_layout import layout_sequence
from datasets.table_pictures import render_tables
from engine import AlertCode, RuleSet, TableState
from vision.events import TableSettled
from vision.tracking.tracker import Tracker

RULES = RuleSet.preset("standard")
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def record() -> list[Any]:
    return play_round(11, 3, RULES)


def test_camera_view_keeps_each_change_once(record: list[Any]) -> None:
    tables = camera_view(record)
    assert tables[0] == record[0][0]
    assert all(a != b for a, b in zip(tables, tables[1:], strict=False))
    assert {t.text() for t in tables} == {t.text() for t, _ in record}


@pytest.mark.parametrize("kind", BREACHES)
def test_each_injected_breach_is_what_the_observer_reports(record: list[Any],
                                                           kind: AlertCode) -> None:
    obs, breaches = inject_breaches(record, random.Random(3), (kind,))
    assert [b.code for b in breaches] == [kind]
    clean = {(a.code, a.train) for a in observer_alerts(camera_view(record), RULES, 3)}
    dirty = {(a.code, a.train) for a in observer_alerts(camera_view(obs), RULES, 3)}
    assert (breaches[0].code, breaches[0].train) in dirty - clean


def test_layout_sequence_keeps_every_tile_in_its_place(record: list[Any]) -> None:
    tables = camera_view(record)[:12]
    layouts = layout_sequence(tables, 3, np.random.default_rng(0))
    assert [lay.table for lay in layouts] == tables
    where: dict[tuple[object, int], np.ndarray] = {}
    for lay in layouts:
        for tile in lay.tiles:
            key = (tile.owner, tile.index)
            if key in where:
                np.testing.assert_allclose(where[key], tile.corners)
            where[key] = tile.corners


def test_a_tile_that_stays_looks_the_same_in_every_frame(record: list[Any]) -> None:
    # a fixed camera sees a tile lying still the same way whatever is laid elsewhere;
    # only the light of the whole view may change it (the video adds that later)
    tables = camera_view(record)[:8]
    shown = render_tables(layout_sequence(tables, 3, np.random.default_rng(0)), style_seed=9)
    first, last = shown[1], shown[-1]
    assert len(last.tiles) > len(first.tiles) + 3
    (values, corners), = [t for t in first.tiles if t[0] != first.tiles[0][0]][:1]
    x0, y0 = np.floor(corners.min(axis=0)).astype(int)
    x1, y1 = np.ceil(corners.max(axis=0)).astype(int)
    a = first.image[y0:y1, x0:x1].astype(float)
    b = last.image[y0:y1, x0:x1].astype(float)
    assert np.abs(a - b).mean() < 3.0


def test_layout_sequence_refuses_tiles_that_change(record: list[Any]) -> None:
    tables = camera_view(record)
    changed = TableState.parse(tables[-1].text().replace("|", "| ", 1))
    broken = TableState(changed.engine, tuple(
        t if not t.tiles else type(t)(t.owner, ((t.tiles[0][0], 99),) + t.tiles[1:], t.marker)
        for t in changed.trains))
    with pytest.raises(ValueError):
        layout_sequence([tables[-1], broken], 3, np.random.default_rng(0))


def test_the_tracker_on_a_filmed_round_alerts_like_the_observer(record: list[Any]) -> None:
    obs, breaches = inject_breaches(record[:10], random.Random(5),
                                    (AlertCode.MISMATCH, AlertCode.EXTRA_TILE))
    truth = camera_view(obs)
    shown = render_tables(layout_sequence(truth, 3, np.random.default_rng(1)))
    result = follow(shown, 3, RULES, seed=2, hold_s=1.0, hand_s=0.6)
    assert result["tables"] == truth
    reference = observer_alerts(truth, RULES, 3)
    assert [(a.at, a.code, a.train) for a in result["alerts"]] == [
        (a.at, a.code, a.train) for a in reference]
    assert {b.code for b in breaches} <= {a.code for a in result["alerts"]}


def test_a_written_video_reads_back_to_the_same_tables(tmp_path: Path, record: list[Any]) -> None:
    truth = camera_view(record)[:4]
    shown = render_tables(layout_sequence(truth, 3, np.random.default_rng(2)), renderer="simple")
    path = tmp_path / "game.mp4"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"mp4v"), FPS, (1280, 720))
    which = []
    for frame, k, _ in game_frames(shown, seed=3, hold_s=1.0, hand_s=0.6):
        writer.write(frame)
        which.append(k)
    writer.release()

    oracle = OracleReader()

    class Counting:
        def __init__(self, inner: Any) -> None:
            self.inner, self.n = inner, 0

        def isOpened(self) -> bool:  # noqa: N802
            return bool(self.inner.isOpened())

        def read(self) -> tuple[bool, Any]:
            ok, frame = self.inner.read()
            if ok:
                oracle.current = shown[which[min(self.n, len(which) - 1)]]
                self.n += 1
            return ok, frame

        def get(self, prop: int) -> float:
            return float(self.inner.get(prop))

        def release(self) -> None:
            self.inner.release()

    tracker = Tracker(path, 3, RULES, reader=oracle, mat=False,
                      opener=lambda p: Counting(cv2.VideoCapture(p)))
    settled = [e.table for e in tracker if isinstance(e, TableSettled)]
    assert settled == truth


def test_the_bundled_demo_is_small_and_consistent() -> None:
    demo = ROOT / "datasets" / "demo"
    video, meta_path = demo / "demo.mp4", demo / "demo.json"
    if not video.exists():
        pytest.skip("no bundled demo")
    assert video.stat().st_size < 5 * 1024 * 1024
    meta = json.loads(meta_path.read_text())
    tables = [TableState.from_json(t) for t in meta["observations"]]
    rules = RuleSet.from_json(meta["rules"])
    alerts = observer_alerts(tables, rules, meta["players"], meta["first"])
    assert [a.to_json() for a in alerts] == meta["alerts"]
    capture = cv2.VideoCapture(str(video))
    assert capture.isOpened() and capture.read()[0]
    capture.release()


def test_with_the_mat_seats_follow_the_mat(record: list[Any]) -> None:
    truth = camera_view(record)[:5]
    layouts = layout_sequence(truth, 3, np.random.default_rng(4), mat=True)
    shown = render_tables(layouts)
    result = follow(shown, 3, RULES, seed=5, mat=True, hold_s=1.0, hand_s=0.6)
    assert result["tables"] == truth


@needs_trained_models
def test_a_boneyard_beside_the_table_is_followed_without_alerts(record: list[Any]) -> None:
    """A heap of tiles lying face down beside the trains, filmed with a round and followed
    by the trained reader: every table as played and no alert. The close-up detector
    (``tiles_closeup``) boxes more of the heap: without the face-down check, read as a
    pile of double blanks; with it, set apart once, and followed as well."""
    from vision.reading.reader import TileReader

    truth = camera_view(record[:8])
    shown = render_tables(layout_sequence(truth, 3, np.random.default_rng(1)), style_seed=3,
                          boneyard=14)
    for closeup in (False, True):
        reader = TileReader(MODELS)
        if closeup:
            reader.detector = reader.closeup_detector
            reader.spot_face_down = False
            blanks = [t for t in reader.read(shown[-1].image).tiles.each()
                      if t.values == (0, 0)]
            assert len(blanks) >= 5  # the heap, read as tiles
            reader.spot_face_down = True
            reader.reset()
        assert not [t for t in reader.read(shown[-1].image).tiles.each() if t.values == (0, 0)]
        reader.reset()
        result = follow(shown, 3, RULES, seed=2, reader=reader, hold_s=1.0, hand_s=0.6)
        assert result["tables"] == truth
        assert result["alerts"] == []
    # the heap is set apart once, not read again at every still frame
    assert result["backs_read"] >= 5
    assert result["backs_reused"] > 4 * result["backs_read"]


def test_a_round_filmed_from_the_bare_table_is_followed_as_from_the_engine(
        record: list[Any]) -> None:
    """The film may start on the bare table, as a round does: it frames the table as the
    round's tables do and shows no tile, and the tracker follows the round as from the
    engine (the bare table it learns is no table of the round)."""
    truth = camera_view(record[:8])
    layouts = layout_sequence(truth, 3, np.random.default_rng(1), mat=True)
    shown = render_tables(layouts, style_seed=3)
    bare = render_tables([replace(layouts[0], tiles=[], markers=[]), *layouts], style_seed=3)
    assert not bare[0].tiles and not len(bare[0].markers)
    assert all(np.array_equal(a.image, b.image) for a, b in zip(shown, bare[1:], strict=True))
    result = follow(bare, 3, RULES, seed=2, mat=True, hold_s=1.0, hand_s=0.6)
    assert result["tables"] == truth
    reference = observer_alerts(truth, RULES, 3)
    assert [(a.code, a.train) for a in result["alerts"]] == [
        (a.code, a.train) for a in reference]
