"""End-of-round scoring from photos: one photo of each player's remaining hand.

Each photo is read with a ``TileReader``; the tiles become ``engine.Tile``s and
``engine.hand_points`` prices them under the rule set (0-0 and blank halves as
the rules say). Doubtful readings are not guessed away: a tile read with low
confidence, with a value outside the set, or seen twice (a set holds each tile
once) is listed in ``uncertain`` so the table can check it by eye, as is a tile a
hand partly covers (``vision.reading.cover_check``). A tile lying face down is not a
tile read (``vision.reading.face_down``): it is counted in ``face_down``, not priced, and
the hand must be turned over and photographed again.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from engine import RuleSet, Tile, hand_points
from vision.reading.cover_check import flag_covered
from vision.reading.reader import MAX_VALUE, FrameReading, TileReader, TileReading


@dataclass(frozen=True)
class HandReading:
    """One player's hand as read from a photo, and its penalty."""

    source: str
    tiles: tuple[Tile, ...]
    readings: tuple[TileReading, ...]
    points: int
    #: Indices into ``tiles`` that need a look.
    uncertain: tuple[int, ...] = ()
    #: Tiles seen lying face down: not read, not in ``points``.
    face_down: int = 0

    def to_json(self) -> dict[str, Any]:
        """``{"tiles": [[a, b], ...], "points": N, "uncertain": [i, ...]}``, and
        ``"face_down": n`` when n tiles lay face down (not counted)."""
        out: dict[str, Any] = {"tiles": [[t.a, t.b] for t in self.tiles],
                               "points": self.points, "uncertain": list(self.uncertain)}
        if self.face_down:
            out["face_down"] = self.face_down
        return out

    def text(self) -> str:
        shown = " ".join(str(t) + ("?" if i in self.uncertain else "")
                         for i, t in enumerate(self.tiles))
        down = (f"  ({self.face_down} tile{'s' * (self.face_down != 1)} face down, "
                "not counted: turn them over)") if self.face_down else ""
        return f"{shown or '(no tiles)'}  = {self.points} points{down}"


def hand_from_reading(reading: FrameReading, rules: RuleSet, source: str = "") -> HandReading:
    """Price the tiles of one read photo, left to right as they lie."""
    readings = sorted(reading.tiles, key=lambda t: (float(t.corners[:, 0].mean()),
                                                    float(t.corners[:, 1].mean())))
    tiles = tuple(Tile(*r.values) for r in readings)
    uncertain = tuple(i for i, r in enumerate(readings)
                      if r.uncertain or max(r.values) > rules.set)
    return HandReading(source, tiles, tuple(readings), hand_points(tiles, rules), uncertain,
                       len(reading.face_down))


def flag_duplicates(hands: Sequence[HandReading]) -> list[HandReading]:
    """Mark every tile that was read more than once across all hands as uncertain."""
    seen = Counter(t for h in hands for t in h.tiles)
    out = []
    for h in hands:
        extra = {i for i, t in enumerate(h.tiles) if seen[t] > 1}
        out.append(HandReading(h.source, h.tiles, h.readings, h.points,
                               tuple(sorted(set(h.uncertain) | extra)), h.face_down))
    return out


def read_hand(reader: TileReader, photo: str | os.PathLike[str] | np.ndarray) -> FrameReading:
    """The tiles in a photo of a hand (a path, or the image as a BGR array): read as it
    is and, when it was taken at a slant, from straight above too
    (``vision.stills.slanted_photo``); a tile a hand partly covers is flagged ``uncertain``
    (``vision.reading.cover_check``, when the reader's models hold the check)."""
    from vision.images import load_image
    from vision.stills.slanted_photo import read_from_above

    image = photo if isinstance(photo, np.ndarray) else load_image(photo)
    frame = read_from_above(reader, image)
    check = getattr(reader, "cover_check", None)
    return flag_covered(frame, image, check() if callable(check) else None,
                        top=getattr(reader, "max_value", MAX_VALUE))


def score_photos(paths: Sequence[str | os.PathLike[str]], rules: RuleSet,
                 reader: TileReader) -> list[HandReading]:
    """Read one photo per player (in seat order, ``read_hand``) and price each hand."""
    hands = [hand_from_reading(read_hand(reader, p), rules, os.fspath(p)) for p in paths]
    return flag_duplicates(hands)
