"""vision.table.rereads: a tile that does not match the end it lies on is read again
where its train puts it (``reread-tile``)."""

from __future__ import annotations

import numpy as np
from table_fixtures import (
    ELEVEN_EIGHT,
    ENGINE,
    MEXICAN_TO_11,
    SEAT0_DOWN,
    kinds,
    lengthwise,
    one_by_one,
    oracle_look,
    turned_box,
)

from engine import MEXICAN
from vision.readings import TileReading
from vision.table import Look, reconstruct


def test_a_tile_at_a_mismatch_is_read_again_where_its_train_puts_it() -> None:
    # seat 0: 9-1 1-2 2-3 3-4; the 2-3's box slid 6 px along the train cut the 2 off its
    # crop, read 5-3 without doubt (no range to settle it by its neighbours)
    slid = TileReading((5, 3), np.asarray(SEAT0_DOWN[2].corners, float) + [0, 6])
    tiles = [ENGINE, SEAT0_DOWN[0], SEAT0_DOWN[1], slid, SEAT0_DOWN[3]]
    reading = reconstruct(tiles, None, 3, look=oracle_look([ENGINE, *SEAT0_DOWN]))
    assert reading.table is not None
    assert reading.table.train(0).tiles == (  # type: ignore[union-attr]
        (9, 1), (1, 2), (2, 3), (3, 4))
    assert kinds(reading) == ["reread-tile"]
    assert reading.doubted(0, 2) and reading.positions[0][2] == 3
    # without looking again it is a mismatch for the rules
    blind = reconstruct(tiles, None, 3)
    assert blind.table is not None
    assert blind.table.train(0).tiles[2] == (5, 3)  # type: ignore[union-attr]
    # a tile that really does not match reads the same again, and stays; so does the
    # tile before it, read again
    really = TileReading((6, 3), SEAT0_DOWN[2].corners)
    laid = [ENGINE, SEAT0_DOWN[0], SEAT0_DOWN[1], really, SEAT0_DOWN[3]]
    reading = reconstruct(laid, None, 3, look=oracle_look([ENGINE, *laid[1:]]))
    assert reading.table is not None
    assert reading.table.train(0).tiles[1:3] == ((1, 2), (6, 3))  # type: ignore[union-attr]
    assert "reread-tile" not in kinds(reading)


def test_the_tile_before_a_mismatch_is_read_again_when_the_one_after_reads_the_same() -> None:
    # seat 0: 9-1 1-2 2-3 3-4; the 1-2's box slid 6 px towards the hub cut pips off its
    # far half, read 1-5 without doubt: the 2-3 laid on it reads 2-3 again, the 1-2 read
    # again where the train puts it is 1-2
    slid = TileReading((1, 5), np.asarray(SEAT0_DOWN[1].corners, float) - [0, 6])
    tiles = [ENGINE, SEAT0_DOWN[0], slid, SEAT0_DOWN[2], SEAT0_DOWN[3]]
    reading = reconstruct(tiles, None, 3, look=oracle_look([ENGINE, *SEAT0_DOWN]))
    assert reading.table is not None
    assert reading.table.train(0).tiles == (  # type: ignore[union-attr]
        (9, 1), (1, 2), (2, 3), (3, 4))
    assert kinds(reading) == ["reread-tile"]
    assert "far end" in reading.uncertainties[0].message
    assert reading.doubted(0, 1) and not reading.doubted(0, 2)
    # without looking again it is a mismatch for the rules
    blind = reconstruct(tiles, None, 3)
    assert blind.table is not None
    assert blind.table.train(0).tiles[1] == (1, 5)  # type: ignore[union-attr]


def test_a_trains_last_tile_is_read_again_before_the_train_goes_on() -> None:
    # seat 0: 9-1 1-2 2-3, the 2-3 read 5-8 without doubt (a box slid along it); then a
    # 3-3 unseen where the train turns, and 3-4 on: the train goes on from the 3 only
    # once the 2-3 is read again where it lies
    truth = [ENGINE, SEAT0_DOWN[0], SEAT0_DOWN[1], SEAT0_DOWN[2]]
    misread = TileReading((5, 8), SEAT0_DOWN[2].corners)
    on = lengthwise((48, 192), (72, 192), (3, 4))
    tiles = [ENGINE, SEAT0_DOWN[0], SEAT0_DOWN[1], misread, on]
    reading = reconstruct(tiles, None, 3, look=oracle_look(truth))
    assert reading.table is not None
    assert reading.table.train(0).tiles == (  # type: ignore[union-attr]
        (9, 1), (1, 2), (2, 3), (3, 3), (3, 4))
    assert kinds(reading) == ["inferred-tile", "reread-tile"]
    # a tile read the same again stays, and the train stops at it
    reading = reconstruct(tiles, None, 3, look=oracle_look([ENGINE, *SEAT0_DOWN[:2], misread]))
    assert reading.table is not None
    assert reading.table.train(0).tiles == ((9, 1), (1, 2), (5, 8))  # type: ignore[union-attr]


