"""The game's photo of the bare table (``companion_app.bare_table``): taken once on the
hands page, shown there, replaced or dropped; every hand photo is read knowing it."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, abort, flash, redirect, request, url_for

from companion_app import bare_table
from companion_app import hands as hand_reading
from companion_app.security import pin_required
from companion_app.views.common import game_or_404

bp = Blueprint("bare_table", __name__, url_prefix="/games")


def _back(game_id: int) -> Any:
    number = request.form.get("round", type=int)
    if number is None:
        return redirect(url_for("scores.pad", game_id=game_id))
    return redirect(url_for("hands.page", game_id=game_id, number=number) + "#bare-table")


@bp.get("/<int:game_id>/bare-table")
def photo(game_id: int) -> Response:
    path = bare_table.path_of(game_or_404(game_id))
    if path is None:
        abort(404)
    mimetype = {v: k for k, v in bare_table.SUFFIXES.items()}.get(path.suffix, "image/jpeg")
    return Response(path.read_bytes(), mimetype=mimetype, headers={"Cache-Control": "no-cache"})


@bp.post("/<int:game_id>/bare-table")
@pin_required
def upload(game_id: int) -> Any:
    game = game_or_404(game_id)
    upload = request.files.get("photo")
    if upload is None or not upload.filename:
        flash("Choose or take a photo of the bare table first.")
        return _back(game.id)
    try:
        photo = hand_reading.check_photo(upload.read(), upload.filename)
    except hand_reading.HandError as exc:
        flash(str(exc))
        return _back(game.id)
    bare_table.keep(game, photo)
    flash("Photo of the bare table kept: every hand photo of this game is read knowing it.")
    return _back(game.id)


@bp.post("/<int:game_id>/bare-table/delete")
@pin_required
def delete(game_id: int) -> Any:
    game = game_or_404(game_id)
    bare_table.forget(game)
    flash("Photo of the bare table dropped.")
    return _back(game.id)
