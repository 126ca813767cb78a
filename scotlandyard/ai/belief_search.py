"""The detectives' use of the belief: a model of Mr X's play that weights his possible stations,
and an exact search over the possible stations for the critical moments.

- :func:`policy_weights`: the posterior over ``view.possible`` when Mr X is modelled as
  choosing, for the ticket the log shows, his destination by a softmax over the distance to
  the nearest detective or police piece (MCD-softmax, inverse temperature ``beta``; ``beta =
  0`` is "every destination of that ticket equally likely"). It replays the public history
  (where the pieces then stood, the tickets, the reveals) and so uses nothing a detective
  does not know. Each path of Mr X consistent with the public facts gets the product of its
  steps' probabilities: path counts weighted by the policy.
- :func:`best_cover`: the joint move of the pieces still to move this round that catches Mr X
  with the highest probability under given station weights (an exact depth-first search with
  a bound; at most a few thousand joint moves in practice).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from ..belief import _replay
from ..board import Board, iter_bits, london
from ..move import Move
from ..view import PlayerView

BLACK = 3


def _targets(board: Board, at: int, t: int, occ: int) -> list[int]:
    row = board.masks[4] if t == BLACK else board.masks[t]
    return iter_bits(row[at] & ~occ)


def _score(rows: Sequence[Sequence[int]], v: int, beta: float) -> float:
    """exp(beta * distance from ``v`` to the nearest piece), distances capped at 10."""
    md = min((r[v] for r in rows), default=10)
    return math.exp(beta * min(md, 10))


def policy_weights(view: PlayerView, beta: float = 1.0) -> dict[int, float]:
    """Probability of each station of ``view.possible`` under the MCD-softmax model of Mr X
    (see the module doc); sums to 1. Falls back to uniform over ``view.possible`` if the
    model gives every possible station zero weight."""
    board = london(view.rules.board)
    w: dict[int, float] = {s: 1.0 for s in view.start_candidates}
    for kind, data in _replay(view):
        if kind == "land":
            w.pop(data, None)  # type: ignore[call-overload]
            continue
        ev = data
        hunters = iter_bits(ev.occ)  # type: ignore[attr-defined]
        rows = [board.distance_row(h) for h in hunters]

        for t, station, reveal in ev.steps:  # type: ignore[attr-defined]
            if reveal:
                w = {station: 1.0}
                continue
            out: dict[int, float] = {}
            for u, p in w.items():
                dests = _targets(board, u, int(t), ev.occ)  # type: ignore[attr-defined]
                if not dests:
                    continue
                sc = [_score(rows, v, beta) for v in dests]
                z = sum(sc)
                for v, x in zip(dests, sc, strict=True):
                    out[v] = out.get(v, 0.0) + p * x / z
            w = out
    return on_possible(view, w)


def on_possible(view: PlayerView, w: Mapping[int, float]) -> dict[int, float]:
    """The weights ``w`` of Mr X's path ends restricted to ``view.possible`` and normalized
    (sums to 1); uniform over ``view.possible`` if none of them has weight."""
    got = {s: w.get(s, 0.0) for s in view.possible}
    total = sum(got.values())
    if total <= 0:
        return {s: 1.0 / len(view.possible) for s in view.possible} if view.possible else {}
    return {s: x / total for s, x in got.items()}


def _piece_moves(view: PlayerView, piece: str, board: Board) -> list[int]:
    """Stations ``piece`` may move to with the tickets it holds (other pieces ignored)."""
    tk = view.tickets[piece]
    out: set[int] = set()
    for t, name in enumerate(("taxi", "bus", "underground")):
        left = tk.get(name)
        if left is None or left > 0:
            out.update(board.neighbours[t][view.stations[piece]])
    return sorted(out)


def best_cover(view: PlayerView, weights: Mapping[int, float],
               legal: Sequence[Move]) -> tuple[float, Move | None]:
    """The probability of catching Mr X this round with the best joint move of the pieces
    still to move (each station counted once, weights by ``weights``), and the move of the
    legal moves that starts that joint move (``None`` if no joint move covers anything).

    In the fixed order the piece to move plays its part first; in free order the part with
    the heaviest station. Pieces may not share a station, and a piece moved this round is not
    in the way of a later one only if it left: the stations of the pieces that do not move
    stay blocked."""
    board = london(view.rules.board)
    pieces = [p for p in view.pieces_to_move if p in view.stations]
    if not pieces:
        return 0.0, None
    still = {view.stations[p] for p in view.rules.hunters if p not in pieces}
    options: list[list[int]] = []
    for p in pieces:
        moves = [s for s in _piece_moves(view, p, board) if s not in still]
        options.append(moves)
    best: list[Any] = [0.0, [0] * len(pieces)]  # best probability, its plan
    total = sum(weights.values())
    plan = [0] * len(pieces)

    def dfs(i: int, used: set[int], got: float) -> None:
        if got > best[0] + 1e-12:
            best[0] = got
            best[1] = plan[:i] + [0] * (len(pieces) - i)
        if i == len(pieces) or got >= total - 1e-12:
            return
        # bound: what the remaining pieces could add at most
        rest = 0.0
        for k in range(i, len(pieces)):
            rest += max((weights.get(s, 0.0) for s in options[k] if s not in used), default=0.0)
        if got + rest <= best[0] + 1e-12:
            return
        for s in options[i]:
            if s in used:
                continue
            plan[i] = s
            used.add(s)
            dfs(i + 1, used, got + weights.get(s, 0.0))
            used.discard(s)
        plan[i] = 0
        dfs(i + 1, used, got)  # this piece covers nothing (moves anywhere)

    dfs(0, set(), 0.0)
    prob, chosen = best[0], best[1]
    if prob <= 0:
        return 0.0, None
    assert isinstance(chosen, list)
    if view.rules.free_order:
        order = sorted(range(len(pieces)), key=lambda k: -weights.get(chosen[k], 0.0))
    else:
        order = [0]
    for k in order:
        target = chosen[k]
        if not target or weights.get(target, 0.0) <= 0:
            continue
        for m in legal:
            if m.to == target and not m.is_pass and (m.piece or view.to_move) == pieces[k]:
                return prob, m
    return prob, None
