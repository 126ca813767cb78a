"""Fast playouts and search: the kernel of :mod:`scotlandyard.kernel._kernel`, compiled with numba
(``fast=True``) or run as plain Python (``fast=False``, and automatically when numba is missing).

Both paths run the same code with the same random generator, so they give identical moves for
the same seed; the fast path is only faster. Everything a player may know enters through a
:class:`~scotlandyard.view.PlayerView` (or, for research playouts, a ``Game`` that the caller
owns); the kernel state is built with :meth:`Game.from_view`.

>>> from scotlandyard import Game, Rules
>>> from scotlandyard.kernel.fast import playout
>>> game = Game.new(Rules.classic(), seed=3)
>>> result = playout(game, seed=1, fast=False)
>>> result.winner in ("mr_x", "detectives")
True
"""

from __future__ import annotations

import threading
import types
import warnings
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any, Literal

from ..board import london
from ..game import Game
from ..move import MR_X, DoubleMove, Move, SingleMove, TakeMove, Ticket
from ..rules import Rules
from ..view import PlayerView, Reason, Winner
from . import _kernel as K

_KERNEL_FUNCS = (
    "rand_u32", "rand_below", "rand_unit", "encode", "occupied", "occupied_by_detective",
    "hunter_can_move", "mrx_can_move", "check_end", "check_cornered", "gen_hunter", "gen_hunters", "mrx_singles",
    "all_taxi_only", "ticket_row", "taxi_only_after", "is_ferry", "set_belief_single", "bel_has",
    "bel_count", "bel_nth", "bel_expand", "set_occupied", "bel_drop", "move_hunter", "mark_reach",
    "gen_mrx_raw", "gen_mrx", "gen_moves", "mrx_step", "apply_move", "closest_hunter", "choose_mrx_plain", "choose_mrx", "hypothesis",
    "choose_hunter", "playout", "playout_many", "reward", "hkey", "seen_key", "seen_pick",
    "selection_score",
    "backpropagate", "leaf_value", "region_size", "region_value", "backpropagate_value", "mcts_iterate", "gen_legal", "next_take", "save_state", "load_state", "perft",
    "random_games", "batch_record", "batch_play", "batch_count", "batch_fill", "batch_check",
    "gen_legal_i", "apply_move_i", "gen_mrx_raw_i",
)

#: Kernel functions with a ``prange`` loop: compiled with ``parallel=True``.
_PARALLEL = frozenset({"batch_play", "batch_count", "batch_fill", "batch_check"})

#: Kernel functions inlined into their callers (numba's ``inline="always"``; each stays callable
#: from Python): numba links compiled functions without inlining them across, so a call costs
#: passing every array as seven arguments and no optimization across the call, which made up a
#: third of a random game's time. The larger functions stay calls, to keep compile time down.
_INLINE = frozenset({
    "rand_u32", "rand_below", "rand_unit", "encode", "occupied", "occupied_by_detective",
    "hunter_can_move", "mrx_can_move", "is_ferry", "ticket_row", "set_belief_single", "bel_has",
    "set_occupied", "bel_drop", "move_hunter", "bel_expand", "next_take", "all_taxi_only",
    "gen_hunter", "gen_hunters", "mrx_singles", "check_end", "check_cornered", "mrx_step", "batch_record",
    "gen_legal_i", "apply_move_i", "gen_mrx_raw_i", "seen_key", "closest_hunter",
})

OUTCOMES: dict[int, tuple[Winner, Reason]] = {
    K.OUT_SURVIVED: (Winner.MR_X, Reason.SURVIVED),
    K.OUT_STUCK: (Winner.MR_X, Reason.DETECTIVES_STUCK),
    K.OUT_CAUGHT: (Winner.DETECTIVES, Reason.CAUGHT),
    K.OUT_CORNERED: (Winner.DETECTIVES, Reason.CORNERED),
}


