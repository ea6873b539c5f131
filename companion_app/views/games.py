"""Games: the list of games kept, a new game, resuming one, moving to the next round."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, flash, redirect, render_template, request, url_for
from werkzeug.datastructures import MultiDict

from companion_app import rules, store
from companion_app.db import get_db
from companion_app.security import pin_required
from companion_app.views.common import FormError, game_or_404, notify_worker, parse_int

bp = Blueprint("games", __name__, url_prefix="/games")

MAX_SEATS = 8
MAX_NAME = 24


@bp.get("/")
def index() -> str:
    db = get_db()
    games = store.list_games(db)
    current = store.current_game(db)
    totals = {g.id: _totals(db, g) for g in games}
    return render_template("games.html", games=games, current=current, totals=totals)


def _totals(db: Any, game: store.Game) -> list[int]:
    pad = store.scores(db, game.id)
    return [sum(v for (r, s), v in pad.items() if s == seat) for seat in range(game.seats)]


def _form_context(form: MultiDict[str, str] | None = None) -> dict[str, Any]:
    presets = rules.presets()
    values = {name: rules.preset_values(name) for name in presets}
    return {
        "presets": presets,
        "preset_values": values,
        "rule_keys": rules.RULE_KEYS,
        "form": form or MultiDict(),
        "max_seats": MAX_SEATS,
    }


@bp.get("/new")
def new() -> str:
    return render_template("new_game.html", error=None, **_form_context())


@bp.post("/new")
@pin_required
def create() -> Any:
    form = request.form
    try:
        spec = parse_new_game(form)
    except FormError as exc:
        return render_template("new_game.html", error=str(exc), **_form_context(form)), 400
    store.create_game(get_db(), **spec)
    notify_worker()
    flash(f"New game {spec['name']!r} started: round 1, engine {spec['set_size']}-"
          f"{spec['set_size']}.")
    return redirect(url_for("live.index"))


def parse_new_game(form: MultiDict[str, str]) -> dict[str, Any]:
    """Validate the new-game form; :class:`FormError` names the first problem."""
    name = form.get("name", "").strip() or "Mexican Train"
    if len(name) > 60:
        raise FormError("Game name: at most 60 characters.")
    players = []
    for seat in range(MAX_SEATS):
        player = form.get(f"seat_{seat}", "").strip()
        if player:
            if len(player) > MAX_NAME:
                raise FormError(f"Seat {seat + 1}: a name of at most {MAX_NAME} characters.")
            players.append(player)
        elif any(form.get(f"seat_{later}", "").strip() for later in range(seat + 1, MAX_SEATS)):
            raise FormError(f"Seat {seat + 1} is empty: fill the seats in order, clockwise.")
    if len(players) < 2:
        raise FormError("Players: enter at least two names, one per seat.")
    if len({p.casefold() for p in players}) != len(players):
        raise FormError("Players: two seats have the same name; make them different.")
    preset = form.get("preset", "standard")
    overrides = {}
    for key in rules.RULE_KEYS:
        text = form.get(f"rule_{key.name}", "").strip()
        if text:
            if key.kind == "int":
                parse_int(text, key.label, low=key.minimum, high=key.maximum)
            elif key.kind == "choice" and text not in key.choices:
                raise FormError(f"{key.label}: choose one of {', '.join(key.choices)}.")
            elif key.kind == "bool" and text not in ("true", "false"):
                raise FormError(f"{key.label}: choose yes or no.")
            overrides[key.name] = text
    try:
        rule_json = rules.build_rules(preset, overrides)
    except rules.RuleError as exc:
        raise FormError(f"Rules: {exc}") from None
    set_size = int(rule_json["set"])
    full = set_size + 1
    text = form.get("rounds", "").strip()
    rounds = full if not text else parse_int(text, "Number of rounds", low=1, high=full)
    return {"name": name, "players": players, "rules": rule_json, "set_size": set_size,
            "rounds": rounds}


@bp.post("/<int:game_id>/resume")
@pin_required
def resume(game_id: int) -> Any:
    game = game_or_404(game_id)
    store.resume_game(get_db(), game.id)
    notify_worker()
    flash(f"Resumed {game.name!r} at round {game.current_round}.")
    return redirect(url_for("live.index"))


@bp.post("/<int:game_id>/round")
@pin_required
def set_round(game_id: int) -> Any:
    """Move the table to another round (the next one after scoring, usually)."""
    game = game_or_404(game_id)
    try:
        number = parse_int(request.form.get("round"), "Round", low=1, high=game.rounds)
    except FormError as exc:
        flash(str(exc), "error")
        return redirect(url_for("scores.pad", game_id=game.id)), 303
    store.set_current_round(get_db(), game, number)
    notify_worker()
    flash(f"Round {number} (engine {game.engine_of(number)}-{game.engine_of(number)}).")
    return redirect(url_for("live.index"))
