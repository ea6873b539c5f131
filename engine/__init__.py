"""The Mexican Train rules engine: tiles, house rules, the table, rounds, the observer, bots.

Standard library only. The public names below are what the other packages use
(see docs/DESIGN.md, "engine — public names").
"""

from engine.alerts import ALERT_CODES, NOTICE_CODES, Alert
from engine.bots import BOTS, Bot, GreedyBot, LongestTrainBot, RandomBot, hint, make_bot
from engine.errors import BadInputError
from engine.game import Game, RoundResult
from engine.legal_moves import LegalMoves
from engine.moves import DRAW, PASS, PLAY, STOP, Move
from engine.observer import Observer, replay
from engine.record import log_json, record_round
from engine.round import Round
from engine.rules import DEAL_TABLES, PRESETS, RuleSet
from engine.scoring import hand_points, tile_points
from engine.table import MEXICAN, Owner, TableState, Train
from engine.tiles import SET_SIZES, Tile, full_set

__all__ = [
    "ALERT_CODES",
    "BOTS",
    "DEAL_TABLES",
    "DRAW",
    "MEXICAN",
    "NOTICE_CODES",
    "PASS",
    "PLAY",
    "PRESETS",
    "SET_SIZES",
    "STOP",
    "Alert",
    "BadInputError",
    "Bot",
    "Game",
    "GreedyBot",
    "LegalMoves",
    "LongestTrainBot",
    "Move",
    "Observer",
    "Owner",
    "RandomBot",
    "Round",
    "RoundResult",
    "RuleSet",
    "TableState",
    "Tile",
    "Train",
    "full_set",
    "hand_points",
    "hint",
    "log_json",
    "make_bot",
    "record_round",
    "replay",
    "tile_points",
]
