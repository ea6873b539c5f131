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

from companion_app import alert_log, bare_table, changes, hand_check, store
from companion_app import hands as hand_reading
from companion_app.camera_hand import split_hand
from companion_app.db import get_db
from companion_app.photo_privacy import without_metadata
from companion_app.photo_tiles import PhotoTile
from companion_app.score_pad import close_round
from companion_app.security import AccessError, is_unlocked, pin_required
from companion_app.views.calibrate import profile_path
from companion_app.views.common import (
    FormError,
    game_or_404,
    notify_worker,
    parse_int,
    round_or_404,
    worker,
)

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
            previews[seat] = hand_reading.points(hand.tiles, game.rules)
        except ValueError:
            previews[seat] = None
    w = worker()
    camera = w is not None and w.has_camera
    return render_template(
        "hands.html", game=game, number=number, hands=stored, previews=previews,
        cells=store.scores(db, game.id), sources=store.score_sources(db, game.id),
        twice=tiles_in_two_hands(game, stored),
        alerts=[a.to_json(game.players) for a in alert_log.alerts(db, game.id, number)],
        overlays={seat: overlay(hand) for seat, hand in stored.items()},
        slots={seat: tile_slots(hand) for seat, hand in stored.items()},
        to_check={seat: hand_check.open_doubts(hand.readings) for seat, hand in stored.items()},
        models_problem=hand_reading.models_status(current_app.config["MODELS_DIR"]),
        camera=camera, error=error, error_seat=error_seat,
        bare_table=bare_table.path_of(game) is not None,
    ), status


def overlay(hand: store.StoredHand) -> list[dict[str, Any]]:
    """The boxes drawn over a hand's photo: ``points``, ``kind`` (``""``, ``"uncertain"``:
    doubted and not yet checked, ``"checked"``: doubted and answered, ``"left-out"``: may
    not be a tile, not counted, ``"not-tile"``, ``"face-down"``, ``"on-table"``) and, for
    the hand's counted tiles, their number (``label``) centred in the box and sized to its
    short side, so that small tiles' numbers do not run into each other. The full-size
    view also shows each box's reading (``index`` into the readings, ``text``: ``"5-7"``,
    ``why``: its doubts in words)."""
    boxes = []
    number = 0
    waiting = set(hand_check.open_doubts(hand.readings))
    for i, r in enumerate(hand.readings):
        corners = list(r.corners)
        kind = ("face-down" if r.face_down else "on-table" if r.on_table
                else "not-tile" if r.not_tile
                else "left-out" if not hand_check.counts(r)
                else "uncertain" if i in waiting
                else "checked" if hand_check.doubts(r) else "")
        label = ""
        if hand_check.counts(r):
            number += 1
            label = str(number)
        short = min(math.dist(corners[i], corners[(i + 1) % 4]) for i in range(4))
        boxes.append({
            "points": " ".join(f"{x:.1f},{y:.1f}" for x, y in corners), "kind": kind,
            "label": label, "x": round(sum(x for x, _ in corners) / 4, 1),
            "y": round(sum(y for _, y in corners) / 4, 1),
            "size": round(max(min(0.6 * short, (hand.width or 600) / 16), 1.0), 1),
            "index": i, "box": hand_check.is_box(r), "text": r.text,
            "why": hand_check.doubt_words(r), "counted": hand_check.counts(r),
        })
    return boxes


def tile_slots(hand: store.StoredHand) -> list[int | None]:
    """For each of the hand's tiles, the index of the photo box it was read from (None:
    typed beside the photo)."""
    boxes = [i for i, r in enumerate(hand.readings) if hand_check.counts(r)]
    return [boxes[k] if k < len(boxes) else None for k in range(len(hand.tiles))]


def tiles_in_two_hands(game: store.Game, stored: dict[int, store.StoredHand]
                       ) -> dict[str, list[str]]:
    """Tile text (``"5-7"``) → the players whose hands hold it, for every tile kept in more
    than one hand of the round (a set has one of each tile: one reading is wrong)."""
    holders: dict[str, list[str]] = {}
    for seat in sorted(stored):
        for a, b in stored[seat].tiles:
            holders.setdefault(f"{min(a, b)}-{max(a, b)}", []).append(game.players[seat])
    return {tile: who for tile, who in holders.items() if len(set(who)) > 1}


@bp.get("/<int:game_id>/rounds/<int:number>/hands")
def page(game_id: int, number: int) -> Any:
    game = game_or_404(game_id)
    return _page(game, round_or_404(game, number))


