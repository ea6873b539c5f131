"""Helpers the blueprints share: the game of a URL, the worker, validation errors."""

from __future__ import annotations

import re
from typing import Any

from flask import abort, current_app

from companion_app import store
from companion_app.db import get_db

#: What a number field takes: ASCII digits, a sign at most.
WHOLE_NUMBER = re.compile(r"[+-]?[0-9]+")


class FormError(ValueError):
    """A form value that cannot be used; the message is shown above the form."""


def game_or_404(game_id: int) -> store.Game:
    game = store.get_game(get_db(), game_id)
    if game is None:
        abort(404)
    return game


def round_or_404(game: store.Game, number: int) -> int:
    if not 1 <= number <= game.rounds:
        abort(404)
    return number


def worker() -> Any:
    return current_app.extensions.get("mtrain_worker")


def notify_worker() -> None:
    w = worker()
    if w is not None:
        w.notify()


def parse_int(text: str | None, what: str, *, low: int, high: int) -> int:
    """An integer from a form field, or :class:`FormError` saying what is wrong."""
    if text is None or not text.strip():
        raise FormError(f"{what}: please enter a number.")
    if WHOLE_NUMBER.fullmatch(text.strip()) is None:  # int() also takes "١٢", "５", "1_000"
        raise FormError(f"{what}: {text.strip()!r} is not a whole number "
                        "(type it with the digits 0-9).")
    try:
        value = int(text.strip())
    except ValueError:
        raise FormError(f"{what}: {text.strip()!r} is not a whole number.") from None
    if not low <= value <= high:
        raise FormError(f"{what}: must be between {low} and {high}.")
    return value
