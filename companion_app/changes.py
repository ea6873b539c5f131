"""The pad's undo: each change of a game is logged with what puts it back.

A change is one tap on the pad or the hands page (a round's points, a hand
saved, the table moved to another round). Inside :func:`change` the store's
writers note the values they replace in a :class:`ChangeLog`; the log is kept
in the ``changes`` table, so the last change can be undone after a restart
too. :func:`undo_last` puts the values back and marks the change undone (its
score edits stay in the history, shown as undone).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from companion_app.db import transaction

#: (round, seat, the points before or None, their source before or None)
ScoreBefore = tuple[int, int, int | None, str | None]
#: (round, seat, the hand's tiles before as JSON text, or None: no hand was kept)
HandBefore = tuple[int, int, str | None]
#: (round, seat, the hand photo's readings before as JSON text: ``hand_check``'s answers)
ReadingsBefore = tuple[int, int, str]


@dataclass
class ChangeLog:
    """One change being made: its id, a label for the undo button, the values it replaces."""

    id: int
    game_id: int
    label: str
    scores: list[ScoreBefore] = field(default_factory=list)
    hands: list[HandBefore] = field(default_factory=list)
    current_round: int | None = None
    readings: list[ReadingsBefore] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return (not self.scores and not self.hands and not self.readings
                and self.current_round is None)

    def score_replaced(self, before: ScoreBefore) -> None:
        if not any(s[:2] == before[:2] for s in self.scores):  # the first value is the old one
            self.scores.append(before)

    def hand_replaced(self, before: HandBefore) -> None:
        if not any(h[:2] == before[:2] for h in self.hands):
            self.hands.append(before)

    def readings_replaced(self, before: ReadingsBefore) -> None:
        if not any(r[:2] == before[:2] for r in self.readings):
            self.readings.append(before)

    def round_moved(self, before: int) -> None:
        if self.current_round is None:
            self.current_round = before

    def to_json(self) -> str:
        return json.dumps({"scores": self.scores, "hands": self.hands,
                           "readings": self.readings, "current_round": self.current_round})


@dataclass(frozen=True)
class Change:
    """A logged change, as the pad offers it for undoing."""

    id: int
    game_id: int
    label: str
    at: str


@contextmanager
def change(db: sqlite3.Connection, game_id: int, label: str) -> Iterator[ChangeLog]:
    """One transaction whose replaced values are logged for :func:`undo_last`.

    A change that replaced nothing leaves no entry.
    """
    with transaction(db):
        cur = db.execute("INSERT INTO changes (game_id, label, undo) VALUES (?, ?, '{}')",
                         (game_id, label))
        log = ChangeLog(int(cur.lastrowid or 0), game_id, label)
        yield log
        if log.empty:
            db.execute("DELETE FROM changes WHERE id = ?", (log.id,))
        else:
            db.execute("UPDATE changes SET label = ?, undo = ? WHERE id = ?",
                       (log.label, log.to_json(), log.id))


def last_change(db: sqlite3.Connection, game_id: int) -> Change | None:
    """The game's latest change not undone yet."""
    row = db.execute(
        "SELECT id, game_id, label, at FROM changes WHERE game_id = ? AND undone IS NULL "
        "ORDER BY id DESC LIMIT 1", (game_id,)).fetchone()
    if row is None:
        return None
    return Change(int(row["id"]), int(row["game_id"]), str(row["label"]), str(row["at"]))


def undone_ids(db: sqlite3.Connection, game_id: int) -> set[int]:
    return {int(r["id"]) for r in db.execute(
        "SELECT id FROM changes WHERE game_id = ? AND undone IS NOT NULL", (game_id,))}


def undo_last(db: sqlite3.Connection, game_id: int) -> Change | None:
    """Put back what the game's latest change replaced; returns it (None: nothing to undo)."""
    with transaction(db):
        last = last_change(db, game_id)
        if last is None:
            return None
        row = db.execute("SELECT undo FROM changes WHERE id = ?", (last.id,)).fetchone()
        before = json.loads(row["undo"])
        for number, seat, points, source in reversed(before.get("scores", [])):
            _put_score_back(db, game_id, number, seat, points, source)
        for number, seat, tiles in reversed(before.get("hands", [])):
            _put_hand_back(db, game_id, number, seat, tiles)
        for number, seat, readings in reversed(before.get("readings", [])):
            db.execute("UPDATE hands SET readings = ? WHERE game_id = ? AND round = ? "
                       "AND seat = ?", (readings, game_id, number, seat))
        if before.get("current_round") is not None:
            db.execute("UPDATE games SET current_round = ? WHERE id = ?",
                       (int(before["current_round"]), game_id))
        db.execute("UPDATE changes SET undone = strftime('%Y-%m-%d %H:%M:%f', 'now') "
                   "WHERE id = ?", (last.id,))
    return last


def _put_score_back(db: sqlite3.Connection, game_id: int, number: int, seat: int,
                    points: int | None, source: str | None) -> None:
    if points is None:
        db.execute("DELETE FROM scores WHERE game_id = ? AND round = ? AND seat = ?",
                   (game_id, number, seat))
    else:
        db.execute("INSERT INTO scores (game_id, round, seat, points, source) "
                   "VALUES (?, ?, ?, ?, ?) ON CONFLICT (game_id, round, seat) DO UPDATE SET "
                   "points = excluded.points, source = excluded.source, "
                   "updated = datetime('now')",
                   (game_id, number, seat, points, source or "pad"))


def _put_hand_back(db: sqlite3.Connection, game_id: int, number: int, seat: int,
                   tiles: str | None) -> None:
    if tiles is None:
        db.execute("DELETE FROM hands WHERE game_id = ? AND round = ? AND seat = ? "
                   "AND photo IS NULL", (game_id, number, seat))
        tiles = "[]"
    db.execute("UPDATE hands SET tiles = ?, updated = datetime('now') "
               "WHERE game_id = ? AND round = ? AND seat = ?", (tiles, game_id, number, seat))
