"""The rule set on the new-game form: a preset plus any house rule toggled.

The form shows every key of CONTRACTS.md's rule table; the rule set itself is
built and validated by :class:`engine.RuleSet` (``preset`` then ``override``
per key) and travels through the app as that value (the database keeps its
JSON, read back once with the game).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from engine import RuleSet

#: A rule's value as the form shows it.
RuleValue = str | int | bool


@dataclass(frozen=True)
class RuleKey:
    """One key of the rule table: its name, the values offered and a label."""

    name: str
    label: str
    kind: str  # "choice", "bool" or "int"
    choices: tuple[str, ...] = ()
    minimum: int = 0
    maximum: int = 1000


#: Every key of CONTRACTS.md's rule table, in its order.
RULE_KEYS: tuple[RuleKey, ...] = (
    RuleKey("set", "Set (double-N)", "choice", ("6", "9", "12", "15", "18")),
    RuleKey("double_blank", "Points for the double blank (0-0)", "int", maximum=500),
    RuleKey("blank_half", "Extra points per blank half (not on 0-0)", "int", maximum=500),
    RuleKey("first_turn", "First turn", "choice", ("one-tile", "own-train-only", "chain")),
    RuleKey("must_satisfy_own_double", "A player must satisfy their own double", "bool"),
    RuleKey("doubles_per_turn", "Doubles per turn (0 = unlimited)", "int", maximum=20),
    RuleKey("satisfy_order", "Open doubles satisfied in order", "choice",
            ("played", "reverse", "any")),
    RuleKey("go_out_on_double", "A player may go out on a double", "bool"),
    RuleKey("marker_means", "A marker on a train means", "choice", ("open", "private")),
    RuleKey("chicken_foot", "Chicken foot (a double takes three tiles)", "bool"),
)

RULE_KEY_NAMES = tuple(key.name for key in RULE_KEYS)


class RuleError(ValueError):
    """A rule value the engine refused; the message is shown on the form."""


def presets() -> dict[str, str]:
    """Preset name → description, from the engine."""
    from engine import PRESETS

    return dict(PRESETS)


def values(rules: RuleSet) -> dict[str, RuleValue]:
    """The value of every rule key of the form in ``rules``."""
    out: dict[str, RuleValue] = {}
    for key in RULE_KEY_NAMES:
        value = getattr(rules, key)
        assert isinstance(value, str | int)  # every key of the form is text, a count or a bool
        out[key] = value
    return out


def preset_values(name: str) -> dict[str, RuleValue]:
    """The values of every rule key in a preset (for the form's hints)."""
    return values(RuleSet.preset(name))


def build_rules(preset: str, overrides: Mapping[str, str]) -> RuleSet:
    """A preset with some keys overridden.

    Raises :class:`RuleError` with a message naming the key for any value the
    engine refuses.
    """
    if preset not in presets():
        raise RuleError(f"unknown preset {preset!r}; choose one of {', '.join(presets())}")
    rules = RuleSet.preset(preset)
    for key, text in overrides.items():
        if key not in RULE_KEY_NAMES:
            raise RuleError(f"unknown rule {key!r}")
        try:
            rules = rules.override(key, text)
        except ValueError as exc:  # BadInputError is a ValueError
            raise RuleError(f"rule {key}: {_problem(exc)}") from exc
    return rules


def _problem(exc: ValueError) -> str:
    return str(getattr(exc, "problem", exc))


def describe(rules: RuleSet) -> list[tuple[str, str]]:
    """(label, value) pairs of a game's rule set, for the pages."""
    shown = values(rules)
    out = []
    for key in RULE_KEYS:
        value = shown[key.name]
        text = ("yes" if value else "no") if isinstance(value, bool) else str(value)
        out.append((key.label, text))
    return out
