"""Monte Carlo tree search for both sides, after Nijssen & Winands, "Monte Carlo Tree Search for
the Hide-and-Seek Game Scotland Yard", IEEE TCIAIG 4(4), 2012 (and Nijssen's PhD thesis,
Maastricht 2013, chapter 7). Every technique is a switch; the defaults are the paper's
(:data:`NW_SETTINGS`).

- **Selection**: UCT, ``c = 0.5``, plus **progressive history** (``history_weight`` W = 5):
  a child's score is ``v + c*sqrt(ln n_p / n_i) + h_a * W / ((1 - v) n_i + 1)`` where ``h_a``
  is the average result of move ``a`` in the moving player's history table. The tables (one
  per player: Mr X and every detective or police piece) hold every move of every iteration,
  tree and playout (``history_playouts``), and start empty for every real move.
- **Single-tree determinization** (detectives' search): each iteration draws Mr X's station
  from the view's possible locations (by location categorization or uniformly). Mr X's moves
  in the tree are the union over all possible locations; an iteration only follows those
  legal for its drawn station. Mr X's own search knows his station.
- **Separate trees** (``determinization="separate"``, the paper's alternative, which it found
  weaker): the detectives' search draws ``determinizations`` stations (K, default 20) from the
  same distribution before it starts and builds one independent tree per drawn station (its own
  history tables and random stream; Mr X's station fixed in every iteration), the iteration
  budget split evenly among them (a time budget: each tree an equal share of the time left).
  The root moves' statistics are then combined: ``vote="visits"`` (default) plays the move with
  the most visits summed over the trees, ``vote="majority"`` the move most trees rank first
  (ties: summed visits). Mr X's search has nothing to determinize: it is one tree either way.
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
- **Attach rule** (``attach_double=True``): when Mr X's chosen single move lands where a
  hunter can move next and a double move is allowed, a second search (half the budget) over
  the double moves that begin with it picks the second step.
- **The hider as the searches play him** (``attach_model="playouts"``, the thesis's 7.5): the
  attach rule also wherever a playout plays Mr X (the seekers' playouts, and his own): a
  single step onto a station a hunter can reach becomes the first step of a double move
  while he has one (``FILT_ATTACH`` in :mod:`scotlandyard.kernel._kernel`; ``"search"`` also
  in the seekers' tree). **His model of the seekers** (``mr_x_model="open"``): Mr X's tree
  holds his own moves only; the detectives between them, in the tree as in the playouts,
  play MTD (``model_playouts="mtd"``: the smallest total distance to his possible
  locations), as his playouts do; ``"paranoid"`` searches their moves in his tree instead.
- Results are 1 for a win and 0 for a loss; the move played is the root child with the most
  visits.

Beyond the paper (``BEST_SETTINGS``, the ``mcts`` agent; ``nw`` is the paper's, frozen):

- ``mr_x_model="public"``: Mr X's tree holds his own moves only (open loop); the detectives'
  moves, in the tree and the playouts, are made by their ε-greedy CAL policy towards a station
  drawn from the public possible locations, never from his true station.
- ``horizon=3``: Mr X's playouts stop three of his moves after the leaf; a playout he survives
  that far is worth 1 (less ``info_weight`` times a term for a small public possible set,
  :func:`scotlandyard.kernel._kernel.leaf_value`; ``info_weight`` is 0 in the best settings).
  His value then measures the chance of capture within a horizon that deepens with the tree,
  not the survival of a myopic MCD playout to round 22: with 4 times the iterations he wins
  clearly more (docs/experiments.md). ``horizon_step`` (n > 0) lengthens the horizon by one
  move for every factor of 4 by which the move's iterations reach 4n (:func:`grown_horizon`).
- ``region_weight=0.5``: a playout stopped at the horizon is worth less by ``region_weight``
  times the room Mr X lacks there: ``1 - min(1, a / REGION_REF)``, ``a`` the stations he
  reaches before every hunter, ``REGION_REF`` 12 (:func:`scotlandyard.kernel._kernel.region_value`):
  it keeps him out of corners and two-exit pockets.
- ``model_epsilon=0.05``: in Mr X's public search the simulated detectives play CAL with this
  ε (sharper chasers than the 0.2 of the paper's playouts); the detectives' own search keeps
  ``epsilon_detectives``.
- ``belief="policy"`` (in the best settings): the detectives' determinization weights come
  from a model of Mr X's play (:func:`.belief_search.policy_weights`); ``critical=True`` (an
  option): an exact joint-move search
  over the possible locations at critical moments (:func:`.belief_search.best_cover`).
  ``belief="learned"`` (an option, off by default): the same weighting with a model of Mr X
  learned from self-play (:func:`.nets.learned_weights`, docs/ai.md "Learned parts").
- ``ticket_plan="team"``: the detectives' ticket management, at the root, for the team: while
  a teammate (not a police piece) holds tickets that let it move in every round left from
  where it stands (:func:`team_secure`), a detective plays any move; when none does, it keeps
  only the moves after which its tickets let it go on moving the most of the rounds left, up
  to every one (:func:`plan_root_moves`), except that until the last :data:`PLAN_LATE` rounds a
  move landing on or next to one of Mr X's possible locations is free (``"late"``). Against
  ``nw``'s Mr X, on the two start samples where ``mcts`` without ticket management ended 56
  of 200 games "detectives stuck" at 1,000 playouts a move and 37 at 4,000, it ends 16 and 5
  (``"late"``: 23 and 12), and at 4,000 it is stronger than ``"late"`` (289/400 against
  269/400 on four samples; docs/experiments.md, session 18). The older ``ticket_reserve``
  (an option) costs strength.
- ``attach_model="seekers"``: the hider's attach rule in the detectives' playouts (their model
  of him; Mr X's own search is unchanged), and ``keep_tree=True``: a detective's search goes on
  in the subtree a teammate's search built.

The search runs in :mod:`scotlandyard.kernel._kernel`, compiled by numba (``fast=True``) or as
plain Python (``fast=False``, and automatically without numba); both give the same move for the
same seed.
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import itertools
import math
import random
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, ClassVar

from ..belief import step_path_counts
from ..board import BoardName, london
from ..game import Game
from ..kernel import _kernel as K
from ..kernel.fast import (
    Kernel,
    PlayoutPolicy,
    _params,
    _scratch,
    _seed32,
    board_table,
    compiling,
    decode,
    encode,
    kernel,
    max_plies,
    rules_table,
    state_of_game,
)
from ..kernel.fast import warm_up as warm_up_kernel
from ..move import DoubleMove, Move, PassMove, SingleMove, Ticket
from ..rules import Rules
from ..view import PlayerView, PublicMove
from .base import Budget
from .belief_search import best_cover, policy_weights
from .categorization import ROULETTES, CategoryWeights, resolve_weights
from .interface import stop_requested
from .nets import learned_weights

DEFAULT_PLAYOUTS = 1000


DETERMINIZATION_MODES = ("single", "separate")
#: ``mr_x_model``: Mr X's search with the detectives' moves as nodes of his tree
#: (``"paranoid"``), or his own moves only, the detectives between them moved by a playout
#: policy: ``model_playouts`` (``"open"``, ``nw``), CAL towards a public possible location
#: (``"public"``, ``mcts``) or towards one public hypothesis (``"hypothesis"``).
MR_X_MODELS = ("paranoid", "public", "hypothesis", "open")
#: ``attach_model``: the attach rule where a search plays Mr X by his playout policy: nowhere
#: but his own search's choice (``"off"``), in every playout (``"playouts"``, ``nw``), in the
#: detectives' playouts only (``"seekers"``: their model of him; his own search as with
#: ``"off"``), or in the detectives' tree too (``"search"``).
ATTACH_MODELS = ("off", "playouts", "search", "seekers")
#: ``ticket_plan``: the detectives' ticket plan to the game's end (:func:`plan_root_moves`):
#: off, for every detective's move (``"all"``), only for a move that lands away from Mr X's
#: possible locations (``"far"``: a detective that lands on or next to one chases freely), or
#: as ``"far"`` but for every move once :data:`PLAN_LATE` rounds or fewer are left after it
#: (``"late"``: the last tickets kept for the last rounds), or as ``"late"`` only while no
#: teammate's tickets surely carry it to the game's end (``"team"``: the team keeps a
#: detective that can move every round left, so it seldom ends "detectives stuck", and the
#: others chase freely).
TICKET_PLANS = ("off", "all", "far", "late", "team")
BELIEF_MODELS = ("categorization", "policy", "learned")
#: Critical moments for the exact search (``critical=True``): this many possible stations or
#: fewer, or the last round; the exact joint move is played when it catches Mr X with at least
#: this probability (in the last round: any).
CRITICAL_POSSIBLE = 8
CRITICAL_PROBABILITY = 0.5
VOTE_RULES = ("visits", "majority")
#: ``attach_budget``: the attach rule's second search on top of the budget (half of it,
#: ``"extra"``), or within it (``"shared"``: the first search two thirds, the second one third).
ATTACH_BUDGETS = ("extra", "shared")
#: ``model_playouts``: the simulated detectives' playout policy in Mr X's paranoid or open
#: search: CAL on his true station, or MTD (the smallest total distance to his possible
#: locations).
MODEL_PLAYOUTS = ("cal", "mtd")
#: ``coalition``: coalition reduction scores each hunter's node for that hunter (``"piece"``)
#: or every hunter's node from the root hunter's side (``"root"``, Nijssen's thesis).
COALITION_SCOPES = ("piece", "root")
#: ``double_filter``: the double-move test in every Mr X move generated by a search
#: (``"everywhere"``), only in the tree of Mr X's own search (``"own_tree"``), or wherever a
#: search models the hider's decisions, all but Mr X's own playouts (``"except_own_playouts"``:
#: his tree, and the seekers' tree and playouts; ``nw``).
DOUBLE_FILTERS = ("everywhere", "own_tree", "except_own_playouts")
#: ``black_exemption``: the black-ticket filter never removes a black step on a ferry line
#: (``"ferry_line"``) or any black step from a boat station (``"boat_station"``).
BLACK_EXEMPTIONS = ("ferry_line", "boat_station")
#: ``mr_x_nodes``: in the detectives' tree a node of Mr X is one of his moves (``"move"``: the
#: union over the possible locations) or what the detectives see of it (``"seen"``: the
#: tickets, a station only on a reveal slot; the station drawn by his playout policy among the
#: moves the node stands for).
MR_X_NODES = ("move", "seen")


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
    model_epsilon: float | None = None
    cal_target: str = "actual"
    move_filter: bool = True
    categorization: bool = True
    categorization_weights: CategoryWeights | str | Path | Mapping[str, Any] | None = None
    roulette: str = "one_step"
    attach_double: bool = True
    attach_budget: str = "extra"
    mr_x_model: str = "paranoid"
    model_playouts: str = "cal"
    coalition: str = "piece"
    mr_x_reduction: bool = True
    double_filter: str = "everywhere"
    black_exemption: str = "ferry_line"
    horizon: int = 0
    horizon_step: int = 0
    info_weight: float = 0.0
    region_weight: float = 0.0
    belief: str = "categorization"
    critical: bool = False
    determinization: str = "single"
    determinizations: int = 20
    vote: str = "visits"
    ticket_reserve: float = 0.0
    ticket_plan: str = "off"
    mr_x_nodes: str = "move"
    keep_tree: bool = False
    attach_model: str = "off"
    fast: bool = True
    playouts: int = DEFAULT_PLAYOUTS

    def __post_init__(self) -> None:
        def num(name: str, lo: float, hi: float | None = None) -> None:
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int | float) or not (
                    v >= lo and (hi is None or v <= hi)) or math.isnan(v):
                rng = f"{lo}..{hi}" if hi is not None else f">= {lo}"
                raise ValueError(f"MCTS option {name} is a number {rng}, not {v!r}")

        def whole(name: str) -> None:
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise ValueError(f"MCTS option {name} is a whole number >= 1, not {v!r}")

        def choice(name: str, allowed: tuple[str, ...]) -> None:
            v = getattr(self, name)
            if v not in allowed:
                raise ValueError(f"MCTS option {name} is "
                                 f"{' or '.join(repr(a) for a in allowed)}, not {v!r}")

        num("c", 0.0)
        num("history_weight", 0.0)
        num("coalition_reduction", 0.0, 1.0)
        num("epsilon_mr_x", 0.0, 1.0)
        num("epsilon_detectives", 0.0, 1.0)
        if self.model_epsilon is not None:
            num("model_epsilon", 0.0, 1.0)
        num("info_weight", 0.0, 1.0)
        num("region_weight", 0.0, 1.0)
        num("ticket_reserve", 0.0, 1.0)
        if isinstance(self.horizon, bool) or not isinstance(self.horizon, int) or \
                self.horizon < 0:
            raise ValueError(f"MCTS option horizon is a whole number >= 0, not "
                             f"{self.horizon!r}")
        if isinstance(self.horizon_step, bool) or not isinstance(self.horizon_step, int) or \
                self.horizon_step < 0:
            raise ValueError(f"MCTS option horizon_step is a whole number >= 0, not "
                             f"{self.horizon_step!r}")
        for name in ("progressive_history", "history_playouts", "move_filter",
                     "categorization", "attach_double", "critical", "fast",
                     "mr_x_reduction", "keep_tree"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"MCTS option {name} is true or false")
        choice("cal_target", ("actual", "possible"))
        choice("roulette", ROULETTES)
        choice("attach_budget", ATTACH_BUDGETS)
        choice("model_playouts", MODEL_PLAYOUTS)
        choice("coalition", COALITION_SCOPES)
        choice("double_filter", DOUBLE_FILTERS)
        choice("black_exemption", BLACK_EXEMPTIONS)
        choice("mr_x_nodes", MR_X_NODES)
        choice("attach_model", ATTACH_MODELS)
        choice("ticket_plan", TICKET_PLANS)
        choice("mr_x_model", MR_X_MODELS)
        choice("belief", BELIEF_MODELS)
        choice("determinization", DETERMINIZATION_MODES)
        choice("vote", VOTE_RULES)
        whole("determinizations")
        whole("playouts")

    @property
    def policy(self) -> PlayoutPolicy:
        """The playout policy these options describe."""
        return PlayoutPolicy(self.epsilon_mr_x, self.epsilon_detectives, self.cal_target,
                             self.move_filter)

    def policy_for(self, side: str) -> PlayoutPolicy:
        """The playout policy of ``side``'s search: with ``mr_x_model="public"`` Mr X's search
        has the detectives chase a station drawn from the public possible locations, with
        ``model_epsilon`` (when given) as their ε instead of ``epsilon_detectives``."""
        if side == "mr_x" and self.mr_x_model in ("public", "hypothesis"):
            target = "possible" if self.mr_x_model == "public" else "hypothesis"
            eps = self.epsilon_detectives if self.model_epsilon is None else self.model_epsilon
            return PlayoutPolicy(self.epsilon_mr_x, eps, target, self.move_filter)
        return self.policy


OPTION_NAMES = tuple(f for f in MCTSOptions.__dataclass_fields__)

#: Nijssen & Winands as published (Nijssen's thesis, chapter 7: Table 7.10's MCTS seekers
#: with location categorization and r = 0.1 against the MCTS hider), every switch written out:
#: the ``nw`` agent. Frozen: changed only to follow the thesis more closely, each change with a
#: new :func:`nw_fingerprint` and its Table 7.10 run (docs/ai.md gives each value's section;
#: 2026-12-07: ``attach_model="playouts"`` and ``mr_x_model="open"``, fingerprint
#: ``a97c323ea8d4``; the ``nw`` before them, ``c3f292dc1474``, is :data:`NW_2026_12_06`).
#: ``categorization_weights="thesis"`` is the table estimated as the thesis does
#: (``scotlandyard/data/categorization_thesis.json``).
NW_SETTINGS: dict[str, Any] = {
    "c": 0.5, "progressive_history": True, "history_weight": 5.0, "history_playouts": True,
    "coalition_reduction": 0.1, "coalition": "root", "mr_x_reduction": False,
    "epsilon_mr_x": 0.1, "epsilon_detectives": 0.2, "model_epsilon": None,
    "cal_target": "actual", "model_playouts": "mtd", "move_filter": True,
    "double_filter": "except_own_playouts", "black_exemption": "boat_station",
    "categorization": True, "categorization_weights": "thesis", "roulette": "one_step",
    "belief": "categorization",
    "critical": False, "attach_double": True, "attach_budget": "shared",
    "mr_x_model": "open", "attach_model": "playouts", "horizon": 0, "horizon_step": 0,
    "info_weight": 0.0, "region_weight": 0.0, "determinization": "single",
    "determinizations": 20, "vote": "visits",
}

#: ``nw`` before 2026-12-07 (fingerprint ``c3f292dc1474``): the hider's attach rule only in
#: his own search's choice, and his search paranoid (the seekers' moves searched in his tree).
#: It plays the games it played then (the ``nw-2026-12-06`` agent), for the figures measured
#: against it (docs/experiments.md, sessions 7-14).
NW_2026_12_06: dict[str, Any] = {"mr_x_model": "paranoid", "attach_model": "off"}

#: Switches added after ``nw`` was frozen, which ``nw`` keeps off: not in :data:`NW_SETTINGS`,
#: so that its fingerprint (and the run folders named by it) stay as they were; the freeze
#: test pins them too.
NW_OFF: dict[str, Any] = {"ticket_reserve": 0.0, "ticket_plan": "off", "mr_x_nodes": "move",
                          "keep_tree": False}

#: The settings of this package's first reading of the paper where the thesis differs (the
#: MCTSOptions defaults): ``mcts`` keeps them by name, so that the thesis's switches in
#: ``nw`` leave ``mcts`` as it was.
FIRST_READING: dict[str, Any] = {
    "coalition": "piece", "mr_x_reduction": True, "model_playouts": "cal",
    "double_filter": "everywhere", "black_exemption": "ferry_line", "attach_budget": "extra",
}

#: This package's best settings, over the paper's: the ``mcts`` agent (measured in
#: benchmarks/nijssen_winands.py --versus; docs/experiments.md).
BEST_SETTINGS: dict[str, Any] = {"mr_x_model": "public", "horizon": 3,
                                 "model_epsilon": 0.05, "region_weight": 0.5,
                                 "coalition_reduction": 0.4, "belief": "policy",
                                 "attach_model": "seekers", "keep_tree": True,
                                 "ticket_plan": "team", **FIRST_READING}


@dataclass(frozen=True)
class ChildStats:
    """One root child after a search: the move, its visits and its mean result (for the piece
    that makes the move). With separate trees: summed over the trees."""

    move: Move
    visits: int
    value: float


@dataclass(frozen=True)
class TreeSummary:
    """One tree of a separate-trees search: Mr X's station in its determinization, the
    iterations it ran, and its most visited root move (its vote)."""

    location: int
    iterations: int
    move: Move


class _Tree:
    """One search tree in the kernel's arrays: its nodes, history tables, random stream and
    counters. The board, rules, parameters and scratch buffers belong to the search."""

    def __init__(self, search: MCTSSearch, root: list[int], seed: int) -> None:
        kern = search.kern
        self.search = search
        self.root = kern.ints(root)
        self.rng = kern.ints([_seed32(seed)])
        self.hs = kern.floats(K.H_LEN)
        self.hc = kern.ints(K.H_LEN)
        self.mt = kern.ints(K.MT_LEN)
        self.tr = kern.ints(0)
        self.tv = kern.floats(0)
        self.ensure(1)
        self.tr[K.TR_MOVE] = 0
        self.tr[K.TR_PARENT] = -1
        self.tr[K.TR_CHILD] = -1
        self.tr[K.TR_SIB] = -1
        self.tr[K.TR_VIS] = 0
        self.mt[K.MT_NODES] = 1
        self.seconds = 0.0

    def adopt(self, old: _Tree, node: int, offered: set[int] | None = None) -> None:
        """Take ``old``'s subtree under ``node`` as this (new) tree, ``node`` its root, with
        every count and result: the search goes on where an earlier one left off
        (``keep_tree``). The history tables start empty as in every search. ``offered``: the
        root moves the caller offers now (a ticket reserve's root, one piece's moves in the
        free order); the root's other children are dropped with their subtrees, and their
        visits taken off the root's."""
        W = K.TR_W
        otv = old.tv
        order = [node]
        children: dict[int, list[int]] = {}
        dropped = 0  # visits of the root's children left out
        k = 0
        while k < len(order):
            v = order[k]
            own = []
            for ch, code, vis, _ in old.children(v):
                if v == node and offered is not None and code not in offered:
                    dropped += vis
                else:
                    own.append(ch)
            children[v] = own
            order.extend(own)
            k += 1
        index = {v: i for i, v in enumerate(order)}
        self.ensure(len(order))
        tr, tv, otr = self.tr, self.tv, old.tr
        for new, v in enumerate(order):
            b, nb = v * W, new * W
            own = children[v]
            tr[nb + K.TR_MOVE] = int(otr[b + K.TR_MOVE]) if new else 0
            tr[nb + K.TR_PARENT] = index[int(otr[b + K.TR_PARENT])] if new else -1
            tr[nb + K.TR_CHILD] = index[own[0]] if own else -1
            tr[nb + K.TR_VIS] = int(otr[b + K.TR_VIS])
            tv[new] = float(otv[v])
            for a, z in itertools.pairwise(own):
                tr[index[a] * W + K.TR_SIB] = index[z]
            if own:
                tr[index[own[-1]] * W + K.TR_SIB] = -1
        tr[K.TR_SIB] = -1
        tr[K.TR_VIS] = max(0, int(tr[K.TR_VIS]) - dropped)
        self.mt[K.MT_NODES] = len(order)

    def child(self, node: int, code: int) -> int | None:
        """The child of ``node`` reached by move ``code``, or None."""
        return next((ch for ch, c, _, _ in self.children(node) if c == code), None)

    def ensure(self, nodes: int) -> None:
        """Room for ``nodes`` nodes."""
        if len(self.tv) >= nodes:
            return
        size = max(nodes, 2 * len(self.tv), 64)
        kern = self.search.kern
        self.tr = kern.grow(self.tr, size * K.TR_W, -1)
        self.tv = kern.grow(self.tv, size, 0.0)

    def run(self, iterations: int) -> None:
        """Run ``iterations`` more iterations in the kernel."""
        if iterations <= 0:
            return
        self.ensure(int(self.mt[K.MT_NODES]) + iterations + 1)
        s = self.search
        t0 = time.perf_counter()
        s.kern.mcts_iterate(iterations, self.root, s._work, s._ru, s._bd, self.tr, self.tv,
                            self.mt, self.hs, self.hc, s._pa, s._pf, s._locs, s._cum, s._ra,
                            self.rng, s._buf, s._sc, s._path, s._imv)
        self.seconds += time.perf_counter() - t0

    def run_until(self, limit: int | None, deadline: float) -> None:
        """Run until ``deadline`` (a ``time.perf_counter()`` value) or until ``limit`` more
        iterations (``None``: no limit), whichever comes first; at least one iteration (when
        ``limit`` allows one), so that a tree always has a move to give."""
        target = None if limit is None else self.iterations + limit
        chunk = 1  # then about 20 ms a call: the deadline and a stop request are seen soon
        first = True
        while True:
            left = deadline - time.perf_counter()
            if not first and (left <= 0 or stop_requested()):
                break
            if first and left <= 0:
                chunk = 1  # at least one iteration, even when the clock already ran out
            first = False
            n = chunk
            if target is not None:
                n = min(n, target - self.iterations)
                if n <= 0:
                    break
            t0 = time.perf_counter()
            self.run(n)
            now = time.perf_counter()
            per = max((now - t0) / n, 1e-7)
            # about 20 ms per call, never past the deadline by more than one iteration's time
            chunk = max(1, min(int(0.02 / per), int(max(deadline - now, 0.0) / per) + 1))

    @property
    def iterations(self) -> int:
        """Iterations run in this tree."""
        return int(self.mt[K.MT_ITERS])

    @property
    def nodes(self) -> int:
        """Nodes of this tree (its root included)."""
        return int(self.mt[K.MT_NODES])

    @property
    def plies(self) -> int:
        """Moves played in this tree's playouts."""
        return int(self.mt[K.MT_PLIES])

    def children(self, node: int) -> list[tuple[int, int, int, float]]:
        """(child node, move code, visits, value sum) of each child of ``node``."""
        tr, tv = self.tr, self.tv
        out = []
        ch = int(tr[node * K.TR_W + K.TR_CHILD])
        while ch != -1:
            out.append((ch, int(tr[ch * K.TR_W + K.TR_MOVE]), int(tr[ch * K.TR_W + K.TR_VIS]),
                        float(tv[ch])))
            ch = int(tr[ch * K.TR_W + K.TR_SIB])
        return out


