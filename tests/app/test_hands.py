"""End of round: hand photos (checked to be images, capped in size), corrections, points."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from flask import Flask
from PIL import Image

from companion_app import hands
from companion_app.photo_tiles import PhotoTile, tiles_from_json
from engine import RuleSet

from .tablet import StillCamera, Table, make_app


def png(width: int = 64, height: int = 48) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (width, height), (20, 120, 60)).save(out, format="PNG")
    return out.getvalue()


def same_pixels(a: bytes, b: bytes) -> bool:
    with Image.open(io.BytesIO(a)) as one, Image.open(io.BytesIO(b)) as two:
        return one.convert("RGB").tobytes() == two.convert("RGB").tobytes()


@pytest.fixture
def game(unlocked: Table) -> Table:
    unlocked.new_game(("Ann", "Ben"))
    return unlocked


def settle(app: Flask, table: dict[str, object], number: int = 1) -> None:
    """The round's table as the tracker settled it (game 1)."""
    from companion_app import store
    from companion_app.db import connect

    conn = connect(app.config["DATABASE"])
    try:
        game = store.get_game(conn, 1)
        assert game is not None
        store.save_table(conn, game, number, table, 0)
    finally:
        conn.close()


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
    assert photo.mimetype == "image/png"
    assert same_pixels(photo.data, png(80, 60))  # kept without its metadata

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
        ("５-７", "'５-７' is not a tile"),
        ("١-٢", "'١-٢' is not a tile"),
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

    def fake_read(photo: hands.Photo, folder: object, rules: object,
                  profile_path: object = None) -> tuple[list[PhotoTile], list[object]]:
        return tiles_from_json([
            {"values": [3, 4], "corners": [[1, 1], [9, 1], [9, 20], [1, 20]], "confidence": 0.9,
             "uncertain": False},
            {"values": [6, 6], "corners": [[20, 1], [29, 1], [29, 20], [20, 20]],
             "confidence": 0.4, "uncertain": True},
            {"values": [1, 2], "corners": [[30, 1], [39, 1], [39, 20], [30, 20]],
             "confidence": 0.9, "uncertain": True, "covered": True},
        ]), []

    monkeypatch.setattr(hands, "read_hand_photo", fake_read)
    upload(game, png(40, 30))
    page = game.client.get("/games/1/rounds/1/hands").get_data(as_text=True)
    assert "3 tile(s) read, 2 uncertain (1 partly covered by a hand) — check them." in page
    assert "face down" not in page
    thumb, full = page.split('<dialog class="hand-viewer"')
    full = full.split("</dialog>")[0]
    assert thumb.count("<polygon") == 3  # an uncertain tile: its polygon and its field marked
    assert page.count('class="uncertain"') == 4
    assert full.count("<polygon") == 3 and full.count('class="reading uncertain"') == 2
    assert 'value="3-4"' in page and 'value="6-6"' in page and 'value="1-2"' in page
    assert page.count("A hand covers part of this tile") == 1
    assert page.count("Read with doubt") == 1
    assert "<strong>22</strong> pts, not saved yet" in page


def test_tiles_face_down_are_named_and_not_counted(game: Table, monkeypatch: pytest.MonkeyPatch,
                                                   app: Flask) -> None:
    """A photo with tiles lying face down says so: they are not in the hand's points."""
    monkeypatch.setattr(hands, "models_status", lambda folder: None)

    def fake_read(photo: hands.Photo, folder: object, rules: object,
                  profile_path: object = None) -> tuple[list[PhotoTile], list[object]]:
        return tiles_from_json([{"values": [3, 4], "corners": [[1, 1], [9, 1], [9, 20], [1, 20]],
                                 "confidence": 0.9, "uncertain": False}]), [
            [[12, 1], [20, 1], [20, 20], [12, 20]], [[22, 1], [30, 1], [30, 20], [22, 20]]]

    monkeypatch.setattr(hands, "read_hand_photo", fake_read)
    upload(game, png(40, 30))
    page = game.client.get("/games/1/rounds/1/hands").get_data(as_text=True)
    assert ("1 tile(s) read. 2 tile(s) lie face down and were not counted: turn them over"
            " and take the photo again.") in page
    assert "<strong>7</strong> pts, not saved yet" in page
    thumb = page.split('<dialog class="hand-viewer"')[0]
    assert thumb.count('class="face-down"') == 2 and thumb.count("</text>") == 1  # no number
    assert 'value="3-4"' in page and page.count('name="tile"') == 1  # backs are no tiles


