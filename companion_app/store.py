"""Reading and writing the companion's records: games, seats, rounds, scores, hands.

Every function takes the connection first so the request handlers (through
:func:`companion_app.db.get_db`) and the worker thread (its own connection)
share one set of queries (the alerts': :mod:`companion_app.alert_log`). A score
keeps where it came from (``"hand"``: counted from a hand, ``"pad"``: typed); the
writers a tap on the pad makes take a :class:`~companion_app.changes.ChangeLog`
that notes what they replace, for undo.
"""

from __future__ import annotations

import json
import secrets
import sqlite3
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from companion_app.changes import ChangeLog
from companion_app.db import transaction
from companion_app.photo_tiles import PhotoTile, tiles_from_json, tiles_to_json
from engine import Game as EngineGame
from engine import RuleSet


@dataclass(frozen=True)
class Game:
    """A game the table keeps: its name and players, the engine's game it plays (the rule
    set, the seats, the engine's countdown), how many rounds and the one being played."""

    id: int
    name: str
    created: str
    play: EngineGame
    rounds: int
    current_round: int
    players: tuple[str, ...]

    @property
    def rules(self) -> RuleSet:
        return self.play.rules

    @property
    def set_size(self) -> int:
        return self.play.rules.set

    @property
    def seats(self) -> int:
        return len(self.players)

    def engine_of(self, number: int) -> int:
        """Round ``number``'s engine (:meth:`engine.Game.engine_of`)."""
        return self.play.engine_of(number)


# -- settings -------------------------------------------------------------


def get_setting(db: sqlite3.Connection, key: str) -> str | None:
    row = db.execute("SELECT value FROM settings WHERE key = ?", (key,)).fetchone()
    return None if row is None else str(row["value"])


def set_setting(db: sqlite3.Connection, key: str, value: str) -> None:
    with transaction(db):
        db.execute(
            "INSERT INTO settings (key, value) VALUES (?, ?) "
            "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (key, value),
        )


def ensure_setting(db: sqlite3.Connection, key: str, make: Any, *, read_only: bool) -> str:
    """The stored value of ``key``, created with ``make()`` on first use."""
    value = get_setting(db, key)
    if value is None:
        value = str(make())
        if not read_only:
            set_setting(db, key, value)
    return value


def new_pin() -> str:
    """A random six-digit table PIN."""
    return f"{secrets.randbelow(10**6):06d}"


# -- games ----------------------------------------------------------------


def create_game(
    db: sqlite3.Connection,
    *,
    name: str,
    players: Sequence[str],
    rules: RuleSet,
    rounds: int,
) -> int:
    """Start a game of ``rounds`` rounds (at most the set's top double + 1) under ``rules``."""
    set_size = rules.set
    with transaction(db):
        cur = db.execute(
            "INSERT INTO games (name, rules, set_size, rounds) VALUES (?, ?, ?, ?)",
            (name, json.dumps(rules.to_json(), sort_keys=True), set_size, rounds),
        )
        game_id = int(cur.lastrowid or 0)
        db.executemany(
            "INSERT INTO players (game_id, seat, name) VALUES (?, ?, ?)",
            [(game_id, seat, player) for seat, player in enumerate(players)],
        )
        db.execute(
            "INSERT INTO rounds (game_id, number, engine) VALUES (?, 1, ?)",
            (game_id, set_size),
        )
        db.execute(
            "INSERT INTO settings (key, value) VALUES ('current_game', ?) "
            "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (str(game_id),),
        )
    return game_id


def get_game(db: sqlite3.Connection, game_id: int) -> Game | None:
    row = db.execute("SELECT * FROM games WHERE id = ?", (game_id,)).fetchone()
    if row is None:
        return None
    players = tuple(
        str(p["name"])
        for p in db.execute(
            "SELECT name FROM players WHERE game_id = ? ORDER BY seat", (game_id,)
        )
    )
    rules = RuleSet.from_json(json.loads(row["rules"]), f"game {game_id}'s rules")
    return Game(
        id=int(row["id"]),
        name=str(row["name"]),
        created=str(row["created"]),
        play=EngineGame(rules, len(players)),
        rounds=int(row["rounds"]),
        current_round=int(row["current_round"]),
        players=players,
    )


def list_games(db: sqlite3.Connection) -> list[Game]:
    """Every game, the one played last first (its latest change, else its start; to the
    second, as starts are kept: of a game started in the second another was last played
    in, the newer game first)."""
    ids = [int(r["id"]) for r in db.execute(
        "SELECT id FROM games ORDER BY MAX(substr(created, 1, 19), COALESCE(substr("
        "(SELECT MAX(at) FROM changes WHERE changes.game_id = games.id), 1, 19), '')) DESC,"
        " id DESC")]
    return [g for g in (get_game(db, i) for i in ids) if g is not None]


def rename_game(db: sqlite3.Connection, game_id: int, name: str) -> None:
    with transaction(db):
        db.execute("UPDATE games SET name = ? WHERE id = ?", (name, game_id))


