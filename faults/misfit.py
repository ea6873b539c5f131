"""A tile that does not fit: one to lay on purpose, and finding it again in a table
(the app's simulated game)."""

from __future__ import annotations

import random

from engine.table import Owner, Pair, TableState


def mismatched_tile(table: TableState, owner: Owner, top: int,
                    rng: random.Random) -> Pair | None:
    """A tile of the double-``top`` set, not on the table, that does not fit ``owner``'s train."""
    train = table.train(owner)
    end = table.engine if train is None else train.end(table.engine)
    laid = {t.pair for t in table.tiles()}
    candidates = [
        (a, b) for a in range(top + 1) for b in range(a, top + 1)
        if end not in (a, b) and (a, b) not in laid
    ]
    return rng.choice(candidates) if candidates else None


def first_mismatch(table: TableState) -> tuple[Owner, Pair, int] | None:
    """The first tile whose near end does not match the end it was laid on:
    ``(owner, tile, end)``."""
    for train in table.trains:
        end = table.engine
        for near, far in train.tiles:
            if near != end:
                return train.owner, (near, far), end
            end = far
    return None
