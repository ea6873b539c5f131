"""Helpers for the engine tests: bot games, their public view, and injected breaches."""

from __future__ import annotations

import random
from typing import Any

from engine import (
    MEXICAN,
    GreedyBot,
    LongestTrainBot,
    Observer,
    RandomBot,
    Round,
    RuleSet,
    TableState,
    Tile,
    record_round,
)

Observation = tuple[TableState, "str | None"]

#: The presets the observer property tests feed bot games from.
PRESETS_FED = ["standard", "chain", "engine-holder", "private-marker", "positive", "double-9",
               "chicken-foot"]


def bot_game(
    preset: str, seed: int, players: int | None = None
) -> tuple[RuleSet, Round, int, list[Observation]]:
    """Deal a round with ``seed`` and play it with a mix of bots; the log of public tables."""
    rng = random.Random(seed)
    rules = RuleSet.preset(preset)
    if players is None:
        players = rng.choice([2, 3, 4] if rules.set == 9 else [2, 3, 4, 5, 6])
    rnd = Round.deal(rules, players, rng.randrange(rules.set + 1), rng.randrange(players), rng)
    first = rnd.turn
    kinds = [GreedyBot(), RandomBot(random.Random(seed)), LongestTrainBot()]
    bots = [kinds[rng.randrange(3)] for _ in range(players)]
    log = record_round(rnd, bots)
    return rules, rnd, first, log


def feed(
    rules: RuleSet, players: int, engine: int, first: int, log: list[Observation]
) -> Observer:
    observer = Observer(rules, players, engine, first)
    for table, event in log:
        observer.observe(table, event)
    return observer


# ---------------------------------------------------------------------- injections


class _View:
    """The table after observation ``k`` and what the observer knows there."""

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

    def obj(self) -> dict[str, Any]:
        return {"engine": self.engine, "trains": [t.to_json() for t in self.table.trains]}

    def blocking(self) -> bool:
        for train in self.table.trains:
            if train.feet or train.owner not in self.observer._open:
                continue
            if train.open_double and self.count[train.tiles[-1][1]] < self.size:
                return True
        return any(t.feet for t in self.table.trains) or bool(self.observer._cf)

    def end(self, owner: Any) -> int:
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


