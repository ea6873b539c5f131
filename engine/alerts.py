"""What the observer reports: :class:`Alert` and the alert codes of CONTRACTS.md."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.table import Owner

#: Alert codes of CONTRACTS.md, code -> meaning. ``open-double`` is a notice.
ALERT_CODES: dict[str, str] = {
    "mismatch": "a tile's near end does not match the end it was laid on",
    "closed-train": "a tile on another player's train that is not open",
    "unsatisfied-double": "a tile elsewhere while a satisfiable double is open",
    "double-order": "doubles satisfied out of the order the rules require",
    "extra-tile": "more tiles in one turn than the rules allow",
    "first-turn": "a first-turn play the rules forbid",
    "duplicate-tile": "the same tile twice on the table",
    "not-in-set": "a value outside the set",
    "tile-removed": "a tile that was on the table is gone",
    "marker-missing": "a player passed and their train is not marked",
    "marker-stale": "a player played on their own train and the marker stayed",
    "open-double": "(notice) a double now waits to be satisfied",
}

#: Codes that are notices, not breaches.
NOTICE_CODES = frozenset({"open-double"})


@dataclass(frozen=True)
class Alert:
    """One problem seen at observation ``at``: ``code`` from :data:`ALERT_CODES`."""

    at: int
    code: str
    seat: int | None
    train: Owner | None
    message: str

    @property
    def is_error(self) -> bool:
        return self.code not in NOTICE_CODES

    def to_json(self) -> dict[str, Any]:
        return {
            "at": self.at,
            "code": self.code,
            "seat": self.seat,
            "train": self.train,
            "message": self.message,
        }

    def __str__(self) -> str:
        seat = "-" if self.seat is None else self.seat
        train = "-" if self.train is None else self.train
        return f"[{self.at}] {self.code} seat {seat} train {train}: {self.message}"
