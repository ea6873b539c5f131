"""vision.tracking.alert_doubts: an alert resting on a reading in doubt (or on whose turn a
change was, once a move may have been missed) is marked, never given as sure;
AlertDetails carries the mark through JSON."""

from __future__ import annotations

import pytest

from engine import AlertCode, RuleSet, TableState
from engine.referee import AlertDetails, Referee
from vision.table import TableReading, Uncertainty
from vision.tracking.alert_doubts import AlertDoubts, rests_on_doubt

RULES = RuleSet.preset("standard")


def reading(text: str, doubts: tuple[str, ...] = (), markers: tuple[Uncertainty, ...] = ()
            ) -> TableReading:
    """``text`` read, its tiles numbered train by train; ``doubts`` names tiles (as
    ``"owner:k"``) read unsure."""
    table = TableState.parse(text)
    positions: dict[object, list[int]] = {}
    index = 0
    named: dict[str, int] = {}
    for train in table.trains:
        positions[train.owner] = list(range(index, index + len(train.tiles)))
        for k in range(len(train.tiles)):
            named[f"{train.owner}:{k}"] = index + k
        index += len(train.tiles)
    unsure = [Uncertainty("unsure-tile", f"tile {d} unsure", tiles=(named[d],)) for d in doubts]
    return TableReading(table, {}, unsure + list(markers), [None] * index,
                        positions=positions)  # type: ignore[arg-type]


def alerts_of(before: TableReading, after: TableReading) -> list[tuple[object, bool]]:
    referee = Referee(RULES, players=2, engine=12)
    assert before.table is not None and after.table is not None
    referee.settle(before.table)
    ruling = referee.settle(after.table)
    return [(a.code, rests_on_doubt(a, after, before)) for a, _ in ruling if a.is_error]


BEFORE = "12 | 0: 12-5 | 1: 12-3 | mexican:"
MISFIT = "12 | 0: 12-5 7-2 | 1: 12-3 | mexican:"


def test_a_breach_read_surely_is_not_doubtful() -> None:
    got = alerts_of(reading(BEFORE), reading(MISFIT))
    assert ("mismatch", False) in got


def test_a_breach_on_a_tile_read_unsure_is_doubtful() -> None:
    got = alerts_of(reading(BEFORE), reading(MISFIT, doubts=("0:1",)))
    assert ("mismatch", True) in got


def test_a_mismatch_against_an_end_read_unsure_is_doubtful() -> None:
    # the new tile is read surely; the end it was laid on (5) is the doubtful reading
    got = alerts_of(reading(BEFORE), reading(MISFIT, doubts=("0:0",)))
    assert ("mismatch", True) in got


def test_a_doubt_on_another_train_does_not_mark_the_alert() -> None:
    got = alerts_of(reading(BEFORE), reading(MISFIT, doubts=("1:0",)))
    assert ("mismatch", False) in got


def test_a_tile_gone_that_was_read_unsure_is_doubtful() -> None:
    before = reading("12 | 0: 12-5 5-6 | 1: 12-3 | mexican:", doubts=("0:1",))
    after = reading("12 | 0: 12-5 | 1: 12-3 | mexican:")
    assert ("tile-removed", True) in alerts_of(before, after)
    assert ("tile-removed", False) in alerts_of(
        reading("12 | 0: 12-5 5-6 | 1: 12-3 | mexican:"), after)


def test_a_marker_alert_with_a_doubtful_marker_is_doubtful() -> None:
    before = reading("12 | 0: 12-5 * | 1: 12-3 | mexican:")
    after_text = "12 | 0: 12-5 | 1: 12-3 | mexican:"  # the marker came off, no tile laid
    assert ("marker-stale", False) in alerts_of(before, reading(after_text))
    loose = Uncertainty("loose-marker", "marker 0 lies by no train", markers=(0,))
    assert ("marker-stale", True) in alerts_of(before, reading(after_text, markers=(loose,)))
    between = Uncertainty("marker-between", "marker 0 lies between trains 0 and 1",
                          owners=(0, 1), markers=(0,))
    assert ("marker-stale", True) in alerts_of(before, reading(after_text, markers=(between,)))
    elsewhere = Uncertainty("marker-between", "marker 0 lies between trains 1 and mexican",
                            owners=(1, "mexican"), markers=(0,))
    assert ("marker-stale", False) in alerts_of(before, reading(after_text, markers=(elsewhere,)))


