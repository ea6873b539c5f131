"""Wrong PINs slow down the device that sends them, and only that device.

Each client (its remote address) has a few free tries; from the
``FREE_TRIES + 1``-th wrong PIN in a row it waits ``FIRST_WAIT`` seconds,
then twice as long after each further wrong PIN, up to ``LONGEST_WAIT``.
The right PIN clears its record. A try is counted when it starts, so
requests sent all at once cannot slip in under the limit. The table of
clients is bounded: records whose wait is long over are dropped first, then
the ones idle longest.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

FREE_TRIES = 4
FIRST_WAIT = 60.0
LONGEST_WAIT = 3600.0
FORGET_AFTER = 3600.0
MAX_CLIENTS = 4096

__all__ = ["Backoff"]


@dataclass
class _Record:
    tries: int = 0  # wrong PINs in a row (and tries under way)
    until: float = 0.0  # no try before this time
    last: float = 0.0


class Backoff:
    """Per-client exponential backoff of PIN tries (thread-safe)."""

    def __init__(self, *, free_tries: int = FREE_TRIES, first_wait: float = FIRST_WAIT,
                 longest_wait: float = LONGEST_WAIT, forget_after: float = FORGET_AFTER,
                 max_clients: int = MAX_CLIENTS,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.free_tries = free_tries
        self.first_wait = first_wait
        self.longest_wait = longest_wait
        self.forget_after = forget_after
        self.max_clients = max_clients
        self.clock = clock
        self._clients: OrderedDict[str, _Record] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._clients)

    def start(self, client: str) -> float:
        """Begin a try: 0.0 when ``client`` may try now (the try is counted as wrong
        until :meth:`succeeded`), else the seconds it must still wait."""
        with self._lock:
            now = self.clock()
            record = self._clients.get(client)
            if record is not None and now < record.until:
                return record.until - now
            if record is not None and now - max(record.until, record.last) > self.forget_after:
                record = self._clients[client] = _Record()  # an old slip is forgotten
            if record is None:
                self._make_room(now)
                record = self._clients[client] = _Record()
            self._clients.move_to_end(client)
            record.tries += 1
            record.last = now
            over = record.tries - self.free_tries
            if over > 0:
                wait = min(self.first_wait * 2.0 ** (over - 1), self.longest_wait)
                record.until = now + wait
            return 0.0

    def state(self, client: str) -> tuple[int, float]:
        """``(tries, wait)``: the tries ``client`` has before a wrong one makes it wait
        (at least 1 once any wait is over), and the seconds it must wait now (0.0: none)."""
        with self._lock:
            now = self.clock()
            record = self._clients.get(client)
            if record is None or now - max(record.until, record.last) > self.forget_after:
                return self.free_tries + 1, 0.0
            if now < record.until:
                return 0, record.until - now
            return max(1, self.free_tries + 1 - record.tries), 0.0

    def succeeded(self, client: str) -> None:
        """The try was the right PIN: the client starts afresh."""
        with self._lock:
            self._clients.pop(client, None)

    def _make_room(self, now: float) -> None:
        if len(self._clients) < self.max_clients:
            return
        stale = [key for key, r in self._clients.items()
                 if now - max(r.until, r.last) > self.forget_after]
        for key in stale:
            del self._clients[key]
        while len(self._clients) >= self.max_clients:
            self._clients.popitem(last=False)
