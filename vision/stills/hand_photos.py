"""End-of-round scoring from photos: one photo of each player's remaining hand.

Each photo is read with a ``TileReader``; the tiles become ``engine.Tile``s and
``engine.hand_points`` prices them under the rule set (0-0 and blank halves as
the rules say). Doubtful readings are not guessed away: every box carries the
reasons it needs a look (:class:`Doubt`: read with doubt, a half whose pips allow
more than one count, a count the set does not have, a tile seen twice, a tile a
hand partly covers, a box that may not be a tile at all), and a hand with any
doubt asks to be checked by eye (``HandReading.needs_check``).

A faint box or a patch of the tiles' colour no tile read covers, of a tile's size and
shape, that the domino check does not rule out (``vision.stills.missed_tiles``) may be
a tile the reader missed: it is left out too (``Doubt.MAYBE_MISSED``), and the hand
marked. A box the detector scores below ``MAYBE_NOT_TILE_BELOW``, or whose box the
domino check rejects (:func:`checked_boxes`), is most likely not a
tile (wood grain, a knot, glare, a printed pattern, a second box on a tile): it is left out of the
points, and listed in ``left_out`` with its reasons, so the hand is still marked
and the box is shown for a person to count it if it is a tile after all. Every
other doubtful box is counted as read, and marked. A tile lying face down is not a
tile read (``vision.reading.face_down``): it is counted in ``face_down``, not priced, and
the hand must be turned over and photographed again.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any

import numpy as np

from engine import RuleSet, Tile, hand_points
from vision.models.domino_check import DominoCheck
from vision.reading.cover_check import flag_covered
from vision.reading.reader import MAX_VALUE, FrameReading, TileReader, TileReading
from vision.readings import TileReadings
from vision.stills.missed_tiles import MISSED_DOUBT, with_missed


class Doubt(StrEnum):
    """Why a box of a hand photo needs a look by eye before its points are trusted."""

    #: The reader's own flag: the tile as a whole was read with low certainty.
    UNSURE = "unsure"
    #: A half's doubtful pips allow more than one count (``TileReading.ranges``).
    RANGE = "range"
    #: A count the set does not have (above the set's largest half).
    NOT_IN_SET = "not-in-set"
    #: The same tile read twice (in this hand or another): a set holds each tile once.
    TWICE = "twice"
    #: A hand covers part of it (``vision.reading.cover_check``): some pips may be out of view.
    COVERED = "covered"
    #: The detector scored the box low, or the domino check rejects it
    #: (:func:`checked_boxes`): it may be the surface, not a tile. Left out.
    MAYBE_NOT_TILE = "maybe-not-tile"
    #: A faint box of a tile's size and shape that no tile read covers
    #: (``vision.stills.missed_tiles``): a tile the reader may have missed. Left out.
    MAYBE_MISSED = "maybe-missed"


#: Each doubt in a few words, for a person.
DOUBT_WORDS: dict[Doubt, str] = {
    Doubt.UNSURE: "read with doubt",
    Doubt.RANGE: "a half could be another count",
    Doubt.NOT_IN_SET: "a count the set does not have",
    Doubt.TWICE: "read twice",
    Doubt.COVERED: "partly covered",
    Doubt.MAYBE_NOT_TILE: "may not be a tile",
    Doubt.MAYBE_MISSED: "may be a tile not read",
}

#: Doubts whose box is left out of the points (shown, and marked, all the same).
LEFT_OUT: frozenset[Doubt] = frozenset({Doubt.MAYBE_NOT_TILE, Doubt.MAYBE_MISSED})

#: A box the tile detector scores below this may not be a tile. On the 40 rendered hands
#: of the eval set every true tile scored 0.69 or more and the three boxes that were not
#: tiles 0.29 or less; this is the middle of that gap.
MAYBE_NOT_TILE_BELOW = 0.5


#: The doubt a reading whose box the domino check rejects carries (:func:`checked_boxes`).
REJECTED_DOUBT = "not-a-domino"


def tile_doubts(reading: TileReading, top: int) -> tuple[Doubt, ...]:
    """The doubts one reading carries by itself (``top``: the set's largest half)."""
    if reading.doubt == MISSED_DOUBT:  # a faint box no tile read covers: that alone
        return (Doubt.MAYBE_MISSED,)
    doubts = [Doubt.MAYBE_NOT_TILE] if reading.doubt == REJECTED_DOUBT else []
    if reading.uncertain:
        doubts.append(Doubt.UNSURE)
    if reading.ranges is not None and any(low != high for low, high in reading.ranges):
        doubts.append(Doubt.RANGE)
    if max(reading.values) > top:
        doubts.append(Doubt.NOT_IN_SET)
    if reading.covered:
        doubts.append(Doubt.COVERED)
    if reading.detector_confidence < MAYBE_NOT_TILE_BELOW \
            and Doubt.MAYBE_NOT_TILE not in doubts:
        doubts.append(Doubt.MAYBE_NOT_TILE)
    return tuple(doubts)


@dataclass(frozen=True)
class LeftOutBox:
    """A box of the photo not counted in the hand (it may not be a tile), and why."""

    reading: TileReading
    doubts: tuple[Doubt, ...]


@dataclass(frozen=True)
class HandReading:
    """One player's hand as read from a photo, and its penalty."""

    source: str
    #: The tiles counted, left to right as they lie, with their readings.
    tiles: tuple[Tile, ...]
    readings: tuple[TileReading, ...]
    points: int
    #: Why each counted tile needs a look (empty: none), index for index with ``tiles``.
    doubts: tuple[tuple[Doubt, ...], ...] = ()
    #: Tiles seen lying face down: not read, not in ``points``.
    face_down: int = 0
    #: Boxes not counted because they may not be tiles (``LEFT_OUT`` doubts).
    left_out: tuple[LeftOutBox, ...] = ()

    @property
    def uncertain(self) -> tuple[int, ...]:
        """Indices into ``tiles`` that need a look."""
        return tuple(i for i, d in enumerate(self.doubts) if d)

    @property
    def needs_check(self) -> bool:
        """Whether the points rest on anything doubtful: a tile to look at, a box
        left out that might be a tile, a tile lying face down (not in the points), or
        nothing found at all (a photo is taken of a hand that holds tiles)."""
        return bool(self.uncertain or self.left_out or self.face_down or not self.tiles)

    def to_json(self) -> dict[str, Any]:
        """``{"tiles": [[a, b], ...], "points": N, "uncertain": [i, ...], "check": bool,
        "doubts": [[reason, ...] per tile]}``; ``"left_out": [{"values", "corners",
        "doubts"}, ...]`` when boxes were left out, ``"face_down": n`` when n tiles lay
        face down (neither counted)."""
        out: dict[str, Any] = {"tiles": [[t.a, t.b] for t in self.tiles],
                               "points": self.points, "uncertain": list(self.uncertain),
                               "check": self.needs_check,
                               "doubts": [[str(d) for d in ds] for ds in self.doubts]}
        if self.left_out:
            out["left_out"] = [{"values": [int(v) for v in box.reading.values],
                                "corners": box.reading.to_json()["corners"],
                                "doubts": [str(d) for d in box.doubts]}
                               for box in self.left_out]
        if self.face_down:
            out["face_down"] = self.face_down
        return out

    def text(self) -> str:
        shown = " ".join(str(t) + ("?" if i in self.uncertain else "")
                         for i, t in enumerate(self.tiles))
        down = (f"  ({self.face_down} tile{'s' * (self.face_down != 1)} face down, "
                "not counted: turn them over)") if self.face_down else ""
        out = ""
        for doubt, words in ((Doubt.MAYBE_NOT_TILE, "that may not be tiles"),
                             (Doubt.MAYBE_MISSED, "that may be tiles not read")):
            boxes = [b for b in self.left_out if doubt in b.doubts]
            if boxes:
                out += (f"  ({len(boxes)} box{'es' * (len(boxes) != 1)} {words} left out: "
                        + " ".join(f"{b.reading.values[0]}-{b.reading.values[1]}"
                                   for b in boxes) + ")")
        check = "  CHECK" if self.needs_check else ""
        return f"{shown or '(no tiles)'}  = {self.points} points{out}{down}{check}"


def hand_from_reading(reading: FrameReading, rules: RuleSet, source: str = "") -> HandReading:
    """Price the tiles of one read photo, left to right as they lie; a tile read twice
    in the photo is doubted (``Doubt.TWICE``), a box that may not be a tile left out."""
    readings = sorted(reading.tiles.each(), key=lambda t: (float(t.corners[:, 0].mean()),
                                                    float(t.corners[:, 1].mean())))
    doubts = [tile_doubts(r, rules.set) for r in readings]
    kept = [i for i, d in enumerate(doubts) if not LEFT_OUT.intersection(d)]
    left = tuple(LeftOutBox(readings[i], doubts[i]) for i in range(len(readings))
                 if i not in kept)
    tiles = tuple(Tile(*readings[i].values) for i in kept)
    hand = HandReading(source, tiles, tuple(readings[i] for i in kept),
                       hand_points(tiles, rules), tuple(doubts[i] for i in kept),
                       len(reading.backs), left)
    return flag_duplicates([hand])[0]


def flag_duplicates(hands: Sequence[HandReading]) -> list[HandReading]:
    """Doubt every tile read more than once across all hands (``Doubt.TWICE``)."""
    seen = Counter(t for h in hands for t in h.tiles)
    out = []
    for h in hands:
        doubts = tuple(d + (Doubt.TWICE,) if seen[t] > 1 and Doubt.TWICE not in d else d
                       for t, d in zip(h.tiles, h.doubts or ((),) * len(h.tiles), strict=True))
        out.append(replace(h, doubts=doubts))
    return out


def checked_boxes(check: DominoCheck | None, image: np.ndarray,
                  frame: FrameReading) -> FrameReading:
    """``frame`` with every tile whose box (in ``image``) the domino ``check`` rejects
    (``Verdicts.dropped``: no domino beyond its mark for the detector's score) carrying
    ``REJECTED_DOUBT``: left out of the points, and shown. The reader drops only what the
    check is certain of and may read a photo from above; a hand's points are put to it
    once more, in the photo itself."""
    tiles = frame.tiles.each()
    if check is None or not tiles:
        return frame
    verdicts = check(image, np.array([t.corners for t in tiles], np.float32),
                     np.array([t.detector_confidence for t in tiles], np.float32))
    if not verdicts.dropped.any():
        return frame
    return replace(frame, tiles=TileReadings.of([
        replace(t, uncertain=True, doubt=REJECTED_DOUBT) if rejected else t
        for t, rejected in zip(tiles, verdicts.dropped, strict=True)]))


def read_hand(reader: TileReader, photo: str | os.PathLike[str] | np.ndarray) -> FrameReading:
    """The tiles in a photo of a hand (a path, or the image as a BGR array): read as it
    is and, when it was taken at a slant, from straight above too
    (``vision.stills.slanted_photo``); a tile a hand partly covers is flagged ``uncertain``
    (``vision.reading.cover_check``, when the reader's models hold the check); faint boxes
    that may be tiles not read are added after the tiles, doubted
    (``vision.stills.missed_tiles``); a box the domino check rejects is marked so
    (:func:`checked_boxes`). A ``TileReader`` reads it with its close-up detector
    (``TileReader.for_hands``)."""
    from vision.images import load_image
    from vision.stills.slanted_photo import read_from_above

    image = photo if isinstance(photo, np.ndarray) else load_image(photo)
    if isinstance(reader, TileReader):
        reader = reader.for_hands()
    frame = read_from_above(reader, image)
    check = getattr(reader, "cover_check", None)
    frame = flag_covered(frame, image, check() if callable(check) else None,
                         top=getattr(reader, "max_value", MAX_VALUE))
    if not isinstance(reader, TileReader):
        return frame
    return with_missed(reader, image, checked_boxes(reader.domino_check, image, frame))


def score_photos(paths: Sequence[str | os.PathLike[str]], rules: RuleSet,
                 reader: TileReader) -> list[HandReading]:
    """Read one photo per player (in seat order, ``read_hand``) and price each hand."""
    hands = [hand_from_reading(read_hand(reader, p), rules, os.fspath(p)) for p in paths]
    return flag_duplicates(hands)
