"""End of a round: each hand from a photo (the table camera or the tablet's own),
drawn over the photo, corrected by hand, its penalty put on the score pad. When the
last seat's hand is saved the round is done and the table moves on to the next one;
a tile read in two hands of the round is pointed out."""

from __future__ import annotations

import math
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

from companion_app import bare_table, changes, store
from companion_app import hands as hand_reading
from companion_app.camera_hand import split_hand
from companion_app.db import get_db
from companion_app.score_pad import close_round
from companion_app.security import pin_required
from companion_app.views.calibrate import profile_path
from companion_app.views.common import game_or_404, notify_worker, round_or_404, worker

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
        cells=store.scores(db, game.id), sources=store.score_sources(db, game.id),
        twice=tiles_in_two_hands(game, stored), alerts=store.alerts(db, game.id, number),
        overlays={seat: overlay(hand) for seat, hand in stored.items()},
        models_problem=hand_reading.models_status(current_app.config["MODELS_DIR"]),
        camera=camera, error=error, error_seat=error_seat,
        bare_table=bare_table.path_of(game) is not None,
    ), status


def overlay(hand: dict[str, Any]) -> list[dict[str, Any]]:
    """The boxes drawn over a hand's photo: ``points``, ``kind`` (``""``, ``"uncertain"``,
    ``"face-down"``, ``"on-table"``) and, for the hand's tiles, their number (``label``)
    centred in the box and sized to its short side, so that small tiles' numbers do not
    run into each other."""
    boxes = []
    number = 0
    for r in hand["readings"]:
        corners = [(float(x), float(y)) for x, y in r["corners"]]
        kind = ("face-down" if r.get("face_down") else "on-table" if r.get("on_table")
                else "uncertain" if r.get("uncertain") else "")
        label = ""
        if kind in ("", "uncertain"):
            number += 1
            label = str(number)
        short = min(math.dist(corners[i], corners[(i + 1) % 4]) for i in range(4))
        boxes.append({
            "points": " ".join(f"{x:.1f},{y:.1f}" for x, y in corners), "kind": kind,
            "label": label, "x": round(sum(x for x, _ in corners) / 4, 1),
            "y": round(sum(y for _, y in corners) / 4, 1),
            "size": round(max(min(0.6 * short, (hand["width"] or 600) / 16), 1.0), 1),
        })
    return boxes


def tiles_in_two_hands(game: store.Game, stored: dict[int, dict[str, Any]]
                       ) -> dict[str, list[str]]:
    """Tile text (``"5-7"``) → the players whose hands hold it, for every tile kept in more
    than one hand of the round (a set has one of each tile: one reading is wrong)."""
    holders: dict[str, list[str]] = {}
    for seat in sorted(stored):
        for a, b in stored[seat]["tiles"]:
            holders.setdefault(f"{min(a, b)}-{max(a, b)}", []).append(game.players[seat])
    return {tile: who for tile, who in holders.items() if len(set(who)) > 1}


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


def _read(game: store.Game, photo: hand_reading.Photo
          ) -> tuple[list[dict[str, Any]], list[list[list[float]]], str | None]:
    """The photo's tiles, the boxes of tiles face down, and why it was not read (or None)."""
    problem = hand_reading.models_status(current_app.config["MODELS_DIR"])
    if problem is not None:
        return [], [], problem
    try:
        bare = bare_table.path_of(game)  # the game's photo of the bare table, if taken
        readings, backs = hand_reading.read_hand_photo(
            photo, current_app.config["MODELS_DIR"], game.rules, profile_path(),
            **({} if bare is None else {"empty": bare}))
    except hand_reading.HandError as exc:
        return [], [], str(exc)
    return readings, backs, None


def _note(readings: list[dict[str, Any]], where: str = "") -> str:
    """``"3 tile(s) read, 1 uncertain — check them."``"""
    uncertain = sum(bool(r["uncertain"]) for r in readings)
    covered = sum(bool(r.get("covered")) for r in readings)
    return (f"{len(readings)} tile(s) read{where}" +
            (f", {uncertain} uncertain" if uncertain else "") +
            (f" ({covered} partly covered by a hand)" if covered else "") +
            (" — check them" if uncertain else "") + ".")


def _store_photo(game: store.Game, number: int, seat: int, photo: hand_reading.Photo,
                 readings: list[dict[str, Any]], drawn: list[dict[str, Any]],
                 note: str | None) -> Any:
    """Keep the photo with the hand's readings (``drawn``: more boxes shown over it)."""
    tiles = [r["values"] for r in readings]  # out-of-set values show, and must be corrected
    # the other boxes are drawn on the photo after the tiles (the tiles keep their numbers)
    store.save_hand_photo(get_db(), game.id, number, seat, photo=photo.data,
                          photo_type=photo.mimetype, size=(photo.width, photo.height),
                          readings=readings + drawn, tiles=tiles, note=note)
    flash(f"{game.players[seat]}: {note}" if note else f"{game.players[seat]}: photo kept.")
    return redirect(url_for("hands.page", game_id=game.id, number=number) + f"#seat-{seat}")


def _face_down(backs: list[list[list[float]]]) -> list[dict[str, Any]]:
    return [{"corners": box, "face_down": True} for box in backs]


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
    readings, backs, problem = _read(game, photo)
    note = problem or _note(readings)
    if backs:
        note += (f" {len(backs)} tile(s) lie face down and were not counted: turn them"
                 " over and take the photo again.")
    return _store_photo(game, number, seat, photo, readings, _face_down(backs), note)


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
    readings, _boneyard, problem = _read(game, photo)  # face down there: the boneyard
    split = split_hand(readings, players=game.seats, engine=game.engine_of(number),
                       settled=store.last_table(get_db(), game, number)[0])
    note = problem or (_note(split.hand, " beside the table") +
                       f" {len(split.table)} tile(s) on the hub and trains left out.")
    if split.groups > 1:
        note += (f" The tiles beside the table lie in {split.groups} groups: if more than one"
                 " hand lies face up, turn the others down and read again.")
    return _store_photo(game, number, seat, photo, split.hand, split.table, note)


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
    value = hand_reading.points(tiles, game.rules)
    with changes.change(db, game.id, f"{game.players[seat]}'s hand (round {number})") as log:
        store.save_hand_tiles(db, game.id, number, seat, tiles, log)
        store.set_score(db, game.id, number, seat, value, "hand", log)
        done = close_round(db, game, number, log)
    flash(f"{game.players[seat]}: {len(tiles)} tile(s), {value} point(s) on the score pad.")
    if done is not None:
        notify_worker()
        flash(done)
        return redirect(url_for("scores.pad", game_id=game.id))
    return redirect(url_for("hands.page", game_id=game.id, number=number) + f"#seat-{seat}")