class MCTSSearch:
    """One search from one view: build it, :meth:`run` iterations, read :meth:`best_move`.

    The search only knows ``view``. For the detectives it determinizes Mr X's station from
    ``view.possible`` (by location categorization, uniformly, or by the ``weights`` given):
    with ``determinization="single"`` a fresh draw for every iteration of one tree; with
    ``"separate"`` ``determinizations`` draws made up front (:attr:`determinizations`), one
    tree each, the iterations split among them and the root statistics combined
    (:attr:`trees`, :meth:`tree_votes`). ``root_moves`` limits the root to those moves (an
    agent passes its legal moves: a caller may offer a subset, e.g. one seat's piece in free
    order).
    """

    def __init__(self, view: PlayerView, options: MCTSOptions | None = None, seed: int = 0,
                 *, weights: Mapping[int, float] | None = None,
                 root_moves: Sequence[Move] | None = None, exact_root: bool = False,
                 reuse: tuple[_Tree, int] | None = None) -> None:
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
            assert view.mr_x_station is not None  # Mr X's own view knows his station
            locs = [view.mr_x_station]
            w = [1.0]
            sample = False
        else:
            locs = sorted(view.possible)
            if weights is not None:
                table = dict(weights)
            elif opts.categorization:
                table = resolve_weights(opts.categorization_weights).location_weights(
                    view, opts.roulette)
            else:
                table = {s: 1.0 for s in locs}
            w = [float(table.get(s, 0.0)) for s in locs]
            if not any(x > 0 for x in w):
                w = [1.0] * len(locs)
            game = Game.from_view(view, mr_x=locs[0])
            sample = True
        #: True when this search builds a tree per determinization (a detectives' search with
        #: ``determinization="separate"``); Mr X knows his station: one tree.
        self.separate: bool = opts.determinization == "separate" and view.side != "mr_x"
        if self.separate:
            sample = False  # every tree keeps its own drawn station
        self.locations: tuple[int, ...] = tuple(locs)
        self.location_weights: tuple[float, ...] = tuple(w)
        cum, acc = [], 0.0
        for x in w:
            acc += x
            cum.append(acc)
        self._base = state_of_game(game, view.pending_take)
        self._work = kern.ints(K.ST_LEN)
        self._ru = kern.const(rules_table(rules))
        self._bd = kern.const(board_table(rules.board))
        self._pa, self._pf = _params(
            kern, opts.policy_for(view.side), opts.c, opts.history_weight,
            opts.coalition_reduction, opts.progressive_history, opts.history_playouts, sample,
            len(locs))
        self._pf[K.PF_OPEN] = int(view.side == "mr_x" and opts.mr_x_model != "paranoid")
        if view.side == "mr_x" and opts.mr_x_model in ("paranoid", "open") and \
                opts.model_playouts == "mtd":
            self._pf[K.PF_TARGET] = 3  # the simulated detectives play MTD
        if view.side == "mr_x" and not opts.mr_x_reduction:
            self._pa[K.PA_R] = 0.0  # r is the seekers' (their own search) only
        # coalition reduction from the root hunter's side (the thesis): the detectives' search
        self._pf[K.PF_COAL] = int(opts.coalition == "root" and view.side == "detectives")
        self._pf[K.PF_XNODE] = int(opts.mr_x_nodes == "seen" and view.side == "detectives")
        if opts.move_filter:
            filt = K.FILT_ON | (K.FILT_BOAT if opts.black_exemption == "boat_station" else 0)
            # the double-move test: FILT_NODOUBLE leaves it out (the tree: PF_FILT; the
            # playouts: PF_PFILT)
            tree_test = opts.double_filter != "own_tree" or view.side == "mr_x"
            playout_test = opts.double_filter == "everywhere" or (
                opts.double_filter == "except_own_playouts" and view.side != "mr_x")
            self._pf[K.PF_FILT] = filt | (0 if tree_test else K.FILT_NODOUBLE)
            self._pf[K.PF_PFILT] = filt | (0 if playout_test else K.FILT_NODOUBLE)
            if opts.attach_double and (opts.attach_model in ("playouts", "search") or (
                    opts.attach_model == "seekers" and view.side == "detectives")):
                # the hider's attach rule wherever a search plays him: in the playouts
                # (``"playouts"``; Mr X's own search too), in the seekers' playouts only
                # (``"seekers"``), or in the seekers' tree too (``"search"``)
                self._pf[K.PF_PFILT] |= K.FILT_ATTACH
                if opts.attach_model == "search" and view.side == "detectives":
                    self._pf[K.PF_FILT] |= K.FILT_ATTACH
        if view.side == "mr_x":
            # Mr X's search: playouts stop ``horizon`` of his moves after the leaf, valued by
            # K.leaf_value (not caught, less the information term)
            self._pf[K.PF_HORIZON] = opts.horizon
            self._pa[K.PA_INFO] = opts.info_weight
            self._pa[K.PA_REG] = opts.region_weight
        self._locs = kern.ints(locs)
        self._cum = kern.floats(cum)
        mover = view.to_move or ""
        allowed = sorted({encode(m, mover, rules) for m in root_moves or ()})
        self._ra = kern.ints(allowed or [0])
        self._pf[K.PF_NROOT] = len(allowed)
        # exact root moves: the caller's moves, unfiltered (the second search of an attached
        # double move)
        self._pf[K.PF_ROOTX] = int(exact_root and bool(allowed))
        self._buf = kern.ints(K.BUF_LEN)
        self._sc = _scratch(kern)
        self._path = kern.ints(max_plies(rules) + 8)
        self._imv = kern.ints(max_plies(rules) + 8)
        #: Separate trees: the tree of each finished determinization, in the order searched.
        self.trees: list[TreeSummary] = []
        self._sums: dict[int, list[float]] = {}   # root move code -> [visits, value sum]
        self._votes: dict[int, int] = {}
        self._done = [0, 0, 0]                    # iterations, nodes, playout plies of trees
        self._done_seconds = 0.0
        if self.separate:
            self._draws = random.Random(seed)
            #: Separate trees: Mr X's station in each tree's determinization, drawn up front
            #: (with replacement, by the same weights as the single tree's draws).
            self.determinizations: tuple[int, ...] = tuple(
                self._draws.choices(locs, weights=w, k=opts.determinizations))
            self._tree: _Tree | None = None
        else:
            self.determinizations = ()
            self._tree = _Tree(self, self._base, seed)
            if reuse is not None:
                # keep_tree: the subtree an earlier search built for this position, without
                # the root moves the caller does not offer now (a ticket reserve's root, one
                # piece's moves in the free order)
                tree, node = reuse
                self._tree.adopt(tree, node, set(allowed) if allowed else None)

    # ---- running ---------------------------------------------------------------------------
    def _plan(self, iterations: int) -> list[tuple[int, int]]:
        """(station, iterations) of each tree when ``iterations`` are split among the
        determinizations: evenly, the first trees one more when it does not divide; never a
        tree without an iteration."""
        n = min(len(self.determinizations), iterations)
        base, extra = divmod(iterations, n)
        return [(self.determinizations[k], base + (1 if k < extra else 0)) for k in range(n)]

    def _run_tree(self, station: int, limit: int | None, deadline: float | None) -> None:
        """Build a fresh tree with Mr X on ``station``, run it, and add its root statistics."""
        root = list(self._base)
        root[K.ST_POS] = station
        tree = _Tree(self, root, self._draws.getrandbits(32))
        if deadline is None:
            tree.run(limit or 0)
        else:
            tree.run_until(limit, deadline)
        self._tree = tree
        if tree.iterations == 0:
            return
        best_code, best_key = -1, (-1, 0.0)
        for _, code, vis, val in tree.children(0):
            acc = self._sums.setdefault(code, [0, 0.0])
            acc[0] += vis
            acc[1] += val
            key = (vis, val / vis if vis else 0.0)
            if key > best_key:
                best_code, best_key = code, key
        self._votes[best_code] = self._votes.get(best_code, 0) + 1
        self.trees.append(TreeSummary(station, tree.iterations, decode(best_code, self.rules)))
        self._done[0] += tree.iterations
        self._done[1] += tree.nodes
        self._done[2] += tree.plies
        self._done_seconds += tree.seconds

    def run(self, iterations: int) -> None:
        """Run ``iterations`` more iterations. With separate trees each call searches a fresh
        tree per determinization (the iterations split evenly among them; fewer trees than
        determinizations when there are fewer iterations) and adds their root statistics."""
        if iterations <= 0:
            return
        if not self.separate:
            assert self._tree is not None
            self._tree.run(iterations)
            return
        for station, quota in self._plan(iterations):
            self._run_tree(station, quota, None)

    def run_budget(self, budget: Budget, default_playouts: int | None = None) -> None:
        """Run until the budget is spent: ``budget.playouts`` more iterations and/or
        ``budget.seconds`` (whichever ends first); ``Budget()`` means the default playouts.
        With separate trees and a time budget each tree gets an equal share of the time left
        when it starts (and of the iterations, when both are given)."""
        limit = budget.playouts
        if limit is None and budget.seconds is None:
            limit = default_playouts or self.options.playouts
        if budget.seconds is None:
            self.run(limit)  # type: ignore[arg-type]
            return
        deadline = time.perf_counter() + budget.seconds
        if not self.separate:
            assert self._tree is not None
            self._tree.run_until(limit, deadline)
            return
        plan: list[tuple[int, int | None]] = (
            list(self._plan(limit)) if limit is not None
            else [(s, None) for s in self.determinizations])
        for k, (station, quota) in enumerate(plan):
            now = time.perf_counter()
            if k > 0 and (now >= deadline or stop_requested()):
                break
            self._run_tree(station, quota, now + max(deadline - now, 0.0) / (len(plan) - k))

    # ---- results -----------------------------------------------------------------------------
    @property
    def iterations(self) -> int:
        """Iterations run so far (over every tree)."""
        if self.separate:
            return self._done[0]
        assert self._tree is not None
        return self._tree.iterations

    @property
    def nodes(self) -> int:
        """Nodes in the tree, the root included (with separate trees: in all of them)."""
        if self.separate:
            return self._done[1]
        assert self._tree is not None
        return self._tree.nodes

    @property
    def playout_plies(self) -> int:
        """Moves played in playouts so far (over every tree)."""
        if self.separate:
            return self._done[2]
        assert self._tree is not None
        return self._tree.plies

    @property
    def seconds(self) -> float:
        """Time spent in the kernel so far."""
        if self.separate:
            return self._done_seconds
        assert self._tree is not None
        return self._tree.seconds

    def node_children(self, node: int = 0) -> list[tuple[int, int, int, float]]:
        """(child node, move code, visits, value sum) of each child of ``node`` (with separate
        trees: in the tree searched last)."""
        return self._tree.children(node) if self._tree is not None else []

    def root_children(self) -> list[ChildStats]:
        """The root's children, most visited first (with separate trees: visits and results
        summed over the trees)."""
        if self.separate:
            stats = [(code, int(v[0]), v[1]) for code, v in self._sums.items()]
        else:
            stats = [(code, vis, val) for _, code, vis, val in self.node_children(0)]
        out = [ChildStats(decode(code, self.rules), vis, (val / vis) if vis else 0.0)
               for code, vis, val in stats]
        out.sort(key=lambda c: (-c.visits, -c.value))
        return out

    def tree_votes(self) -> dict[Move, int]:
        """Separate trees: how many trees rank each root move first (most visits, ties the
        higher mean result). Empty for a single tree."""
        return {decode(code, self.rules): n for code, n in self._votes.items()}

    def best_move(self) -> Move:
        """The move to play: the most visited root child (ties: the higher mean result); with
        separate trees and ``vote="majority"``, the move most trees rank first (ties: the
        summed visits, then the mean result)."""
        kids = self.root_children()
        if not kids:
            raise RuntimeError("no iteration has been run")
        if self.separate and self.options.vote == "majority":
            votes = self.tree_votes()
            return max(kids, key=lambda c: (votes.get(c.move, 0), c.visits, c.value)).move
        return kids[0].move

    def history(self, piece: str, move: Move) -> tuple[float, int]:
        """(sum of results, count) of ``move`` by ``piece`` in the progressive-history table
        (with separate trees: the table of the tree searched last)."""
        if self._tree is None:
            return 0.0, 0
        key = K.hkey(encode(move, piece, self.rules))
        return float(self._tree.hs[key]), int(self._tree.hc[key])

    def history_total(self) -> int:
        """Number of entries added to the history tables in this search (with separate trees:
        in the tree searched last)."""
        if self._tree is None:
            return 0
        hc = self._tree.hc
        return int(sum(hc)) if not self.kern.fast else int(hc.sum())


