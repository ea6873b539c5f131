"""Breaches planted in a recorded round: some rules broken at different turns.

:func:`inject_breaches` rewrites a round a camera saw so that it breaks the
rules of :data:`BREACHES` (those a camera can see), each
:class:`PlantedBreach` saying which alert it should raise (the filmed rounds
of ``datasets.table_game``).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from engine.alerts import AlertCode
from engine.table import Owner, Pair, TableState, Train
from engine.tiles import Tile
from faults.observed import Observation

#: Breaches a camera can see in a recorded round (a pass is not seen, so
#: ``marker-missing`` is not among them).
BREACHES = (AlertCode.MISMATCH, AlertCode.EXTRA_TILE, AlertCode.TILE_REMOVED,
            AlertCode.MARKER_STALE, AlertCode.DUPLICATE_TILE)



@dataclass(frozen=True)
class PlantedBreach:
    """A rule broken on purpose: ``code`` expected from the observer on ``train``,
    at observation ``index``."""

    code: AlertCode
    train: Owner
    index: int


def inject_breaches(observations: Sequence[Observation], rng: random.Random,
                    kinds: Sequence[AlertCode] = BREACHES) -> tuple[list[Observation],
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


def _plant(kind: AlertCode, obs: list[Observation], i: int) -> Planted | None:
    before, now = obs[i - 1][0], obs[i][0]
    on_table = {Tile(*p) for t in obs[-1][0].trains for p in t.tiles} | {
        Tile(now.engine, now.engine)}
    top = max([now.engine] + [max(t.a, t.b) for t in on_table])
    spot = _Spot(obs, i, before, now, _new_tiles(before, now), on_table, top)
    plant = _PLANTERS.get(kind)
    return None if plant is None else plant(spot, kind)


def _swapped_tile(spot: _Spot, kind: AlertCode) -> Planted | None:
    """mismatch / duplicate-tile: the one tile laid is another (not matching, or one
    already on the table)."""
    single = _single_end_play(spot.new, spot.now)
    if single is None:
        return None
    owner, pos, near, far = single
    if kind == AlertCode.MISMATCH:
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


def _second_tile(spot: _Spot, kind: AlertCode) -> Planted | None:
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
    return out, PlantedBreach(AlertCode.EXTRA_TILE, owner, spot.i)


def _taken_back(spot: _Spot, kind: AlertCode) -> Planted | None:
    """tile-removed: a tile at the end of a train that grows no more is taken back."""
    if spot.new:
        return None
    ends = [t for t in spot.now.trains if t.tiles and spot.settled(t.owner, len(t.tiles))]
    if not ends:
        return None
    train = ends[0]
    out = [(table if j <= spot.i else _replace(table, train.owner, train.tiles[:-1]), event)
           for j, (table, event) in enumerate(spot.obs)]
    return out, PlantedBreach(AlertCode.TILE_REMOVED, train.owner, spot.i + 1)


def _marker_left(spot: _Spot, kind: AlertCode) -> Planted | None:
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
    return out, PlantedBreach(AlertCode.MARKER_STALE, owner, i)


_PLANTERS: dict[AlertCode, Callable[[_Spot, AlertCode], Planted | None]] = {
    AlertCode.MISMATCH: _swapped_tile, AlertCode.DUPLICATE_TILE: _swapped_tile,
    AlertCode.EXTRA_TILE: _second_tile,
    AlertCode.TILE_REMOVED: _taken_back, AlertCode.MARKER_STALE: _marker_left,
}
