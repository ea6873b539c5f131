"""The round's replay (kept in the game's database) and the alerts the page serves in words."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from flask import Flask

from companion_app import attach_worker, replay
from companion_app.db import connect
from companion_app.events import AlertRaised, RoundOver, TableSettled
from companion_app.worker import TableWorker
from engine import Referee, RuleSet, TableState

from .tablet import Table, make_app

RULES = RuleSet.preset("standard")
ROUND = ["12 | 0: | 1: | 2: | mexican:",
         "12 | 0: 12-5 | 1: | 2: | mexican:",
         "12 | 0: 12-5 | 1: 12-9 | 2: | mexican:",
         "12 | 0: 12-5 | 1: 12-9 | 2: 7-4 | mexican:"]


class NoSource:
    label = "test source"
    live = False
    sees_table = False

    def events(self, ctx: object) -> list[object]:
        return []

    def still(self) -> bytes | None:
        return None


@pytest.fixture
def worker(app: Flask, unlocked: Table) -> TableWorker:
    unlocked.new_game(("Ann", "Bo", "Cyril"))
    worker: TableWorker = attach_worker(app, NoSource(), start=False)
    return worker


def play(worker: TableWorker, texts: list[str]) -> None:
    """The tables settled in order, with the referee's alerts, through the worker."""
    referee = Referee(RULES, 3)
    for text in texts:
        table = TableState.parse(text)
        ruling = referee.settle(table)
        worker.handle(TableSettled(table, ruling.to_move))
        for alert, details in ruling:
            worker.handle(AlertRaised(alert, details))


def test_every_settled_table_is_kept_with_its_time_and_alerts(worker: TableWorker,
                                                              unlocked: Table) -> None:
    play(worker, ROUND)
    data = unlocked.client.get("/api/replay").get_json()
    assert data["players"] == ["Ann", "Bo", "Cyril"] and data["round"] == 1
    frames = data["frames"]
    assert [TableState.from_json(f["table"]) for f in frames] == [
        TableState.parse(t) for t in ROUND]
    assert [f["turn"] for f in frames] == [0, 1, 2, 0]
    assert all(f["at"] > 1.7e9 for f in frames)
    assert [f["at"] for f in frames] == sorted(f["at"] for f in frames)
    assert [len(f["alerts"]) for f in frames] == [0, 0, 0, 1]
    # "who laid the 7-4, and when?": the fourth table, in words
    texts = [a["text"] for a in frames[3]["alerts"]]
    assert any("Cyril laid 4-7" in t for t in texts), texts
    assert all("[" not in t for t in texts)
    same = unlocked.client.get("/api/games/1/rounds/1/replay").get_json()
    assert same["frames"] == frames
    assert unlocked.client.get("/api/games/1/rounds/2/replay").get_json()["frames"] == []


def test_the_replay_survives_a_restart_and_goes_with_its_game(worker: TableWorker,
                                                              db_path: Path) -> None:
    play(worker, ROUND)
    again = make_app(db_path)
    frames = again.test_client().get("/api/replay").get_json()["frames"]
    assert len(frames) == 4 and frames[3]["alerts"]
    conn = connect(db_path)
    conn.isolation_level = None
    replay.ensure_schema(conn)  # idempotent
    conn.execute("PRAGMA foreign_keys = OFF")
    conn.execute("DELETE FROM games WHERE id = 1")
    count = conn.execute("SELECT COUNT(*) FROM replay_tables").fetchone()[0]
    conn.close()
    assert count == 0


def test_a_new_deal_starts_the_replay_afresh(worker: TableWorker, unlocked: Table) -> None:
    play(worker, ROUND)
    worker.handle(RoundOver("The round is over."))
    play(worker, ROUND[:1])
    assert len(unlocked.client.get("/api/replay").get_json()["frames"]) == 1


def test_no_such_game_or_round(worker: TableWorker, unlocked: Table) -> None:
    assert unlocked.client.get("/api/games/7/rounds/1/replay").status_code == 404
    assert unlocked.client.get("/api/games/1/rounds/99/replay").status_code == 404


def test_without_a_game_there_is_no_replay(app: Flask, table: Table) -> None:
    worker = attach_worker(app, NoSource(), start=False)
    play(worker, ROUND)
    data = table.client.get("/api/replay").get_json()
    assert data["frames"] == [] and data["game_id"] is None


def test_alerts_are_served_in_words_with_what_they_are_about(worker: TableWorker,
                                                             unlocked: Table,
                                                             app: Flask) -> None:
    q = app.extensions["mtrain_broadcaster"].subscribe()
    play(worker, ROUND)
    published = []
    while not q.empty():
        message = q.get_nowait()
        if message["type"] == "alert":
            published.append(message["alert"])
    assert published and all(a["text"] and a["title"] for a in published)
    mismatch = next(a for a in published if a["code"] == "mismatch")
    assert mismatch["details"] == {"tile": [7, 4], "end": 12, "double": None}
    assert mismatch["text"] == ("Cyril laid 4-7 on their own train, but it does not match "
                                "the 12 at its end.")
    state = unlocked.client.get("/api/state").get_json()
    served = next(a for a in state["alerts"] if a["code"] == "mismatch")
    assert served["text"] == mismatch["text"] and served["advice"]
    assert state["titles"]["mismatch"] == "Tile does not match"


