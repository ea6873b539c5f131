"""The live table: the worker stores and publishes events, the stream, alerts and their ack."""

from __future__ import annotations

import itertools
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask

from companion_app import attach_worker, store
from companion_app.db import connect
from companion_app.events import (
    AlertRaised,
    CameraReason,
    CameraStatus,
    RoundOver,
    SourceEvent,
    TableSettled,
)
from companion_app.sim import GameContext
from companion_app.worker import TableWorker
from engine import Alert, AlertCode, TableState

from .tablet import Table

TABLE = {"engine": 12, "trains": [
    {"owner": 0, "tiles": [[12, 5], [5, 5]], "marker": False},
    {"owner": 1, "tiles": [], "marker": True},
    {"owner": "mexican", "tiles": [[12, 3]], "marker": False},
]}
STATE = TableState.from_json(TABLE)
ALERT = Alert(3, AlertCode.CLOSED_TRAIN, 1, 0, "a tile on train 0, which is not open")


class ListSource:
    """A source that plays a fixed list of events, then ends."""

    label = "test source"
    sees_table = False

    def __init__(self, events: list[SourceEvent], live: bool = False) -> None:
        self._events = events
        self.live = live
        self.contexts: list[GameContext] = []

    def events(self, ctx: GameContext) -> Iterator[SourceEvent]:
        self.contexts.append(ctx)
        yield from self._events

    def still(self) -> bytes | None:
        return None


@pytest.fixture
def worker(app: Flask, unlocked: Table) -> TableWorker:
    unlocked.new_game(("Ann", "Ben"))
    worker: TableWorker = attach_worker(app, ListSource([]), start=False)
    return worker


def test_a_settled_table_is_stored_and_shown(worker: TableWorker, unlocked: Table,
                                             db_path: Path) -> None:
    message = worker.handle(TableSettled(STATE, turn=1))
    assert message is not None and message["type"] == "table" and message["round"] == 1
    state = unlocked.client.get("/api/state").get_json()
    assert state["table"] == TABLE and state["turn"] == 1
    assert state["players"] == ["Ann", "Ben"]
    conn = connect(db_path)
    game = store.current_game(conn)
    assert game is not None and store.last_table(conn, game, 1) == (TABLE, 1)


def test_an_alert_is_kept_in_the_round_log_and_acked_with_one_tap(
    worker: TableWorker, unlocked: Table
) -> None:
    message = worker.handle(AlertRaised(ALERT))
    assert message is not None
    alert = message["alert"]
    assert alert["id"] == 1 and alert["train"] == 0 and alert["acked"] is None
    state = unlocked.client.get("/api/state").get_json()
    assert [a["code"] for a in state["alerts"]] == ["closed-train"]

    response = unlocked.client.post("/alerts/1/ack", headers={
        "X-CSRF-Token": unlocked.token, "Accept": "application/json"})
    assert response.status_code == 200
    assert response.get_json()["alert"]["acked"] is not None
    log = unlocked.client.get("/games/1/rounds/1/hands").get_data(as_text=True)
    assert "Closed train" in log and "acknowledged" in log and "Ben" in log


def test_events_for_a_game_deleted_meanwhile_are_shown_and_nothing_fails(
    worker: TableWorker, db_path: Path
) -> None:
    ctx = worker.context()  # the worker's view of the game, taken before it is deleted
    conn = connect(db_path)
    store.delete_game(conn, 1)
    alert = worker.handle(AlertRaised(ALERT), ctx)
    table = worker.handle(TableSettled(STATE, turn=1), ctx)
    assert alert is not None and alert["alert"]["code"] == "closed-train"
    assert table is not None and table["table"] == TABLE
    assert store.list_games(conn) == []


def test_ack_needs_the_pin_and_the_alert_must_exist(worker: TableWorker, app: Flask) -> None:
    worker.handle(AlertRaised(ALERT))
    stranger = Table(app.test_client())
    response = stranger.client.post("/alerts/1/ack", headers={
        "X-CSRF-Token": stranger.token, "Accept": "application/json"})
    assert response.status_code == 403
    assert "PIN" in response.get_json()["error"]
    response = stranger.client.post("/alerts/1/ack", headers={
        "X-CSRF-Token": stranger.token, "Accept": "application/json", "X-Table-PIN": "424242"})
    assert response.status_code == 200
    response = stranger.client.post("/alerts/9/ack", headers={
        "X-CSRF-Token": stranger.token, "Accept": "application/json"})
    assert response.status_code == 404


def test_status_and_round_over_are_published(worker: TableWorker, app: Flask) -> None:
    q = app.extensions["mtrain_broadcaster"].subscribe()
    worker.handle(CameraStatus(CameraReason.LOST, "camera lost"))
    worker.handle(RoundOver())
    assert q.get_nowait() == {"type": "status", "ok": False, "reason": "lost",
                              "message": "camera lost"}
    assert q.get_nowait()["type"] == "round-over"
    assert not worker.status.ok


def _read_until(chunks: Iterator[Any], marker: str) -> str:
    """Read the stream until one whole event named ``marker`` arrived."""
    text = ""
    for chunk in chunks:
        text += chunk.decode()
        if marker in text and text.split(marker, 1)[1].count("\n\n"):
            return text
    raise AssertionError(f"the stream ended before {marker!r}")


