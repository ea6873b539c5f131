"""Every alert code said in one sentence: names, not indices; tiles as 4-7."""

from __future__ import annotations

import re
from typing import Any

import pytest

from companion_app.alert_words import TITLES, WORDING, describe, say
from engine import AlertCode

PLAYERS = ["Ann", "Bo", "Cyril"]


def alert(code: str, seat: int | None, train: Any, tile: list[int] | None = None,
          end: int | None = None, double: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"at": 4, "code": code, "seat": seat, "train": train,
            "message": "the engine's own words", "details": {"tile": tile, "end": end,
                                                              "double": double}}


#: code -> (an alert, the sentence, words the advice must hold)
CASES: dict[str, tuple[dict[str, Any], str, str]] = {
    "mismatch": (alert("mismatch", 1, 1, [7, 4], 1),
                 "Bo laid 4-7 on their own train, but it does not match the 1 at its end.",
                 "must have a 1"),
    "closed-train": (alert("closed-train", 2, 0, [5, 9], 5),
                     "Cyril played 5-9 on Ann's train, which is not open.", "marker"),
    "unsatisfied-double": (
        alert("unsatisfied-double", 0, 0, [11, 8], 11, {"train": 2, "value": 1}),
        "Ann played 8-11 on their own train while the double 1-1 on Cyril's train was "
        "waiting.", "satisfied first"),
    "double-order": (alert("double-order", 0, "mexican", [3, 6], 3),
                     "Ann satisfied doubles out of order: 3-6 on the Mexican train came too "
                     "early.", "first"),
    "extra-tile": (alert("extra-tile", 2, 2, [1, 1], 1),
                   "Cyril laid 1-1 on their own train after their turn was over.",
                   "one tile a turn"),
    "first-turn": (alert("first-turn", 1, "mexican", [12, 3], 12),
                   "Bo played 3-12 on the Mexican train, which the first-turn rule does not "
                   "allow.", "own train"),
    "duplicate-tile": (alert("duplicate-tile", 0, 2, [6, 2], 6),
                       "2-6 on Cyril's train is on the table twice.", "check both"),
    "not-in-set": (alert("not-in-set", 1, 1, [13, 4], 13),
                   "4-13 on Bo's train is not a tile of this set.", "another set"),
    "tile-removed": (alert("tile-removed", 0, 1, [12, 9]),
                     "9-12 was taken off Bo's train.", "Put it back"),
    "marker-missing": (alert("marker-missing", 2, 2),
                       "Cyril passed, but their train has no marker.",
                       "Put a marker on Cyril's train"),
    "marker-stale": (alert("marker-stale", 1, 1),
                     "Bo played on their own train, but its marker is still on.",
                     "Take the marker off Bo's train"),
    "open-double": (alert("open-double", 2, 2, [1, 1], 8),
                    "Cyril laid the double 1-1 on their own train; it must be satisfied next.",
                    "next player"),
}


def test_every_code_has_a_wording_and_a_case() -> None:
    for code in AlertCode:
        assert code in WORDING and WORDING[code].title, code
        assert code.value in CASES, code
    assert set(CASES) == {c.value for c in AlertCode} and set(TITLES) == set(AlertCode)


@pytest.mark.parametrize("code", sorted(CASES))
def test_each_code_in_one_sentence(code: str) -> None:
    raised, sentence, advice = CASES[code]
    words = say(raised, PLAYERS)
    assert words.title == TITLES[code]
    assert words.text == sentence
    assert advice in words.advice
    # names, not seat numbers; tiles in words, never a raw list
    assert not re.search(r"\[|\bseat\b|\btrain \d", words.text + words.advice)


@pytest.mark.parametrize("code", sorted(CASES))
def test_without_details_each_code_still_reads(code: str) -> None:
    raised = dict(CASES[code][0], details=None)
    words = say(raised, PLAYERS)
    assert words.text.endswith(".") and "None" not in words.text + words.advice
    assert "[" not in words.text


def test_the_first_table_has_no_mover_and_unnamed_seats_have_numbers() -> None:
    words = say(alert("mismatch", None, 3, [2, 5], 12), PLAYERS)
    assert words.text.startswith("Someone laid 2-5 on Seat 4's train")
    assert describe(alert("extra-tile", 0, 0, [1, 2], 1), PLAYERS)["text"].startswith("Ann ")


def test_an_unknown_code_keeps_the_engines_message() -> None:
    words = say({"code": "new-code", "message": "something odd"}, PLAYERS)
    assert (words.title, words.text, words.advice) == ("new-code", "something odd", "")
