"""Breaches injected after an observer's view: the tables that make exactly one breach.

:func:`inject` follows :class:`ObservedTable` (the table after an observation
and what the observer knows there) with the observations that break the rule
of one :class:`engine.AlertCode`, for the engine tests and benchmark.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.alerts import AlertCode
from engine.observer import Observer
from engine.rules import RuleSet
from engine.table import MEXICAN, Owner, TableState
from engine.tiles import Tile

#: One observation: a table and its event (None, "pass" or "out").
Observation = tuple[TableState, "str | None"]



class ObservedTable:
    """The table after an observation and what the observer knows there."""

    def __init__(self, rules: RuleSet, players: int, engine: int, observer: Observer,
                 table: TableState) -> None:
        self.rules = rules
        self.players = players
        self.engine = engine
        self.size = rules.set + 1
        self.observer = observer
        self.table = table
        self.mover = observer.to_move
        self.on_table = set(table.tiles())
        self.count = [0] * self.size
        for tile in self.on_table:
            self.count[tile.a] += 1
            if tile.b != tile.a:
                self.count[tile.b] += 1
        #: the marker state of a closed own train
        self.closed_own = not rules.marker_opens
        self.started = self.mover in observer.started
        #: the mover is still bound by a first-turn rule other than one tile
        self.first_rule = rules.first_turn != "one-tile" and not self.started

    def obj(self) -> dict[str, Any]:
        return {"engine": self.engine, "trains": [t.to_json() for t in self.table.trains]}

    def blocking(self) -> bool:
        """An open double (or a chicken foot) constrains the mover."""
        opened = self.observer.open_doubles
        for train in self.table.trains:
            if train.feet or train.owner not in opened:
                continue
            if train.open_double and self.count[train.tiles[-1][1]] < self.size:
                return True
        return any(t.feet for t in self.table.trains) or self.observer.answers_owed

    def end(self, owner: Owner) -> int:
        train = self.table.train(owner)
        return train.end(self.engine) if train else self.engine

    def own_open(self) -> bool:
        train = self.table.train(self.mover)
        marker = train.marker if train else not self.rules.marker_opens
        return marker == self.rules.marker_opens

    def free(self, value: int, double: bool = False, avoid: set[Tile] | None = None) -> Tile | None:
        """A tile carrying ``value`` that is not on the table."""
        avoid = avoid or set()
        for other in range(self.size):
            tile = Tile(value, other)
            if tile.is_double != double or tile in self.on_table or tile in avoid:
                continue
            return tile
        return None


def _set(obj: dict[str, Any], owner: Owner, *, add: list[list[int]] | None = None,
         marker: bool | None = None, drop_last: bool = False) -> None:
    for train in obj["trains"]:
        if train["owner"] == owner:
            break
    else:
        train = {"owner": owner, "tiles": [], "marker": False}
        obj["trains"].append(train)
    if add:
        train["tiles"].extend(add)
    if marker is not None:
        train["marker"] = marker
    if drop_last:
        train["tiles"].pop()


def _table(obj: dict[str, Any]) -> TableState:
    return TableState.from_json(obj)


def inject(code: AlertCode, view: ObservedTable) -> list[Observation] | None:
    """Observations that follow ``view`` and contain exactly one breach ``code``.

    None when the position does not allow that breach cleanly.
    """
    if code in _ANYWHERE:
        return _ANYWHERE[code](view)
    if code not in _LAID and code not in _UNBLOCKED:
        raise ValueError(code)
    if view.blocking() or view.rules.chicken_foot and code != AlertCode.UNSATISFIED_DOUBLE:
        return None
    if code in _LAID:
        return _one_tile(code, view)
    return _UNBLOCKED[code](view)


def _tile_removed(view: ObservedTable) -> list[Observation] | None:
    for train in view.table.trains:
        if train.tiles:
            obj = view.obj()
            _set(obj, train.owner, drop_last=True)
            return [(_table(obj), None)]
    return None


def _marker_missing(view: ObservedTable) -> list[Observation] | None:
    obj = view.obj()
    _set(obj, view.mover, marker=view.closed_own)
    return [(_table(obj), "pass")]


def _one_tile(code: AlertCode, view: ObservedTable) -> list[Observation] | None:
    """One tile laid by the mover that breaks ``code`` (the Mexican train's where it may)."""
    if view.first_rule and code not in (AlertCode.MARKER_STALE, AlertCode.MISMATCH):
        return None
    on_mexican = not view.first_rule and code in (
        AlertCode.EXTRA_TILE, AlertCode.NOT_IN_SET, AlertCode.DUPLICATE_TILE)
    target: Owner = MEXICAN if on_mexican else view.mover
    add = _LAID[code](view, view.end(target))
    if add is None:
        return None
    obj = view.obj()
    _set(obj, target, add=add, marker=view.closed_own if code == AlertCode.MISMATCH else None)
    return [(_table(obj), None)]


def _mismatch(view: ObservedTable, end: int) -> list[list[int]] | None:
    for value in range(view.size):
        if value == end:
            continue
        tile = view.free(value)
        if tile and not tile.has(end):
            return [[tile.a, tile.other(tile.a)]]
    return None


def _not_in_set(view: ObservedTable, end: int) -> list[list[int]] | None:
    return [[end, view.size + 2]]


def _duplicate(view: ObservedTable, end: int) -> list[list[int]] | None:
    dup = next((t for t in sorted(view.on_table) if t.has(end) and not t.is_double), None)
    return None if dup is None else [[end, dup.other(end)]]


def _extra_tile(view: ObservedTable, end: int) -> list[list[int]] | None:
    one = view.free(end)
    if one is None:
        return None
    far = one.other(end)
    two = view.free(far, avoid={one})
    if two is None or far == end:
        return None
    return [[end, far], [far, two.other(far)]]


def _marker_stale(view: ObservedTable, end: int) -> list[list[int]] | None:
    """A legal tile on one's own (open) train, the marker stays."""
    if not view.own_open() or view.first_rule:
        return None
    tile = view.free(end)
    return None if tile is None else [[end, tile.other(end)]]


def _closed_train(view: ObservedTable) -> list[Observation] | None:
    if view.first_rule:
        return None
    for train in view.table.trains:
        if train.owner in (view.mover, MEXICAN) or train.marker == view.rules.marker_opens:
            continue
        end = train.end(view.engine)
        tile = view.free(end)
        if tile is None:
            continue
        obj = view.obj()
        _set(obj, train.owner, add=[[end, tile.other(end)]])
        return [(_table(obj), None)]
    return None


def _first_turn(view: ObservedTable) -> list[Observation] | None:
    if view.rules.first_turn != "own-train-only" or view.started:
        return None
    end = view.end(MEXICAN)
    tile = view.free(end)
    if tile is None:
        return None
    obj = view.obj()
    _set(obj, MEXICAN, add=[[end, tile.other(end)]])
    return [(_table(obj), None)]


def _unsatisfied_double(view: ObservedTable) -> list[Observation] | None:
    """The mover lays a double on the Mexican train and passes; the next seat then
    plays on its own train instead of satisfying it."""
    rules, mover = view.rules, view.mover
    if view.first_rule or rules.chicken_foot and view.blocking():
        return None
    end = view.end(MEXICAN)
    if view.free(end, double=True) is None or view.count[end] >= view.size - 1:
        return None
    obj = view.obj()
    _set(obj, MEXICAN, add=[[end, end]])
    _set(obj, mover, marker=rules.marker_opens)
    first = (_table(obj), "pass")
    nxt = (mover + 1) % view.players
    if nxt not in view.observer.started and rules.first_turn != "one-tile":
        return None
    own_end = view.end(nxt)
    tile = view.free(own_end, avoid={Tile(end, end)})
    if tile is None or tile.has(end):
        return None
    _set(obj, nxt, add=[[own_end, tile.other(own_end)]], marker=view.closed_own)
    return [first, (_table(obj), None)]


def _double_order(view: ObservedTable) -> list[Observation] | None:
    """Two doubles laid (one's own, then the Mexican train's); the wrong one satisfied."""
    rules, mover = view.rules, view.mover
    if rules.satisfy_order == "any" or rules.must_satisfy_own_double:
        return None
    if view.first_rule or rules.max_open_doubles == 1:
        return None
    a_end, b_end = view.end(mover), view.end(MEXICAN)
    if a_end == b_end:
        return None
    da, db = view.free(a_end, double=True), view.free(b_end, double=True)
    if da is None or db is None:
        return None
    played = rules.satisfy_order == "played"
    wrong_end = b_end if played else a_end
    wrong_owner: Owner = MEXICAN if played else mover
    follow = view.free(wrong_end, avoid={da, db})
    if follow is None or follow.has(a_end if wrong_end == b_end else b_end):
        return None
    if view.count[a_end] >= view.size - 2 or view.count[b_end] >= view.size - 2:
        return None
    obj = view.obj()
    _set(obj, mover, add=[[a_end, a_end]], marker=view.closed_own)
    own_double = (_table(obj), None)
    _set(obj, MEXICAN, add=[[b_end, b_end]])
    mexican_double = (_table(obj), None)
    _set(obj, wrong_owner, add=[[wrong_end, follow.other(wrong_end)]])
    return [own_double, mexican_double, (_table(obj), None)]


_Injector = Callable[[ObservedTable], "list[Observation] | None"]
#: Codes injected whatever the table shows.
_ANYWHERE: dict[AlertCode, _Injector] = {AlertCode.TILE_REMOVED: _tile_removed,
                                         AlertCode.MARKER_MISSING: _marker_missing}
#: Codes made by one tile laid by the mover: the tiles to lay on a train ending in ``end``.
_LAID: dict[AlertCode, Callable[[ObservedTable, int], list[list[int]] | None]] = {
    AlertCode.MISMATCH: _mismatch, AlertCode.NOT_IN_SET: _not_in_set,
    AlertCode.DUPLICATE_TILE: _duplicate, AlertCode.EXTRA_TILE: _extra_tile,
    AlertCode.MARKER_STALE: _marker_stale,
}
#: Codes made by several tables, where no open double constrains the mover.
_UNBLOCKED: dict[AlertCode, _Injector] = {
    AlertCode.CLOSED_TRAIN: _closed_train, AlertCode.FIRST_TURN: _first_turn,
    AlertCode.UNSATISFIED_DOUBLE: _unsatisfied_double, AlertCode.DOUBLE_ORDER: _double_order,
}
