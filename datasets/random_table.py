"""A table as it could look mid-round: a legal-looking :class:`engine.TableState` to lay
out (:mod:`datasets.table_layout`), for tests, benchmarks and the generator."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from engine import TableState


def random_table(rng: np.random.Generator, players: int, set_max: int = 12, n_tiles: int = 20,
                 *, marker_rate: float = 0.3, engine: int | None = None) -> TableState:
    """A table as it could look mid-round: ``n_tiles`` tiles besides the engine (fewer if stuck).

    Every tile matches the one before it; a double is followed on its own
    train, except that the last tile laid may be a double still waiting to
    be satisfied. Each train carries its marker with ``marker_rate``; every
    seat's train and the Mexican train are listed, empty or not.
    """
    from engine import TableState, Train

    e = int(rng.integers(0, set_max + 1)) if engine is None else engine
    pool = {(a, b) for a in range(set_max + 1) for b in range(a, set_max + 1)} - {(e, e)}
    owners: list[Any] = [*range(players), "mexican"]
    trains: dict[Any, list[tuple[int, int]]] = {o: [] for o in owners}

    def end(owner: Any) -> int:
        tiles = trains[owner]
        return tiles[-1][1] if tiles else e

    def playable(owner: Any) -> list[tuple[int, int]]:
        v = end(owner)
        return sorted(t for t in pool if v in t)

    for _ in range(n_tiles):
        open_double = [o for o in owners if trains[o] and trains[o][-1][0] == trains[o][-1][1]
                       and playable(o)]
        candidates = open_double[:1] or [o for o in owners if playable(o)]
        if not candidates:
            break
        owner = candidates[int(rng.integers(len(candidates)))]
        options = playable(owner)
        tile = options[int(rng.integers(len(options)))]
        pool.discard(tile)
        v = end(owner)
        trains[owner].append((v, tile[1] if tile[0] == v else tile[0]))
    built = tuple(Train(owner=o, tiles=tuple(trains[o]), marker=bool(rng.random() < marker_rate))
                  for o in owners)
    return TableState(engine=e, trains=built)
