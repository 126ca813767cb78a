"""scotlandyard: an exact, fast rules engine for Ravensburger's Scotland Yard (both editions).

>>> from scotlandyard import Game, Rules, Move
>>> game = Game.new(Rules.classic(detectives=5), seed=7)
>>> game.to_move
'X'
"""

from .belief import possible_locations, probability_map
from .board import Board, Transport, london
from .game import Game, GameError, IllegalMove, LogEntry, Outcome
from .move import Move, NotationError, Ticket
from .record import Record, RecordError
from .rules import Rules, RulesError
from .view import LogSlot, PlayerView, PublicMove

__all__ = [
    "Board", "Game", "GameError", "IllegalMove", "LogEntry", "LogSlot", "Move", "NotationError",
    "Outcome", "PlayerView", "PublicMove", "Record", "RecordError", "Rules", "RulesError", "Ticket", "Transport", "london",
    "possible_locations", "probability_map",
]
__version__ = "0.1.0"
