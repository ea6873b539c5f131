"""A blank engine taken for a tile lying face down: the trains leaving it say it is face up.

The reader sets a 0-0 reading apart as the back of a tile when no divider shows across
its middle (``vision.reading.face_down``). A blank double's divider is a thin groove or a
spinner's pin, and on a white engine under a flat light, in a webcam's blur, it may not
show: the round's 0-0 engine (the last of the 13 rounds) was set apart, and the table
took another double for the engine and laid every train wrong. A boneyard lies beside
the trains; no train starts from a tile lying face down. So a back the table takes for
its engine once it is read as a tile, with two trains or more leaving it and more tiles
laid on trains than without it, is the engine: :func:`engine_among_backs` puts it back
among the tiles, doubted (``BACK_DOUBT``), a question for the user rather than a silent
answer. On the photoreal stills of ``benchmarks/photoreal.py`` it gave a table without
the mat its blank engine back (whole tables 1 -> 2 of 12, trains right 61 -> 65 %) and
took no back of a boneyard or of a face-down tile for a tile; on the composited pairs of
``benchmarks/bare_photos.py`` it takes nothing.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from vision.readings import FrameReading, TileReading, TileReadings
from vision.stills.trouble_spots import tiles_laid
from vision.table import TableReading

#: The doubt a back taken for the engine carries.
BACK_DOUBT = "face-down?"
#: Backs tried, the nearest the tiles' middle first (a boneyard may hold a dozen).
MAX_BACKS = 6
#: Trains that must leave a back for it to be the engine: one train's tiles may run
#: past a box by chance (with one enough, a box on bare table among the composited
#: pairs' tiles and a tile misread 0-0 became engines).
MIN_TRAINS = 2
#: The confidence a back taken for the engine is read with: it was read 0-0, surely or
#: not, and the table, not the reader, says it is a face.
BACK_CONFIDENCE = 0.5


def engine_among_backs(frame: FrameReading, reading: TableReading | None,
                       rebuild: Callable[[FrameReading], TableReading]
                       ) -> tuple[FrameReading, TableReading | None]:
    """``(frame, reading)`` with the back of ``frame`` (at most ``MAX_BACKS`` tried) that,
    read as a 0-0 tile, the rebuilt table (``rebuild``: a frame -> its table) takes for
    its engine, with ``MIN_TRAINS`` leaving it and more tiles laid on trains, as that
    tile (doubted, ``BACK_DOUBT``); unchanged when none does (or there is no back or no
    tile)."""
    if not frame.backs or not len(frame.tiles):
        return frame, reading
    middle = np.median(np.asarray(frame.tiles.corners, np.float32).reshape(-1, 2), axis=0)
    nearest = sorted(range(len(frame.backs)), key=lambda i: float(
        np.linalg.norm(np.asarray(frame.backs[i]).mean(axis=0) - middle)))
    tiles = frame.tiles.each()
    laid = tiles_laid(reading)
    for i in nearest[:MAX_BACKS]:
        face = TileReading((0, 0), np.asarray(frame.backs[i], np.float32), BACK_CONFIDENCE,
                           True, doubt=BACK_DOUBT)
        trial = FrameReading(TileReadings.of([*tiles, face]), frame.markers, frame.shape,
                             frame.backs[:i] + frame.backs[i + 1:])
        again = rebuild(trial)
        owners = again.assignment
        leaving = sum(1 for train in again.positions.values() if train)
        if len(owners) > len(tiles) and owners[len(tiles)] == "engine" \
                and leaving >= MIN_TRAINS and tiles_laid(again) > laid:
            return trial, again
    return frame, reading
