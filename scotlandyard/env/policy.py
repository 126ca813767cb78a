"""``PolicyAgent``: a trained policy (any callable ``obs, mask -> action``, or a
Stable-Baselines3 model) as an agent of the package, so it plays wherever agents play — the
arena and ladder, the server's AI seats, the terminal game.

>>> import numpy as np
>>> from scotlandyard import Game, Rules
>>> from scotlandyard.env import PolicyAgent
>>> first_legal = lambda obs, mask: int(np.flatnonzero(mask)[0])
>>> agent = PolicyAgent(first_legal)
>>> game = Game.new(Rules.classic(), seed=1)
>>> import random
>>> from scotlandyard.ai import Budget
>>> move = agent.choose(game.view("X"), game.legal_moves(), random.Random(0), Budget())
>>> move in game.legal_moves()
True

The agent asks the policy exactly what the envs would ask: the observation vector of the
acting piece's view (layout ``sy-obs-1``, with the same options) and the action mask, one
decision at a time — a double move is two questions (first step, then second step), a take
one, and in free order the selected hunter may ``defer`` to the next unmoved one, as in the
envs. So a policy trained in ``MrX-v0``, ``Detectives-v0``, the AEC env or on
:func:`~scotlandyard.env.batch_obs.batch_observations` plays unchanged.

A policy is named ``"module:attribute"`` (``attribute`` may be dotted) for the command line:
``scotlandyard arena --mr-x mymod:policy``, ``scotlandyard serve --agent-module mymod:policy``,
``scotlandyard play --mr-x mymod:policy``. The attribute is one of

- a callable ``policy(obs, mask) -> action`` (``obs``: ``float32[size]``, ``mask``:
  ``int8[2393]``; the action an int, numpy integer or 0-d array);
- an object with ``predict`` (a Stable-Baselines3 model: ``MaskablePPO`` gets
  ``action_masks=mask``; other models are called without a mask);
- a mapping ``{"mr_x": policy, "detectives": policy}`` (one policy per side);
- an :class:`~scotlandyard.ai.Agent` (used as it is).

Options (``make_agent("mymod:policy", side, probability=True)``): ``probability`` and
``board_features`` (the observation options the policy was trained with), ``deterministic``
(for ``predict``; default True).
"""

from __future__ import annotations

import dataclasses
import importlib
import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from ..ai.interface import Agent, Budget
from ..move import MR_X, DoubleMove, Move, SingleMove
from ..view import PlayerView
from .actions import DEFER, DOUBLE_FIRST, N_ACTIONS, PASS, REVEAL, describe_action, split_step
from .encoding import ObservationLayout, encode_view
from .match import actions_from_moves, as_action, defer_target

PolicyFn = Callable[[np.ndarray, np.ndarray], Any]


class PolicyError(ValueError):
    """A policy that cannot be loaded, or that chose an action outside the mask."""


