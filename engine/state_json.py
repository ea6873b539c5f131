"""A round as CONTRACTS.md's STATE JSON: reading (with every check) and writing.

:func:`round_from_json` parses field by field and raises
:class:`~engine.errors.BadInputError` naming the field for an impossible
state; :func:`round_to_json` writes the STATE with the optional fields always
present. This module is the round's reader: it fills a new
:class:`~engine.round.Round`'s fields (:class:`~engine.round_state.RoundState`) directly.
"""

from __future__ import annotations

from typing import Any, TypeVar

from engine.errors import BadInputError
from engine.round_state import RoundState
from engine.rules import CHICKEN_FOOT_ANSWERS, MAX_PLAYERS, RuleSet
from engine.table import Owner, Pair, TableState, parse_pairs
from engine.tiles import Tile

#: A round (``engine.round.Round``, built on :class:`RoundState`).
R = TypeVar("R", bound=RoundState)

#: The true/false fields of a STATE, all optional (default false).
FLAGS = ("drawn", "first_turn", "after_double")


def round_to_json(rnd: RoundState) -> dict[str, Any]:
    """CONTRACTS.md's STATE of ``rnd`` (with the optional fields always written)."""
    table = rnd.table()
    fresh = [rnd.owner(i) for i in rnd.fresh if i in rnd.open] if rnd.after_double else []
    return {
        "rules": rnd.rules.to_json(),
        "players": rnd.players,
        "engine": rnd.engine,
        "turn": rnd.turn,
        "hands": [[list(t.pair) for t in rnd.hand(p)] for p in range(rnd.players)],
        "boneyard": [list(rnd.tile(t).pair) for t in reversed(rnd.boneyard)],
        "trains": [t.to_json() for t in table.trains],
        "drawn": rnd.drawn,
        "first_turn": not any(rnd.started),
        "after_double": rnd.after_double,
        "open_doubles": [rnd.owner(i) for i in rnd.open],
        "doubles_this_turn": fresh,
    }


def round_from_json(obj: Any, source: str, make: type[R]) -> R:
    """Parse and check a STATE into a new ``make`` (the round class); an impossible
    state raises :class:`BadInputError`."""
    if not isinstance(obj, dict):
        raise BadInputError(source, "expected a JSON object (a round state)")
    rules = RuleSet.from_json(obj.get("rules", {"name": "standard"}), source)
    players = obj.get("players")
    if not isinstance(players, int) or isinstance(players, bool) or not (
        1 <= players <= MAX_PLAYERS
    ):
        raise BadInputError(source, f"players: expected a number of players (1-{MAX_PLAYERS})")
    n = rules.set
    table = TableState.from_json(obj, source)
    engine = table.engine
    if not 0 <= engine <= n:
        raise BadInputError(source, f"engine: {engine} is outside the double-{n} set")
    turn = obj.get("turn", 0)
    if not isinstance(turn, int) or isinstance(turn, bool) or not 0 <= turn < players:
        raise BadInputError(source, f"turn: expected a seat 0-{players - 1}")
    hands_obj = obj.get("hands")
    if not isinstance(hands_obj, list) or len(hands_obj) != players:
        raise BadInputError(source, f"hands: expected {players} hands (one per player)")
    hands = [parse_pairs(h, source, f"hands[{p}]") for p, h in enumerate(hands_obj)]
    boneyard = parse_pairs(obj.get("boneyard", []), source, "boneyard")
    flags = {}
    for key in FLAGS:
        value = obj.get(key, False)
        if not isinstance(value, bool):
            raise BadInputError(source, f"{key}: expected true or false")
        flags[key] = value
    _check_places(table, hands, boneyard, n, source)

    rnd = make(rules, players, engine)
    _lay_trains(rnd, table, source)
    size = rnd.size
    for p, hand in enumerate(hands):
        for a, b in hand:
            t = min(a, b) * size + max(a, b)
            rnd.hands[p].add(t)
            rnd._hv[p][min(a, b)].add(t)
            rnd._hv[p][max(a, b)].add(t)
    rnd.boneyard = [min(a, b) * size + max(a, b) for a, b in reversed(boneyard)]
    opened = _open_order(rnd, obj.get("open_doubles"), source)
    if rules.chicken_foot:
        _owe_answers(rnd, opened)
    rnd.open = tuple(opened)
    rnd.turn = turn
    rnd.drawn = flags["drawn"]
    rnd.fresh = _doubles_this_turn(rnd, obj, flags["after_double"], source)
    rnd.after_double = bool(rnd.fresh)
    rnd.started = (not flags["first_turn"],) * players
    return rnd


