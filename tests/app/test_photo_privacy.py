"""Hand photos are private: kept without EXIF (no GPS, no serials), shown only to a device
holding the PIN, and gone from the database file with their game."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from PIL import Image

from companion_app import store
from companion_app.db import connect
from companion_app.hands import check_photo
from companion_app.photo_privacy import without_metadata

from .tablet import Table

GPS_IFD = 0x8825
ORIENTATION = 0x0112


def phone_photo(width: int = 120, height: int = 80, orientation: int = 6) -> bytes:
    """A JPEG as a phone writes it: make, model, serial, GPS position, turned sideways."""
    image = Image.new("RGB", (width, height), (30, 110, 60))
    image.paste((250, 250, 240), (0, 0, width // 3, height // 4))  # a corner to find upright
    exif = Image.Exif()
    exif[0x010F] = "PhoneMaker"
    exif[0x0110] = "Phone 15"
    exif[ORIENTATION] = orientation
    exif[0xA431] = "SERIAL-0042"  # BodySerialNumber
    exif.get_ifd(GPS_IFD).update({1: "N", 2: (54.0, 41.0, 12.5), 3: "E", 4: (25.0, 16.0, 47.0)})
    out = io.BytesIO()
    image.save(out, format="JPEG", exif=exif, quality=95)
    return out.getvalue()


def test_a_phone_photo_loses_its_metadata_and_stays_upright() -> None:
    data = phone_photo()
    assert b"SERIAL-0042" in data and b"PhoneMaker" in data
    kept = without_metadata(check_photo(data, "hand.jpg"))
    assert kept.mimetype == "image/jpeg" and (kept.width, kept.height) == (80, 120)
    with Image.open(io.BytesIO(kept.data)) as image:
        assert not image.getexif() and "exif" not in image.info
        assert image.size == (80, 120)
        # orientation 6: the photo's top-left corner is now at the top right
        right, left = image.getpixel((75, 5)), image.getpixel((5, 5))
        assert isinstance(right, tuple) and isinstance(left, tuple)
        assert right[0] > 200 > left[0]
    for secret in (b"Exif", b"SERIAL-0042", b"PhoneMaker", b"Phone 15"):
        assert secret not in kept.data


def test_a_png_keeps_its_pixels_but_not_its_text() -> None:
    from PIL.PngImagePlugin import PngInfo

    info = PngInfo()
    info.add_text("Location", "54.6872 N 25.2797 E")
    out = io.BytesIO()
    Image.new("RGB", (40, 30), (1, 2, 3)).save(out, format="PNG", pnginfo=info)
    kept = without_metadata(check_photo(out.getvalue(), "hand.png"))
    assert kept.mimetype == "image/png" and b"Location" not in kept.data
    with Image.open(io.BytesIO(kept.data)) as image:
        assert image.getpixel((10, 10)) == (1, 2, 3)


@pytest.fixture
def game(unlocked: Table) -> Table:
    unlocked.new_game(("Ann", "Ben"))
    return unlocked


def upload(table: Table, data: bytes, seat: int = 0) -> object:
    return table.post(f"/games/1/rounds/1/hands/{seat}/photo",
                      {"photo": (io.BytesIO(data), "hand.jpg")},
                      content_type="multipart/form-data")


def test_a_stored_photo_has_no_exif_and_needs_the_pin(game: Table, app: object,
                                                      db_path: Path) -> None:
    assert upload(game, phone_photo()).status_code == 302  # type: ignore[attr-defined]
    conn = connect(db_path)
    stored = store.hand_photo(conn, 1, 1, 0)
    conn.close()
    assert stored is not None and b"SERIAL-0042" not in stored[0]
    with Image.open(io.BytesIO(stored[0])) as image:
        assert not image.getexif()
    mine = game.client.get("/games/1/rounds/1/hands/0/photo")
    assert mine.status_code == 200 and mine.data == stored[0]
    assert "no-store" in mine.headers["Cache-Control"]

    stranger = app.test_client()  # type: ignore[attr-defined]
    refused = stranger.get("/games/1/rounds/1/hands/0/photo")
    assert refused.status_code == 403 and refused.data != stored[0]
    assert b"unlocked with the table" in refused.data
    page = stranger.get("/games/1/rounds/1/hands").get_data(as_text=True)
    assert "<img src=\"/games/1/rounds/1/hands/0/photo" not in page
    assert "shows on a device unlocked" in page


def test_a_deleted_games_photos_leave_the_database_file(game: Table, db_path: Path) -> None:
    upload(game, phone_photo(400, 300, orientation=1))
    conn = connect(db_path)
    stored = store.hand_photo(conn, 1, 1, 0)
    conn.close()
    assert stored is not None
    piece = stored[0][len(stored[0]) // 2:len(stored[0]) // 2 + 64]

    def on_disk() -> bytes:
        return b"".join(p.read_bytes() for p in db_path.parent.glob(db_path.name + "*"))

    assert piece in on_disk()
    assert game.post("/games/1/delete", {"confirm": "yes"}).status_code == 302
    assert piece not in on_disk()


def test_a_photo_whose_pixels_cannot_be_decoded_is_refused_not_kept(game: Table,
                                                                    db_path: Path) -> None:
    data = phone_photo(400, 300)
    response = upload(game, data[: len(data) // 2])  # the header is whole, the pixels not
    assert response.status_code == 400  # type: ignore[attr-defined]
    assert "could not be read" in response.get_data(as_text=True)  # type: ignore[attr-defined]
    conn = connect(db_path)
    assert store.hand_photo(conn, 1, 1, 0) is None
    conn.close()
