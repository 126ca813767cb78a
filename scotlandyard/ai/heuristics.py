"""Baseline agents from Nijssen & Winands (2012): one-move heuristics, no search.

- :class:`MCDAgent` (Mr X): **maximize closest distance**: the move whose destination is
  farthest from the nearest detective or police piece.
- :class:`MTDAgent` (detectives): **minimize total distance**: the move that brings the moving
  piece closest, in total, to every possible location of Mr X.
- :class:`CALAgent` (detectives): **chase a location**: draw one station from the possible
  locations and move towards it.

Distances are fewest moves on the detectives' network (taxi, bus, underground). Each agent
takes ``epsilon``: the probability of a uniformly random move instead (0 by default).
They see only the :class:`~scotlandyard.view.PlayerView`.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from ..board import london
from ..kernel.fast import filter_legal
from ..move import MR_X, Move, SingleMove, Ticket
from ..view import PlayerView
from .base import Budget


def require_view(view: object, side: str | None = None) -> PlayerView:
    """``view`` if it is a :class:`PlayerView` of ``side``; agents never take a ``Game``."""
    if not isinstance(view, PlayerView):
        raise TypeError(f"agents get a PlayerView (game.view(piece)), not {type(view).__name__}")
    if side is not None and view.side != side:
        raise ValueError(f"this agent plays {side}, the view is {view.side}'s")
    return view


def check_side(name: str, side: str | None, plays: str) -> None:
    """Raise if an agent that plays only ``plays`` is asked to play ``side``."""
    if side not in (None, "mr_x", "detectives"):
        raise ValueError(f"side is 'mr_x' or 'detectives', not {side!r}")
    if side is not None and side != plays:
        raise ValueError(f"{name} plays {plays} only, not {side}")


def check_epsilon(epsilon: float) -> float:
    """``epsilon`` if it is a probability."""
    if isinstance(epsilon, bool) or not isinstance(epsilon, int | float) or not 0 <= epsilon <= 1:
        raise ValueError(f"epsilon is a probability 0..1, not {epsilon!r}")
    return float(epsilon)


def best_by(moves: Sequence[Move], score: Sequence[Any], rng: random.Random,
            *, highest: bool) -> Move:
    """The move with the best score (``highest`` or lowest; scores compare like numbers or
    tuples); ties drawn with ``rng``."""
    values = list(score)
    target = max(values) if highest else min(values)
    tied = [m for m, v in zip(moves, values, strict=True) if v == target]
    return tied[rng.randrange(len(tied))]


def _hunters(view: PlayerView) -> dict[str, int]:
    return {p: s for p, s in view.stations.items() if p != MR_X}


def mr_x_candidates(view: PlayerView, legal: Sequence[Move],
                    move_filter: bool) -> tuple[PlayerView, list[Move]]:
    """Mr X's moves worth considering: the legal moves through the paper's move filter, without
    voluntary reveals (while others remain). Checks that ``view`` is Mr X's view."""
    view = require_view(view, "mr_x")
    if not legal:
        raise ValueError("no legal move to choose from")
    cands = filter_legal(view, legal, move_filter)
    return view, [m for m in cands if not m.reveal] or cands


class MCDAgent:
    """Mr X: maximize the distance to the closest detective (ties: single before double,
    non-black before black, then random). ``move_filter`` applies the paper's move filtering
    (no wasted black tickets, double moves only in danger)."""

    name = "mcd"

    def __init__(self, side: str | None = None, epsilon: float = 0.0,
                 move_filter: bool = True) -> None:
        check_side(self.name, side, "mr_x")
        self.epsilon = check_epsilon(epsilon)
        self.move_filter = bool(move_filter)

    def choose(self, view: PlayerView, legal: Sequence[Move], rng: random.Random,
               budget: Budget) -> Move:
        """The MCD move."""
        view, cands = mr_x_candidates(view, legal, self.move_filter)
        if len(cands) == 1 or cands[0].is_take or rng.random() < self.epsilon:
            return cands[rng.randrange(len(cands))]
        board = london(view.rules.board)
        rows = [board.distance_row(s) for s in _hunters(view).values()]
        scores = []
        for m in cands:
            dest = m.destination
            assert dest is not None  # (journeys only: a pending take returned above)
            md = min(row[dest] for row in rows)
            black = any(t == Ticket.BLACK for t, _ in m.steps)
            scores.append(md * 4 + (0 if m.is_double else 2) + (0 if black else 1))
        return best_by(cands, scores, rng, highest=True)


def detective_shortcut(view: PlayerView, legal: Sequence[Move], rng: random.Random,
                       epsilon: float) -> tuple[PlayerView, Move | None]:
    """Checks that ``view`` is the detectives' and returns a move when there is no choice to
    make: the only legal move, or (with probability ``epsilon``) a random one."""
    view = require_view(view, "detectives")
    if not legal:
        raise ValueError("no legal move to choose from")
    if len(legal) == 1 or rng.random() < epsilon:
        return view, legal[rng.randrange(len(legal))]
    return view, None


class _DetectiveHeuristic:
    """The options every one-move detective heuristic takes: its side and ``epsilon``, the
    chance of a random legal move instead."""

    name = ""

    def __init__(self, side: str | None = None, epsilon: float = 0.0) -> None:
        check_side(self.name, side, "detectives")
        self.epsilon = check_epsilon(epsilon)


def _mover(view: PlayerView) -> str:
    """The piece to move in ``view`` (a detective's choice: the game goes on)."""
    if view.to_move is None:
        raise ValueError("the game in this view is over: no piece to move")
    return view.to_move


class MTDAgent(_DetectiveHeuristic):
    """Detectives: the move after which the moving piece's total distance to Mr X's possible
    locations shrinks most (in free order: over every piece that may move)."""

    name = "mtd"

    def choose(self, view: PlayerView, legal: Sequence[Move], rng: random.Random,
               budget: Budget) -> Move:
        """The MTD move."""
        view, quick = detective_shortcut(view, legal, rng, self.epsilon)
        if quick is not None:
            return quick
        board = london(view.rules.board)
        possible = sorted(view.possible)
        stations = dict(view.stations)
        total: dict[int, int] = {}

        def dist_sum(s: int) -> int:
            if s not in total:
                row = board.distance_row(s)
                total[s] = sum(row[x] for x in possible)
            return total[s]

        scores = []
        for m in legal:
            if not isinstance(m, SingleMove):  # a pass: only when nothing else is left
                scores.append(float("inf"))
                continue
            cur = stations[m.piece or _mover(view)]
            scores.append(dist_sum(m.to) - dist_sum(cur))
        return best_by(legal, scores, rng, highest=False)


class CALAgent(_DetectiveHeuristic):
    """Detectives: chase a location drawn uniformly from Mr X's possible locations (a new draw
    every move); in free order the piece that gets closest to it moves."""

    name = "cal"

    def choose(self, view: PlayerView, legal: Sequence[Move], rng: random.Random,
               budget: Budget) -> Move:
        """The CAL move."""
        view, quick = detective_shortcut(view, legal, rng, self.epsilon)
        if quick is not None:
            return quick
        board = london(view.rules.board)
        possible = sorted(view.possible)
        target = possible[rng.randrange(len(possible))]
        row = board.distance_row(target)
        stations = dict(view.stations)
        scores = []
        for m in legal:
            if not isinstance(m, SingleMove):  # a pass
                scores.append(float("inf"))
                continue
            cur = stations[m.piece or _mover(view)]
            # closest to the target first; among pieces, the biggest step towards it
            scores.append(row[m.to] * 1000 + (row[m.to] - row[cur]))
        return best_by(legal, scores, rng, highest=False)
