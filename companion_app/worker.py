"""The background worker: runs a source, stores what it reports, tells the open pages.

One :class:`TableWorker` lives in ``app.extensions["mtrain_worker"]``. Its
thread reads the current game from the database, runs the source for that
game's round (players, rules, engine), saves each settled table (the round's
replay, :mod:`companion_app.replay`) and every alert with what it is about
(:mod:`companion_app.alert_log`; said in words, :mod:`companion_app.alert_words`),
and publishes them on the app's :class:`~companion_app.events.Broadcaster`.
A camera that stops delivering is reported lost and retried; a recording or
the sim starts again from the top. :meth:`handle` is the same step without the
thread, for tests.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Generator
from dataclasses import dataclass
from typing import Any

from flask import Flask

from companion_app import alert_log, replay, store
from companion_app.alert_log import LoggedAlert
from companion_app.db import open_for
from companion_app.events import (
    AlertRaised,
    Broadcaster,
    CameraReason,
    CameraStatus,
    RoundOver,
    SourceEvent,
    TableSettled,
)
from companion_app.sim import GameContext
from companion_app.sources import Source
from engine.errors import BadInputError

DEFAULT_PLAYERS = 4


@dataclass(frozen=True)
class Context:
    """The game the source is playing for (None: no game yet, a default table)."""

    game_id: int | None
    round: int | None
    sim: GameContext
    #: The players' names by seat (``Seat 1`` … with no game).
    players: tuple[str, ...] = ()


class TableWorker:
    """Runs one source in a daemon thread for the app it belongs to."""

    def __init__(self, app: Flask, source: Source, *, retry_seconds: float = 5.0,
                 restart_seconds: float = 1.0) -> None:
        self.app = app
        self.source = source
        self.retry_seconds = retry_seconds
        self.restart_seconds = restart_seconds
        self.broadcaster: Broadcaster = app.extensions["mtrain_broadcaster"]
        self.status = CameraStatus(CameraReason.STARTING, f"{source.label}: starting")
        #: The next table starts the round's replay afresh (a recording or the sim
        #: deals again when it starts over).
        self._new_deal = False
        self._stop = threading.Event()
        self._changed = threading.Event()
        self._thread: threading.Thread | None = None
        self._db: sqlite3.Connection | None = None

    # -- lifecycle ---------------------------------------------------------------------

    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="mtrain-worker", daemon=True)
            self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        self._changed.set()
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    @property
    def has_camera(self) -> bool:
        """Whether the source can give a still of the table (a camera or a recording)."""
        return self.source.sees_table

    def camera_still(self) -> bytes | None:
        """The latest camera frame as JPEG, for reading hands; None when there is none."""
        return self.source.still()

    def notify(self) -> None:
        """The current game or round changed (a view calls this): restart the source."""
        self._changed.set()

    # -- the loop ----------------------------------------------------------------------

    def _conn(self) -> sqlite3.Connection:
        if self._db is None:
            self._db = open_for(self.app)
        return self._db

    def context(self) -> Context:
        game = store.current_game(self._conn())
        if game is None:
            from engine import RuleSet

            seats = tuple(f"Seat {i + 1}" for i in range(DEFAULT_PLAYERS))
            rules = RuleSet.preset("standard")
            return Context(None, None, GameContext(DEFAULT_PLAYERS, rules.set, rules), seats)
        number = game.current_round
        return Context(game.id, number, GameContext(game.seats, game.engine_of(number), game.rules),
                       tuple(game.players))

    def _run(self) -> None:
        try:
            while not self._stop.is_set():
                self._changed.clear()
                try:
                    ctx = self.context()
                except BadInputError as exc:  # a game whose stored rules cannot be read
                    self._set_status(CameraReason.FAILED, f"{exc}; retrying")
                    self._changed.wait(self.retry_seconds)
                    continue
                self._new_deal = not self.source.live
                events = self.source.events(ctx.sim)
                try:
                    for event in events:
                        if self._stop.is_set() or self._changed.is_set():
                            break
                        self.handle(event, ctx)
                    else:
                        if self.source.live:
                            self._set_status(CameraReason.LOST,
                                             f"{self.source.label}: camera lost, retrying")
                            self._changed.wait(self.retry_seconds)
                        else:  # a recording or the sim: play it again after a breath
                            self._changed.wait(self.restart_seconds)
                except Exception as exc:  # noqa: BLE001 - a failing source is reported, retried
                    self._set_status(CameraReason.FAILED, f"{self.source.label}: {exc}; retrying")
                    self._changed.wait(self.retry_seconds)
                finally:
                    if isinstance(events, Generator):
                        events.close()  # releases the camera of an abandoned tracker
        finally:
            if self._db is not None:
                self._db.close()
                self._db = None

    def _set_status(self, reason: CameraReason, message: str) -> None:
        self.status = CameraStatus(reason, message)
        self.broadcaster.publish(status_message(self.status))

    # -- one event ---------------------------------------------------------------------

    def handle(self, event: SourceEvent, ctx: Context | None = None) -> dict[str, Any] | None:
        """Store one event and publish it; returns the published message."""
        ctx = ctx or self.context()
        message: dict[str, Any] | None = None
        if isinstance(event, TableSettled):
            message = self._table(event, ctx)
        elif isinstance(event, AlertRaised):
            message = self._alert(event, ctx)
        elif isinstance(event, CameraStatus):
            self.status = event
            message = status_message(event)
        elif isinstance(event, RoundOver):
            self._new_deal = True
            message = {"type": "round-over", "message": event.message,
                       "game_id": ctx.game_id, "round": ctx.round}
        if message is not None:
            self.broadcaster.publish(message)
        return message

    def _writable_round(self, ctx: Context) -> tuple[store.Game, int] | None:
        """The game and round to store into (None: no game, one deleted since ``ctx`` was
        taken, or a read-only database)."""
        if ctx.game_id is None or ctx.round is None or self.app.config.get("READ_ONLY"):
            return None
        game = store.get_game(self._conn(), ctx.game_id)
        return None if game is None else (game, ctx.round)

    def _table(self, event: TableSettled, ctx: Context) -> dict[str, Any]:
        db = self._conn()
        table = event.table.to_json()
        where = self._writable_round(ctx)
        if where is not None:
            game, number = where
            store.save_table(db, game, number, table, event.turn)
            if self._new_deal:
                replay.clear(db, game.id, number)
            replay.record(db, game.id, number, table, event.turn, event.event)
        self._new_deal = False
        message = {"type": "table", "game_id": ctx.game_id, "round": ctx.round,
                   "table": table, "turn": event.turn, "event": event.event}
        self.app.extensions["mtrain_last_table"] = message
        if self.status.reason is not CameraReason.OPENED:
            self._set_status(CameraReason.OPENED, f"{self.source.label}: live")
        return message

    def _alert(self, event: AlertRaised, ctx: Context) -> dict[str, Any]:
        db = self._conn()
        where = self._writable_round(ctx)
        if where is None and self.app.config.get("READ_ONLY"):
            logged = LoggedAlert(event.alert, event.details, None, ctx.game_id, ctx.round)
        else:  # kept with its game, or with none (no game, or one deleted meanwhile)
            game_id = None if where is None else where[0].id
            logged = alert_log.add_alert(db, game_id, None if where is None else where[1],
                                         event.alert, event.details)
            if where is not None:
                replay.add_alert(db, where[0].id, where[1], logged.alert.to_json() | {
                    "id": logged.id, "details": logged.details.to_json()})
        return {"type": "alert", "alert": logged.to_json(ctx.players)}


def status_message(status: CameraStatus) -> dict[str, Any]:
    """The page's message for a camera status."""
    return {"type": "status", "ok": status.ok, "reason": status.reason.value,
            "message": status.message}