class PolicyAgent:
    """An :class:`~scotlandyard.ai.Agent` driven by ``policy(obs, mask) -> action`` (see the
    module doc). ``side`` picks one policy of a ``{"mr_x": .., "detectives": ..}`` mapping."""

    def __init__(self, policy: Any, *, side: str | None = None, name: str = "policy",
                 probability: bool = False, board_features: bool = False,
                 deterministic: bool = True) -> None:
        """Wrap ``policy`` (a callable, an SB3 model, or a per-side mapping of them)."""
        if isinstance(policy, Mapping):
            if side not in policy:
                raise PolicyError(f"policy {name!r} is a mapping with sides "
                                  f"{', '.join(map(str, policy))}; no policy for side {side!r}")
            policy = policy[side]
        if not (callable(policy) or hasattr(policy, "predict")):
            raise PolicyError(f"policy {name!r} is neither callable nor has predict(): "
                              f"{type(policy).__name__}")
        self.policy = policy
        self.name = name
        self.side = side
        self.deterministic = bool(deterministic)
        self.layout = ObservationLayout.make(probability=probability, board_features=board_features)

    # ---- asking the policy ----------------------------------------------------------------
    def act(self, obs: np.ndarray, mask: np.ndarray) -> int:
        """The policy's action for ``obs`` and ``mask`` (:class:`PolicyError` if outside the mask)."""
        p = self.policy
        if hasattr(p, "predict"):
            try:
                out = p.predict(obs, action_masks=mask, deterministic=self.deterministic)
            except TypeError:  # a model without masks (e.g. plain PPO)
                out = p.predict(obs, deterministic=self.deterministic)
            raw = out[0] if isinstance(out, tuple) else out
        else:
            raw = p(obs, mask)
        a = as_action(raw)
        if a is None and isinstance(raw, np.ndarray) and raw.size == 1 and raw.dtype.kind in "iu":
            a = int(raw.reshape(()))  # a batch of one, e.g. predict on an unbatched obs
        if a is None:
            raise PolicyError(f"policy {self.name!r} returned {raw!r}, not an integer action")
        if not (0 <= a < N_ACTIONS and mask[a]):
            raise PolicyError(f"policy {self.name!r} chose {describe_action(a)} (action {a}), "
                              f"which is not in the mask ({int(mask.sum())} legal actions)")
        return a

    def _ask(self, view: PlayerView, piece: str, acts: list[int],
             pending: tuple[int, int] | None = None) -> int:
        obs = encode_view(view, selected=piece, pending=pending, layout=self.layout)
        mask = np.zeros(N_ACTIONS, np.int8)
        mask[acts] = 1
        return self.act(obs, mask)

    # ---- the Agent protocol -------------------------------------------------------------------
    def choose(self, view: PlayerView, legal: Sequence[Move], rng: random.Random,
               budget: Budget) -> Move:
        """One move of ``legal`` for the view's piece, by the env's decisions."""
        if view.side == "mr_x":
            return self._choose_mr_x(view, legal)
        free = view.rules.free_order
        waiting = list(view.pieces_to_move) if free else [view.to_move or ""]
        piece, wrapped = waiting[0], False
        while True:
            seen = view if piece == view.viewer else dataclasses.replace(view, viewer=piece)
            nxt = defer_target(waiting, piece, legal, wrapped) if free else None
            acts, _ = actions_from_moves(legal, piece, None, nxt is not None)
            a = self._ask(seen, piece, acts)
            if a == DEFER and nxt is not None:
                wrapped = wrapped or waiting.index(nxt) < waiting.index(piece)
                piece = nxt
                continue
            mine = [m for m in legal if m.piece in (None, piece)]
            if a == PASS:
                return next(m for m in mine if m.is_pass)
            _, t, s = split_step(a)
            return next(m for m in mine if isinstance(m, SingleMove) and m.ticket == t and m.to == s)

    def _choose_mr_x(self, view: PlayerView, legal: Sequence[Move]) -> Move:
        acts, takes = actions_from_moves(legal, MR_X, None, False)
        a = self._ask(view, MR_X, acts)
        if takes:
            return takes[a]
        base, t, s = split_step(a)
        if base == DOUBLE_FIRST:
            acts2, _ = actions_from_moves(legal, MR_X, (t, s), False)
            _, t2, s2 = split_step(self._ask(view, MR_X, acts2, pending=(t, s)))
            return next(m for m in legal if isinstance(m, DoubleMove) and m.ticket == t and m.to == s
                        and m.ticket2 == t2 and m.to2 == s2)
        reveal = base == REVEAL
        return next(m for m in legal if isinstance(m, SingleMove)
                    and m.ticket == t and m.to == s and m.reveal == reveal)


# ---- loading by name --------------------------------------------------------------------------
def load_policy(spec: str) -> Any:
    """The object named by ``"module:attribute"`` (imported; :class:`PolicyError` says why not)."""
    if not isinstance(spec, str) or spec.count(":") != 1 or not all(spec.split(":")):
        raise PolicyError(f"a policy is named 'module:attribute' (e.g. mypolicies:mr_x), not {spec!r}")
    mod_name, attr = spec.split(":")
    try:
        obj: Any = importlib.import_module(mod_name)
    except ImportError as exc:
        raise PolicyError(f"cannot import {mod_name!r} for policy {spec!r}: {exc}") from None
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise PolicyError(f"module {mod_name!r} has no {attr!r} (policy {spec!r})") from None
    return obj


def agent_from_spec(spec: str, side: str | None = None, **options: Any) -> Agent:
    """The agent for ``"module:attribute"``: the object itself if it is an Agent, else a
    :class:`PolicyAgent` around it (``options``: ``probability``, ``board_features``,
    ``deterministic``)."""
    obj = load_policy(spec)
    if isinstance(obj, Agent) and not options:  # (a name and a choose method)
        return obj
    return PolicyAgent(obj, side=side, name=spec, **options)


__all__ = ["PolicyAgent", "PolicyError", "agent_from_spec", "load_policy"]
