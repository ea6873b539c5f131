"""Alerts said in words: who did what, with which tile, on whose train, and what to do.

An alert of the rules engine names seats and trains by number and its
message is the engine's (``tile [7, 4] laid on 1``). Every page (the live
banner and list, the replay, the end-of-round hands page, the CSV download)
says it here, with the game's player names, tiles as ``4-7`` and trains by
their owner's name or as "the Mexican train", never a train's number:

>>> from engine import Alert, AlertCode, AlertDetails
>>> words = say(Alert(4, AlertCode.MISMATCH, 1, 1, "tile [7, 4] laid on 1"),
...             AlertDetails(tile=(7, 4), end=1), ["Ann", "Bo", "Cyril"])
>>> words.text
'Bo laid 4-7 on their own train, but it does not match the 1 at its end.'
>>> words.advice
'Take 4-7 back; the tile laid there must have a 1.'

An alert the tracker marks doubtful (it rests on a tile or marker read with doubt, or
on whose turn a change was after a move the camera may have missed) says so in its
title and sentence, on every page: it is to be checked, not believed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from engine import MEXICAN, Alert, AlertCode, AlertDetails, Owner

__all__ = ["DOUBT", "TITLES", "WORDING", "AlertWords", "Wording", "say", "train_name"]

#: What a doubtful alert adds to its sentence.
DOUBT = ("The camera may have misread a tile or marker here, or missed a move: look at "
         "the table before acting on it.")


@dataclass(frozen=True)
class AlertWords:
    """An alert for people: a title, one sentence, and what to do (may be empty)."""

    title: str
    text: str
    advice: str
    #: It rests on a reading the camera doubts: to check before believing it.
    doubtful: bool = False

    def to_json(self) -> dict[str, str | bool]:
        out: dict[str, str | bool] = {"title": self.title, "text": self.text,
                                      "advice": self.advice}
        if self.doubtful:
            out["doubtful"] = True
        return out


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


def _name(seat: Owner | None, players: Sequence[str]) -> str | None:
    if isinstance(seat, bool) or not isinstance(seat, int) or seat < 0:
        return None
    return players[seat] if seat < len(players) and players[seat] else f"Seat {seat + 1}"


def _train(owner: Owner | None, seat: int | None, players: Sequence[str]) -> str:
    if owner == MEXICAN:
        return "the Mexican train"
    name = _name(owner, players)
    if name is None:
        return "a train"
    if owner == seat:
        return "their own train"
    return f"{name}'s train"


def train_name(owner: Owner | None, players: Sequence[str], *, train: bool = False) -> str:
    """A seat by its player's name, or (``train``) a train by its owner's: "Ann's train",
    "the Mexican train"; "" for none."""
    if not train:
        return _name(owner, players) or ""
    return "" if owner is None else _train(owner, None, players)


def _facts(alert: Alert, details: AlertDetails, players: Sequence[str]) -> _Facts:
    seat, owner = alert.seat, alert.train
    who = _name(seat, players)
    double_text = "an open double"
    if details.double is not None:
        where, value = details.double
        double_text = f"the double {value}-{value} on {_train(where, None, players)}"
    owner_name = "the table" if owner == MEXICAN else (_name(owner, players) or "its owner")
    tile = details.tile
    return _Facts(
        who=who or "Someone",
        whose=f"{who}'s" if who else "a player's",
        train=_train(owner, seat, players),
        named=_train(owner, None, players),
        tile="a tile" if tile is None else f"{min(tile)}-{max(tile)}",
        end="" if details.end is None else str(details.end),
        double=double_text,
        owner=owner_name,
    )


def _mismatch(f: _Facts) -> tuple[str, str]:
    if f.end:
        return (f"{f.who} laid {f.tile} on {f.train}, but it does not match the {f.end} "
                "at its end.", f"Take {f.tile} back; the tile laid there must have a {f.end}.")
    return (f"{f.who} laid {f.tile} on {f.train}, but it does not match the end it was "
            "laid on.", f"Take {f.tile} back and lay a tile that matches.")


#: What a sentence says: the facts in words -> (the sentence, what to do).
Sentence = Callable[[_Facts], tuple[str, str]]


@dataclass(frozen=True)
class Wording:
    """How the page says one alert code: a short title and its sentence."""

    title: str
    sentence: Sentence


#: Every alert code in words (a test checks every :class:`AlertCode` has its wording).
WORDING: dict[AlertCode, Wording] = {
    AlertCode.MISMATCH: Wording("Tile does not match", _mismatch),
    AlertCode.CLOSED_TRAIN: Wording("Closed train", lambda f: (
        f"{f.who} played {f.tile} on {f.train}, which is not open.",
        f"Take {f.tile} back: only a train with its marker on takes other players' tiles.")),
    AlertCode.UNSATISFIED_DOUBLE: Wording("Open double first", lambda f: (
        f"{f.who} played {f.tile} on {f.train} while {f.double} was waiting.",
        f"Take {f.tile} back; the open double must be satisfied first (or draw, then pass).")),
    AlertCode.DOUBLE_ORDER: Wording("Doubles out of order", lambda f: (
        f"{f.who} satisfied doubles out of order: {f.tile} on {f.train} came too early.",
        "The double laid first must be satisfied first.")),
    AlertCode.EXTRA_TILE: Wording("Too many tiles", lambda f: (
        f"{f.who} laid {f.tile} on {f.train} after their turn was over.",
        f"Take {f.tile} back: one tile a turn, and one more only after a double.")),
    AlertCode.FIRST_TURN: Wording("First-turn rule", lambda f: (
        f"{f.who} played {f.tile} on {f.train}, which the first-turn rule does not allow.",
        f"Take {f.tile} back; on the first turn {f.who} starts their own train.")),
    AlertCode.DUPLICATE_TILE: Wording("Same tile twice", lambda f: (
        f"{f.tile} on {f.named} is on the table twice.",
        "One of them is from another set or misread: check both.")),
    AlertCode.NOT_IN_SET: Wording("Not in the set", lambda f: (
        f"{f.tile} on {f.named} is not a tile of this set.",
        f"Take {f.tile} away; it belongs to another set.")),
    AlertCode.TILE_REMOVED: Wording("Tile taken away", lambda f: (
        f"{f.tile} was taken off {f.named}." if f.tile != "a tile"
        else f"A tile was taken off {f.named}.",
        "Put it back where it lay: tiles on the table stay.")),
    AlertCode.MARKER_MISSING: Wording("Marker missing", lambda f: (
        f"{f.who} passed, but their train has no marker.",
        f"Put a marker on {f.whose} train: it is open to everyone now.")),
    AlertCode.MARKER_STALE: Wording("Marker should come off", lambda f: (
        f"{f.who} played on their own train, but its marker is still on.",
        f"Take the marker off {f.owner}'s train." if f.owner not in ("its owner", "the table")
        else "Take the marker off.")),
    AlertCode.OPEN_DOUBLE: Wording("Open double", lambda f: (
        f"{f.who} laid the double {f.tile} on {f.train}; it must be satisfied next.",
        "The next player plays on it, or draws, then passes.")),
}

#: The short title of each code (the headline of a banner or a log line).
TITLES: dict[AlertCode, str] = {code: w.title for code, w in WORDING.items()}


def say(alert: Alert, details: AlertDetails, players: Sequence[str]) -> AlertWords:
    """``alert`` in words, ``details`` (the referee's) naming its tile, end and double."""
    wording = WORDING[alert.code]
    sentence, advice = wording.sentence(_facts(alert, details, players))
    if details.doubtful:
        return AlertWords(f"{wording.title} (to check)", f"{sentence} {DOUBT}", advice, True)
    return AlertWords(wording.title, sentence, advice)