@bp.get("/<int:game_id>/rounds/<int:number>/hands/<int:seat>/photo")
def photo(game_id: int, number: int, seat: int) -> Response:
    """A hand's photo: only for a device that holds the table's PIN."""
    if not is_unlocked():
        raise AccessError(403, "Hand photos are shown only on a device unlocked with the "
                          "table's PIN.")
    game = game_or_404(game_id)
    found = store.hand_photo(get_db(), game.id, round_or_404(game, number), _seat(game, seat))
    if found is None:
        abort(404)
    data, mimetype = found
    return Response(data, mimetype=mimetype,
                    headers={"Cache-Control": "private, no-store"})


def _read(game: store.Game, photo: hand_reading.Photo
          ) -> tuple[list[PhotoTile], list[list[list[float]]], str | None]:
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


def _note(readings: list[PhotoTile], where: str = "") -> str:
    """``"3 tile(s) read, 1 uncertain — check them."``"""
    counted = [r for r in readings if hand_check.counts(r)]
    uncertain = sum(bool(hand_check.doubts(r)) for r in counted)
    covered = sum(r.covered for r in counted)
    out = [r for r in readings if hand_check.is_box(r) and not hand_check.counts(r)]
    if not counted and not out:
        return (f"No tile was found{where}: check the photo, and type the hand's tiles in "
                "or take the photo again.")
    missed = sum("maybe-missed" in r.doubts for r in out)
    left = len(out) - missed
    return (f"{len(counted)} tile(s) read{where}" +
            (f", {uncertain} uncertain" if uncertain else "") +
            (f" ({covered} partly covered by a hand)" if covered else "") +
            (f"; {left} box(es) that may not be tiles left out" if left else "") +
            (f"; {missed} place(s) that may hold a tile not read" if missed else "") +
            (" — check them" if uncertain or out else "") + ".")


def _store_photo(game: store.Game, number: int, seat: int, photo: hand_reading.Photo,
                 readings: list[PhotoTile], drawn: list[PhotoTile],
                 note: str | None) -> Any:
    """Keep the photo with the hand's readings (``drawn``: more boxes shown over it)."""
    tiles = hand_check.hand_tiles(readings)  # out-of-set values show, and must be corrected
    try:
        photo = without_metadata(photo)  # no GPS, serials or dates kept
    except hand_reading.HandError as exc:
        return _page(game, number, f"{game.players[seat]}: {exc}", seat, 400)
    # the other boxes are drawn on the photo after the tiles (the tiles keep their numbers)
    store.save_hand_photo(get_db(), game.id, number, seat, photo=photo.data,
                          photo_type=photo.mimetype, size=(photo.width, photo.height),
                          readings=readings + drawn, tiles=tiles, note=note)
    flash(f"{game.players[seat]}: {note}" if note else f"{game.players[seat]}: photo kept.")
    return redirect(url_for("hands.page", game_id=game.id, number=number) + f"#seat-{seat}")


def _face_down(backs: list[list[list[float]]]) -> list[PhotoTile]:
    return [PhotoTile.face_down_at(box) for box in backs]


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
    settled = store.last_table(get_db(), game, number)[0]
    if settled is None:  # nothing tells the table's tiles from a hand's: none entered
        return _page(game, number, "The table never settled this round, so the camera cannot "
                     "tell the table's tiles from a hand's: nothing was read. Upload a photo "
                     "of the hand instead.", seat, 409)
    try:
        photo = hand_reading.check_photo(frame, "camera")
    except hand_reading.HandError as exc:
        return _page(game, number, str(exc), seat, 409)
    readings, _boneyard, problem = _read(game, photo)  # face down there: the boneyard
    split = split_hand(readings, players=game.seats, engine=game.engine_of(number),
                       settled=settled)
    note = problem or (_note(split.hand, " beside the table") +
                       f" {len(split.table)} tile(s) on the hub and trains left out.")
    if split.groups > 1:
        note += (f" The tiles beside the table lie in {split.groups} groups: if more than one"
                 " hand lies face up, turn the others down and read again.")
    return _store_photo(game, number, seat, photo, split.hand, split.table, note)


def _fields(texts: list[str], refs: list[str], set_size: int
            ) -> tuple[list[tuple[int, list[int]]], list[list[int]]]:
    """The page's tile fields: (photo box index, the tile typed in its field: ``[]`` when
    cleared) for each field read from the photo, and the tiles typed beside them."""
    answers: list[tuple[int, list[int]]] = []
    typed: list[list[int]] = []
    for k, text in enumerate(texts):
        ref = refs[k] if len(refs) == len(texts) else ""
        tiles = hand_reading.parse_tiles([text], set_size)
        if ref.isascii() and ref.isdigit():
            answers.append((int(ref), tiles[0] if tiles else []))
            typed += tiles[1:]
        else:
            typed += tiles
    return answers, typed


