"""House rules: :class:`RuleSet`, its named presets and the deal tables of RULES.md."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from engine.errors import BadInputError
from engine.tiles import SET_SIZES

#: Tiles dealt to each player, per deal table (RULES.md "the deal"), by set then players.
#: A missing entry falls back to :func:`_fallback_hand_size`.
DEAL_TABLES: dict[str, dict[int, dict[int, int]]] = {
    # [000]: double-12 and double-9 columns.
    "000": {
        12: {2: 16, 3: 16, 4: 15, 5: 14, 6: 12, 7: 10, 8: 9},
        9: {2: 15, 3: 13, 4: 10},
    },
    # [001]: the set follows the number of players; the hand size only depends on it.
    "001": {
        9: {2: 8, 3: 8},
        12: {2: 8, 3: 8, 4: 12, 5: 12, 6: 12, 7: 10, 8: 10},
        15: {9: 11, 10: 11, 11: 11, 12: 11},
        18: {13: 11, 14: 11},
    },
    # [002]/[004]: double-12.
    "002": {12: {2: 12, 3: 12, 4: 12, 5: 12, 6: 12, 7: 10, 8: 10, 9: 8, 10: 8}},
    # [003]
    "003": {12: {2: 15, 3: 15, 4: 15, 5: 11, 6: 11, 7: 8, 8: 8}},
}

#: A chicken foot's double is answered by this many tiles (its line tile and the side
#: tiles) before play goes on elsewhere [001 variant].
CHICKEN_FOOT_ANSWERS = 3
#: The most players a round or a log may name.
MAX_PLAYERS = 20

FIRST_TURN = ("one-tile", "own-train-only", "chain")
SATISFY_ORDER = ("played", "reverse", "any")
MARKER_MEANS = ("open", "private")
ENGINE_FROM = ("set-aside", "holder", "highest-double")
STARTER = ("seat", "highest-draw", "holder")


def _fallback_hand_size(set_size: int, players: int) -> int:
    tiles = (set_size + 1) * (set_size + 2) // 2
    return max(1, min(16, (tiles - 1) * 2 // (3 * players)))


@dataclass(frozen=True)
class RuleSet:
    """Every house rule a table can choose. Field names are the ``--rule`` keys.

    The first ten fields are the keys of CONTRACTS.md; the rest cover the deal
    tables, how the engine is placed, who starts, drawing, the last-tile
    announcement and scoring variants of RULES.md.
    """

    name: str = "standard"
    set: int = 12
    double_blank: int = 50
    blank_half: int = 0
    first_turn: str = "one-tile"
    must_satisfy_own_double: bool = False
    doubles_per_turn: int = 0
    satisfy_order: str = "played"
    go_out_on_double: bool = True
    marker_means: str = "open"
    chicken_foot: bool = False
    #: which deal table of RULES.md gives the hand size ("000", "001", "002", "003").
    deal: str = "000"
    #: tiles per hand; 0 = from the deal table.
    hand_size: int = 0
    #: "set-aside" (taken out before the deal), "holder" (its holder places it),
    #: "highest-double" (the highest double held starts and becomes the engine).
    engine_from: str = "set-aside"
    #: "seat" (the table chooses), "highest-draw" (highest drawn tile), "holder".
    starter: str = "seat"
    #: a drawn tile that fits must be played at once ([000][004]) or may be ([001]).
    must_play_drawn: bool = True
    #: at most this many open doubles on the table (0 = unlimited) [002].
    max_open_doubles: int = 0
    #: a player with one tile left must announce it [000][003] ...
    announce_last_tile: bool = True
    #: ... and draws this many tiles when caught not announcing [003].
    last_tile_penalty: int = 0
    #: the player who goes out scores the others' pips [002 variant].
    positive_scoring: bool = False
    #: in a blocked round the player with the fewest pips scores nothing [003].
    blocked_low_wins: bool = False

    def __post_init__(self) -> None:
        problems = self._problems()
        if problems:
            raise BadInputError("rules", problems[0])

    def _problems(self) -> list[str]:
        out = []
        if self.set not in SET_SIZES:
            out.append(f"set: {self.set} is not one of {', '.join(map(str, SET_SIZES))}")
        for key, allowed in (
            ("first_turn", FIRST_TURN),
            ("satisfy_order", SATISFY_ORDER),
            ("marker_means", MARKER_MEANS),
            ("engine_from", ENGINE_FROM),
            ("starter", STARTER),
        ):
            value = getattr(self, key)
            if value not in allowed:
                out.append(f"{key}: {value!r} is not one of {', '.join(allowed)}")
        if self.deal not in DEAL_TABLES:
            out.append(f"deal: {self.deal!r} is not one of {', '.join(DEAL_TABLES)}")
        for key in ("doubles_per_turn", "max_open_doubles", "hand_size", "last_tile_penalty"):
            if getattr(self, key) < 0:
                out.append(f"{key}: must be >= 0")
        return out

    # -- the deal ----------------------------------------------------------------------

    def tiles_per_hand(self, players: int) -> int:
        """How many tiles each of ``players`` is dealt under this rule set."""
        if self.hand_size:
            return self.hand_size
        table = DEAL_TABLES[self.deal].get(self.set, {})
        return table.get(players) or _fallback_hand_size(self.set, players)

    @property
    def marker_opens(self) -> bool:
        """True when a marker on a personal train means "open to all"."""
        return self.marker_means == "open"

    # -- construction ------------------------------------------------------------------

    @classmethod
    def preset(cls, name: str) -> RuleSet:
        """The named preset; raises :class:`BadInputError` for an unknown name."""
        try:
            settings = _PRESET_SETTINGS[name]
        except KeyError:
            raise BadInputError(
                "--rules", f"unknown rule set {name!r} (known: {', '.join(PRESETS)})"
            ) from None
        return cls(name=name, **settings)

    def override(self, key: str, text: str) -> RuleSet:
        """A copy with ``key`` set from its text form (as in ``--rule KEY=VALUE``)."""
        fields = {f.name: f for f in dataclasses.fields(self)}
        if key not in fields or key == "name":
            raise BadInputError("--rule", f"unknown rule key {key!r}")
        current = getattr(self, key)
        value: Any
        if isinstance(current, bool):
            low = text.strip().lower()
            if low in ("true", "yes", "1", "on"):
                value = True
            elif low in ("false", "no", "0", "off"):
                value = False
            else:
                raise BadInputError("--rule", f"{key}: expected true or false, got {text!r}")
        elif isinstance(current, int):
            try:
                value = int(text)
            except ValueError:
                raise BadInputError("--rule", f"{key}: expected an integer, got {text!r}") from None
        else:
            value = text.strip()
        try:
            return self.with_values(**{key: value})
        except BadInputError as exc:
            raise BadInputError("--rule", exc.problem) from None

    def with_values(self, **values: Any) -> RuleSet:
        """A copy with some fields replaced (checked like the constructor)."""
        return dataclasses.replace(self, **values)

    @classmethod
    def from_json(cls, obj: Any, source: str = "rules") -> RuleSet:
        """A rule set from ``{"name": PRESET, KEY: VALUE, ...}`` (name defaults to standard)."""
        if isinstance(obj, str):
            return cls.preset(obj)
        if not isinstance(obj, dict):
            raise BadInputError(source, "rules: expected an object like {\"name\": \"standard\"}")
        name = obj.get("name", "standard")
        if not isinstance(name, str):
            raise BadInputError(source, "rules.name: expected a preset name")
        try:
            base = cls.preset(name)
        except BadInputError as exc:
            raise BadInputError(source, f"rules.name: {exc.problem}") from None
        fields = {f.name for f in dataclasses.fields(cls)}
        values: dict[str, Any] = {}
        for key, value in obj.items():
            if key == "name":
                continue
            if key not in fields:
                raise BadInputError(source, f"rules.{key}: unknown rule key")
            current = getattr(base, key)
            if isinstance(current, bool):
                ok = isinstance(value, bool)
            elif isinstance(current, int):
                ok = isinstance(value, int) and not isinstance(value, bool)
            else:
                ok = isinstance(value, str)
            if not ok:
                raise BadInputError(
                    source, f"rules.{key}: expected {type(current).__name__}, got {value!r}"
                )
            values[key] = value
        try:
            return base.with_values(**values)
        except BadInputError as exc:
            raise BadInputError(source, f"rules.{exc.problem}") from None

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def describe(self) -> str:
        return PRESETS.get(self.name, "custom rule set")


#: Preset settings, one per source text where it differs (RULES.md).
_PRESET_SETTINGS: dict[str, dict[str, Any]] = {
    "standard": {},
    "double-9": {"set": 9},
    "chain": {
        "first_turn": "chain",
        "deal": "001",
        "starter": "highest-draw",
        "must_play_drawn": False,
    },
    "engine-holder": {
        "first_turn": "own-train-only",
        "deal": "002",
        "engine_from": "holder",
        "starter": "holder",
        "max_open_doubles": 1,
    },
    "positive": {
        "first_turn": "own-train-only",
        "deal": "002",
        "engine_from": "holder",
        "starter": "holder",
        "max_open_doubles": 1,
        "positive_scoring": True,
    },
    "private-marker": {
        "marker_means": "private",
        "must_satisfy_own_double": True,
        "deal": "003",
        "blank_half": 25,
        "engine_from": "holder",
        "starter": "holder",
        "last_tile_penalty": 2,
        "blocked_low_wins": True,
    },
    "chicken-foot": {
        "chicken_foot": True,
        "must_satisfy_own_double": True,
        "deal": "001",
    },
}

#: Preset name -> one-line description (``mtrain rules``).
PRESETS: dict[str, str] = {
    "standard": "[000] engine set aside, table picks the starter, one tile on the first turn, "
    "doubles satisfied in the order played, 0-0 = 50",
    "double-9": "[000] as standard with a double-9 set and its deal table",
    "chain": "[001] first turn lays a whole chain on one's own train, highest drawn tile "
    "starts, a drawn tile may be kept",
    "engine-holder": "[002][004] the engine's holder places it and starts, first tile must "
    "start one's own train, at most one open double",
    "positive": "[002 variant] as engine-holder, the player who goes out scores the others' pips",
    "private-marker": "[003] markers mean private (removed on a pass), own double must be "
    "satisfied, blank halves 25, forgetting the last-tile call draws 2",
    "chicken-foot": "[001 variant] a double must be answered with three tiles before play "
    "goes on elsewhere",
}
