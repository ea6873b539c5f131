"""Room for live pages: how many event streams are open, per device and in all.

Each open live page holds one of the server's threads for its event stream,
so streams are counted: a device (its network address) may hold
``per_device`` of them, the table ``total``. A stream past either limit is
refused at once with a clear answer (429 for the device, 503 for the
table), never queued, so that screens left open, or opened on purpose by
the hundred, cannot take the threads that serve everyone else's pages.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

#: Streams one device may hold (a page open in a few tabs, a page being reloaded).
PER_DEVICE = 4
#: Streams the table may hold in all (tablets and phones round the table).
TOTAL = 20

__all__ = ["PER_DEVICE", "TOTAL", "Refusal", "StreamRoom"]


@dataclass(frozen=True)
class Refusal:
    """Why a stream was refused: ``device`` (this device holds its share) or ``table``."""

    reason: str
    open: int
    limit: int

    @property
    def status(self) -> int:
        return 429 if self.reason == "device" else 503

    @property
    def message(self) -> str:
        if self.reason == "device":
            return (f"Too many screens: this device already has {self.open} live pages open "
                    f"(at most {self.limit}). Close one, then try again.")
        return (f"Too many screens: {self.open} live pages are open at this table (at most "
                f"{self.limit}). Close one on another device, then try again.")

    def to_json(self) -> dict[str, object]:
        return {"error": self.message, "reason": self.reason, "open": self.open,
                "limit": self.limit}


class StreamRoom:
    """Counts of open streams per device and in all (thread-safe)."""

    def __init__(self, *, per_device: int = PER_DEVICE, total: int = TOTAL) -> None:
        self.per_device = per_device
        self.total = total
        self._open: dict[str, int] = {}
        self._all = 0
        self._lock = threading.Lock()

    def enter(self, device: str) -> Refusal | None:
        """Take a place for ``device``'s stream: None when taken, else why not."""
        with self._lock:
            mine = self._open.get(device, 0)
            if mine >= self.per_device:
                return Refusal("device", mine, self.per_device)
            if self._all >= self.total:
                return Refusal("table", self._all, self.total)
            self._open[device] = mine + 1
            self._all += 1
            return None

    def leave(self, device: str) -> None:
        """Give back one of ``device``'s places."""
        with self._lock:
            mine = self._open.get(device, 0)
            if mine <= 0:
                return
            if mine == 1:
                del self._open[device]
            else:
                self._open[device] = mine - 1
            self._all -= 1

    def counts(self, device: str) -> dict[str, int]:
        """Streams open for ``device`` and in all, with both limits."""
        with self._lock:
            return {"device": self._open.get(device, 0), "device_limit": self.per_device,
                    "all": self._all, "all_limit": self.total}
