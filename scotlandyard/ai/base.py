"""The one agent interface for both sides, budgets, and the agent registry.

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
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from ..move import Move
from ..view import PlayerView


@dataclass(frozen=True)
class Budget:
    """How much thinking an agent may do for one move: a number of playouts/iterations, a
    number of seconds, or both (whichever ends first). ``Budget()`` means the agent's default."""

    playouts: int | None = None
    seconds: float | None = None

    def __post_init__(self) -> None:
        if self.playouts is not None and (not isinstance(self.playouts, int) or self.playouts < 1):
            raise ValueError(f"budget playouts is a whole number >= 1, not {self.playouts!r}")
        if self.seconds is not None and not self.seconds > 0:
            raise ValueError(f"budget seconds is > 0, not {self.seconds!r}")


@runtime_checkable
class Agent(Protocol):
    """A player of either side."""

    name: str

    def choose(self, view: PlayerView, legal: Sequence[Move], rng: random.Random,
               budget: Budget) -> Move:
        """Return one move of ``legal`` for the view's side."""
        ...


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


def agent_names() -> list[str]:
    """Every registered agent name."""
    _load_builtin()
    return sorted(_REGISTRY)


def make_agent(name: str, side: str | None = None, **options: Any) -> Agent:
    """Build the agent called ``name`` for ``side`` (``"mr_x"`` or ``"detectives"``)."""
    _load_builtin()
    if name not in _REGISTRY and isinstance(name, str) and ":" in name:
        from ..env.policy import register_policy  # a trained policy, "module:attribute"

        register_policy(name)
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
