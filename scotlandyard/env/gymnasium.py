"""Gymnasium environments to play one side against the package's agents.

>>> import gymnasium, scotlandyard.env
>>> env = gymnasium.make("scotlandyard/MrX-v0", opponent="random", rules="classic")
>>> obs, info = env.reset(seed=3)
>>> obs.shape == env.observation_space.shape and int(info["action_mask"].sum()) > 0
True

- ``scotlandyard/MrX-v0`` (:class:`MrXEnv`): the learner is Mr X; the detectives' side is
  ``make_agent(opponent, "detectives")``.
- ``scotlandyard/Detectives-v0`` (:class:`DetectivesEnv`): the learner moves every hunter,
  one action per hunter move (the observation's ``selected`` segment says which piece acts);
  Mr X is ``make_agent(opponent, "mr_x")``.

Observations are the learner's view encoded as in the AEC env (layout ``sy-obs-1``); the
legal actions are ``info["action_mask"]`` and ``env.action_masks()`` (the ``MaskablePPO``
convention; through ``gymnasium.make``'s wrappers: ``env.get_wrapper_attr("action_masks")()``,
which is what SB3's ``get_action_masks`` calls). Once the game is over the mask holds ``pass``
alone (never empty, for vector envs that autoreset). Actions may be Python or numpy integers or
0-d integer arrays (what ``model.predict`` returns).

An action outside the mask: ``invalid_action="lose"`` (the default) ends the episode as a
loss (reward ``invalid_penalty``, −1; ``info["invalid_action"]`` True), so Gymnasium's
``check_env``, which samples unmasked actions, passes with the defaults;
``invalid_action="penalty"`` refuses it (position unchanged, reward ``invalid_penalty``);
``invalid_action="raise"`` raises :class:`~scotlandyard.env.actions.InvalidAction`.
"""

from __future__ import annotations

import random
from typing import Any, Literal

import gymnasium
import numpy as np
from gymnasium import spaces

from ..ai import Agent, Budget, make_agent
from ..move import MR_X
from ..rules import Rules
from .actions import N_ACTIONS, InvalidAction
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
    resolve_rules,
    terminal_rewards,
)
from .encoding import Encoder
from .match import Match
from .render import RendersPosition

Side = Literal["mr_x", "detectives"]


