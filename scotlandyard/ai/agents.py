"""The built-in agents and the named levels, registered for :func:`~scotlandyard.ai.make_agent`.

=================  ==============  =================================================================
name               side            agent
=================  ==============  =================================================================
``random``         both            uniformly random legal move
``mcd``            Mr X            maximize the distance to the closest detective
``mtd``            detectives      minimize the total distance to Mr X's possible locations
``cal``            detectives      chase a location drawn from the possible locations
``heuristic``      both            ``mcd`` for Mr X, ``mtd`` for the detectives
``alphabeta``      Mr X            paranoid alpha-beta search
``expectimax``     detectives      expectimax over the possible locations
``lookahead``      both            ``alphabeta`` for Mr X, ``expectimax`` for the detectives
``mcts``           both            this package's best MCTS (options: :class:`.mcts.MCTSOptions`)
``nw``             both            Nijssen & Winands' MCTS as published, frozen (the baseline)
``nw-2026-12-06``  both            ``nw`` before the thesis's hider model of 2026-12-07 (old figures)
``beginner``       both            a human-like beginner (:mod:`.beginner`; what ``easy`` is tuned on)
``easy`` ...       both            the levels for people: ``easy``, ``medium``, ``hard``, ``max``
=================  ==============  =================================================================

An agent made without a side plays whichever side its view belongs to (where it can).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..move import Move
from ..view import PlayerView
from .base import Agent, Budget, register
from .beginner import BeginnerDetectives, BeginnerMrX
from .heuristics import CALAgent, MCDAgent, MTDAgent, require_view
from .lookahead import ExpectimaxAgent, ParanoidAgent
from .mcts import NW20261206Agent, NWAgent, best_agent


class SideAgent:
    """One agent for each side, picked by the view's side; ``budgets`` gives each side's
    default budget (used when the caller passes ``Budget()``)."""

    def __init__(self, name: str, mr_x: Agent, detectives: Agent,
                 budgets: dict[str, Budget] | None = None) -> None:
        self.name = name
        self.agents = {"mr_x": mr_x, "detectives": detectives}
        self.budgets = budgets or {}

    def agent_for(self, side: str) -> Agent:
        """The agent that plays ``side``."""
        return self.agents[side]

    def choose(self, view: PlayerView, legal: Sequence[Move], rng: random.Random,
               budget: Budget) -> Move:
        """Delegate to the view's side's agent (with the side's default budget if ``budget``
        sets no limit)."""
        view = require_view(view)
        if view.side not in self.agents:
            raise ValueError(f"{self.name} plays Mr X or the detectives, not a {view.side}")
        if budget.playouts is None and budget.seconds is None:
            budget = self.budgets.get(view.side, budget)
        return self.agents[view.side].choose(view, legal, rng, budget)

    def __repr__(self) -> str:
        return f"SideAgent({self.name!r})"


@dataclass(frozen=True)
class Level:
    """A named level: the agent and default budget for each side."""

    name: str
    description: str
    mr_x: tuple[str, dict[str, Any], Budget]
    detectives: tuple[str, dict[str, Any], Budget]
    notes: str = field(default="")


LEVELS: dict[str, Level] = {
    # easy: tuned to give a beginner a fair game against the ``beginner`` policies (docs/ai.md,
    # "Levels"): Mr X wins 30-50% against beginner detectives, the detectives catch a
    # beginner Mr X 30-50% of the time (benchmarks/beginner.py)
    "easy": Level(
        "easy", "quick and forgiving: one-move heuristics with some random moves",
        ("mcd", {"epsilon": 0.25}, Budget()),
        ("cal", {"epsilon": 0.4}, Budget())),
    "medium": Level(
        "medium", "MCTS, 1,000 iterations a move (a few hundredths of a second with numba)",
        ("mcts", {}, Budget(playouts=1000, seconds=2.0)),
        ("mcts", {}, Budget(playouts=1000, seconds=2.0))),
    # hard and max detectives draw Mr X's station by the learned model of his play
    # (belief="learned"): with the default belief, 20,000 iterations caught the medium Mr X
    # hardly more often than medium's 1,000 (docs/experiments.md, issue 24, session 8)
    "hard": Level(
        "hard", "MCTS, 20,000 iterations a move (at most 1.2 s; 1.8 s with a double move); "
        "the detectives with the learned model of Mr X",
        ("mcts", {}, Budget(playouts=20000, seconds=1.2)),
        ("mcts", {"belief": "learned"}, Budget(playouts=20000, seconds=1.2))),
    "max": Level(
        "max", "MCTS, 10 s a move; the detectives with the learned model of Mr X",
        ("mcts", {}, Budget(seconds=10.0)),
        ("mcts", {"belief": "learned"}, Budget(seconds=10.0))),
}

_SINGLE: dict[str, Callable[..., Agent]] = {
    "mcd": MCDAgent,
    "mtd": MTDAgent,
    "cal": CALAgent,
    "alphabeta": ParanoidAgent,
    "expectimax": ExpectimaxAgent,
}


def _level_factory(level: Level) -> Callable[..., Agent]:
    def make(side: str | None = None, **options: Any) -> Agent:
        if side not in (None, "mr_x", "detectives"):
            raise ValueError(f"side is 'mr_x' or 'detectives', not {side!r}")
        unknown = set(options) - {"fast"}
        if unknown:
            raise ValueError(f"level {level.name} takes only the option fast, not "
                             f"{', '.join(sorted(unknown))}")
        parts = {}
        for s, (agent_name, opts, _budget) in (("mr_x", level.mr_x),
                                               ("detectives", level.detectives)):
            kw = dict(opts)
            if agent_name == "mcts" and "fast" in options:
                kw["fast"] = options["fast"]
            factory = best_agent if agent_name == "mcts" else _SINGLE[agent_name]
            parts[s] = factory(side=s, **kw)
        agent = SideAgent(level.name, parts["mr_x"], parts["detectives"],
                          {"mr_x": level.mr_x[2], "detectives": level.detectives[2]})
        return agent

    return make


def _pair_factory(name: str, mr_x: Callable[..., Agent],
                  detectives: Callable[..., Agent]) -> Callable[..., Agent]:
    def make(side: str | None = None, **options: Any) -> Agent:
        if side == "mr_x":
            return mr_x(side=side, **options)
        if side == "detectives":
            return detectives(side=side, **options)
        if side is not None:
            raise ValueError(f"side is 'mr_x' or 'detectives', not {side!r}")
        if options:
            raise ValueError(f"{name} takes options only with a side")
        return SideAgent(name, mr_x(), detectives())

    return make


def level_table() -> list[dict[str, str]]:
    """The levels as rows (for documentation and the UI)."""
    rows = []
    for lv in LEVELS.values():
        def desc(part: tuple[str, dict[str, Any], Budget]) -> str:
            name, opts, b = part
            extra = ", ".join(f"{k}={v}" for k, v in opts.items())
            limits = []
            if b.playouts is not None:
                limits.append(f"{b.playouts} playouts")
            if b.seconds is not None:
                limits.append(f"{b.seconds:g} s")
            return f"{name}{f' ({extra})' if extra else ''}{': ' + ', '.join(limits) if limits else ''}"

        rows.append({"level": lv.name, "mr_x": desc(lv.mr_x), "detectives": desc(lv.detectives),
                     "description": lv.description})
    return rows


for _name, _cls in _SINGLE.items():
    register(_name, _cls)
register("mcts", best_agent)
register("nw", NWAgent)
register("nw-2026-12-06", NW20261206Agent)
register("heuristic", _pair_factory("heuristic", MCDAgent, MTDAgent))
register("lookahead", _pair_factory("lookahead", ParanoidAgent, ExpectimaxAgent))
register("beginner", _pair_factory("beginner", BeginnerMrX, BeginnerDetectives))
for _level in LEVELS.values():
    register(_level.name, _level_factory(_level))
