"""End of round: hand photos (checked to be images, capped in size), corrections, points."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from flask import Flask
from PIL import Image

from companion_app import hands

from .tablet import Table, make_app


def png(width: int = 64, height: int = 48) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (width, height), (20, 120, 60)).save(out, format="PNG")
    return out.getvalue()


@pytest.fixture
def game(unlocked: Table) -> Table:
    unlocked.new_game(("Ann", "Ben"))
    return unlocked


def upload(table: Table, data: bytes, name: str = "hand.png", seat: int = 0) -> object:
    return table.post(
        f"/games/1/rounds/1/hands/{seat}/photo",
        {"photo": (io.BytesIO(data), name)},
        content_type="multipart/form-data",
    )


def test_the_page_says_when_the_models_are_missing(game: Table) -> None:
    page = game.client.get("/games/1/rounds/1/hands").get_data(as_text=True)
    assert 'id="models-missing"' in page
    assert "enter each hand" in page
    assert 'accept="image/*" capture="environment"' in page


def test_a_photo_is_kept_and_the_tiles_are_entered_by_hand(game: Table) -> None:
    response = upload(game, png(80, 60))
    assert response.status_code == 302  # type: ignore[attr-defined]
    page = game.client.get("/games/1/rounds/1/hands").get_data(as_text=True)
    assert 'viewBox="0 0 80 60"' in page
    photo = game.client.get("/games/1/rounds/1/hands/0/photo")
    assert photo.mimetype == "image/png" and photo.data == png(80, 60)

    response = game.post("/games/1/rounds/1/hands/0/tiles", {"more": "0-0, 3-4 12/5"})
    assert response.status_code == 302
    pad = game.client.get("/games/1/pad").get_data(as_text=True)
    assert ">74<" in pad  # 0-0 counts 50 under the standard rules, + 7 + 17
    assert "from the hand" in pad


def test_a_corrected_tile_replaces_the_reading(game: Table) -> None:
    game.post("/games/1/rounds/1/hands/1/tiles", {"tile": ["5-6", "2-2"], "more": ""})
    assert ">15<" in game.client.get("/games/1/pad").get_data(as_text=True)
    game.post("/games/1/rounds/1/hands/1/tiles", {"tile": ["5-6", ""], "more": "1-1"})
    pad = game.client.get("/games/1/pad").get_data(as_text=True)
    assert "<s>15</s> → 13" in pad
    page = game.client.get("/games/1/rounds/1/hands").get_data(as_text=True)
    assert 'value="5-6"' in page and 'value="1-1"' in page


def test_an_empty_hand_scores_zero(game: Table) -> None:
    game.post("/games/1/rounds/1/hands/0/tiles", {"more": ""})
    assert 'data-seat="0">0<' in game.client.get("/games/1/pad").get_data(as_text=True)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("5-77", "a double-12 set has no 77"),
        ("13-2", "a double-12 set has no 13"),
        ("five", "'five' is not a tile"),
        ("3-4 4-3", "3-4 is listed twice"),
    ],
)
def test_bad_tiles_get_a_clear_message(game: Table, text: str, message: str) -> None:
    response = game.post("/games/1/rounds/1/hands/0/tiles", {"more": text})
    assert response.status_code == 400
    assert message in response.get_data(as_text=True).replace("&#39;", "'")
    assert "No scores yet" in game.client.get("/games/1/pad").get_data(as_text=True)


def test_a_non_image_upload_is_refused(game: Table) -> None:
    response = upload(game, b"%PDF-1.4 not a photo at all", "hand.pdf")
    assert response.status_code == 400  # type: ignore[attr-defined]
    text = response.get_data(as_text=True)  # type: ignore[attr-defined]
    assert "hand.pdf: not an image" in text


def test_a_truncated_image_is_refused(game: Table) -> None:
    response = upload(game, png()[:40])
    assert response.status_code == 400  # type: ignore[attr-defined]


def test_a_missing_file_is_asked_for(game: Table) -> None:
    response = game.post("/games/1/rounds/1/hands/0/photo", {}, content_type="multipart/form-data")
    assert response.status_code == 400
    assert "Choose or take a photo" in response.get_data(as_text=True)


def test_an_oversized_upload_is_refused(db_path: Path) -> None:
    app: Flask = make_app(db_path, MAX_CONTENT_LENGTH=2000)
    table = Table(app.test_client())
    table.unlock()
    table.new_game(("Ann", "Ben"))
    response = upload(table, png(400, 400) + b"\0" * 5000)
    assert response.status_code == 413  # type: ignore[attr-defined]
    assert "too large" in response.get_data(as_text=True)  # type: ignore[attr-defined]
    assert "Ann" in table.client.get("/games/1/pad").get_data(as_text=True)  # nothing lost


def test_uploads_need_the_pin(table: Table, unlocked: Table) -> None:
    unlocked.new_game(("Ann", "Ben"))
    unlocked.post("/lock")
    assert upload(unlocked, png()).status_code == 403  # type: ignore[attr-defined]


def test_reading_from_the_camera_without_a_frame_says_so(game: Table) -> None:
    response = game.post("/games/1/rounds/1/hands/0/camera")
    assert response.status_code == 409
    assert "upload a photo instead" in response.get_data(as_text=True)


def test_unknown_seats_are_404(game: Table) -> None:
    assert game.client.get("/games/1/rounds/1/hands/5/photo").status_code == 404
    assert game.client.get("/games/1/rounds/1/hands/0/photo").status_code == 404  # no photo yet


def test_check_photo_reports_the_upright_size() -> None:
    photo = hands.check_photo(png(30, 20), "x.png")
    assert (photo.width, photo.height, photo.mimetype) == (30, 20, "image/png")
    with pytest.raises(hands.HandError, match="empty"):
        hands.check_photo(b"", "x.png")
    gif = io.BytesIO()
    Image.new("RGB", (4, 4)).save(gif, format="GIF")
    with pytest.raises(hands.HandError, match="GIF images are not accepted"):
        hands.check_photo(gif.getvalue(), "x.gif")


def test_read_tiles_with_a_fake_reader(game: Table, monkeypatch: pytest.MonkeyPatch,
                                       app: Flask) -> None:
    """With models present, the photo's tiles are read and drawn over it, uncertain ones marked."""
    monkeypatch.setattr(hands, "models_status", lambda folder: None)

    def fake_read(photo: hands.Photo, folder: object,
                  rules: object) -> tuple[list[dict[str, object]], list[object]]:
        return [
            {"values": [3, 4], "corners": [[1, 1], [9, 1], [9, 20], [1, 20]], "confidence": 0.9,
             "uncertain": False},
            {"values": [6, 6], "corners": [[20, 1], [29, 1], [29, 20], [20, 20]],
             "confidence": 0.4, "uncertain": True},
            {"values": [1, 2], "corners": [[30, 1], [39, 1], [39, 20], [30, 20]],
             "confidence": 0.9, "uncertain": True, "covered": True},
        ], []

    monkeypatch.setattr(hands, "read_hand_photo", fake_read)
    upload(game, png(40, 30))
    page = game.client.get("/games/1/rounds/1/hands").get_data(as_text=True)
    assert "3 tile(s) read, 2 uncertain (1 partly covered by a hand) — check them." in page
    assert "face down" not in page
    assert page.count("<polygon") == 3  # an uncertain tile: its polygon and its field marked
    assert page.count('class="uncertain"') == 4
    assert 'value="3-4"' in page and 'value="6-6"' in page and 'value="1-2"' in page
    assert page.count("A hand covers part of this tile") == 1
    assert page.count("Read with doubt") == 1
    assert "22 pts (not saved)" in page


