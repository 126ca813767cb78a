"""The fast rules kernel: Scotland Yard's rules over flat integer arrays (:mod:`._kernel`),
compiled with numba or run as plain Python (:mod:`.fast`). MCTS (:mod:`scotlandyard.ai.mcts`),
the research playouts and ``BatchSim`` run on it; ``Game`` is the readable reference, and the
perft suite keeps the two equal.

Public API (see docs/kernel.md): :class:`Position` (a position in array form: legal moves,
make/unmake, possible locations, perft), :func:`game_facts`, :func:`check_rules`, the perft
file format (:mod:`.perft`).
"""

from .perft import PerftCase, PerftFormatError, game_perft, parse_perft, read_perft
from .position import (
    SUPPORTED_SETTINGS,
    Facts,
    Position,
    UnsupportedRules,
    check_rules,
    game_facts,
    random_games,
)

__all__ = [
    "SUPPORTED_SETTINGS", "Facts", "PerftCase", "PerftFormatError", "Position",
    "UnsupportedRules", "check_rules", "game_facts", "game_perft", "parse_perft", "random_games",
    "read_perft",
]
