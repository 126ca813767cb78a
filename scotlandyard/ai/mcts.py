"""Monte Carlo tree search for both sides, after Nijssen & Winands, "Monte Carlo Tree Search for
the Hide-and-Seek Game Scotland Yard", IEEE TCIAIG 4(4), 2012 (and Nijssen's PhD thesis,
Maastricht 2013, chapter 7). Every technique is a switch; the defaults are the paper's.

- **Selection**: UCT, ``c = 0.5``, plus **progressive history** (``history_weight`` W = 5):
  a child's score is ``v + c*sqrt(ln n_p / n_i) + h_a * W / ((1 - v) n_i + 1)`` where ``h_a``
  is the average result of move ``a`` in the moving player's history table. The tables (one
  per player: Mr X and every detective or police piece) hold every move of every iteration,
  tree and playout (``history_playouts``), and start empty for every real move.
- **Single-tree determinization** (detectives' search): each iteration draws Mr X's station
  from the view's possible locations (by location categorization or uniformly). Mr X's moves
  in the tree are the union over all possible locations; an iteration only follows those
  legal for its drawn station. Mr X's own search knows his station.
- **Playouts**: epsilon-greedy. Mr X plays MCD (maximize the distance to the closest detective)
  with ``epsilon_mr_x = 0.1``; the detectives play CAL (a move towards Mr X's station in the
  determinization, ``cal_target="actual"``) with ``epsilon_detectives = 0.2``.
- **Location categorization** (``categorization=True``): the draw of Mr X's station uses the
  learned general table of :mod:`.categorization` (minimum-distance categories, one-step
  roulette).
- **Coalition reduction** (``coalition_reduction = 0.1``): a detective scores 1 when it catches
  Mr X itself and 1 - r when another detective or police piece does; each detective (and each
  police piece) is a player of its own in the tree.
- **Move filtering** (``move_filter=True``): Mr X uses no black ticket in rounds 1-2, on a
  reveal slot, or when every possible location has taxi links only; a double move only when
  every single move lands where a detective can move next round.
- Results are 1 for a win and 0 for a loss; the move played is the root child with the most
  visits.

The search runs in :mod:`._kernel`, compiled by numba (``fast=True``) or as plain Python
(``fast=False``, and automatically without numba); both give the same move for the same seed.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..game import Game
from ..move import Move
from ..view import PlayerView
from . import _kernel as K
from .base import Budget
from .categorization import CategoryWeights, resolve_weights
from .fast import (
    Kernel,
    PlayoutPolicy,
    _params,
    _scratch,
    _seed32,
    board_table,
    decode,
    encode,
    kernel,
    max_plies,
    rules_table,
    state_of_game,
)

DEFAULT_PLAYOUTS = 1000


@dataclass(frozen=True)
class MCTSOptions:
    """Every switch of the search, with the paper's defaults (see the module doc)."""

    c: float = 0.5
    progressive_history: bool = True
    history_weight: float = 5.0
    history_playouts: bool = True
    coalition_reduction: float = 0.1
    epsilon_mr_x: float = 0.1
    epsilon_detectives: float = 0.2
    cal_target: str = "actual"
    move_filter: bool = True
    categorization: bool = True
    categorization_weights: CategoryWeights | str | Path | Mapping[str, Any] | None = None
    fast: bool = True
    playouts: int = DEFAULT_PLAYOUTS

    def __post_init__(self) -> None:
        def num(name: str, lo: float, hi: float | None = None) -> None:
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int | float) or not (
                    v >= lo and (hi is None or v <= hi)) or math.isnan(v):
                rng = f"{lo}..{hi}" if hi is not None else f">= {lo}"
                raise ValueError(f"MCTS option {name} is a number {rng}, not {v!r}")

        num("c", 0.0)
        num("history_weight", 0.0)
        num("coalition_reduction", 0.0, 1.0)
        num("epsilon_mr_x", 0.0, 1.0)
        num("epsilon_detectives", 0.0, 1.0)
        for name in ("progressive_history", "history_playouts", "move_filter",
                     "categorization", "fast"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"MCTS option {name} is true or false")
        if self.cal_target not in ("actual", "possible"):
            raise ValueError(f"MCTS option cal_target is 'actual' or 'possible', not "
                             f"{self.cal_target!r}")
        if isinstance(self.playouts, bool) or not isinstance(self.playouts, int) or self.playouts < 1:
            raise ValueError(f"MCTS option playouts is a whole number >= 1, not {self.playouts!r}")

    @property
    def policy(self) -> PlayoutPolicy:
        """The playout policy these options describe."""
        return PlayoutPolicy(self.epsilon_mr_x, self.epsilon_detectives, self.cal_target,
                             self.move_filter)


OPTION_NAMES = tuple(f for f in MCTSOptions.__dataclass_fields__)


