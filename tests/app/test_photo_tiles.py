"""A hand photo's boxes (PhotoTile) keep the stored JSON the app has always written."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from companion_app import changes, hand_check, store
from companion_app.db import connect, migrate
from companion_app.photo_tiles import PhotoTile, tiles_from_json, tiles_to_json
from engine import RuleSet

#: A box as the reader has always written it, and one with a person's answer and the
#: camera's mark, one face down, and an older row without the later keys.
READ = ('{"values": [3, 4], "corners": [[1.0, 1.5], [9.0, 1.0], [9.0, 20.0], [1.0, 20.0]], '
        '"confidence": 0.812, "uncertain": true, "covered": false, "doubts": ["range"], '
        '"left_out": false}')
FACE_DOWN = '{"corners": [[12.0, 1.0], [20.0, 1.0], [20.0, 20.0], [12.0, 20.0]], "face_down": true}'
OLD = '{"values": [6, 6], "corners": [[0, 0], [9, 0], [9, 20], [0, 20]], "uncertain": true}'


@pytest.fixture
def db(tmp_path: Path) -> sqlite3.Connection:
    conn = connect(tmp_path / "t.db")
    migrate(conn)
    store.create_game(conn, name="Sunday", players=("Ann", "Ben"),
                      rules=RuleSet.preset("standard"), rounds=3)
    return conn


def test_a_box_read_is_written_byte_for_byte_as_before() -> None:
    for text in (READ, FACE_DOWN):
        assert json.dumps(PhotoTile.from_json(json.loads(text)).to_json()) == text


def test_a_box_read_fresh_writes_the_reader_s_keys_in_order() -> None:
    tile = PhotoTile(corners=((1.0, 1.5), (9.0, 1.0), (9.0, 20.0), (1.0, 20.0)), values=(3, 4),
                     confidence=0.812, uncertain=True, doubts=("range",))
    assert json.dumps(tile.to_json()) == READ
    assert json.dumps(PhotoTile.face_down_at([[12, 1], [20, 1], [20, 20], [12, 20]]).to_json()
                      ) == FACE_DOWN


def test_answers_and_marks_round_trip() -> None:
    read = PhotoTile.from_json(json.loads(READ))
    answered = hand_check.answer([read], 0, values=(3, 5))[0]
    marked = PhotoTile.from_json(json.loads(READ) | {"on_table": True, "not_tile": True})
    for tile in (answered, marked):
        assert PhotoTile.from_json(json.loads(json.dumps(tile.to_json()))) == tile
    assert answered.values == (3, 5) and answered.corrected and not answered.confirmed
    assert answered.to_json()["corrected"] is True and "confirmed" not in answered.to_json()


def test_an_old_row_still_loads(db: sqlite3.Connection) -> None:
    """Rows stored before the type, with fewer keys, load and keep their meaning."""
    readings = f"[{OLD}, {READ}, {FACE_DOWN}]"
    db.execute("INSERT INTO hands (game_id, round, seat, width, height, readings, tiles) "
               "VALUES (1, 1, 0, 40, 30, ?, '[[6, 6], [3, 4]]')", (readings,))
    db.commit()
    hand = store.hands(db, 1, 1)[0]
    old, read, back = hand.readings
    assert old.values == (6, 6) and old.uncertain and old.confidence is None
    assert hand_check.doubts(old) == ["unsure"]
    assert hand_check.open_doubts(hand.readings) == [0, 1, 2]  # the tile face down too
    assert back.face_down and back.values is None and not hand_check.is_box(back)
    assert hand.tiles == [[6, 6], [3, 4]] and hand.width == 40
    assert store.hand_readings(db, 1)[(1, 0)] == list(hand.readings)
    # kept again unchanged: nothing noted for undo, and the boxes read alike
    with changes.change(db, 1, "again") as log:
        store.save_hand_readings(db, 1, 1, 0, hand.readings, log)
    assert log.readings == []
    stored = db.execute("SELECT readings FROM hands").fetchone()["readings"]
    assert tiles_from_json(json.loads(stored)) == list(hand.readings)
    assert json.loads(stored)[1:] == json.loads(f"[{READ}, {FACE_DOWN}]")


def test_an_answer_is_kept_and_noted_for_undo(db: sqlite3.Connection) -> None:
    tiles = tiles_from_json([json.loads(READ), json.loads(FACE_DOWN)])
    store.save_hand_photo(db, 1, 1, 0, photo=b"x", photo_type="image/png", size=(40, 30),
                          readings=tiles, tiles=[[3, 4]], note="1 tile(s) read.")
    assert db.execute("SELECT readings FROM hands").fetchone()["readings"] == (
        f"[{READ}, {FACE_DOWN}]")
    with changes.change(db, 1, "answer") as log:
        store.save_hand_readings(db, 1, 1, 0, hand_check.confirm_all(tiles), log)
    assert log.readings == [(1, 0, json.dumps(tiles_to_json(tiles)))]
    assert hand_check.open_doubts(store.hands(db, 1, 1)[0].readings) == []