# =================================================================================================
# the two kernels
# =================================================================================================
class Kernel:
    """One way of running the kernel: ``fast`` (numba over numpy arrays) or pure Python over
    lists. ``ns`` maps kernel function names to callables."""

    def __init__(self, fast: bool, ns: dict[str, Any]) -> None:
        self.fast = fast
        self.ns = ns
        self._consts: dict[int, tuple[tuple[int, ...], Any]] = {}
        self._np: Any
        if fast:
            import numpy as np

            self._np = np
        else:
            self._np = None

    def ints(self, values: Iterable[int] | int) -> Any:
        """An int64 array (fast) or a list of ints (pure): from values, or ``n`` zeros."""
        if isinstance(values, int):
            return self._np.zeros(values, dtype=self._np.int64) if self.fast else [0] * values
        return self._np.array(list(values), dtype=self._np.int64) if self.fast else list(values)

    def floats(self, values: Iterable[float] | int) -> Any:
        """A float64 array (fast) or a list of floats (pure): from values, or ``n`` zeros."""
        if isinstance(values, int):
            return self._np.zeros(values, dtype=self._np.float64) if self.fast else [0.0] * values
        return self._np.array(list(values), dtype=self._np.float64) if self.fast else [
            float(v) for v in values]

    def const(self, values: tuple[int, ...]) -> Any:
        """A read-only int table (board, rules) in this kernel's form, built once per table."""
        got = self._consts.get(id(values))
        if got is None or got[0] is not values:
            arr = self.ints(values)  # shared: the kernel never writes board or rules tables
            got = (values, arr)
            self._consts[id(values)] = got
        return got[1]

    def grow(self, arr: Any, size: int, fill: float | int) -> Any:
        """``arr`` extended to ``size`` entries (new ones ``fill``)."""
        if len(arr) >= size:
            return arr
        if self.fast:
            np = self._np
            out = np.full(size, fill, dtype=arr.dtype)
            out[: len(arr)] = arr
            return out
        return list(arr) + [fill] * (size - len(arr))

    def __getattr__(self, name: str) -> Any:
        ns = self.__dict__.get("ns")
        if ns is None or name not in ns:
            raise AttributeError(name)
        return ns[name]


@cache
def numba_available() -> bool:
    """True if numba can be imported (the fast path is possible)."""
    try:
        import numba  # noqa: F401
    except ImportError:
        return False
    return True


@cache
def _pure_kernel() -> Kernel:
    return Kernel(False, {name: getattr(K, name) for name in _KERNEL_FUNCS})


@cache
def _fast_kernel() -> Kernel:
    """The kernel compiled with numba (compiled on first use, cached on disk)."""
    import numba

    glb = dict(vars(K))
    glb["prange"] = numba.prange
    out: dict[str, Any] = {}
    for name in _KERNEL_FUNCS:
        f = getattr(K, name)
        g = types.FunctionType(f.__code__, glb, f.__name__, f.__defaults__, f.__closure__)
        g.__module__ = K.__name__
        g.__qualname__ = name  # an alias (gen_legal_i) gets a cache entry of its own
        g.__doc__ = f.__doc__
        inline: Literal["always", "never"] = "always" if name in _INLINE else "never"
        out[name] = numba.njit(cache=True, nogil=True, inline=inline,
                               parallel=name in _PARALLEL)(g)
    glb.update(out)  # kernel functions call each other's compiled versions
    return Kernel(True, out)


def kernel(fast: bool = True) -> Kernel:
    """The fast kernel if ``fast`` and numba is installed, else the pure-Python one. While
    :func:`compile_in_background` compiles, every other thread gets the pure-Python kernel
    (the same moves for the same seed, only slower) instead of waiting for numba."""
    if fast and numba_available():
        busy = _compiler
        if busy is not None and busy is not threading.current_thread():
            return _pure_kernel()
        return _fast_kernel()
    if fast:
        warnings.warn("numba is not installed: using the pure-Python playouts (pip install "
                      "scotlandyard[fast])", RuntimeWarning, stacklevel=2)
    return _pure_kernel()