def delete_game(db: sqlite3.Connection, game_id: int) -> None:
    """Remove a game and everything kept for it (scores, history, hands, alerts)."""
    with transaction(db):
        for table in ("score_edits", "changes", "scores", "hands", "alerts", "rounds",
                      "players"):
            db.execute(f"DELETE FROM {table} WHERE game_id = ?", (game_id,))
        db.execute("DELETE FROM games WHERE id = ?", (game_id,))
        db.execute("DELETE FROM settings WHERE key = 'current_game' AND value = ?",
                   (str(game_id),))


def current_game(db: sqlite3.Connection) -> Game | None:
    """The game the table is playing: the one last chosen or created."""
    chosen = get_setting(db, "current_game")
    if chosen is not None and chosen.isdigit():
        game = get_game(db, int(chosen))
        if game is not None:
            return game
    row = db.execute("SELECT MAX(id) FROM games").fetchone()
    return None if row[0] is None else get_game(db, int(row[0]))


def resume_game(db: sqlite3.Connection, game_id: int) -> None:
    set_setting(db, "current_game", str(game_id))


def set_current_round(db: sqlite3.Connection, game: Game, number: int,
                      log: ChangeLog | None = None) -> None:
    with transaction(db):
        if log is not None:
            row = db.execute("SELECT current_round FROM games WHERE id = ?",
                             (game.id,)).fetchone()
            if row is not None and int(row["current_round"]) != number:
                log.round_moved(int(row["current_round"]))
        db.execute("UPDATE games SET current_round = ? WHERE id = ?", (number, game.id))
        db.execute(
            "INSERT OR IGNORE INTO rounds (game_id, number, engine) VALUES (?, ?, ?)",
            (game.id, number, game.engine_of(number)),
        )


# -- the table ------------------------------------------------------------


def save_table(
    db: sqlite3.Connection, game: Game, number: int, table: Mapping[str, Any], turn: int | None
) -> None:
    with transaction(db):
        db.execute(
            "INSERT INTO rounds (game_id, number, engine, table_json, turn, updated) "
            "VALUES (?, ?, ?, ?, ?, datetime('now')) "
            "ON CONFLICT (game_id, number) DO UPDATE SET table_json = excluded.table_json, "
            "turn = excluded.turn, updated = excluded.updated",
            (game.id, number, game.engine_of(number), json.dumps(dict(table)), turn),
        )


def last_table(
    db: sqlite3.Connection, game: Game, number: int
) -> tuple[dict[str, Any] | None, int | None]:
    row = db.execute(
        "SELECT table_json, turn FROM rounds WHERE game_id = ? AND number = ?",
        (game.id, number),
    ).fetchone()
    if row is None or row["table_json"] is None:
        return None, None
    turn = None if row["turn"] is None else int(row["turn"])
    return json.loads(row["table_json"]), turn


# -- scores ---------------------------------------------------------------


def scores(db: sqlite3.Connection, game_id: int) -> dict[tuple[int, int], int]:
    """(round, seat) → points."""
    return {
        (int(r["round"]), int(r["seat"])): int(r["points"])
        for r in db.execute("SELECT round, seat, points FROM scores WHERE game_id = ?", (game_id,))
    }


def score_sources(db: sqlite3.Connection, game_id: int) -> dict[tuple[int, int], str]:
    """(round, seat) → where the score came from: ``"hand"`` (a hand counted on the
    hands page) or ``"pad"`` (typed)."""
    return {
        (int(r["round"]), int(r["seat"])): str(r["source"])
        for r in db.execute("SELECT round, seat, source FROM scores WHERE game_id = ?",
                            (game_id,))
    }


def set_score(
    db: sqlite3.Connection, game_id: int, number: int, seat: int, points: int, source: str,
    log: ChangeLog | None = None,
) -> bool:
    """Write one score; an existing different value is kept in ``score_edits`` (and in
    ``log``, for undoing). Returns whether anything changed."""
    with transaction(db):
        row = db.execute(
            "SELECT points, source FROM scores WHERE game_id = ? AND round = ? AND seat = ?",
            (game_id, number, seat),
        ).fetchone()
        old = None if row is None else int(row["points"])
        if old == points:
            return False
        if log is not None:
            log.score_replaced((number, seat, old, None if row is None else str(row["source"])))
        db.execute(
            "INSERT INTO scores (game_id, round, seat, points, source, updated) "
            "VALUES (?, ?, ?, ?, ?, datetime('now')) ON CONFLICT (game_id, round, seat) "
            "DO UPDATE SET points = excluded.points, source = excluded.source, "
            "updated = excluded.updated",
            (game_id, number, seat, points, source),
        )
        db.execute(
            "INSERT INTO score_edits (game_id, round, seat, old_points, new_points, source, "
            "change_id) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (game_id, number, seat, old, points, source, None if log is None else log.id),
        )
    return True


def score_history(db: sqlite3.Connection, game_id: int) -> list[sqlite3.Row]:
    """Every change of a score of the game, newest first."""
    return list(
        db.execute(
            "SELECT * FROM score_edits WHERE game_id = ? ORDER BY id DESC", (game_id,)
        )
    )