def test_tiles_face_down_are_named_and_not_counted(game: Table, monkeypatch: pytest.MonkeyPatch,
                                                   app: Flask) -> None:
    """A photo with tiles lying face down says so: they are not in the hand's points."""
    monkeypatch.setattr(hands, "models_status", lambda folder: None)

    def fake_read(photo: hands.Photo, folder: object,
                  rules: object) -> tuple[list[dict[str, object]], list[object]]:
        return [{"values": [3, 4], "corners": [[1, 1], [9, 1], [9, 20], [1, 20]],
                 "confidence": 0.9, "uncertain": False}], [
            [[12, 1], [20, 1], [20, 20], [12, 20]], [[22, 1], [30, 1], [30, 20], [22, 20]]]

    monkeypatch.setattr(hands, "read_hand_photo", fake_read)
    upload(game, png(40, 30))
    page = game.client.get("/games/1/rounds/1/hands").get_data(as_text=True)
    assert ("1 tile(s) read. 2 tile(s) lie face down and were not counted: turn them over"
            " and take the photo again.") in page
    assert "7 pts (not saved)" in page
    assert page.count('class="face-down"') == 2 and page.count(">face down</text>") == 2
    assert 'value="3-4"' in page and page.count('name="tile"') == 1  # backs are no tiles