def warm_up(fast: bool = True, extra: Sequence[Callable[[bool], object]] = ()) -> bool:
    """Compile the kernel's playouts now (or load them from numba's on-disk cache) instead of
    during the first use, then call each of ``extra`` with the kernel's ``fast`` flag: the
    callers pass what else they run on the kernel (``ai.mcts.warm_up`` its search; the kernel
    knows no agent). Returns True if the fast path is in use. ``scotlandyard warm-up`` compiles
    everything (:mod:`scotlandyard.warmup`)."""
    kern = kernel(fast)
    game = Game.new(Rules.classic(), seed=0)
    playout(game, seed=0, fast=kern.fast)
    playouts_per_run(game, 1, seed=0, fast=kern.fast)
    for step in extra:
        step(kern.fast)
    return kern.fast


_compiler: threading.Thread | None = None
"""The thread of :func:`compile_in_background` while it runs (then None)."""
_compiler_lock = threading.Lock()


def compiling() -> bool:
    """True while :func:`compile_in_background` runs: until it ends :func:`kernel` gives the
    pure-Python kernel to every other thread."""
    return _compiler is not None


def compile_in_background(work: Callable[[], object], name: str = "kernel-compile"
                          ) -> threading.Thread:
    """Run ``work`` (a warm-up: it compiles the kernel or loads numba's cache) in a daemon
    thread, which alone uses the compiled kernel until ``work`` returns or fails; meanwhile
    the other threads' searches run on the pure-Python kernel, so nobody waits for numba (a
    server does this at start). Returns the started thread; one at a time (a second call while
    one runs returns that one). Without numba it runs ``work`` all the same."""
    global _compiler

    def run() -> None:
        global _compiler
        try:
            work()
        finally:
            with _compiler_lock:
                _compiler = None

    with _compiler_lock:
        if _compiler is not None:
            return _compiler
        thread = threading.Thread(target=run, name=name, daemon=True)
        _compiler = thread if numba_available() else None
        thread.start()
        return thread