def _check_places(table: TableState, hands: list[tuple[Pair, ...]],
                  boneyard: tuple[Pair, ...], n: int, source: str) -> None:
    """Where every tile is: each at most once, each value inside the set."""
    engine = table.engine
    seen: dict[Tile, str] = {Tile(engine, engine): "engine"}
    places = [(f"hands[{p}][{k}]", pair) for p, h in enumerate(hands) for k, pair in enumerate(h)]
    places += [(f"boneyard[{k}]", pair) for k, pair in enumerate(boneyard)]
    for i, train in enumerate(table.trains):
        places += [(f"trains[{i}].tiles[{k}]", pair) for k, pair in enumerate(train.tiles)]
        places += [(f"trains[{i}].feet[{k}]", pair) for k, pair in enumerate(train.feet)]
    for where, (a, b) in places:
        if not (0 <= a <= n and 0 <= b <= n):
            raise BadInputError(source, f"{where}: [{a}, {b}] is outside the double-{n} set")
        tile = Tile(a, b)
        if tile in seen:
            raise BadInputError(source, f"{where}: tile {tile} is also at {seen[tile]}")
        seen[tile] = where


def _train_index(rnd: RoundState, owner: Owner, source: str, where: str) -> int:
    try:
        return rnd.index(owner)
    except ValueError:
        raise BadInputError(source, where) from None


def _lay_trains(rnd: RoundState, table: TableState, source: str) -> None:
    """Each train's tiles (matched end to end from the engine), feet and marker."""
    size, count = rnd.size, rnd._count
    owners_seen: set[Owner] = set()
    for k, train in enumerate(table.trains):
        where = f"trains[{k}]"
        i = _train_index(rnd, train.owner, source, f"{where}.owner: no seat {train.owner!r}")
        if train.owner in owners_seen:
            raise BadInputError(source, f"{where}.owner: a second train for {train.owner}")
        owners_seen.add(train.owner)
        end = rnd.engine
        for j, (near, far) in enumerate(train.tiles):
            if near != end:
                what = "the engine" if j == 0 else f"the tile before ({end})"
                raise BadInputError(
                    source, f"{where}.tiles[{j}]: [{near}, {far}] does not match {what}"
                )
            rnd.lines[i].append(min(near, far) * size + max(near, far))
            end = far
        for a, b in train.feet:
            rnd.feet[i].append((min(a, b) * size + max(a, b), a))
        for a, b in train.tiles + train.feet:
            count[a] += 1
            if b != a:
                count[b] += 1
        rnd.ends[i] = end
        if i < rnd.players:
            rnd.markers[i] = train.marker


def _open_order(rnd: RoundState, order_obj: Any, source: str) -> list[int]:
    """The trains ending in an open double, in the order given (the rest after them)."""
    ending = [i for i, line in enumerate(rnd.lines) if line and rnd._dbl[line[-1]]]
    if order_obj is None:
        return ending
    if not isinstance(order_obj, list):
        raise BadInputError(source, "open_doubles: expected a list of train owners")
    opened: list[int] = []
    for k, owner in enumerate(order_obj):
        i = _train_index(rnd, owner, source, f"open_doubles[{k}]: no train {owner!r}")
        if i not in ending or i in opened:
            raise BadInputError(
                source, f"open_doubles[{k}]: train {owner} does not end in an open double"
            )
        opened.append(i)
    return opened + [i for i in ending if i not in opened]


def _owe_answers(rnd: RoundState, opened: list[int]) -> None:
    """Chicken feet: the answers each open double still owes (``opened`` grows with the
    trains whose double, further in, is still being answered)."""
    rnd._cf = {i: (rnd.ends[i], CHICKEN_FOOT_ANSWERS) for i in opened}
    for i in range(rnd.players + 1):
        line, feet = rnd.lines[i], rnd.feet[i]
        doubles = [k for k, t in enumerate(line) if rnd._dbl[t]]
        if feet and doubles and doubles[-1] < len(line) - 1:
            value = rnd._lo[line[doubles[-1]]]
            answers = 1 + sum(1 for _, v in feet if v == value)
            if answers < CHICKEN_FOOT_ANSWERS and i not in opened:
                rnd._cf[i] = (value, CHICKEN_FOOT_ANSWERS - answers)
                opened.append(i)


def _doubles_this_turn(rnd: RoundState, obj: dict[str, Any], after_double: bool,
                       source: str) -> tuple[int, ...]:
    """The trains the player to move laid doubles on this turn, in laid order.

    ``doubles_this_turn`` names them; without it, ``after_double`` means the
    last open double.
    """
    listed = obj.get("doubles_this_turn")
    if listed is None:
        if not after_double:
            return ()
        if not rnd.open:
            raise BadInputError(source, "after_double: no train ends in an open double")
        return (rnd.open[-1],)
    if not isinstance(listed, list):
        raise BadInputError(source, "doubles_this_turn: expected a list of train owners")
    fresh: list[int] = []
    for k, owner in enumerate(listed):
        i = _train_index(rnd, owner, source, f"doubles_this_turn[{k}]: no train {owner!r}")
        if i not in rnd.open or i in fresh:
            raise BadInputError(
                source, f"doubles_this_turn[{k}]: train {owner} does not end in an open double"
            )
        fresh.append(i)
    if "after_double" in obj and after_double != bool(fresh):
        said = "a double" if after_double else "no double"
        raise BadInputError(
            source, f"doubles_this_turn: lists {len(fresh)} double(s), after_double says {said}"
        )
    return tuple(fresh)
