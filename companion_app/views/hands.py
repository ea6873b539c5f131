"""End of a round: each hand from a photo (the table camera or the tablet's own),
drawn over the photo, corrected by hand, its penalty put on the score pad."""

from __future__ import annotations

from typing import Any

from flask import (
    Blueprint,
    Response,
    abort,
    current_app,
    flash,
    redirect,
    render_template,
    request,
    url_for,
)

from companion_app import hands as hand_reading
from companion_app import store
from companion_app.db import get_db
from companion_app.security import pin_required
from companion_app.views.common import game_or_404, round_or_404, worker

bp = Blueprint("hands", __name__, url_prefix="/games")


def _seat(game: store.Game, seat: int) -> int:
    if not 0 <= seat < game.seats:
        abort(404)
    return seat


def _page(game: store.Game, number: int, error: str | None = None,
          error_seat: int | None = None, status: int = 200) -> Any:
    db = get_db()
    stored = store.hands(db, game.id, number)
    previews: dict[int, int | None] = {}
    for seat, hand in stored.items():
        try:
            previews[seat] = hand_reading.points(hand["tiles"], game.rules)
        except ValueError:
            previews[seat] = None
    w = worker()
    camera = w is not None and w.has_camera
    return render_template(
        "hands.html", game=game, number=number, hands=stored, previews=previews,
        cells=store.scores(db, game.id), alerts=store.alerts(db, game.id, number),
        models_problem=hand_reading.models_status(current_app.config["MODELS_DIR"]),
        camera=camera, error=error, error_seat=error_seat,
    ), status


@bp.get("/<int:game_id>/rounds/<int:number>/hands")
def page(game_id: int, number: int) -> Any:
    game = game_or_404(game_id)
    return _page(game, round_or_404(game, number))


@bp.get("/<int:game_id>/rounds/<int:number>/hands/<int:seat>/photo")
def photo(game_id: int, number: int, seat: int) -> Response:
    game = game_or_404(game_id)
    found = store.hand_photo(get_db(), game.id, round_or_404(game, number), _seat(game, seat))
    if found is None:
        abort(404)
    data, mimetype = found
    return Response(data, mimetype=mimetype, headers={"Cache-Control": "no-cache"})


def _store_photo(game: store.Game, number: int, seat: int, photo: hand_reading.Photo) -> Any:
    problem = hand_reading.models_status(current_app.config["MODELS_DIR"])
    readings: list[dict[str, Any]] = []
    backs: list[list[list[float]]] = []
    note = problem
    if problem is None:
        try:
            readings, backs = hand_reading.read_hand_photo(
                photo, current_app.config["MODELS_DIR"], game.rules)
            face_down = len(backs)
            uncertain = sum(r["uncertain"] for r in readings)
            covered = sum(bool(r.get("covered")) for r in readings)
            note = (f"{len(readings)} tile(s) read" +
                    (f", {uncertain} uncertain" if uncertain else "") +
                    (f" ({covered} partly covered by a hand)" if covered else "") +
                    (" — check them" if uncertain else "") + "." +
                    (f" {face_down} tile(s) lie face down and were not counted: turn them"
                     " over and take the photo again." if face_down else ""))
        except hand_reading.HandError as exc:
            note = str(exc)
    tiles = [r["values"] for r in readings]  # out-of-set values show, and must be corrected
    # the backs are drawn on the photo after the tiles (the tiles keep their numbers)
    readings = readings + [{"corners": box, "face_down": True} for box in backs]
    store.save_hand_photo(get_db(), game.id, number, seat, photo=photo.data,
                          photo_type=photo.mimetype, size=(photo.width, photo.height),
                          readings=readings, tiles=tiles, note=note)
    flash(f"{game.players[seat]}: {note}" if note else f"{game.players[seat]}: photo kept.")
    return redirect(url_for("hands.page", game_id=game.id, number=number) + f"#seat-{seat}")


@bp.post("/<int:game_id>/rounds/<int:number>/hands/<int:seat>/photo")
@pin_required
def upload(game_id: int, number: int, seat: int) -> Any:
    game = game_or_404(game_id)
    number, seat = round_or_404(game, number), _seat(game, seat)
    upload = request.files.get("photo")
    if upload is None or not upload.filename:
        return _page(game, number, "Choose or take a photo of the hand first.", seat, 400)
    try:
        photo = hand_reading.check_photo(upload.read(), upload.filename)
    except hand_reading.HandError as exc:
        return _page(game, number, str(exc), seat, 400)
    return _store_photo(game, number, seat, photo)


@bp.post("/<int:game_id>/rounds/<int:number>/hands/<int:seat>/camera")
@pin_required
def from_camera(game_id: int, number: int, seat: int) -> Any:
    game = game_or_404(game_id)
    number, seat = round_or_404(game, number), _seat(game, seat)
    w = worker()
    frame = None if w is None else w.camera_still()
    if frame is None:
        return _page(game, number, "The table camera has no picture to read (the sim has "
                     "none, or no frame came yet); upload a photo instead.", seat, 409)
    try:
        photo = hand_reading.check_photo(frame, "camera")
    except hand_reading.HandError as exc:
        return _page(game, number, str(exc), seat, 409)
    return _store_photo(game, number, seat, photo)


@bp.post("/<int:game_id>/rounds/<int:number>/hands/<int:seat>/tiles")
@pin_required
def save_tiles(game_id: int, number: int, seat: int) -> Any:
    """The hand as corrected on the page; its points go onto the score pad."""
    game = game_or_404(game_id)
    number, seat = round_or_404(game, number), _seat(game, seat)
    texts = request.form.getlist("tile") + [request.form.get("more", "")]
    try:
        tiles = hand_reading.parse_tiles(texts, game.set_size)
    except hand_reading.HandError as exc:
        return _page(game, number, f"{game.players[seat]}: {exc}", seat, 400)
    db = get_db()
    store.save_hand_tiles(db, game.id, number, seat, tiles)
    value = hand_reading.points(tiles, game.rules)
    store.set_score(db, game.id, number, seat, value, "hand")
    flash(f"{game.players[seat]}: {len(tiles)} tile(s), {value} point(s) on the score pad.")
    return redirect(url_for("hands.page", game_id=game.id, number=number) + f"#seat-{seat}")
