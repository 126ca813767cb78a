"""The research API: a PettingZoo AEC environment, Gymnasium environments for one side, and a
numpy batch simulator (see ``docs/env.md``).

>>> import scotlandyard.env as sye
>>> env = sye.aec_env(rules="classic")      # PettingZoo AEC, agents mr_x, detective_1..
>>> import gymnasium
>>> gym_env = gymnasium.make("scotlandyard/MrX-v0", opponent="random")
>>> sim = sye.BatchSim(1000, seed=1)          # numpy, many games at once
>>> _ = sim.run()

Importing this package registers ``scotlandyard/MrX-v0`` and ``scotlandyard/Detectives-v0``
with Gymnasium.
"""

from __future__ import annotations

try:
    import gymnasium as _gymnasium
except ModuleNotFoundError as exc:  # pragma: no cover - the env extra is missing
    raise ModuleNotFoundError(
        "scotlandyard.env needs gymnasium and pettingzoo: pip install 'scotlandyard[env]'") from exc

from ..ai.base import register_policy
from .actions import (
    DEFER,
    DOUBLE_FIRST,
    N_ACTIONS,
    PASS,
    REVEAL,
    SINGLE,
    TAKE,
    InvalidAction,
    describe_action,
    move_actions,
)
from .batch import BatchSim, MoveBatch
from .common import INFO_KEYS, agent_name, piece_of
from .encoding import OBS_VERSION, Encoder, LayoutError, ObservationLayout, encode_view
from .graph import adjacency
from .match import Match
from .pettingzoo import ScotlandYardAEC, aec_env, raw_env
from .policy import PolicyAgent, PolicyError
from .turns import decisions

GYM_IDS = ("scotlandyard/MrX-v0", "scotlandyard/Detectives-v0")


def _register() -> None:
    for env_id, cls in zip(GYM_IDS, ("MrXEnv", "DetectivesEnv"), strict=True):
        if env_id not in _gymnasium.registry:
            _gymnasium.register(id=env_id, entry_point=f"scotlandyard.env.gymnasium:{cls}")


_register()


__all__ = [
    "DEFER", "DOUBLE_FIRST", "GYM_IDS", "INFO_KEYS", "N_ACTIONS", "OBS_VERSION", "PASS", "REVEAL",
    "SINGLE", "TAKE", "BatchSim", "Encoder", "InvalidAction", "LayoutError", "Match", "MoveBatch",
    "ObservationLayout", "PolicyAgent", "PolicyError", "ScotlandYardAEC", "adjacency", "agent_name", "aec_env", "decisions",
    "describe_action", "encode_view", "move_actions", "piece_of", "raw_env", "register_policy",
]