def kernel_source_hash(root: str = "mcts_iterate") -> str:
    """SHA-256 of the kernel code a search runs: the source of ``root`` and of every kernel
    function it calls (transitively), with the values of the kernel constants they name. The
    freeze test of ``nw`` pins it: a change to the playout or search code shows there."""
    seen: dict[str, str] = {}
    consts: dict[str, Any] = {}
    todo = [root]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        f = getattr(K, name)
        seen[name] = inspect.getsource(f)
        for ref in f.__code__.co_names:
            obj = getattr(K, ref, None)
            if inspect.isfunction(obj) and obj.__module__ == K.__name__:
                todo.append(ref)
            elif isinstance(obj, int | float) and ref.isupper():
                consts[ref] = obj
    text = "".join(seen[n] for n in sorted(seen)) + repr(sorted(consts.items()))
    return hashlib.sha256(text.encode()).hexdigest()


def nw_fingerprint() -> str:
    """A short hash of everything that makes ``nw`` play as it does: :data:`NW_SETTINGS`,
    its categorization table and the kernel's search code (:func:`kernel_source_hash`). The
    benchmarks name their run folders with it, so that games of two versions never mix."""
    table = resolve_weights(NW_SETTINGS["categorization_weights"]).weights
    text = repr(sorted(NW_SETTINGS.items())) + repr(table) + kernel_source_hash()
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def grown_horizon(options: MCTSOptions, budget: Budget) -> int:
    """Mr X's playout horizon for a search of ``budget``: ``options.horizon``, one move longer
    for every factor of 4 by which the budget's iterations reach ``4 * horizon_step`` (with
    ``horizon_step`` n: n to 4n - 1 iterations keep the horizon, 4n to 16n - 1 add one, 16n
    to 64n - 1 add two, ...). ``Budget()`` counts as the ``playouts`` option; a time-only
    budget, ``horizon=0`` (playouts to the end) or ``horizon_step=0`` keep the horizon."""
    n = options.horizon_step
    iterations = budget.playouts
    if budget.playouts is None and budget.seconds is None:
        iterations = options.playouts
    if n <= 0 or options.horizon <= 0 or iterations is None:
        return options.horizon
    extra, reach = 0, 4 * n
    while iterations >= reach:
        extra += 1
        reach *= 4
    return options.horizon + extra


