"""What a source reports, and the fan-out of those reports to the open pages.

A *source* (the camera tracker, a recording, the simulator) yields the typed
events of :mod:`vision.events` (:data:`SourceEvent`); the worker stores them
and publishes a JSON message on the :class:`Broadcaster`, which every page's
server-sent-event stream reads.
"""

from __future__ import annotations

import contextlib
import queue
import threading
from typing import Any

from engine import AlertDetails
from vision.events import (
    AlertRaised,
    CameraReason,
    CameraStatus,
    RoundOver,
    SourceEvent,
    TableSettled,
    Uncertain,
)

__all__ = [
    "AlertDetails",
    "AlertRaised",
    "Broadcaster",
    "CameraReason",
    "CameraStatus",
    "RoundOver",
    "SourceEvent",
    "TableSettled",
    "Uncertain",
]


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
