"""Computer analysis of a finished game (like lichess's "request a computer analysis").

For every position of the game (before the first move, after each move) two estimates of Mr X's
chance to stay free to the end, each from what one side knew then:

* **Mr X's** (``mr_x``), from the truth: playouts of the kernel from his real station;
* **the detectives'** (``detectives``), from their view: playouts from the stations he may be
  on, each weighted by the detectives' probability map (``belief.probability_map``, "paths"),
  the most likely ones covering 95% of the weight (at most 16 stations).

The playouts are the MCTS playouts (``kernel.fast.playouts_per_run``: epsilon-greedy MCD for
Mr X, epsilon-greedy CAL for the detectives chasing a hypothesis among the stations he may be
on, not his true one); every position gets the same number and the same random numbers, so
that neighbouring estimates differ by the move, not by the noise.

At every move the computer plays the mover's side too (``best``: a fixed-budget search of
``level``, 1,000 playouts, from the mover's view). A move's **loss** is what it cost its own side
against that move, by its own side's estimate after each: for Mr X, how much lower his estimate
is after his move than after the computer's; for a detective, how much higher the detectives'
estimate of his freedom is (0 where the computer plays the same move). Labelled as lichess does
by the loss in chance points: **inaccuracy** >= 0.10, **mistake** >= 0.20, **blunder** >= 0.30
(:data:`THRESHOLDS`); the computer's move is kept with its station, for an arrow.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from ..belief import probability_map
from ..game import Game
from ..kernel.fast import PlayoutPolicy, playouts_per_run
from ..move import MR_X, Move
from . import agents as _agents  # noqa: F401  (registers the levels)
from .base import Budget, make_agent

__all__ = ["THRESHOLDS", "GameReview", "PlyReview", "label_for", "review"]

#: loss (in chance points, 0..1) from which a move gets each label, the largest first
THRESHOLDS: tuple[tuple[str, float], ...] = (("blunder", 0.30), ("mistake", 0.20),
                                             ("inaccuracy", 0.10))

_POLICY = PlayoutPolicy(cal_target="hypothesis")


def label_for(loss: float) -> str | None:
    """The label of a move that cost its side ``loss`` (``None`` below an inaccuracy)."""
    for name, at in THRESHOLDS:
        if loss >= at:
            return name
    return None


@dataclass(frozen=True)
class PlyReview:
    """One move of the game: who played it, both estimates before and after, its loss for its
    own side, its label, and the computer's move there (``best``, with its station and the
    mover's station before, for an arrow) where it is labelled."""

    ply: int
    round: int
    piece: str
    move: str
    mr_x_before: float
    mr_x_after: float
    detectives_before: float
    detectives_after: float
    loss: float
    label: str | None
    start: int
    to: int | None
    best: str | None = None
    best_to: int | None = None
    best_estimate: float | None = None


@dataclass(frozen=True)
class GameReview:
    """The analysis of a game: the estimates at every position (``mr_x[k]``, ``detectives[k]``
    after ``k`` moves), every move's review, the labelled moves by loss, and how it was made."""

    mr_x: list[float]
    detectives: list[float]
    plies: list[PlyReview]
    moments: list[int] = field(default_factory=list)
    playouts: int = 0
    level: str = ""
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        """JSON for the web page and ``scotlandyard analyse --json``."""
        return {"mr_x": [round(v, 4) for v in self.mr_x],
                "detectives": [round(v, 4) for v in self.detectives],
                "plies": [asdict(p) for p in self.plies], "moments": list(self.moments),
                "playouts": self.playouts, "level": self.level,
                "seconds": round(self.seconds, 2),
                "thresholds": {name: at for name, at in THRESHOLDS}}


def _ended(game: Game) -> float | None:
    out = game.outcome()
    if out is None:
        return None
    return 1.0 if out.winner == "mr_x" else 0.0


def mr_x_estimate(game: Game, playouts: int, seed: int) -> float:
    """Mr X's chance to stay free from the truth of ``game``."""
    done = _ended(game)
    if done is not None:
        return done
    wins, _ = playouts_per_run(game, playouts, seed, policy=_POLICY)
    return wins / playouts


