"""The set page: upload photos of the whole set, confirm the doubtful tiles, save."""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
from flask import Flask
from flask.testing import FlaskClient

from vision.calibration.calibrate import CalibrationTile, calibrate_tiles, set_tiles
from vision.models.detections import Detections
from vision.reading.reader import HalfCount
from vision.reading.set_profile import load_profile, reader_belief

from .tablet import Table


def _pending(app: Flask) -> Path:
    """A calibration waiting for the player, as an upload leaves one: a double-2 set
    whose 2-2 was read 1-1 (so it is doubtful)."""
    tiles = []
    for a, b in set_tiles(2):
        read = (1, 1) if (a, b) == (2, 2) else (a, b)
        halves = [HalfCount(v, 0.9, Detections.empty(), v, v) for v in read]
        box = np.array([[10, 10], [30, 10], [30, 50], [10, 50]], np.float32)
        tiles.append(CalibrationTile(0, box, read, (reader_belief(halves[0], 2),
                                                    reader_belief(halves[1], 2)), (None, None)))
    result = calibrate_tiles(tiles, 2)
    work = Path(app.config["DATABASE"]).with_name("set_calibration")
    work.mkdir()
    (work / "photo0.png").write_bytes(b"\x89PNG not really")
    (work / "state.json").write_text(json.dumps({"calibration": result.state(),
                                                 "sizes": [[64, 64]]}))
    return work


def test_page_shows_no_profile_yet(client: FlaskClient) -> None:
    page = client.get("/set/")
    assert page.status_code == 200
    assert "None yet." in page.get_data(as_text=True)


def test_writes_need_the_pin(app: Flask, table: Table) -> None:
    _pending(app)
    assert table.post("/set/confirm").status_code == 403
    assert table.post("/set/photos").status_code == 403
    assert not Path(app.config["DATABASE"]).with_name("set_profile.json").exists()


def test_upload_without_models_says_so(unlocked: Table) -> None:
    photo = (io.BytesIO(b"\x89PNG"), "set.png")
    page = unlocked.post("/set/photos", {"photos": photo, "set": "12"},
                         content_type="multipart/form-data")
    assert page.status_code == 400
    assert "models are missing" in page.get_data(as_text=True)
    assert unlocked.post("/set/photos", {"set": "12"},
                         content_type="multipart/form-data").status_code == 400


def test_doubtful_tiles_are_shown_and_corrected(app: Flask, unlocked: Table) -> None:
    work = _pending(app)
    page = unlocked.client.get("/set/").get_data(as_text=True)
    assert "to check" in page and 'class="uncertain"' in page
    assert "read 1-1" in page
    assert unlocked.client.get("/set/photo/0").status_code == 200
    bad = unlocked.post("/set/confirm", {"tile-5": "two-two"})
    assert bad.status_code == 400 and "like 3-12" in bad.get_data(as_text=True)
    assert work.exists()  # nothing lost
    done = unlocked.post("/set/confirm", {"tile-5": "2-2"})
    assert done.status_code == 302
    profile = load_profile(Path(app.config["DATABASE"]).with_name("set_profile.json"))
    assert profile.top == 2
    assert not work.exists()
    assert "Double-2 set" in unlocked.client.get("/set/").get_data(as_text=True)


def test_confirm_without_a_calibration(unlocked: Table) -> None:
    page = unlocked.post("/set/confirm")
    assert page.status_code == 400
    assert "No calibration is waiting" in page.get_data(as_text=True)


def test_the_share_page_links_to_the_set_page(client: FlaskClient) -> None:
    page = client.get("/settings").get_data(as_text=True)
    assert 'href="/set/"' in page