def test_a_hand_is_read_from_the_table_camera(game: Table, app: Flask) -> None:
    from companion_app import attach_worker

    jpeg = io.BytesIO()
    Image.new("RGB", (32, 24), (200, 10, 10)).save(jpeg, format="JPEG")

    class Camera:
        label = "camera 0"
        live = True

        def events(self, ctx: object) -> list[object]:
            return []

        def still(self) -> bytes:
            return jpeg.getvalue()

    attach_worker(app, Camera(), start=False)
    page = game.client.get("/games/1/rounds/1/hands").get_data(as_text=True)
    assert "Read from the table camera" in page
    assert game.post("/games/1/rounds/1/hands/1/camera").status_code == 302
    photo = game.client.get("/games/1/rounds/1/hands/1/photo")
    assert photo.mimetype == "image/jpeg" and photo.data == jpeg.getvalue()


def test_a_hand_photo_is_read_for_the_game_s_set(monkeypatch: pytest.MonkeyPatch,
                                                 tmp_path: Path) -> None:
    """The reader is told the game's set: its top bounds the halves and the classifier."""
    import numpy as np

    import vision.scoring
    from vision.detections import Detections
    from vision.reader import FrameReading, TileReading

    asked: list[int | None] = []

    class Reader:
        def for_set(self, top: int | None) -> object:
            asked.append(top)
            return self

    def read_hand(reader: object, path: object) -> FrameReading:
        corners = np.array([[0, 0], [10, 0], [10, 20], [0, 20]], np.float32)
        return FrameReading([TileReading((15, 2), corners, 0.9, False)], Detections.empty())

    monkeypatch.setitem(hands._readers, str(tmp_path.resolve()), Reader())
    monkeypatch.setattr(vision.scoring, "read_hand", read_hand)
    photo = hands.check_photo(png(), "hand.png")
    tiles = hands.read_tiles(photo, tmp_path, {"name": "standard", "set": 15})
    assert asked == [15] and [t["values"] for t in tiles] == [[15, 2]]
    back = np.array([[30, 0], [40, 0], [40, 20], [30, 20]], np.float32)
    monkeypatch.setattr(vision.scoring, "read_hand", lambda reader, path: FrameReading(
        [TileReading((15, 2), back - [30, 0], 0.9, False)], Detections.empty(), (20, 40),
        (back,)))
    tiles, backs = hands.read_hand_photo(photo, tmp_path, {"name": "standard", "set": 15})
    assert [t["values"] for t in tiles] == [[15, 2]]
    assert backs == [[[30.0, 0.0], [40.0, 0.0], [40.0, 20.0], [30.0, 20.0]]]
    with pytest.raises(hands.HandError, match="rules could not be read"):
        hands.read_tiles(photo, tmp_path, {"name": "standard", "set": "lots"})
