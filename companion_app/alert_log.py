"""The round's alerts kept in the database, each with what it is about.

An alert row holds the engine's :class:`~engine.Alert` (code, seat, train,
message) and, since schema version 3, its :class:`~engine.AlertDetails` (the
tile, the end it was laid on, the double waiting) as JSON, so an alert listed
long after its table (the replay cleared, the recording looped) still names
its tile. A row written before that has no details: it reads as an alert
about "a tile". A row whose code is not an :class:`~engine.AlertCode` (none is
ever written) is left out of the lists.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from companion_app.alert_words import AlertWords, say
from companion_app.db import transaction
from engine import MEXICAN, Alert, AlertCode, AlertDetails, Owner

__all__ = ["LoggedAlert", "ack_alert", "add_alert", "alerts", "by_id", "from_json"]


@dataclass(frozen=True)
class LoggedAlert:
    """One alert as kept: the engine's alert, what it is about, its row and its ack."""

    alert: Alert
    details: AlertDetails
    id: int | None = None
    game_id: int | None = None
    round: int | None = None
    created: str | None = None
    acked: str | None = None

    @property
    def code(self) -> AlertCode:
        return self.alert.code

    def words(self, players: Sequence[str]) -> AlertWords:
        """The alert said with the game's player names (:func:`alert_words.say`)."""
        return say(self.alert, self.details, players)

    def to_json(self, players: Sequence[str]) -> dict[str, Any]:
        """``check``'s alert object with its row, details and words (what the pages read)."""
        return self.alert.to_json() | {
            "id": self.id, "game_id": self.game_id, "round": self.round,
            "created": self.created, "acked": self.acked,
            "details": self.details.to_json(), "notice": self.code.notice,
        } | self.words(players).to_json()


def _owner(text: object) -> Owner | None:
    if isinstance(text, int) and not isinstance(text, bool):
        return text
    if not isinstance(text, str):
        return None
    return int(text) if text.isdigit() else MEXICAN


def _code(text: object) -> AlertCode | None:
    return next((c for c in AlertCode if c.value == text), None)


def from_json(obj: Mapping[str, Any]) -> LoggedAlert | None:
    """An alert as a round's replay keeps it (``check``'s shape with ``id`` and
    ``details``); None when its code is none of :class:`AlertCode`."""
    code = _code(obj.get("code"))
    if code is None:
        return None
    at, seat, ident = obj.get("at"), obj.get("seat"), obj.get("id")
    alert = Alert(at if isinstance(at, int) else 0, code,
                  seat if isinstance(seat, int) else None, _owner(obj.get("train")),
                  str(obj.get("message", "")))
    return LoggedAlert(alert, AlertDetails.from_json(obj.get("details")),
                       ident if isinstance(ident, int) else None)


def _logged(row: sqlite3.Row) -> LoggedAlert | None:
    code = _code(row["code"])
    if code is None:
        return None
    details = row["details"]
    seat = row["seat"]
    alert = Alert(int(row["at_index"] or 0), code, None if seat is None else int(seat),
                  _owner(row["train"]), str(row["message"]))
    return LoggedAlert(
        alert, AlertDetails.from_json(json.loads(details) if details else None),
        int(row["id"]), row["game_id"], row["round"], row["created"], row["acked"])


def add_alert(db: sqlite3.Connection, game_id: int | None, number: int | None, alert: Alert,
              details: AlertDetails) -> LoggedAlert:
    """Keep one alert of round ``number`` with what it is about; returns it as kept."""
    train = None if alert.train is None else str(alert.train)
    with transaction(db):
        cur = db.execute(
            "INSERT INTO alerts (game_id, round, at_index, code, seat, train, message, details) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (game_id, number, alert.at, alert.code.value, alert.seat, train, alert.message,
             json.dumps(details.to_json())))
    row = db.execute("SELECT * FROM alerts WHERE id = ?", (cur.lastrowid,)).fetchone()
    logged = _logged(row)
    assert logged is not None
    return logged


def alerts(db: sqlite3.Connection, game_id: int | None, number: int | None, *,
           unacked_only: bool = False) -> list[LoggedAlert]:
    """The alerts of one round (``game_id`` None: those with no game), oldest first."""
    sql = "SELECT * FROM alerts WHERE game_id IS ? AND round IS ?"
    if unacked_only:
        sql += " AND acked IS NULL"
    rows = db.execute(sql + " ORDER BY id", (game_id, number))
    return [a for a in (_logged(r) for r in rows) if a is not None]


def by_id(db: sqlite3.Connection, game_id: int, number: int) -> dict[int, LoggedAlert]:
    """Round ``number``'s alerts by their id."""
    return {a.id: a for a in alerts(db, game_id, number) if a.id is not None}


def ack_alert(db: sqlite3.Connection, alert_id: int) -> LoggedAlert | None:
    """Mark an alert acknowledged (once); the alert as kept, None when there is none."""
    with transaction(db):
        db.execute(
            "UPDATE alerts SET acked = datetime('now') WHERE id = ? AND acked IS NULL", (alert_id,)
        )
    row = db.execute("SELECT * FROM alerts WHERE id = ?", (alert_id,)).fetchone()
    return None if row is None else _logged(row)