def test_a_hand_is_read_from_the_table_camera(game: Table, app: Flask) -> None:
    from companion_app import attach_worker

    jpeg = io.BytesIO()
    Image.new("RGB", (32, 24), (200, 10, 10)).save(jpeg, format="JPEG")

    attach_worker(app, StillCamera(jpeg.getvalue()), start=False)
    page = game.client.get("/games/1/rounds/1/hands").get_data(as_text=True)
    assert "Read from the table camera" in page
    settle(app, {"engine": 12, "trains": [{"owner": 0, "tiles": [[12, 5]], "marker": False}]})
    assert game.post("/games/1/rounds/1/hands/1/camera").status_code == 302
    photo = game.client.get("/games/1/rounds/1/hands/1/photo")
    assert photo.mimetype == "image/jpeg"
    assert Image.open(io.BytesIO(photo.data)).size == Image.open(jpeg).size


def test_a_hand_photo_is_read_for_the_game_s_set(monkeypatch: pytest.MonkeyPatch,
                                                 tmp_path: Path) -> None:
    """The reader is told the game's set: its top bounds the halves and the classifier."""
    import numpy as np

    import vision.stills.hand_photos
    from vision.models.detections import Detections
    from vision.readings import FrameReading, TileReading, TileReadings

    asked: list[int | None] = []

    class Reader:
        def for_set(self, top: int | None) -> object:
            asked.append(top)
            return self

    def read_hand(reader: object, path: object) -> FrameReading:
        corners = np.array([[0, 0], [10, 0], [10, 20], [0, 20]], np.float32)
        return FrameReading(TileReadings.of([TileReading((15, 2), corners, 0.9, False)]),
                            Detections.empty())

    monkeypatch.setitem(hands._readers, str(tmp_path.resolve()), Reader())
    monkeypatch.setattr(vision.stills.hand_photos, "read_hand", read_hand)
    photo = hands.check_photo(png(), "hand.png")
    tiles = hands.read_tiles(photo, tmp_path, RuleSet.preset("standard").with_values(set=15))
    assert asked == [15] and [t.values for t in tiles] == [(15, 2)]
    back = np.array([[30, 0], [40, 0], [40, 20], [30, 20]], np.float32)
    monkeypatch.setattr(vision.stills.hand_photos, "read_hand", lambda reader, path: FrameReading(
        TileReadings.of([TileReading((15, 2), back - [30, 0], 0.9, False)]), Detections.empty(),
        (20, 40),
        (back,)))
    tiles, backs = hands.read_hand_photo(photo, tmp_path,
                                         RuleSet.preset("standard").with_values(set=15))
    assert [t.values for t in tiles] == [(15, 2)]
    assert backs == [[[30.0, 0.0], [40.0, 0.0], [40.0, 20.0], [30.0, 20.0]]]


def test_saving_every_hand_ends_the_round(game: Table) -> None:
    """The last seat's hand saved: the round is done, the table moves on, the pad says so."""
    game.post("/games/1/rounds/1/hands/0/tiles", {"more": "12-12 11-12 0-0 5-6 6-6"})
    response = game.post("/games/1/rounds/1/hands/1/tiles", {"more": ""})
    assert response.status_code == 302 and response.location.endswith("/games/1/pad")
    page = game.client.get("/games/1/pad").get_data(as_text=True)
    assert "Round 1 done — Ben went out. Round 2 begins: engine 11-11." in page
    assert 'id="enter-round">Enter round 2<' in page and 'data-seat="0">120<' in page
    assert "11-11" in game.client.get("/").get_data(as_text=True)
    again = game.post("/games/1/rounds/1/hands/1/tiles", {"more": ""})  # saved twice: no news
    assert again.location.endswith("#seat-1")
    assert "Round 2 begins" not in game.client.get("/games/1/pad").get_data(as_text=True)


