"""What lies on the table: the engine, the trains and their markers.

:class:`TableState` is the placement only (like python-chess's ``BaseBoard``);
the round's bookkeeping (hands, boneyard, turn) lives in :mod:`engine.round`.
Parsing checks the *shape* and raises :class:`BadInputError` naming the field;
:meth:`TableState.problems` then judges the *contents* and never raises.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from engine.errors import BadInputError
from engine.tiles import Tile

Owner = int | str  # a seat, or "mexican"
MEXICAN = "mexican"
Pair = tuple[int, int]


@dataclass(frozen=True)
class Train:
    """One train: its owner, its tiles from the hub outward as ``(near, far)``, its marker.

    ``feet`` holds the side tiles of chicken-foot doubles (dead ends), if any.
    """

    owner: Owner
    tiles: tuple[Pair, ...] = ()
    marker: bool = False
    feet: tuple[Pair, ...] = field(default=())

    def end(self, engine: int) -> int:
        """The value a tile laid on this train must match."""
        return self.tiles[-1][1] if self.tiles else engine

    @property
    def is_mexican(self) -> bool:
        return self.owner == MEXICAN

    @property
    def open_double(self) -> bool:
        """True when the train ends in a double."""
        return bool(self.tiles) and self.tiles[-1][0] == self.tiles[-1][1]

    def to_json(self) -> dict[str, Any]:
        obj: dict[str, Any] = {
            "owner": self.owner,
            "tiles": [list(t) for t in self.tiles],
            "marker": self.marker,
        }
        if self.feet:
            obj["feet"] = [list(t) for t in self.feet]
        return obj

    @classmethod
    def from_json(cls, obj: Any, source: str = "table", where: str = "train") -> Train:
        if not isinstance(obj, dict):
            raise BadInputError(source, f"{where}: expected an object with owner, tiles, marker")
        owner = obj.get("owner")
        if owner != MEXICAN and (not isinstance(owner, int) or isinstance(owner, bool)):
            raise BadInputError(source, f"{where}.owner: expected a seat number or \"mexican\"")
        marker = obj.get("marker", False)
        if not isinstance(marker, bool):
            raise BadInputError(source, f"{where}.marker: expected true or false")
        tiles = parse_pairs(obj.get("tiles", []), source, f"{where}.tiles")
        feet = parse_pairs(obj.get("feet", []), source, f"{where}.feet")
        return cls(owner, tiles, marker, feet)


def parse_pairs(obj: Any, source: str, where: str) -> tuple[Pair, ...]:
    """A JSON list of ``[a, b]`` pairs, checked for shape (values are judged elsewhere)."""
    if not isinstance(obj, list):
        raise BadInputError(source, f"{where}: expected a list of tiles")
    out = []
    for i, item in enumerate(obj):
        if (
            not isinstance(item, list)
            or len(item) != 2
            or not all(isinstance(v, int) and not isinstance(v, bool) for v in item)
        ):
            raise BadInputError(source, f"{where}[{i}]: expected a tile [a, b], got {item!r}")
        out.append((item[0], item[1]))
    return tuple(out)


@dataclass(frozen=True)
class TableState:
    """The engine and the trains (personal trains and at most one Mexican train)."""

    engine: int
    trains: tuple[Train, ...] = ()

    @classmethod
    def empty(cls, engine: int, players: int, markers: bool = False) -> TableState:
        trains = tuple(Train(seat, (), markers) for seat in range(players))
        return cls(engine, trains + (Train(MEXICAN),))

    def train(self, owner: Owner) -> Train | None:
        for train in self.trains:
            if train.owner == owner:
                return train
        return None

    def tiles(self) -> list[Tile]:
        """Every tile on the table, the engine first."""
        out = [Tile(self.engine, self.engine)]
        for train in self.trains:
            out.extend(Tile(a, b) for a, b in train.tiles)
            out.extend(Tile(a, b) for a, b in train.feet)
        return out

    @property
    def open_doubles(self) -> list[Owner]:
        """Owners of trains ending in a double, in the order of the trains list."""
        return [t.owner for t in self.trains if t.open_double]

    def dead_doubles(self, set_size: int) -> list[Owner]:
        """Owners of trains ending in a double that can no longer be satisfied.

        A double is dead when every tile carrying its number is on the table [000].
        """
        values = [0] * (set_size + 1)
        for tile in set(self.tiles()):
            if tile.b <= set_size and tile.a >= 0:
                values[tile.a] += 1
                if tile.b != tile.a:
                    values[tile.b] += 1
        return [
            t.owner for t in self.trains
            if t.open_double and 0 <= t.tiles[-1][1] <= set_size
            and values[t.tiles[-1][1]] >= set_size + 1
        ]

    # -- judging ---------------------------------------------------------------------

    def problems(self, set_size: int | None = None, players: int | None = None) -> list[str]:
        """What is wrong with this table, one line each; an empty list when nothing is."""
        out = []
        top = set_size
        if top is not None and not 0 <= self.engine <= top:
            out.append(f"engine: {self.engine} is outside the double-{top} set")
        seen: Counter[Owner] = Counter(t.owner for t in self.trains)
        for owner, n in seen.items():
            if n > 1:
                out.append(f"trains: {owner} has {n} trains")
        for train in self.trains:
            name = f"train {train.owner}"
            if isinstance(train.owner, int) and (
                train.owner < 0 or (players is not None and train.owner >= players)
            ):
                out.append(f"{name}: no such seat")
            end = self.engine
            for i, (near, far) in enumerate(train.tiles):
                if near != end:
                    where = "the engine" if i == 0 else f"tile {i - 1}"
                    out.append(f"{name}: tile {i} [{near}, {far}] does not match {where} ({end})")
                end = far
        counts = Counter(self.tiles())
        for tile, n in sorted(counts.items()):
            if n > 1:
                out.append(f"tile {tile} is on the table {n} times")
            if top is not None and not (tile.a >= 0 and tile.b <= top):
                out.append(f"tile {tile} is outside the double-{top} set")
        return out

    # -- JSON --------------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        return {"engine": self.engine, "trains": [t.to_json() for t in self.trains]}

    @classmethod
    def from_json(
        cls, obj: Any, source: str = "table", engine: int | None = None, where: str = ""
    ) -> TableState:
        """Parse CONTRACTS.md's TABLE; ``engine`` supplies it when the object has none."""
        prefix = f"{where}." if where else ""
        if not isinstance(obj, dict):
            raise BadInputError(source, f"{where or 'table'}: expected an object with trains")
        value = obj.get("engine", engine)
        if not isinstance(value, int) or isinstance(value, bool):
            raise BadInputError(source, f"{prefix}engine: expected an integer")
        trains_obj = obj.get("trains")
        if not isinstance(trains_obj, list):
            raise BadInputError(source, f"{prefix}trains: expected a list of trains")
        trains = tuple(
            Train.from_json(t, source, f"{prefix}trains[{i}]") for i, t in enumerate(trains_obj)
        )
        return cls(value, trains)

    # -- compact text: "12 | 0: 12-5 5-3 * | 1: | mexican: 12-1" -------------------------

    def text(self) -> str:
        parts = [str(self.engine)]
        for train in self.trains:
            tokens = [f"{train.owner}:"]
            tokens += [f"{a}-{b}" for a, b in train.tiles]
            tokens += [f"^{a}-{b}" for a, b in train.feet]
            if train.marker:
                tokens.append("*")
            parts.append(" ".join(tokens))
        return " | ".join(parts)

    @classmethod
    def parse(cls, text: str, source: str = "table") -> TableState:
        """Parse :meth:`text`; raises :class:`BadInputError` naming the bad field."""
        fields = [f.strip() for f in text.split("|")]
        try:
            engine = int(fields[0])
        except ValueError:
            raise BadInputError(source, f"engine: expected an integer, got {fields[0]!r}") from None
        trains = []
        for i, body in enumerate(fields[1:], start=1):
            owner_text, sep, rest = body.partition(":")
            if not sep:
                raise BadInputError(source, f"field {i}: expected 'OWNER: tiles', got {body!r}")
            owner_text = owner_text.strip()
            owner: Owner
            if owner_text == MEXICAN:
                owner = MEXICAN
            elif owner_text.isdigit():
                owner = int(owner_text)
            else:
                raise BadInputError(source, f"field {i}: bad owner {owner_text!r}")
            tiles: list[Pair] = []
            feet: list[Pair] = []
            marker = False
            for token in rest.split():
                if token == "*":
                    marker = True
                    continue
                target = feet if token.startswith("^") else tiles
                near, dash, far = token.lstrip("^").partition("-")
                if not (dash and near.isdigit() and far.isdigit()):
                    raise BadInputError(source, f"field {i}: bad tile {token!r}")
                target.append((int(near), int(far)))
            trains.append(Train(owner, tuple(tiles), marker, tuple(feet)))
        return cls(engine, tuple(trains))

    def __str__(self) -> str:
        return self.text()