def test_a_trains_last_tile_read_again_moves_its_end_to_where_the_train_puts_it() -> None:
    # seat 0: 9-1 1-2 2-3, then the train turns towards +x: 3-4 beside the 3 half. The
    # 2-3 was found as a box turned 25 degrees about its near half (its far half 10 mm
    # aside) and read 6-3: read again where the train puts it, it is the 2-3, and the
    # train goes on from its far half there, not from the box's
    askew = TileReading((6, 3), turned_box(SEAT0_DOWN[2], 25, about=(0, 168)).corners)
    turned = lengthwise((24, 192), (48, 192), (3, 4))
    truth = [ENGINE, *SEAT0_DOWN[:3], turned]
    tiles = [ENGINE, SEAT0_DOWN[0], SEAT0_DOWN[1], askew, turned]
    reading = reconstruct(tiles, None, 3, look=oracle_look(truth))
    assert reading.table is not None
    assert reading.table.train(0).tiles == (  # type: ignore[union-attr]
        (9, 1), (1, 2), (2, 3), (3, 4))
    assert reading.assignment[4] == 0
    assert "reread-tile" in kinds(reading) and "loose-tile" not in kinds(reading)


def half_sure(values: tuple[int, int], certainty: tuple[float, float]) -> TileReading:
    """A reading again, with how surely each half was read (doubted when either is
    under 0.5)."""
    return TileReading(values, np.zeros((4, 2)), min(certainty), min(certainty) < 0.5,
                       half_certainty=certainty,
                       ranges=((values[0], values[0]), (values[1], values[1])))


def across_looker(across: TileReading, along: TileReading | None = None) -> Look:
    """A ``look`` reading ``across`` in an outline lying across x, and ``along`` (by
    default a doubted 5-1) in one lying along it."""
    along = along or half_sure((5, 1), (0.2, 0.2))

    @one_by_one
    def look(corners: np.ndarray) -> TileReading:
        c = np.asarray(corners, float)
        axis = (c[2] + c[3]) / 2 - (c[0] + c[1]) / 2
        return across if abs(axis[1]) > abs(axis[0]) else along

    return look


def test_a_mismatched_box_is_read_again_across_as_the_ends_double() -> None:
    # the Mexican train ends 3-11; an 11-11 across it was found as a box lying along the
    # train, read 5-1 (the table benchmark's first trained game without the mat found
    # the double as two such boxes). Read along the train it stays doubtful; read across,
    # one half is surely 11 and the other 11 with doubt: the end's double
    split = lengthwise((168, 0), (192, 0), (5, 1))
    tiles = [*MEXICAN_TO_11, split]
    reading = reconstruct(tiles, None, 3, look=across_looker(half_sure((11, 11), (0.2, 1.0))))
    assert reading.table is not None
    assert reading.table.train(MEXICAN).tiles == (  # type: ignore[union-attr]
        (9, 3), (3, 11), (11, 11))
    assert "reread-tile" in kinds(reading)
    # with neither half sure, or read as another double, the tile stays as read
    for across in (half_sure((11, 11), (0.2, 0.6)), half_sure((12, 12), (0.2, 1.0))):
        kept = reconstruct(tiles, None, 3, look=across_looker(across))
        assert kept.table is not None
        assert kept.table.train(MEXICAN).tiles[-1] == (5, 1)  # type: ignore[union-attr]


