"""The referee of one round: settled tables in, the rules engine's alerts out.

Every source of a live table (the camera tracker, a recording's labels, the
bot simulator, the filmed benchmark games) hands each table it settles to one
:class:`Referee`, which keeps the round's history, judges it with
:class:`engine.Observer` and says what each alert is about
(:class:`AlertDetails`: the tile, the end it was laid on, the double that was
waiting), found from the tables on either side of it as the alert's code says
(:attr:`engine.alerts.AlertCode.about`). It touches no pixels: it stands beside
the observer.

A tile the tracker read one way and later another (a blurred count made out
once the table grew) is a re-reading, not a tile taken away and another
laid: :meth:`Referee.reread` judges the round again as if it had been read so
all along.

>>> from engine import RuleSet, TableState
>>> ref = Referee(RuleSet(), players=2)
>>> ref.settle(TableState.parse("12 | 0: | 1: | mexican:")).alerts
()
>>> ruling = ref.settle(TableState.parse("12 | 0: 12-5 | 1: 3-4 | mexican:"))
>>> [(str(a.code), d.tile) for a, d in ruling]
[('extra-tile', (3, 4))]
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from engine.alerts import About, Alert
from engine.observer import Observer
from engine.rules import RuleSet
from engine.table import MEXICAN, Owner, Pair, TableState

__all__ = ["AlertDetails", "Referee", "Reread", "Ruling", "apply_rereadings", "judge"]

#: Tiles read again: (train owner, index along the train) -> (pair read before, pair now).
Reread = Mapping[tuple[Owner, int], tuple[Pair, Pair]]


@dataclass(frozen=True)
class AlertDetails:
    """What an alert is about, found from the tables around it.

    ``tile`` is the tile concerned as it lies (near end first; for
    ``tile-removed`` the tile gone), ``end`` the count of the train's end it
    was laid on, ``double`` the open double that was waiting (its train and
    count). Each is None where the tables do not tell. ``doubtful`` says the
    alert rests on something read with doubt (the camera's tracker marks it so):
    it asks to be checked, not believed.
    """

    tile: Pair | None = None
    end: int | None = None
    double: tuple[Owner, int] | None = None
    doubtful: bool = False

    def to_json(self) -> dict[str, Any]:
        """The details as JSON; ``"doubtful": true`` only where the alert is doubtful."""
        out: dict[str, Any] = {
            "tile": None if self.tile is None else list(self.tile),
            "end": self.end,
            "double": None if self.double is None else {"train": self.double[0],
                                                        "value": self.double[1]},
        }
        if self.doubtful:
            out["doubtful"] = True
        return out

    @classmethod
    def from_json(cls, obj: object) -> AlertDetails:
        """The details :meth:`to_json` wrote (anything else: none known)."""
        if not isinstance(obj, Mapping):
            return cls()
        tile, double = obj.get("tile"), obj.get("double")
        pair = None
        if isinstance(tile, list | tuple) and len(tile) == 2:
            a, b = _count(tile[0]), _count(tile[1])
            pair = None if a is None or b is None else (a, b)
        waiting = None
        if isinstance(double, Mapping):
            owner, value = double.get("train"), _count(double.get("value"))
            seat = MEXICAN if owner == MEXICAN else _count(owner)
            waiting = None if seat is None or value is None else (seat, value)
        return cls(pair, _count(obj.get("end")), waiting, obj.get("doubtful") is True)


def _count(value: object) -> int | None:
    """``value`` when it is a count or a seat (an int from 0), else None."""
    ok = isinstance(value, int) and not isinstance(value, bool) and value >= 0
    return value if ok and isinstance(value, int) else None


@dataclass(frozen=True)
class Ruling:
    """What the referee said about one settled table: its alerts (with what each is
    about) and the seat to move next."""

    alerts: tuple[Alert, ...]
    details: tuple[AlertDetails, ...]
    to_move: int

    def __iter__(self) -> Iterator[tuple[Alert, AlertDetails]]:
        return iter(zip(self.alerts, self.details, strict=True))


def apply_rereadings(table: TableState, fixes: Reread) -> TableState:
    """``table`` with the tiles ``fixes`` names (where they still show the old values)
    taken as re-read."""
    trains = []
    for train in table.trains:
        tiles = list(train.tiles)
        for (owner, k), (was, got) in fixes.items():
            if owner == train.owner and k < len(tiles) and sorted(tiles[k]) == sorted(was):
                tiles[k] = got
        trains.append(replace(train, tiles=tuple(tiles)))
    return replace(table, trains=tuple(trains))


class Referee:
    """Judges one round's settled tables, in order (see the module docstring).

    ``engine`` is the round's engine when known (the app knows the round);
    otherwise the first settled table's is taken. ``unseen_moves``: a seat may have
    moved without the table showing it (a camera's tables; ``engine.Observer``).
    """

    def __init__(self, rules: RuleSet, players: int, first: int = 0,
                 engine: int | None = None, unseen_moves: bool = False) -> None:
        self.rules = rules
        self.players = players
        self.first = first
        self.unseen_moves = unseen_moves
        self._engine = engine
        self._observer: Observer | None = None
        self._history: list[tuple[TableState, str | None]] = []

    @property
    def engine(self) -> int | None:
        """The round's engine: the one given, else the first settled table's."""
        return self._observer.engine if self._observer is not None else self._engine

    @property
    def started(self) -> bool:
        """Whether a table has been settled this round."""
        return bool(self._history)

    @property
    def history(self) -> tuple[TableState, ...]:
        """Every table settled so far, in order (re-read tiles as now read)."""
        return tuple(table for table, _ in self._history)

    @property
    def alerts(self) -> list[Alert]:
        """Every alert raised so far, in order."""
        return [] if self._observer is None else list(self._observer.alerts)

    @property
    def moves_missed(self) -> int:
        """Moves the referee takes as played unseen so far (``unseen_moves``)."""
        return 0 if self._observer is None else self._observer.moves_missed

    @property
    def to_move(self) -> int:
        """The seat to move next."""
        if self._observer is None:
            return self.first % self.players if self.players > 0 else 0
        return self._observer.to_move

    def _new_observer(self, engine: int) -> Observer:
        return Observer(self.rules, self.players, engine, self.first, self.unseen_moves)

    def settle(self, table: TableState, event: str | None = None) -> Ruling:
        """Judge the next settled table (``event``: ``"pass"`` or ``"out"`` announced)."""
        if self._observer is None:
            self._observer = self._new_observer(
                self._engine if self._engine is not None else table.engine)
        self._history.append((table, event))
        alerts = tuple(self._observer.observe(table, event))
        details = tuple(_details(alerts, self.history))
        return Ruling(alerts, details, self._observer.to_move)

    def reread(self, fixes: Reread) -> None:
        """Take the tiles ``fixes`` names as read so all along and judge the round again.

        The alerts the earlier tables raised were given already: none is returned.
        """
        if self._observer is None or not fixes:
            return
        self._history = [(apply_rereadings(t, fixes), e) for t, e in self._history]
        self._observer = self._new_observer(self._observer.engine)
        for table, event in self._history:
            self._observer.observe(table, event)


def judge(tables: Iterable[TableState], rules: RuleSet, players: int,
          first: int = 0, unseen_moves: bool = False) -> list[Alert]:
    """Every alert a :class:`Referee` raises on ``tables`` settled in order."""
    referee = Referee(rules, players, first, unseen_moves=unseen_moves)
    for table in tables:
        referee.settle(table)
    return referee.alerts


# --- what an alert is about ----------------------------------------------------------


def _laid(before: TableState | None, after: TableState,
          owner: Owner | None) -> tuple[list[tuple[Pair, int]], list[Pair]]:
    """Tiles laid on ``owner``'s train between two tables, each with the end it was laid
    on, and the tiles gone from it."""
    if owner is None:
        return [], []
    now = after.train(owner)
    was = None if before is None else before.train(owner)
    old = () if was is None else was.tiles
    new = () if now is None else now.tiles
    common = 0
    while common < min(len(old), len(new)) and old[common] == new[common]:
        common += 1
    end = after.engine if common == 0 else new[common - 1][1]
    laid = []
    for pair in new[common:]:
        laid.append((pair, end))
        end = pair[1]
    return laid, list(old[common:])


def _open_double(before: TableState | None, owner: Owner | None) -> tuple[Owner, int] | None:
    """A double lying open at a train's end before the tile (another train's first)."""
    if before is None:
        return None
    doubles = [(t.owner, t.tiles[-1][0]) for t in before.trains
               if t.tiles and t.tiles[-1][0] == t.tiles[-1][1]]
    others = [d for d in doubles if d[0] != owner]
    return others[0] if others else (doubles[0] if doubles else None)


def _about(alert: Alert, rank: int, same: int, history: Sequence[TableState]) -> AlertDetails:
    """The details of ``alert``, the ``rank``-th of ``same`` alerts with its code and train
    raised at once."""
    if not 0 <= alert.at < len(history):
        return AlertDetails()
    before = history[alert.at - 1] if alert.at > 0 else None
    laid, gone = _laid(before, history[alert.at], alert.train)
    about = alert.code.about
    if about is About.TILE_GONE:
        return AlertDetails(tile=gone[0] if gone else None)
    if about is About.TRAIN or not laid:
        return AlertDetails()
    pick: tuple[Pair, int] | None = None
    if about is About.MISFIT:
        pick = next(((p, e) for p, e in laid if p[0] != e), None)
    elif about is About.DOUBLE_LAID:
        pick = next(((p, e) for p, e in reversed(laid) if p[0] == p[1]), None)
    elif len(laid) == same:
        pick = laid[rank]
    elif about is About.LATE_TILE and len(laid) > same:  # the tiles after the turn's last
        pick = laid[len(laid) - same + rank]
    elif len(laid) == 1:
        pick = laid[0]
    if pick is None:
        return AlertDetails()
    double = _open_double(before, alert.train) if about is About.WAITING_DOUBLE else None
    return AlertDetails(tile=pick[0], end=pick[1], double=double)


def _details(alerts: Sequence[Alert], history: Sequence[TableState]) -> Iterator[AlertDetails]:
    keys = [(a.at, a.code, a.train) for a in alerts]
    for i, alert in enumerate(alerts):
        key = keys[i]
        yield _about(alert, keys[:i].count(key), keys.count(key), history)
