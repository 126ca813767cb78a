"""Pieces, agent names, rewards and shaping shared by the PettingZoo and Gymnasium envs."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..game import Game, Outcome
from ..move import MR_X
from ..rules import Rules
from ..small_boards import preset_rules
from .actions import N_ACTIONS, PASS


def agent_name(piece: str) -> str:
    """The agent name of a piece: ``X`` -> ``mr_x``, ``D2`` -> ``detective_2``, ``P1`` -> ``police_1``."""
    if piece == MR_X:
        return "mr_x"
    kind = {"D": "detective", "P": "police"}.get(piece[:1])
    if kind is None or not piece[1:].isdigit():
        raise ValueError(f"no piece {piece!r}")
    return f"{kind}_{piece[1:]}"


def piece_of(agent: str) -> str:
    """The piece of an agent name (the inverse of :func:`agent_name`)."""
    if agent == "mr_x":
        return MR_X
    kind, _, num = agent.partition("_")
    letter = {"detective": "D", "police": "P"}.get(kind)
    if letter is None or not num.isdigit():
        raise ValueError(f"no agent {agent!r} (mr_x, detective_1.., police_1..)")
    return f"{letter}{num}"


def resolve_rules(rules: Rules | str | None) -> Rules:
    """``rules`` as a :class:`Rules` (a preset name is accepted, a book preset or a small one of
    :mod:`scotlandyard.small_boards`; ``None`` is classic, 5 detectives)."""
    if rules is None:
        return Rules.classic()
    if isinstance(rules, str):
        return preset_rules(rules)
    if not isinstance(rules, Rules):
        raise TypeError(f"rules is a Rules value or a preset name, not {type(rules).__name__}")
    return rules


def check_reward_options(shaping: float, loss_reward: float) -> tuple[float, float]:
    """Validate the reward options (finite numbers)."""
    for name, v in (("shaping", shaping), ("loss_reward", loss_reward)):
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
            raise ValueError(f"{name} is a finite number, not {v!r}")
    return float(shaping), float(loss_reward)


def mr_x_potential(game: Game) -> float:
    """Mr X's shaping potential: distance (fewest moves on land) from the nearest detective or
    police piece to his true station, capped at 5, over 5. Only Mr X is rewarded with it."""
    board = game.board
    stations = game.stations
    x = stations[MR_X]
    d = min(board.distance(s, x) for p, s in stations.items() if p != MR_X)
    return min(d, 5) / 5.0


def detectives_potential(game: Game) -> float:
    """The detectives' shaping potential, from public facts only: minus log2 of the number of
    Mr X's possible locations, over log2(199)."""
    n = max(game.possible_bits.bit_count(), 1)
    return -math.log2(n) / math.log2(199)


def terminal_rewards(outcome: Outcome, loss_reward: float) -> tuple[float, float]:
    """``(mr_x reward, detectives reward)`` at the end of a game."""
    if outcome.winner == "mr_x":
        return 1.0, loss_reward
    return loss_reward, 1.0


def outcome_info(outcome: Outcome | None) -> dict[str, Any]:
    """The outcome as plain values for ``info`` (public facts)."""
    if outcome is None:
        return {}
    return {"winner": outcome.winner, "reason": outcome.reason, "round": outcome.round,
            "piece": outcome.piece}


INFO_KEYS = ("action_mask", "round", "selected", "winner", "reason", "piece", "invalid_action")
"""The keys of every ``info`` of the AEC and Gymnasium envs, always all present (flat, so that
Gymnasium's vector envs can stack them): ``selected`` is the agent that acts (``None`` once
over); ``winner`` (``"mr_x"``/``"detectives"``), ``reason`` and ``piece`` (the catcher, or the
piece whose action was outside the mask) are ``None`` until the game ends."""

_NO_OUTCOME = {"winner": None, "reason": None, "piece": None}


def info_dict(mask: np.ndarray, round_: int, selected: str | None,
              outcome: dict[str, Any] | None, invalid: bool) -> dict[str, Any]:
    """One ``info`` with the :data:`INFO_KEYS` (``outcome``: :func:`outcome_info` or
    :func:`forfeit_info`, or ``None`` while the game runs)."""
    out = {"action_mask": mask, "round": round_, "selected": selected}
    if outcome is None:
        out.update(_NO_OUTCOME)
    else:
        out.update(winner=outcome["winner"], reason=outcome["reason"], piece=outcome["piece"])
    out["invalid_action"] = invalid
    return out

INVALID_ACTION_MODES = ("lose", "raise")


def check_invalid_mode(mode: object, allowed: tuple[str, ...] = INVALID_ACTION_MODES) -> str:
    """Validate ``invalid_action`` (``"lose"``, ``"raise"``; the Gymnasium envs add ``"penalty"``)."""
    if mode not in allowed:
        raise ValueError(f"invalid_action is one of {', '.join(map(repr, allowed))}, not {mode!r}")
    return str(mode)


def forfeit_info(side: str, piece: str, round_: int) -> dict[str, Any]:
    """The outcome entry of a game ended by an action outside the mask (``side`` loses)."""
    return {"winner": "detectives" if side == "mr_x" else "mr_x", "reason": "invalid_action",
            "round": round_, "piece": piece}


def end_mask() -> np.ndarray:
    """The mask once the game is over: ``pass`` alone (never empty, for vector autoreset)."""
    m = np.zeros(N_ACTIONS, np.int8)
    m[PASS] = 1
    return m