def test_a_double_read_again_lengthwise_is_not_laid_along_the_train() -> None:
    # as above, the box lying along the train a little aside, and the 11-8 beyond the
    # double: read along the train, the outline shows 11-11 surely (the double's half and
    # the 11-8's near half). A double lies across: read so, the train goes on to the 11-8
    split = lengthwise((166, -8), (190, -8), (5, 1))
    look = across_looker(half_sure((11, 11), (0.2, 1.0)), along=half_sure((11, 11), (1.0, 1.0)))
    reading = reconstruct([*MEXICAN_TO_11, split, ELEVEN_EIGHT], None, 3, look=look)
    assert reading.table is not None
    assert reading.table.train(MEXICAN).tiles == (  # type: ignore[union-attr]
        (9, 3), (3, 11), (11, 11), (11, 8))


def test_a_settled_tile_keeps_the_pips_a_new_tile_laid_on_it_does_not_show() -> None:
    # seat 0: 9-1 1-2 2-3 3-4, the 1-2 settled (a tracker's table) read so without doubt;
    # the 2-3 laid on it is read 0-3 (a faint 2 lost) and reads so again where it lies.
    # Looked at again where the train puts it, the 1-2 would read 1-0 (a box slid
    # towards the hub cuts its far pips): it stays 1-2, and the mismatch is the new tile's
    new = TileReading((0, 3), SEAT0_DOWN[2].corners)
    tiles = [ENGINE, SEAT0_DOWN[0], SEAT0_DOWN[1], new, SEAT0_DOWN[3]]
    shifted = TileReading((1, 0), SEAT0_DOWN[1].corners)
    look = oracle_look([ENGINE, SEAT0_DOWN[0], shifted, new, SEAT0_DOWN[3]])
    free = reconstruct(tiles, None, 3, look=look)
    assert free.table is not None
    assert free.table.train(0).tiles[1] == (1, 0)  # type: ignore[union-attr]
    assert "far end" in free.uncertainties[0].message
    kept = reconstruct(tiles, None, 3, look=look, settled={2})
    assert kept.table is not None
    assert kept.table.train(0).tiles[1:3] == ((1, 2), (0, 3))  # type: ignore[union-attr]
    assert "reread-tile" not in kinds(kept)
    # a settled tile showing fewer pips than the tile laid on it may have lost them: the
    # 1-2 is a 1-5 whose 5 was read 2 when it settled, and reads 1-5 looked at again
    five = TileReading((5, 3), SEAT0_DOWN[2].corners)
    was = [ENGINE, SEAT0_DOWN[0], SEAT0_DOWN[1], five, SEAT0_DOWN[3]]
    again = oracle_look([ENGINE, SEAT0_DOWN[0], TileReading((1, 5), SEAT0_DOWN[1].corners),
                         five, SEAT0_DOWN[3]])
    lost = reconstruct(was, None, 3, look=again, settled={2})
    assert lost.table is not None
    assert lost.table.train(0).tiles[1:3] == ((1, 5), (5, 3))  # type: ignore[union-attr]
    assert kinds(lost) == ["reread-tile"]
    # nor is a settled 1-5 whose 5 the 2-3 laid on it does not show taken as the tile its
    # neighbours say because it is also read elsewhere (the Mexican train's 5-1)
    slid = TileReading((1, 5), SEAT0_DOWN[1].corners)
    mexican = [lengthwise((72, 0), (96, 0), (9, 5)), lengthwise((120, 0), (144, 0), (5, 1))]
    twin = [ENGINE, SEAT0_DOWN[0], slid, SEAT0_DOWN[2], SEAT0_DOWN[3], *mexican]
    matched = reconstruct(twin, None, 3)
    assert matched.table is not None
    assert matched.table.train(0).tiles[1] == (1, 2)  # type: ignore[union-attr]
    settled = reconstruct(twin, None, 3, settled={2})
    assert settled.table is not None
    assert settled.table.train(0).tiles[1] == (1, 5)  # type: ignore[union-attr]
    assert "matched-read" not in kinds(settled)
    # but a settled tile matching neither neighbour (a 1-2 read 0-1 between a 1 and a
    # 2: misread when it settled) is what they both say
    both = TileReading((0, 1), SEAT0_DOWN[1].corners)
    laid = [ENGINE, SEAT0_DOWN[0], both, SEAT0_DOWN[2], SEAT0_DOWN[3]]
    fixed = reconstruct(laid, None, 3, settled={2})
    assert fixed.table is not None
    assert fixed.table.train(0).tiles[1] == (1, 2)  # type: ignore[union-attr]
    assert kinds(fixed) == ["matched-read"]
