"""New games: the form, its validation messages, the rules, resuming a game."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from companion_app.rules import RULE_KEYS
from engine import RuleSet

from .tablet import Table


def test_the_form_offers_every_rule_key_and_the_presets(table: Table) -> None:
    page = table.client.get("/games/new").get_data(as_text=True)
    for key in RULE_KEYS:
        assert f'name="rule_{key.name}"' in page
    assert 'value="standard"' in page
    assert 'name="rounds"' in page and 'name="seat_7"' in page


def test_a_new_game_is_stored_with_its_rules_and_full_countdown(unlocked: Table,
                                                                db_path: Path) -> None:
    response = unlocked.new_game(("Ann", "Ben", "Cy"), rule_double_blank="25",
                                 rule_chicken_foot="true")
    assert response.status_code == 302
    row = sqlite3.connect(db_path).execute("SELECT rules, set_size, rounds FROM games").fetchone()
    rules = RuleSet.from_json(json.loads(row[0]))
    assert rules.double_blank == 25 and rules.chicken_foot and rules.set == 12
    assert row[1] == 12 and row[2] == 13
    page = unlocked.client.get("/").get_data(as_text=True)
    assert "Sunday" in page and "12-12" in page


def test_a_shorter_game_and_a_smaller_set(unlocked: Table, db_path: Path) -> None:
    unlocked.new_game(rule_set="9", rounds="3")
    row = sqlite3.connect(db_path).execute("SELECT set_size, rounds FROM games").fetchone()
    assert tuple(row) == (9, 3)


@pytest.mark.parametrize(
    ("fields", "players", "message"),
    [
        ({}, ("Ann",), "at least two names"),
        ({}, ("Ann", "ann"), "same name"),
        ({"seat_0": "", "seat_1": "Ben", "seat_2": "Cy"}, (), "Seat 1 is empty"),
        ({"rounds": "14"}, ("Ann", "Ben"), "Number of rounds: must be between 1 and 13"),
        ({"rounds": "two"}, ("Ann", "Ben"), "is not a whole number"),
        ({"rule_double_blank": "-5"}, ("Ann", "Ben"), "must be between 0 and 500"),
        ({"rule_first_turn": "whatever"}, ("Ann", "Ben"), "choose one of one-tile"),
        ({"rule_chicken_foot": "maybe"}, ("Ann", "Ben"), "choose yes or no"),
        ({"preset": "nope"}, ("Ann", "Ben"), "unknown preset"),
        ({}, ("A" * 30, "Ben"), "at most 24 characters"),
        ({}, ("Ann", "\u200b"), "Seat 2: a name needs at least one visible letter or digit"),
        ({}, ("\u200b\u200d\ufeff", "Ben"), "Seat 1: a name needs at least one visible"),
        ({}, ("Ann", "\x07\x1b"), "Seat 2: a name cannot hold control characters"),
        ({}, ("Ann", "Ben\x00"), "Seat 2: a name cannot hold control characters"),
        ({}, ("Ann", "ann\u200b"), "same name"),
        ({}, ("Ann", "ＡＮＮ"), "same name"),
        ({"name": "\u2060\u200b"}, ("Ann", "Ben"), "Game name: a name needs at least one"),
        ({"rounds": "１２"}, ("Ann", "Ben"), "type it with the digits 0-9"),
    ],
)
def test_new_game_validation_messages(unlocked: Table, fields: dict[str, str],
                                      players: tuple[str, ...], message: str,
                                      db_path: Path) -> None:
    data = {f"seat_{i}": name for i, name in enumerate(players)}
    data.update({"preset": "standard"})
    data.update(fields)
    response = unlocked.post("/games/new", data)
    assert response.status_code == 400
    page = response.get_data(as_text=True)
    assert 'id="form-error"' in page
    assert message in page.replace("&#39;", "'")
    for name in players:  # the form keeps what was typed
        if name.isprintable():
            assert f'value="{name}"' in page
    assert sqlite3.connect(db_path).execute("SELECT COUNT(*) FROM games").fetchone()[0] == 0


def test_a_malformed_form_gets_a_clear_message(unlocked: Table) -> None:
    response = unlocked.client.post(
        "/games/new", data="%%%", content_type="application/x-www-form-urlencoded",
        headers={"X-CSRF-Token": unlocked.token},
    )
    assert response.status_code == 400
    assert "at least two names" in response.get_data(as_text=True)


def test_games_are_listed_and_one_can_be_resumed(unlocked: Table) -> None:
    unlocked.new_game(("Ann", "Ben"), name="First")
    unlocked.new_game(("Cy", "Dee"), name="Second")
    listing = unlocked.client.get("/games/").get_data(as_text=True)
    assert "First" in listing and "Second" in listing
    assert "Second" in unlocked.client.get("/").get_data(as_text=True)
    assert unlocked.post("/games/1/resume").status_code == 302
    assert "First" in unlocked.client.get("/").get_data(as_text=True)


def test_unknown_games_are_404_with_a_message(unlocked: Table) -> None:
    response = unlocked.client.get("/games/7/pad")
    assert response.status_code == 404
    assert "no such page" in response.get_data(as_text=True)
    assert unlocked.post("/games/7/resume").status_code == 404


def test_moving_the_table_to_another_round(unlocked: Table) -> None:
    unlocked.new_game(("Ann", "Ben"))
    assert unlocked.post("/games/1/round", {"round": "4"}).status_code == 302
    assert "9-9" in unlocked.client.get("/").get_data(as_text=True)
    response = unlocked.post("/games/1/round", {"round": "40"})
    assert response.status_code == 303
    pad = unlocked.client.get("/games/1/pad").get_data(as_text=True)
    assert "must be between 1 and 13" in pad
    assert "Undo moving the table to round 4" in pad
    unlocked.post("/games/1/undo")
    assert "12-12" in unlocked.client.get("/").get_data(as_text=True)


def test_names_keep_what_shows(unlocked: Table) -> None:
    unlocked.new_game(("  Zoë ", "👨\u200d👩 family", "\u200bBo\u200b"), name=" Sunday ")
    page = unlocked.client.get("/games/1/pad").get_data(as_text=True)
    assert ">Zoë<" in page and "👨\u200d👩 family" in page and "</span>Bo</th>" in page
    assert "Sunday — score pad" in page


def test_the_game_played_last_is_listed_first(unlocked: Table, db_path: Path) -> None:
    unlocked.new_game(("Ann", "Ben"), name="First")
    unlocked.new_game(("Cy", "Dee"), name="Second")
    conn = sqlite3.connect(db_path)
    conn.execute("UPDATE games SET created = '2026-01-01 10:00:00'")  # both started long ago
    conn.commit()
    listing = unlocked.client.get("/games/").get_data(as_text=True).split('id="games"')[1]
    assert listing.index("Second") < listing.index("First")  # the latest started first
    unlocked.post("/games/1/rounds/1/scores", {"points_0": "4", "points_1": "0"})
    listing = unlocked.client.get("/games/").get_data(as_text=True).split('id="games"')[1]
    assert listing.index("First") < listing.index("Second")  # then the one played last
    # a game started in the second the other was last played in (a new game, same
    # players, tapped as the last round is entered): the new game first
    unlocked.new_game(("Ann", "Ben"), name="Third")
    conn.execute("UPDATE games SET created = '2026-01-01 11:00:00' WHERE name = 'Third'")
    conn.execute("UPDATE changes SET at = '2026-01-01 11:00:00.900' WHERE game_id = 1")
    conn.commit()
    listing = unlocked.client.get("/games/").get_data(as_text=True).split('id="games"')[1]
    assert listing.index("Third") < listing.index("First") < listing.index("Second")


def test_a_game_is_renamed(unlocked: Table) -> None:
    unlocked.new_game(("Ann", "Ben"), name="Sunday")
    assert unlocked.post("/games/1/rename", {"name": " Family cup "}).status_code == 302
    assert "Family cup — score pad" in unlocked.client.get("/games/1/pad").get_data(as_text=True)
    response = unlocked.post("/games/1/rename", {"name": "\u200b "})
    assert response.status_code == 303
    listing = unlocked.client.get("/games/").get_data(as_text=True)
    assert "Game name: a name needs at least one visible" in listing
    assert "Family cup" in listing
    unlocked.post("/lock")
    assert unlocked.post("/games/1/rename", {"name": "Mine"}).status_code == 403


def test_deleting_a_game_asks_first_and_needs_the_pin(unlocked: Table, db_path: Path) -> None:
    unlocked.new_game(("Ann", "Ben"), name="Keep")
    unlocked.new_game(("Cy", "Dee"), name="Drop")
    unlocked.post("/games/2/rounds/1/scores", {"points_0": "4", "points_1": "0"})
    unlocked.post("/games/2/undo")
    unlocked.post("/games/2/rounds/1/scores", {"points_0": "5", "points_1": "0"})
    page = unlocked.client.get("/games/2/delete").get_data(as_text=True)
    assert "Delete “Drop”?" in page and "cannot be undone" in page and "(4 entries)" in page
    assert unlocked.post("/games/2/delete").status_code == 302  # not confirmed: asked again
    assert "Drop" in unlocked.client.get("/games/").get_data(as_text=True)
    unlocked.post("/lock")
    assert unlocked.post("/games/2/delete", {"confirm": "yes"}).status_code == 403
    unlocked.unlock()
    assert unlocked.post("/games/2/delete", {"confirm": "yes"}).status_code == 302
    listing = unlocked.client.get("/games/").get_data(as_text=True)
    assert "Game &#39;Drop&#39; deleted." in listing and "Keep" in listing
    assert unlocked.client.get("/games/2/pad").status_code == 404
    assert "Keep" in unlocked.client.get("/").get_data(as_text=True)  # the table plays on
    conn = sqlite3.connect(db_path)
    for table in ("scores", "score_edits", "changes", "players", "rounds"):
        assert conn.execute(f"SELECT COUNT(*) FROM {table} WHERE game_id = 2").fetchone() == (0,)
