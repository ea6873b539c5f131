"""Alerts said in words: who did what, with which tile, on whose train, and what to do.

An alert of the rules engine names seats and trains by number and its
message is the engine's (``tile [7, 4] laid on 1``). The page says it with the
game's player names, tiles as ``4-7`` and trains by their owner's name or as
"the Mexican train":

>>> words = say({"code": "mismatch", "seat": 1, "train": 1,
...              "details": {"tile": [7, 4], "end": 1}}, ["Ann", "Bo", "Cyril"])
>>> words.text
'Bo laid 4-7 on their own train, but it does not match the 1 at its end.'
>>> words.advice
'Take 4-7 back; the tile laid there must have a 1.'
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["TITLES", "AlertWords", "describe", "say"]

#: A short title per alert code (the headline of a banner or a log line).
TITLES: dict[str, str] = {
    "mismatch": "Tile does not match",
    "closed-train": "Closed train",
    "unsatisfied-double": "Open double first",
    "double-order": "Doubles out of order",
    "extra-tile": "Too many tiles",
    "first-turn": "First-turn rule",
    "duplicate-tile": "Same tile twice",
    "not-in-set": "Not in the set",
    "tile-removed": "Tile taken away",
    "marker-missing": "Marker missing",
    "marker-stale": "Marker should come off",
    "open-double": "Open double",
}


@dataclass(frozen=True)
class AlertWords:
    """An alert for people: a title, one sentence, and what to do (may be empty)."""

    title: str
    text: str
    advice: str

    def to_json(self) -> dict[str, str]:
        return {"title": self.title, "text": self.text, "advice": self.advice}


@dataclass(frozen=True)
class _Facts:
    """The parts of a sentence, already in words."""

    who: str  # the player, or "Someone"
    whose: str  # the player's possessive ("Bo's"), or "a player's"
    train: str  # "their own train", "Ann's train", "the Mexican train", "a train"
    named: str  # the train by its owner's name even when the mover owns it ("Bo's train")
    tile: str  # "4-7", or "a tile"
    end: str  # "1", or "" when unknown
    double: str  # "the double 5-5 on Ann's train", or "an open double"
    owner: str  # the train's owner by name ("Ann"), or "its owner"


def _name(seat: Any, players: Sequence[str]) -> str | None:
    if isinstance(seat, bool) or not isinstance(seat, int) or seat < 0:
        return None
    return players[seat] if seat < len(players) and players[seat] else f"Seat {seat + 1}"


def _train(owner: Any, seat: Any, players: Sequence[str]) -> str:
    if owner == "mexican":
        return "the Mexican train"
    name = _name(owner, players)
    if name is None:
        return "a train"
    if owner == seat:
        return "their own train"
    return f"{name}'s train"


def _tile(pair: Any) -> str | None:
    if not isinstance(pair, list | tuple) or len(pair) != 2:
        return None
    a, b = (int(v) for v in pair)
    return f"{min(a, b)}-{max(a, b)}"


def _facts(alert: Mapping[str, Any], players: Sequence[str]) -> _Facts:
    details = alert.get("details") or {}
    seat, owner = alert.get("seat"), alert.get("train")
    who = _name(seat, players)
    end = details.get("end")
    double = details.get("double")
    double_text = "an open double"
    if isinstance(double, Mapping) and isinstance(double.get("value"), int):
        value = double["value"]
        where = _train(double.get("train"), None, players)
        double_text = f"the double {value}-{value} on {where}"
    owner_name = "the table" if owner == "mexican" else (_name(owner, players) or "its owner")
    return _Facts(
        who=who or "Someone",
        whose=f"{who}'s" if who else "a player's",
        train=_train(owner, seat, players),
        named=_train(owner, None, players),
        tile=_tile(details.get("tile")) or "a tile",
        end="" if not isinstance(end, int) else str(end),
        double=double_text,
        owner=owner_name,
    )


def _mismatch(f: _Facts) -> tuple[str, str]:
    if f.end:
        return (f"{f.who} laid {f.tile} on {f.train}, but it does not match the {f.end} "
                "at its end.", f"Take {f.tile} back; the tile laid there must have a {f.end}.")
    return (f"{f.who} laid {f.tile} on {f.train}, but it does not match the end it was "
            "laid on.", f"Take {f.tile} back and lay a tile that matches.")


_SENTENCES: dict[str, Callable[[_Facts], tuple[str, str]]] = {
    "mismatch": _mismatch,
    "closed-train": lambda f: (
        f"{f.who} played {f.tile} on {f.train}, which is not open.",
        f"Take {f.tile} back: only a train with its marker on takes other players' tiles."),
    "unsatisfied-double": lambda f: (
        f"{f.who} played {f.tile} on {f.train} while {f.double} was waiting.",
        f"Take {f.tile} back; the open double must be satisfied first (or draw, then pass)."),
    "double-order": lambda f: (
        f"{f.who} satisfied doubles out of order: {f.tile} on {f.train} came too early.",
        "The double laid first must be satisfied first."),
    "extra-tile": lambda f: (
        f"{f.who} laid {f.tile} on {f.train} after their turn was over.",
        f"Take {f.tile} back: one tile a turn, and one more only after a double."),
    "first-turn": lambda f: (
        f"{f.who} played {f.tile} on {f.train}, which the first-turn rule does not allow.",
        f"Take {f.tile} back; on the first turn {f.who} starts their own train."),
    "duplicate-tile": lambda f: (
        f"{f.tile} on {f.named} is on the table twice.",
        "One of them is from another set or misread: check both."),
    "not-in-set": lambda f: (
        f"{f.tile} on {f.named} is not a tile of this set.",
        f"Take {f.tile} away; it belongs to another set."),
    "tile-removed": lambda f: (
        f"{f.tile} was taken off {f.named}." if f.tile != "a tile"
        else f"A tile was taken off {f.named}.",
        "Put it back where it lay: tiles on the table stay."),
    "marker-missing": lambda f: (
        f"{f.who} passed, but their train has no marker.",
        f"Put a marker on {f.whose} train: it is open to everyone now."),
    "marker-stale": lambda f: (
        f"{f.who} played on their own train, but its marker is still on.",
        f"Take the marker off {f.owner}'s train." if f.owner not in ("its owner", "the table")
        else "Take the marker off."),
    "open-double": lambda f: (
        f"{f.who} laid the double {f.tile} on {f.train}; it must be satisfied next.",
        "The next player plays on it, or draws, then passes."),
}


def say(alert: Mapping[str, Any], players: Sequence[str]) -> AlertWords:
    """``alert`` (``check``'s JSON shape, ``details`` as the referee gives them) in words."""
    code = str(alert.get("code", ""))
    title = TITLES.get(code, code)
    sentence = _SENTENCES.get(code)
    if sentence is None:
        return AlertWords(title, str(alert.get("message", "")), "")
    text, advice = sentence(_facts(alert, players))
    return AlertWords(title, text, advice)


def describe(alert: Mapping[str, Any], players: Sequence[str]) -> dict[str, Any]:
    """``alert`` with its words added (``title``, ``text``, ``advice``)."""
    return dict(alert) | say(alert, players).to_json()
