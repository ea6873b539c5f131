"""Which alerts rest on something read with doubt: they are marked, never given as sure.

An alert the referee raises on a settled table is only as good as the reading
under it. A tile read with doubt (``TableReading.doubted``: an unsure count, one
taken otherwise than read, one inferred in a gap or read again where a train
goes on) or a marker that could be another train's may be what makes the
table break a rule. Such an alert is still raised (a real breach is never
hidden) but marked doubtful (``AlertDetails.doubtful``): the page asks for a
look instead of calling a breach.

An alert rests on:

- the tiles its train gained or lost between the table settled before and this
  one, and the tile they were laid against (a mismatch is as much the old end's
  reading as the new tile's); with no train named, those of every train;
- a tile read with other values where the table settled before showed one (a
  tile read two ways: misread once, or swapped for another in its place; the
  reading cannot tell which);
- for an alert about a double left waiting (``About.WAITING_DOUBLE``), a double that
  ends a train read with doubt as well (a tile misread as a double, or a marker taken
  for one, leaves every later move on another train a breach); for a tile shown twice
  (``duplicate-tile``), its other place read with doubt as well;
- for an alert about a train's marker (``About.TRAIN``), the markers read with
  doubt: one between two trains that names this one, one the detector did not find
  (found where the table changed) or scored low (``unsure-marker``) that names this one,
  or one that lies by no train; and the table settled before showing this train's
  marker in doubt (a marker gone that may never have been there);
- for an alert that rests on whose turn a change is (``AlertCode.by_turn``: a tile on a
  closed train, one tile too many in a turn, a marker left or missing), the turns seen
  so far: the referee gives each change to the seat after the last one's, so a move it
  never saw (a tile read on no train, or not read at all) or took wrongly puts every
  later change on the wrong seat, and a tile misread as a double moves where a turn
  ends. Such an alert is doubtful once the round has shown a tile that lies on no train
  (``loose-tile``, ``gap``), a double laid that was read with doubt, or an alert that
  rested on doubt (:class:`AlertDoubts` keeps that for the round).
"""

from __future__ import annotations

from collections.abc import Sequence

from engine import Owner, Tile
from engine.alerts import About, Alert, AlertCode
from vision.table import TableReading
from vision.tracking.table_vote import tiles_in_common

#: A marker the detector scores below this is in doubt, as a tile read from a box scored
#: so low is (``vision.reading.reader.UNCERTAIN_BELOW``): a faint box on a busy cloth's
#: square comes and goes, and a marker gone raises an alert.
SURE_MARKER = 0.5
#: Uncertainties that make a marker's train doubtful.
MARKER_DOUBTS = ("marker-between", "loose-marker", "unsure-marker")


class AlertDoubts:
    """Which alerts of one round rest on doubt: :func:`rests_on_doubt`, and for an alert
    that rests on whose turn a change is, whether the turns seen may have slipped."""

    def __init__(self) -> None:
        #: Whether a table settled in the round showed a tile on no train or a double laid
        #: read with doubt, or raised an alert that rested on doubt: the seat the referee
        #: gives a change (and where it ends a turn) may be off since.
        self.turns_slipped = False

    def marks(self, alerts: Sequence[Alert], after: TableReading,
              before: TableReading | None) -> list[bool]:
        """Whether each of ``alerts``, raised when ``after`` settled (``before``: the table
        settled before it), is doubtful; remembers what makes later turns doubtful."""
        slipped = (self.turns_slipped or bool(after.unplaced)
                   or _double_laid_in_doubt(after, before))
        doubtful = [rests_on_doubt(a, after, before) or (a.code.by_turn and slipped)
                    for a in alerts]
        self.turns_slipped = slipped or any(a.is_error and d
                                            for a, d in zip(alerts, doubtful, strict=True))
        return doubtful


def _double_laid_in_doubt(after: TableReading, before: TableReading | None) -> bool:
    """Whether a double laid between ``before`` and ``after`` was read with doubt (a tile
    misread as a double moves where the referee ends a turn: a double does not)."""
    if after.table is None:
        return False
    for train in after.table.trains:
        first_new = _changed(before, after, train.owner)[2].start  # the first tile laid
        if any(after.doubted(train.owner, k) and Tile(*train.tiles[k]).is_double
               for k in range(first_new, len(train.tiles))):
            return True
    return False


def doubted_markers(reading: TableReading) -> set[Owner]:
    """The trains whose marker ``reading`` shows with doubt: a marker between two trains
    names both, a marker found where the table changed (``unsure-marker``) its train."""
    return {owner for u in reading.uncertainties if u.kind in MARKER_DOUBTS
            for owner in u.owners}


def _changed(before: TableReading | None, after: TableReading, owner: Owner
             ) -> tuple[range, range, range]:
    """Places along ``owner``'s train that the move changed: those of ``after`` (tiles
    laid, and the one they were laid against), those of ``before`` (tiles gone), and
    those both show, with other values."""
    now_train = None if after.table is None else after.table.train(owner)
    was_train = None if before is None or before.table is None else before.table.train(owner)
    now = () if now_train is None else now_train.tiles
    was = () if was_train is None else was_train.tiles
    common = tiles_in_common(was, now)
    start = max(common - 1, 0)
    return (range(start, len(now)), range(start, len(was)),
            range(common, min(len(was), len(now))))


def rests_on_doubt(alert: Alert, after: TableReading, before: TableReading | None) -> bool:
    """Whether ``alert``, raised when ``after`` settled (``before``: the table settled
    before it), rests on a tile or marker read with doubt (see the module's notes)."""
    if after.table is None:
        return False
    if alert.code.about is About.TRAIN:
        owner = alert.train if alert.train is not None else alert.seat
        return (any(u.kind == "loose-marker" for u in after.uncertainties)
                or owner in doubted_markers(after)
                or (before is not None and owner in doubted_markers(before)))
    if alert.code.about is About.WAITING_DOUBLE and _waiting_double_doubted(after):
        return True
    if alert.code is AlertCode.DUPLICATE_TILE and _copy_doubted(after):
        return True
    owners = [alert.train] if alert.train is not None else [t.owner for t in after.table.trains]
    for owner in owners:
        laid, gone, read_two_ways = _changed(before, after, owner)
        if read_two_ways or any(after.doubted(owner, k) for k in laid):
            return True
        if before is not None and any(before.doubted(owner, k) for k in gone):
            return True
    return False


def _waiting_double_doubted(reading: TableReading) -> bool:
    """Whether a double that ends a train in ``reading`` (one that waits) was read with
    doubt."""
    assert reading.table is not None
    return any(train.tiles and Tile(*train.tiles[-1]).is_double
               and reading.doubted(train.owner, len(train.tiles) - 1)
               for train in reading.table.trains)


def _copy_doubted(reading: TableReading) -> bool:
    """Whether a tile ``reading`` shows in two places was read with doubt in one."""
    assert reading.table is not None
    places: dict[Tile, list[tuple[Owner, int]]] = {}
    for train in reading.table.trains:
        for k, pair in enumerate(train.tiles):
            places.setdefault(Tile(*pair), []).append((train.owner, k))
    return any(len(p) > 1 and any(reading.doubted(owner, k) for owner, k in p)
               for p in places.values())
