"""The database: migrations, WAL, restart, and files that are corrupt or read-only."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient

from companion_app import create_app, db, store
from engine.errors import BadInputError

from .tablet import PIN, Table, make_app


def test_a_new_database_is_migrated_and_in_wal_mode(app: Flask, db_path: Path) -> None:
    conn = sqlite3.connect(db_path)
    version = conn.execute("SELECT MAX(version) FROM schema_version").fetchone()[0]
    assert version == db.SCHEMA_VERSION
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert {"games", "players", "rounds", "scores", "score_edits", "hands", "alerts",
            "settings", "changes"} <= tables


def test_migrating_twice_changes_nothing(db_path: Path) -> None:
    make_app(db_path)
    make_app(db_path)
    conn = sqlite3.connect(db_path)
    assert conn.execute("SELECT COUNT(*) FROM schema_version").fetchone()[0] == db.SCHEMA_VERSION


def test_a_restart_keeps_and_resumes_the_last_game(db_path: Path) -> None:
    first = Table(make_app(db_path).test_client())
    first.unlock()
    first.new_game(("Ann", "Ben"), name="Old game")
    first.new_game(("Dee", "Eve", "Fay"), name="Saturday")
    first.post("/games/2/rounds/1/scores", {"points_0": "12", "points_1": "0", "points_2": "7"})

    again = make_app(db_path).test_client()  # a new app on the same file
    page = again.get("/").get_data(as_text=True)
    assert "Saturday" in page
    assert "Round <strong id=\"round-no\">2</strong>" in page
    pad = again.get("/games/2/pad").get_data(as_text=True)
    assert "Dee" in pad and ">12<" in pad
    assert "Old game" in again.get("/games/").get_data(as_text=True)


def test_a_corrupt_file_refuses_to_start_and_is_left_untouched(tmp_path: Path) -> None:
    path = tmp_path / "scores.sqlite3"
    garbage = b"this is not a database\x00" * 100
    path.write_bytes(garbage)
    with pytest.raises(BadInputError) as caught:
        create_app({"DATABASE": str(path), "TESTING": True})
    assert caught.value.source == str(path)
    assert "not an SQLite database" in caught.value.problem
    assert path.read_bytes() == garbage


def test_a_damaged_database_refuses_to_start_and_is_left_untouched(db_path: Path) -> None:
    table = Table(make_app(db_path).test_client())
    table.unlock()
    table.new_game()
    conn = sqlite3.connect(db_path)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    data = bytearray(db_path.read_bytes())
    data[100:4096] = b"\xff" * (4096 - 100)  # smash the first page after the header
    db_path.write_bytes(bytes(data))
    with pytest.raises(BadInputError) as caught:
        make_app(db_path)
    assert str(db_path) in str(caught.value)
    assert db_path.read_bytes() == bytes(data)


def test_a_folder_is_not_a_database(tmp_path: Path) -> None:
    with pytest.raises(BadInputError, match="is a folder"):
        create_app({"DATABASE": str(tmp_path), "TESTING": True})


def test_a_newer_schema_is_refused(db_path: Path) -> None:
    make_app(db_path)
    conn = sqlite3.connect(db_path)
    conn.execute("INSERT INTO schema_version VALUES (99)")
    conn.commit()
    conn.close()
    with pytest.raises(BadInputError, match="newer mtrain"):
        make_app(db_path)


@pytest.fixture
def read_only_db(db_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    table = Table(make_app(db_path).test_client())
    table.unlock()
    table.new_game(("Ann", "Ben"))
    table.post("/games/1/rounds/1/scores", {"points_0": "5", "points_1": "9"})
    # Tests run as root, which may write anything: pretend the file is read-only, and
    # make it so for everyone else too.
    os.chmod(db_path, 0o444)
    monkeypatch.setattr(db, "_writable", lambda path: False)
    return db_path


def test_a_read_only_file_opens_with_a_banner_and_refuses_changes(read_only_db: Path) -> None:
    before = read_only_db.read_bytes()
    app = make_app(read_only_db)
    assert app.config["READ_ONLY"]
    client: FlaskClient = app.test_client()
    page = client.get("/").get_data(as_text=True)
    assert "is read-only" in page
    assert ">9<" in client.get("/games/1/pad").get_data(as_text=True)
    table = Table(client)
    response = table.post("/games/1/rounds/1/scores", {"points_0": "50", "pin": PIN})
    assert response.status_code == 503
    assert "read-only" in response.get_data(as_text=True)
    assert read_only_db.read_bytes() == before


def test_the_connection_helper_rolls_back_on_error(db_path: Path) -> None:
    make_app(db_path)
    conn = db.connect(db_path)
    conn.isolation_level = None
    with pytest.raises(RuntimeError), db.transaction(conn):
        store.set_setting(conn, "x", "1")
        raise RuntimeError("boom")
    assert store.get_setting(conn, "x") is None


def test_a_version_1_database_is_migrated_and_keeps_its_scores(db_path: Path) -> None:
    """A database written before scores knew their source opens with every score, and
    the scores counted from hands are known as such."""
    conn = sqlite3.connect(db_path)
    conn.execute("CREATE TABLE schema_version (version INTEGER NOT NULL)")
    conn.executescript(db.MIGRATIONS[0])
    conn.executescript("""
        INSERT INTO schema_version VALUES (1);
        INSERT INTO games (id, name, rules, set_size, rounds, current_round)
            VALUES (1, 'Old', '{"name": "standard", "set": 12}', 12, 13, 2);
        INSERT INTO players VALUES (1, 0, 'Ann'), (1, 1, 'Ben');
        INSERT INTO rounds (game_id, number, engine) VALUES (1, 1, 12), (1, 2, 11);
        INSERT INTO scores (game_id, round, seat, points) VALUES (1, 1, 0, 123), (1, 1, 1, 0);
        INSERT INTO score_edits (game_id, round, seat, old_points, new_points, source)
            VALUES (1, 1, 0, NULL, 120, 'pad'), (1, 1, 0, 120, 123, 'hand'),
                   (1, 1, 1, NULL, 0, 'pad');
    """)
    conn.commit()
    conn.close()
    table = Table(make_app(db_path).test_client())
    table.unlock()
    conn = sqlite3.connect(db_path)
    version = conn.execute("SELECT MAX(version) FROM schema_version").fetchone()[0]
    assert version == db.SCHEMA_VERSION
    assert dict(conn.execute("SELECT seat, source FROM scores").fetchall()) == {0: "hand",
                                                                               1: "pad"}
    pad = table.client.get("/games/1/pad").get_data(as_text=True)
    assert 'data-seat="0">123<' in pad and "<s>120</s> → 123" in pad
    assert 'id="enter-round">Enter round 2<' in pad and 'id="undo"' not in pad
    response = table.post("/games/1/rounds/1/scores", {"points_0": "0", "points_1": "0"})
    assert response.status_code == 409  # the hand's 123 is not replaced unasked
    table.post("/games/1/rounds/2/scores", {"points_0": "0", "points_1": "7"})
    assert "Undo round 2 points" in table.client.get("/games/1/pad").get_data(as_text=True)


def test_a_version_2_database_keeps_its_alerts_readable(db_path: Path) -> None:
    """Alerts kept before they carried what they are about still read, in words."""
    conn = sqlite3.connect(db_path)
    conn.execute("CREATE TABLE schema_version (version INTEGER NOT NULL)")
    conn.executescript(db.MIGRATIONS[0])
    conn.executescript(db.MIGRATIONS[1])
    conn.executescript("""
        INSERT INTO schema_version VALUES (1), (2);
        INSERT INTO games (id, name, rules, set_size, rounds, current_round)
            VALUES (1, 'Old', '{"name": "standard", "set": 12}', 12, 13, 1);
        INSERT INTO players VALUES (1, 0, 'Ann'), (1, 1, 'Ben');
        INSERT INTO rounds (game_id, number, engine) VALUES (1, 1, 12);
        INSERT INTO alerts (game_id, round, at_index, code, seat, train, message)
            VALUES (1, 1, 3, 'open-double', 0, '1', 'the double 1-1 on train 1 waits');
    """)
    conn.commit()
    conn.close()
    table = Table(make_app(db_path).test_client())
    page = table.client.get("/games/1/rounds/1/hands").get_data(as_text=True)
    assert "Ann laid the double a tile on Ben&#39;s train" in page
    assert "open-double" not in page and "train 1" not in page
