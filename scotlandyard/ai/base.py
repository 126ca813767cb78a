"""The agent registry (built-in agents, levels and trained policies by name) and the random agent;
the interface itself (:class:`Agent`, :class:`Budget`) is in :mod:`.interface`.

An agent sees a :class:`~scotlandyard.view.PlayerView` (never the ``Game``), the legal
moves, a random generator and a :class:`Budget`, and returns one of the legal moves:

>>> from scotlandyard import Game, Rules
>>> from scotlandyard.ai import make_agent, Budget
>>> game = Game.new(Rules.classic(), seed=1)
>>> agent = make_agent("random")
>>> import random
>>> move = agent.choose(game.view("X"), game.legal_moves(), random.Random(1), Budget())
>>> move in game.legal_moves()
True
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

from ..move import Move
from ..view import PlayerView
from .interface import Agent, Budget


class RandomAgent:
    """Uniformly random among the legal moves (either side)."""

    name = "random"

    def choose(self, view: PlayerView, legal: Sequence[Move], rng: random.Random,
               budget: Budget) -> Move:
        """A uniformly random legal move."""
        if not isinstance(view, PlayerView):  # agents see views, never the Game
            raise TypeError(f"agents get a PlayerView, not {type(view).__name__}")
        if not legal:
            raise ValueError("no legal move to choose from")
        return legal[rng.randrange(len(legal))]


AgentFactory = Callable[..., Agent]
_REGISTRY: dict[str, AgentFactory] = {"random": lambda side=None: RandomAgent()}


def register(name: str, factory: AgentFactory) -> None:
    """Make an agent available to :func:`make_agent` (and so to the arena, server and env)."""
    _REGISTRY[name] = factory


def register_policy(spec: str) -> str:
    """Import the trained policy ``"module:attribute"`` now (so a typo fails at once, with a
    :class:`~scotlandyard.env.PolicyError`) and register it under the name ``spec``; returns the
    name. The policy is wrapped by :func:`scotlandyard.env.policy.agent_from_spec` (which needs
    numpy); this registry is the only one: ``env.policy`` registers nothing itself."""
    from ..env.policy import agent_from_spec, load_policy  # one way: env.policy never imports this

    load_policy(spec)
    register(spec, lambda side=None, **options: agent_from_spec(spec, side, **options))
    return spec


def agent_names() -> list[str]:
    """Every registered agent name."""
    _load_builtin()
    return sorted(_REGISTRY)


def make_agent(name: str, side: str | None = None, **options: Any) -> Agent:
    """Build the agent called ``name`` for ``side`` (``"mr_x"`` or ``"detectives"``)."""
    _load_builtin()
    if name not in _REGISTRY and isinstance(name, str) and ":" in name:
        register_policy(name)  # a trained policy, "module:attribute"
    try:
        factory = _REGISTRY[name]
    except KeyError:
        raise ValueError(f"unknown agent {name!r} (known: {', '.join(sorted(_REGISTRY))}; "
                         "or a policy as module:attribute)") from None
    try:
        return factory(side=side, **options)
    except TypeError as exc:
        if "unexpected keyword argument" in str(exc):
            bad = str(exc).rsplit("argument", 1)[-1].strip(" '")
            raise ValueError(f"agent {name!r} has no option {bad!r}") from None
        raise


def _load_builtin() -> None:
    """Import the modules that register the built-in agents (lazily, to keep imports light)."""
    import importlib

    for mod in ("scotlandyard.ai.agents",):
        try:
            importlib.import_module(mod)
        except ModuleNotFoundError as exc:  # only while that module does not exist yet
            if exc.name != mod:
                raise


__all__ = ["Agent", "AgentFactory", "Budget", "RandomAgent", "agent_names", "make_agent", "register",
           "register_policy"]
