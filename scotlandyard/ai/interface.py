"""The one agent interface for both sides: the :class:`Agent` protocol and the :class:`Budget`
of one move. It imports nothing of the registry (:mod:`.base`) or the envs, so both may use it:
``env.policy`` implements the protocol, ``ai.base`` registers agents, and neither imports the
other back."""

from __future__ import annotations

import contextlib
import random
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from ..move import Move
from ..view import PlayerView

_STOP = threading.local()


def stop_requested() -> bool:
    """Whether whoever asked for the move being searched in this thread no longer wants it
    (:func:`stop_when`): a time-bound search checks this between its kernel calls (every
    20 ms or so) and ends early with the best move found so far."""
    check: Callable[[], bool] | None = getattr(_STOP, "check", None)
    return check is not None and check()


@contextlib.contextmanager
def stop_when(check: Callable[[], bool]) -> Iterator[None]:
    """Within the block, searches in this thread stop as soon as ``check()`` is true (a
    cancelled AI move: the server's ``thinker`` sets a flag that ``check`` reads)."""
    before = getattr(_STOP, "check", None)
    _STOP.check = check
    try:
        yield
    finally:
        _STOP.check = before


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
