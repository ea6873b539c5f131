"""The SQLite database: opening it safely, migrating its schema, one connection per request.

Everything the companion keeps lives here (standard library ``sqlite3``, WAL
journal): games, players and seats, rule sets (JSON), rounds with their last
settled table, scores (and where each came from) with the history of their
edits, the log of changes the pad can undo, hand photos, alerts with what
each is about and their acknowledgement, and the table's settings (PIN,
session secret, current game).

Opening is careful because a family's score pads live in this file:

- a file that is not an SQLite database (corrupt, or something else) is never
  written to: :func:`inspect_database` raises :class:`BadInputError` naming it;
- a file or folder the process may not write opens read-only, and the app
  shows a banner and refuses changes with a clear message;
- the schema is brought up to date by numbered migrations recorded in the
  ``schema_version`` table; a migration keeps every score already kept.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from flask import Flask, current_app, g

from engine.errors import BadInputError

SQLITE_HEADER = b"SQLite format 3\x00"

#: Numbered schema migrations; migration ``i`` brings the schema to version ``i + 1``.
MIGRATIONS: tuple[str, ...] = (
    """
    CREATE TABLE settings (
        key   TEXT PRIMARY KEY,
        value TEXT NOT NULL
    );
    CREATE TABLE games (
        id            INTEGER PRIMARY KEY,
        name          TEXT NOT NULL,
        created       TEXT NOT NULL DEFAULT (datetime('now')),
        rules         TEXT NOT NULL,
        set_size      INTEGER NOT NULL,
        rounds        INTEGER NOT NULL,
        current_round INTEGER NOT NULL DEFAULT 1
    );
    CREATE TABLE players (
        game_id INTEGER NOT NULL REFERENCES games (id),
        seat    INTEGER NOT NULL,
        name    TEXT NOT NULL,
        PRIMARY KEY (game_id, seat)
    );
    CREATE TABLE rounds (
        game_id    INTEGER NOT NULL REFERENCES games (id),
        number     INTEGER NOT NULL,
        engine     INTEGER NOT NULL,
        table_json TEXT,
        turn       INTEGER,
        updated    TEXT,
        PRIMARY KEY (game_id, number)
    );
    CREATE TABLE scores (
        game_id INTEGER NOT NULL REFERENCES games (id),
        round   INTEGER NOT NULL,
        seat    INTEGER NOT NULL,
        points  INTEGER NOT NULL,
        updated TEXT NOT NULL DEFAULT (datetime('now')),
        PRIMARY KEY (game_id, round, seat)
    );
    CREATE TABLE score_edits (
        id         INTEGER PRIMARY KEY,
        game_id    INTEGER NOT NULL REFERENCES games (id),
        round      INTEGER NOT NULL,
        seat       INTEGER NOT NULL,
        old_points INTEGER,
        new_points INTEGER NOT NULL,
        source     TEXT NOT NULL,
        at         TEXT NOT NULL DEFAULT (datetime('now'))
    );
    CREATE TABLE hands (
        game_id     INTEGER NOT NULL REFERENCES games (id),
        round       INTEGER NOT NULL,
        seat        INTEGER NOT NULL,
        photo       BLOB,
        photo_type  TEXT,
        width       INTEGER,
        height      INTEGER,
        readings    TEXT NOT NULL DEFAULT '[]',
        tiles       TEXT NOT NULL DEFAULT '[]',
        read_note   TEXT,
        updated     TEXT NOT NULL DEFAULT (datetime('now')),
        PRIMARY KEY (game_id, round, seat)
    );
    CREATE TABLE alerts (
        id       INTEGER PRIMARY KEY,
        game_id  INTEGER REFERENCES games (id),
        round    INTEGER,
        at_index INTEGER,
        code     TEXT NOT NULL,
        seat     INTEGER,
        train    TEXT,
        message  TEXT NOT NULL,
        created  TEXT NOT NULL DEFAULT (datetime('now')),
        acked    TEXT
    );
    CREATE INDEX alerts_by_round ON alerts (game_id, round);
    CREATE INDEX edits_by_game ON score_edits (game_id, round, seat);
    """,
    # 2: where each score came from (a typed score never silently replaces a hand's),
    # and the log of changes that the pad's undo walks back
    """
    ALTER TABLE scores ADD COLUMN source TEXT NOT NULL DEFAULT 'pad';
    UPDATE scores SET source = COALESCE((
        SELECT e.source FROM score_edits e
        WHERE e.game_id = scores.game_id AND e.round = scores.round AND e.seat = scores.seat
        ORDER BY e.id DESC LIMIT 1), 'pad');
    CREATE TABLE changes (
        id      INTEGER PRIMARY KEY,
        game_id INTEGER NOT NULL REFERENCES games (id),
        label   TEXT NOT NULL,
        undo    TEXT NOT NULL,
        at      TEXT NOT NULL DEFAULT (strftime('%Y-%m-%d %H:%M:%f', 'now')),
        undone  TEXT
    );
    CREATE INDEX changes_by_game ON changes (game_id, id);
    ALTER TABLE score_edits ADD COLUMN change_id INTEGER REFERENCES changes (id);
    """,
    # 3: what each alert is about (its tile, end and waiting double, as JSON), kept with
    # the alert: an older row has none and reads as an alert about "a tile"
    """
    ALTER TABLE alerts ADD COLUMN details TEXT;
    """,
)

SCHEMA_VERSION = len(MIGRATIONS)


@dataclass(frozen=True)
class DatabaseInfo:
    """What :func:`inspect_database` found about a database path."""

    path: Path
    exists: bool
    read_only: bool


def inspect_database(path: str | os.PathLike[str]) -> DatabaseInfo:
    """Check a database path before anything opens it for writing.

    Raises :class:`BadInputError` naming the file when it is a folder, not an
    SQLite database, unreadable, or read-only and too old to migrate. The file
    itself is never modified here.
    """
    path = Path(path)
    if path.is_dir():
        raise BadInputError(str(path), "is a folder, not a database file")
    if not path.exists():
        folder = path.parent if str(path.parent) else Path(".")
        if not folder.is_dir():
            raise BadInputError(str(path), f"folder {folder} does not exist")
        return DatabaseInfo(path, exists=False, read_only=not _writable(folder))
    try:
        with path.open("rb") as handle:
            header = handle.read(len(SQLITE_HEADER))
    except OSError as exc:
        raise BadInputError(str(path), f"cannot be read ({exc.strerror})") from exc
    if header and header != SQLITE_HEADER:
        raise BadInputError(
            str(path), "is not an SQLite database (corrupt?); left untouched — "
            "move it aside or pass another --db"
        )
    read_only = not (_writable(path) and _writable(path.parent if str(path.parent) else Path(".")))
    try:
        conn = _connect_uri(path, read_only=True)
        try:
            conn.execute("PRAGMA quick_check").fetchall()
            version = _schema_version(conn)
        finally:
            conn.close()
    except sqlite3.DatabaseError as exc:
        raise BadInputError(
            str(path), f"is damaged ({exc}); left untouched — move it aside or pass another --db"
        ) from exc
    if read_only and version < SCHEMA_VERSION:
        raise BadInputError(
            str(path), f"is read-only and needs a schema upgrade (version {version} "
            f"< {SCHEMA_VERSION}); make it writable"
        )
    if version > SCHEMA_VERSION:
        raise BadInputError(
            str(path), f"was written by a newer mtrain (schema {version} > {SCHEMA_VERSION})"
        )
    return DatabaseInfo(path, exists=True, read_only=read_only)


def _writable(path: Path) -> bool:
    return os.access(path, os.W_OK)


def _connect_uri(path: Path, *, read_only: bool) -> sqlite3.Connection:
    base = path.resolve().as_uri()
    if not read_only:
        return _sqlite(f"{base}?mode=rwc")
    conn = _sqlite(f"{base}?mode=ro")
    try:
        conn.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
        return conn
    except sqlite3.OperationalError:
        # A WAL database next to which we may not create the -shm file: read it
        # as immutable (nobody else may write it either).
        conn.close()
        return _sqlite(f"{base}?mode=ro&immutable=1")


def _sqlite(uri: str) -> sqlite3.Connection:
    conn = sqlite3.connect(uri, uri=True, timeout=10, check_same_thread=False)
    conn.row_factory = sqlite3.Row
    return conn


def _schema_version(conn: sqlite3.Connection) -> int:
    row = conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'"
    ).fetchone()
    if row is None:
        return 0
    found = conn.execute("SELECT MAX(version) FROM schema_version").fetchone()
    return int(found[0] or 0)


def connect(path: str | os.PathLike[str], *, read_only: bool = False) -> sqlite3.Connection:
    """Open a connection (rows as :class:`sqlite3.Row`, foreign keys on, WAL when writable,
    deleted content overwritten: a deleted game's photos do not linger in the file)."""
    conn = _connect_uri(Path(path), read_only=read_only)
    conn.execute("PRAGMA foreign_keys = ON")
    conn.execute("PRAGMA secure_delete = ON")
    if not read_only:
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = NORMAL")
    return conn


def migrate(conn: sqlite3.Connection) -> int:
    """Apply the migrations the database lacks; returns the schema version now."""
    conn.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
    version = _schema_version(conn)
    for number in range(version, SCHEMA_VERSION):
        with transaction(conn):
            for statement in _statements(MIGRATIONS[number]):
                conn.execute(statement)
            conn.execute("INSERT INTO schema_version (version) VALUES (?)", (number + 1,))
    return SCHEMA_VERSION


def _statements(script: str) -> Iterator[str]:
    for part in script.split(";"):
        if part.strip():
            yield part


@contextmanager
def transaction(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """``BEGIN IMMEDIATE`` … ``COMMIT``, rolled back on any error."""
    in_outer = conn.in_transaction
    if not in_outer:
        conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
    except BaseException:
        if not in_outer:
            conn.rollback()
        raise
    else:
        if not in_outer:
            conn.commit()


def prepare(path: str | os.PathLike[str]) -> DatabaseInfo:
    """Inspect the file and, when writable, create or migrate it. Used by ``create_app``."""
    info = inspect_database(path)
    if not info.read_only:
        conn = connect(info.path)
        try:
            conn.isolation_level = None  # explicit transactions only
            migrate(conn)
        except sqlite3.DatabaseError as exc:
            raise BadInputError(str(info.path), f"cannot be migrated ({exc})") from exc
        finally:
            conn.close()
    elif not info.exists:
        raise BadInputError(str(info.path), "does not exist and its folder is read-only")
    return info


def open_for(app: Flask) -> sqlite3.Connection:
    """A new connection to the app's database (also used by the worker thread)."""
    conn = connect(app.config["DATABASE"], read_only=app.config["READ_ONLY"])
    conn.isolation_level = None
    return conn


def get_db() -> sqlite3.Connection:
    """The request's connection, opened on first use and closed at teardown."""
    if "db" not in g:
        g.db = open_for(current_app._get_current_object())  # type: ignore[attr-defined]
    conn: sqlite3.Connection = g.db
    return conn


def close_db(exc: BaseException | None = None) -> None:
    conn = g.pop("db", None)
    if conn is not None:
        conn.close()


def init_app(app: Flask) -> None:
    app.teardown_appcontext(close_db)