def test_a_typed_score_never_silently_replaces_a_counted_hand(game: Table) -> None:
    game.post("/games/1/rounds/1/hands/0/tiles", {"more": "12-12 11-12 0-0 5-6 6-6"})
    response = game.post("/games/1/rounds/1/scores", {"points_0": "0", "points_1": "9"})
    assert response.status_code == 409
    page = response.get_data(as_text=True).replace("&#39;", "'")
    assert "Nothing saved yet: Ann's hand counts 120, typed 0." in page
    assert 'name="replace_0"' in page and 'name="replace_1"' not in page
    assert 'value="0"' in page.split('name="points_0"')[1].split(">")[0]  # kept as typed
    pad = game.client.get("/games/1/pad").get_data(as_text=True)
    assert 'data-seat="0">120<' in pad and 'data-seat="1">0<' in pad

    game.post("/games/1/rounds/1/scores", {"points_0": "0", "points_1": "9", "replace_0": "1"})
    pad = game.client.get("/games/1/pad").get_data(as_text=True)
    assert 'data-seat="0">0<' in pad and 'data-seat="1">9<' in pad
    hands_page = game.client.get("/games/1/rounds/1/hands").get_data(as_text=True)
    assert "the pad has <strong>0</strong> (typed); this hand counts <strong>120</strong>" in (
        hands_page)


def test_undoing_a_hand_puts_back_its_tiles_and_the_round(game: Table) -> None:
    game.post("/games/1/rounds/1/hands/0/tiles", {"more": "3-4"})
    game.post("/games/1/rounds/1/hands/1/tiles", {"more": "1-2"})
    pad = game.client.get("/games/1/pad").get_data(as_text=True).replace("&#39;", "'")
    assert "Undo Ben's hand (round 1)" in pad
    game.post("/games/1/undo")
    page = game.client.get("/games/1/rounds/1/hands").get_data(as_text=True)
    assert 'value="3-4"' in page and 'value="1-2"' not in page
    assert "12-12" in game.client.get("/").get_data(as_text=True)  # back at round 1


def test_a_tile_read_in_two_hands_is_flagged(game: Table) -> None:
    game.post("/games/1/rounds/1/hands/0/tiles", {"more": "5-7 1-2"})
    page = game.client.get("/games/1/rounds/1/hands").get_data(as_text=True)
    assert 'id="twice"' not in page
    game.post("/games/1/rounds/1/hands/1/tiles", {"more": "7-5 3-3"})
    page = game.client.get("/games/1/rounds/1/hands").get_data(as_text=True).replace("&#39;", "'")
    assert "Read in two hands: <strong>5-7</strong> (Ann, Ben)." in page
    assert page.count('class=" twice"') == 2  # the two fields, nothing else
    other_round = game.client.get("/games/1/rounds/2/hands").get_data(as_text=True)
    assert 'id="twice"' not in other_round


def test_number_labels_fit_inside_small_tiles() -> None:
    from companion_app.store import StoredHand
    from companion_app.views.hands import overlay

    small = [[[x, 10], [x + 12, 10], [x + 12, 34], [x, 34]] for x in (0, 13, 26)]
    readings = tiles_from_json([{"values": [1, 2], "corners": c, "uncertain": False}
                                for c in small]
                               + [{"corners": [[50, 10], [62, 10], [62, 34], [50, 34]],
                                   "face_down": True}])
    boxes = overlay(StoredHand(has_photo=True, width=4000, height=3000,
                               readings=tuple(readings), tiles=[[1, 2]] * 3, note=None))
    assert [b["label"] for b in boxes] == ["1", "2", "3", ""]
    for b, corners in zip(boxes, small, strict=False):
        # no wider than the tile: neighbours' labels do not meet
        assert b["size"] <= 0.6 * 12 + 0.05
        assert corners[0][0] < b["x"] < corners[1][0] and 10 < b["y"] < 34
    assert boxes[3]["kind"] == "face-down"


