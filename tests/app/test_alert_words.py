"""Every alert code said in one sentence: names, not indices; tiles as 4-7."""

from __future__ import annotations

import re

import pytest

from companion_app.alert_words import DOUBT, TITLES, WORDING, say, train_name
from engine import MEXICAN, Alert, AlertCode, AlertDetails, Owner

PLAYERS = ["Ann", "Bo", "Cyril"]
C = AlertCode


def alert(code: AlertCode, seat: int | None, train: Owner | None,
          tile: tuple[int, int] | None = None, end: int | None = None,
          double: tuple[Owner, int] | None = None) -> tuple[Alert, AlertDetails]:
    return (Alert(4, code, seat, train, "the engine's own words"),
            AlertDetails(tile, end, double))


#: code -> (an alert, the sentence, words the advice must hold)
CASES: dict[AlertCode, tuple[tuple[Alert, AlertDetails], str, str]] = {
    C.MISMATCH: (alert(C.MISMATCH, 1, 1, (7, 4), 1),
                 "Bo laid 4-7 on their own train, but it does not match the 1 at its end.",
                 "must have a 1"),
    C.CLOSED_TRAIN: (alert(C.CLOSED_TRAIN, 2, 0, (5, 9), 5),
                     "Cyril played 5-9 on Ann's train, which is not open.", "marker"),
    C.UNSATISFIED_DOUBLE: (
        alert(C.UNSATISFIED_DOUBLE, 0, 0, (11, 8), 11, (2, 1)),
        "Ann played 8-11 on their own train while the double 1-1 on Cyril's train was "
        "waiting.", "satisfied first"),
    C.DOUBLE_ORDER: (alert(C.DOUBLE_ORDER, 0, MEXICAN, (3, 6), 3),
                     "Ann satisfied doubles out of order: 3-6 on the Mexican train came too "
                     "early.", "first"),
    C.EXTRA_TILE: (alert(C.EXTRA_TILE, 2, 2, (1, 1), 1),
                   "Cyril laid 1-1 on their own train after their turn was over.",
                   "one tile a turn"),
    C.FIRST_TURN: (alert(C.FIRST_TURN, 1, MEXICAN, (12, 3), 12),
                   "Bo played 3-12 on the Mexican train, which the first-turn rule does not "
                   "allow.", "own train"),
    C.DUPLICATE_TILE: (alert(C.DUPLICATE_TILE, 0, 2, (6, 2), 6),
                       "2-6 on Cyril's train is on the table twice.", "check both"),
    C.NOT_IN_SET: (alert(C.NOT_IN_SET, 1, 1, (13, 4), 13),
                   "4-13 on Bo's train is not a tile of this set.", "another set"),
    C.TILE_REMOVED: (alert(C.TILE_REMOVED, 0, 1, (12, 9)),
                     "9-12 was taken off Bo's train.", "Put it back"),
    C.MARKER_MISSING: (alert(C.MARKER_MISSING, 2, 2),
                       "Cyril passed, but their train has no marker.",
                       "Put a marker on Cyril's train"),
    C.MARKER_STALE: (alert(C.MARKER_STALE, 1, 1),
                     "Bo played on their own train, but its marker is still on.",
                     "Take the marker off Bo's train"),
    C.OPEN_DOUBLE: (alert(C.OPEN_DOUBLE, 2, 2, (1, 1), 8),
                    "Cyril laid the double 1-1 on their own train; it must be satisfied next.",
                    "next player"),
}


def test_every_code_has_a_wording_and_a_case() -> None:
    for code in AlertCode:
        assert code in WORDING and WORDING[code].title, code
        assert code in CASES, code
    assert set(TITLES) == set(AlertCode)


@pytest.mark.parametrize("code", list(AlertCode))
def test_each_code_in_one_sentence(code: AlertCode) -> None:
    (raised, details), sentence, advice = CASES[code]
    words = say(raised, details, PLAYERS)
    assert words.title == TITLES[code]
    assert words.text == sentence
    assert advice in words.advice
    # names, not seat numbers; tiles in words, never a raw list
    assert not re.search(r"\[|\bseat\b|\btrain \d", words.text + words.advice)


@pytest.mark.parametrize("code", list(AlertCode))
def test_without_details_each_code_still_reads(code: AlertCode) -> None:
    words = say(CASES[code][0][0], AlertDetails(), PLAYERS)
    assert words.text.endswith(".") and "None" not in words.text + words.advice
    assert "[" not in words.text


def test_the_first_table_has_no_mover_and_unnamed_seats_have_numbers() -> None:
    words = say(*alert(C.MISMATCH, None, 3, (2, 5), 12), PLAYERS)
    assert words.text.startswith("Someone laid 2-5 on Seat 4's train")
    assert say(*alert(C.EXTRA_TILE, 0, 0, (1, 2), 1), PLAYERS).text.startswith("Ann ")


def test_a_train_is_named_by_its_owner_never_by_its_index() -> None:
    (raised, _), _, _ = CASES[C.OPEN_DOUBLE]
    words = say(raised, AlertDetails((2, 2), 2, None), PLAYERS)
    assert "train 2" not in words.text and "Cyril" in words.text
    assert train_name(0, PLAYERS, train=True) == "Ann's train"
    assert train_name(MEXICAN, PLAYERS, train=True) == "the Mexican train"
    assert train_name(1, PLAYERS) == "Bo" and train_name(None, PLAYERS) == ""


def test_a_doubtful_alert_says_it_is_to_be_checked() -> None:
    """An alert the tracker doubts is worded as one to check, in its title and sentence,
    and marked in its JSON; a sure one is not."""
    alert = Alert(4, AlertCode.MISMATCH, 1, 1, "tile [7, 4] laid on 1")
    sure = say(alert, AlertDetails(tile=(7, 4), end=1), PLAYERS)
    doubted = say(alert, AlertDetails(tile=(7, 4), end=1, doubtful=True), PLAYERS)
    assert not sure.doubtful and "doubtful" not in sure.to_json()
    assert doubted.doubtful and doubted.to_json()["doubtful"] is True
    assert doubted.title.startswith(sure.title) and "check" in doubted.title
    assert doubted.text.startswith(sure.text) and DOUBT in doubted.text
    assert DOUBT not in sure.text
