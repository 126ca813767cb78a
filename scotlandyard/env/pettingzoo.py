"""A PettingZoo AEC environment: every piece is an agent, each sees its own view only.

>>> from scotlandyard.env import aec_env
>>> env = aec_env(rules="classic")
>>> env.reset(seed=1)
>>> env.agent_selection
'mr_x'
>>> obs, reward, terminated, truncated, info = env.last()
>>> int(obs["action_mask"].sum()) > 0
True

Agents are ``mr_x``, ``detective_1``.. and, where the rules have them, ``police_1``.. . The
observation of an agent is ``{"observation": float32 vector, "action_mask": int8 vector}``;
the vector encodes that agent's view (layout ``sy-obs-1``, see ``docs/env.md``), the mask is
the legal actions of the agent selected to act (all zero for the others; ``pass`` alone for
every agent once the game is over, so that a masked sampler never sees an empty mask).

**Turns.** One AEC step is one *decision*, not one engine move: a double move is two
``mr_x`` steps in a row (first step, then second step); after a voluntary reveal Mr X makes
``take`` steps; in free order a hunter may ``defer``. Use :func:`scotlandyard.env.decisions`
to loop over ``(agent, observation, mask)``.

:func:`aec_env` wraps the env in PettingZoo's ``OrderEnforcingWrapper`` as the classic envs
are. An action outside the mask: ``invalid_action="lose"`` (the default, as PettingZoo's
classic envs do) ends the game, every agent of the acting side gets ``invalid_penalty`` (−1),
the other side 0, and ``info["invalid_action"]`` is True; ``invalid_action="raise"`` raises
:class:`~scotlandyard.env.actions.InvalidAction` and changes nothing.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import logger, spaces
from pettingzoo import AECEnv
from pettingzoo.utils.wrappers import OrderEnforcingWrapper

from ..move import MR_X, Move
from ..rules import Rules
from ..view import PlayerView
from .actions import N_ACTIONS, InvalidAction, describe_action
from .common import (
    agent_name,
    check_invalid_mode,
    check_reward_options,
    detectives_potential,
    end_mask,
    forfeit_info,
    info_dict,
    mr_x_potential,
    outcome_info,
    piece_of,
    resolve_rules,
    terminal_rewards,
)
from .encoding import Encoder, ObservationLayout
from .match import Match
from .render import RendersPosition

_ZERO_MASK = np.zeros(N_ACTIONS, np.int8)
_ZERO_MASK.flags.writeable = False
_END_MASK = end_mask()
_END_MASK.flags.writeable = False


class ScotlandYardAEC(RendersPosition, AECEnv):  # type: ignore[misc]  # pettingzoo ships no types
    """Scotland Yard as a PettingZoo AEC environment (see the module doc and ``docs/env.md``).

    Rewards: at the end, +1 to every agent of the winning side and ``loss_reward`` (default
    -1) to the others. With ``shaping=w > 0`` each engine move also pays potential-based
    shaping: Mr X gets ``w * (phi_x' - phi_x)`` (distance to the nearest hunter, his own
    truth), the hunters ``w * (phi_d' - phi_d)`` (how few possible locations remain, public);
    phi is 0 at the end of the game.
    """

    metadata: dict[str, Any] = {"render_modes": ["ansi", "human", "rgb_array"], "name": "scotlandyard_v0",
                "is_parallelizable": False, "render_fps": 1}

    def __init__(self, rules: Rules | str | None = None, *, shaping: float = 0.0,
                 loss_reward: float = -1.0, render_mode: str | None = None,
                 invalid_action: str = "lose", invalid_penalty: float = -1.0,
                 probability: bool = False, board_features: bool = False) -> None:
        """An environment for ``rules`` (a ``Rules`` value or a preset name); ``probability``
        and ``board_features`` add the optional observation segments."""
        super().__init__()
        self.rules = resolve_rules(rules)
        self.shaping, self.loss_reward = check_reward_options(shaping, loss_reward)
        self.invalid_action = check_invalid_mode(invalid_action)
        self.invalid_penalty = check_reward_options(invalid_penalty, 0.0)[0]
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise ValueError(f"render_mode is one of {self.metadata['render_modes']}, not {render_mode!r}")
        self.render_mode = render_mode
        self.match = Match(self.rules)
        self.encoder = Encoder(self.rules, probability=probability, board_features=board_features)
        self.layout: ObservationLayout = self.encoder.layout
        self.possible_agents = [agent_name(p) for p in self.rules.pieces]
        self._piece = {a: piece_of(a) for a in self.possible_agents}
        self._agent = {p: a for a, p in self._piece.items()}
        low, high = self.layout.bounds()
        self.observation_spaces = {
            a: spaces.Dict({
                "observation": spaces.Box(low, high, dtype=np.float32),
                "action_mask": spaces.Box(0, 1, (N_ACTIONS,), dtype=np.int8),
            }) for a in self.possible_agents
        }
        self.action_spaces = {a: spaces.Discrete(N_ACTIONS) for a in self.possible_agents}
        self.state_space = spaces.Box(low, high, dtype=np.float32)
        self._rng = np.random.default_rng()
        self._started = False
        self._forfeit: dict[str, Any] | None = None
        self._renderer: Any = None
        self.agents: list[str] = []

    # ---- spaces --------------------------------------------------------------------------
    def observation_space(self, agent: str) -> spaces.Space[Any]:
        """The observation space of ``agent`` (the same object every call)."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        """``Discrete(N_ACTIONS)`` for every agent (the same object every call)."""
        return self.action_spaces[agent]

    # ---- episode ---------------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a new game. ``seed`` makes the start stations and everything after
        reproducible; ``options={"start": {"X": 132, "D1": 13, ...}}`` sets them."""
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        start = (options or {}).get("start")
        self.match.reset(seed=int(self._rng.integers(2**62)), start=start)
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self._forfeit = None
        self._skip_agent_selection = None
        self._phi = self._potentials()
        self._started = True
        self.agent_selection = self._agent[self.match.selected]
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._update_infos(False)

    @property
    def over(self) -> bool:
        """True once the game has ended (by the rules, or by an action outside the mask)."""
        return self._forfeit is not None or self.match.game.is_over()

    def _potentials(self) -> tuple[float, float]:
        g = self.match.game
        if not self.shaping or g.is_over():
            return 0.0, 0.0
        return mr_x_potential(g), detectives_potential(g)

    def _selected_mask(self) -> np.ndarray:
        """The mask of the selected agent (the match's cached mask, read-only), or the end
        mask."""
        return _END_MASK if self.over else self.match.mask(copy=False)

    def _update_infos(self, invalid: bool) -> None:
        g = self.match.game
        over = self._forfeit is not None or g.is_over()
        if over:
            sel = None
            mask = _END_MASK
            outcome = self._forfeit if self._forfeit is not None else outcome_info(g.outcome())
        else:
            sel = self._agent[self.match.selected]
            mask = self.match.mask(copy=False)
            outcome = None
        base = info_dict(mask if over else _ZERO_MASK, g.round, sel, outcome, invalid)
        infos = self.infos
        for a in self.agents:
            infos[a] = base.copy()
        if sel is not None:
            infos[sel]["action_mask"] = mask

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """``agent``'s observation: its view's facts, and the action mask if it is to act."""
        piece = self._piece[agent]
        m = self.match
        selected = m.selected
        mr_x = piece == MR_X
        obs = self.encoder.encode(m.game, piece, selected=selected,
                                  pending=m.pending if mr_x else None)
        if piece == selected or self.over:
            mask = self._selected_mask().copy()
        else:
            mask = np.zeros(N_ACTIONS, np.int8)
        return {"observation": obs, "action_mask": mask}

    def step(self, action: Any) -> None:
        """Play ``action`` for ``agent_selection`` (``None`` for an agent whose game is over)."""
        if not self._started:
            raise RuntimeError("call reset() before step()")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        why = self.match.why_invalid(action)
        if why is not None:
            if self.invalid_action == "raise":
                raise InvalidAction(why)
            self._lose(agent, why)
            return
        self._cumulative_rewards[agent] = 0.0
        move = self.match.apply(action, checked=True)
        rewards = self.rewards
        agents = self.agents
        for a in agents:
            rewards[a] = 0.0
        paid = False
        g = self.match.game
        if move is not None and self.shaping:
            phi = self._potentials()
            dx, dd = phi[0] - self._phi[0], phi[1] - self._phi[1]
            self._phi = phi
            for a in agents:
                rewards[a] = self.shaping * (dx if a == "mr_x" else dd)
            paid = True
        outcome = g.outcome()
        if outcome is not None:
            rx, rd = terminal_rewards(outcome, self.loss_reward)
            for a in agents:
                rewards[a] += rx if a == "mr_x" else rd
                self.terminations[a] = True
            paid = True
        else:
            self.agent_selection = self._agent[self.match.selected]
        self._update_infos(False)
        if paid:  # all rewards are zero otherwise: nothing to add
            self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _lose(self, agent: str, why: str) -> None:
        """End the game: ``agent``'s side played an action outside the mask."""
        logger.warn(f"scotlandyard: {why}; the game ends, {agent}'s side loses "
                    "(invalid_action='lose')")
        side = "mr_x" if agent == "mr_x" else "detectives"
        self._cumulative_rewards[agent] = 0.0
        self._forfeit = forfeit_info(side, self._piece[agent], self.match.game.round)
        for a in self.agents:
            same = (a == "mr_x") == (side == "mr_x")
            self.rewards[a] = self.invalid_penalty if same else 0.0
            self.terminations[a] = True
        self._update_infos(True)
        self._accumulate_rewards()

    def state(self) -> np.ndarray:
        """The whole truth as one vector (Mr X's observation encoding: every station, his log):
        for centralized critics in training. Never give it to a detective's policy."""
        m = self.match
        return self.encoder.encode(m.game, MR_X, selected=m.selected, pending=m.pending)

    # ---- helpers for people and package agents ------------------------------------------------
    def view(self, agent: str) -> PlayerView:
        """``agent``'s :class:`~scotlandyard.PlayerView` (for the package's agents)."""
        view: PlayerView = self.match.game.view(self._piece[agent])
        return view

    def action_toward(self, move: Move) -> int:
        """The next action that plays the engine move ``move`` (from ``view.legal_moves``):
        ``defer`` until its piece is selected, then its first or second step."""
        action: int = self.match.action_toward(move)
        return action

    @staticmethod
    def describe_action(action: int) -> str:
        """A readable name of an action (``T92``, ``double B58+...``, ``pass``, ...)."""
        return describe_action(action)


class FastOrderEnforcingWrapper(OrderEnforcingWrapper):  # type: ignore[misc]  # no types
    """PettingZoo's ``OrderEnforcingWrapper`` with the same checks, where the calls of every
    step (``last()``, ``agents``, ``agent_selection``) go to the env directly instead of
    through two ``__getattr__`` forwards each (a tenth of an AEC step's time)."""

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """As ``AECEnv.last`` (an ``AttributeError`` before ``reset``)."""
        if not self._has_reset:
            raise AttributeError("agent_selection cannot be accessed before reset")
        out: tuple[Any, float, bool, bool, dict[str, Any]] = self.env.last(observe)
        return out

    @property
    def agents(self) -> list[str]:
        """The live agents (an ``AttributeError`` before ``reset``)."""
        if not self._has_reset:
            raise AttributeError("agents cannot be accessed before reset")
        agents: list[str] = self.env.agents
        return agents

    @property
    def agent_selection(self) -> str:
        """The agent to act (an ``AttributeError`` before ``reset``)."""
        if not self._has_reset:
            raise AttributeError("agent_selection cannot be accessed before reset")
        agent: str = self.env.agent_selection
        return agent

    def __str__(self) -> str:
        """The env's name, as PettingZoo's own wrapper prints it."""
        return str(self.env)


def aec_env(rules: Rules | str | None = None, *, shaping: float = 0.0, loss_reward: float = -1.0,
            render_mode: str | None = None, invalid_action: str = "lose",
            invalid_penalty: float = -1.0, probability: bool = False,
            board_features: bool = False) -> FastOrderEnforcingWrapper:
    """A new :class:`ScotlandYardAEC` in PettingZoo's ``OrderEnforcingWrapper`` (as the classic
    envs come; :class:`FastOrderEnforcingWrapper`, a subclass with the same checks);
    ``.unwrapped`` is the env itself. ``rules``: a ``Rules`` value or a preset name."""
    return FastOrderEnforcingWrapper(ScotlandYardAEC(
        rules, shaping=shaping, loss_reward=loss_reward, render_mode=render_mode,
        invalid_action=invalid_action, invalid_penalty=invalid_penalty, probability=probability,
        board_features=board_features))


def raw_env(**kwargs: Any) -> ScotlandYardAEC:
    """The unwrapped env (PettingZoo's ``raw_env`` convention); options as :func:`aec_env`."""
    return ScotlandYardAEC(**kwargs)