# -- hands ----------------------------------------------------------------


@dataclass(frozen=True)
class StoredHand:
    """A hand kept for a seat of a round (without the photo bytes): whether it has a
    photo, the photo's size, the boxes read on it, the hand's tiles and the reading's
    note."""

    has_photo: bool
    width: int | None
    height: int | None
    readings: tuple[PhotoTile, ...]
    tiles: list[list[int]]
    note: str | None


def save_hand_photo(
    db: sqlite3.Connection,
    game_id: int,
    number: int,
    seat: int,
    *,
    photo: bytes,
    photo_type: str,
    size: tuple[int, int],
    readings: Sequence[PhotoTile],
    tiles: list[list[int]],
    note: str | None,
) -> None:
    with transaction(db):
        db.execute(
            "INSERT INTO hands (game_id, round, seat, photo, photo_type, width, height, readings, "
            "tiles, read_note, updated) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, datetime('now')) "
            "ON CONFLICT (game_id, round, seat) DO UPDATE SET photo = excluded.photo, "
            "photo_type = excluded.photo_type, width = excluded.width, height = excluded.height, "
            "readings = excluded.readings, tiles = excluded.tiles, read_note = excluded.read_note, "
            "updated = excluded.updated",
            (game_id, number, seat, photo, photo_type, size[0], size[1],
             json.dumps(tiles_to_json(readings)), json.dumps(tiles), note),
        )


def save_hand_tiles(
    db: sqlite3.Connection, game_id: int, number: int, seat: int, tiles: list[list[int]],
    log: ChangeLog | None = None,
) -> None:
    with transaction(db):
        if log is not None:
            row = db.execute("SELECT tiles FROM hands WHERE game_id = ? AND round = ? "
                             "AND seat = ?", (game_id, number, seat)).fetchone()
            if row is None or json.loads(row["tiles"]) != tiles:
                log.hand_replaced((number, seat, None if row is None else str(row["tiles"])))
        db.execute(
            "INSERT INTO hands (game_id, round, seat, tiles, updated) "
            "VALUES (?, ?, ?, ?, datetime('now')) ON CONFLICT (game_id, round, seat) "
            "DO UPDATE SET tiles = excluded.tiles, updated = excluded.updated",
            (game_id, number, seat, json.dumps(tiles)),
        )


def save_hand_readings(
    db: sqlite3.Connection, game_id: int, number: int, seat: int,
    readings: Sequence[PhotoTile], log: ChangeLog | None = None,
) -> None:
    """Keep a hand's photo readings as a person answered them (``hand_check``); ``log``
    notes the readings they replace, for undoing."""
    with transaction(db):
        if log is not None:
            row = db.execute("SELECT readings FROM hands WHERE game_id = ? AND round = ? "
                             "AND seat = ?", (game_id, number, seat)).fetchone()
            if row is not None and tiles_from_json(json.loads(row["readings"])) != list(readings):
                log.readings_replaced((number, seat, str(row["readings"])))
        db.execute("UPDATE hands SET readings = ?, updated = datetime('now') "
                   "WHERE game_id = ? AND round = ? AND seat = ?",
                   (json.dumps(tiles_to_json(readings)), game_id, number, seat))


def hand_readings(db: sqlite3.Connection, game_id: int
                  ) -> dict[tuple[int, int], list[PhotoTile]]:
    """(round, seat) → the readings of every hand of the game kept with a photo."""
    return {(int(r["round"]), int(r["seat"])): tiles_from_json(json.loads(r["readings"]))
            for r in db.execute("SELECT round, seat, readings FROM hands WHERE game_id = ? "
                                "AND readings != '[]'", (game_id,))}


def hands(db: sqlite3.Connection, game_id: int, number: int) -> dict[int, StoredHand]:
    """seat → the stored hand (without the photo bytes)."""
    out = {}
    for r in db.execute(
        "SELECT seat, photo IS NOT NULL AS has_photo, width, height, readings, tiles, read_note "
        "FROM hands WHERE game_id = ? AND round = ?",
        (game_id, number),
    ):
        out[int(r["seat"])] = StoredHand(
            has_photo=bool(r["has_photo"]),
            width=None if r["width"] is None else int(r["width"]),
            height=None if r["height"] is None else int(r["height"]),
            readings=tuple(tiles_from_json(json.loads(r["readings"]))),
            tiles=[[int(v) for v in t] for t in json.loads(r["tiles"])],
            note=None if r["read_note"] is None else str(r["read_note"]),
        )
    return out


def hand_photo(
    db: sqlite3.Connection, game_id: int, number: int, seat: int
) -> tuple[bytes, str] | None:
    row = db.execute(
        "SELECT photo, photo_type FROM hands WHERE game_id = ? AND round = ? AND seat = ?",
        (game_id, number, seat),
    ).fetchone()
    if row is None or row["photo"] is None:
        return None
    return bytes(row["photo"]), str(row["photo_type"])
