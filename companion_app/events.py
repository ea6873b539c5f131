"""What a source reports, and the fan-out of those reports to the open pages.

A *source* (the camera tracker, a recording, the simulator) yields
:data:`SourceEvent`\\ s; the worker stores them and publishes a JSON message on
the :class:`Broadcaster`, which every page's server-sent-event stream reads.
"""

from __future__ import annotations

import contextlib
import queue
import threading
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class TableSettled:
    """The tracker settled a new table (CONTRACTS.md TABLE with ``engine``)."""

    table: dict[str, Any]
    turn: int | None = None
    event: str | None = None


@dataclass(frozen=True)
class AlertRaised:
    """One alert of the observer, in CONTRACTS.md's ``check`` shape."""

    alert: dict[str, Any]


@dataclass(frozen=True)
class CameraStatus:
    """The source's health: ``ok`` False while the camera is lost (and retried)."""

    ok: bool
    message: str


@dataclass(frozen=True)
class RoundOver:
    """The source saw the round end (someone went out, or the table is blocked)."""

    message: str = "The round is over."


SourceEvent = TableSettled | AlertRaised | CameraStatus | RoundOver


class Broadcaster:
    """Publish/subscribe of JSON-able messages between the worker and the SSE streams."""

    def __init__(self, backlog: int = 100) -> None:
        self._lock = threading.Lock()
        self._subscribers: list[queue.Queue[dict[str, Any]]] = []
        self._backlog = backlog

    def publish(self, message: dict[str, Any]) -> None:
        with self._lock:
            subscribers = list(self._subscribers)
        for q in subscribers:
            # A stalled page drops messages; it never blocks the worker.
            with contextlib.suppress(queue.Full):
                q.put_nowait(message)

    def subscribe(self) -> queue.Queue[dict[str, Any]]:
        q: queue.Queue[dict[str, Any]] = queue.Queue(maxsize=self._backlog)
        with self._lock:
            self._subscribers.append(q)
        return q

    def unsubscribe(self, q: queue.Queue[dict[str, Any]]) -> None:
        with self._lock:
            if q in self._subscribers:
                self._subscribers.remove(q)

    @property
    def subscribers(self) -> int:
        with self._lock:
            return len(self._subscribers)
