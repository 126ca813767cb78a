"""Lookahead baselines from Nijssen & Winands (2012), section VIII.

- :class:`ParanoidAgent` (Mr X): paranoid alpha-beta search. Mr X maximizes, every detective
  and police piece minimizes, all as if they knew where he is. Leaves are scored
  ``100 * (distance to the nearest detective) + 10 * (black tickets left) + (number of possible
  locations) + noise`` (noise uniform in [0, ``noise``) breaks ties). Iterative deepening over
  plies up to ``depth`` (default: one round, Mr X and every hunter once) within the budget.
- :class:`ExpectimaxAgent` (detectives): for each move of the piece to move (in free order,
  of every piece that may move), the expected value over Mr X's possible locations of Mr X's
  best reply (by the same evaluation), with the other detectives standing still; the
  detectives take the move of lowest expectation (ties: the moving piece's total distance to
  the possible locations). Mr X's replies are his single moves.
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence

from ..board import iter_bits, london
from ..game import Game
from ..kernel.fast import game_moves
from ..move import MR_X, Move, Ticket
from ..view import PlayerView
from .base import Budget
from .categorization import resolve_weights
from .heuristics import best_by, check_side, mr_x_candidates, require_view

WIN = 1_000_000.0


class _OutOfBudget(Exception):
    pass


def evaluate(game: Game, noise: float = 0.0) -> float:
    """The paper's evaluation of a position for Mr X (larger is better for him); a won game is
    +-WIN (a capture later in the search scores a little better for Mr X)."""
    out = game.outcome()
    if out is not None:
        return WIN if out.winner == "mr_x" else -WIN + game.ply
    board = game.board
    x = game.station(MR_X)
    md = min(board.distance_row(game.station(p))[x] for p in game.rules.hunters)
    black = game.tickets(MR_X)[Ticket.BLACK] or 0
    return 100 * md + 10 * black + game.possible_bits.bit_count() + noise


class ParanoidAgent:
    """Mr X by paranoid alpha-beta. ``Budget(playouts=n)`` caps the nodes searched,
    ``Budget(seconds=s)`` the time; ``Budget()`` means ``nodes`` (default 20000)."""

    name = "alphabeta"

    def __init__(self, side: str | None = None, depth: int | None = None, nodes: int = 20000,
                 noise: float = 0.5, move_filter: bool = True) -> None:
        check_side(self.name, side, "mr_x")
        if depth is not None and (not isinstance(depth, int) or depth < 1):
            raise ValueError(f"depth is a whole number >= 1, not {depth!r}")
        if not isinstance(nodes, int) or nodes < 1:
            raise ValueError(f"nodes is a whole number >= 1, not {nodes!r}")
        if not 0 <= noise:
            raise ValueError(f"noise is >= 0, not {noise!r}")
        self.depth = depth
        self.nodes = nodes
        self.noise = float(noise)
        self.move_filter = bool(move_filter)
        self.last_depth = 0
        self.last_nodes = 0

    def choose(self, view: PlayerView, legal: Sequence[Move], rng: random.Random,
               budget: Budget) -> Move:
        """The move of the deepest completed search."""
        view, cands = mr_x_candidates(view, legal, self.move_filter)
        if len(cands) == 1 or cands[0].is_take:
            return cands[rng.randrange(len(cands))]
        max_nodes = budget.playouts if budget.playouts is not None else (
            None if budget.seconds is not None else self.nodes)
        deadline = time.perf_counter() + budget.seconds if budget.seconds is not None else None
        game = Game.from_view(view)
        depth_cap = self.depth or (1 + len(view.rules.hunters))
        noise_rng = random.Random(rng.getrandbits(32))
        count = [0]

        def tick() -> None:
            count[0] += 1
            if max_nodes is not None and count[0] > max_nodes:
                raise _OutOfBudget
            if deadline is not None and count[0] % 64 == 0 and time.perf_counter() > deadline:
                raise _OutOfBudget

        def children(g: Game) -> list[Move]:
            if g.to_move == MR_X:
                if g.ply == 0:
                    return list(cands)
                return game_moves(g, move_filter=self.move_filter)
            piece = g.to_move
            ms = [m for m in g.legal_moves() if (m.piece or piece) == piece]
            # closest to Mr X first: better cut-offs
            row = g.board.distance_row(g.station(MR_X))
            ms.sort(key=lambda m: row[m.to] if m.to is not None else 99)
            return ms

        def search(g: Game, depth: int, alpha: float, beta: float) -> float:
            tick()
            if depth == 0 or g.is_over():
                return evaluate(g, noise_rng.random() * self.noise)
            if g.to_move == MR_X:
                best = -float("inf")
                for m in children(g):
                    g.push(m)
                    v = search(g, depth - 1, alpha, beta)
                    g.pop()
                    if v > best:
                        best = v
                    alpha = max(alpha, v)
                    if alpha >= beta:
                        break
                return best
            best = float("inf")
            for m in children(g):
                g.push(m)
                v = search(g, depth - 1, alpha, beta)
                g.pop()
                if v < best:
                    best = v
                beta = min(beta, v)
                if alpha >= beta:
                    break
            return best

        order = list(cands)
        best_move = order[0]
        self.last_depth = 0
        try:
            for depth in range(1, depth_cap + 1):
                values = []
                alpha = -float("inf")
                for m in order:
                    game.push(m)
                    v = search(game, depth - 1, alpha, float("inf"))
                    game.pop()
                    values.append(v)
                    alpha = max(alpha, v)
                best_move = best_by(order, values, rng, highest=True)
                self.last_depth = depth
                # next depth: best first (better cut-offs)
                ranked = sorted(zip(values, range(len(order)), strict=True), key=lambda x: -x[0])
                order = [order[i] for _, i in ranked]
        except _OutOfBudget:
            pass
        self.last_nodes = count[0]
        return best_move


class ExpectimaxAgent:
    """Detectives by expectimax over Mr X's possible locations (the others stand still).
    ``weights``: ``"uniform"`` or ``"categorization"`` (the learned table).
    ``Budget(playouts=n)`` caps the possible locations considered (a random sample)."""

    name = "expectimax"

    def __init__(self, side: str | None = None, weights: str = "uniform") -> None:
        check_side(self.name, side, "detectives")
        if weights not in ("uniform", "categorization"):
            raise ValueError(f"weights is 'uniform' or 'categorization', not {weights!r}")
        self.weights = weights
        self.last_locations = 0

    def choose(self, view: PlayerView, legal: Sequence[Move], rng: random.Random,
               budget: Budget) -> Move:
        """The move of lowest expected value for Mr X."""
        view = require_view(view, "detectives")
        if not legal:
            raise ValueError("no legal move to choose from")
        if len(legal) == 1:
            return legal[0]
        board = london(view.rules.board)
        locs = sorted(view.possible)
        if budget.playouts is not None and len(locs) > budget.playouts:
            locs = sorted(rng.sample(locs, budget.playouts))
        self.last_locations = len(locs)
        if self.weights == "categorization":
            table = resolve_weights(None).location_weights(view)
            w = [table[s] for s in locs]
        else:
            w = [1.0] * len(locs)
        total_w = sum(w)
        xt = view.tickets[MR_X]
        unlimited = xt.get("taxi") is None
        have = [unlimited or (xt.get(n) or 0) > 0 for n in ("taxi", "bus", "underground")]
        black = xt.get("black") or 0
        possible_bits = 0
        for s in view.possible:
            possible_bits |= 1 << s
        stations = dict(view.stations)
        deadline = time.perf_counter() + budget.seconds if budget.seconds is not None else None
        scores: list[tuple[float, int]] = []
        inf = (float("inf"), 0)
        for m in legal:
            if deadline is not None and scores and time.perf_counter() > deadline:
                scores.append(inf)
                continue
            hunters = dict(stations)
            if m.to is not None:
                hunters[m.piece or view.to_move or ""] = m.to
            occ = 0
            for s in hunters.values():
                occ |= 1 << s
            rows = [board.distance_row(s) for s in hunters.values()]
            belief = possible_bits & ~occ
            after = [board.expand(belief, t) & ~occ for t in (0, 1, 2, 4)]
            sizes = [b.bit_count() for b in after]
            exp = 0.0
            for loc, wt in zip(locs, w, strict=True):
                if (occ >> loc) & 1:
                    exp += wt * -WIN  # caught
                    continue
                best = -WIN  # cornered unless he has a move
                for k, t in enumerate((0, 1, 2)):
                    if not have[t]:
                        continue
                    for d in board.neighbours[t][loc]:
                        if not (occ >> d) & 1:
                            v = 100 * min(r[d] for r in rows) + 10 * black + sizes[k]
                            best = max(best, v)
                if black:
                    for d in iter_bits(board.masks[4][loc] & ~occ):
                        v = 100 * min(r[d] for r in rows) + 10 * (black - 1) + sizes[3]
                        best = max(best, v)
                exp += wt * best
            # ties (a far detective changes no reply): the moving piece's total distance to
            # the possible locations
            mover = 0 if m.to is None else sum(int(board.distance_row(m.to)[s]) for s in locs)
            scores.append((exp / total_w, mover))
        return best_by(legal, scores, rng, highest=False)
