"""A hand whose points rest on a doubtful reading says so on the pad until a person
checks it; confirming or correcting a reading clears the mark and the pad follows."""

from __future__ import annotations

import csv
import io
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from flask import Flask
from PIL import Image

from companion_app import hand_check, hands
from companion_app.photo_tiles import PhotoTile, tiles_from_json
from vision.models.detections import Detections
from vision.readings import FrameReading, TileReading, TileReadings

from .tablet import StillCamera, Table
from .test_hands import png, settle, upload

BOX = np.array([[0, 0], [20, 0], [20, 40], [0, 40]], np.float32)


def sure(values: tuple[int, int], x: float) -> TileReading:
    return TileReading(values, BOX + [x, 0], 0.95, False, 0.95, (1.0, 1.0),
                       ((values[0], values[0]), (values[1], values[1])))


def doubtful(values: tuple[int, int], x: float) -> TileReading:
    """Read 4-6 where the 6's pips allow 5 or 6: the reader's own doubt, not flagged
    uncertain as a whole (the case that slipped through: 147 entered as 146)."""
    return TileReading(values, BOX + [x, 0], 0.9, False, 0.9, (1.0, 0.8),
                       ((values[0], values[0]), (values[1] - 1, values[1])))


def grain(x: float) -> TileReading:
    """A box on bare wood: the detector scores it low."""
    return TileReading((1, 2), BOX + [x, 0], 0.1, True, 0.12, (0.5, 0.5),
                       ((0, 1), (0, 2)))


@pytest.fixture
def game(unlocked: Table) -> Table:
    unlocked.new_game(("Ann", "Ben"))
    return unlocked


