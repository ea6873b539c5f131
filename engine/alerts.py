"""What the observer reports: :class:`Alert` and its :class:`AlertCode`.

:class:`AlertCode` is the one list of alert codes: each member's value is the
code CONTRACTS.md prints (``"mismatch"``), with its meaning, whether it is a
notice rather than a breach, and what it is :class:`About` (what the referee
looks up in the tables around it). Adding an alert means a member here, the
place that raises it and its test; the app's wording table is checked complete
against this enum.

>>> AlertCode("mismatch") is AlertCode.MISMATCH, AlertCode.MISMATCH == "mismatch"
(True, True)
>>> AlertCode.OPEN_DOUBLE.notice, AlertCode.OPEN_DOUBLE.about
(True, <About.DOUBLE_LAID: 'double-laid'>)
>>> AlertCode.CLOSED_TRAIN.by_turn, AlertCode.MISMATCH.by_turn
(True, False)
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum, StrEnum
from typing import Any

from engine.table import Owner


class About(Enum):
    """What an alert is about: which tile of the turn it names, and what besides."""

    #: the tile laid whose near end does not match the end it was laid on
    MISFIT = "misfit"
    #: the tile laid (the only one, or the one of several in turn)
    TILE = "tile"
    #: the tile laid, and the open double that was waiting
    WAITING_DOUBLE = "waiting-double"
    #: a tile laid after the turn's last one
    LATE_TILE = "late-tile"
    #: the double laid, which waits now
    DOUBLE_LAID = "double-laid"
    #: the tile gone from the train
    TILE_GONE = "tile-gone"
    #: the train (its marker) only, no tile
    TRAIN = "train"


class AlertCode(StrEnum):
    """An alert code of CONTRACTS.md: its value is the code as printed."""

    meaning: str
    about: About
    notice: bool

    def __new__(cls, value: str, meaning: str, about: About, notice: bool = False) -> AlertCode:
        member = str.__new__(cls, value)
        member._value_ = value
        member.meaning = meaning
        member.about = about
        member.notice = notice
        return member

    MISMATCH = ("mismatch", "a tile's near end does not match the end it was laid on",
                About.MISFIT)
    CLOSED_TRAIN = ("closed-train", "a tile on another player's train that is not open",
                    About.TILE)
    UNSATISFIED_DOUBLE = ("unsatisfied-double",
                          "a tile elsewhere while a satisfiable double is open",
                          About.WAITING_DOUBLE)
    DOUBLE_ORDER = ("double-order", "doubles satisfied out of the order the rules require",
                    About.WAITING_DOUBLE)
    EXTRA_TILE = ("extra-tile", "more tiles in one turn than the rules allow", About.LATE_TILE)
    FIRST_TURN = ("first-turn", "a first-turn play the rules forbid", About.TILE)
    DUPLICATE_TILE = ("duplicate-tile", "the same tile twice on the table", About.TILE)
    NOT_IN_SET = ("not-in-set", "a value outside the set", About.TILE)
    TILE_REMOVED = ("tile-removed", "a tile that was on the table is gone", About.TILE_GONE)
    MARKER_MISSING = ("marker-missing", "a player passed and their train is not marked",
                      About.TRAIN)
    MARKER_STALE = ("marker-stale", "a player played on their own train and the marker stayed",
                    About.TRAIN)
    OPEN_DOUBLE = ("open-double", "(notice) a double now waits to be satisfied",
                   About.DOUBLE_LAID, True)

    @property
    def is_error(self) -> bool:
        """A breach of the rules (not a notice)."""
        return not self.notice

    @property
    def by_turn(self) -> bool:
        """Whether the breach rests on whose turn a change is taken for (who laid a tile on
        which train, which tiles make one turn, who passed): a move the referee never saw
        puts every later change on the wrong seat."""
        return self in _BY_TURN


_BY_TURN = frozenset({AlertCode.CLOSED_TRAIN, AlertCode.EXTRA_TILE, AlertCode.FIRST_TURN,
                      AlertCode.MARKER_MISSING, AlertCode.MARKER_STALE})


@dataclass(frozen=True)
class Alert:
    """One problem seen at observation ``at``."""

    at: int
    code: AlertCode
    seat: int | None
    train: Owner | None
    message: str

    @property
    def is_error(self) -> bool:
        return self.code.is_error

    def to_json(self) -> dict[str, Any]:
        return {
            "at": self.at,
            "code": self.code.value,
            "seat": self.seat,
            "train": self.train,
            "message": self.message,
        }

    def __str__(self) -> str:
        seat = "-" if self.seat is None else self.seat
        train = "-" if self.train is None else self.train
        return f"[{self.at}] {self.code.value} seat {seat} train {train}: {self.message}"