# =================================================================================================
# board, rules and state as flat arrays
# =================================================================================================
@cache
def board_table(name: str) -> tuple[int, ...]:
    """The board ``name`` in the kernel's layout (see :mod:`._kernel`)."""
    board = london(name)
    bd = [0] * K.BD_LEN
    for t in range(4):
        for s in range(1, board.stations + 1):
            nb = board.neighbours[t][s]
            if len(nb) > K.MAXDEG:
                raise ValueError(f"station {s} has more than {K.MAXDEG} links of transport {t}")
            bd[K.BD_NBC + t * K.NS + s] = len(nb)
            for j, d in enumerate(nb):
                bd[K.BD_NB + (t * K.NS + s) * K.MAXDEG + j] = d
    for s in range(1, board.stations + 1):
        anyn = sorted({d for t in range(4) for d in board.neighbours[t][s]})
        bd[K.BD_ANYC + s] = len(anyn)
        for j, d in enumerate(anyn):
            bd[K.BD_ANY + s * K.MAXANY + j] = d
        row = board.distance_row(s)
        for b in range(1, board.stations + 1):
            bd[K.BD_DIST + s * K.NS + b] = row[b]
        only_taxi = not any(board.neighbours[t][s] for t in (1, 2, 3))
        bd[K.BD_TONLY + s] = 1 if only_taxi else 0
        if not only_taxi:
            bd[K.BD_MULTI + s // K.BW] |= 1 << (s % K.BW)
    for s in range(K.NS):
        bd[K.BD_WI + s] = s // K.BW
        bd[K.BD_BIT + s] = 1 << (s % K.BW)
    # the expansion table: per ticket (3: any line), byte c of a bitset and byte value v, the
    # words of the stations one line away from the stations of v (built from the lower bits)
    for t in range(4):
        for c in range(K.NCH):
            for v in range(1, 256):
                low = v & -v
                s = c * 8 + low.bit_length() - 1  # the station of v's lowest bit (BW = 40)
                src = K.BD_EXP + ((t * K.NCH + c) * 256 + (v ^ low)) * K.NW
                words = bd[src: src + K.NW]
                if 0 < s < K.NS:
                    cnt, off = K.ticket_row(bd, t, s)
                    for k in range(cnt):
                        e = bd[off + k]
                        words[e // K.BW] |= 1 << (e % K.BW)
                dst = K.BD_EXP + ((t * K.NCH + c) * 256 + v) * K.NW
                bd[dst: dst + K.NW] = words
    return tuple(bd)


@cache
def rules_table(rules: Rules) -> tuple[int, ...]:
    """The rule settings in the kernel's layout."""
    ru = [0] * K.RU_LEN
    ru[K.RU_UNL] = int(rules.mr_x_unlimited)
    ru[K.RU_HAND] = int(rules.ticket_handover)
    ru[K.RU_FREE] = int(rules.free_order)
    ru[K.RU_SLOTS] = rules.log_slots
    ru[K.RU_LAST] = rules.last_round
    ru[K.RU_PKH] = int(rules.police_keep_hunting)
    ru[K.RU_XREV] = int(rules.extra_reveal)
    if rules.log_slots + 2 >= K.RU_LEN - K.RU_REV:
        raise ValueError(f"the kernel handles up to {K.RU_LEN - K.RU_REV - 3} log slots")
    for s in rules.reveal_slots:
        ru[K.RU_REV + s] = 1
    return tuple(ru)


def state_of_game(game: Game, pending_take: str | None = None) -> list[int]:
    """The kernel state of ``game`` (built from its public accessors and the truth of Mr X's
    station). ``pending_take``: the detective Mr X takes a ticket from next (from a view)."""
    rules = game.rules
    ids = game.pieces
    if len(ids) > 6:
        raise ValueError("the kernel handles at most 5 detective and police pieces")
    st = [0] * K.ST_LEN
    stations = game.stations
    for i, p in enumerate(ids):
        st[K.ST_POS + i] = stations[p]
        if i > 0:
            K.set_occupied(st, stations[p], 1)
    names = (Ticket.TAXI, Ticket.BUS, Ticket.UNDERGROUND, Ticket.BLACK, Ticket.DOUBLE)
    xt = game.tickets(MR_X)
    for k, t in enumerate(names):
        st[K.ST_SUP + k] = xt[t] or 0
    st[K.ST_SUPOF] = 0
    pooled = rules.pooled_supply is not None
    for i, p in enumerate(ids[1:], start=1):
        if i > rules.detectives:
            st[K.ST_SUPOF + i] = -1
            continue
        row = 1 if pooled else i
        st[K.ST_SUPOF + i] = row
        tk = game.tickets(p)
        for k, t in enumerate(names[:3]):
            st[K.ST_SUP + row * 5 + k] = tk[t] or 0
    st[K.ST_N] = len(ids)
    st[K.ST_ND] = rules.detectives
    st[K.ST_ROUND] = game.round
    to_move = game.to_move
    index = {p: i for i, p in enumerate(ids)}
    turn = index[to_move] if to_move is not None else 0
    st[K.ST_TURN] = turn
    moved = 0
    if turn != 0:
        if rules.free_order:
            waiting = set(game.pieces_to_move)
            moved = sum(1 << i for i in range(1, len(ids)) if ids[i] not in waiting)
        else:
            moved = sum(1 << i for i in range(1, turn))
    st[K.ST_MOVED] = moved
    st[K.ST_NLOG] = len(game.log)
    st[K.ST_TAKE] = index[pending_take] if pending_take else 0
    out = game.outcome()
    if out is not None:
        code = {v: k for k, v in OUTCOMES.items()}[(out.winner, out.reason)]
        st[K.ST_OUT] = code
        st[K.ST_CAPT] = index[out.piece] if out.piece else 0
    bits = game.possible_bits
    for w in range(K.NW):
        st[K.ST_BEL + w] = (bits >> (w * K.BW)) & K.WMASK
    return st


def decode(code: int, rules: Rules) -> Move:
    """The :class:`Move` of a kernel move code (with its piece prefix in free order)."""
    piece = code >> 24
    t1 = (code >> 20) & 15
    d1 = (code >> 12) & 255
    t2 = (code >> 8) & 15
    d2 = code & 255
    ids = rules.pieces
    if piece == 0:
        if t1 == K.T_TAKE:
            return Move.take(ids[d2], Ticket(d1))
        if t2 == K.T_NONE:
            return Move.single(Ticket(t1), d1)
        if t2 == K.T_REVEAL:
            return Move.parse(f"{Ticket(t1).letter}{d1}!")
        return Move.double(Ticket(t1), d1, Ticket(t2), d2)
    pid = ids[piece] if rules.free_order else None
    if t1 == K.T_PASS:
        return Move.pass_(pid)
    return Move.single(Ticket(t1), d1, pid)


def encode(move: Move, piece: str, rules: Rules) -> int:
    """The kernel code of ``move`` made by ``piece``."""
    i = rules.pieces.index(move.piece or piece)
    if isinstance(move, TakeMove):
        return int(K.encode(0, K.T_TAKE, int(move.ticket), K.T_NONE,
                            rules.pieces.index(move.take_from)))
    if isinstance(move, DoubleMove):
        return int(K.encode(i, int(move.ticket), move.to, int(move.ticket2), move.to2))
    if isinstance(move, SingleMove):
        return int(K.encode(i, int(move.ticket), move.to,
                            K.T_REVEAL if move.reveal else K.T_NONE, 0))
    return int(K.encode(i, K.T_PASS, 0, K.T_NONE, 0))


def _seed32(seed: int) -> int:
    """A non-zero 32-bit xorshift seed from any int."""
    s = (seed * 0x9E3779B1 + 0x7F4A7C15) & 0xFFFFFFFF
    return s or 0x2545F491


# =================================================================================================
# playouts
# =================================================================================================
@dataclass(frozen=True)
class PlayoutResult:
    """The end of one playout: its moves (as (piece, Move) in the order played), the winner,
    the reason (as in :class:`~scotlandyard.Outcome`) and the capturing piece."""

    moves: tuple[tuple[str, Move], ...]
    winner: str
    reason: str
    piece: str | None


#: The detectives' playout targets (``PlayoutPolicy.cal_target``), in the kernel's numbering.
CAL_TARGETS = ("actual", "possible", "hypothesis")


@dataclass(frozen=True)
class PlayoutPolicy:
    """The playout policy: epsilon-greedy MCD for Mr X (``epsilon_mr_x``), epsilon-greedy CAL
    for the detectives (``epsilon_detectives``; ``cal_target`` ``"actual"`` chases Mr X's
    station in the simulation, ``"possible"`` a station drawn from the possible locations
    afresh every move, ``"hypothesis"`` one hypothesis among them held while it stays possible),
    and Mr X's move filtering (``move_filter``). Epsilons of 1 give random playouts."""

    epsilon_mr_x: float = 0.1
    epsilon_detectives: float = 0.2
    cal_target: str = "actual"
    move_filter: bool = True

    def __post_init__(self) -> None:
        for name in ("epsilon_mr_x", "epsilon_detectives"):
            v = getattr(self, name)
            if not isinstance(v, int | float) or not 0.0 <= v <= 1.0:
                raise ValueError(f"{name} is a probability 0..1, not {v!r}")
        if self.cal_target not in CAL_TARGETS:
            raise ValueError(f"cal_target is 'actual', 'possible' or 'hypothesis', "
                             f"not {self.cal_target!r}")


def _params(kern: Kernel, policy: PlayoutPolicy, c: float = 0.5, w: float = 5.0, r: float = 0.1,
            ph: bool = True, hplay: bool = True, sample: bool = False, nlocs: int = 1
            ) -> tuple[Any, Any]:
    pa = [0.0] * K.PA_LEN
    pa[K.PA_C] = c
    pa[K.PA_W] = w
    pa[K.PA_R] = r
    pa[K.PA_EPSX] = policy.epsilon_mr_x
    pa[K.PA_EPSD] = policy.epsilon_detectives
    pf = [0] * K.PF_LEN
    pf[K.PF_PH] = int(ph)
    pf[K.PF_HPLAY] = int(hplay)
    pf[K.PF_FILT] = int(policy.move_filter)
    pf[K.PF_TARGET] = CAL_TARGETS.index(policy.cal_target)
    pf[K.PF_SAMPLE] = int(sample)
    pf[K.PF_NLOCS] = nlocs
    return kern.floats(pa), kern.ints(pf)


def _scratch(kern: Kernel) -> Any:
    sc = kern.ints(K.SC_LEN)
    sc[K.SC_HK: K.SC_HK + K.HMASK + 1] = [-1] * (K.HMASK + 1)
    return sc


def max_plies(rules: Rules) -> int:
    """An upper bound on the number of moves of one game (for move buffers)."""
    return (rules.last_round + 1) * (len(rules.pieces) + rules.detectives + 2) + 16


def playout(game: Game, seed: int, *, fast: bool = True,
            policy: PlayoutPolicy | None = None) -> PlayoutResult:
    """Play ``game`` (left unchanged) to the end with the playout policy; return every move.

    Research helper: it starts from the game's truth (Mr X's real station). Agents never call
    it; their searches start from views. The moves are legal for ``Game.push`` from the same
    position (tests replay them).
    """
    policy = policy or PlayoutPolicy()
    if game.is_over():
        raise ValueError("the game is over")
    kern = kernel(fast)
    rules = game.rules
    pending = game.view(MR_X).pending_take if game.to_move == MR_X else None
    st = kern.ints(state_of_game(game, pending))
    ru = kern.const(rules_table(rules))
    bd = kern.const(board_table(rules.board))
    pa, pf = _params(kern, policy)
    rng = kern.ints([_seed32(seed)])
    moves = kern.ints(max_plies(rules))
    n = kern.playout(st, ru, bd, pa, pf, rng, kern.ints(K.BUF_LEN), _scratch(kern), moves, 0)
    out = []
    for j in range(n):
        code = int(moves[j])
        out.append((rules.pieces[code >> 24], decode(code, rules)))
    winner, reason = OUTCOMES[int(st[K.ST_OUT])]
    piece = rules.pieces[int(st[K.ST_CAPT])] if st[K.ST_OUT] == K.OUT_CAUGHT else None
    return PlayoutResult(tuple(out), winner, reason, piece)


def playouts_per_run(game: Game, n: int, seed: int, *, fast: bool = True,
                     policy: PlayoutPolicy | None = None) -> tuple[int, int]:
    """Run ``n`` playouts from ``game`` inside the kernel (benchmarks): (Mr X wins, plies)."""
    policy = policy or PlayoutPolicy()
    kern = kernel(fast)
    rules = game.rules
    root = kern.ints(state_of_game(game))
    ru = kern.const(rules_table(rules))
    bd = kern.const(board_table(rules.board))
    pa, pf = _params(kern, policy)
    res = kern.ints(2)
    kern.playout_many(n, root, kern.ints(K.ST_LEN), ru, bd, pa, pf, kern.ints([_seed32(seed)]),
                      kern.ints(K.BUF_LEN), _scratch(kern), kern.ints(max_plies(rules)), res)
    return int(res[0]), int(res[1])


def kernel_moves(view: PlayerView, *, move_filter: bool = True, mr_x: int | None = None
                 ) -> list[Move]:
    """The moves the kernel generates for the side to move in ``view`` (Mr X's filtered by
    the paper's move filtering when ``move_filter``). For a detective view give ``mr_x`` (a
    possible location); it only matters for Mr X's moves."""
    game = Game.from_view(view, mr_x=mr_x)
    return game_moves(game, move_filter=move_filter, pending_take=view.pending_take)


def game_moves(game: Game, *, move_filter: bool = True, pending_take: str | None = None
               ) -> list[Move]:
    """The kernel's moves for the side to move in ``game`` (a game a search built from its own
    view), Mr X's filtered when ``move_filter``."""
    st = state_of_game(game, pending_take)
    buf = [0] * K.BUF_LEN
    n = K.gen_moves(st, rules_table(game.rules), board_table(game.rules.board),
                    int(move_filter), buf, [0] * K.SC_LEN)
    return [decode(c, game.rules) for c in buf[:n]]


def filter_legal(view: PlayerView, legal: Sequence[Move], move_filter: bool = True
                 ) -> list[Move]:
    """Mr X's ``legal`` moves that pass the move filter (all of them if none does, or if it is
    not Mr X's view)."""
    if view.side != "mr_x" or view.to_move != MR_X or not move_filter:
        return list(legal)
    allowed = set(kernel_moves(view, move_filter=True))
    kept = [m for m in legal if m in allowed]
    return kept or list(legal)
