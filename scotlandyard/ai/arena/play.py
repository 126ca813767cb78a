"""One arena game: a pure function of the configuration and the game index."""

from __future__ import annotations

import random
import time
import traceback
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ...game import Game
from ...move import Move
from ...record import Record
from .config import (
    SIDES,
    ArenaConfig,
    game_seed,
)


# ---- one game ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class GameResult:
    """What the arena keeps of one game (a manifest line): outcome, length and timings.

    ``error`` is set when an agent failed (raised, or returned a move that is not legal):
    the game is then unfinished and counts for no side.
    """

    index: int
    seed: int
    winner: str | None
    reason: str | None
    round: int
    plies: int
    moves: Mapping[str, int]
    think: Mapping[str, float]
    think_max: Mapping[str, float]
    error: str | None = None
    error_detail: str | None = None
    record: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON values."""
        return {
            "index": self.index, "seed": self.seed, "winner": self.winner, "reason": self.reason,
            "round": self.round, "plies": self.plies, "moves": dict(self.moves),
            "think": dict(self.think), "think_max": dict(self.think_max), "error": self.error,
            "error_detail": self.error_detail, "record": self.record,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> GameResult:
        """Rebuild from :meth:`to_dict` output."""
        return cls(
            index=int(data["index"]), seed=int(data["seed"]), winner=data["winner"],
            reason=data["reason"], round=int(data["round"]), plies=int(data["plies"]),
            moves=dict(data["moves"]), think=dict(data["think"]),
            think_max=dict(data["think_max"]), error=data.get("error"),
            error_detail=data.get("error_detail"), record=data.get("record"),
        )

    def with_record(self, record: str) -> GameResult:
        """The same result pointing at its record file."""
        return GameResult(**{**self.__dict__, "record": record})


def play_game(config: ArenaConfig, index: int) -> tuple[GameResult, str, str]:
    """Play game ``index`` of ``config``; returns the result, the record's text and the record
    file's suffix. Agents see only ``game.view(piece)`` and the legal moves."""
    start_seed = game_seed(config.seed, index, "start")
    game = Game.new(config.rules, seed=start_seed)
    agents = config.make_agents()
    rngs = {side: random.Random(game_seed(config.seed, index, side)) for side in SIDES}
    budget = config.budget_value
    moves = dict.fromkeys(SIDES, 0)
    think = dict.fromkeys(SIDES, 0.0)
    think_max = dict.fromkeys(SIDES, 0.0)
    error = detail = None
    while not game.is_over():
        piece = game.to_move
        side = game.side_to_move
        assert piece is not None and side is not None
        legal = game.legal_moves()
        view = game.view(piece)
        t0 = time.perf_counter()
        try:
            move = agents[side].choose(view, legal, rngs[side], budget)
        except Exception as exc:
            error = (f"{piece}'s agent {config.agent_label(side)} raised {type(exc).__name__} at ply {game.ply + 1} "
                     f"(round {game.round}): {exc}")
            detail = traceback.format_exc(limit=20)
            break
        dt = time.perf_counter() - t0
        moves[side] += 1
        think[side] += dt
        think_max[side] = max(think_max[side], dt)
        if not isinstance(move, Move) or move not in legal:
            why = game.why_illegal(move) if isinstance(move, Move) else None
            shown = move.notation() if isinstance(move, Move) else repr(move)
            error = (f"{piece}'s agent {config.agent_label(side)} returned an illegal move {shown} at ply "
                     f"{game.ply + 1} (round {game.round}): "
                     f"{why or 'not among the legal moves it was given'}")
            break
        game.push(move)
    outcome = game.outcome()
    event = f"arena {config.config_hash} game {index}"
    suffix, text = _record_of(game, config.players(), event)
    result = GameResult(
        index=index, seed=start_seed,
        winner=outcome.winner if outcome else None, reason=outcome.reason if outcome else None,
        round=outcome.round if outcome else game.round, plies=game.ply, moves=moves,
        think={k: round(v, 6) for k, v in think.items()},
        think_max={k: round(v, 6) for k, v in think_max.items()},
        error=error, error_detail=detail,
    )
    return result, text, suffix


def _record_of(game: Game, players: dict[str, str], event: str) -> tuple[str, str]:
    """The game's full record (JSON) as (file suffix, text)."""
    return ".json", Record.from_game(game, players=players, event=event).to_json()
