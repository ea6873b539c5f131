"""The score pad: one column per round, running totals, who won each round, the final
standings, edits (a typed score never silently replaces one counted from a hand), undo,
CSV, a chart."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any

from flask import Blueprint, Response, flash, redirect, render_template, request, url_for

from companion_app import changes, hand_check, replay, store
from companion_app.db import get_db
from companion_app.export import Cell, attachment, csv_text
from companion_app.rules import describe
from companion_app.score_pad import Pad, close_round, load_pad
from companion_app.security import pin_required
from companion_app.views.common import (
    FormError,
    game_or_404,
    notify_worker,
    parse_int,
    round_or_404,
)

bp = Blueprint("scores", __name__, url_prefix="/games")

MAX_POINTS = 5000
COLOURS = ("#e4572e", "#2e86ab", "#f3a712", "#4caf50", "#a23b72", "#7b6cf6", "#00a6a6", "#8d6e63")


def make_pad(game: store.Game) -> Pad:
    """The game's pad from the request's database."""
    return load_pad(get_db(), game)


def chart(pad: Pad, width: int = 640, height: int = 260) -> dict[str, Any]:
    """Polylines of the running totals, in an SVG viewBox of ``width`` × ``height``."""
    left, right, top, bottom = 44, 12, 12, 28
    rounds = pad.game.rounds
    values = [v for row in pad.running for v in row if v is not None]
    ticks_at = _nice_ticks(max(values, default=0) or 10)
    high = ticks_at[-1]
    step = (width - left - right) / max(rounds - 1, 1) if rounds > 1 else 0

    def x(n: int) -> float:
        return round(left + (n - 1) * step, 1)

    def y(v: int) -> float:
        return round(top + (height - top - bottom) * (1 - v / high), 1)

    lines = []
    for seat, row in enumerate(pad.running):
        points = [(x(n + 1), y(v)) for n, v in enumerate(row) if v is not None]
        lines.append({
            "name": pad.game.players[seat],
            "colour": COLOURS[seat % len(COLOURS)],
            "points": " ".join(f"{px},{py}" for px, py in points),
            "dots": points,
        })
    ticks = [(y(v), v) for v in ticks_at]
    xticks = [(x(n), n) for n in range(1, rounds + 1)]
    return {"width": width, "height": height, "lines": lines, "ticks": ticks,
            "xticks": xticks, "left": left, "bottom": height - bottom, "right": width - right}


def _nice_ticks(high: int) -> list[int]:
    """0, step, … up to the first multiple of a round step at or above ``high``."""
    for step in (5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 5000, 10000):
        if high / step <= 5:
            top = -(-high // step) * step
            return list(range(0, top + 1, step))
    return [0, high]


@bp.get("/<int:game_id>/pad")
def pad(game_id: int) -> str:
    game = game_or_404(game_id)
    db = get_db()
    p = make_pad(game)
    return render_template("pad.html", pad=p, chart=chart(p), to_check=to_check(db, p),
                           history=store.score_history(db, game.id),
                           undone=changes.undone_ids(db, game.id),
                           last_change=changes.last_change(db, game.id),
                           rules=describe(game.rules), colours=COLOURS, error=None,
                           replays=replay.rounds(db, game.id))


def to_check(db: sqlite3.Connection, pad: Pad) -> set[tuple[int, int]]:
    """The pad's (round, seat) scores counted from a hand photo whose doubtful readings
    nobody has checked yet (``hand_check``)."""
    return hand_check.marked_scores(store.hand_readings(db, pad.game.id), pad.sources)


def _round_page(game: store.Game, number: int, form: Any = None, error: str | None = None,
                conflicts: dict[int, int] | None = None, status: int = 200) -> Any:
    db = get_db()
    seat = request.args.get("seat", "")  # the tapped cell's seat gets the focus
    focus = int(seat) if seat.isascii() and seat.isdigit() else None
    return render_template(
        "round_scores.html", game=game, number=number, cells=store.scores(db, game.id),
        sources=store.score_sources(db, game.id), form=form, error=error,
        conflicts=conflicts or {}, focus=focus), status


@bp.get("/<int:game_id>/rounds/<int:number>/scores")
def round_form(game_id: int, number: int) -> Any:
    game = game_or_404(game_id)
    return _round_page(game, round_or_404(game, number))


@bp.post("/<int:game_id>/rounds/<int:number>/scores")
@pin_required
def save_round(game_id: int, number: int) -> Any:
    """Enter (or correct) a round's points, one field per seat; changes are kept in history.

    A typed value different from a score counted from the seat's hand is not saved
    unless its ``replace_<seat>`` box is ticked: the form comes back asking.
    """
    game = game_or_404(game_id)
    round_or_404(game, number)
    try:
        points = parse_round_scores(request.form, game)
    except FormError as exc:
        return _round_page(game, number, request.form, str(exc), status=400)
    db = get_db()
    conflicts = hand_conflicts(db, game, number, points, request.form)
    if conflicts:
        who = "; ".join(f"{game.players[s]}'s hand counts {old}, typed {points[s]}"
                        for s, old in conflicts.items())
        return _round_page(game, number, request.form, (
            f"Nothing saved yet: {who}. Tick “replace” to use the typed points, or put "
            "back the counted ones."), conflicts, 409)
    with changes.change(db, game.id, f"round {number} points") as log:
        changed = sum(store.set_score(db, game.id, number, seat, value, "pad", log)
                      for seat, value in points.items())
        done = close_round(db, game, number, log)
    if done is not None:
        notify_worker()
        flash(done)
    else:
        flash(f"Round {number}: {changed} score(s) saved." if changed else
              f"Round {number}: nothing changed.")
    return redirect(url_for("scores.pad", game_id=game.id))


def hand_conflicts(db: sqlite3.Connection, game: store.Game, number: int, points: dict[int, int],
                   form: Any) -> dict[int, int]:
    """Seats whose typed points would replace points counted from their hand, unticked:
    seat → the counted points."""
    cells = store.scores(db, game.id)
    sources = store.score_sources(db, game.id)
    return {
        seat: cells[(number, seat)] for seat, value in points.items()
        if sources.get((number, seat)) == "hand" and cells[(number, seat)] != value
        and not form.get(f"replace_{seat}")
    }


@bp.post("/<int:game_id>/undo")
@pin_required
def undo(game_id: int) -> Any:
    """Undo the game's last change (a round's points, a hand, a move of the table)."""
    game = game_or_404(game_id)
    undone = changes.undo_last(get_db(), game.id)
    if undone is None:
        flash("Nothing to undo.")
    else:
        notify_worker()
        flash(f"Undone: {undone.label}.")
    return redirect(url_for("scores.pad", game_id=game.id))


def parse_round_scores(form: Any, game: store.Game) -> dict[int, int]:
    out = {}
    for seat, player in enumerate(game.players):
        text = form.get(f"points_{seat}", "")
        if text is None or not str(text).strip():
            continue
        out[seat] = parse_int(str(text), f"{player}'s points", low=0, high=MAX_POINTS)
    if not out:
        raise FormError("Enter the points of at least one player (0 for who went out).")
    return out


@bp.get("/<int:game_id>/scores.csv")
def export_csv(game_id: int) -> Response:
    game = game_or_404(game_id)
    p = make_pad(game)
    rows: list[Sequence[Cell]] = [
        ["seat", "player"]
        + [f"round {n} ({game.engine_of(n)})" for n in range(1, game.rounds + 1)]
        + ["total", "to check"]
    ]
    marked = to_check(get_db(), p)
    for seat, player in enumerate(game.players):
        row = [p.cells.get((n, seat), "") for n in range(1, game.rounds + 1)]
        unconfirmed = " ".join(f"round {n}" for n in range(1, game.rounds + 1)
                               if (n, seat) in marked)
        rows.append([seat, player, *row, p.totals[seat], unconfirmed])
    return Response(csv_text(rows), mimetype="text/csv",
                    headers=attachment(game.name, f"-{game.id}-scores.csv", fallback="game"))


__all__ = ["FormError", "Pad", "bp", "chart", "hand_conflicts", "make_pad"]