@pytest.mark.parametrize(("code", "before", "after", "under", "other"), [
    # a tile elsewhere while a double waits: the double read unsure, or another tile
    ("unsatisfied-double", "12 | 0: 12-5 | 1: 12-3 3-3 | mexican:",
     "12 | 0: 12-5 5-6 | 1: 12-3 3-3 | mexican:", "1:1", "1:0"),
    # a tile shown twice: its other place read unsure, or another tile
    ("duplicate-tile", "12 | 0: 12-5 | 1: 12-3 | mexican:",
     "12 | 0: 12-5 | 1: 12-3 | mexican: 12-5", "0:0", "1:0"),
], ids=["waiting-double", "other-copy"])
def test_an_alert_on_a_tile_read_unsure_besides_the_one_laid_is_doubtful(
        code: str, before: str, after: str, under: str, other: str) -> None:
    assert (code, False) in alerts_of(reading(before), reading(after))
    got = alerts_of(reading(before, doubts=(under,)), reading(after, doubts=(under,)))
    assert (code, True) in got
    got = alerts_of(reading(before, doubts=(other,)), reading(after, doubts=(other,)))
    assert (code, False) in got


def test_the_mark_survives_json() -> None:
    details = AlertDetails((5, 6), 5, None, doubtful=True)
    assert details.to_json()["doubtful"] is True
    assert AlertDetails.from_json(details.to_json()) == details
    plain = AlertDetails((5, 6), 5)
    assert "doubtful" not in plain.to_json()
    assert AlertDetails.from_json(plain.to_json()) == plain


def test_a_tile_read_two_ways_in_its_place_makes_its_alerts_doubtful() -> None:
    # 12-11 read surely as 12-0, then surely as 12-11 with 11-6 laid on it: tile-removed
    # and extra-tile, both resting on a tile read two ways
    got = alerts_of(reading("12 | 0: 12-0 | 1: 12-3 | mexican:"),
                    reading("12 | 0: 12-11 11-6 | 1: 12-3 | mexican:"))
    assert got and all(doubtful for _, doubtful in got)
    # taken back (the train shorter) is no tile read two ways
    taken = alerts_of(reading("12 | 0: 12-5 5-6 | 1: 12-3 | mexican:"),
                      reading("12 | 0: 12-5 | 1: 12-3 | mexican:"))
    assert ("tile-removed", False) in taken



def test_a_marker_found_where_the_table_changed_is_doubtful_on_its_train_only() -> None:
    import numpy as np

    from vision.table import with_unsure_markers
    from vision.tracking.alert_doubts import doubted_markers

    before = reading("12 | 0: 12-5 * | 1: 12-3 | mexican:")
    after = reading("12 | 0: 12-5 | 1: 12-3 | mexican:")
    assert ("marker-stale", False) in alerts_of(before, after)
    # marker 0 given train 0, marker 1 train 1; only marker 0 came from the known table
    owned = TableReading(after.table, {}, list(after.uncertainties), after.assignment,
                         [0, 1], positions=after.positions)
    unsure = with_unsure_markers(owned, np.array([True, False]))
    assert doubted_markers(unsure) == {0}
    assert [u.owners for u in unsure.uncertainties if u.kind == "unsure-marker"] == [(0,)]
    assert ("marker-stale", True) in alerts_of(before, unsure)
    # the other train's marker unsure: the alert on train 0 stays sure
    other = with_unsure_markers(owned, np.array([False, True]))
    assert doubted_markers(other) == {1} and ("marker-stale", False) in alerts_of(before, other)
    # found by the detector: nothing added, unless it scored the marker low
    assert with_unsure_markers(owned, np.array([False, False])) is owned
    faint = with_unsure_markers(owned, np.array([False, False]), np.array([True, False]))
    assert doubted_markers(faint) == {0} and ("marker-stale", True) in alerts_of(before, faint)
    assert [u.message for u in faint.uncertainties if u.kind == "unsure-marker"] == [
        "marker 0 of train 0 was found faintly by the detector: check it"]
    # a marker that marks no train adds no doubt of its own
    assert not doubted_markers(with_unsure_markers(
        TableReading(after.table, {}, [], after.assignment, [None],
                     positions=after.positions), np.array([True])))


def test_a_marker_gone_that_was_found_only_where_the_table_changed_is_doubtful() -> None:
    import numpy as np

    from vision.table import with_unsure_markers

    shown = reading("12 | 0: 12-5 * | 1: 12-3 | mexican:")
    after = reading("12 | 0: 12-5 | 1: 12-3 | mexican:")  # the marker is gone
    assert ("marker-stale", False) in alerts_of(shown, after)
    found_so = with_unsure_markers(TableReading(shown.table, {}, [], shown.assignment, [0],
                                                positions=shown.positions), np.array([True]))
    assert ("marker-stale", True) in alerts_of(found_so, after)
    # another train's marker in doubt before says nothing of train 0's
    other = with_unsure_markers(TableReading(shown.table, {}, [], shown.assignment, [1],
                                             positions=shown.positions), np.array([True]))
    assert ("marker-stale", False) in alerts_of(other, after)


