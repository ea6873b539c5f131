"""The round's replay: every settled table kept with its time, in the game's database.

Each table a source settles for a game's round is one row of ``replay_tables``
(its time, the seat to move, the table as CONTRACTS.md's small JSON, and the
alerts raised on it with what they are about), so that anyone at the table can
scrub back through the round to settle a dispute ("who laid the 7-4, and
when?"). The rows survive a restart and go with their game: a trigger deletes
them when the game's row is deleted.

The table is created here, idempotently (:func:`ensure_schema`), beside the
numbered migrations of :mod:`companion_app.db`; a read-only database without
it simply has no replay.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Mapping
from typing import Any

from companion_app.db import transaction

__all__ = ["MAX_FRAMES", "add_alert", "clear", "ensure_schema", "frames", "record", "rounds"]

#: A round keeps at most this many tables (the oldest go first): a day of a camera
#: settling a table every few seconds.
MAX_FRAMES = 5000

SCHEMA: tuple[str, ...] = (
    """CREATE TABLE IF NOT EXISTS replay_tables (
        id         INTEGER PRIMARY KEY,
        game_id    INTEGER NOT NULL,
        round      INTEGER NOT NULL,
        at         REAL NOT NULL,
        turn       INTEGER,
        announced  TEXT,
        table_json TEXT NOT NULL,
        alerts     TEXT NOT NULL DEFAULT '[]'
    )""",
    "CREATE INDEX IF NOT EXISTS replay_by_round ON replay_tables (game_id, round, id)",
    """CREATE TRIGGER IF NOT EXISTS replay_goes_with_its_game AFTER DELETE ON games
    BEGIN
        DELETE FROM replay_tables WHERE game_id = old.id;
    END""",
)


def ensure_schema(db: sqlite3.Connection) -> None:
    """Create the replay's table, index and trigger where they are missing."""
    with transaction(db):
        for statement in SCHEMA:
            db.execute(statement)


def _present(db: sqlite3.Connection) -> bool:
    row = db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' "
                     "AND name = 'replay_tables'").fetchone()
    return row is not None


def record(db: sqlite3.Connection, game_id: int, number: int, table: Mapping[str, Any],
           turn: int | None, announced: str | None = None, at: float | None = None) -> int:
    """Keep one settled table of round ``number``; returns its frame's id."""
    stamp = time.time() if at is None else at
    with transaction(db):
        cur = db.execute(
            "INSERT INTO replay_tables (game_id, round, at, turn, announced, table_json) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (game_id, number, stamp, turn, announced, json.dumps(dict(table))))
        db.execute(
            "DELETE FROM replay_tables WHERE game_id = ? AND round = ? AND id <= "
            "(SELECT id FROM replay_tables WHERE game_id = ? AND round = ? "
            " ORDER BY id DESC LIMIT 1 OFFSET ?)",
            (game_id, number, game_id, number, MAX_FRAMES))
    return int(cur.lastrowid or 0)


def add_alert(db: sqlite3.Connection, game_id: int, number: int,
              alert: Mapping[str, Any]) -> None:
    """Attach ``alert`` to the round's latest table (the one it was raised on)."""
    row = db.execute(
        "SELECT id, alerts FROM replay_tables WHERE game_id = ? AND round = ? "
        "ORDER BY id DESC LIMIT 1", (game_id, number)).fetchone()
    if row is None:
        return
    alerts = json.loads(row["alerts"])
    alerts.append(dict(alert))
    with transaction(db):
        db.execute("UPDATE replay_tables SET alerts = ? WHERE id = ?",
                   (json.dumps(alerts), row["id"]))


def clear(db: sqlite3.Connection, game_id: int, number: int) -> None:
    """Forget round ``number``'s tables (its deal is played again from the start)."""
    with transaction(db):
        db.execute("DELETE FROM replay_tables WHERE game_id = ? AND round = ?",
                   (game_id, number))


def frames(db: sqlite3.Connection, game_id: int, number: int) -> list[dict[str, Any]]:
    """Round ``number``'s tables, oldest first: ``{"id", "at", "turn", "announced",
    "table", "alerts"}``."""
    if not _present(db):
        return []
    rows = db.execute(
        "SELECT * FROM replay_tables WHERE game_id = ? AND round = ? ORDER BY id",
        (game_id, number)).fetchall()
    return [{"id": row["id"], "at": row["at"], "turn": row["turn"],
             "announced": row["announced"], "table": json.loads(row["table_json"]),
             "alerts": json.loads(row["alerts"])} for row in rows]


def rounds(db: sqlite3.Connection, game_id: int) -> dict[int, int]:
    """Round number → how many tables its replay keeps, for the game's rounds that have one."""
    if not _present(db):
        return {}
    rows = db.execute("SELECT round, COUNT(*) AS n FROM replay_tables WHERE game_id = ? "
                      "GROUP BY round ORDER BY round", (game_id,)).fetchall()
    return {int(row["round"]): int(row["n"]) for row in rows}