def _split(budget: Budget, default_playouts: int) -> tuple[Budget, Budget]:
    """``budget`` (the default playouts when it sets no limit) in two parts, two thirds and
    the rest: the attach rule within the budget (``attach_budget="shared"``)."""
    playouts, seconds = budget.playouts, budget.seconds
    if playouts is None and seconds is None:
        playouts = default_playouts
    p1 = p2 = None
    if playouts is not None:
        p1 = max(1, (2 * playouts + 2) // 3)
        p2 = max(1, playouts - p1)
    s1 = s2 = None
    if seconds is not None:
        s1, s2 = seconds * 2 / 3, seconds / 3
    return Budget(playouts=p1, seconds=s1), Budget(playouts=p2, seconds=s2)


def _half(budget: Budget, default_playouts: int) -> Budget:
    """Half of ``budget`` (of the default playouts when it sets no limit): the second search
    of an attached double move."""
    if budget.playouts is None and budget.seconds is None:
        return Budget(playouts=max(1, default_playouts // 2))
    return Budget(playouts=max(1, budget.playouts // 2) if budget.playouts else None,
                  seconds=budget.seconds / 2 if budget.seconds else None)


def hunters_reach(view: PlayerView) -> set[int]:
    """Stations a detective or police piece can move to next (with the tickets it holds)."""
    board = london(view.rules.board)
    reach: set[int] = set()
    for p in view.rules.hunters:
        tk = view.tickets[p]
        for t, name in enumerate(("taxi", "bus", "underground")):
            if tk.get(name) is None or (tk[name] or 0) > 0:
                reach.update(board.neighbours[t][view.stations[p]])
    return reach


#: The detectives' tickets from the most usable to the least (taxi lines reach every station
#: of the London board, bus lines 62, the underground 14): ``ticket_reserve`` spends the less
#: usable ones first when that is about as good.
TICKET_ORDER = (Ticket.TAXI, Ticket.BUS, Ticket.UNDERGROUND)
#: ``ticket_reserve``'s look-ahead: a detective keeps a move only when its tickets let it move
#: this many more rounds from where it lands (fewer when fewer rounds are left).
RESERVE_LOOKAHEAD = 3


def _rounds_left(view: PlayerView) -> int:
    """The rounds after this one (0 in the last round): the moves a detective's tickets must
    still pay for after this round's."""
    return max(0, view.rules.last_round - view.round)


def _supply(view: PlayerView, piece: str) -> list[int] | None:
    """``piece``'s taxi, bus and underground tickets, or None when it moves free (police)."""
    tk = view.tickets[piece]
    counts = [tk.get(t.name.lower()) for t in TICKET_ORDER]
    if any(c is None for c in counts):
        return None
    return [int(c or 0) for c in counts]


def _tickets_after(view: PlayerView, move: Move) -> tuple[int, int, int, int] | None:
    """Where the detective making ``move`` lands and the taxi, bus and underground tickets it
    keeps after it (the arguments of :func:`_moves_left` but the board and the cap); None when
    ``move`` is not a detective's single step on one of them (a pass, a double move, Mr X's
    move, a police piece that moves free)."""
    piece = move.piece or view.to_move
    if view.side != "detectives" or piece is None or move.is_pass or move.is_double or \
            move.ticket not in TICKET_ORDER or move.to is None:
        return None
    supply = _supply(view, piece)
    if supply is None:
        return None
    supply[TICKET_ORDER.index(move.ticket)] -= 1
    return move.to, supply[0], supply[1], supply[2]


@functools.lru_cache(maxsize=1 << 16)  # at most about 16 MB (tracemalloc, full)
def _moves_left(board: BoardName, station: int, taxi: int, bus: int, underground: int,
                cap: int) -> int:
    """The most moves (at most ``cap``) a piece on ``station`` of ``board`` holding ``taxi``,
    ``bus`` and ``underground`` tickets can make in a row, other pieces ignored (they move
    on). Remembered: a look-ahead to the game's end asks the same questions many times."""
    if cap <= 0:
        return 0
    neighbours = london(board).neighbours
    held = (taxi, bus, underground)
    best = 0
    for t in range(3):
        if held[t] <= 0:
            continue
        after = (taxi - (t == 0), bus - (t == 1), underground - (t == 2))
        for d in neighbours[t][station]:
            best = max(best, 1 + _moves_left(board, d, *after, cap - 1))
            if best >= cap:
                return cap
    return best


def strands(view: PlayerView, move: Move) -> bool:
    """``ticket_reserve``'s hard rule: True when ``move`` of a detective leaves it tickets that
    cannot carry it through the next rounds (up to :data:`RESERVE_LOOKAHEAD` of them) from
    the station it lands on, e.g. its last taxi spent for a station without an underground
    line while it holds underground tickets only. A move onto one of Mr X's possible
    locations never strands (it may catch him); nor does a move in the last round."""
    after = _tickets_after(view, move)
    left = _rounds_left(view)
    if after is None or left <= 0 or move.to in view.possible:
        return False
    steps = min(left, RESERVE_LOOKAHEAD)
    return _moves_left(view.rules.board, *after, steps) < steps


def reserve_root_moves(view: PlayerView, legal: Sequence[Move]) -> list[Move]:
    """The detectives' root moves under ``ticket_reserve``: the legal moves that do not
    :func:`strand <strands>` the mover, or every legal move when each of them would."""
    keep = [m for m in legal if not strands(view, m)]
    return keep or list(legal)


#: ``ticket_plan``: a move onto one of Mr X's possible locations counts as lasting every round
#: left (it may catch him) while there are at most this many of them (a one in five chance or
#: better); with more, a ticket the rest of the game needs is worth more than the chance.
PLAN_CATCH = 5
#: ``ticket_plan="late"``: from this many rounds left after a move, every detective keeps to
#: the plan, chasing or not.
PLAN_LATE = 3


def moves_after(view: PlayerView, move: Move, plan: str = "all") -> int:
    """``ticket_plan``: how many of the rounds left after ``move`` its detective can still
    move in with the tickets it keeps (other pieces ignored); every round left for a pass, a
    piece that moves free (police), a move onto one of Mr X's possible locations while there
    are at most :data:`PLAN_CATCH` of them (it may catch him), and with ``plan="far"`` a move
    that lands on or next to any of them (the chase goes first; with ``plan="late"`` while
    more than :data:`PLAN_LATE` rounds are left after it)."""
    left = _rounds_left(view)
    after = _tickets_after(view, move)
    if after is None or (after[0] in view.possible and len(view.possible) <= PLAN_CATCH):
        return left
    if (plan == "far" or (plan == "late" and left > PLAN_LATE)) and view.possible:
        row = london(view.rules.board).distance_row(after[0])
        if min(row[s] for s in view.possible) <= 1:
            return left
    return _moves_left(view.rules.board, *after, left)


def team_secure(view: PlayerView, mover: str | None = None) -> bool:
    """``ticket_plan="team"``: True when a teammate of ``mover`` (by default the piece to
    move; a detective, not a police piece, which moves free and does not keep the hunt going)
    holds tickets that let it move in this round and every round left from where it stands
    (other pieces ignored): the game cannot end "detectives stuck" while it keeps them. Never
    with a pooled supply (the two-player variant): a teammate's tickets are the mover's too."""
    if view.rules.pooled_supply:
        return False
    mover = mover or view.to_move
    need = _rounds_left(view) + 1
    for piece in view.rules.hunters:
        supply = _supply(view, piece)
        if piece == mover or supply is None:
            continue
        if _moves_left(view.rules.board, view.stations[piece], *supply, need) >= need:
            return True
    return False


def plan_root_moves(view: PlayerView, legal: Sequence[Move], plan: str = "all") -> list[Move]:
    """The detectives' root moves under ``ticket_plan`` (``"all"``, ``"far"``, ``"late"``,
    ``"team"``): the legal moves after which the mover can go on moving the most rounds, up to
    the last (:func:`moves_after`): no move that spends a ticket the rest of the game needs,
    when another keeps it. With ``"team"`` a move counts as lasting every round while a
    teammate of its piece is :func:`secure <team_secure>`, else as with ``"late"`` (in the
    free order the moves of several pieces are offered: each by its own piece's teammates)."""
    if plan == "team":
        left = _rounds_left(view)
        free = {p: team_secure(view, p) for p in {m.piece or view.to_move for m in legal}}
        scores = [left if free[m.piece or view.to_move] else moves_after(view, m, "late")
                  for m in legal]
    else:
        scores = [moves_after(view, m, plan) for m in legal]
    most = max(scores, default=0)
    return [m for m, n in zip(legal, scores, strict=True) if n == most]


def taxis_short(view: PlayerView, piece: str) -> bool:
    """True when ``piece``'s taxi tickets cannot pay for this round's move and every one
    left: it will have to move by bus or underground some time (police never are)."""
    supply = _supply(view, piece)
    if supply is None:
        return False
    return supply[0] < _rounds_left(view) + 1


def reserve_choice(view: PlayerView, children: Sequence[ChildStats], reserve: float) -> Move:
    """``ticket_reserve``'s soft rule, after the search: of the root children with at least
    ``1 - reserve`` of the most visited child's visits ("about as good"), the one that spends
    the least usable ticket (underground before bus before taxi; then the most visits), when
    the mover's taxis are short (:func:`taxis_short`); else the most visited child.
    ``children`` are most visited first (:meth:`MCTSSearch.root_children`)."""
    best = children[0]
    piece = best.move.piece or view.to_move
    if reserve <= 0 or piece is None or not taxis_short(view, piece):
        return best.move

    def rank(c: ChildStats) -> int:
        t = c.move.ticket
        return TICKET_ORDER.index(t) if t in TICKET_ORDER else -1

    close = [c for c in children if c.visits >= (1.0 - reserve) * best.visits
             and (c.move.piece or view.to_move) == piece]
    return max(close, key=lambda c: (rank(c), c.visits, c.value)).move


def attachable_doubles(view: PlayerView, legal: Sequence[Move], move: Move,
                       move_filter: bool = True, boat: bool = False) -> list[Move]:
    """Nijssen & Winands' attach rule: when Mr X's chosen ``move`` is a single step onto a
    station a hunter can reach next, the double moves of ``legal`` that begin with that step
    (a second search picks the second step). Empty when the move is safe, is not a plain
    single step, or no such double move is legal. With ``move_filter`` the second step obeys
    the black-ticket filter: no black ticket in rounds 1-2, on a reveal slot, or when every
    possible location after the first step has taxi links only (ferry lines excepted; with
    ``boat``, every black step from a boat station)."""
    if move.is_double or move.is_pass or move.take_from is not None or move.reveal:
        return []
    if move.to not in hunters_reach(view):
        return []
    assert move.ticket is not None and move.to is not None  # a single step (checked above)
    out = [m for m in legal if m.is_double and not m.reveal and m.ticket == move.ticket
           and m.to == move.to]
    if not move_filter or not out:
        return out
    rules = view.rules
    board = london(rules.board)
    slot = len(view.log) + 1
    if slot in rules.reveal_slots:
        after = {move.to}
    else:
        occ = 0
        for p in rules.hunters:
            occ |= 1 << view.stations[p]
        after = set(step_path_counts(board, {s: 1 for s in view.possible}, int(move.ticket),
                                     occ))
    taxi_only = all(not any(board.neighbours[t][s] for t in (1, 2, 3)) for s in after)
    black_ok = view.round > 2 and slot + 1 not in rules.reveal_slots and not taxi_only
    ferry = board.neighbours[3][move.to]
    return [m for m in out if m.ticket2 != Ticket.BLACK or black_ok
            or (bool(ferry) if boat else m.to2 in ferry)]


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
        #: ``keep_tree``: the public history and the stations when the kept search started,
        #: and its tree
        self._kept: tuple[tuple[PublicMove, ...], dict[str, int], _Tree] | None = None
        #: Iterations of the last move's searches together (the attach rule's second search
        #: included); 0 when the move needed no search.
        self.last_iterations = 0

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
        self.last_iterations = 0
        if len(legal) == 1:
            self.last_search = None
            return legal[0]
        weights = None
        if view.side == "detectives":
            opts = self.options
            modelled = opts.belief in ("policy", "learned")
            if modelled or opts.critical:
                weights = (policy_weights(view) if opts.belief == "policy" else
                           learned_weights(view) if opts.belief == "learned" else
                           resolve_weights(opts.categorization_weights).location_weights(
                               view, opts.roulette)
                           if opts.categorization else {s: 1.0 for s in view.possible})
            if opts.critical:
                last = view.round >= view.rules.last_round
                if last or len(view.possible) <= CRITICAL_POSSIBLE:
                    assert weights is not None
                    total = sum(weights.values()) or 1.0
                    prob, move = best_cover(view, {s: w / total for s, w in weights.items()},
                                            legal)
                    if move is not None and (last or prob >= CRITICAL_PROBABILITY):
                        self.last_search = None
                        return move
            if not modelled:
                weights = None
        opts = self.options
        if view.side == "mr_x" and opts.horizon_step:
            opts = replace(opts, horizon=grown_horizon(opts, budget))
        if opts.fast and compiling():  # the searches run on the pure-Python kernel for now
            budget = while_compiling(budget, opts.playouts)
        reserve = view.side == "detectives" and opts.ticket_reserve > 0
        plan = view.side == "detectives" and opts.ticket_plan != "off"
        root_moves = plan_root_moves(view, legal, opts.ticket_plan) if plan else \
            reserve_root_moves(view, legal) if reserve else legal
        if (reserve or plan) and len(root_moves) == 1:
            self.last_search = None
            return root_moves[0]
        keep = opts.keep_tree and view.side == "detectives" and opts.determinization == "single"
        search = MCTSSearch(view, opts, seed, root_moves=root_moves, weights=weights,
                            reuse=self._reusable(view) if keep else None)
        if keep and search._tree is not None:
            self._kept = (view.history, dict(view.stations), search._tree)
        attach = self.options.attach_double and view.side == "mr_x"
        boat = self.options.black_exemption == "boat_station"
        shared = attach and self.options.attach_budget == "shared" and any(
            m.is_double for m in legal)
        first = rest = budget
        if shared:
            # the attach rule within the budget: the first search two thirds; when its move
            # attaches a double move, the second search gets the last third, else the first
            # search goes on with it (and its move is played as it is)
            first, rest = _split(budget, self.options.playouts)
            search.run_budget(first)
        else:
            search.run_budget(budget)
        self.last_search = search
        move = search.best_move()
        if reserve and opts.vote == "visits":
            move = reserve_choice(view, search.root_children(), opts.ticket_reserve)
        if move not in legal:
            raise RuntimeError(f"MCTS chose {move}, which is not among the legal moves")
        self.last_iterations = search.iterations
        if attach:
            doubles = attachable_doubles(view, legal, move, self.options.move_filter, boat)
            if shared and not doubles:
                search.run_budget(rest)
                move = search.best_move()
                self.last_iterations = search.iterations
            elif doubles:
                second = MCTSSearch(view, opts, seed ^ 0x5DEECE66, root_moves=doubles,
                                    exact_root=True)
                second.run_budget(rest if shared else _half(budget, self.options.playouts))
                self.last_search = second
                self.last_iterations += second.iterations
                move = second.best_move()
                if move not in legal:
                    raise RuntimeError(f"MCTS chose {move}, which is not among the legal moves")
        return move

    def _reusable(self, view: PlayerView) -> tuple[_Tree, int] | None:
        """``keep_tree``: the kept tree and its node that ``view``'s position is, found by
        following the public moves made since the kept search (a teammate's move, this
        piece's own); None when a move is not in that tree or hides a station (Mr X's, in the
        detectives' view), or the view is of another game: the hunters' stations then, moved
        by the moves since, must be theirs now (a game with other starts and the same public
        moves, e.g. the first round of the next game, is another position)."""
        if self._kept is None:
            return None
        history, stations, tree = self._kept
        if len(view.history) < len(history) or view.history[:len(history)] != history:
            return None
        node: int | None = 0
        now = dict(stations)
        for pm in view.history[len(history):]:
            code = _public_code(pm, view.rules)
            if code is None or node is None:
                return None
            node = tree.child(node, code)
            if pm.steps and pm.steps[-1][1] is not None:
                now[pm.piece] = pm.steps[-1][1]
        if any(view.stations.get(p) != now.get(p) for p in view.rules.hunters):
            return None
        return None if node is None else (tree, node)

    def __repr__(self) -> str:
        return f"MCTSAgent(side={self.side!r}, {self.options})"


def _public_code(pm: PublicMove, rules: Rules) -> int | None:
    """The kernel code of a public move, or None when a station of it is hidden or it is not a
    plain move (a ticket take, a voluntary reveal)."""
    if pm.take is not None or pm.reveal:
        return None
    if pm.is_pass:
        return encode(PassMove(pm.piece), pm.piece, rules)
    stations = [st for _, st in pm.steps if st is not None]
    if len(stations) != len(pm.steps):
        return None
    tickets = [t for t, _ in pm.steps]
    if len(stations) == 1:
        return encode(SingleMove(tickets[0], stations[0], pm.piece), pm.piece, rules)
    return encode(DoubleMove(tickets[0], stations[0], tickets[1], stations[1], pm.piece),
                  pm.piece, rules)


class NWAgent(MCTSAgent):
    """Nijssen & Winands' MCTS exactly as published (:data:`NW_SETTINGS`), for either side: the
    fixed baseline every other agent is measured against. It takes no option but ``fast``
    (the same moves either way) and ``playouts`` (the iterations of ``Budget()``)."""

    name = "nw"
    #: what this version of ``nw`` changes in :data:`NW_SETTINGS` (nothing: today's ``nw``)
    changes: ClassVar[Mapping[str, Any]] = {}

    def __init__(self, side: str | None = None, *, fast: bool = True,
                 playouts: int = DEFAULT_PLAYOUTS) -> None:
        super().__init__(side, fast=fast, playouts=playouts,
                         **{**NW_SETTINGS, **self.changes}, **NW_OFF)


class NW20261206Agent(NWAgent):
    """``nw`` as it was until 2026-12-06 (:data:`NW_2026_12_06` over :data:`NW_SETTINGS`),
    for the figures measured against it; the same options as :class:`NWAgent`."""

    name = "nw-2026-12-06"
    changes = NW_2026_12_06


WHILE_COMPILING_SECONDS = 0.4
"""The seconds cap of a playout-bound search while the compiled kernel is still compiling
(:func:`while_compiling`)."""


def while_compiling(budget: Budget, default_playouts: int) -> Budget:
    """The budget of a search that runs on the pure-Python kernel because the compiled one is
    being compiled in the background (:func:`scotlandyard.kernel.fast.compiling`: a server's
    first minutes after a fresh install). A playout-bound budget (``Budget()``, ``medium``'s
    1,000 iterations, ``hard``'s 20,000), which the compiled kernel spends in well under a
    second, gets at most :data:`WHILE_COMPILING_SECONDS`, so the move comes in its usual time
    (with fewer iterations); a time-only budget (``max``) keeps its seconds."""
    if budget.playouts is None and budget.seconds is not None:
        return budget
    seconds = min(budget.seconds or WHILE_COMPILING_SECONDS, WHILE_COMPILING_SECONDS)
    return Budget(playouts=budget.playouts or default_playouts, seconds=seconds)


def warm_up(fast: bool = True) -> bool:
    """Compile (or load from numba's cache) the kernel's playouts and the MCTS search of both
    sides, as the levels run them, instead of during the first AI move: a server does it at
    start (in the background: :func:`scotlandyard.kernel.fast.compile_in_background`). Returns
    True if the compiled kernel is in use."""
    from ..rules import Rules

    def searches(fast: bool) -> None:
        game = Game.new(Rules.classic(), seed=0)
        rng = random.Random(0)
        for _ in range(2):  # Mr X's move, then the first detective's
            piece = game.to_move
            assert piece is not None
            view = game.view(piece)
            agent = best_agent(view.side, fast=fast)
            game.push(agent.choose(view, game.legal_moves(), rng, Budget(playouts=64)))

    return warm_up_kernel(fast, extra=(searches,))


def best_agent(side: str | None = None, **options: Any) -> MCTSAgent:
    """The ``mcts`` agent: :data:`BEST_SETTINGS` over the paper's, then ``options``."""
    agent = MCTSAgent(side, **{**BEST_SETTINGS, **options})
    return agent