@dataclass(frozen=True)
class ChildStats:
    """One root child after a search: the move, its visits and its mean result (for the piece
    that makes the move)."""

    move: Move
    visits: int
    value: float


class MCTSSearch:
    """One search from one view: build it, :meth:`run` iterations, read :meth:`best_move`.

    The search only knows ``view``; for the detectives it draws Mr X's station from
    ``view.possible`` each iteration. ``root_moves`` limits the root to those moves (an agent
    passes its legal moves: a caller may offer a subset, e.g. one seat's piece in free order).
    """

    def __init__(self, view: PlayerView, options: MCTSOptions | None = None, seed: int = 0,
                 *, weights: Mapping[int, float] | None = None,
                 root_moves: Sequence[Move] | None = None) -> None:
        if not isinstance(view, PlayerView):
            raise TypeError(f"a search starts from a PlayerView, not {type(view).__name__}")
        if view.outcome is not None:
            raise ValueError("the game in this view is over")
        if not view.my_turn:
            raise ValueError(f"it is not {view.viewer}'s side's turn in this view")
        self.options = opts = options or MCTSOptions()
        self.view = view
        self.rules = rules = view.rules
        kern: Kernel = kernel(opts.fast)
        self.kern = kern
        if view.side == "mr_x":
            game = Game.from_view(view)
            locs = [view.mr_x_station]
            w = [1.0]
            sample = False
        else:
            locs = sorted(view.possible)
            if weights is not None:
                table = dict(weights)
            elif opts.categorization:
                table = resolve_weights(opts.categorization_weights).location_weights(view)
            else:
                table = {s: 1.0 for s in locs}
            w = [float(table.get(s, 0.0)) for s in locs]
            if not any(x > 0 for x in w):
                w = [1.0] * len(locs)
            game = Game.from_view(view, mr_x=locs[0])
            sample = True
        self.locations: tuple[int, ...] = tuple(locs)  # type: ignore[arg-type]
        self.location_weights: tuple[float, ...] = tuple(w)
        cum, acc = [], 0.0
        for x in w:
            acc += x
            cum.append(acc)
        self._root = kern.ints(state_of_game(game, view.pending_take))
        self._work = kern.ints(K.ST_LEN)
        self._ru = kern.const(rules_table(rules))
        self._bd = kern.const(board_table(rules.board))
        self._pa, self._pf = _params(
            kern, opts.policy, opts.c, opts.history_weight, opts.coalition_reduction,
            opts.progressive_history, opts.history_playouts, sample, len(locs))
        self._locs = kern.ints(locs)  # type: ignore[arg-type]
        self._cum = kern.floats(cum)
        mover = view.to_move or ""
        allowed = sorted({encode(m, mover, rules) for m in root_moves or ()})
        self._ra = kern.ints(allowed or [0])
        self._pf[K.PF_NROOT] = len(allowed)
        self._rng = kern.ints([_seed32(seed)])
        self._buf = kern.ints(K.BUF_LEN)
        self._sc = _scratch(kern)
        self._path = kern.ints(max_plies(rules) + 8)
        self._imv = kern.ints(max_plies(rules) + 8)
        self._hs = kern.floats(K.H_LEN)
        self._hc = kern.ints(K.H_LEN)
        self._mt = kern.ints(K.MT_LEN)
        self._tr = kern.ints(0)
        self._tv = kern.floats(0)
        self._ensure(1)
        self._tr[K.TR_MOVE] = 0
        self._tr[K.TR_PARENT] = -1
        self._tr[K.TR_CHILD] = -1
        self._tr[K.TR_SIB] = -1
        self._tr[K.TR_VIS] = 0
        self._mt[K.MT_NODES] = 1
        self.seconds = 0.0

    # ---- running ---------------------------------------------------------------------------
    def _ensure(self, nodes: int) -> None:
        if len(self._tv) >= nodes:
            return
        size = max(nodes, 2 * len(self._tv), 64)
        self._tr = self.kern.grow(self._tr, size * K.TR_W, -1)
        self._tv = self.kern.grow(self._tv, size, 0.0)

    def run(self, iterations: int) -> None:
        """Run ``iterations`` more iterations."""
        if iterations <= 0:
            return
        self._ensure(int(self._mt[K.MT_NODES]) + iterations + 1)
        t0 = time.perf_counter()
        self.kern.mcts_iterate(iterations, self._root, self._work, self._ru, self._bd, self._tr,
                               self._tv, self._mt, self._hs, self._hc, self._pa, self._pf,
                               self._locs, self._cum, self._ra, self._rng, self._buf, self._sc,
                               self._path, self._imv)
        self.seconds += time.perf_counter() - t0

    def run_budget(self, budget: Budget, default_playouts: int | None = None) -> None:
        """Run until the budget is spent: ``budget.playouts`` iterations and/or
        ``budget.seconds`` (whichever ends first); ``Budget()`` means the default playouts."""
        limit = budget.playouts
        if limit is None and budget.seconds is None:
            limit = default_playouts or self.options.playouts
        if budget.seconds is None:
            self.run(limit)  # type: ignore[arg-type]
            return
        deadline = time.perf_counter() + budget.seconds
        chunk = 8
        while True:
            left = deadline - time.perf_counter()
            if left <= 0:
                break
            n = chunk
            if limit is not None:
                n = min(n, limit - self.iterations)
                if n <= 0:
                    break
            t0 = time.perf_counter()
            self.run(n)
            per = (time.perf_counter() - t0) / n
            # about 20 ms per call, never past the deadline by more than one call
            chunk = max(1, min(int(0.02 / max(per, 1e-7)), int(max(left, 0) / max(per, 1e-7)) + 1))

    # ---- results -----------------------------------------------------------------------------
    @property
    def iterations(self) -> int:
        """Iterations run so far."""
        return int(self._mt[K.MT_ITERS])

    @property
    def nodes(self) -> int:
        """Nodes in the tree (the root included)."""
        return int(self._mt[K.MT_NODES])

    @property
    def playout_plies(self) -> int:
        """Moves played in playouts so far."""
        return int(self._mt[K.MT_PLIES])

    def node_children(self, node: int = 0) -> list[tuple[int, int, int, float]]:
        """(child node, move code, visits, value sum) of each child of ``node``."""
        tr, tv = self._tr, self._tv
        out = []
        ch = int(tr[node * K.TR_W + K.TR_CHILD])
        while ch != -1:
            out.append((ch, int(tr[ch * K.TR_W + K.TR_MOVE]), int(tr[ch * K.TR_W + K.TR_VIS]),
                        float(tv[ch])))
            ch = int(tr[ch * K.TR_W + K.TR_SIB])
        return out

    def root_children(self) -> list[ChildStats]:
        """The root's children, most visited first."""
        out = [ChildStats(decode(code, self.rules), vis, (val / vis) if vis else 0.0)
               for _, code, vis, val in self.node_children(0)]
        out.sort(key=lambda c: (-c.visits, -c.value))
        return out

    def best_move(self) -> Move:
        """The most visited root child (ties: the higher mean result)."""
        kids = self.root_children()
        if not kids:
            raise RuntimeError("no iteration has been run")
        return kids[0].move

    def history(self, piece: str, move: Move) -> tuple[float, int]:
        """(sum of results, count) of ``move`` by ``piece`` in the progressive-history table."""
        key = K.hkey(encode(move, piece, self.rules))
        return float(self._hs[key]), int(self._hc[key])

    def history_total(self) -> int:
        """Number of entries added to the history tables in this search."""
        return int(sum(self._hc)) if not self.kern.fast else int(self._hc.sum())


