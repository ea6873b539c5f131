"""Self-play that records what a camera would see: the public table after every turn."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine.moves import DRAW, PASS, Move
from engine.round import Round
from engine.table import TableState

Observation = tuple[TableState, "str | None"]


def record_round(
    rnd: Round, bots: Sequence[Any], limit: int = 10_000, per_move: bool = False
) -> list[Observation]:
    """Play ``rnd`` to the end with ``bots`` through :meth:`Round.push`.

    Returns the observations: the table at the start, then the table after
    each turn with ``"pass"`` when the turn ended in a pass and ``"out"`` on
    the last one when a player went out. With ``per_move`` the table is also
    observed after every tile laid within a turn (a double and its follow-up
    seen apart). Every move is checked legal by push.
    """
    log: list[Observation] = [(rnd.table(), None)]
    for _ in range(limit):
        if rnd.over:
            break
        seat = rnd.turn
        turns = rnd.turns
        move: Move = bots[seat].choose(rnd)
        rnd.push(move)
        if rnd.turns != turns or rnd.over or (per_move and move.kind != DRAW):
            event = None
            if rnd.over and rnd.winner is not None:
                event = "out"
            elif move.kind == PASS:
                event = "pass"
            log.append((rnd.table(), event))
    return log


def log_json(rnd: Round, first: int, log: Sequence[Observation]) -> dict[str, Any]:
    """CONTRACTS.md's LOG for ``mtrain check`` from a recorded round."""
    observations = []
    for table, event in log:
        obj: dict[str, Any] = {"trains": [t.to_json() for t in table.trains]}
        if event:
            obj["event"] = event
        observations.append(obj)
    return {
        "rules": rnd.rules.to_json(),
        "players": rnd.players,
        "engine": rnd.engine,
        "first": first,
        "observations": observations,
    }
