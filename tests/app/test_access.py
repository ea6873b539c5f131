"""Reading is open; every change needs the PIN and a valid CSRF token."""

from __future__ import annotations

from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient

from companion_app import create_app, store
from companion_app.backoff import Backoff
from companion_app.db import connect
from companion_app.pin import hash_pin, verify_pin
from companion_app.security import safe_next

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


def test_repeated_wrong_pins_make_this_device_wait(table: Table) -> None:
    for _ in range(5):
        assert table.unlock("123").status_code == 403
    response = table.unlock()  # even the right PIN waits now
    assert response.status_code == 429
    assert "Too many wrong PINs from this device" in response.get_data(as_text=True)


def on_device(app: Flask, address: str) -> Table:
    client = app.test_client()
    client.environ_base["REMOTE_ADDR"] = address
    return Table(client)


def test_one_device_locked_out_does_not_lock_out_another(app: Flask) -> None:
    guesser = on_device(app, "192.0.2.66")
    for _ in range(8):
        assert guesser.unlock("123").status_code in (403, 429)
    assert guesser.unlock().status_code == 429
    newcomer = on_device(app, "192.0.2.10")
    assert newcomer.unlock().status_code == 302
    assert newcomer.new_game().status_code == 302
    assert guesser.new_game(pin=PIN).status_code == 429  # the PIN in a form waits too


def test_backoff_doubles_per_client_and_forgets_on_success() -> None:
    now = [0.0]
    limiter = Backoff(free_tries=4, first_wait=60.0, longest_wait=300.0, clock=lambda: now[0])
    for _ in range(4):
        assert limiter.start("a") == 0.0
    assert limiter.start("a") == 0.0  # the fifth try runs, and starts a 60 s wait
    assert limiter.start("a") == pytest.approx(60.0)
    assert limiter.start("b") == 0.0  # another client is not held up
    waits = []
    for _ in range(4):
        now[0] += limiter.start("a") + 0.01
        assert limiter.start("a") == 0.0
        waits.append(round(limiter.start("a")))
    assert waits == [120, 240, 300, 300]  # doubling, up to the longest wait
    now[0] += 301
    assert limiter.start("a") == 0.0
    limiter.succeeded("a")
    for _ in range(4):
        assert limiter.start("a") == 0.0  # free tries again


def test_the_backoff_table_is_bounded() -> None:
    now = [0.0]
    limiter = Backoff(max_clients=3, clock=lambda: now[0])
    for i in range(50):
        now[0] += 1
        limiter.start(f"198.51.100.{i}")
    assert len(limiter) == 3


HOSTILE_NEXT = [
    "https://evil.example/", "//evil.example/x", "///evil.example/", "/\\evil.example",
    "\\\\evil.example", "/\t/example.invalid/x", "/%09/example.invalid/x",
    "/%5Cevil.example", "/%2F/evil.example", " /games/", "/games/\r\nSet-Cookie: a=b",
    "/%0d%0aLocation:%20//evil", "javascript:alert(1)", "http:/evil.example",
    "evil.example/x", "/\u200b/evil.example", "/x\x7f",
]


@pytest.mark.parametrize("target", HOSTILE_NEXT)
def test_unlock_redirects_only_inside_the_site(table: Table, target: str) -> None:
    response = table.post("/unlock", {"pin": PIN, "next": target})
    assert response.status_code == 302
    assert response.headers["Location"] == "/"
    assert safe_next(target) == "/"


def test_unlock_with_a_tab_in_the_query_stays_on_the_site(table: Table) -> None:
    response = table.post("/unlock?next=/%09/example.invalid/x", {"pin": PIN})
    assert response.headers["Location"] == "/"


@pytest.mark.parametrize("target", ["/games/", "/games/1/pad?tab=2#round-3", "/settings"])
def test_unlock_returns_to_the_page_it_came_from(table: Table, target: str) -> None:
    response = table.post("/unlock", {"pin": PIN, "next": target})
    assert response.headers["Location"] == target


def test_pin_is_random_persisted_and_survives_a_restart(tmp_path: Path) -> None:
    path = tmp_path / "pin.sqlite3"
    app_a = create_app({"DATABASE": str(path), "TESTING": True})
    app_b = create_app({"DATABASE": str(path), "TESTING": True})
    pin = app_a.config["PIN"]
    assert len(pin) == 6 and pin.isdigit()
    assert app_b.config["PIN"] is None  # stored hashed: it cannot be shown again
    assert app_a.config["PIN_HASH"] == app_b.config["PIN_HASH"]
    assert Table(app_b.test_client()).unlock(pin).status_code == 302
    assert app_a.secret_key == app_b.secret_key
    other = create_app({"DATABASE": str(tmp_path / "other.sqlite3"), "TESTING": True})
    assert other.secret_key != app_a.secret_key


def test_the_stored_pin_is_a_salted_digest(tmp_path: Path) -> None:
    path = tmp_path / "pin.sqlite3"
    pin = create_app({"DATABASE": str(path), "TESTING": True}).config["PIN"]
    stored = store.get_setting(connect(path), "pin")
    assert stored is not None and pin not in stored
    assert stored.startswith("pbkdf2_sha256$")
    assert verify_pin(pin, stored) and not verify_pin("000000" if pin != "000000" else "1", stored)
    assert hash_pin(pin) != hash_pin(pin)  # salted


def test_an_old_plain_pin_is_hashed_on_start_and_still_unlocks(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    create_app({"DATABASE": str(path), "TESTING": True})
    conn = connect(path)
    store.set_setting(conn, "pin", "135790")  # as databases held it before
    conn.close()
    app = create_app({"DATABASE": str(path), "TESTING": True})
    assert app.config["PIN"] == "135790"  # known this once, so the console shows it
    stored = store.get_setting(connect(path), "pin")
    assert stored is not None and stored.startswith("pbkdf2_sha256$") and "135790" not in stored
    tablet = Table(app.test_client())
    assert tablet.unlock("246801").status_code == 403
    assert tablet.unlock("135790").status_code == 302
    again = create_app({"DATABASE": str(path), "TESTING": True})
    assert again.config["PIN"] is None and again.config["PIN_HASH"] == stored


def test_new_pin_on_start_replaces_the_old_one(tmp_path: Path) -> None:
    path = tmp_path / "pin.sqlite3"
    old = create_app({"DATABASE": str(path), "TESTING": True}).config["PIN"]
    app = create_app({"DATABASE": str(path), "TESTING": True, "NEW_PIN": True})
    assert app.config["PIN"] and app.config["PIN_HASH"] != hash_pin(old)
    assert verify_pin(app.config["PIN"], str(store.get_setting(connect(path), "pin")))


def test_new_pin_locks_other_devices(app: Flask, unlocked: Table, db_path: Path) -> None:
    other = Table(app.test_client())
    assert other.unlock().status_code == 302
    response = unlocked.post("/settings/pin")
    assert response.status_code == 302
    stored = str(store.get_setting(connect(db_path), "pin"))
    assert stored.startswith("pbkdf2_sha256$") and verify_pin(app.config["PIN"], stored)
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