class MCTSAgent:
    """The MCTS player of either side (options: :class:`MCTSOptions`; exact names in
    :data:`OPTION_NAMES`). ``Budget(playouts=n)`` is n iterations; ``Budget(seconds=s)`` a time
    limit; ``Budget()`` the ``playouts`` option (1000)."""

    name = "mcts"

    def __init__(self, side: str | None = None, **options: Any) -> None:
        if side not in (None, "mr_x", "detectives"):
            raise ValueError(f"side is 'mr_x' or 'detectives', not {side!r}")
        unknown = set(options) - set(OPTION_NAMES)
        if unknown:
            raise ValueError(f"unknown MCTS option(s) {', '.join(sorted(unknown))} "
                             f"(options: {', '.join(OPTION_NAMES)})")
        self.side = side
        self.options = MCTSOptions(**options)
        if self.options.categorization:
            resolve_weights(self.options.categorization_weights)  # fail early on a bad table
        self.last_search: MCTSSearch | None = None

    def choose(self, view: PlayerView, legal: Sequence[Move], rng: random.Random,
               budget: Budget) -> Move:
        """Search from ``view`` within ``budget`` and return the chosen legal move."""
        if not isinstance(view, PlayerView):
            raise TypeError(f"agents get a PlayerView (game.view(piece)), not {type(view).__name__}")
        if not legal:
            raise ValueError("no legal move to choose from")
        if self.side is not None and view.side != self.side:
            raise ValueError(f"this agent plays {self.side}, the view is {view.side}'s")
        seed = rng.getrandbits(32)
        if len(legal) == 1:
            self.last_search = None
            return legal[0]
        search = MCTSSearch(view, self.options, seed, root_moves=legal)
        search.run_budget(budget)
        self.last_search = search
        move = search.best_move()
        if move not in legal:
            raise RuntimeError(f"MCTS chose {move}, which is not among the legal moves")
        return move

    def __repr__(self) -> str:
        return f"MCTSAgent(side={self.side!r}, {self.options})"

