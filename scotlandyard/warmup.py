"""Compile everything numba compiles, once, before anyone waits for it: ``scotlandyard warm-up``.

The kernel (:mod:`scotlandyard.kernel`) is compiled by numba on first use and kept in numba's
on-disk cache (``__pycache__`` beside ``kernel/_kernel.py``, or ``$NUMBA_CACHE_DIR``). After a
fresh install the first use of each part waits for its compiler; this module runs each part
once on a tiny input, so that later uses load the cache in about a second. The parts are named
steps (:data:`STEPS`); :data:`AI_STEPS` are those a server's AI seats need.

>>> from scotlandyard.warmup import STEPS
>>> [step.name for step in STEPS]
['playouts', 'mcts', 'position', 'random-games', 'batch']

This module sits in the outer ring (beside the CLI): it imports the kernel, the agents and the
envs; none of them imports it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Step:
    """One part to compile: ``run(fast)`` uses it once on a tiny input."""

    name: str
    description: str
    run: Callable[[bool], object]


def _playouts(fast: bool) -> object:
    from .kernel.fast import warm_up

    return warm_up(fast)


def _mcts(fast: bool) -> object:
    from .ai.mcts import warm_up

    return warm_up(fast)


def _position(fast: bool) -> object:
    from . import Game, Rules
    from .kernel import Position

    pos = Position.from_game(Game.new(Rules.classic(), seed=0), fast=fast)
    codes = pos.legal_codes()
    pos.push(pos.legal_moves()[0])
    pos.pop()
    return codes, pos.perft(2)


def _random_games(fast: bool) -> object:
    from . import Rules
    from .kernel import random_games

    return random_games(Rules.classic(), 2, seed=0, fast=fast)


def _batch(fast: bool) -> object:
    try:
        import numpy  # noqa: F401
    except ImportError:  # pragma: no cover - numpy is a dependency
        return None
    from .env.batch import BatchSim

    sim = BatchSim(4, seed=0, fast=fast)
    sim.candidates()
    return sim.run()


STEPS: tuple[Step, ...] = (
    Step("playouts", "the kernel's playouts", _playouts),
    Step("mcts", "MCTS search of both sides (the AI levels)", _mcts),
    Step("position", "kernel.Position: legal moves, push/pop, perft", _position),
    Step("random-games", "kernel.random_games", _random_games),
    Step("batch", "BatchSim, the batched simulator", _batch),
)
"""Every step, in the order ``scotlandyard warm-up`` runs them."""

AI_STEPS: tuple[str, ...] = ("playouts", "mcts")
"""The steps a server's AI seats need (``scotlandyard warm-up --what ai``, and the server's
background compile at start)."""


def steps_named(names: Sequence[str] | None = None) -> list[Step]:
    """The steps called ``names`` (all of them for None), in :data:`STEPS`' order; an unknown
    name raises ``ValueError`` naming the known ones."""
    if names is None:
        return list(STEPS)
    known = {s.name for s in STEPS}
    bad = [n for n in names if n not in known]
    if bad:
        raise ValueError(f"unknown warm-up step(s) {', '.join(bad)} (steps: "
                         f"{', '.join(s.name for s in STEPS)})")
    return [s for s in STEPS if s.name in names]


def warm_up(names: Sequence[str] | None = None, *, fast: bool = True,
            on_step: Callable[[Step, float | None], None] | None = None
            ) -> list[tuple[str, float]]:
    """Run the steps ``names`` (all for None) on the compiled kernel (``fast``; the
    pure-Python one without numba); returns each step's name and seconds. ``on_step(step,
    None)`` is called before a step, ``on_step(step, seconds)`` after it (a progress bar)."""
    out = []
    for step in steps_named(names):
        if on_step is not None:
            on_step(step, None)
        t0 = time.perf_counter()
        step.run(fast)
        took = time.perf_counter() - t0
        out.append((step.name, took))
        if on_step is not None:
            on_step(step, took)
    return out


def warm_up_in_background(names: Sequence[str] = AI_STEPS) -> object:
    """Start :func:`warm_up` of ``names`` in a background thread
    (:func:`scotlandyard.kernel.fast.compile_in_background`): until it ends the other threads'
    searches run on the pure-Python kernel at a budget that answers in their usual time
    (:func:`scotlandyard.ai.mcts.while_compiling`). Steps it already ran in this process are
    not run again. Returns the thread."""
    from .kernel.fast import compile_in_background

    def work() -> None:
        todo = [n for n in names if n not in _warmed]
        warm_up(todo)
        _warmed.update(todo)

    return compile_in_background(work, name="ai-warm-up")


_warmed: set[str] = set()
"""The steps :func:`warm_up_in_background` finished in this process (a second call for them,
a server's worker asked again, compiles nothing)."""


__all__ = ["AI_STEPS", "STEPS", "Step", "steps_named", "warm_up", "warm_up_in_background"]