def detectives_estimate(game: Game, playouts: int, seed: int) -> float:
    """The detectives' estimate of Mr X's chance to stay free, from their view of ``game``."""
    done = _ended(game)
    if done is not None:
        return done
    view = game.view(game.rules.hunters[0])
    weights = sorted(probability_map(view, "paths").items(), key=lambda kv: -kv[1])
    kept: list[tuple[int, float]] = []
    mass = 0.0
    for s, w in weights:
        kept.append((s, w))
        mass += w
        if mass >= 0.95 or len(kept) >= 16:
            break
    total = sum(w for _, w in kept)
    est = 0.0
    for s, w in kept:
        n = max(8, round(playouts * w / total))
        world = Game.from_view(view, mr_x=s)
        wins, _ = playouts_per_run(world, n, seed, policy=_POLICY)
        est += (w / total) * wins / n
    return est


def review(game: Game, *, playouts: int = 400, level: str = "mcts",
           budget: Budget | None = None, seed: int = 1,
           progress: Callable[[int, int], None] | None = None) -> GameReview:
    """Analyse ``game`` (its true history: a finished game, or a record with Mr X's moves).
    ``playouts`` per estimate; ``level`` and ``budget`` (default 1,000 playouts) for the
    computer's move at each ply; ``progress(done, total)`` after each step."""
    if not isinstance(playouts, int) or playouts < 10:
        raise ValueError(f"playouts is a whole number >= 10, not {playouts!r}")
    t0 = time.perf_counter()
    budget = budget or Budget(playouts=1000)
    moves = list(game.moves)
    replay = Game(game.rules, dict(game.start))
    positions: list[Game] = [replay.copy()]
    for _, m in moves:
        replay.push(m)
        positions.append(replay.copy())
    total = len(positions)
    mx: list[float] = []
    dt: list[float] = []
    for k, pos in enumerate(positions):
        mx.append(mr_x_estimate(pos, playouts, seed))
        dt.append(detectives_estimate(pos, playouts, seed))
        if progress is not None:
            progress(k + 1, total + len(moves))
    plies: list[PlyReview] = []
    agents = {side: make_agent(level, side=side) for side in ("mr_x", "detectives")}
    for i, (piece, m) in enumerate(moves):
        before = positions[i]
        mine = mx if piece == MR_X else dt
        side = "mr_x" if piece == MR_X else "detectives"
        view = before.view(piece)
        choice = agents[side].choose(view, view.legal_moves, random.Random(seed + i), budget)
        best = best_to = None
        best_est: float | None = None
        loss = 0.0
        if not _same(choice, m):
            g = before.copy()
            g.push(choice)
            best_est = (mr_x_estimate(g, playouts, seed) if piece == MR_X
                        else detectives_estimate(g, playouts, seed))
            # what the move cost its side against the computer's move, by its side's estimate
            loss = max(0.0, best_est - mine[i + 1] if piece == MR_X else mine[i + 1] - best_est)
            best = str(choice)
            best_to = choice.to2 if choice.to2 is not None else choice.to
        to = m.to2 if m.to2 is not None else m.to
        plies.append(PlyReview(
            ply=i + 1, round=before.round, piece=piece, move=str(m),
            mr_x_before=mx[i], mr_x_after=mx[i + 1], detectives_before=dt[i],
            detectives_after=dt[i + 1], loss=round(loss, 4), label=label_for(loss),
            start=before.station(piece), to=to, best=best, best_to=best_to,
            best_estimate=best_est))
        if progress is not None:
            progress(total + i + 1, total + len(moves))
    moments = [p.ply for p in sorted((p for p in plies if p.label), key=lambda p: -p.loss)]
    return GameReview(mr_x=mx, detectives=dt, plies=plies, moments=moments,
                      playouts=playouts, level=level, seconds=time.perf_counter() - t0)


def _same(a: Move, b: Move) -> bool:
    return (a.kind, a.ticket, a.to, a.ticket2, a.to2) == (b.kind, b.ticket, b.to, b.ticket2, b.to2)
