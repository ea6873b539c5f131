"""What following a game says: typed events, one class per kind of news.

The tracker (:class:`vision.tracking.tracker.Tracker`) yields these, and so does every
other source of a live table in the companion app (a recording's labels, the
bot simulator): a consumer tells them apart with ``isinstance`` or ``match``,
never by a string. Each has ``to_json()`` (the ``mtrain watch --json`` line)
and a one-line ``str()`` for the console.

- :class:`TableSettled`: a newly settled table, with the seat to move next;
- :class:`AlertRaised`: one alert of the rules engine about that table, with
  the tile and ends it concerns (:class:`engine.AlertDetails`);
- :class:`CameraStatus`: camera news, its :class:`CameraReason`;
- :class:`Uncertain`: the settled table left something unresolved;
- :class:`RoundOver`: the source saw the round end (or a recording loops).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import TYPE_CHECKING, Any, ClassVar

from engine import Alert, AlertDetails, TableState

if TYPE_CHECKING:
    from vision.table import TableReading

__all__ = [
    "AlertRaised",
    "CameraReason",
    "CameraStatus",
    "RoundOver",
    "SourceEvent",
    "TableSettled",
    "TrackerEvent",
    "Uncertain",
]


class CameraReason(Enum):
    """Why a :class:`CameraStatus` was sent."""

    #: The source is being started.
    STARTING = "starting"
    #: The camera, video or folder was opened; frames follow.
    OPENED = "opened"
    #: A camera cannot be opened; another attempt follows.
    RETRYING = "retrying"
    #: A camera stopped delivering frames; it is reconnected.
    LOST = "lost"
    #: A camera could not be opened in the attempts allowed.
    GAVE_UP = "gave-up"
    #: A video file this build cannot read.
    UNREADABLE = "unreadable"
    #: The source failed with an error; it is started again.
    FAILED = "failed"
    #: A video file or folder of frames came to its end.
    ENDED = "ended"
    #: The camera was bumped (the whole view shifted): the table is learned again
    #: (``vision.change.known_table``); nothing settled is lost.
    MOVED = "moved"

    @property
    def ok(self) -> bool:
        """Whether the camera is fine (not lost, failing or unreadable)."""
        return self in (CameraReason.STARTING, CameraReason.OPENED, CameraReason.ENDED,
                        CameraReason.MOVED)


def _stamp(frame: int, time_s: float) -> str:
    return f"[{time_s:7.2f}s #{frame}]"


def _head(kind: str, frame: int, time_s: float) -> dict[str, Any]:
    return {"event": kind, "frame": frame, "time": round(time_s, 3)}


@dataclass(frozen=True)
class TableSettled:
    """A newly settled table; ``turn`` is the seat to move next (None: not known).

    ``event`` is what the players announced with it (``"pass"``, ``"out"``);
    ``reading`` the tracker's reading it came from (with its uncertainties).
    """

    kind: ClassVar[str] = "table"
    table: TableState
    turn: int | None = None
    event: str | None = None
    frame: int = 0
    time_s: float = 0.0
    reading: TableReading | None = field(default=None, compare=False, repr=False)

    def to_json(self) -> dict[str, Any]:
        out = _head(self.kind, self.frame, self.time_s)
        out["table"] = self.table.to_json()
        if self.turn is not None:
            out["turn"] = self.turn
        if self.event is not None:
            out["announced"] = self.event
        if self.reading is not None:
            out["uncertainties"] = [u.to_json() for u in self.reading.uncertainties]
        return out

    def __str__(self) -> str:
        return f"{_stamp(self.frame, self.time_s)} table  {self.table.text()}"


@dataclass(frozen=True)
class AlertRaised:
    """One alert of the rules engine (:class:`engine.Alert`) and what it is about."""

    kind: ClassVar[str] = "alert"
    alert: Alert
    details: AlertDetails = AlertDetails()
    frame: int = 0
    time_s: float = 0.0

    @property
    def message(self) -> str:
        return self.alert.message

    def to_json(self) -> dict[str, Any]:
        out = _head(self.kind, self.frame, self.time_s)
        out["message"] = self.alert.message
        out["alert"] = self.alert.to_json()
        out["details"] = self.details.to_json()
        return out

    def __str__(self) -> str:
        return f"{_stamp(self.frame, self.time_s)} ALERT  {self.alert}"


@dataclass(frozen=True)
class CameraStatus:
    """Camera news: ``reason`` says what happened, ``message`` says it to a person."""

    kind: ClassVar[str] = "status"
    reason: CameraReason
    message: str
    frame: int = 0
    time_s: float = 0.0

    @property
    def ok(self) -> bool:
        return self.reason.ok

    def to_json(self) -> dict[str, Any]:
        out = _head(self.kind, self.frame, self.time_s)
        out["reason"] = self.reason.value
        out["message"] = self.message
        return out

    def __str__(self) -> str:
        return f"{_stamp(self.frame, self.time_s)} status {self.message}"


@dataclass(frozen=True)
class Uncertain:
    """The settled table left something unresolved (said in ``message``)."""

    kind: ClassVar[str] = "uncertain"
    message: str
    frame: int = 0
    time_s: float = 0.0

    def to_json(self) -> dict[str, Any]:
        out = _head(self.kind, self.frame, self.time_s)
        out["message"] = self.message
        return out

    def __str__(self) -> str:
        return f"{_stamp(self.frame, self.time_s)} uncertain {self.message}"


@dataclass(frozen=True)
class RoundOver:
    """The source saw the round end (someone went out, or a recording starts again)."""

    kind: ClassVar[str] = "round-over"
    message: str = "The round is over."
    frame: int = 0
    time_s: float = 0.0

    def to_json(self) -> dict[str, Any]:
        out = _head(self.kind, self.frame, self.time_s)
        out["message"] = self.message
        return out

    def __str__(self) -> str:
        return f"{_stamp(self.frame, self.time_s)} over   {self.message}"


#: What the tracker yields.
TrackerEvent = TableSettled | AlertRaised | CameraStatus | Uncertain
#: What a live source of the companion app yields: the tracker's events and the round's end.
SourceEvent = TableSettled | AlertRaised | CameraStatus | Uncertain | RoundOver
