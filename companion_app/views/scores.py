"""The score pad: one column per round, running totals, the winner, edits, CSV, a chart."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from flask import Blueprint, Response, flash, redirect, render_template, request, url_for

from companion_app import store
from companion_app.db import get_db
from companion_app.export import Cell, attachment, csv_text
from companion_app.rules import describe
from companion_app.security import pin_required
from companion_app.views.common import FormError, game_or_404, parse_int, round_or_404

bp = Blueprint("scores", __name__, url_prefix="/games")

MAX_POINTS = 5000
COLOURS = ("#e4572e", "#2e86ab", "#f3a712", "#4caf50", "#a23b72", "#7b6cf6", "#00a6a6", "#8d6e63")


@dataclass(frozen=True)
class Pad:
    """The score pad of a game, ready for the page and the CSV."""

    game: store.Game
    cells: dict[tuple[int, int], int]
    totals: list[int]
    running: list[list[int | None]]  # per seat, the total after each round (None: not yet)
    complete_rounds: int
    winners: list[int]
    finished: bool

    @property
    def positive(self) -> bool:
        return bool(self.game.rules.get("positive_scoring"))


def make_pad(game: store.Game) -> Pad:
    cells = store.scores(get_db(), game.id)
    totals = [sum(v for (r, s), v in cells.items() if s == seat) for seat in range(game.seats)]
    complete = [
        n for n in range(1, game.rounds + 1)
        if all((n, s) in cells for s in range(game.seats))
    ]
    last = max(complete, default=0)
    running: list[list[int | None]] = []
    for seat in range(game.seats):
        acc = 0
        row: list[int | None] = []
        for n in range(1, game.rounds + 1):
            if n <= last:
                acc += cells.get((n, seat), 0)
                row.append(acc)
            else:
                row.append(None)
        running.append(row)
    finished = len(complete) == game.rounds
    winners: list[int] = []
    if any(cells):
        best = max(totals) if game.rules.get("positive_scoring") else min(totals)
        winners = [s for s, t in enumerate(totals) if t == best]
    return Pad(game, cells, totals, running, len(complete), winners, finished)


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
    p = make_pad(game)
    history = store.score_history(get_db(), game.id)
    return render_template("pad.html", pad=p, chart=chart(p), history=history,
                           rules=describe(game.rules), colours=COLOURS, error=None)


@bp.get("/<int:game_id>/rounds/<int:number>/scores")
def round_form(game_id: int, number: int) -> str:
    game = game_or_404(game_id)
    round_or_404(game, number)
    cells = store.scores(get_db(), game.id)
    return render_template("round_scores.html", game=game, number=number, cells=cells,
                           form=None, error=None)


@bp.post("/<int:game_id>/rounds/<int:number>/scores")
@pin_required
def save_round(game_id: int, number: int) -> Any:
    """Enter (or correct) a round's points, one field per seat; changes are kept in history."""
    game = game_or_404(game_id)
    round_or_404(game, number)
    try:
        points = parse_round_scores(request.form, game)
    except FormError as exc:
        cells = store.scores(get_db(), game.id)
        return render_template("round_scores.html", game=game, number=number, cells=cells,
                               form=request.form, error=str(exc)), 400
    db = get_db()
    changed = 0
    for seat, value in points.items():
        changed += store.set_score(db, game.id, number, seat, value, "pad")
    if changed and number == game.current_round and number < game.rounds and all(
        (number, s) in store.scores(db, game.id) for s in range(game.seats)
    ):
        store.set_current_round(db, game, number + 1)
        from companion_app.views.common import notify_worker

        notify_worker()
        flash(f"Round {number} scored; round {number + 1} begins "
              f"(engine {game.engine_of(number + 1)}-{game.engine_of(number + 1)}).")
    else:
        flash(f"Round {number}: {changed} score(s) saved." if changed else
              f"Round {number}: nothing changed.")
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
        + ["total"]
    ]
    for seat, player in enumerate(game.players):
        row = [p.cells.get((n, seat), "") for n in range(1, game.rounds + 1)]
        rows.append([seat, player, *row, p.totals[seat]])
    return Response(csv_text(rows), mimetype="text/csv",
                    headers=attachment(game.name, f"-{game.id}-scores.csv", fallback="game"))


__all__ = ["FormError", "Pad", "bp", "chart", "make_pad"]