class _SideEnv(RendersPosition, gymnasium.Env):
    """One side against an agent of the package (see the module doc)."""

    metadata = {"render_modes": ["ansi", "human", "rgb_array"], "render_fps": 1}
    side: Side = "mr_x"

    def __init__(self, rules: Rules | str | None = None, opponent: str | Agent = "random", *,
                 opponent_options: dict[str, Any] | None = None, budget: Budget | None = None,
                 shaping: float = 0.0, loss_reward: float = -1.0,
                 invalid_action: Literal["lose", "raise", "penalty"] = "lose",
                 invalid_penalty: float = -1.0, render_mode: str | None = None,
                 probability: bool = False, board_features: bool = False) -> None:
        """``opponent`` is an agent name of :func:`scotlandyard.ai.make_agent` (``random``,
        or a level such as ``easy``) or an :class:`~scotlandyard.ai.Agent`; ``budget`` its
        thinking budget per move; ``probability`` and ``board_features`` add the optional
        observation segments."""
        self.rules = resolve_rules(rules)
        self.shaping, self.loss_reward = check_reward_options(shaping, loss_reward)
        self.invalid_action = check_invalid_mode(invalid_action, ("lose", "raise", "penalty"))
        self.invalid_penalty = check_reward_options(invalid_penalty, 0.0)[0]
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise ValueError(f"render_mode is one of None, {', '.join(self.metadata['render_modes'])}, "
                             f"not {render_mode!r}")
        self.render_mode = render_mode
        other = "detectives" if self.side == "mr_x" else "mr_x"
        if isinstance(opponent, str):
            self.opponent: Agent = make_agent(opponent, other, **(opponent_options or {}))
        elif hasattr(opponent, "choose"):
            self.opponent = opponent
        else:
            raise TypeError(f"opponent is an agent name or an Agent, not {type(opponent).__name__}")
        self.budget = budget if budget is not None else Budget()
        self.match = Match(self.rules)
        self.encoder = Encoder(self.rules, probability=probability, board_features=board_features)
        self.layout = self.encoder.layout
        low, high = self.layout.bounds()
        self.observation_space = spaces.Box(low, high, dtype=np.float32)
        self.action_space = spaces.Discrete(N_ACTIONS)
        self._opp_rng = random.Random(0)
        self._started = False
        self._forfeit: dict[str, Any] | None = None
        self._renderer: Any = None
        self._phi = 0.0

    # ---- helpers ---------------------------------------------------------------------------
    def _mine(self) -> bool:
        sel = self.match.selected
        return sel is not None and (sel == MR_X) == (self.side == "mr_x")

    def _potential(self) -> float:
        g = self.match.game
        if not self.shaping or g.is_over():
            return 0.0
        return mr_x_potential(g) if self.side == "mr_x" else detectives_potential(g)

    def _observe(self) -> np.ndarray:
        m = self.match
        sel = m.selected
        if self.side == "mr_x":
            return self.encoder.encode(m.game, MR_X, selected=sel, pending=m.pending)
        viewer = sel if sel is not None and sel != MR_X else self.rules.hunters[0]
        return self.encoder.encode(m.game, viewer, selected=sel)

    @property
    def over(self) -> bool:
        """True once the episode has ended (by the rules, or by an action outside the mask)."""
        return self._forfeit is not None or self.match.game.is_over()

    def _info(self, invalid: bool = False) -> dict[str, Any]:
        g = self.match.game
        over = self.over
        sel = self.match.selected
        outcome = self._forfeit if self._forfeit is not None else (
            outcome_info(g.outcome()) if over else None)
        return info_dict(self.action_masks(), g.round,
                         None if over or sel is None else agent_name(sel), outcome, invalid)

    def action_masks(self) -> np.ndarray:
        """The legal actions now (``np.int8``); once the episode is over, ``pass`` alone."""
        if not self._started:
            raise RuntimeError("call reset() first")
        if self.over:
            return end_mask()
        if not self._mine():  # pragma: no cover - the opponent has always replied
            return np.zeros(N_ACTIONS, np.int8)
        mask: np.ndarray = self.match.mask()
        return mask

    def _play_opponent(self) -> None:
        g = self.match.game
        while not g.is_over() and not self._mine():
            piece = g.to_move
            view = g.view(piece)
            legal = g.legal_moves()
            move = self.opponent.choose(view, legal, self._opp_rng, self.budget)
            self.match.push(move)

    # ---- gymnasium API -------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        """A new game (``options={"start": {...}}`` sets the start stations)."""
        super().reset(seed=seed)
        start = (options or {}).get("start")
        self.match.reset(seed=int(self.np_random.integers(2**62)), start=start)
        self._opp_rng = random.Random(int(self.np_random.integers(2**62)))
        self._started = True
        self._forfeit = None
        self._play_opponent()
        self._phi = self._potential()
        return self._observe(), self._info()

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """Play the learner's ``action``, then the opponent's moves until the learner acts again
        or the game ends."""
        if not self._started:
            raise RuntimeError("call reset() before step()")
        if self.over:
            raise RuntimeError("the game is over: call reset()")
        why = self.match.why_invalid(action)
        if why is not None:
            if self.invalid_action == "raise":
                raise InvalidAction(why)
            if self.invalid_action == "penalty":
                return self._observe(), self.invalid_penalty, False, False, self._info(True)
            gymnasium.logger.warn(f"scotlandyard: {why}; the episode ends as a loss "
                                  "(invalid_action='lose')")
            sel = self.match.selected or MR_X
            self._forfeit = forfeit_info(self.side, sel, self.match.game.round)
            return self._observe(), self.invalid_penalty, True, False, self._info(True)
        move = self.match.apply(action, checked=True)
        if move is not None:
            self._play_opponent()
        g = self.match.game
        reward = 0.0
        if move is not None and self.shaping:
            phi = self._potential()
            reward += self.shaping * (phi - self._phi)
            self._phi = phi
        terminated = g.is_over()
        if terminated:
            rx, rd = terminal_rewards(g.outcome(), self.loss_reward)
            reward += rx if self.side == "mr_x" else rd
        return self._observe(), reward, terminated, False, self._info()


class MrXEnv(_SideEnv):
    """The learner plays Mr X against ``opponent`` detectives (``scotlandyard/MrX-v0``)."""

    side: Side = "mr_x"


class DetectivesEnv(_SideEnv):
    """The learner moves every detective and police piece, one action per hunter move, against
    an ``opponent`` Mr X (``scotlandyard/Detectives-v0``)."""

    side: Side = "detectives"


__all__ = ["DetectivesEnv", "InvalidAction", "MrXEnv"]