@bp.post("/<int:game_id>/rounds/<int:number>/hands/<int:seat>/tiles")
@pin_required
def save_tiles(game_id: int, number: int, seat: int) -> Any:
    """The hand as corrected on the page; its points go onto the score pad. A tile field
    changed from its reading corrects that box (a field cleared: not a tile). Until every
    doubted box is answered (here or on the photo) the pad marks the score."""
    game = game_or_404(game_id)
    number, seat = round_or_404(game, number), _seat(game, seat)
    texts = request.form.getlist("tile")
    more = request.form.get("more", "")
    try:
        hand_reading.parse_tiles(texts + [more], game.set_size)  # every field, checked together
        answers, typed = _fields(texts, request.form.getlist("reading"), game.set_size)
        typed += hand_reading.parse_tiles([more], game.set_size)
    except hand_reading.HandError as exc:
        return _page(game, number, f"{game.players[seat]}: {exc}", seat, 400)
    db = get_db()
    stored = store.hands(db, game.id, number).get(seat)
    readings: list[PhotoTile] = list(stored.readings) if stored else []
    if len(request.form.getlist("reading")) == len(texts):
        readings = hand_check.apply_fields(readings, answers)
        tiles = hand_check.hand_tiles(readings, typed)
    else:  # fields not tied to the photo's boxes: the hand is the tiles as typed
        tiles = typed
    value = hand_reading.points(tiles, game.rules)
    with changes.change(db, game.id, f"{game.players[seat]}'s hand (round {number})") as log:
        store.save_hand_tiles(db, game.id, number, seat, tiles, log)
        if stored is not None:
            store.save_hand_readings(db, game.id, number, seat, readings, log)
        store.set_score(db, game.id, number, seat, value, "hand", log)
        done = close_round(db, game, number, log)
    check = (" Marked for checking: some tiles were read with doubt."
             if hand_check.open_doubts(readings) else "")
    flash(f"{game.players[seat]}: {len(tiles)} tile(s), {value} point(s) on the score pad.{check}")
    if done is not None:
        notify_worker()
        flash(done)
        return redirect(url_for("scores.pad", game_id=game.id))
    return redirect(url_for("hands.page", game_id=game.id, number=number) + f"#seat-{seat}")


def _answer(game: store.Game, number: int, seat: int, index: int | None) -> Any:
    """Apply the full-size view's answer for box ``index`` (None: every doubted box
    confirmed); the hand's tiles follow, and so does its score when the pad has it."""
    db = get_db()
    stored = store.hands(db, game.id, number).get(seat)
    if stored is None or not stored.readings:
        abort(404)
    readings = list(stored.readings)
    typed = hand_check.extras(readings, stored.tiles)
    action = request.form.get("action", "confirm")
    try:
        if index is None:
            readings = hand_check.confirm_all(readings)
        elif action == "not-tile":
            readings = hand_check.answer(readings, index, not_tile=True)
        elif action == "values":
            a = parse_int(request.form.get("a"), "first half", low=0, high=game.set_size)
            b = parse_int(request.form.get("b"), "second half", low=0, high=game.set_size)
            readings = hand_check.answer(readings, index, values=(a, b))
        else:
            readings = hand_check.answer(readings, index)
    except IndexError:
        abort(404)
    except FormError as exc:
        return _page(game, number, f"{game.players[seat]}: {exc}", seat, 400)
    tiles = hand_check.hand_tiles(readings, typed)
    value = hand_reading.points(tiles, game.rules)
    on_pad = store.score_sources(db, game.id).get((number, seat)) == "hand"
    with changes.change(db, game.id, f"{game.players[seat]}'s hand (round {number})") as log:
        store.save_hand_tiles(db, game.id, number, seat, tiles, log)
        store.save_hand_readings(db, game.id, number, seat, readings, log)
        if on_pad:  # the pad follows the corrected hand
            store.set_score(db, game.id, number, seat, value, "hand", log)
    left = len(hand_check.open_doubts(readings))
    flash(f"{game.players[seat]}: {value} point(s)" + (" on the score pad" if on_pad else "")
          + (f"; {left} reading(s) still to check." if left else "; every reading checked."))
    return redirect(url_for("hands.page", game_id=game.id, number=number, view=seat)
                    + f"#seat-{seat}")


@bp.post("/<int:game_id>/rounds/<int:number>/hands/<int:seat>/readings/<int:index>")
@pin_required
def answer_reading(game_id: int, number: int, seat: int, index: int) -> Any:
    """One box of the photo answered: ``action`` ``values`` (with ``a`` and ``b``),
    ``not-tile`` or ``confirm`` (right as read)."""
    game = game_or_404(game_id)
    return _answer(game, round_or_404(game, number), _seat(game, seat), index)


@bp.post("/<int:game_id>/rounds/<int:number>/hands/<int:seat>/confirm")
@pin_required
def confirm(game_id: int, number: int, seat: int) -> Any:
    """Every doubted box of the photo checked and right as it stands."""
    game = game_or_404(game_id)
    return _answer(game, round_or_404(game, number), _seat(game, seat), None)