def test_the_table_camera_reads_only_the_hand(game: Table, app: Flask,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """A camera frame holds the whole table and a hand beside it: only the hand is read."""
    import numpy as np

    from companion_app import attach_worker
    from datasets.table_layout import layout_table, overhead_homography, seen_tiles
    from engine import TableState, Train

    table = TableState(12, (Train(0, ((12, 5), (5, 9), (9, 9), (9, 1))),
                            Train(1, ((12, 3), (3, 3), (3, 8), (8, 11))),
                            Train("mexican", ((12, 7), (7, 0), (0, 10)))))
    rng = np.random.default_rng(4)
    layout = layout_table(table, 2, rng)
    to_image = overhead_homography(rng=rng)
    seen, _ = seen_tiles(layout, to_image, rng)
    readings = tiles_from_json([{"values": list(t.values), "corners": t.corners.tolist(),
                                 "confidence": 0.9, "uncertain": False} for t in seen])
    hand = [(2, 6), (4, 10), (0, 0)]  # laid in a row in a corner of the frame
    readings += tiles_from_json([{"values": list(v), "corners": [[20 + 30 * i, 20],
                                                                 [44 + 30 * i, 20],
                                                                 [44 + 30 * i, 68],
                                                                 [20 + 30 * i, 68]],
                                  "confidence": 0.9, "uncertain": False}
                                 for i, v in enumerate(hand)])
    monkeypatch.setattr(hands, "models_status", lambda folder: None)
    monkeypatch.setattr(hands, "read_hand_photo",
                        lambda photo, folder, rules, profile_path=None: (readings, []))

    attach_worker(app, StillCamera(png(1280, 720)), start=False)
    early = TableState(12, tuple(Train(t.owner, t.tiles[:1]) for t in table.trains))
    settle(app, early.to_json())  # settled before the last tiles were laid
    game.post("/games/1/rounds/1/hands/0/camera")
    page = game.client.get("/games/1/rounds/1/hands").get_data(as_text=True)
    assert "3 tile(s) read beside the table. 12 tile(s) on the hub and trains left out." in page
    fields = page.split('id="seat-0"')[1].split('id="seat-1"')[0]
    assert fields.count('name="tile"') == 3
    assert 'value="2-6"' in fields and 'value="4-10"' in fields and 'value="0-0"' in fields
    assert "<strong>72</strong> pts, not saved yet" in fields  # 8 + 14 + 50, no table tile
    assert fields.count('class="on-table"') == 12


def test_a_settled_table_s_tiles_are_never_a_hand_s() -> None:
    from companion_app.camera_hand import split_hand

    readings = tiles_from_json([
        {"values": [5, 12], "corners": [[0, 0], [20, 0], [20, 40], [0, 40]]},
        {"values": [1, 2], "corners": [[400, 0], [420, 0], [420, 40], [400, 40]]}])
    settled = {"engine": 12, "trains": [{"owner": 0, "tiles": [[12, 5]], "marker": False}]}
    split = split_hand(readings, players=2, engine=11, settled=settled)
    assert [r.values for r in split.hand] == [(1, 2)]
    assert [r.values for r in split.table] == [(5, 12)] and split.table[0].on_table


def test_hands_laid_out_together_are_pointed_out() -> None:
    from companion_app.camera_hand import split_hand

    def tile(x: float, y: float, values: list[int]) -> PhotoTile:
        return PhotoTile.from_json({"values": values, "corners": [[x, y], [x + 20, y],
                                                                  [x + 20, y + 40], [x, y + 40]]})

    one_hand = [tile(500 + 24 * i, 300, [1, i]) for i in range(4)]
    assert split_hand(one_hand, players=2, engine=12).groups == 1
    two_hands = one_hand + [tile(100 + 24 * i, 40, [2, i + 3]) for i in range(3)]
    assert split_hand(two_hands, players=2, engine=12).groups == 2
    assert split_hand([], players=2, engine=12).groups == 0


def test_a_hand_s_double_is_not_taken_for_the_table() -> None:
    """Without the round's engine in view, a double and the tiles beside it stay the hand's."""
    from companion_app.camera_hand import split_hand

    readings = tiles_from_json([
        {"values": [5, 5], "corners": [[100, 100], [140, 100], [140, 120], [100, 120]]},
        {"values": [5, 3], "corners": [[140, 100], [180, 100], [180, 120], [140, 120]]},
        {"values": [3, 9], "corners": [[180, 100], [220, 100], [220, 120], [180, 120]]}])
    split = split_hand(readings, players=3, engine=12)
    assert len(split.hand) == 3 and split.table == [] and split.groups == 1
