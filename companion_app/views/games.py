"""Games: the list of games kept (the one played last first), a new game (or another with
the same players), renaming, deleting, resuming one, moving the table to another round."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from flask import Blueprint, flash, redirect, render_template, request, url_for
from werkzeug.datastructures import MultiDict

from companion_app import changes, rules, store
from companion_app.db import get_db
from companion_app.names import NameProblem, clean_name, is_blank, same_name
from companion_app.score_pad import load_pad
from companion_app.security import pin_required
from companion_app.views.common import FormError, game_or_404, notify_worker, parse_int
from engine import RuleSet

bp = Blueprint("games", __name__, url_prefix="/games")

MAX_SEATS = 8
MAX_NAME = 24
MAX_GAME_NAME = 60


@bp.get("/")
def index() -> str:
    db = get_db()
    games = store.list_games(db)
    current = store.current_game(db)
    pads = {g.id: load_pad(db, g) for g in games}
    return render_template("games.html", games=games, current=current, pads=pads)


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
    store.create_game(get_db(), name=spec.name, players=spec.players, rules=spec.rules,
                      rounds=spec.rounds)
    notify_worker()
    top = spec.rules.set
    flash(f"New game {spec.name!r} started: round 1, engine {top}-{top}.")
    return redirect(url_for("live.index"))


@dataclass(frozen=True)
class NewGame:
    """What the new-game form asks for, checked."""

    name: str
    players: tuple[str, ...]
    rules: RuleSet
    rounds: int


def parse_new_game(form: MultiDict[str, str]) -> NewGame:
    """Validate the new-game form; :class:`FormError` names the first problem."""
    text = form.get("name", "")
    name = "Mexican Train" if is_blank(text) else game_name(text)
    players = parse_players(form)
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
        rule_set = rules.build_rules(preset, overrides)
    except rules.RuleError as exc:
        raise FormError(f"Rules: {exc}") from None
    full = rule_set.set + 1
    text = form.get("rounds", "").strip()
    rounds = full if not text else parse_int(text, "Number of rounds", low=1, high=full)
    return NewGame(name, tuple(players), rule_set, rounds)


def game_name(text: str) -> str:
    try:
        return clean_name(text, "Game name", limit=MAX_GAME_NAME)
    except NameProblem as exc:
        raise FormError(str(exc)) from None


def parse_players(form: MultiDict[str, str]) -> list[str]:
    """The seats' names in order; each must show something, no two alike."""
    players: list[str] = []
    for seat in range(MAX_SEATS):
        text = form.get(f"seat_{seat}", "")
        if is_blank(text):
            if any(not is_blank(form.get(f"seat_{later}", ""))
                   for later in range(seat + 1, MAX_SEATS)):
                raise FormError(f"Seat {seat + 1} is empty: fill the seats in order, clockwise.")
            continue
        try:
            players.append(clean_name(text, f"Seat {seat + 1}", limit=MAX_NAME))
        except NameProblem as exc:
            raise FormError(str(exc)) from None
    if len(players) < 2:
        raise FormError("Players: enter at least two names, one per seat.")
    for i, player in enumerate(players):
        if any(same_name(player, other) for other in players[:i]):
            raise FormError("Players: two seats have the same name; make them different.")
    return players


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
    """Move the table to another round (the pad does it when a round is done)."""
    game = game_or_404(game_id)
    try:
        number = parse_int(request.form.get("round"), "Round", low=1, high=game.rounds)
    except FormError as exc:
        flash(str(exc), "error")
        return redirect(url_for("scores.pad", game_id=game.id)), 303
    db = get_db()
    with changes.change(db, game.id, f"moving the table to round {number}") as log:
        store.set_current_round(db, game, number, log)
    notify_worker()
    flash(f"Round {number} (engine {game.engine_of(number)}-{game.engine_of(number)}).")
    return redirect(url_for("live.index"))


@bp.post("/<int:game_id>/rename")
@pin_required
def rename(game_id: int) -> Any:
    game = game_or_404(game_id)
    try:
        name = game_name(request.form.get("name", ""))
    except FormError as exc:
        flash(str(exc), "error")
        return redirect(url_for("games.index")), 303
    store.rename_game(get_db(), game.id, name)
    flash(f"{game.name!r} is now called {name!r}.")
    return redirect(url_for("games.index"))


@bp.get("/<int:game_id>/delete")
def confirm_delete(game_id: int) -> str:
    """Deleting asks first, showing what would be lost."""
    game = game_or_404(game_id)
    db = get_db()
    return render_template("delete_game.html", game=game, totals=_totals(db, game),
                           entries=len(store.score_history(db, game.id)))


@bp.post("/<int:game_id>/delete")
@pin_required
def delete(game_id: int) -> Any:
    game = game_or_404(game_id)
    if request.form.get("confirm") != "yes":
        return redirect(url_for("games.confirm_delete", game_id=game.id))
    db = get_db()
    store.delete_game(db, game.id)
    # the log's copies of its pages (photos among them) go too
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    notify_worker()
    flash(f"Game {game.name!r} deleted.")
    return redirect(url_for("games.index"))


@bp.post("/<int:game_id>/again")
@pin_required
def again(game_id: int) -> Any:
    """A new game with the same players, seats, rules and number of rounds."""
    game = game_or_404(game_id)
    store.create_game(get_db(), name=game.name, players=game.players, rules=game.rules,
                      rounds=game.rounds)
    notify_worker()
    flash(f"New game {game.name!r} with {', '.join(game.players)}: round 1, engine "
          f"{game.set_size}-{game.set_size}.")
    return redirect(url_for("live.index"))
