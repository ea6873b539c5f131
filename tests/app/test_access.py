"""Reading is open; every change needs the PIN and a valid CSRF token."""

from __future__ import annotations

from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient

from companion_app import create_app, store
from companion_app.db import connect

from .tablet import PIN, Table

READ_ROUTES = ["/", "/api/state", "/games/", "/games/new", "/settings", "/unlock", "/qr.svg"]


@pytest.mark.parametrize("url", READ_ROUTES)
def test_reading_is_open(client: FlaskClient, url: str) -> None:
    assert client.get(url).status_code == 200


def test_post_without_csrf_token_is_refused(client: FlaskClient) -> None:
    response = client.post("/unlock", data={"pin": PIN})
    assert response.status_code == 400
    assert "CSRF check failed" in response.get_data(as_text=True)


def test_post_with_a_forged_csrf_token_is_refused(table: Table) -> None:
    response = table.post("/unlock", {"pin": PIN, "csrf_token": "forged"})
    assert response.status_code == 400


def test_change_without_pin_is_refused(table: Table, db_path: Path) -> None:
    response = table.new_game()
    assert response.status_code == 403
    assert "needs the table&#39;s PIN" in response.get_data(as_text=True)
    conn = connect(db_path)
    assert store.list_games(conn) == []


def test_wrong_pin_is_refused_with_a_message(table: Table) -> None:
    response = table.unlock("000000" if PIN != "000000" else "111111")
    assert response.status_code == 403
    assert "Wrong PIN" in response.get_data(as_text=True)
    response = table.new_game(pin="999999")
    assert response.status_code == 403
    assert "Wrong PIN" in response.get_data(as_text=True)


def test_empty_pin_asks_for_one(table: Table) -> None:
    response = table.unlock("  ")
    assert response.status_code == 400
    assert "Please enter the table" in response.get_data(as_text=True)


def test_pin_in_the_form_allows_one_change(table: Table) -> None:
    response = table.new_game(pin=PIN)
    assert response.status_code == 302


def test_unlock_lets_this_browser_change_things_until_locked(table: Table) -> None:
    assert table.unlock().status_code == 302
    assert "Unlocked" in table.client.get("/").get_data(as_text=True)
    assert table.new_game().status_code == 302
    assert table.post("/lock").status_code == 302
    assert table.new_game().status_code == 403


def test_repeated_wrong_pins_lock_the_table_for_a_while(table: Table) -> None:
    for _ in range(5):
        assert table.unlock("123").status_code == 403
    response = table.unlock()  # even the right PIN waits now
    assert response.status_code == 429
    assert "Too many wrong PINs" in response.get_data(as_text=True)


def test_unlock_redirects_only_inside_the_site(table: Table) -> None:
    response = table.post("/unlock", {"pin": PIN, "next": "https://evil.example/"})
    assert response.headers["Location"] == "/"


def test_pin_is_random_persisted_and_survives_a_restart(tmp_path: Path) -> None:
    path = tmp_path / "pin.sqlite3"
    app_a = create_app({"DATABASE": str(path), "TESTING": True})
    app_b = create_app({"DATABASE": str(path), "TESTING": True})
    assert app_a.config["PIN"] == app_b.config["PIN"]
    assert len(app_a.config["PIN"]) == 6 and app_a.config["PIN"].isdigit()
    assert app_a.secret_key == app_b.secret_key
    other = create_app({"DATABASE": str(tmp_path / "other.sqlite3"), "TESTING": True})
    assert other.secret_key != app_a.secret_key


def test_new_pin_locks_other_devices(app: Flask, unlocked: Table) -> None:
    other = Table(app.test_client())
    assert other.unlock().status_code == 302
    response = unlocked.post("/settings/pin")
    assert response.status_code == 302
    assert other.new_game().status_code == 403  # the other tablet must enter the new PIN
    assert unlocked.new_game().status_code == 302  # the one that drew it stays unlocked


def test_qr_code_is_an_svg_linking_to_the_page(client: FlaskClient) -> None:
    response = client.get("/qr.svg")
    assert response.mimetype == "image/svg+xml"
    assert b"<svg" in response.data
    assert b"http://localhost/" in response.data  # in the title


def test_pages_allow_only_local_scripts_and_styles(client: FlaskClient) -> None:
    response = client.get("/")
    policy = response.headers["Content-Security-Policy"]
    assert "default-src 'self'" in policy and "script-src 'self'" in policy
    assert response.headers["X-Content-Type-Options"] == "nosniff"
