"""Any round's replay as a page of its own: its settled tables scrubbed through, with the
alerts raised on each (reached from the score pad; the data is ``/api/.../replay``)."""

from __future__ import annotations

from flask import Blueprint, render_template

from companion_app import replay
from companion_app.db import get_db
from companion_app.views.common import game_or_404, round_or_404

bp = Blueprint("round_replay", __name__, url_prefix="/games")


@bp.get("/<int:game_id>/rounds/<int:number>/replay")
def page(game_id: int, number: int) -> str:
    game = game_or_404(game_id)
    number = round_or_404(game, number)
    kept = replay.rounds(get_db(), game.id)
    return render_template("round_replay.html", game=game, number=number, kept=kept,
                           frames=kept.get(number, 0))
