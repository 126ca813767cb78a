"""The research API: a PettingZoo AEC environment, Gymnasium environments for one side, and a
numpy batch simulator (see ``docs/env.md``).

>>> import scotlandyard.env as sye
>>> env = sye.aec_env(rules="classic")      # PettingZoo AEC, agents mr_x, detective_1..
>>> import gymnasium
>>> gym_env = gymnasium.make("scotlandyard/MrX-v0", opponent="random")
>>> sim = sye.BatchSim(1000, seed=1)          # numpy, many games at once
>>> _ = sim.run()

Importing this package registers ``scotlandyard/MrX-v0`` and ``scotlandyard/Detectives-v0``
with Gymnasium (:func:`register_envs`); ``gymnasium.make("scotlandyard.env:scotlandyard/MrX-v0")``
imports it first, in any process.
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


def register_envs() -> tuple[str, ...]:
    """Register :data:`GYM_IDS` with Gymnasium (again, if they were removed; importing this
    package calls it) and returns them. Gymnasium 1.x has no plugin entry points, so an id
    reaches a process that never imported this package only in Gymnasium's module form,
    ``gymnasium.make("scotlandyard.env:scotlandyard/MrX-v0")``, which imports it first
    (docs/env.md, "Gymnasium ids")."""
    for env_id, cls in zip(GYM_IDS, ("MrXEnv", "DetectivesEnv"), strict=True):
        if env_id not in _gymnasium.registry:
            _gymnasium.register(id=env_id, entry_point=f"scotlandyard.env.gymnasium:{cls}")
    _preload_in_forkserver()
    return GYM_IDS


def _preload_in_forkserver() -> None:
    """Have multiprocessing's forkserver import this package, so that its children (SB3's
    ``SubprocVecEnv`` starts its envs there by default) know the bare ids as this process
    does, even when it imported this package inside ``main()``, after the forkserver's
    ``__main__`` was read. Adds to the preload list (``['__main__']`` unless the program set
    one); a forkserver already running keeps its own."""
    import multiprocessing
    import multiprocessing.forkserver as forkserver

    if "forkserver" not in multiprocessing.get_all_start_methods():  # pragma: no cover
        return
    preload = list(getattr(forkserver._forkserver, "_preload_modules", ["__main__"]))
    if __name__ not in preload:
        multiprocessing.set_forkserver_preload([*preload, __name__])


register_envs()


__all__ = [
    "DEFER", "DOUBLE_FIRST", "GYM_IDS", "INFO_KEYS", "N_ACTIONS", "OBS_VERSION", "PASS", "REVEAL",
    "SINGLE", "TAKE", "BatchSim", "Encoder", "InvalidAction", "LayoutError", "Match", "MoveBatch",
    "ObservationLayout", "PolicyAgent", "PolicyError", "ScotlandYardAEC", "adjacency", "agent_name", "aec_env", "decisions",
    "describe_action", "encode_view", "register_envs", "move_actions", "piece_of", "raw_env", "register_policy",
]