def rulings(*tables: TableReading) -> list[list[tuple[AlertCode, bool]]]:
    """Each table settled in turn (3 players): its error alerts, each with its mark."""
    referee, doubts = Referee(RULES, players=3, engine=12), AlertDoubts()
    out: list[list[tuple[AlertCode, bool]]] = []
    before: TableReading | None = None
    for after in tables:
        assert after.table is not None
        ruling = referee.settle(after.table)
        marks = doubts.marks(ruling.alerts, after, before)
        out.append([(a.code, m) for a, m in zip(ruling.alerts, marks, strict=True)
                    if a.is_error])
        before = after
    return out


def loose(text: str) -> TableReading:
    """``text`` read with one more tile that lies on no train."""
    base = reading(text)
    unplaced = Uncertainty("loose-tile", "tile 9 [2, 1] touches no train", tiles=(9,))
    return TableReading(base.table, {}, [*base.uncertainties, unplaced], base.assignment,
                        positions=base.positions)


# seat 0 on its train, seat 1's move not seen, seat 2 on its own train: the referee
# takes the last for seat 1's, on train 2, which is not open
SEEN = ["12 | 0: | 1: | 2: | mexican:", "12 | 0: 12-5 | 1: | 2: | mexican:"]
SEAT_2 = "12 | 0: 12-5 | 1: | 2: 12-4 | mexican:"


def test_a_turn_alert_is_sure_when_every_move_was_seen() -> None:
    got = rulings(*map(reading, SEEN), reading(SEAT_2))
    assert got[-1] == [("closed-train", False)]


def test_a_tile_on_no_train_makes_later_turn_alerts_doubtful() -> None:
    # seat 1's tile read, but on no train: its move is a change the referee did not see
    got = rulings(*map(reading, SEEN), loose(SEAT_2))
    assert got[-1] == [("closed-train", True)]
    # and it is remembered: the next turn alert, its table read clean, is doubtful too
    got = rulings(reading(SEEN[0]), loose(SEEN[1]), reading(SEAT_2))
    assert got[-1] == [("closed-train", True)]


def test_an_alert_resting_on_doubt_makes_later_turn_alerts_doubtful_only() -> None:
    misfit = reading("12 | 0: 7-2 | 1: | 2: | mexican:", doubts=("0:0",))
    got = rulings(reading(SEEN[0]), misfit, reading("12 | 0: 7-2 | 1: | 2: 12-4 | mexican:"))
    assert got[1] == [("mismatch", True)] and got[2] == [("closed-train", True)]
    # an alert that rests on no turn stays sure: seat 2 lays 11-4 on its own train's 12
    got = rulings(reading(SEEN[0]), misfit, reading("12 | 0: 7-2 | 1: 12-3 | 2: | mexican:"),
                  reading("12 | 0: 7-2 | 1: 12-3 | 2: 11-4 | mexican:"))
    assert got[2] == [] and got[3] == [("mismatch", False)]


def test_a_double_laid_in_doubt_makes_later_turn_alerts_doubtful() -> None:
    # a turn each, then seat 0 lays 5-5 and 5-1 on it (a double does not end a turn),
    # then seat 1 plays on train 2, which is not open
    turns = ["12 | 0: | 1: | 2: | mexican:", "12 | 0: 12-5 | 1: | 2: | mexican:",
             "12 | 0: 12-5 | 1: 12-3 | 2: | mexican:",
             "12 | 0: 12-5 | 1: 12-3 | 2: 12-4 | mexican:"]
    double = "12 | 0: 12-5 5-5 5-1 | 1: 12-3 | 2: 12-4 | mexican:"
    closed = "12 | 0: 12-5 5-5 5-1 | 1: 12-3 | 2: 12-4 4-6 | mexican:"

    def last(doubts_then: tuple[str, ...], doubts_after: tuple[str, ...] = ()
             ) -> list[tuple[AlertCode, bool]]:
        return rulings(*map(reading, turns), reading(double, doubts=doubts_then),
                       reading(closed, doubts=doubts_after))[-1]

    assert last(()) == [("closed-train", False)]
    # the 5-5 read with doubt when laid: it may be a 5-6 that ended seat 0's turn
    assert last(("0:1",)) == [("closed-train", True)]
    # a tile laid in doubt that is no double, or a double doubted only once laid surely,
    # moves no turn's end
    assert last(("0:2",)) == [("closed-train", False)]
    assert last((), ("0:1",)) == [("closed-train", False)]
