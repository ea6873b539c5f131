"""The game's photo of the bare table on the hands page: taken once, used for every hand
photo of the game, replaced or dropped; only with the PIN."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from flask import Flask
from PIL import Image

from companion_app import hands
from companion_app.photo_tiles import PhotoTile

from .tablet import Table


def png(width: int = 64, height: int = 48, colour: tuple[int, int, int] = (20, 120, 60)
        ) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (width, height), colour).save(out, format="PNG")
    return out.getvalue()


@pytest.fixture
def game(unlocked: Table) -> Table:
    unlocked.new_game(("Ann", "Ben"))
    return unlocked


def post_bare(table: Table, data: bytes, name: str = "bare.png") -> object:
    return table.post("/games/1/bare-table", {"photo": (io.BytesIO(data), name), "round": "1"},
                      content_type="multipart/form-data")


def test_the_hands_page_offers_the_bare_table_once(game: Table) -> None:
    page = game.client.get("/games/1/rounds/1/hands").get_data(as_text=True)
    assert 'id="bare-table"' in page and "Photo of the bare table" in page
    assert game.client.get("/games/1/bare-table").status_code == 404
    response = post_bare(game, png(30, 20))
    assert response.status_code == 302  # type: ignore[attr-defined]
    assert response.headers["Location"].endswith("/games/1/rounds/1/hands#bare-table")  # type: ignore[attr-defined]
    kept = game.client.get("/games/1/bare-table")
    assert kept.status_code == 200 and kept.mimetype == "image/png"
    page = game.client.get("/games/1/rounds/1/hands").get_data(as_text=True)
    assert "Drop the photo of the bare table" in page and "Replace the photo" in page
    assert game.post("/games/1/bare-table/delete", {"round": "1"}).status_code == 302
    assert game.client.get("/games/1/bare-table").status_code == 404


def test_not_an_image_is_refused_and_nothing_kept(game: Table) -> None:
    post_bare(game, b"not an image", "x.png")
    assert game.client.get("/games/1/bare-table").status_code == 404


def test_changing_it_needs_the_pin(game: Table, app: Flask) -> None:
    other = Table(app.test_client())  # another device, not unlocked
    response = other.post("/games/1/bare-table", {"photo": (io.BytesIO(png()), "bare.png"),
                                                  "round": "1"},
                          content_type="multipart/form-data")
    assert response.status_code in (302, 403)
    assert other.client.get("/games/1/bare-table").status_code == 404


def test_every_hand_photo_is_read_knowing_it(game: Table, monkeypatch: pytest.MonkeyPatch,
                                             app: Flask) -> None:
    monkeypatch.setattr(hands, "models_status", lambda folder: None)
    seen: list[object] = []

    def fake_read(photo: hands.Photo, folder: object, rules: object,
                  profile_path: object = None, empty: object = None
                  ) -> tuple[list[PhotoTile], list[object]]:
        seen.append(empty)
        return [], []

    monkeypatch.setattr(hands, "read_hand_photo", fake_read)
    for seat in (0, 1):
        game.post(f"/games/1/rounds/1/hands/{seat}/photo",
                  {"photo": (io.BytesIO(png()), "hand.png")}, content_type="multipart/form-data")
    post_bare(game, png(30, 20, (200, 200, 200)))
    for seat in (0, 1):
        game.post(f"/games/1/rounds/1/hands/{seat}/photo",
                  {"photo": (io.BytesIO(png()), "hand.png")}, content_type="multipart/form-data")
    assert seen[:2] == [None, None]
    assert len(seen) == 4 and all(isinstance(p, Path) for p in seen[2:])
    assert seen[2] == seen[3] and Path(str(seen[2])).read_bytes()[:4] == b"\x89PNG"