def test_the_page_offers_a_referee_screen_a_watchers_banner_and_speech(
        worker: TableWorker, unlocked: Table, app: Flask) -> None:
    page = unlocked.client.get("/").get_data(as_text=True)
    for part in ('id="alert-strip"', 'id="strip-dismiss"', 'id="referee"', 'id="speak"',
                 'id="alert-banner"', 'data-unlocked="yes"', 'id="replay-range"'):
        assert part in page, part
    watcher = Table(app.test_client())
    assert 'data-unlocked="no"' in watcher.client.get("/").get_data(as_text=True)
    with unlocked.client.get("/static/live.js") as response:
        script = response.get_data(as_text=True)
    # the full-screen alarm is the referee screen's, chosen on the device; speech is opt-in
    for word in ("mtrain-referee", "speechSynthesis", "mtrain-speak", "localService"):
        assert word in script
    assert 'choice("mtrain-speak", false)' in script
    assert 'choice("mtrain-referee", false)' in script


def test_the_header_names_the_engine_the_table_shows(worker: TableWorker,
                                                     unlocked: Table) -> None:
    state = unlocked.client.get("/api/state").get_json()
    assert state["game"]["engine"] == 12
    worker.handle(TableSettled(TableState.parse("9 | 0: | 1: | 2: | mexican:"), 0))
    page = unlocked.client.get("/").get_data(as_text=True)
    assert '<strong id="engine-no">9-9</strong>' in page
    note = page.split('id="engine-note"', 1)[1].split(">", 1)[0]
    assert "hidden" not in note
    worker.handle(TableSettled(TableState.parse(ROUND[0]), 0))
    page = unlocked.client.get("/").get_data(as_text=True)
    assert '<strong id="engine-no">12-12</strong>' in page
    assert "hidden" in page.split('id="engine-note"', 1)[1].split(">", 1)[0]


def test_a_replay_frame_is_small_json(worker: TableWorker, db_path: Path) -> None:
    play(worker, ROUND)
    conn = connect(db_path)
    rows = conn.execute("SELECT table_json, alerts FROM replay_tables").fetchall()
    conn.close()
    assert all(len(r["table_json"]) < 600 for r in rows)
    assert json.loads(rows[3]["alerts"])[0]["details"]["tile"] == [7, 4]


def test_an_alert_listed_after_the_replay_is_cleared_still_names_its_tile(
        worker: TableWorker, unlocked: Table, db_path: Path) -> None:
    play(worker, ROUND)
    conn = connect(db_path)
    replay.clear(conn, 1, 1)  # a recording loops: the round's tables start again
    conn.close()
    assert unlocked.client.get("/api/replay").get_json()["frames"] == []
    state = unlocked.client.get("/api/state").get_json()
    mismatch = next(a for a in state["alerts"] if a["code"] == "mismatch")
    assert mismatch["details"]["tile"] == [7, 4]
    assert mismatch["text"] == ("Cyril laid 4-7 on their own train, but it does not match "
                                "the 12 at its end.")


def test_the_hands_page_and_the_csv_say_the_alerts_in_words(worker: TableWorker,
                                                           unlocked: Table) -> None:
    play(worker, ["12 | 0: | 1: | 2: | mexican:",
                  "12 | 0: 12-5 5-5 | 1: | 2: | mexican:",
                  "12 | 0: 12-5 5-5 | 1: 12-3 | 2: | mexican:",
                  "12 | 0: 12-5 5-5 | 1: 12-3 | 2: 7-4 | mexican:"])
    page = unlocked.client.get("/games/1/rounds/1/hands").get_data(as_text=True)
    log = page.split("This round's alerts", 1)[1]
    assert "Open double first" in log and "Tile does not match" in log
    assert "Bo played 3-12 on their own train while the double 5-5 on Ann&#39;s train" in log
    for raw in ("open-double", "unsatisfied-double", "mismatch", "train 0", "train 2"):
        assert raw not in log, raw
    with unlocked.client.get("/games/1/rounds/1/alerts.csv") as response:
        assert response.status_code == 200 and "alerts.csv" in response.headers[
            "Content-Disposition"]
        rows = list(csv.reader(io.StringIO(response.get_data(as_text=True))))
    assert rows[0][:4] == ["time", "player", "train", "alert"]
    said = {row[3]: row for row in rows[1:]}
    assert said["Open double first"][1:3] == ["Bo", "Bo's train"]
    assert said["Tile does not match"][4].startswith("Cyril laid 4-7 on their own train")
    assert unlocked.client.get("/games/1/rounds/99/alerts.csv").status_code == 404
