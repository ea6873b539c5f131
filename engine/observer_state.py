"""The observer's search state (``engine.observer``): what the player to move has done so
far this turn, and one explanation of who played."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from engine.alerts import Alert
from engine.table import Owner

#: The observer's state as one value (``Observer._snapshot``).
State = tuple[Any, ...]


@dataclass
class Turn:
    """What the player to move has done so far this turn (also the search state)."""

    ends: dict[Owner, int]
    open: list[Owner]
    count: list[int]
    fresh: list[Owner] = field(default_factory=list)
    after_double: bool = False
    over: bool = False  # a non-double tile ended the turn
    chaining: bool = False
    played_own: bool = False
    #: observation index at which each open double was laid: doubles laid in one
    #: observation tie, since the camera cannot tell which came first.
    rank: dict[Owner, int] = field(default_factory=dict)
    #: chicken foot: owner -> [the double's value, answers still owed]
    cf: dict[Owner, list[int]] = field(default_factory=dict)

    def copy(self) -> Turn:
        return Turn(dict(self.ends), list(self.open), list(self.count), list(self.fresh),
                    self.after_double, self.over, self.chaining, self.played_own,
                    dict(self.rank), {o: list(v) for o, v in self.cf.items()})


@dataclass
class Hypothesis:
    """One explanation of who played so far: the observer's state and its unreported breaches."""

    state: State
    pending: list[Alert] = field(default_factory=list)
    strays: int = 0  # markers changed by someone else than their train's owner
    unseen: int = 0  # moves assumed unseen (with ``unseen_moves``)
    skips: int = 0  # passes (and moves) assumed unseen
    on_trial: bool = False  # a move missed, to be borne out by the next table