@pytest.fixture
def plant(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Callable[[list[TileReading]], None]:
    """The vision reader answers every photo with the planted tiles (through the real
    scoring: ``vision.stills.hand_photos.hand_from_reading`` judges their doubts)."""
    import vision.stills.hand_photos

    class Reader:
        def for_set(self, top: int | None) -> Reader:
            return self

    planted: list[TileReading] = []
    models = str(tmp_path / "no-models")
    monkeypatch.setattr(hands, "models_status", lambda folder: None)
    monkeypatch.setitem(hands._readers, str(Path(models).resolve()), Reader())
    monkeypatch.setattr(vision.stills.hand_photos, "read_hand", lambda reader, image: FrameReading(
        TileReadings.of(planted), Detections.empty(), (60, 120)))

    def put(tiles: list[TileReading]) -> None:
        planted[:] = tiles

    return put


def pad_cell(table: Table, seat: int = 0) -> str:
    page = table.client.get("/games/1/pad").get_data(as_text=True)
    row = page.split('id="pad"')[1].split("<tr")[2 + seat]
    return row.split("<td")[1]


def csv_to_check(table: Table, seat: int = 0) -> str:
    rows = list(csv.reader(io.StringIO(table.client.get("/games/1/scores.csv")
                                       .get_data(as_text=True))))
    return rows[1 + seat][-1]


def test_a_planted_misread_marks_the_hand_on_the_pad(game: Table, plant: Callable[..., None],
                                                     app: Flask) -> None:
    plant([sure((3, 4), 0), doubtful((4, 6), 50)])
    upload(game, png(120, 60))
    page = game.client.get("/games/1/rounds/1/hands").get_data(as_text=True)
    assert 'id="check-0"' in page and "Check 1 reading" in page
    assert "4-6 (a half could be another count)" in page
    assert "2 tile(s) read, 1 uncertain — check them." in page
    # saved without a look: the points go on the pad, marked, never silently trusted
    assert 'id="confirm-0"' in page
    game.post("/games/1/rounds/1/hands/0/tiles", {"tile": ["3-4", "4-6"], "reading": ["0", "1"],
                                                  "more": ""})
    cell = pad_cell(game)
    assert ">17</a>" in cell  # the points as read...
    assert 'class="mark to-check"' in cell  # ...marked for checking
    assert csv_to_check(game) == "round 1"
    assert 'class="mark to-check"' not in pad_cell(game, 1)


def test_confirming_clears_the_mark(game: Table, plant: Callable[..., None]) -> None:
    plant([sure((3, 4), 0), doubtful((4, 6), 50)])
    upload(game, png(120, 60))
    game.post("/games/1/rounds/1/hands/0/tiles", {"tile": ["3-4", "4-6"], "reading": ["0", "1"]})
    assert 'to-check' in pad_cell(game)
    response = game.post("/games/1/rounds/1/hands/0/readings/1", {"action": "confirm"})
    assert response.status_code == 302 and "view=0" in response.location
    assert "to-check" not in pad_cell(game) and csv_to_check(game) == ""
    assert 'data-seat="0">17<' in game.client.get("/games/1/pad").get_data(as_text=True)
    page = game.client.get("/games/1/rounds/1/hands").get_data(as_text=True)
    assert 'id="check-0"' not in page and 'class="reading checked"' in page


def test_correcting_a_reading_clears_the_mark_and_the_pad_follows(
        game: Table, plant: Callable[..., None]) -> None:
    plant([sure((3, 4), 0), doubtful((4, 6), 50)])
    upload(game, png(120, 60))
    game.post("/games/1/rounds/1/hands/0/tiles", {"tile": ["3-4", "4-6"], "reading": ["0", "1"]})
    game.post("/games/1/rounds/1/hands/0/readings/1", {"action": "values", "a": "4", "b": "5"})
    pad = game.client.get("/games/1/pad").get_data(as_text=True)
    assert 'data-seat="0">16<' in pad and "<s>17</s> → 16" in pad
    assert "to-check" not in pad_cell(game)
    page = game.client.get("/games/1/rounds/1/hands").get_data(as_text=True)
    assert 'value="4-5"' in page and 'value="4-6"' not in page
    game.post("/games/1/rounds/1/hands/0/readings/0", {"action": "not-tile"})
    assert 'data-seat="0">9<' in game.client.get("/games/1/pad").get_data(as_text=True)
    game.post("/games/1/undo")  # one tap back: the tile, the points and the answer
    assert 'data-seat="0">16<' in game.client.get("/games/1/pad").get_data(as_text=True)
    game.post("/games/1/undo")
    assert 'data-seat="0">17<' in game.client.get("/games/1/pad").get_data(as_text=True)
    assert "to-check" in pad_cell(game)  # the doubt is back with the reading


def test_a_field_typed_otherwise_corrects_its_reading(game: Table,
                                                      plant: Callable[..., None]) -> None:
    plant([doubtful((4, 6), 0), doubtful((2, 8), 50)])
    upload(game, png(120, 60))
    game.post("/games/1/rounds/1/hands/0/tiles",
              {"tile": ["4-5", "2-8"], "reading": ["0", "1"], "more": "1-1"})
    assert "to-check" in pad_cell(game)  # 2-8 kept as read: still doubtful
    assert 'data-seat="0">21<' in game.client.get("/games/1/pad").get_data(as_text=True)
    game.post("/games/1/rounds/1/hands/0/tiles",
              {"tile": ["4-5", "2-8", "1-1"], "reading": ["0", "1", ""]})
    assert "to-check" in pad_cell(game)  # saved again as it was: still not checked
    game.post("/games/1/rounds/1/hands/0/confirm")
    assert "to-check" not in pad_cell(game)
    assert 'data-seat="0">21<' in game.client.get("/games/1/pad").get_data(as_text=True)


def test_a_box_that_may_not_be_a_tile_is_shown_not_counted(game: Table,
                                                          plant: Callable[..., None]) -> None:
    plant([sure((3, 4), 0), grain(60)])
    upload(game, png(120, 60))
    page = game.client.get("/games/1/rounds/1/hands").get_data(as_text=True)
    assert "1 tile(s) read; 1 box(es) that may not be tiles left out — check them." in page
    assert "<strong>7</strong> pts, not saved yet" in page
    assert 'class="left-out"' in page and 'class="reading left-out"' in page
    fields = page.split('id="seat-0"')[1].split('id="seat-1"')[0]
    assert fields.count('name="tile"') == 1
    game.post("/games/1/rounds/1/hands/0/tiles", {"tile": ["3-4"], "reading": ["0"]})
    assert "to-check" in pad_cell(game)  # the box left out is a doubt too
    game.post("/games/1/rounds/1/hands/0/readings/1", {"action": "values", "a": "1", "b": "2"})
    assert 'data-seat="0">10<' in game.client.get("/games/1/pad").get_data(as_text=True)
    assert "to-check" not in pad_cell(game)


def test_answers_need_the_pin_and_a_real_box(game: Table, plant: Callable[..., None]) -> None:
    plant([doubtful((4, 6), 0)])
    upload(game, png(120, 60))
    assert game.post("/games/1/rounds/1/hands/0/readings/7",
                     {"action": "confirm"}).status_code == 404
    assert game.post("/games/1/rounds/1/hands/1/readings/0",
                     {"action": "confirm"}).status_code == 404  # no photo for Ben
    bad = game.post("/games/1/rounds/1/hands/0/readings/0", {"action": "values", "a": "13",
                                                             "b": "2"})
    assert bad.status_code == 400 and "between 0 and 12" in bad.get_data(as_text=True)
    game.post("/lock")
    assert game.post("/games/1/rounds/1/hands/0/confirm").status_code == 403


def test_the_camera_refuses_a_table_that_never_settled(game: Table, app: Flask,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    from companion_app import attach_worker, store
    from companion_app.db import connect

    read: list[object] = []

    def read_photo(*args: object, **kw: object) -> tuple[list[PhotoTile], list[object]]:
        read.append(args)
        return tiles_from_json([{"values": [12, 5], "corners": [[0, 0], [9, 0], [9, 20], [0, 20]],
                                 "confidence": 0.9, "uncertain": False}]), []

    monkeypatch.setattr(hands, "models_status", lambda folder: None)
    monkeypatch.setattr(hands, "read_hand_photo", read_photo)
    jpeg = io.BytesIO()
    Image.new("RGB", (32, 24), (200, 10, 10)).save(jpeg, format="JPEG")

    attach_worker(app, StillCamera(jpeg.getvalue()), start=False)
    response = game.post("/games/1/rounds/1/hands/0/camera")
    assert response.status_code == 409
    text = response.get_data(as_text=True).replace("&#39;", "'")
    assert "The table never settled this round" in text and "nothing was read" in text
    assert read == []  # the frame was not read at all
    conn = connect(app.config["DATABASE"])
    try:
        assert store.hands(conn, 1, 1) == {} and store.scores(conn, 1) == {}
    finally:
        conn.close()
    settle(app, {"engine": 12, "trains": [{"owner": 0, "tiles": [[12, 5]], "marker": False}]})
    assert game.post("/games/1/rounds/1/hands/0/camera").status_code == 302
    assert len(read) == 1


def test_marks_survive_in_the_stored_readings() -> None:
    readings = tiles_from_json([
        {"values": [4, 6], "corners": [], "doubts": ["range"]},
        {"values": [1, 2], "corners": [], "doubts": ["maybe-not-tile"], "left_out": True},
        {"corners": [], "face_down": True}])
    # a tile face down is not in the points: the hand waits for a look too
    assert hand_check.open_doubts(readings) == [0, 1, 2]
    assert hand_check.hand_tiles(readings, [[0, 0]]) == [[4, 6], [0, 0]]
    fixed = hand_check.answer(readings, 1, values=(1, 3))
    assert hand_check.hand_tiles(fixed) == [[4, 6], [1, 3]]
    assert hand_check.open_doubts(fixed) == [0, 2]
    assert hand_check.open_doubts(hand_check.confirm_all(fixed)) == []
    assert hand_check.hand_tiles(hand_check.confirm_all(readings)) == [[4, 6]]  # as shown
    assert hand_check.hand_tiles(hand_check.answer(readings, 1)) == [[4, 6], [1, 2]]  # a tile
    with pytest.raises(IndexError):
        hand_check.answer(readings, 2)  # a tile face down is no box of the hand
    assert hand_check.marked_scores({(1, 0): readings, (1, 1): readings},
                                    {(1, 0): "hand", (1, 1): "pad"}) == {(1, 0)}


def test_a_tile_maybe_missed_marks_the_pad_until_it_is_counted(
        game: Table, plant: Callable[..., None]) -> None:
    """A faint box where no tile was read (``vision.stills.missed_tiles``): the hand is
    read without it, says so, and is marked; confirming the box counts its tile."""
    from dataclasses import replace

    from vision.stills.missed_tiles import MISSED_DOUBT

    missed = replace(grain(60), values=(0, 5), doubt=MISSED_DOUBT)
    plant([sure((3, 4), 0), missed])
    upload(game, png(120, 60))
    page = game.client.get("/games/1/rounds/1/hands").get_data(as_text=True)
    assert "1 tile(s) read; 1 place(s) that may hold a tile not read — check them." in page
    assert "may be a tile the reader missed: not counted" in page
    game.post("/games/1/rounds/1/hands/0/tiles", {"tile": ["3-4"], "reading": ["0"]})
    assert ">7</a>" in pad_cell(game) and "to-check" in pad_cell(game)
    game.post("/games/1/rounds/1/hands/0/readings/1", {"action": "confirm"})
    assert ">12</a>" in pad_cell(game) and "to-check" not in pad_cell(game)
