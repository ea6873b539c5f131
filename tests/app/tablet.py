"""A tablet at the table, for the app tests: an app on a temporary database, posts with
the page's CSRF token, the PIN."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from flask import Flask
from flask.testing import FlaskClient

from companion_app import create_app

PIN = "424242"


def make_app(db_path: Path, **config: Any) -> Flask:
    settings = {
        "TESTING": True,
        "DATABASE": str(db_path),
        "PIN": PIN,
        "PIN_ITERATIONS": 1000,  # the stored digest's cost; kept low for speed here
        "MODELS_DIR": str(db_path.parent / "no-models"),
    }
    settings.update(config)
    return create_app(settings)


def csrf(client: FlaskClient) -> str:
    """The session's CSRF token, as the page carries it."""
    page = client.get("/unlock").get_data(as_text=True)
    match = re.search(r'name="csrf-token" content="([^"]+)"', page)
    assert match, "the page carries a CSRF token"
    return match.group(1)


class Table:
    """A client that acts like a tablet at the table: posts with the page's CSRF token."""

    def __init__(self, client: FlaskClient) -> None:
        self.client = client
        self.token = csrf(client)

    def post(self, url: str, data: dict[str, Any] | None = None, **kwargs: Any) -> Any:
        data = dict(data or {})
        data.setdefault("csrf_token", self.token)
        return self.client.post(url, data=data, **kwargs)

    def unlock(self, pin: str = PIN) -> Any:
        return self.post("/unlock", {"pin": pin})

    def new_game(self, players: tuple[str, ...] = ("Ann", "Ben", "Cy"), **fields: str) -> Any:
        data = {f"seat_{i}": name for i, name in enumerate(players)}
        data.update({"name": "Sunday", "preset": "standard"})
        data.update(fields)
        return self.post("/games/new", data)


class StillCamera:
    """A live camera over the table for the app tests: it sees the table, tells no
    events, and every still it gives is ``picture`` (encoded image bytes)."""

    label = "camera 0"
    live = True
    sees_table = True

    def __init__(self, picture: bytes) -> None:
        self.picture = picture

    def events(self, ctx: object) -> list[object]:
        return []

    def still(self) -> bytes:
        return self.picture