def _set(obj: dict[str, Any], owner: Any, *, add: list[list[int]] | None = None,
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


def inject(code: str, view: _View) -> list[Observation] | None:
    """Observations that follow ``view`` and contain exactly one breach ``code``.

    None when the position does not allow that breach cleanly.
    """
    rules, mover = view.rules, view.mover
    closed_own = not rules.marker_opens  # the marker state of a closed own train
    started = mover in view.observer.started
    first_rule = rules.first_turn != "one-tile" and not started
    if code == "tile-removed":
        for train in view.table.trains:
            if train.tiles:
                obj = view.obj()
                _set(obj, train.owner, drop_last=True)
                return [(_table(obj), None)]
        return None
    if code == "marker-missing":
        obj = view.obj()
        _set(obj, mover, marker=closed_own)
        return [(_table(obj), "pass")]
    if view.blocking() or rules.chicken_foot and code != "unsatisfied-double":
        return None
    if code in ("mismatch", "not-in-set", "duplicate-tile", "extra-tile", "marker-stale"):
        if first_rule and code != "marker-stale" and code != "mismatch":
            return None
        target: Any = MEXICAN if code in ("extra-tile", "not-in-set", "duplicate-tile") else mover
        if first_rule:
            target = mover
        end = view.end(target)
        obj = view.obj()
        if code == "mismatch":
            tile = None
            for value in range(view.size):
                if value == end:
                    continue
                tile = view.free(value)
                if tile and not tile.has(end):
                    break
                tile = None
            if tile is None:
                return None
            near = tile.a
            _set(obj, target, add=[[near, tile.other(near)]], marker=closed_own)
        elif code == "not-in-set":
            _set(obj, target, add=[[end, view.size + 2]])
        elif code == "duplicate-tile":
            dup = next((t for t in sorted(view.on_table) if t.has(end) and not t.is_double), None)
            if dup is None:
                return None
            _set(obj, target, add=[[end, dup.other(end)]])
        elif code == "extra-tile":
            one = view.free(end)
            if one is None:
                return None
            far = one.other(end)
            two = view.free(far, avoid={one})
            if two is None or far == end:
                return None
            _set(obj, target, add=[[end, far], [far, two.other(far)]])
        else:  # marker-stale: a legal tile on one's own (open) train, the marker stays
            if not view.own_open() or first_rule:
                return None
            tile = view.free(end)
            if tile is None:
                return None
            _set(obj, mover, add=[[end, tile.other(end)]])
        return [(_table(obj), None)]
    if code == "closed-train":
        if first_rule:
            return None
        for train in view.table.trains:
            if train.owner in (mover, MEXICAN) or train.marker == rules.marker_opens:
                continue
            end = train.end(view.engine)
            tile = view.free(end)
            if tile is None:
                continue
            obj = view.obj()
            _set(obj, train.owner, add=[[end, tile.other(end)]])
            return [(_table(obj), None)]
        return None
    if code == "first-turn":
        if rules.first_turn != "own-train-only" or started:
            return None
        end = view.end(MEXICAN)
        tile = view.free(end)
        if tile is None:
            return None
        obj = view.obj()
        _set(obj, MEXICAN, add=[[end, tile.other(end)]])
        return [(_table(obj), None)]
    if code == "unsatisfied-double":
        # The mover lays a double on the Mexican train and passes; the next seat
        # then plays on its own train instead of satisfying it.
        if first_rule or rules.chicken_foot and view.blocking():
            return None
        end = view.end(MEXICAN)
        if view.free(end, double=True) is None or view.count[end] >= view.size - 1:
            return None
        obj = view.obj()
        _set(obj, MEXICAN, add=[[end, end]])
        _set(obj, mover, marker=rules.marker_opens)
        first = (_table(obj), "pass")
        nxt = (mover + 1) % view.players
        if nxt in view.observer.started or rules.first_turn == "one-tile":
            own_end = view.end(nxt)
            tile = view.free(own_end, avoid={Tile(end, end)})
            if tile is None or tile.has(end):
                return None
            _set(obj, nxt, add=[[own_end, tile.other(own_end)]], marker=closed_own)
            return [first, (_table(obj), None)]
        return None
    if code == "double-order":
        if (rules.satisfy_order == "any" or rules.must_satisfy_own_double or first_rule
                or rules.max_open_doubles == 1):
            return None
        a_end, b_end = view.end(mover), view.end(MEXICAN)
        if a_end == b_end:
            return None
        da, db = view.free(a_end, double=True), view.free(b_end, double=True)
        if da is None or db is None:
            return None
        wrong_end = b_end if rules.satisfy_order == "played" else a_end
        wrong_owner: Any = MEXICAN if rules.satisfy_order == "played" else mover
        follow = view.free(wrong_end, avoid={da, db})
        if follow is None or follow.has(a_end if wrong_end == b_end else b_end):
            return None
        if view.count[a_end] >= view.size - 2 or view.count[b_end] >= view.size - 2:
            return None
        obj = view.obj()
        _set(obj, mover, add=[[a_end, a_end]], marker=closed_own)
        own_double = (_table(obj), None)
        _set(obj, MEXICAN, add=[[b_end, b_end]])
        mexican_double = (_table(obj), None)
        _set(obj, wrong_owner, add=[[wrong_end, follow.other(wrong_end)]])
        return [own_double, mexican_double, (_table(obj), None)]
    raise ValueError(code)


def view_at(rules: RuleSet, players: int, engine: int, first: int,
            log: list[Observation], k: int) -> _View:
    observer = feed(rules, players, engine, first, log[: k + 1])
    return _View(rules, players, engine, observer, log[k][0])
