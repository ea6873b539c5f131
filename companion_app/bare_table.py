"""A photo of the bare table, taken once per game and used for every hand photo.

The score-from-photo page offers it once (``views.bare_table``): the cloth,
the mat, whatever lies on the table, with no tile on it. Each hand photo of
the game is then read knowing its table (``vision.stills.bare_photo``): boxes the
reader finds on table as bare as in this photo (the cloth's pattern, a printed
picture of a domino) are not tiles. The photo is a file beside the database,
named after the game and when it was created (a later game never takes an
earlier one's photo).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from flask import current_app

from companion_app import store
from companion_app.hands import Photo

SUFFIXES = {"image/png": ".png", "image/jpeg": ".jpg", "image/webp": ".webp",
            "image/bmp": ".bmp"}


def folder() -> Path:
    """Where the bare-table photos are kept: ``bare-tables/`` beside the database."""
    return Path(os.path.dirname(os.path.abspath(current_app.config["DATABASE"]))) / "bare-tables"


def _stem(game: store.Game) -> str:
    return f"game-{game.id}-{re.sub(r'[^0-9]', '', game.created)}"


def path_of(game: store.Game) -> Path | None:
    """The game's bare-table photo, if one was taken."""
    where = folder()
    for suffix in SUFFIXES.values():
        path = where / f"{_stem(game)}{suffix}"
        if path.is_file():
            return path
    return None


def keep(game: store.Game, photo: Photo) -> Path:
    """Keep ``photo`` (checked by ``hands.check_photo``) as the game's bare table."""
    forget(game)
    where = folder()
    where.mkdir(parents=True, exist_ok=True)
    path = where / f"{_stem(game)}{SUFFIXES.get(photo.mimetype, '.jpg')}"
    path.write_bytes(photo.data)
    return path


def forget(game: store.Game) -> None:
    """Drop the game's bare-table photo (a new one is taken, or the cloth changed)."""
    path = path_of(game)
    if path is not None:
        path.unlink(missing_ok=True)
