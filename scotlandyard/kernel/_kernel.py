"""The search kernel: Scotland Yard's rules, the playout policies and the MCTS iteration over
flat integer arrays.

This module is written in the subset of Python that numba compiles: flat arrays indexed by
integers, integer arithmetic, no objects. :mod:`scotlandyard.kernel.fast` runs it two ways:

- compiled with ``numba.njit(cache=True)`` over numpy arrays (the fast path);
- as plain Python over lists (the pure path, used when numba is missing or ``fast=False``).

Both run the very same code with the same random generator, so a playout or a search gives the
same moves for the same seed on either path (a test checks it). Every game the kernel plays is
legal for the core engine (tests replay many of them through ``Game.push``).

Layouts (all offsets are module constants):

- a **state** ``st`` (ST_LEN ints): piece stations, ticket supplies, round, turn, pieces moved,
  log length, pending take, outcome, Mr X's possible locations as a bitset (NW words of BW
  bits: station ``s`` is bit ``s % BW`` of word ``s // BW``), the hunters' stations as the
  same kind of bitset and as 0/1 per station;
- the **rules** ``ru``: unlimited tickets, handover, free order, log slots, last round, reveal flags;
- the **board** ``bd``: neighbour tables per transport, the black-ticket (any line, ferry too)
  neighbour table, the detectives' distance table, taxi-only station flags, and for the
  possible-location update an expansion table: for each ticket, byte of the bitset and byte
  value, the stations one line of that ticket away, as NW words;
- a **move** is one int: ``piece<<24 | t1<<20 | d1<<12 | t2<<8 | d2`` (tickets 0..3 = T,B,U,K;
  ``t1 = T_PASS`` a pass; ``t1 = T_TAKE`` Mr X takes ticket ``d1`` from detective ``d2``;
  ``t2 = T_NONE`` for a single step, ``t2 = T_REVEAL`` for a single step with a voluntary
  reveal).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the annotations are for mypy only: numba types the compiled path itself
    from collections.abc import Sequence
    from typing import TypeAlias

    import numpy as np
    from numpy.typing import NDArray

    #: a table the kernel only reads (board, rules, a root state): an int64 array (compiled
    #: path), a list or a tuple of ints (pure path)
    Ints: TypeAlias = NDArray[np.int64] | Sequence[int]
    #: an int table the kernel writes (a state, a buffer, the random generator)
    IntBuf: TypeAlias = NDArray[np.int64] | list[int]
    #: rows of int tables (one state or buffer per game or per level)
    IntRows: TypeAlias = NDArray[np.int64] | list[list[int]]
    #: float tables: read only (search parameters, weights) and written (tree values, history)
    Floats: TypeAlias = NDArray[np.float64] | Sequence[float]
    FloatBuf: TypeAlias = NDArray[np.float64] | list[float]

prange = range  # numba.prange on the compiled path (kernel.fast), a plain range here

# ---- state layout ---------------------------------------------------------------------------
ST_POS = 0        # 6 stations: 0 is Mr X, 1.. the detectives then the police
ST_SUP = 6        # 6 supply rows of 5 (T, B, U, K, double); row 0 is Mr X's
ST_SUPOF = 36     # supply row of each piece (-1: police move free)
ST_N = 42         # number of pieces
ST_ND = 43        # number of detectives (pieces 1..ND; police follow)
ST_ROUND = 44
ST_TURN = 45      # piece to move (0 Mr X); in free order the lowest unmoved hunter
ST_MOVED = 46     # bitset of the hunters that moved this round
ST_NLOG = 47      # slots of Mr X's log filled
ST_TAKE = 48      # R-VAR-EXTRA-REVEAL: detective Mr X takes a ticket from next (0 none)
ST_OUT = 49       # outcome (OUT_*)
ST_CAPT = 50      # the piece that caught Mr X
ST_HYP = 52       # MCTS playouts only (target mode 2): the hunters' hypothesis of Mr X's station (0 none)
ST_HYPLOG = 53    # MCTS playouts only: Mr X's log length when the hypothesis last moved
ST_BEL = 54       # NW words: bitset of Mr X's possible locations (R-BELIEF)
ST_OCCW = 59      # NW words: bitset of the stations held by a detective or police piece
ST_OCC = 64       # 200 flags: stations held by a detective or police piece
ST_LEN = 264

# ---- bitsets of stations --------------------------------------------------------------------
BW = 40           # bits per word (well inside int64 on both paths)
NW = 5            # words: 200 bits, stations 0..199
WMASK = (1 << BW) - 1
NCH = 25          # bytes of a bitset (5 per word)

OUT_NONE = 0
OUT_SURVIVED = 1
OUT_STUCK = 2
OUT_CAUGHT = 3
OUT_CORNERED = 4

# ---- rules layout ---------------------------------------------------------------------------
RU_UNL = 0
RU_HAND = 1
RU_FREE = 2
RU_SLOTS = 3
RU_LAST = 4
RU_PKH = 5        # R-END (3): police keep the hunt going once every detective is stuck
RU_XREV = 6       # R-VAR-EXTRA-REVEAL: Mr X may reveal himself on a single move
RU_REV = 8        # RU_REV + slot: 1 if that log slot is a reveal slot
RU_LEN = RU_REV + 2100

# ---- board layout ---------------------------------------------------------------------------
NS = 200          # station index range (0 unused)
MAXDEG = 8
MAXANY = 16
BD_NB = 0                         # (t*NS + s)*MAXDEG + j, t = 0..3
BD_NBC = BD_NB + 4 * NS * MAXDEG  # t*NS + s
BD_ANY = BD_NBC + 4 * NS          # s*MAXANY + j: stations one line of any transport away
BD_ANYC = BD_ANY + NS * MAXANY
BD_DIST = BD_ANYC + NS            # a*NS + b: fewest moves on the detectives' network
BD_TONLY = BD_DIST + NS * NS      # 1 for a station with taxi links only (no bus, underground, ferry)
BD_EXP = BD_TONLY + NS            # ((t*NCH + c)*256 + v)*NW + w: word w of the stations one
#                                   ticket-t line (t 3: any line) from the stations of byte
#                                   value v in byte c of a bitset
BD_MULTI = BD_EXP + 4 * NCH * 256 * NW  # NW words: the stations that are not taxi-only
BD_WI = BD_MULTI + NW             # s: the word of station s in a bitset (s // BW)
BD_BIT = BD_WI + NS               # s: the bit of station s in its word (1 << (s % BW))
BD_LEN = BD_BIT + NS

# ---- moves ----------------------------------------------------------------------------------
T_BLACK = 3
T_PASS = 4
T_TAKE = 5
T_REVEAL = 6      # t2 of a single move with a voluntary reveal (R-VAR-EXTRA-REVEAL)
T_NONE = 7

# ---- search parameters ------------------------------------------------------------------------
PA_C = 0          # UCT exploration constant
PA_W = 1          # progressive history weight
PA_R = 2          # coalition reduction
PA_EPSX = 3       # epsilon of Mr X's playout policy
PA_EPSD = 4       # epsilon of the detectives' playout policy
PA_INFO = 5       # Mr X's search, a playout stopped at the horizon: weight of the information term
PA_REG = 6        # Mr X's search, a playout stopped at the horizon: weight of the region term
PA_LEN = 8

PF_PH = 0         # progressive history on
PF_HPLAY = 1      # playout moves update the history table
PF_FILT = 2       # Mr X move filtering
PF_TARGET = 3     # detectives' playout target: 0 Mr X's (determinized) station, 1 a possible location
PF_SAMPLE = 4     # sample Mr X's station each iteration (the detectives' search)
PF_NLOCS = 5      # number of locations to sample from
PF_NROOT = 6      # root moves restricted to the first PF_NROOT codes of ``ra`` (0: all)
PF_OPEN = 7       # Mr X's search: the hunters' moves in the tree are played by their playout
#                   policy, not searched (open loop: the tree holds Mr X's moves only)
PF_ROOTX = 8      # the root's moves are exactly the PF_NROOT codes of ``ra`` (unfiltered)
PF_HORIZON = 9    # Mr X's search: a playout stops after this many of his moves (0: at the end)
PF_PFILT = 10     # the playouts' Mr X move filter (FILT_* bits; 0: the same as PF_FILT)
PF_COAL = 11      # coalition reduction from the root hunter's side (1) or per piece (0)
PF_XNODE = 12     # the detectives' search: Mr X's nodes in the tree are his moves (0) or what
#                   the detectives see of them (1: the tickets, a station only on a reveal;
#                   the station then drawn by his playout policy among that node's moves)
PF_LEN = 13

# Mr X's move filter (``filt``, PF_FILT / PF_PFILT), bits: 0 none; FILT_ON the filter (black
# tickets and double moves); FILT_NODOUBLE with it, no double-move test (black only);
# FILT_BOAT a black ticket is never filtered from a boat station (Nijssen's thesis) instead of
# on a ferry line only.
FILT_ON = 1
FILT_NODOUBLE = 2
FILT_BOAT = 4
#: the attach rule in the move generator (the seekers' model of the hider): with a double move
#: left, a single step onto a station a hunter can reach is replaced by the double moves that
#: begin with it, and those are the only double moves (the double-move test is not made)
FILT_ATTACH = 8

#: The information term's reference: a possible set this large (or larger) hides Mr X fully.
INFO_REF = 32
#: The region term's reference: this many stations nearer Mr X than every hunter (or more)
#: leave him room enough.
REGION_REF = 12

# ---- tree layout --------------------------------------------------------------------------------
TR_MOVE = 0
TR_PARENT = 1
TR_CHILD = 2
TR_SIB = 3
TR_VIS = 4
TR_W = 5          # ints per node

MT_NODES = 0
MT_ITERS = 1
MT_PLIES = 2      # playout plies played
MT_LEN = 4

# ---- scratch layout -------------------------------------------------------------------------------
SC_T = 0          # first-step singles: tickets (64) then stations (64)
SC_T2 = 128       # second-step singles
SC_HK = 256       # hash of legal moves: keys (-1 empty)
SC_HF = SC_HK + 4096   # hash flags: legal move already has a child
SC_LS = SC_HF + 4096   # hash slot of each legal move
SC_REACH = SC_LS + 4096  # 200 flags, kept zero between uses: stations a hunter can reach
SC_LEN = SC_REACH + NS
HMASK = 4095
BUF_LEN = 4096

# ---- history table --------------------------------------------------------------------------------
H_SINGLE = 1200   # per piece: t1*200 + d1 (t1 = 0..5)
H_DOUBLE = 6 * H_SINGLE
H_LEN = H_DOUBLE + 4 * 200 * 4 * 200


# =================================================================================================
# random numbers: xorshift32 kept in rng[0]; identical in Python ints and numba int64
# =================================================================================================
def rand_u32(rng: IntBuf) -> int:
    """Next 32-bit random number (xorshift32)."""
    x = rng[0]
    x ^= (x << 13) & 0xFFFFFFFF
    x ^= x >> 17
    x ^= (x << 5) & 0xFFFFFFFF
    rng[0] = x
    return x


def rand_below(rng: IntBuf, n: int) -> int:
    """Uniform integer in 0..n-1."""
    return (rand_u32(rng) * n) >> 32


def rand_unit(rng: IntBuf) -> float:
    """Uniform float in [0, 1)."""
    return rand_u32(rng) / 4294967296.0


# =================================================================================================
# rules
# =================================================================================================
def encode(piece: int, t1: int, d1: int, t2: int, d2: int) -> int:
    """Pack a move into one int."""
    return (piece << 24) | (t1 << 20) | (d1 << 12) | (t2 << 8) | d2


def occupied(st: IntBuf, s: int) -> bool:
    """True if a detective or police piece stands on ``s``."""
    return st[ST_OCC + s] != 0


def occupied_by_detective(st: IntBuf, s: int) -> bool:
    """True if a detective (not police) piece stands on ``s``."""
    for i in range(1, st[ST_ND] + 1):
        if st[ST_POS + i] == s:
            return True
    return False


def hunter_can_move(st: IntBuf, bd: Ints, i: int, police_block: int) -> bool:
    """R-MOVE-2: hunter ``i`` has a legal move (``police_block`` 0: police pieces are treated
    as absent, as R-END (3) reads it)."""
    p = st[ST_POS + i]
    si = st[ST_SUPOF + i]
    for t in range(3):
        if si >= 0 and st[ST_SUP + si * 5 + t] <= 0:
            continue
        base = t * NS + p
        for j in range(bd[BD_NBC + base]):
            d = bd[BD_NB + base * MAXDEG + j]
            if police_block != 0:
                if not occupied(st, d):
                    return True
            elif not occupied_by_detective(st, d):
                return True
    return False


def mrx_can_move(st: IntBuf, ru: Ints, bd: Ints) -> bool:
    """Mr X has a single move (R-END 4 otherwise)."""
    x = st[ST_POS]
    if st[ST_SUP + 3] > 0:
        for j in range(bd[BD_ANYC + x]):
            if not occupied(st, bd[BD_ANY + x * MAXANY + j]):
                return True
    unl = ru[RU_UNL]
    for t in range(3):
        if unl == 0 and st[ST_SUP + t] <= 0:
            continue
        base = t * NS + x
        for j in range(bd[BD_NBC + base]):
            if not occupied(st, bd[BD_NB + base * MAXDEG + j]):
                return True
    return False


def check_end(st: IntBuf, ru: Ints, bd: Ints) -> None:
    """R-END (3) detectives stuck and (4) Mr X cornered, after a move."""
    stuck = True
    if ru[RU_PKH] != 0 or st[ST_N] == st[ST_ND] + 1:  # without police the two readings agree
        for i in range(1, st[ST_N]):
            if hunter_can_move(st, bd, i, 1):
                stuck = False
                break
    else:  # the 2014 book: only the detectives keep the hunt going
        for i in range(1, st[ST_ND] + 1):
            if hunter_can_move(st, bd, i, 0):
                stuck = False
                break
    if stuck:
        st[ST_OUT] = OUT_STUCK
        return
    check_cornered(st, ru, bd)


def check_cornered(st: IntBuf, ru: Ints, bd: Ints) -> None:
    """R-END (4): Mr X to move with no single move is cornered."""
    if st[ST_TURN] == 0 and st[ST_TAKE] == 0 and not mrx_can_move(st, ru, bd):
        st[ST_OUT] = OUT_CORNERED


def gen_hunter(st: IntBuf, bd: Ints, i: int, buf: IntBuf, k: int, with_pass: int) -> int:
    """Append hunter ``i``'s moves (or, with ``with_pass``, its pass) to ``buf`` from ``k``;
    return the new end."""
    start = k
    p = st[ST_POS + i]
    si = st[ST_SUPOF + i]
    for t in range(3):
        if si >= 0 and st[ST_SUP + si * 5 + t] <= 0:
            continue
        base = t * NS + p
        for j in range(bd[BD_NBC + base]):
            d = bd[BD_NB + base * MAXDEG + j]
            if not occupied(st, d):
                buf[k] = (i << 24) | (t << 20) | (d << 12) | (T_NONE << 8)
                k += 1
    if k == start and with_pass != 0:
        buf[k] = (i << 24) | (T_PASS << 20) | (T_NONE << 8)
        k += 1
    return k


def gen_hunters(st: IntBuf, ru: Ints, bd: Ints, buf: IntBuf) -> int:
    """The detectives' side's moves: the piece to move, or every unmoved piece in free order."""
    if ru[RU_FREE] == 0:
        return gen_hunter(st, bd, st[ST_TURN], buf, 0, 1)
    k = 0
    moved = st[ST_MOVED]
    for i in range(1, st[ST_N]):
        if not (moved >> i) & 1:
            k = gen_hunter(st, bd, i, buf, k, 0)
    if k == 0:  # R-ORDER-FREE: a piece passes only when no unmoved piece has a real move
        for i in range(1, st[ST_N]):
            if not (moved >> i) & 1:
                buf[k] = (i << 24) | (T_PASS << 20) | (T_NONE << 8)
                k += 1
    return k


def mrx_singles(st: IntBuf, ru: Ints, bd: Ints, at: int, s0: int, s1: int, s2: int, s3: int,
                sc: IntBuf, off: int, k: int) -> int:
    """Mr X's single steps from ``at`` with tickets s0..s3 into sc[off+k] (ticket) and
    sc[off+64+k] (station); return the new count."""
    unl = ru[RU_UNL]
    for t in range(3):
        c = s0
        if t == 1:
            c = s1
        elif t == 2:
            c = s2
        if unl == 0 and c <= 0:
            continue
        base = t * NS + at
        for j in range(bd[BD_NBC + base]):
            d = bd[BD_NB + base * MAXDEG + j]
            if not occupied(st, d):
                sc[off + k] = t
                sc[off + 64 + k] = d
                k += 1
    if s3 > 0:
        for j in range(bd[BD_ANYC + at]):
            d = bd[BD_ANY + at * MAXANY + j]
            if not occupied(st, d):
                sc[off + k] = T_BLACK
                sc[off + 64 + k] = d
                k += 1
    return k


def all_taxi_only(st: IntBuf, bd: Ints) -> bool:
    """True if every possible location of Mr X has taxi links only (a black ticket hides
    nothing there). A ferry station is never taxi-only."""
    for w in range(NW):
        if st[ST_BEL + w] & bd[BD_MULTI + w] != 0:
            return False
    return True


def ticket_row(bd: Ints, t: int, s: int) -> tuple[int, int]:
    """(count, offset in ``bd``) of the stations one ``t`` line from ``s`` (black: any line,
    ferry included)."""
    if t == T_BLACK:
        return bd[BD_ANYC + s], BD_ANY + s * MAXANY
    return bd[BD_NBC + t * NS + s], BD_NB + (t * NS + s) * MAXDEG


def taxi_only_after(st: IntBuf, ru: Ints, bd: Ints, t: int, d: int) -> bool:
    """True if every possible location of Mr X after his step with ticket ``t`` to ``d`` has
    taxi links only (the test for the second step of a double move): ``d`` alone if that step
    fills a reveal slot, else every free station one ``t`` line (any line for black) from a
    possible location."""
    if ru[RU_REV + st[ST_NLOG] + 1] != 0:
        return bd[BD_TONLY + d] != 0
    n0, n1, n2, n3, n4 = bel_expand(st, bd, t)
    return ((n0 & ~st[ST_OCCW] & bd[BD_MULTI]) | (n1 & ~st[ST_OCCW + 1] & bd[BD_MULTI + 1])
            | (n2 & ~st[ST_OCCW + 2] & bd[BD_MULTI + 2])
            | (n3 & ~st[ST_OCCW + 3] & bd[BD_MULTI + 3])
            | (n4 & ~st[ST_OCCW + 4] & bd[BD_MULTI + 4])) == 0


def is_ferry(bd: Ints, a: int, b: int) -> bool:
    """True if a ferry line joins ``a`` and ``b`` (only a black ticket travels it)."""
    base = 3 * NS + a
    for j in range(bd[BD_NBC + base]):
        if bd[BD_NB + base * MAXDEG + j] == b:
            return True
    return False


def set_belief_single(st: IntBuf, d: int) -> None:
    """Mr X's possible locations become exactly ``d``."""
    for w in range(NW):
        st[ST_BEL + w] = 0
    st[ST_BEL + d // BW] = 1 << (d % BW)


def bel_drop(st: IntBuf, bd: Ints, s: int) -> None:
    """Station ``s`` is no longer a possible location of Mr X (a hunter stands there)."""
    st[ST_BEL + bd[BD_WI + s]] &= ~bd[BD_BIT + s]


def bel_has(st: IntBuf, s: int) -> bool:
    """True if ``s`` is one of Mr X's possible locations."""
    return (st[ST_BEL + s // BW] >> (s % BW)) & 1 != 0


def bel_count(st: IntBuf) -> int:
    """The number of Mr X's possible locations."""
    n = 0
    for w in range(NW):
        x = st[ST_BEL + w]
        while x != 0:
            x &= x - 1
            n += 1
    return n


def bel_nth(st: IntBuf, k: int) -> int:
    """The ``k``-th (from 0, in station order) of Mr X's possible locations (0: none)."""
    for w in range(NW):
        x = st[ST_BEL + w]
        b = 0
        while x != 0:
            if x & 1:
                if k == 0:
                    return w * BW + b
                k -= 1
            x >>= 1
            b += 1
    return 0


def bel_expand(st: IntBuf, bd: Ints, t: int) -> tuple[int, int, int, int, int]:
    """The NW words of every station one ticket-``t`` line (t 3: any line) from a possible
    location of Mr X (held stations included)."""
    n0 = 0
    n1 = 0
    n2 = 0
    n3 = 0
    n4 = 0
    for w in range(NW):
        x = st[ST_BEL + w]
        c = t * NCH + w * 5
        while x != 0:
            v = x & 255
            if v != 0:
                off = BD_EXP + (c * 256 + v) * NW
                n0 |= bd[off]
                n1 |= bd[off + 1]
                n2 |= bd[off + 2]
                n3 |= bd[off + 3]
                n4 |= bd[off + 4]
            x >>= 8
            c += 1
    return n0, n1, n2, n3, n4


def set_occupied(st: IntBuf, s: int, flag: int) -> None:
    """Mark ``s`` as held (flag 1) or free (flag 0) by a detective or police piece."""
    st[ST_OCC + s] = flag
    if flag != 0:
        st[ST_OCCW + s // BW] |= 1 << (s % BW)
    else:
        st[ST_OCCW + s // BW] &= ~(1 << (s % BW))


def move_hunter(st: IntBuf, bd: Ints, i: int, d: int) -> None:
    """Hunter ``i`` goes to station ``d`` (its station and the occupancy flags and words)."""
    a = st[ST_POS + i]
    st[ST_OCC + a] = 0
    st[ST_OCCW + bd[BD_WI + a]] &= ~bd[BD_BIT + a]
    st[ST_OCC + d] = 1
    st[ST_OCCW + bd[BD_WI + d]] |= bd[BD_BIT + d]
    st[ST_POS + i] = d


def mark_reach(st: IntBuf, bd: Ints, sc: IntBuf, flag: int) -> None:
    """Set (flag 1) or clear (flag 0) sc[SC_REACH + d] for every station ``d`` a detective or
    police piece can move to in one move (with its tickets)."""
    n = st[ST_N]
    for i in range(1, n):
        p = st[ST_POS + i]
        si = st[ST_SUPOF + i]
        for t in range(3):
            if si >= 0 and st[ST_SUP + si * 5 + t] <= 0:
                continue
            base = t * NS + p
            for j in range(bd[BD_NBC + base]):
                sc[SC_REACH + bd[BD_NB + base * MAXDEG + j]] = flag


def gen_mrx_raw(st: IntBuf, ru: Ints, bd: Ints, filt: int, buf: IntBuf, sc: IntBuf) -> int:
    """Mr X's moves (singles, then doubles), filtered when ``filt`` (see gen_mrx)."""
    take = st[ST_TAKE]
    if take != 0:
        si = st[ST_SUPOF + take]
        k = 0
        for t in range(3):
            if st[ST_SUP + si * 5 + t] > 0:
                buf[k] = (T_TAKE << 20) | (t << 12) | (T_NONE << 8) | take
                k += 1
        return k
    x = st[ST_POS]
    s0 = st[ST_SUP]
    s1 = st[ST_SUP + 1]
    s2 = st[ST_SUP + 2]
    s3 = st[ST_SUP + 3]
    ns = mrx_singles(st, ru, bd, x, s0, s1, s2, s3, sc, SC_T, 0)
    nlog = st[ST_NLOG]
    black1 = True
    black2 = True
    dbl = st[ST_SUP + 4] > 0 and nlog + 2 <= ru[RU_SLOTS] and ns > 0
    boat = (filt & FILT_BOAT) != 0
    attach = dbl and filt != 0 and (filt & FILT_ATTACH) != 0 and (filt & FILT_NODOUBLE) == 0
    if filt != 0:
        early = st[ST_ROUND] <= 2
        black1 = not (early or all_taxi_only(st, bd) or ru[RU_REV + nlog + 1] != 0)
        # the second step's taxi-only test is made on the possible locations after the first
        # step (below, per first step); here only the round and the reveal slot
        black2 = not (early or ru[RU_REV + nlog + 2] != 0)
        if dbl and not attach and (filt & FILT_NODOUBLE) == 0:
            # in danger only if every single move lands next to a hunter: a quick look at the
            # distance table first, then the exact test (lines the hunters have tickets for)
            nh = st[ST_N]
            for j in range(ns):
                d = sc[SC_T + 64 + j]
                near = False
                for i in range(1, nh):
                    if bd[BD_DIST + st[ST_POS + i] * NS + d] == 1:
                        near = True
                        break
                if not near:
                    dbl = False
                    break
            if dbl:
                mark_reach(st, bd, sc, 1)
                for j in range(ns):
                    if sc[SC_REACH + sc[SC_T + 64 + j]] == 0:
                        dbl = False
                        break
                mark_reach(st, bd, sc, 0)
    # the ferry exception: a black ticket on a ferry line is never filtered (it is the only
    # ticket that line takes); with FILT_BOAT, no black ticket from a boat station is
    if attach:
        mark_reach(st, bd, sc, 1)
    k = 0
    for j in range(ns):
        t = sc[SC_T + j]
        if attach and sc[SC_REACH + sc[SC_T + 64 + j]] != 0:
            continue
        if t == T_BLACK and not black1 and not (bd[BD_NBC + 3 * NS + x] > 0 if boat else
                                              is_ferry(bd, x, sc[SC_T + 64 + j])):
            continue
        buf[k] = (t << 20) | (sc[SC_T + 64 + j] << 12) | (T_NONE << 8)
        k += 1
    if dbl:
        unl = ru[RU_UNL]
        # taxi-only test of the possible locations after a first step, per ticket (0..3):
        # -1 not computed yet, 0 no, 1 yes (a reveal slot makes it depend on the station)
        tx0 = -1
        tx1 = -1
        tx2 = -1
        tx3 = -1
        rev1 = ru[RU_REV + nlog + 1] != 0
        for j in range(ns):
            t1 = sc[SC_T + j]
            d1 = sc[SC_T + 64 + j]
            if attach and sc[SC_REACH + d1] == 0:
                continue
            if t1 == T_BLACK and not black1 and not (bd[BD_NBC + 3 * NS + x] > 0 if boat
                                                   else is_ferry(bd, x, d1)):
                continue
            k0 = k
            b2 = black2
            if filt != 0 and b2:
                if rev1:
                    taxi2 = bd[BD_TONLY + d1] != 0
                else:
                    cached = tx3
                    if t1 == 0:
                        cached = tx0
                    elif t1 == 1:
                        cached = tx1
                    elif t1 == 2:
                        cached = tx2
                    if cached < 0:
                        cached = 1 if taxi_only_after(st, ru, bd, t1, d1) else 0
                        if t1 == 0:
                            tx0 = cached
                        elif t1 == 1:
                            tx1 = cached
                        elif t1 == 2:
                            tx2 = cached
                        else:
                            tx3 = cached
                    taxi2 = cached == 1
                b2 = not taxi2
            a0 = s0
            a1 = s1
            a2 = s2
            a3 = s3
            if t1 == T_BLACK:
                a3 -= 1
            elif unl == 0:
                if t1 == 0:
                    a0 -= 1
                elif t1 == 1:
                    a1 -= 1
                else:
                    a2 -= 1
            n2 = mrx_singles(st, ru, bd, d1, a0, a1, a2, a3, sc, SC_T2, 0)
            for m in range(n2):
                t2 = sc[SC_T2 + m]
                if t2 == T_BLACK and not b2 and not (
                        bd[BD_NBC + 3 * NS + d1] > 0 if boat
                        else is_ferry(bd, d1, sc[SC_T2 + 64 + m])):
                    continue
                buf[k] = (t1 << 20) | (d1 << 12) | (t2 << 8) | sc[SC_T2 + 64 + m]
                k += 1
            if attach and k == k0:
                # no double move begins with this step: the single step stays
                buf[k] = (t1 << 20) | (d1 << 12) | (T_NONE << 8)
                k += 1
    if attach:
        mark_reach(st, bd, sc, 0)
    return k


# gen_legal calls this name: the same function, which the compiled path inlines there (its
# unfiltered moves are the move generator of perft, Position and the loops over many games);
# the search's filtered generator (gen_mrx) keeps a plain call.
gen_mrx_raw_i = gen_mrx_raw


def gen_mrx(st: IntBuf, ru: Ints, bd: Ints, filt: int, buf: IntBuf, sc: IntBuf) -> int:
    """Mr X's moves into ``buf``; return their number.

    With ``filt`` (move filtering, Nijssen & Winands 2012): no black ticket in rounds 1-2,
    on a reveal slot, or when every possible location has taxi links only; a double move only
    when every single move lands where a detective or police piece can move next. If that
    leaves nothing, every move is allowed. Voluntary reveals (R-VAR-EXTRA-REVEAL) are never
    generated.
    """
    k = gen_mrx_raw(st, ru, bd, filt, buf, sc)
    if k == 0 and filt != 0:
        k = gen_mrx_raw(st, ru, bd, 0, buf, sc)
    return k


def gen_moves(st: IntBuf, ru: Ints, bd: Ints, filt: int, buf: IntBuf, sc: IntBuf) -> int:
    """The moves of the side to move (all unmoved hunters in free order)."""
    if st[ST_TURN] == 0:
        return gen_mrx(st, ru, bd, filt, buf, sc)
    return gen_hunters(st, ru, bd, buf)


def gen_legal(st: IntBuf, ru: Ints, bd: Ints, buf: IntBuf, sc: IntBuf) -> int:
    """Every legal move, exactly as ``Game.legal_moves()`` (no move filter; the voluntary
    reveals of R-VAR-EXTRA-REVEAL included); none once the game is over."""
    if st[ST_OUT] != OUT_NONE:
        return 0
    if st[ST_TURN] != 0:
        return gen_hunters(st, ru, bd, buf)
    k = gen_mrx_raw_i(st, ru, bd, 0, buf, sc)
    if st[ST_TAKE] == 0 and ru[RU_XREV] != 0 and ru[RU_REV + st[ST_NLOG] + 1] == 0:
        n = k
        for j in range(n):
            c = buf[j]
            if (c >> 8) & 15 == T_NONE:
                buf[k] = (c & ~(15 << 8)) | (T_REVEAL << 8)
                k += 1
    return k


def next_take(st: IntBuf, j: int) -> int:
    """The first detective from ``j`` on that has a ticket for Mr X to take (0: none)."""
    while j <= st[ST_ND]:
        sj = st[ST_SUPOF + j]
        if st[ST_SUP + sj * 5] > 0 or st[ST_SUP + sj * 5 + 1] > 0 or st[ST_SUP + sj * 5 + 2] > 0:
            return j
        j += 1
    return 0


def save_state(st: IntBuf, to: IntBuf) -> None:
    """Copy the state ``st`` into ``to``."""
    to[0:ST_LEN] = st[0:ST_LEN]


def load_state(st: IntBuf, frm: IntBuf) -> None:
    """Restore a state saved by :func:`save_state` (the undo of any number of moves)."""
    st[0:ST_LEN] = frm[0:ST_LEN]


def perft(st: IntBuf, ru: Ints, bd: Ints, depth: int, counts: IntBuf, stack: IntRows,
          bufs: IntRows, nmv: IntBuf, idx: IntBuf, sc: IntBuf) -> None:
    """Count the move tree of ``st`` to ``depth``: ``counts[k]`` += the positions ``k + 1``
    moves deep (a finished game has no moves). ``stack``/``bufs`` have ``depth`` rows of
    ST_LEN/BUF_LEN; ``st`` is left as it was."""
    if depth <= 0:
        return
    save_state(st, stack[0])
    n = gen_legal(st, ru, bd, bufs[0], sc)
    counts[0] += n
    nmv[0] = n
    idx[0] = n if depth == 1 else 0
    lvl = 0
    while lvl >= 0:
        if idx[lvl] >= nmv[lvl]:
            lvl -= 1
            continue
        code = bufs[lvl][idx[lvl]]
        idx[lvl] += 1
        load_state(st, stack[lvl])
        apply_move(st, ru, bd, code)
        if st[ST_OUT] == OUT_NONE:
            nxt = lvl + 1
            n = gen_legal(st, ru, bd, bufs[nxt], sc)
            counts[nxt] += n
            if nxt + 1 < depth and n > 0:
                save_state(st, stack[nxt])
                nmv[nxt] = n
                idx[nxt] = 0
                lvl = nxt
    load_state(st, stack[0])


def mrx_step(st: IntBuf, ru: Ints, bd: Ints, t: int, d: int) -> None:
    """One step of Mr X: pay, write the log slot, update the possible locations (R-BELIEF)."""
    if t == T_BLACK or ru[RU_UNL] == 0:
        st[ST_SUP + t] -= 1
    nlog = st[ST_NLOG] + 1
    st[ST_NLOG] = nlog
    if ru[RU_REV + nlog] != 0:
        set_belief_single(st, d)
        return
    # every station one line of the ticket's transport (any line for black) from a possible
    # station, minus the stations held by hunters
    n0, n1, n2, n3, n4 = bel_expand(st, bd, t)
    st[ST_BEL] = n0 & ~st[ST_OCCW]
    st[ST_BEL + 1] = n1 & ~st[ST_OCCW + 1]
    st[ST_BEL + 2] = n2 & ~st[ST_OCCW + 2]
    st[ST_BEL + 3] = n3 & ~st[ST_OCCW + 3]
    st[ST_BEL + 4] = n4 & ~st[ST_OCCW + 4]


def apply_move(st: IntBuf, ru: Ints, bd: Ints, code: int) -> None:
    """Make a legal move (mirrors ``Game.push``), then check the end of the game (R-END)."""
    piece = code >> 24
    t1 = (code >> 20) & 15
    d1 = (code >> 12) & 255
    t2 = (code >> 8) & 15
    d2 = code & 255
    move_round = st[ST_ROUND]
    back = False  # see below
    if piece == 0:
        if t1 == T_TAKE:
            j = st[ST_TAKE]
            si = st[ST_SUPOF + j]
            st[ST_SUP + si * 5 + d1] -= 1
            if ru[RU_UNL] == 0:
                st[ST_SUP + d1] += 1
            nxt = next_take(st, j + 1)
            st[ST_TAKE] = nxt
            if nxt == 0:
                st[ST_TURN] = 1
                st[ST_MOVED] = 0
        elif t2 == T_REVEAL:
            mrx_step(st, ru, bd, t1, d1)
            set_belief_single(st, d1)
            st[ST_POS] = d1
            nxt = next_take(st, 1)
            st[ST_TAKE] = nxt
            if nxt == 0:
                st[ST_TURN] = 1
                st[ST_MOVED] = 0
            return  # Mr X's step leaves the hunters' moves as they were: no R-END to check
        else:
            if t2 != T_NONE:
                st[ST_SUP + 4] -= 1
            mrx_step(st, ru, bd, t1, d1)
            if t2 != T_NONE:
                mrx_step(st, ru, bd, t2, d2)
                st[ST_POS] = d2
            else:
                st[ST_POS] = d1
            st[ST_TURN] = 1
            st[ST_MOVED] = 0
            return  # as above: the hunters were not stuck before, and Mr X cannot be cornered
    else:
        i = piece
        # R-END (3) needs no search when the mover can go back: it still holds a ticket of the
        # kind it spent and the station it left is free (Game keeps the same witness); police
        # count only when they keep the hunt going
        back = False
        if t1 != T_PASS:
            si = st[ST_SUPOF + i]
            if si >= 0:
                left = st[ST_SUP + si * 5 + t1] - 1
                st[ST_SUP + si * 5 + t1] = left
                back = left > 0
                if ru[RU_HAND] != 0 and ru[RU_UNL] == 0:
                    st[ST_SUP + t1] += 1
            else:
                back = True
            if i > st[ST_ND] and ru[RU_PKH] == 0:
                back = False
            move_hunter(st, bd, i, d1)
            if d1 == st[ST_POS]:
                set_belief_single(st, d1)
                st[ST_OUT] = OUT_CAUGHT
                st[ST_CAPT] = i
                return
            bel_drop(st, bd, d1)
        moved = st[ST_MOVED] | (1 << i)
        st[ST_MOVED] = moved
        full = ((1 << st[ST_N]) - 1) & ~1
        if moved == full:
            if st[ST_ROUND] >= ru[RU_LAST]:
                st[ST_OUT] = OUT_SURVIVED
                return
            st[ST_ROUND] += 1
            st[ST_TURN] = 0
            st[ST_MOVED] = 0
        elif ru[RU_FREE] != 0:
            j = 1
            while (moved >> j) & 1:
                j += 1
            st[ST_TURN] = j
        else:
            st[ST_TURN] = i + 1
    if st[ST_OUT] == OUT_NONE:
        if back:
            check_cornered(st, ru, bd)
            return
        check_end(st, ru, bd)
        if st[ST_OUT] == OUT_STUCK:
            st[ST_ROUND] = move_round  # the game ends in the round of the move (R-END 3)


# The loops over many games call these names: the same functions, which the compiled path
# inlines there (the other callers keep plain calls, to keep compile time down).
gen_legal_i = gen_legal
apply_move_i = apply_move


def random_games(n: int, root: Ints, st: IntBuf, ru: Ints, bd: Ints, deck: IntBuf, rng: IntBuf,
                 buf: IntBuf, sc: IntBuf, res: IntBuf) -> None:
    """Play ``n`` games with uniformly random legal moves (every move of :func:`gen_legal`
    equally likely, as ``rng.choice(game.legal_moves())``), each from start stations drawn
    from the shared start ``deck`` (R-SETUP, classic) on the set-up ``root`` (its possible
    locations empty); Mr X's possible locations are tracked throughout. res[0] += games Mr X won, res[1] += moves made."""
    nd = len(deck)
    npieces = root[ST_N]
    for _ in range(n):
        st[0:ST_LEN] = root[0:ST_LEN]
        for j in range(npieces):  # partial Fisher-Yates: the first cards of a shuffled deck
            k = j + rand_below(rng, nd - j)
            c = deck[k]
            deck[k] = deck[j]
            deck[j] = c
            st[ST_POS + j] = c
            if j > 0:
                set_occupied(st, c, 1)
        for j in range(nd):
            c = deck[j]
            if not occupied(st, c):
                st[ST_BEL + c // BW] |= 1 << (c % BW)
        check_end(st, ru, bd)
        while st[ST_OUT] == OUT_NONE:
            k = gen_legal_i(st, ru, bd, buf, sc)
            apply_move_i(st, ru, bd, buf[rand_below(rng, k)])
            res[1] += 1
        if st[ST_OUT] == OUT_SURVIVED or st[ST_OUT] == OUT_STUCK:
            res[0] += 1


# =================================================================================================
# many games at once (BatchSim): one state row per game, games spread over threads
# =================================================================================================
def batch_record(s: IntBuf, g: int, code: int, hist: NDArray[np.int32], nmov: NDArray[np.int16],
                 logt: NDArray[np.int8], logs: NDArray[np.int16], rec: int) -> None:
    """Write the move ``code`` of game ``g`` (state row ``s``, before the move) into Mr X's
    log (``logt``/``logs``: ticket and station per slot) and, with ``rec``, into the game's
    history in BatchSim's encoding: ``piece | (t1+1)<<4 | d1<<7 | (t2+1)<<15 | d2<<18`` (t1 -1
    a pass, t2 -1 a single move)."""
    piece = code >> 24
    t1 = (code >> 20) & 15
    d1 = (code >> 12) & 255
    t2 = (code >> 8) & 15
    d2 = code & 255
    if piece == 0:
        slot = s[ST_NLOG]
        logt[g, slot] = t1
        logs[g, slot] = d1
        if t2 != T_NONE:
            logt[g, slot + 1] = t2
            logs[g, slot + 1] = d2
    h1 = t1 + 1
    if t1 == T_PASS:
        h1 = 0
    h2 = t2 + 1
    if t2 == T_NONE:
        h2 = 0
        d2 = 0
    if rec != 0:
        hist[g, nmov[g]] = piece | (h1 << 4) | (d1 << 7) | (h2 << 15) | (d2 << 18)
    nmov[g] += 1


def batch_play(st: IntRows, ru: Ints, bd: Ints, rng: IntRows, live: Ints, codes: Ints, steps: int,
               hist: NDArray[np.int32], nmov: NDArray[np.int16], logt: NDArray[np.int8],
               logs: NDArray[np.int16], rec: int, bufs: IntRows, scs: IntRows) -> None:
    """Move the games ``live`` (rows of ``st``, one state per game): game ``live[q]`` plays
    ``codes[q]`` if it is >= 0 (one move, with ``steps`` 1), else uniformly random legal moves
    (every move of :func:`gen_legal` equally likely, drawn from the game's own generator
    ``rng[g]``): ``steps`` of them, or to the end with ``steps`` 0. The games are split into
    ``len(bufs)`` chunks run in parallel, each with its own move buffer and scratch; every game
    has its own random generator, so the result does not depend on the number of threads."""
    nl = len(live)
    nch = len(bufs)
    for c in prange(nch):
        buf = bufs[c]
        sc = scs[c]
        for q in range((c * nl) // nch, ((c + 1) * nl) // nch):
            g = live[q]
            s = st[g]
            r = rng[g]
            m = 0
            while s[ST_OUT] == OUT_NONE and (steps == 0 or m < steps):
                code = codes[q]
                if code < 0:
                    k = gen_legal_i(s, ru, bd, buf, sc)
                    code = buf[rand_below(r, k)]
                batch_record(s, g, code, hist, nmov, logt, logs, rec)
                apply_move_i(s, ru, bd, code)
                m += 1


def batch_count(st: IntRows, ru: Ints, bd: Ints, live: Ints, counts: IntBuf, bufs: IntRows,
                scs: IntRows) -> None:
    """``counts[q]``: the number of legal moves of game ``live[q]``."""
    nl = len(live)
    nch = len(bufs)
    for c in prange(nch):
        buf = bufs[c]
        sc = scs[c]
        for q in range((c * nl) // nch, ((c + 1) * nl) // nch):
            counts[q] = gen_legal(st[live[q]], ru, bd, buf, sc)


def batch_fill(st: IntRows, ru: Ints, bd: Ints, live: Ints, offsets: Ints, out: IntBuf,
               bufs: IntRows, scs: IntRows) -> None:
    """The legal moves of game ``live[q]`` into ``out[offsets[q]:offsets[q + 1]]``."""
    nl = len(live)
    nch = len(bufs)
    for c in prange(nch):
        buf = bufs[c]
        sc = scs[c]
        for q in range((c * nl) // nch, ((c + 1) * nl) // nch):
            k = gen_legal(st[live[q]], ru, bd, buf, sc)
            o = offsets[q]
            for j in range(k):
                out[o + j] = buf[j]


def batch_check(st: IntRows, ru: Ints, bd: Ints, live: Ints) -> None:
    """R-END at the set-up of the games ``live`` (see :func:`check_end`)."""
    for q in prange(len(live)):
        check_end(st[live[q]], ru, bd)


# =================================================================================================
# playout policies (epsilon-greedy, Nijssen & Winands 2012)
# =================================================================================================
def closest_hunter(st: IntBuf, bd: Ints, code: int) -> int:
    """The distance from where Mr X's move ``code`` ends to the closest hunter (MCD's
    measure)."""
    dest = (code >> 12) & 255
    if ((code >> 8) & 15) != T_NONE:
        dest = code & 255
    md = 1000
    for i in range(1, st[ST_N]):
        dd = bd[BD_DIST + st[ST_POS + i] * NS + dest]
        if dd < md:
            md = dd
    return md


def choose_mrx(st: IntBuf, ru: Ints, bd: Ints, eps: float, filt: int, rng: IntBuf,
               buf: IntBuf, sc: IntBuf) -> int:
    """Mr X: with probability ``eps`` a random move, else MCD (maximize the distance to the
    closest detective; ties: single before double, non-black before black, then random).
    With FILT_ATTACH in ``filt``, his attach rule after the choice: a single step onto a
    station a hunter can reach becomes the first step of a double move (while he has one),
    its second step chosen the same way among the double moves that begin with it."""
    attach = (filt & FILT_ATTACH) != 0
    if attach:
        filt -= FILT_ATTACH
    code = choose_mrx_plain(st, ru, bd, eps, filt, rng, buf, sc)
    if not attach or st[ST_TAKE] != 0 or ((code >> 8) & 15) != T_NONE:
        return code
    t1 = (code >> 20) & 15
    d1 = (code >> 12) & 255
    n = gen_mrx_raw(st, ru, bd, filt | FILT_ATTACH, buf, sc)
    m = 0
    for j in range(n):
        c = buf[j]
        if ((c >> 8) & 15) != T_NONE and ((c >> 20) & 15) == t1 and ((c >> 12) & 255) == d1:
            buf[m] = c
            m += 1
    if m == 0:
        return code
    if m == 1:
        return buf[0]
    if rand_unit(rng) < eps:
        return buf[rand_below(rng, m)]
    best = -1
    bestcode = buf[0]
    ties = 0
    for j in range(m):
        c = buf[j]
        score = closest_hunter(st, bd, c) * 2
        if ((c >> 8) & 15) != T_BLACK:
            score += 1
        if score > best:
            best = score
            bestcode = c
            ties = 1
        elif score == best:
            ties += 1
            if rand_below(rng, ties) == 0:
                bestcode = c
    return bestcode


def choose_mrx_plain(st: IntBuf, ru: Ints, bd: Ints, eps: float, filt: int, rng: IntBuf,
                     buf: IntBuf, sc: IntBuf) -> int:
    """Mr X's ε-greedy MCD choice among his (filtered) moves (see choose_mrx)."""
    n = gen_mrx(st, ru, bd, filt, buf, sc)
    if n == 1:
        return buf[0]
    if st[ST_TAKE] != 0 or rand_unit(rng) < eps:
        return buf[rand_below(rng, n)]
    best = -1
    bestcode = buf[0]
    ties = 0
    for j in range(n):
        c = buf[j]
        t1 = (c >> 20) & 15
        t2 = (c >> 8) & 15
        score = closest_hunter(st, bd, c) * 4
        if t2 == T_NONE:
            score += 2
        if t1 != T_BLACK and t2 != T_BLACK:
            score += 1
        if score > best:
            best = score
            bestcode = c
            ties = 1
        elif score == best:
            ties += 1
            if rand_below(rng, ties) == 0:
                bestcode = c
    return bestcode


def hypothesis(st: IntBuf, bd: Ints, rng: IntBuf) -> int:
    """Target mode 2: the hunters' one hypothesis of Mr X's station, ``st[ST_HYP]``, a ghost
    that walks a path consistent with the public facts. It stays put while Mr X has not moved
    and it is still possible; after Mr X's ``k`` steps it moves to a possible location at most
    ``k`` moves away (uniformly), and when there is none (or it was ruled out) to a possible
    location nearest to it. The first: a uniform draw from the possible locations."""
    g = st[ST_HYP]
    steps = st[ST_NLOG] - st[ST_HYPLOG]
    if g != 0 and steps == 0 and bel_has(st, g):
        return g
    st[ST_HYPLOG] = st[ST_NLOG]
    best = 1000000
    pick = st[ST_POS]
    ties = 0
    for e in range(1, NS):
        if not bel_has(st, e):
            continue
        dd = 0
        if g != 0:
            dd = bd[BD_DIST + g * NS + e]
            if dd <= steps:
                dd = 0  # every location within Mr X's steps is as likely
        if dd < best:
            best = dd
            pick = e
            ties = 1
        elif dd == best:
            ties += 1
            if rand_below(rng, ties) == 0:
                pick = e
    st[ST_HYP] = pick
    return pick


def choose_hunter(st: IntBuf, ru: Ints, bd: Ints, eps: float, target_mode: int, rng: IntBuf,
                  buf: IntBuf) -> int:
    """The piece to move (the lowest unmoved one in free order): with probability ``eps`` a
    random move, else CAL (a move closest to the target: Mr X's station in this determinization,
    with ``target_mode`` 1 a location drawn from the possible locations afresh, with 2 the
    hunters' one hypothesis among them, :func:`hypothesis`); with ``target_mode`` 3 MTD (the
    smallest total distance to the possible locations)."""
    i = st[ST_TURN]
    n = gen_hunter(st, bd, i, buf, 0, 1)
    if n == 1 and ru[RU_FREE] != 0 and ((buf[0] >> 20) & 15) == T_PASS:
        # R-ORDER-FREE: the lowest unmoved piece is stuck; the next one with a move moves
        moved = st[ST_MOVED]
        for j in range(i + 1, st[ST_N]):
            if not (moved >> j) & 1:
                n = gen_hunter(st, bd, j, buf, 0, 0)
                if n > 0:
                    break
        if n == 0:
            buf[0] = (i << 24) | (T_PASS << 20) | (T_NONE << 8)
            n = 1
    if n == 1:
        return buf[0]
    if rand_unit(rng) < eps:
        return buf[rand_below(rng, n)]
    if target_mode == 3 and bel_count(st) > 0:
        # MTD (Nijssen's thesis, the hider's model of the seekers): a move whose destination
        # has the smallest total distance to Mr X's possible locations (the public set
        # tracked in the state)
        bestt = 1 << 60
        bestc = buf[0]
        tt = 0
        for j in range(n):
            c = buf[j]
            row = BD_DIST + ((c >> 12) & 255) * NS
            tot = 0
            for w in range(NW):
                bits = st[ST_BEL + w]
                e = w * BW
                while bits != 0:
                    if bits & 1:
                        tot += bd[row + e]
                    bits >>= 1
                    e += 1
            if tot < bestt:
                bestt = tot
                bestc = c
                tt = 1
            elif tot == bestt:
                tt += 1
                if rand_below(rng, tt) == 0:
                    bestc = c
        return bestc
    target = st[ST_POS]
    if target_mode == 2:
        target = hypothesis(st, bd, rng)
    elif target_mode == 1:
        cnt = bel_count(st)
        if cnt > 0:
            target = bel_nth(st, rand_below(rng, cnt))
    best = 1000000
    bestcode = buf[0]
    ties = 0
    for j in range(n):
        c = buf[j]
        dd = bd[BD_DIST + ((c >> 12) & 255) * NS + target]
        if dd < best:
            best = dd
            bestcode = c
            ties = 1
        elif dd == best:
            ties += 1
            if rand_below(rng, ties) == 0:
                bestcode = c
    return bestcode


def playout(st: IntBuf, ru: Ints, bd: Ints, pa: Floats, pf: Ints, rng: IntBuf, buf: IntBuf,
            sc: IntBuf, moves: IntBuf, k: int) -> int:
    """Play ``st`` to the end with the epsilon-greedy policies. Moves are written to ``moves``
    from index ``k`` (as far as it has room); return the new end index. With
    ``pf[PF_HORIZON]`` = h > 0 the playout stops (the game not over) when Mr X is to move
    after h moves of his in it."""
    cap = len(moves)
    epsx = pa[PA_EPSX]
    epsd = pa[PA_EPSD]
    filt = pf[PF_FILT]
    if pf[PF_PFILT] != 0:
        filt = pf[PF_PFILT]
    target = pf[PF_TARGET]
    horizon = pf[PF_HORIZON]
    xmoves = 0
    while st[ST_OUT] == OUT_NONE:
        if st[ST_TURN] == 0:
            if horizon > 0 and xmoves >= horizon:
                break
            xmoves += 1
            code = choose_mrx(st, ru, bd, epsx, filt, rng, buf, sc)
        else:
            code = choose_hunter(st, ru, bd, epsd, target, rng, buf)
        if k < cap:
            moves[k] = code
            k += 1
        apply_move(st, ru, bd, code)
    return k


def playout_many(n: int, root: Ints, st: IntBuf, ru: Ints, bd: Ints, pa: Floats, pf: Ints,
                 rng: IntBuf, buf: IntBuf, sc: IntBuf, moves: IntBuf, results: IntBuf) -> None:
    """Run ``n`` playouts from ``root`` (for benchmarks): results[0] Mr X wins, [1] plies."""
    wins = 0
    plies = 0
    for _ in range(n):
        for s in range(ST_LEN):
            st[s] = root[s]
        plies += playout(st, ru, bd, pa, pf, rng, buf, sc, moves, 0)
        if st[ST_OUT] == OUT_SURVIVED or st[ST_OUT] == OUT_STUCK:
            wins += 1
    results[0] = wins
    results[1] = plies


# =================================================================================================
# Monte Carlo tree search (UCT + progressive history, single-tree determinization,
# coalition reduction)
# =================================================================================================
def reward(p: int, out: int, capt: int, r: float) -> float:
    """The result for piece ``p``: Mr X 1 if he wins; a hunter 1 if it caught Mr X (or he was
    cornered), 1 - r if another hunter caught him (coalition reduction), 0 if Mr X wins."""
    if out == OUT_SURVIVED or out == OUT_STUCK:
        if p == 0:
            return 1.0
        return 0.0
    if p == 0:
        return 0.0
    if out == OUT_CAUGHT and capt != p:
        return 1.0 - r
    return 1.0


def hkey(code: int) -> int:
    """Index of a move in the history table (per piece; double moves of Mr X apart)."""
    piece = code >> 24
    t1 = (code >> 20) & 15
    d1 = (code >> 12) & 255
    t2 = (code >> 8) & 15
    if t2 == T_NONE:
        return piece * H_SINGLE + t1 * 200 + d1
    return H_DOUBLE + ((t1 * 200 + d1) * 4 + t2) * 200 + (code & 255)


def seen_key(code: int, nlog: int, ru: Ints) -> int:
    """What the detectives see of Mr X's move ``code`` made with ``nlog`` log slots filled:
    the code without its stations, but a station that lands on a reveal slot (and every code
    that is not a plain single or double move: a ticket take, a voluntary reveal)."""
    t1 = (code >> 20) & 15
    t2 = (code >> 8) & 15
    if t1 > T_BLACK or t2 == T_REVEAL or t2 == T_PASS or t2 == T_TAKE:
        return code
    k = code
    if ru[RU_REV + nlog + 1] == 0:
        k &= ~(255 << 12)
    if t2 != T_NONE and ru[RU_REV + nlog + 2] == 0:
        k &= ~255
    return k


def seen_pick(st: IntBuf, ru: Ints, bd: Ints, key: int, eps: float, rng: IntBuf, buf: IntBuf,
              lo: int, hi: int) -> int:
    """One of the moves ``buf[lo:hi]`` that Mr X's node ``key`` stands for (see
    :func:`seen_key`): with probability ``eps`` a random one, else MCD among them (the
    greatest distance to the closest hunter; ties at random), as his playouts choose."""
    nlog = st[ST_NLOG]
    explore = rand_unit(rng) < eps
    best = -1
    bestcode = -1
    ties = 0
    for j in range(lo, hi):
        c = buf[j]
        if seen_key(c, nlog, ru) != key:
            continue
        score = 0
        if not explore:
            score = closest_hunter(st, bd, c)
        if score > best:
            best = score
            bestcode = c
            ties = 1
        elif score == best:
            ties += 1
            if rand_below(rng, ties) == 0:
                bestcode = c
    return bestcode


def selection_score(value_sum: float, visits: int, ln_parent: float, c: float, hist_sum: float,
                    hist_count: int, w: float, use_ph: bool) -> float:
    """UCT with progressive history: ``v + c*sqrt(ln n_p / n_i) + h * W / ((1 - v) n_i + 1)``,
    ``v`` the child's mean result, ``h`` the move's mean result in the history table (the term
    is left out while the move has no history)."""
    mean = value_sum / visits
    score = mean + c * math.sqrt(ln_parent / visits)
    if use_ph and hist_count > 0:
        score += (hist_sum / hist_count) * w / ((1.0 - mean) * visits + 1.0)
    return score


def backpropagate(tr: IntBuf, tv: FloatBuf, path: IntBuf, depth: int, out: int, capt: int,
                  r: float, coal: int) -> None:
    """Add one result to the nodes of ``path[0..depth]``: each node's value is the reward of the
    piece that made the move into it; with ``coal`` > 0 a hunter's node gets the reward of
    hunter ``coal`` (the coalition scored from the root hunter's side)."""
    for k in range(1, depth + 1):
        v = path[k]
        p = tr[v * TR_W + TR_MOVE] >> 24
        if coal > 0 and p != 0:
            p = coal
        tv[v] += reward(p, out, capt, r)
        tr[v * TR_W + TR_VIS] += 1
    tr[path[0] * TR_W + TR_VIS] += 1


def leaf_value(st: IntBuf, info: float) -> float:
    """Mr X's value of a playout stopped at the horizon, the game not over: he was not caught,
    worth ``1 - info * (1 - h)``, where ``h = min(1, ln|possible| / ln INFO_REF)`` is how well
    the public possible set hides him (0 when the detectives know his station, 1 with INFO_REF
    stations or more)."""
    if info <= 0.0:
        return 1.0
    n = bel_count(st)
    h = 0.0
    if n > 1:
        h = math.log(n) / math.log(INFO_REF)
        if h > 1.0:
            h = 1.0
    return 1.0 - info * (1.0 - h)


def region_size(st: IntBuf, bd: Ints) -> int:
    """The number of stations strictly nearer Mr X's station than every detective and police
    piece (fewest moves on the detectives' network; a tie goes to the hunters; his own station
    counts): the room he can reach first."""
    x = st[ST_POS]
    nh = st[ST_N]
    n = 0
    for s in range(1, NS):
        dx = bd[BD_DIST + x * NS + s]
        mine = True
        for i in range(1, nh):
            if bd[BD_DIST + st[ST_POS + i] * NS + s] <= dx:
                mine = False
                break
        if mine:
            n += 1
    return n


def region_value(st: IntBuf, bd: Ints, vx: float, reg: float) -> float:
    """Mr X's leaf value ``vx`` of a playout stopped at the horizon, less ``reg * (1 - a)``,
    ``a = min(1, region / REGION_REF)`` (:func:`region_size`: the room he reaches before any
    hunter); never below 0. With ``reg`` 0 it is ``vx``."""
    if reg <= 0.0:
        return vx
    a = region_size(st, bd) / REGION_REF
    if a > 1.0:
        a = 1.0
    v = vx - reg * (1.0 - a)
    if v < 0.0:
        v = 0.0
    return v


def backpropagate_value(tr: IntBuf, tv: FloatBuf, path: IntBuf, depth: int, vx: float) -> None:
    """Add a playout stopped at the horizon to the nodes of ``path[0..depth]``: Mr X's nodes
    get his leaf value ``vx``, a hunter's node ``1 - vx``."""
    for k in range(1, depth + 1):
        v = path[k]
        if (tr[v * TR_W + TR_MOVE] >> 24) == 0:
            tv[v] += vx
        else:
            tv[v] += 1.0 - vx
        tr[v * TR_W + TR_VIS] += 1
    tr[path[0] * TR_W + TR_VIS] += 1


def mcts_iterate(n_iter: int, root: Ints, work: IntBuf, ru: Ints, bd: Ints, tr: IntBuf,
                 tv: FloatBuf, mt: IntBuf, hs: FloatBuf, hc: IntBuf, pa: Floats, pf: Ints,
                 locs: Ints, cum: Floats, ra: Ints, rng: IntBuf, buf: IntBuf, sc: IntBuf,
                 path: IntBuf, imv: IntBuf) -> None:
    """Run ``n_iter`` MCTS iterations on the tree in ``tr``/``tv`` (node 0 is the root; its
    moves are limited to the codes in ``ra`` when ``pf[PF_NROOT]`` > 0)."""
    cc = pa[PA_C]
    ww = pa[PA_W]
    rr = pa[PA_R]
    use_ph = pf[PF_PH] != 0
    hplay = pf[PF_HPLAY] != 0
    filt = pf[PF_FILT]
    sample = pf[PF_SAMPLE] != 0
    nlocs = pf[PF_NLOCS]
    nroot = pf[PF_NROOT]
    openloop = pf[PF_OPEN] != 0
    rootx = pf[PF_ROOTX] != 0
    epsd = pa[PA_EPSD]
    target = pf[PF_TARGET]
    xnode = pf[PF_XNODE] != 0 and sample
    epsx = pa[PA_EPSX]
    half = len(buf) // 2
    cap_nodes = len(tv)
    cap_path = len(path)
    for _ in range(n_iter):
        for s in range(ST_LEN):
            work[s] = root[s]
        if sample:
            # determinization: Mr X's station drawn (roulette) from the possible locations
            u = rand_unit(rng) * cum[nlocs - 1]
            idx = 0
            while idx < nlocs - 1 and cum[idx] <= u:
                idx += 1
            work[ST_POS] = locs[idx]
        node = 0
        depth = 0
        path[0] = 0
        nm = 0
        leaf = False
        while work[ST_OUT] == OUT_NONE and not leaf:
            if openloop and work[ST_TURN] != 0 and depth > 0:
                # open loop: a hunter moves by its playout policy, no node (Mr X's next
                # decision is a child of his last move's node)
                chosen = choose_hunter(work, ru, bd, epsd, target, rng, buf)
                apply_move(work, ru, bd, chosen)
                if nm < len(imv):
                    imv[nm] = chosen
                    nm += 1
                continue
            if depth == 0 and rootx:
                n = nroot
                for j in range(n):
                    buf[j] = ra[j]
            else:
                n = gen_moves(work, ru, bd, filt, buf, sc)
            nx = 0
            if xnode and work[ST_TURN] == 0 and n > 0 and depth > 0:
                # Mr X's node is what the detectives see of his move: his moves go to the
                # buffer's upper half, their distinct keys stand in for them below
                nx = n
                nlog = work[ST_NLOG]
                nk = 0
                for j in range(n):
                    buf[half + j] = buf[j]
                for j in range(n):
                    kk = seen_key(buf[half + j], nlog, ru)
                    dup = False
                    for q in range(nk):
                        if buf[q] == kk:
                            dup = True
                            break
                    if not dup:
                        buf[nk] = kk
                        nk += 1
                n = nk
            if depth == 0 and nroot > 0 and not rootx:
                # the caller's legal moves only (e.g. one seat's piece in free order)
                k = 0
                for j in range(n):
                    c = buf[j]
                    for q in range(nroot):
                        if ra[q] == c:
                            buf[k] = c
                            k += 1
                            break
                if k > 0:
                    n = k
            for j in range(n):
                c = buf[j]
                h = (c * 2654435761) & HMASK
                while sc[SC_HK + h] != -1:
                    h = (h + 1) & HMASK
                sc[SC_HK + h] = c
                sc[SC_HF + h] = 0
                sc[SC_LS + j] = h
            # children consistent with this determinization (legal here)
            matched = 0
            best = -1
            bestval = -1e300
            nvis = tr[node * TR_W + TR_VIS]
            lnn = 0.0
            if nvis > 0:
                lnn = math.log(nvis)
            ch = tr[node * TR_W + TR_CHILD]
            while ch != -1:
                code = tr[ch * TR_W + TR_MOVE]
                h = (code * 2654435761) & HMASK
                found = False
                while sc[SC_HK + h] != -1:
                    if sc[SC_HK + h] == code:
                        found = True
                        break
                    h = (h + 1) & HMASK
                if found:
                    sc[SC_HF + h] = 1
                    matched += 1
                    vis = tr[ch * TR_W + TR_VIS]
                    if vis == 0:
                        val = 1e200
                    else:
                        key = hkey(code)
                        val = selection_score(tv[ch], vis, lnn, cc, hs[key], hc[key], ww, use_ph)
                    if val > bestval:
                        bestval = val
                        best = ch
                ch = tr[ch * TR_W + TR_SIB]
            untried = n - matched
            chosen = -1
            nxt = -1
            if untried > 0:
                pick = rand_below(rng, untried)
                for j in range(n):
                    if sc[SC_HF + sc[SC_LS + j]] == 0:
                        if pick == 0:
                            chosen = buf[j]
                            break
                        pick -= 1
                if mt[MT_NODES] < cap_nodes and depth + 1 < cap_path:
                    nxt = mt[MT_NODES]
                    mt[MT_NODES] = nxt + 1
                    tr[nxt * TR_W + TR_MOVE] = chosen
                    tr[nxt * TR_W + TR_PARENT] = node
                    tr[nxt * TR_W + TR_CHILD] = -1
                    tr[nxt * TR_W + TR_SIB] = tr[node * TR_W + TR_CHILD]
                    tr[nxt * TR_W + TR_VIS] = 0
                    tv[nxt] = 0.0
                    tr[node * TR_W + TR_CHILD] = nxt
                leaf = True
            else:
                nxt = best
                chosen = tr[best * TR_W + TR_MOVE]
            for j in range(n):
                sc[SC_HK + sc[SC_LS + j]] = -1
            if nx > 0:
                apply_move(work, ru, bd, seen_pick(work, ru, bd, chosen, epsx, rng, buf,
                                                   half, half + nx))
            else:
                apply_move(work, ru, bd, chosen)
            if nm < len(imv):
                imv[nm] = chosen
                nm += 1
            if nxt >= 0:
                depth += 1
                path[depth] = nxt
                node = nxt
        ntree = nm
        if work[ST_OUT] == OUT_NONE:
            nm = playout(work, ru, bd, pa, pf, rng, buf, sc, imv, nm)
            mt[MT_PLIES] += nm - ntree
        out = work[ST_OUT]
        capt = work[ST_CAPT]
        # coalition reduction from the root hunter's side: the piece of the root's child
        coal = 0
        if pf[PF_COAL] != 0 and depth > 0:
            coal = tr[path[1] * TR_W + TR_MOVE] >> 24
        vx = 0.0
        if out == OUT_NONE:
            # stopped at the horizon: Mr X's leaf value (a hunter's is 1 - it)
            vx = leaf_value(work, pa[PA_INFO])
            vx = region_value(work, bd, vx, pa[PA_REG])
            backpropagate_value(tr, tv, path, depth, vx)
        else:
            backpropagate(tr, tv, path, depth, out, capt, rr, coal)
        if use_ph:
            lim = ntree
            if hplay:
                lim = nm
            for j in range(lim):
                c = imv[j]
                key = hkey(c)
                if out == OUT_NONE:
                    if (c >> 24) == 0:
                        hs[key] += vx
                    else:
                        hs[key] += 1.0 - vx
                else:
                    p = c >> 24
                    if coal > 0 and p != 0:
                        p = coal
                    hs[key] += reward(p, out, capt, rr)
                hc[key] += 1
        mt[MT_ITERS] += 1
