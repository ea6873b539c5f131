"""Which readings of a hand photo still need a look, and a person's answer to each.

A stored hand keeps the boxes read on its photo (``readings``:
:class:`companion_app.photo_tiles.PhotoTile`). Each box
the reader doubted carries its reasons (``doubts``: the values of
:class:`vision.stills.hand_photos.Doubt`; another check may add its own). A box the reader left
out of the points (``left_out``: it may not be a tile, or may be a tile the reader did
not read) is doubted too. Until a
person answers every doubted box, the hand's points are not trusted: its score on
the pad is marked for checking (:func:`needs_check`). A person answers a box by
confirming it as read (``confirmed``), by correcting its counts (``corrected``:
a left-out box then counts), or by saying it is not a tile (``not_tile``: it no
longer counts). The marks live in the stored readings, so they survive a restart.

The hand's tiles are its counted boxes' values, in order, then any tiles typed
beside them (``extras``): :func:`hand_tiles`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from companion_app.photo_tiles import PhotoTile


def is_box(reading: PhotoTile) -> bool:
    """Whether a reading is a box of the hand (not a tile face down, not the table's)."""
    return not reading.face_down and not reading.on_table


def counts(reading: PhotoTile) -> bool:
    """Whether a box's values are in the hand's points."""
    if not is_box(reading) or reading.not_tile:
        return False
    return reading.corrected or not reading.left_out


def doubts(reading: PhotoTile) -> list[str]:
    """The reasons a box needs a look (empty: none), answered or not. A tile lying face
    down is one: the hand's points lack it until it is turned over and photographed
    again, or typed in and the hand checked."""
    if reading.face_down:
        return ["face-down"]
    if not is_box(reading):
        return []
    found = list(reading.doubts)
    if reading.uncertain and not found:  # a reading stored before reasons were kept
        found = ["unsure"]
    if reading.left_out and not found:  # a box stored before left-out boxes kept reasons
        found.append("maybe-not-tile")
    return found


def answered(reading: PhotoTile) -> bool:
    return reading.confirmed or reading.corrected or reading.not_tile


def open_doubts(readings: Sequence[PhotoTile]) -> list[int]:
    """Indices of the boxes doubted and not yet answered by a person."""
    return [i for i, r in enumerate(readings) if doubts(r) and not answered(r)]


def needs_check(readings: Sequence[PhotoTile] | None) -> bool:
    """Whether a stored hand's points rest on a box nobody has checked."""
    return readings is not None and bool(open_doubts(readings))


def counted_values(readings: Sequence[PhotoTile]) -> list[list[int]]:
    return [list(r.values) for r in readings if counts(r) and r.values is not None]


def extras(readings: Sequence[PhotoTile], tiles: Sequence[Sequence[int]]
           ) -> list[list[int]]:
    """The stored tiles typed beside the photo's boxes (after the counted boxes' values)."""
    return [list(t) for t in tiles[len(counted_values(readings)):]]


def hand_tiles(readings: Sequence[PhotoTile], typed: Sequence[Sequence[int]] = ()
               ) -> list[list[int]]:
    """The hand: the counted boxes' values in order, then the ``typed`` tiles."""
    return counted_values(readings) + [list(t) for t in typed]


def answer(readings: Sequence[PhotoTile], index: int, *,
           values: tuple[int, int] | None = None, not_tile: bool = False) -> list[PhotoTile]:
    """The readings with box ``index`` answered: corrected to ``values``, said to be no
    tile (``not_tile``), or, with neither, confirmed as read (a box left out as perhaps
    no tile is then a tile read right, and counts).

    Raises IndexError when ``index`` names no box of the hand.
    """
    if not 0 <= index < len(readings) or not is_box(readings[index]):
        raise IndexError(index)
    out = list(readings)
    box = out[index]
    if not_tile:
        box = replace(box, not_tile=True, corrected=False, confirmed=False)
    elif values is not None:
        box = replace(box, values=(int(values[0]), int(values[1])), corrected=True,
                      not_tile=False, confirmed=False)
    elif box.left_out and not box.corrected:
        box = replace(box, corrected=True, confirmed=True, not_tile=False)
    else:
        box = replace(box, confirmed=True)
    out[index] = box
    return out


def confirm_all(readings: Sequence[PhotoTile]) -> list[PhotoTile]:
    """Every doubted box confirmed as it now stands."""
    waiting = set(open_doubts(readings))
    return [replace(r, confirmed=True) if i in waiting else r for i, r in enumerate(readings)]


def apply_fields(readings: Sequence[PhotoTile], fields: Sequence[tuple[int, list[int]]]
                 ) -> list[PhotoTile]:
    """The readings after the page's tile fields were saved: ``fields`` pairs a counted
    box's index with the tile typed in its field (``[]``: cleared, not a tile). A field
    typed otherwise than read corrects its box; one left as read changes nothing."""
    out = list(readings)
    for index, tile in fields:
        if not 0 <= index < len(out) or not counts(out[index]):
            continue
        if not tile:
            out = answer(out, index, not_tile=True)
        elif sorted(tile) != sorted(out[index].values or ()):
            out = answer(out, index, values=(tile[0], tile[1]))
    return out


def marked_scores(readings: Mapping[tuple[int, int], Sequence[PhotoTile]],
                  sources: Mapping[tuple[int, int], str]) -> set[tuple[int, int]]:
    """The (round, seat) scores on the pad counted from a hand whose photo has a box
    nobody has checked: the pad marks them until someone does."""
    return {cell for cell, boxes in readings.items()
            if sources.get(cell) == "hand" and open_doubts(boxes)}


#: Each reason a box is doubted, in a few words (a reason not listed shows as it is).
DOUBT_WORDS = {
    "unsure": "read with doubt",
    "range": "a half could be another count",
    "not-in-set": "a count the set does not have",
    "twice": "read twice",
    "covered": "partly covered by a hand",
    "maybe-not-tile": "may not be a tile: not counted",
    "maybe-missed": "may be a tile the reader missed: not counted",
    "face-down": "lies face down: not counted",
}


def doubt_words(reading: PhotoTile) -> str:
    """Why a box needs a look, for the page (``""``: it does not)."""
    return "; ".join(DOUBT_WORDS.get(d, d) for d in doubts(reading))
