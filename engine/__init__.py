"""The Mexican Train rules engine: tiles, house rules, the table, rounds, the observer, bots.

Standard library only. The public names below are what the other packages use
(see docs/DESIGN.md, "engine — public names"). They load on first use (PEP
562), so that a command that needs a round does not load the observer or the
bots.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

#: Public name -> module that defines it.
_EXPORTS = {
    "About": "engine.alerts",
    "Alert": "engine.alerts",
    "AlertCode": "engine.alerts",
    "BOTS": "engine.bots",
    "Bot": "engine.bots",
    "GreedyBot": "engine.bots",
    "LongestTrainBot": "engine.bots",
    "RandomBot": "engine.bots",
    "hint": "engine.bots",
    "make_bot": "engine.bots",
    "BadInputError": "engine.errors",
    "Game": "engine.game",
    "RoundResult": "engine.game",
    "LegalMoves": "engine.legal_moves",
    "DRAW": "engine.moves",
    "Move": "engine.moves",
    "PASS": "engine.moves",
    "PLAY": "engine.moves",
    "STOP": "engine.moves",
    "Observer": "engine.observer",
    "replay": "engine.observer",
    "AlertDetails": "engine.referee",
    "Referee": "engine.referee",
    "Reread": "engine.referee",
    "Ruling": "engine.referee",
    "judge": "engine.referee",
    "log_json": "engine.record",
    "record_round": "engine.record",
    "Round": "engine.round",
    "DEAL_TABLES": "engine.rules",
    "PRESETS": "engine.rules",
    "RuleSet": "engine.rules",
    "hand_points": "engine.scoring",
    "tile_points": "engine.scoring",
    "MEXICAN": "engine.table",
    "Owner": "engine.table",
    "TableState": "engine.table",
    "Train": "engine.table",
    "SET_SIZES": "engine.tiles",
    "Tile": "engine.tiles",
    "full_set": "engine.tiles",
}

__all__ = sorted(_EXPORTS)

if TYPE_CHECKING:
    from engine.alerts import About, Alert, AlertCode  # noqa: F401
    from engine.bots import BOTS, Bot, GreedyBot, LongestTrainBot, RandomBot, hint, make_bot  # noqa: F401
    from engine.errors import BadInputError  # noqa: F401
    from engine.game import Game, RoundResult  # noqa: F401
    from engine.legal_moves import LegalMoves  # noqa: F401
    from engine.moves import DRAW, PASS, PLAY, STOP, Move  # noqa: F401
    from engine.observer import Observer, replay  # noqa: F401
    from engine.record import log_json, record_round  # noqa: F401
    from engine.referee import AlertDetails, Referee, Reread, Ruling, judge  # noqa: F401
    from engine.round import Round  # noqa: F401
    from engine.rules import DEAL_TABLES, PRESETS, RuleSet  # noqa: F401
    from engine.scoring import hand_points, tile_points  # noqa: F401
    from engine.table import MEXICAN, Owner, TableState, Train  # noqa: F401
    from engine.tiles import SET_SIZES, Tile, full_set  # noqa: F401


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'engine' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))