def test_the_stream_starts_with_a_snapshot_then_sends_events(worker: TableWorker,
                                                             unlocked: Table, app: Flask) -> None:
    worker.handle(TableSettled(STATE, turn=0))
    response = unlocked.client.get("/stream", buffered=False)
    assert response.mimetype == "text/event-stream"
    chunks = iter(response.response)
    snapshot = _read_until(chunks, "event: snapshot")
    assert json.loads(snapshot.split("data: ", 1)[1].split("\n")[0])["table"] == TABLE
    worker.handle(AlertRaised(ALERT))
    text = _read_until(chunks, "event: alert")
    data = json.loads(text.split("event: alert", 1)[1].split("data: ", 1)[1].split("\n")[0])
    assert data["alert"]["code"] == "closed-train"
    response.close()
    assert app.extensions["mtrain_broadcaster"].subscribers == 0


def test_the_worker_thread_runs_the_source_for_the_current_round(app: Flask,
                                                                 unlocked: Table) -> None:
    unlocked.new_game(("Ann", "Ben", "Cy"), rule_set="9")
    source = ListSource([TableSettled(STATE, 2), AlertRaised(ALERT)])
    worker = attach_worker(app, source)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        if unlocked.client.get("/api/state").get_json()["alerts"]:
            break
        time.sleep(0.05)
    worker.stop()
    assert source.contexts[0].players == 3 and source.contexts[0].engine == 9
    assert unlocked.client.get("/api/state").get_json()["table"] == TABLE


def test_a_lost_camera_is_reported_and_retried(app: Flask) -> None:
    source = ListSource([], live=True)
    worker = TableWorker(app, source, retry_seconds=0.05)
    app.extensions["mtrain_worker"] = worker
    worker.start()
    deadline = time.monotonic() + 10
    while len(source.contexts) < 3 and time.monotonic() < deadline:
        time.sleep(0.02)
    worker.stop()
    assert len(source.contexts) >= 3  # retried
    assert worker.status.reason is CameraReason.LOST and not worker.status.ok


def test_without_a_game_the_table_still_shows(app: Flask, table: Table) -> None:
    worker = attach_worker(app, ListSource([]), start=False)
    worker.handle(TableSettled(STATE, 0))
    worker.handle(AlertRaised(ALERT))
    state = table.client.get("/api/state").get_json()
    assert state["game"] is None and state["table"] == TABLE
    assert len(state["alerts"]) == 1


def test_the_live_page_embeds_the_state_and_local_scripts_only(worker: TableWorker,
                                                               unlocked: Table) -> None:
    worker.handle(TableSettled(STATE, 1))
    page = unlocked.client.get("/").get_data(as_text=True)
    assert '<svg id="table"' in page
    assert '"engine": 12' in page.replace('"engine":12', '"engine": 12')
    assert "/static/live.js" in page and "/static/table.js" in page
    assert "cdn" not in page.lower() and "https://" not in page
    for name in ("app.js", "table.js", "live.js", "app.css", "icon.svg"):
        with unlocked.client.get(f"/static/{name}") as response:
            assert response.status_code == 200


def test_static_script_draws_open_doubles_markers_and_turn(unlocked: Table) -> None:
    with unlocked.client.get("/static/table.js") as response:
        script = response.get_data(as_text=True)
    for word in ("open-double", "marker", "to play", "Mexican train", "ENGINE"):
        assert word in script
    with unlocked.client.get("/static/live.js") as response:
        live = response.get_data(as_text=True)
    assert "EventSource" in live and "createOscillator" in live


def test_sim_events_feed_the_worker(worker: TableWorker, unlocked: Table) -> None:
    from companion_app.sim import sim_events

    game = unlocked.client.get("/api/state").get_json()["game"]
    ctx = worker.context()
    assert ctx.game_id == game["id"]
    for event in itertools.islice(sim_events(ctx.sim, seed=3, turn_seconds=0, breach_rate=1.0),
                                  12):
        worker.handle(event, ctx)
    state = unlocked.client.get("/api/state").get_json()
    assert state["table"]["engine"] == 12 and len(state["table"]["trains"]) == 3
    assert state["alerts"], "an injected breach raises an alert"


def test_a_recording_or_the_sim_plays_again_when_it_ends(app: Flask) -> None:
    source = ListSource([TableSettled(STATE, 0)])
    worker = TableWorker(app, source, restart_seconds=0.01)
    worker.start()
    deadline = time.monotonic() + 10
    while len(source.contexts) < 3 and time.monotonic() < deadline:
        time.sleep(0.02)
    worker.stop()
    assert len(source.contexts) >= 3
    assert worker.status.ok


def test_with_no_game_the_seats_follow_the_table_shown(app: Flask, unlocked: Table) -> None:
    worker: TableWorker = attach_worker(app, ListSource([]), start=False)
    assert unlocked.client.get("/api/state").get_json()["players"] == [
        "Seat 1", "Seat 2", "Seat 3", "Seat 4"]  # nothing seen yet
    three = {"engine": 12, "trains": [
        {"owner": seat, "tiles": [], "marker": False} for seat in range(3)]
        + [{"owner": "mexican", "tiles": [], "marker": False}]}
    worker.handle(TableSettled(TableState.from_json(three), turn=0))
    assert unlocked.client.get("/api/state").get_json()["players"] == [
        "Seat 1", "Seat 2", "Seat 3"]
