"""Names typed at the table (players, games): something one can see on the pad.

A name is trimmed of spaces and invisible format characters at its ends; it
must then hold a visible character (a letter, digit, punctuation or symbol)
and no control character. Two names that look the same (case, width,
invisible joiners) are the same name.

>>> clean_name("  Ann ", "Seat 1", limit=24)
'Ann'
>>> same_name("ANN", "ann\\u200b")
True
"""

from __future__ import annotations

import unicodedata

#: Categories that draw something: letters, marks on them, digits, punctuation, symbols.
VISIBLE = ("L", "N", "P", "S")


class NameProblem(ValueError):
    """A name that cannot be used; the message says why, naming the field."""


def _trim(text: str) -> str:
    start, end = 0, len(text)
    while start < end and _blank(text[start]):
        start += 1
    while end > start and _blank(text[end - 1]):
        end -= 1
    return text[start:end]


def _blank(char: str) -> bool:
    return char.isspace() or unicodedata.category(char) == "Cf"


def clean_name(text: str, what: str, *, limit: int) -> str:
    """``text`` trimmed; :class:`NameProblem` when it is blank, invisible, holds a
    control character or is longer than ``limit``."""
    name = _trim(unicodedata.normalize("NFC", text))
    if any(unicodedata.category(c) == "Cc" for c in name):
        raise NameProblem(f"{what}: a name cannot hold control characters.")
    if not any(unicodedata.category(c)[0] in VISIBLE for c in name):
        raise NameProblem(f"{what}: a name needs at least one visible letter or digit.")
    if len(name) > limit:
        raise NameProblem(f"{what}: a name of at most {limit} characters.")
    return name


def is_blank(text: str) -> bool:
    """Whether a field was left empty (spaces only: an invisible name is refused, not
    skipped)."""
    return not text.strip()


def name_key(name: str) -> str:
    """What two names that look alike share."""
    folded = unicodedata.normalize("NFKC", name).casefold()
    return "".join(c for c in folded if unicodedata.category(c) != "Cf")


def same_name(a: str, b: str) -> bool:
    return name_key(a) == name_key(b)
