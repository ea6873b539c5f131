"""vision.stills.engine_back: a blank engine the reader took for a tile lying face down."""

from __future__ import annotations

from typing import Any

import numpy as np
from table_fixtures import ENGINE, crosswise, lengthwise

from engine import MEXICAN
from vision.models.detections import Detections
from vision.readings import FrameReading, TileReading, TileReadings
from vision.stills.engine_back import BACK_DOUBT, engine_among_backs
from vision.table import reconstruct

#: A blank engine on the hub, and the trains leaving it (three players: seat 0 down,
#: the Mexican train to the right); a 5-5 waits at the end of seat 0's train.
BLANK = crosswise((0, 0), (1, 0), 0)
TRAINS = [lengthwise((0, 72), (0, 96), (0, 1)), lengthwise((0, 120), (0, 144), (1, 5)),
          crosswise((0, 168), (1, 0), 5),
          lengthwise((72, 0), (96, 0), (0, 3)), lengthwise((120, 0), (144, 0), (3, 4))]
#: A boneyard's tile lying face down, well away from the trains.
BONEYARD = crosswise((400, 400), (1, 0), 0).corners


def frame_of(tiles: list[TileReading], backs: list[np.ndarray]) -> FrameReading:
    return FrameReading(TileReadings.of(tiles), Detections.empty(), (800, 800),
                        tuple(np.asarray(b, np.float32) for b in backs))


def rebuild(frame: FrameReading) -> Any:
    return reconstruct(frame.tiles, frame.markers, 3)


def test_a_back_the_trains_leave_is_the_engine_face_up_and_doubted() -> None:
    """Without it the table takes the 5-5 at a train's end for the engine and lays
    nothing right; with it taken back, every train leaves it."""
    frame = frame_of(TRAINS, [BONEYARD, BLANK.corners])
    first = rebuild(frame)
    assert first.table is not None and first.table.engine == 5
    got, table = engine_among_backs(frame, first, rebuild)
    assert table is not None and table.table is not None and table.table.engine == 0
    seat, mexican = table.table.train(0), table.table.train(MEXICAN)
    assert seat is not None and seat.tiles == ((0, 1), (1, 5), (5, 5))
    assert mexican is not None and mexican.tiles == ((0, 3), (3, 4))
    engine = got.tiles.reading(table.assignment.index("engine"))
    assert engine.values == (0, 0) and engine.uncertain and engine.doubt == BACK_DOUBT
    np.testing.assert_allclose(engine.corners, BLANK.corners)
    assert len(got.backs) == 1 and np.allclose(got.backs[0], BONEYARD)  # still face down


def test_a_back_no_train_leaves_stays_face_down() -> None:
    """The engine read as such: the boneyard's back is left alone, and so is a back beside
    a train's end that the table would not take for its engine."""
    tiles = [ENGINE, lengthwise((0, 72), (0, 96), (9, 0)), lengthwise((0, 120), (0, 144), (0, 2))]
    beside = crosswise((60, 120), (1, 0), 0).corners
    frame = frame_of(tiles, [BONEYARD, beside])
    first = rebuild(frame)
    assert engine_among_backs(frame, first, rebuild) == (frame, first)


def test_a_back_only_one_train_leaves_stays_face_down() -> None:
    """One train's tiles may run past a box on the cloth (or on the mat's printed
    outline) by chance: it takes two trains leaving a back to make it the engine."""
    frame = frame_of(TRAINS[:3], [BLANK.corners])
    first = rebuild(frame)
    assert engine_among_backs(frame, first, rebuild) == (frame, first)


def test_without_backs_or_tiles_nothing_is_tried() -> None:
    calls: list[FrameReading] = []

    def counted(frame: FrameReading) -> Any:
        calls.append(frame)
        return rebuild(frame)

    plain = frame_of(TRAINS, [])
    assert engine_among_backs(plain, None, counted) == (plain, None)
    alone = frame_of([], [BLANK.corners])
    assert engine_among_backs(alone, None, counted) == (alone, None)
    assert calls == []
