"""Which reading of a table settles: still readings vote, a settled table read
again differently in a doubtful tile is the same table, or a tile read again, and a
train read shorter while its tiles lie on no train is a train read broken; and which
tiles a settled table showed without doubt, by track."""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Sequence
from typing import Any

import numpy as np

from engine import TableState, Tile
from engine.referee import Reread
from vision.readings import TileReadings
from vision.table import TableReading


def takes_away(old: TableState, new: TableState) -> bool:
    """True when ``new`` lacks a tile or a marker that ``old`` shows."""
    if new.engine != old.engine:
        return True
    for train in old.trains:
        now = new.train(train.owner)
        if now is None:
            if train.tiles or train.marker:
                return True
            continue
        if now.tiles[:len(train.tiles)] != train.tiles or (train.marker and not now.marker):
            return True
    return False


def tiles_in_common(was: Sequence[tuple[int, int]], now: Sequence[tuple[int, int]]) -> int:
    """How many tiles two readings of one train share from its start (either way round)."""
    common = 0
    while common < min(len(was), len(now)) and sorted(was[common]) == sorted(now[common]):
        common += 1
    return common


def breaks_a_train(old: TableState, new: TableReading, values: np.ndarray) -> bool:
    """Whether ``new`` shows a tile gone from a train of the settled table ``old`` lying
    on no train (``TableReading.unplaced``; ``values``: the input tiles' counts).

    Such a train is read broken (a box missed or slipped where it goes on), not
    shortened: its tiles are still on the table. A tile taken back leaves the table.
    """
    if new.table is None or not new.unplaced:
        return False
    loose = {Tile(*(int(v) for v in values[i])) for i in new.unplaced if i < len(values)}
    for train in old.trains:
        now = new.table.train(train.owner)
        common = tiles_in_common(train.tiles, () if now is None else now.tiles)
        if any(Tile(*pair) in loose for pair in train.tiles[common:]):
            return True
    return False


#: Track id -> the counts a settled table gave that tracked tile without doubt.
SureTracks = dict[int, tuple[int, int]]


def sure_tracks(reading: TableReading, tiles: TileReadings) -> SureTracks:
    """The tracked tiles of ``tiles`` that ``reading`` (of them) lays on its trains
    without doubt, by track id, with their counts."""
    if reading.table is None:
        return {}
    ids = tiles.track_id
    out: SureTracks = {}
    for train in reading.table.trains:
        for k, (idx, pair) in enumerate(zip(reading.positions.get(train.owner, []),
                                            train.tiles, strict=False)):
            if idx < len(ids) and ids[idx] >= 0 and not reading.doubted(train.owner, k):
                out[int(ids[idx])] = (min(pair), max(pair))
    return out


def settled_inputs(tiles: TileReadings, sure: SureTracks) -> frozenset[int]:
    """The indices of ``tiles`` that are tracked tiles a settled table gave without doubt
    (``sure``) and still read so: the reconstruction's ``settled``."""
    return frozenset(i for i, (t, v) in enumerate(zip(tiles.track_id.tolist(),
                                                       tiles.values.tolist(), strict=True))
                     if sure.get(int(t)) == (min(v), max(v)))


#: At most this many tiles of the settled table may be taken for other values by a
#: later reading and still count as re-readings (more is another reading of the table).
MAX_REREADS = 2

def rereadings(old: TableReading, new: TableReading) -> Reread:
    """Tiles of the settled table ``old`` that ``new`` takes for other values where they lie.

    ``(owner, k) -> (old pair, new pair)``. A tile read with doubt may be read
    otherwise once the table around it grows (a blurred open end read 3-12 is
    3-11 once a 11-11 lies against it): that is a re-reading, not a tile taken
    away and another laid. A train ``new`` shows shorter is left out (its tiles are
    taken away, or the train read broken: the referee tells). Empty when a changed
    tile was read without doubt both times (a tile swapped for another), or
    when more than ``MAX_REREADS`` tiles changed.
    """
    if old.table is None or new.table is None:
        return {}
    out: dict[tuple[Any, int], tuple[tuple[int, int], tuple[int, int]]] = {}
    for train in old.table.trains:
        now = new.table.train(train.owner)
        if now is None or len(now.tiles) < len(train.tiles):
            continue
        for k, (was, got) in enumerate(zip(train.tiles, now.tiles, strict=False)):
            if sorted(was) == sorted(got):
                continue
            if not (old.doubted(train.owner, k) or new.doubted(train.owner, k)):
                return {}
            out[(train.owner, k)] = (was, got)
    return out if len(out) <= MAX_REREADS else {}


def fills_a_known_place(old: TableReading, new: TableReading) -> bool:
    """Whether ``new`` infers a tile (``inferred-tile``) where ``old`` showed one read."""
    if old.table is None or new.table is None:
        return False
    return any(new.inferred(train.owner, k) and not old.inferred(train.owner, k)
               for train in old.table.trains for k in range(len(train.tiles)))


def vote_key(reading: TableReading) -> str:
    """What a still reading votes for: the table's text, with the values of the tiles
    read with doubt left out, so that readings of a table that differ only in a
    blurred tile's count vote together (the count most read wins)."""
    table = reading.table
    if table is None:
        return ""
    parts = [str(table.engine)]
    for train in table.trains:
        tokens = [f"{train.owner}:"]
        tokens += ["?" if reading.doubted(train.owner, k) else f"{min(a, b)}-{max(a, b)}"
                   for k, (a, b) in enumerate(train.tiles)]
        tokens += [f"^{a}-{b}" for a, b in train.feet]
        if train.marker:
            tokens.append("*")
        parts.append(" ".join(tokens))
    return " | ".join(parts)


def same_but_doubted(a: TableReading, b: TableReading) -> bool:
    """Whether two readings show the same tiles and markers but for the values of tiles
    one of them doubted: the same table, read twice."""
    if a.table is None or b.table is None or a.table.engine != b.table.engine:
        return False
    for train in a.table.trains:
        other = b.table.train(train.owner)
        if other is None or len(other.tiles) != len(train.tiles) \
                or other.marker != train.marker or other.feet != train.feet:
            return False
        for k, (x, y) in enumerate(zip(train.tiles, other.tiles, strict=True)):
            if sorted(x) != sorted(y) and not (a.doubted(train.owner, k)
                                               or b.doubted(train.owner, k)):
                return False
    return len(a.table.trains) == len(b.table.trains)


class TableVote:
    """The last ``window`` still readings; a table settles when ``votes`` of them vote
    for it (:func:`vote_key`)."""

    def __init__(self, votes: int, window: int) -> None:
        self.votes = votes
        self.ballots: deque[tuple[str, str]] = deque(maxlen=window)  # (vote key, text)
        self.tables: dict[str, TableReading] = {}

    def cast(self, reading: TableReading) -> TableReading | None:
        """Add ``reading`` (a table read); the table that wins, if one does: of the
        readings that voted for it, the one read most often (the latest of equals)."""
        assert reading.table is not None
        exact = reading.table.text()
        self.ballots.append((vote_key(reading), exact))
        self.tables[exact] = reading
        winner, count = Counter(k for k, _ in self.ballots).most_common(1)[0]
        if count < self.votes:
            return None
        texts = Counter(e for k, e in self.ballots if k == winner)
        top = max(texts.values())
        pick = [e for k, e in self.ballots if k == winner and texts[e] == top][-1]
        return self.tables[pick]

    def clear(self) -> None:
        self.ballots.clear()
