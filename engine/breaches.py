"""Breaking rules on purpose: breaches injected into observed tables.

Three uses, one place:

- :func:`inject` follows an observer's current view (:class:`ObservedTable`)
  with the tables that make exactly one breach of a given code (the engine
  tests and benchmark);
- :func:`inject_breaches` rewrites a recorded round so that some rules are
  broken at different turns, each :class:`PlantedBreach` saying which alert
  it should raise (the filmed rounds of ``datasets.table_game``);
- :func:`mismatched_tile` picks a tile that does not fit a train, and
  :func:`first_mismatch` finds it again in a table (the app's simulated game).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from engine.observer import Observer
from engine.rules import RuleSet
from engine.table import MEXICAN, Owner, Pair, TableState, Train
from engine.tiles import Tile

#: One observation: a table and its event (None, "pass" or "out").
Observation = tuple[TableState, "str | None"]
#: Breaches a camera can see in a recorded round (a pass is not seen, so
#: ``marker-missing`` is not among them).
BREACHES = ("mismatch", "extra-tile", "tile-removed", "marker-stale", "duplicate-tile")


# ---------------------------------------------------------------------- after an observer's view


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


def inject(code: str, view: ObservedTable) -> list[Observation] | None:
    """Observations that follow ``view`` and contain exactly one breach ``code``.

    None when the position does not allow that breach cleanly.
    """
    if code in _ANYWHERE:
        return _ANYWHERE[code](view)
    if code not in _LAID and code not in _UNBLOCKED:
        raise ValueError(code)
    if view.blocking() or view.rules.chicken_foot and code != "unsatisfied-double":
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


def _one_tile(code: str, view: ObservedTable) -> list[Observation] | None:
    """One tile laid by the mover that breaks ``code`` (the Mexican train's where it may)."""
    if view.first_rule and code not in ("marker-stale", "mismatch"):
        return None
    on_mexican = code in ("extra-tile", "not-in-set", "duplicate-tile") and not view.first_rule
    target: Owner = MEXICAN if on_mexican else view.mover
    add = _LAID[code](view, view.end(target))
    if add is None:
        return None
    obj = view.obj()
    _set(obj, target, add=add, marker=view.closed_own if code == "mismatch" else None)
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
_ANYWHERE: dict[str, _Injector] = {"tile-removed": _tile_removed, "marker-missing": _marker_missing}
#: Codes made by one tile laid by the mover: the tiles to lay on a train ending in ``end``.
_LAID: dict[str, Callable[[ObservedTable, int], list[list[int]] | None]] = {
    "mismatch": _mismatch, "not-in-set": _not_in_set, "duplicate-tile": _duplicate,
    "extra-tile": _extra_tile, "marker-stale": _marker_stale,
}
#: Codes made by several tables, where no open double constrains the mover.
_UNBLOCKED: dict[str, _Injector] = {
    "closed-train": _closed_train, "first-turn": _first_turn,
    "unsatisfied-double": _unsatisfied_double, "double-order": _double_order,
}


# ---------------------------------------------------------------------- into a recorded round


@dataclass(frozen=True)
class PlantedBreach:
    """A rule broken on purpose: ``code`` expected from the observer on ``train``,
    at observation ``index``."""

    code: str
    train: Owner
    index: int


def inject_breaches(observations: Sequence[Observation], rng: random.Random,
                    kinds: Sequence[str] = BREACHES) -> tuple[list[Observation],
                                                              list[PlantedBreach]]:
    """Break one rule of each kind in ``kinds`` at different turns (where the round allows)."""
    obs = list(observations)
    breaches: list[PlantedBreach] = []
    used: set[int] = set()

    def free(i: int) -> bool:
        return all(abs(i - j) > 2 for j in used)

    for kind in kinds:
        candidates = list(range(2, len(obs) - 2))
        rng.shuffle(candidates)
        for i in candidates:
            if not free(i):
                continue
            done = _plant(kind, obs, i)
            if done is not None:
                obs, breach = done
                used.add(i)
                breaches.append(breach)
                break
    return obs, breaches


def _replace(table: TableState, owner: Owner, tiles: tuple[Pair, ...] | None = None,
             marker: bool | None = None) -> TableState:
    trains = []
    for t in table.trains:
        if t.owner == owner:
            t = Train(t.owner, t.tiles if tiles is None else tiles,
                      t.marker if marker is None else marker)
        trains.append(t)
    return TableState(table.engine, tuple(trains))


def _new_tiles(before: TableState, after: TableState) -> list[tuple[Owner, int]]:
    """``(owner, position)`` of the tiles in ``after`` that were not in ``before``."""
    out = []
    for t in after.trains:
        old = before.train(t.owner)
        n = len(old.tiles) if old is not None else 0
        out += [(t.owner, i) for i in range(n, len(t.tiles))]
    return out


def _single_end_play(new: list[tuple[Owner, int]],
                     now: TableState) -> tuple[Owner, int, int, int] | None:
    """``(owner, position, near, far)`` when exactly one non-double tile was laid at a
    train's end between two observations, else ``None``."""
    if len(new) != 1:
        return None
    owner, pos = new[0]
    train = now.train(owner)
    assert train is not None
    near, far = train.tiles[pos]
    if near == far or pos != len(train.tiles) - 1:
        return None
    return owner, pos, near, far


@dataclass(frozen=True)
class _Spot:
    """Observation ``i`` of a recorded round and what the injections look at there."""

    obs: list[Observation]
    i: int
    before: TableState
    now: TableState
    new: list[tuple[Owner, int]]
    on_table: set[Tile]
    top: int  # the set's highest value (as far as the round shows)

    def settled(self, owner: Owner, length: int) -> bool:
        """The train never grows after this observation."""
        last = self.obs[-1][0].train(owner)
        return last is not None and len(last.tiles) == length

    def changed(self, owner: Owner, tiles: Callable[[tuple[Pair, ...]], tuple[Pair, ...]],
                pos: int) -> list[Observation]:
        """The round with ``owner``'s train rewritten from observation ``i`` on (where it
        is longer than ``pos``)."""
        out = []
        for j, (table, event) in enumerate(self.obs):
            t = table.train(owner)
            if j >= self.i and t is not None and len(t.tiles) > pos:
                table = _replace(table, owner, tiles(t.tiles))
            out.append((table, event))
        return out


Planted = tuple[list[Observation], PlantedBreach]


def _plant(kind: str, obs: list[Observation], i: int) -> Planted | None:
    before, now = obs[i - 1][0], obs[i][0]
    on_table = {Tile(*p) for t in obs[-1][0].trains for p in t.tiles} | {
        Tile(now.engine, now.engine)}
    top = max([now.engine] + [max(t.a, t.b) for t in on_table])
    spot = _Spot(obs, i, before, now, _new_tiles(before, now), on_table, top)
    plant = _PLANTERS.get(kind)
    return None if plant is None else plant(spot, kind)


def _swapped_tile(spot: _Spot, kind: str) -> Planted | None:
    """mismatch / duplicate-tile: the one tile laid is another (not matching, or one
    already on the table)."""
    single = _single_end_play(spot.new, spot.now)
    if single is None:
        return None
    owner, pos, near, far = single
    if kind == "mismatch":
        options = [v for v in range(spot.top + 1)
                   if v != near and Tile(v, far) not in spot.on_table]
        if not options:
            return None
        swap = (options[len(options) // 2], far)
    else:
        twins = [p for t in spot.before.trains for p in t.tiles if far in p and p != (near, far)]
        if not twins:
            return None
        other = twins[0][0] if twins[0][1] == far else twins[0][1]
        swap = (other, far)  # the same tile as one already on the table
    out = spot.changed(owner, lambda tiles: tiles[:pos] + (swap,) + tiles[pos + 1:], pos)
    return out, PlantedBreach(kind, owner, spot.i)


def _second_tile(spot: _Spot, kind: str) -> Planted | None:
    """extra-tile: the player to move lays a second tile on the train they just played on."""
    single = _single_end_play(spot.new, spot.now)
    if single is None:
        return None
    owner, pos, near, far = single
    if Tile(far, far) not in spot.on_table:
        extra = (far, far)  # a double: whatever is laid on it later still matches
    else:
        options = [v for v in range(spot.top + 1) if v != far and Tile(far, v) not in spot.on_table]
        if not options or not spot.settled(owner, pos + 1):
            return None
        extra = (far, options[0])
    out = spot.changed(owner, lambda tiles: tiles[:pos + 1] + (extra,) + tiles[pos + 1:], -1)
    return out, PlantedBreach("extra-tile", owner, spot.i)


def _taken_back(spot: _Spot, kind: str) -> Planted | None:
    """tile-removed: a tile at the end of a train that grows no more is taken back."""
    if spot.new:
        return None
    ends = [t for t in spot.now.trains if t.tiles and spot.settled(t.owner, len(t.tiles))]
    if not ends:
        return None
    train = ends[0]
    out = [(table if j <= spot.i else _replace(table, train.owner, train.tiles[:-1]), event)
           for j, (table, event) in enumerate(spot.obs)]
    return out, PlantedBreach("tile-removed", train.owner, spot.i + 1)


def _marker_left(spot: _Spot, kind: str) -> Planted | None:
    """marker-stale: the owner plays on their marked train and the marker stays on."""
    if len(spot.new) != 1:
        return None
    owner, _ = spot.new[0]
    old = spot.before.train(owner)
    cur = spot.now.train(owner)
    if not isinstance(owner, int) or old is None or cur is None:
        return None
    if not (old.marker and not cur.marker):
        return None
    obs, i = spot.obs, spot.i
    out = obs[:i] + [(_replace(spot.now, owner, marker=True), obs[i][1])] + obs[i + 1:]
    return out, PlantedBreach("marker-stale", owner, i)


_PLANTERS: dict[str, Callable[[_Spot, str], Planted | None]] = {
    "mismatch": _swapped_tile, "duplicate-tile": _swapped_tile, "extra-tile": _second_tile,
    "tile-removed": _taken_back, "marker-stale": _marker_left,
}


# ---------------------------------------------------------------------- a tile that does not fit


def mismatched_tile(table: TableState, owner: Owner, top: int,
                    rng: random.Random) -> Pair | None:
    """A tile of the double-``top`` set, not on the table, that does not fit ``owner``'s train."""
    train = table.train(owner)
    end = table.engine if train is None else train.end(table.engine)
    laid = {t.pair for t in table.tiles()}
    candidates = [
        (a, b) for a in range(top + 1) for b in range(a, top + 1)
        if end not in (a, b) and (a, b) not in laid
    ]
    return rng.choice(candidates) if candidates else None


def first_mismatch(table: TableState) -> tuple[Owner, Pair, int] | None:
    """The first tile whose near end does not match the end it was laid on:
    ``(owner, tile, end)``."""
    for train in table.trains:
        end = table.engine
        for near, far in train.tiles:
            if near != end:
                return train.owner, (near, far), end
            end = far
    return None
