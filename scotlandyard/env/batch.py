"""``BatchSim``: many games stepped at once with numpy, for millions of moves per second.

>>> from scotlandyard import Rules
>>> from scotlandyard.env import BatchSim
>>> sim = BatchSim(256, Rules.classic(), seed=1)
>>> plies = sim.run()                      # uniformly random moves on both sides
>>> bool(sim.done.all())
True
>>> game = sim.game(0)                     # game 0 replayed through the core engine
>>> game.outcome() == sim.outcome(0)
True

Every running game makes one engine move per :meth:`BatchSim.step` (all games are in the
same phase of the same round: Mr X, then each hunter move; a double move is one move, a
pass too). A side's moves come from a *policy*: ``None`` is uniformly random over the
engine's legal moves (``game.legal_moves()``: every single move, every double move, every
black move, each hunter's pass; in free order the moves of every unmoved piece), or a
callable ``policy(obs, moves) -> chosen`` that gets a :class:`BatchObservation` (the side's
public facts; Mr X's truth only for Mr X) and the :class:`MoveBatch` of candidate moves, and
returns the index of the chosen candidate for each game.

Rules: both editions, police, pooled supplies, free order; not the extra-reveal variant.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache, cached_property
from typing import TYPE_CHECKING, Any

import numpy as np

from ..board import Board, iter_bits, london
from ..game import Game, Outcome, Reason, Winner
from ..move import MR_X, Move, Ticket
from ..rules import Rules

if TYPE_CHECKING:
    from ..record import Record

REASONS = tuple(r.value for r in Reason)  # index order of ``reason`` (the core's enum)
WINNERS = tuple(w.value for w in Winner)
_CAUGHT, _CORNERED, _STUCK, _SURVIVED = range(4)
_WORDS = 4  # 256 bits hold stations 1..199
_CHUNKS = 25  # bytes that hold bits 0..199


@dataclass
class MoveBatch:
    """The candidate moves of every game that moves now, grouped by game.

    Candidates ``offsets[k]:offsets[k+1]`` belong to game ``games[k]``. ``ticket`` is
    0 taxi, 1 bus, 2 underground, 3 black, -1 for a pass; ``ticket2``/``to2`` are the second
    step of a double move (-1/0 for a single move). ``piece`` is 0 for Mr X, 1.. for the
    hunters in seat order.
    """

    side: str
    games: np.ndarray
    offsets: np.ndarray
    game_index: np.ndarray
    piece: np.ndarray
    ticket: np.ndarray
    to: np.ndarray
    ticket2: np.ndarray
    to2: np.ndarray

    def __len__(self) -> int:
        return len(self.piece)

    @property
    def counts(self) -> np.ndarray:
        """How many candidates each game has (never zero)."""
        return np.diff(self.offsets)

    @property
    def destination(self) -> np.ndarray:
        """Where each candidate ends (0 for a pass)."""
        return np.where(self.ticket2 >= 0, self.to2, self.to)

    def uniform(self, rng: np.random.Generator) -> np.ndarray:
        """One candidate per game, uniformly at random."""
        counts = self.counts
        arr: np.ndarray = self.offsets[:-1] + (rng.random(len(counts)) * counts).astype(np.int64)
        return arr

    def sample(self, logits: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """One candidate per game with probability ``softmax(logits)`` within each game
        (the Gumbel-max trick)."""
        logits = np.asarray(logits, dtype=np.float64)
        if logits.shape != (len(self),):
            raise ValueError(f"logits has shape {logits.shape}, expected ({len(self)},)")
        return self.argmax(logits + rng.gumbel(size=len(self)))

    def argmax(self, scores: np.ndarray) -> np.ndarray:
        """The candidate with the highest score in each game (the first on ties)."""
        scores = np.asarray(scores, dtype=np.float64)
        best = np.maximum.reduceat(scores, self.offsets[:-1])
        hits = np.flatnonzero(scores == best[self.game_index])
        _, first = np.unique(self.game_index[hits], return_index=True)
        return hits[first]

    def softmax(self, logits: np.ndarray) -> np.ndarray:
        """``softmax(logits)`` within each game."""
        logits = np.asarray(logits, dtype=np.float64)
        z = np.exp(logits - np.maximum.reduceat(logits, self.offsets[:-1])[self.game_index])
        arr: np.ndarray = z / np.add.reduceat(z, self.offsets[:-1])[self.game_index]
        return arr


class BatchObservation:
    """What one side may know about the games that move now (arrays, one row per game).

    For ``side="detectives"`` Mr X's station is only the revealed one (the last log slot, if
    it is a reveal; else 0) and hidden log stations are 0; ``side="mr_x"`` adds his truth.
    """

    def __init__(self, sim: BatchSim, side: str, games: np.ndarray) -> None:
        """The facts of ``games`` as ``side`` sees them."""
        self._sim = sim
        self.side = side
        self.games = games

    @cached_property
    def stations(self) -> np.ndarray:
        """``[games, pieces]`` stations; column 0 is Mr X (0 where hidden)."""
        sim, g = self._sim, self.games
        out = sim.pos[g].astype(np.int16)
        if self.side != "mr_x":
            out[:, 0] = sim._revealed_now(g)
        arr: np.ndarray = out
        return arr

    @cached_property
    def tickets(self) -> np.ndarray:
        """``[games, pieces, 5]`` ticket counts (taxi, bus, underground, black, double);
        -1 for unlimited (police, Mr X in the new edition)."""
        return self._sim.tickets(self.games)

    @property
    def round(self) -> int:
        """The round (the same in every running game)."""
        return self._sim.round

    @cached_property
    def log_ticket(self) -> np.ndarray:
        """``[games, slots]`` Mr X's log tickets (0..3; -1 for an empty slot)."""
        arr: np.ndarray = self._sim.log_ticket[self.games]
        return arr

    @cached_property
    def log_station(self) -> np.ndarray:
        """``[games, slots]`` log stations: all for Mr X, the revealed ones for the others."""
        st = self._sim.log_station[self.games]
        if self.side != "mr_x":
            st = np.where(self._sim._reveal_slot[None, 1: st.shape[1] + 1], st, 0)
        arr: np.ndarray = st
        return arr

    @cached_property
    def log_len(self) -> np.ndarray:
        """Slots used in each game."""
        arr: np.ndarray = self._sim.log_len[self.games]
        return arr

    @cached_property
    def possible(self) -> np.ndarray:
        """``[games, 199]`` bool: Mr X's possible locations (public; ``track_possible``)."""
        return self._sim.possible_mask(self.games)


Policy = Callable[[BatchObservation, MoveBatch], np.ndarray]


def _padded(rows: list[list[int]], width: int) -> np.ndarray:
    out = np.zeros((len(rows), width), np.int16)
    for s, r in enumerate(rows):
        out[s, : len(r)] = r
    return out


class BatchSim:
    """``n_games`` games of ``rules`` stepped together (see the module doc).

    State arrays (one row per game): ``pos`` ``[n, pieces]`` (the truth: column 0 is Mr X),
    ``sup`` ``[n, supplies, 5]``, ``occ`` ``[n, 200]`` (hunters' stations; column 0 is always
    set), ``log_ticket``,
    ``log_station``, ``log_len``, ``done``, ``winner`` (0 Mr X, 1 detectives, -1 running),
    ``reason`` (index into ``REASONS``), ``end_round``. ``record=True`` keeps every game's
    moves for :meth:`moves`/:meth:`game`; ``track_possible=True`` keeps Mr X's possible
    locations (R-BELIEF) as bitsets.
    """

    def __init__(self, n_games: int, rules: Rules | None = None, seed: int | None = None, *,
                 start: dict[str, int] | np.ndarray | None = None, record: bool = True,
                 track_possible: bool = True) -> None:
        """Set up ``n_games`` games; start stations are drawn per R-SETUP with ``seed``
        (same distribution as ``Game.new``) or given (a dict for every game, or an array
        ``[n_games, pieces]``)."""
        if isinstance(n_games, bool) or not isinstance(n_games, (int, np.integer)) or n_games < 1:
            raise ValueError(f"n_games is a whole number >= 1, not {n_games!r}")
        rules = rules or Rules.classic()
        if not isinstance(rules, Rules):
            raise TypeError(f"rules is a Rules value, not {type(rules).__name__}")
        if rules.extra_reveal:
            raise ValueError("BatchSim does not play R-VAR-EXTRA-REVEAL (voluntary reveals); "
                             "use the AEC or Gymnasium env for that variant")
        self.rules = rules
        self.n = int(n_games)
        self.rng = np.random.default_rng(seed)
        self.record = record
        self.track_possible = track_possible
        self.board: Board = london(rules.board)
        self.pieces = rules.pieces
        self.n_pieces = len(self.pieces)
        self.n_hunters = self.n_pieces - 1
        self._build_tables()
        self._init_state(self._draw_start(start))

    # ---- static tables ----------------------------------------------------------------------
    def _build_tables(self) -> None:
        b, r = self.board, self.rules
        nb = b.neighbours
        deg = [max(len(nb[t][s]) for s in range(1, 200)) for t in range(3)]
        black = [iter_bits(b.masks[4][s]) if s else [] for s in range(200)]
        degk = max(len(x) for x in black)
        x_rows, h_rows = [], []
        for s in range(200):
            row, hrow = [], []
            for t in range(3):
                ns = list(nb[t][s]) if s else []
                row += ns + [0] * (deg[t] - len(ns))
            hrow = list(row)
            row += black[s] + [0] * (degk - len(black[s]))
            x_rows.append(row)
            h_rows.append(hrow)
        self._wx = sum(deg) + degk
        self._wh = sum(deg)
        self._xc = _padded(x_rows, self._wx)
        self._hc = _padded(h_rows, self._wh)
        xt = []
        for t in range(3):
            xt += [t] * deg[t]
        self._ht = np.array(xt, np.int8)
        self._xt = np.array(xt + [3] * degk, np.int8)
        unl = r.mr_x_unlimited
        self._x_unl_col = (self._xt < 3) & unl
        same = self._xt[:, None] == self._xt[None, :]
        self._dec = (same & ((self._xt[:, None] == 3) | (not unl))).astype(np.int16)
        # supplies: 0 Mr X, then per detective or one pooled; police have none
        sup_of = [0]
        if r.pooled_supply is not None:
            sup_of += [1] * r.detectives
            self._n_sup = 2
        else:
            sup_of += list(range(1, r.detectives + 1))
            self._n_sup = 1 + r.detectives
        sup_of += [-1] * r.police
        self._sup_of = np.array(sup_of, np.int64)
        self._police = self._sup_of < 0
        self._hsup = np.maximum(self._sup_of[1:], 0)
        slots = r.log_slots
        self._reveal_slot = np.zeros(slots + 2, bool)
        self._reveal_slot[list(r.reveal_slots)] = True
        self._handover = r.ticket_handover and not r.mr_x_unlimited
        if self.track_possible:
            self._exp = _expand_table(b.name)
        self._maxply = r.last_round * self.n_pieces

    # ---- set-up -----------------------------------------------------------------------------
    def _draw_start(self, start: dict[str, int] | np.ndarray | None) -> np.ndarray:
        n, r, p = self.n, self.rules, self.n_pieces
        if start is not None:
            if isinstance(start, dict):
                Game(r, dict(start))  # validates (R-SETUP)
                row = np.array([start[q] for q in self.pieces], np.int16)
                return np.tile(row, (n, 1))
            arr = np.asarray(start)
            if arr.shape != (n, p):
                raise ValueError(f"start is a dict or an array of shape ({n}, {p}), not {arr.shape}")
            for g in range(n):
                Game(r, {q: int(s) for q, s in zip(self.pieces, arr[g], strict=True)})
            return arr.astype(np.int16)
        if not r.start_deck_detectives or not r.start_deck_mr_x:
            raise ValueError("R-SETUP: these rules have no start deck; give start=")
        rng = self.rng
        if r.shared_start_deck:
            deck = np.array(r.start_deck_detectives, np.int16)
            order = np.argsort(rng.random((n, len(deck))), axis=1)[:, :p]
            return deck[order]
        d = np.array(r.start_deck_detectives, np.int16)
        x = np.array(r.start_deck_mr_x, np.int16)
        order = np.argsort(rng.random((n, len(d))), axis=1)[:, : p - 1]
        hunters = d[order]
        keys = rng.random((n, len(x)))
        keys[(x[None, :, None] == hunters[:, None, :]).any(-1)] = 2.0
        return np.concatenate([x[np.argmin(keys, axis=1)][:, None], hunters], axis=1)

    def _init_state(self, start: np.ndarray) -> None:
        n, r = self.n, self.rules
        self.start = start.copy()
        self.pos = start.astype(np.int16).copy()
        self.sup = np.zeros((n, self._n_sup, 5), np.int32)
        self.sup[:, 0] = [*r.mr_x_tickets, r.black_tickets, r.double_moves]
        if r.pooled_supply is not None:
            self.sup[:, 1, :3] = r.pooled_supply
        else:
            self.sup[:, 1:, :3] = r.detective_tickets
        self.occ = np.zeros((n, 200), bool)
        self.occ[:, 0] = True  # no station 0: padded candidates are never free
        self._occf = self.occ.reshape(-1)  # a view, for fast flat gathers
        self._base = np.arange(n, dtype=np.int64) * 200
        self._hcache: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
        rows = np.arange(n)[:, None]
        self.occ[rows, self.pos[:, 1:]] = True
        slots = r.log_slots
        self.log_ticket = np.full((n, slots), -1, np.int8)
        self.log_station = np.zeros((n, slots), np.int16)
        self.log_len = np.zeros(n, np.int16)
        self.round = 1
        self.phase = 0  # 0: Mr X moves; k: the k-th hunter move of the round
        self.moved = np.zeros((n, self.n_pieces), bool)
        self.done = np.zeros(n, bool)
        self.winner = np.full(n, -1, np.int8)
        self.reason = np.full(n, -1, np.int8)
        self.end_round = np.zeros(n, np.int16)
        self.catcher = np.full(n, -1, np.int8)
        self.plies = 0
        if self.record:
            self.history = np.zeros((n, self._maxply), np.int32)
            self.n_moves = np.zeros(n, np.int16)
        if self.track_possible:
            deck = set(r.start_deck_mr_x)
            self.possible = np.zeros((n, _WORDS), np.uint64)
            all_st = _words(sum(1 << s for s in range(1, 200)))
            deck_w = _words(sum(1 << s for s in deck))
            in_deck = np.isin(self.pos[:, 0], list(deck)) if deck else np.zeros(n, bool)
            self.possible[:] = np.where(in_deck[:, None], deck_w, all_st)
            self.possible &= ~self._occ_words(np.arange(n))
        self._check_end(np.arange(n))

    # ---- helpers -------------------------------------------------------------------------------
    def _occ_words(self, g: np.ndarray) -> np.ndarray:
        packed = np.packbits(self.occ[g], axis=1, bitorder="little")  # [n, 25]
        out = np.zeros((len(g), _WORDS * 8), np.uint8)
        out[:, : packed.shape[1]] = packed
        return out.view(np.uint64)

    def _expand(self, bits: np.ndarray, ticket: np.ndarray) -> np.ndarray:
        t = np.where(ticket == 3, 4, ticket).astype(np.int64)
        by = bits.view(np.uint8)[:, :_CHUNKS]
        parts = self._exp[t[:, None], np.arange(_CHUNKS)[None, :], by]  # [n, 25, 4]
        arr: np.ndarray = np.bitwise_or.reduce(parts, axis=1)
        return arr

    def _revealed_now(self, g: np.ndarray) -> np.ndarray:
        """Mr X's station where the last log slot is a reveal (his pawn stands there), else 0."""
        ln = self.log_len[g].astype(np.int64)
        last = self.log_station[g, np.maximum(ln - 1, 0)]
        return np.where((ln > 0) & self._reveal_slot[ln], last, 0)

    def tickets(self, g: np.ndarray | None = None) -> np.ndarray:
        """``[games, pieces, 5]`` ticket counts (-1 for unlimited)."""
        g = np.arange(self.n) if g is None else np.asarray(g)
        sup = self.sup[g]
        out = sup[:, np.maximum(self._sup_of, 0)].copy()
        out[:, self._police, :3] = -1
        out[:, 1:, 3:] = 0
        if self.rules.mr_x_unlimited:
            out[:, 0, :3] = -1
        return out

    def possible_mask(self, g: np.ndarray | None = None) -> np.ndarray:
        """``[games, 199]`` bool: Mr X's possible locations (needs ``track_possible``)."""
        if not self.track_possible:
            raise ValueError("this BatchSim was made with track_possible=False")
        g = np.arange(self.n) if g is None else np.asarray(g)
        bits = np.unpackbits(self.possible[g].view(np.uint8), axis=1, bitorder="little")
        return bits[:, 1:200].astype(bool)

    def observe(self, side: str, games: np.ndarray | None = None) -> BatchObservation:
        """``side``'s facts (``"mr_x"`` or ``"detectives"``) for ``games`` (default: running)."""
        if side not in WINNERS:
            raise ValueError(f"side is 'mr_x' or 'detectives', not {side!r}")
        g = np.flatnonzero(~self.done) if games is None else np.asarray(games)
        return BatchObservation(self, side, g)

    # ---- candidate moves ---------------------------------------------------------------------------
    def _free(self, g: np.ndarray, cand: np.ndarray) -> np.ndarray:
        """Whether each candidate station (0 = none) exists and is not held by a hunter."""
        base = self._base[g].reshape((-1,) + (1,) * (cand.ndim - 1))
        arr: np.ndarray = ~self._occf.take(base + cand)  # station 0 (padding) is always "held"
        return arr

    def _mr_x_valid(self, g: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, Any, Any]:
        """Mr X's single and double moves: ``(cand, valid1, d_idx, c2, valid2)`` (``c2`` and
        ``valid2`` are ``None`` when no game has a double move: ``d_idx`` is empty)."""
        x = self.pos[g, 0]
        cand = self._xc[x]  # [n, W]
        supx = self.sup[g, 0]  # [n, 5]
        valid1 = self._free(g, cand) & (self._x_unl_col[None, :] | (supx[:, self._xt] > 0))
        dbl = (supx[:, 4] > 0) & (self.log_len[g] + 2 <= self.rules.log_slots)
        d_idx = np.flatnonzero(dbl)
        if not len(d_idx):
            return cand, valid1, d_idx, None, None
        c1 = cand[d_idx]  # [m, W]
        c2 = self._xc[c1]  # [m, W, W]
        free2 = self._free(g[d_idx], c2)
        sup2 = supx[d_idx][:, self._xt]  # [m, W]: count of column k2's ticket
        ok2 = self._x_unl_col[None, None, :] | (sup2[:, None, :] - self._dec[None, :, :] > 0)
        valid2 = valid1[d_idx][:, :, None] & free2 & ok2
        return cand, valid1, d_idx, c2, valid2

    def _mr_x_batch(self, g: np.ndarray) -> MoveBatch:
        n = len(g)
        w = self._wx
        cand, valid1, d_idx, c2, valid2 = self._mr_x_valid(g)
        if len(d_idx):
            full = np.zeros((n, w + w * w), bool)
            full[:, :w] = valid1
            full[d_idx, w:] = valid2.reshape(len(d_idx), w * w)
        else:
            full = valid1
        width = full.shape[1]
        flat = np.flatnonzero(full)
        gi, col = np.divmod(flat, width)
        single = col < w
        k1 = np.where(single, col, (col - w) // w)
        k2 = np.where(single, 0, (col - w) % w)
        t1 = self._xt[k1]
        d1 = cand[gi, k1]
        t2 = np.where(single, -1, self._xt[k2]).astype(np.int8)
        d2 = np.where(single, 0, self._xc[d1, k2]).astype(np.int16)
        counts = np.bincount(gi, minlength=n)
        offsets = np.zeros(n + 1, np.int64)
        np.cumsum(counts, out=offsets[1:])
        return MoveBatch("mr_x", g, offsets, gi, np.zeros(len(gi), np.int8), t1, d1, t2, d2)

    def _mr_x_uniform(self, g: np.ndarray) -> tuple[np.ndarray, ...]:
        """A uniformly random legal move per game, without listing the moves."""
        n = len(g)
        cand, valid1, d_idx, c2, valid2 = self._mr_x_valid(g)
        n1 = valid1.sum(1)
        total = n1.copy()
        if len(d_idx):
            per_first = valid2.sum(2)  # [m, W]
            total[d_idx] += per_first.sum(1)
        r = (self.rng.random(n) * total).astype(np.int64)
        single = r < n1
        k1 = _nth_true(valid1, np.minimum(r, np.maximum(n1 - 1, 0)))
        t1 = self._xt[k1]
        d1 = cand[np.arange(n), k1]
        t2 = np.full(n, -1, np.int8)
        d2 = np.zeros(n, np.int16)
        dbl_games = np.flatnonzero(~single)
        if len(dbl_games):
            row = np.searchsorted(d_idx, dbl_games)
            rest = r[dbl_games] - n1[dbl_games]
            pf = per_first[row]
            cum = np.cumsum(pf, axis=1)
            a = (cum <= rest[:, None]).sum(1)  # the first step's column
            rest -= np.where(a > 0, cum[np.arange(len(a)), np.maximum(a - 1, 0)], 0)
            b = _nth_true(valid2[row, a], rest)
            t1[dbl_games] = self._xt[a]
            d1[dbl_games] = cand[dbl_games, a]
            t2[dbl_games] = self._xt[b]
            d2[dbl_games] = c2[row, a, b]
        return np.zeros(n, np.int64), t1, d1, t2, d2

    def _hunter_valid(self, g: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Every hunter's candidates ``[n, hunters, W]`` and their validity (cached between a
        move and the next, which shares the hunters' state: Mr X's moves do not change it)."""
        c = self._hcache
        if c is not None and len(c[0]) == len(g) and np.array_equal(c[0], g):
            return c[1], c[2]
        hunters = np.arange(1, self.n_pieces)
        p = self.pos[g][:, hunters]  # [n, h]
        cand = self._hc[p]  # [n, h, W]
        sup = self.sup[g][:, self._hsup]  # [n, h, 5]
        ok = (sup[:, :, :3] > 0)[:, :, self._ht] | self._police[hunters][None, :, None]
        valid = self._free(g, cand) & ok
        self._hcache = (g, cand, valid)
        return cand, valid

    def _hunter_choices(self, g: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(seats, cand, valid)`` of the hunters that may move now; a last column of
        ``valid`` is the pass of a waiting hunter without a move (R-MOVE-2)."""
        cand, valid = self._hunter_valid(g)
        if self.rules.free_order:
            seats = np.arange(1, self.n_pieces)
            waiting = ~self.moved[g][:, 1:]
            valid = valid & waiting[:, :, None]
        else:
            seats = np.array([self.phase])
            cand = cand[:, self.phase - 1: self.phase]
            valid = valid[:, self.phase - 1: self.phase]
            waiting = np.ones((len(g), 1), bool)
        # R-ORDER-FREE: a waiting piece passes only when no waiting piece has a real move
        stuck_all = np.asarray(~valid.any(axis=(1, 2)))
        passes = waiting & ~valid.any(-1) & stuck_all[:, None]
        return seats, cand, np.concatenate([valid, passes[:, :, None]], axis=2)

    def _hunter_batch(self, g: np.ndarray) -> MoveBatch:
        n = len(g)
        seats, cand, full = self._hunter_choices(g)
        h, w1 = full.shape[1], full.shape[2]
        flat = np.flatnonzero(full.reshape(n, h * w1))
        gi, col = np.divmod(flat, h * w1)
        hi, k = np.divmod(col, w1)
        is_pass = k == self._wh
        kk = np.minimum(k, self._wh - 1)
        t = np.where(is_pass, -1, self._ht[kk]).astype(np.int8)
        d = np.where(is_pass, 0, cand[gi, hi, kk]).astype(np.int16)
        counts = np.bincount(gi, minlength=n)
        offsets = np.zeros(n + 1, np.int64)
        np.cumsum(counts, out=offsets[1:])
        m = len(gi)
        return MoveBatch("detectives", g, offsets, gi, seats[hi].astype(np.int8), t, d,
                         np.full(m, -1, np.int8), np.zeros(m, np.int16))

    def _hunter_uniform(self, g: np.ndarray) -> tuple[np.ndarray, ...]:
        n = len(g)
        seats, cand, full = self._hunter_choices(g)
        h, w1 = full.shape[1], full.shape[2]
        flat = full.reshape(n, h * w1)
        r = (self.rng.random(n) * flat.sum(1)).astype(np.int64)
        col = _nth_true(flat, r)
        hi, k = np.divmod(col, w1)
        is_pass = k == self._wh
        kk = np.minimum(k, self._wh - 1)
        t = np.where(is_pass, -1, self._ht[kk]).astype(np.int8)
        d = np.where(is_pass, 0, cand[np.arange(n), hi, kk]).astype(np.int16)
        return seats[hi], t, d, np.full(n, -1, np.int8), np.zeros(n, np.int16)

    def candidates(self) -> MoveBatch:
        """The candidate moves of every running game (Mr X's or the hunters', by phase)."""
        g = np.flatnonzero(~self.done)
        return self._mr_x_batch(g) if self.phase == 0 else self._hunter_batch(g)

    # ---- stepping --------------------------------------------------------------------------------
    def step(self, mr_x: Policy | None = None, detectives: Policy | None = None) -> int:
        """One move in every running game (``None`` policies move uniformly at random).
        Returns how many moves were made."""
        g = np.flatnonzero(~self.done)
        if not len(g):
            return 0
        policy = mr_x if self.phase == 0 else detectives
        if policy is None:
            chosen = self._mr_x_uniform(g) if self.phase == 0 else self._hunter_uniform(g)
        else:
            moves = self._mr_x_batch(g) if self.phase == 0 else self._hunter_batch(g)
            c = np.asarray(policy(self.observe(moves.side, g), moves), np.int64)
            if c.shape != g.shape:
                raise ValueError(f"the policy returned shape {c.shape}; one candidate index "
                                 f"per game is {g.shape}")
            lo, hi = moves.offsets[:-1], moves.offsets[1:]
            bad = (c < lo) | (c >= hi)
            if bad.any():
                k = int(np.flatnonzero(bad)[0])
                raise ValueError(f"the policy chose candidate {c[k]} for game {g[k]}, whose "
                                 f"candidates are {lo[k]}..{hi[k] - 1}")
            chosen = (moves.piece[c], moves.ticket[c], moves.to[c], moves.ticket2[c], moves.to2[c])
        if self.phase == 0:
            self._apply_mr_x(g, *chosen)
        else:
            self._apply_hunters(g, *chosen)
        self.plies += len(g)
        return len(g)

    def run(self, mr_x: Policy | None = None, detectives: Policy | None = None) -> int:
        """Step until every game is over; returns the number of moves made."""
        total = 0
        while not self.done.all():
            total += self.step(mr_x, detectives)
        return total

    def _record(self, g: np.ndarray, piece: np.ndarray, t1: np.ndarray, d1: np.ndarray,
                t2: np.ndarray, d2: np.ndarray) -> None:
        if not self.record:
            return
        code = (piece.astype(np.int32) | ((t1.astype(np.int32) + 1) << 4) | (d1.astype(np.int32) << 7)
                | ((t2.astype(np.int32) + 1) << 15) | (d2.astype(np.int32) << 18))
        self.history[g, self.n_moves[g]] = code
        self.n_moves[g] += 1

    def _apply_mr_x(self, g: np.ndarray, piece: np.ndarray, t1: np.ndarray, d1: np.ndarray,
                    t2: np.ndarray, d2: np.ndarray) -> None:
        self._record(g, piece, t1, d1, t2, d2)
        dbl = t2 >= 0
        unl = self.rules.mr_x_unlimited
        t1i = t1.astype(np.int64)
        self.sup[g, 0, t1i] -= ((t1 == 3) | (not unl)).astype(np.int32)
        gd = g[dbl]
        if len(gd):
            t2i = t2[dbl].astype(np.int64)
            self.sup[gd, 0, t2i] -= ((t2[dbl] == 3) | (not unl)).astype(np.int32)
            self.sup[gd, 0, 4] -= 1
        slot = self.log_len[g].astype(np.int64)
        self.log_ticket[g, slot] = t1
        self.log_station[g, slot] = d1
        if len(gd):
            self.log_ticket[gd, slot[dbl] + 1] = t2[dbl]
            self.log_station[gd, slot[dbl] + 1] = d2[dbl]
        if self.track_possible:
            occ = self._occ_words(g)
            self.possible[g] = self._belief_step(self.possible[g], t1, d1, slot + 1, occ)
            if len(gd):
                self.possible[gd] = self._belief_step(self.possible[gd], t2[dbl], d2[dbl],
                                                      slot[dbl] + 2, occ[dbl])
        self.log_len[g] += (1 + dbl).astype(np.int16)
        self.pos[g, 0] = np.where(dbl, d2, d1)
        self.phase = 1
        if self.rules.free_order:
            self.moved[g] = False

    def _belief_step(self, bits: np.ndarray, t: np.ndarray, d: np.ndarray, slot: np.ndarray,
                     occ: np.ndarray) -> np.ndarray:
        new = self._expand(bits, t) & ~occ
        rev = self._reveal_slot[slot]
        if rev.any():
            one = np.zeros((int(rev.sum()), _WORDS), np.uint64)
            dd = d[rev].astype(np.int64)
            one[np.arange(len(dd)), dd >> 6] = np.left_shift(np.uint64(1), (dd & 63).astype(np.uint64))
            new[rev] = one
        arr: np.ndarray = new
        return arr

    def _apply_hunters(self, g: np.ndarray, piece: np.ndarray, t: np.ndarray, d: np.ndarray,
                       t2: np.ndarray, d2: np.ndarray) -> None:
        piece = piece.astype(np.int64)
        self._record(g, piece, t, d, t2, d2)
        mv = t >= 0
        gm, pm, tm, dm = g[mv], piece[mv], t[mv].astype(np.int64), d[mv].astype(np.int64)
        si = self._sup_of[pm]
        paid = si >= 0
        self.sup[gm[paid], si[paid], tm[paid]] -= 1
        if self._handover:
            self.sup[gm[paid], 0, tm[paid]] += 1
        self.occ[gm, self.pos[gm, pm]] = False
        self.occ[gm, dm] = True
        self.pos[gm, pm] = dm
        self._hcache = None
        caught = dm == self.pos[gm, 0]
        if caught.any():
            gc = gm[caught]
            self._finish(gc, 1, _CAUGHT)
            self.catcher[gc] = pm[caught]
        if self.track_possible:
            free = ~caught
            gf, df = gm[free], dm[free]
            self.possible[gf, df >> 6] &= ~np.left_shift(np.uint64(1), (df & 63).astype(np.uint64))
            if caught.any():
                dc = dm[caught]
                self.possible[gm[caught]] = 0
                self.possible[gm[caught], dc >> 6] = np.left_shift(np.uint64(1), (dc & 63).astype(np.uint64))
        if self.rules.free_order:
            self.moved[g, piece] = True
        self.phase += 1
        live = g[~self.done[g]]
        move_round = self.round
        if self.phase > self.n_hunters:
            if self.round >= self.rules.last_round:
                self._finish(live, 0, _SURVIVED)
                live = live[:0]
            else:
                self.round += 1
                self.phase = 0
        self._check_end(live, move_round)

    def _finish(self, g: np.ndarray, winner: int, reason: int, round_: int | None = None) -> None:
        self.done[g] = True
        self.winner[g] = winner
        self.reason[g] = reason
        self.end_round[g] = self.round if round_ is None else round_

    def _check_end(self, g: np.ndarray, move_round: int | None = None) -> None:
        """R-END (3) no detective can move (police too with ``police_keep_hunting``): Mr X wins (in the round of the move just made);
        (4) Mr X is to move and cannot: the detectives win."""
        if not len(g):
            return
        cand, valid = self._hunter_valid(g)
        if self.rules.police_keep_hunting or not self.rules.police:
            stuck = ~valid.any(axis=(1, 2))
        else:  # the 2014 book: no detective can move, police treated as absent
            nd = self.rules.detectives
            dc = cand[:, :nd]
            police = self.pos[g][:, nd + 1:]
            on_police = (dc[..., None] == police[:, None, None, :]).any(-1) & (dc > 0)
            sup = self.sup[g][:, self._hsup[:nd]]
            ok = (sup[:, :, :3] > 0)[:, :, self._ht]
            stuck = ~(valid[:, :nd] | (on_police & ok)).any(axis=(1, 2))
        if stuck.any():
            self._finish(g[stuck], 0, _STUCK, move_round)
            keep = ~stuck
            g = g[keep]
            self._hcache = (g, cand[keep], valid[keep])
        if self.phase == 0 and len(g):
            x = self.pos[g, 0]
            cand1 = self._xc[x]
            ok = self._x_unl_col[None, :] | (self.sup[g, 0][:, self._xt] > 0)
            cornered = ~(self._free(g, cand1) & ok).any(1)
            if cornered.any():
                self._finish(g[cornered], 1, _CORNERED)
                keep = ~cornered
                c = self._hcache
                self._hcache = (g[keep], c[1][keep], c[2][keep])  # type: ignore[index]

    # ---- export ---------------------------------------------------------------------------------------
    def outcome(self, g: int) -> Outcome | None:
        """Game ``g``'s result (``None`` while it runs), as the engine reports it."""
        if not self.done[g]:
            return None
        piece = self.pieces[self.catcher[g]] if self.catcher[g] > 0 else None
        return Outcome(WINNERS[self.winner[g]], REASONS[self.reason[g]], int(self.end_round[g]),
                       piece)

    def moves(self, g: int) -> list[tuple[str, Move]]:
        """Game ``g``'s moves as ``(piece, Move)`` (needs ``record=True``)."""
        if not self.record:
            raise ValueError("this BatchSim was made with record=False")
        out = []
        free = self.rules.free_order
        for code in self.history[g, : self.n_moves[g]].tolist():
            piece = self.pieces[code & 15]
            t1, d1 = ((code >> 4) & 7) - 1, (code >> 7) & 255
            t2, d2 = ((code >> 15) & 7) - 1, (code >> 18) & 255
            prefix = piece if (free and piece != MR_X) else None
            if t1 < 0:
                move = Move.pass_(prefix)
            elif t2 >= 0:
                move = Move.double(Ticket(t1), d1, Ticket(t2), d2)
            else:
                move = Move.single(Ticket(t1), d1, prefix)
            out.append((piece, move))
        return out

    def start_stations(self, g: int) -> dict[str, int]:
        """Game ``g``'s start stations (Mr X's included: the truth)."""
        return {p: int(s) for p, s in zip(self.pieces, self.start[g], strict=True)}

    def game(self, g: int) -> Game:
        """Game ``g`` replayed through the core engine (every move checked: an
        :class:`~scotlandyard.IllegalMove` here would be a simulator bug)."""
        game = Game.new(self.rules, start=self.start_stations(g))
        for _, move in self.moves(g):
            game.push(move)
        return game

    def to_record(self, g: int, event: str | None = None) -> Record:
        """Game ``g`` as a :class:`~scotlandyard.record.Record` (text/JSON game record)."""
        from ..record import Record

        return Record.from_game(self.game(g), event=event or f"BatchSim game {g}")

    def stats(self) -> dict[str, float]:
        """Share of finished games per winner and reason, and the mean end round."""
        d = self.done
        out: dict[str, float] = {"games": float(d.sum())}
        for i, w in enumerate(WINNERS):
            out[w] = float((self.winner[d] == i).mean()) if d.any() else 0.0
        for i, r in enumerate(REASONS):
            out[r] = float((self.reason[d] == i).mean()) if d.any() else 0.0
        out["mean_round"] = float(self.end_round[d].mean()) if d.any() else 0.0
        return out


@cache
def _expand_table(board: str) -> np.ndarray:
    """``[transport 0..4, byte chunk, byte value, word]``: the stations one line away from the
    stations of that byte, as 4 uint64 words (the batch form of ``Board.expand``)."""
    b = london(board)
    masks = np.zeros((5, 200, _WORDS), np.uint64)
    for t in range(5):
        for s in range(1, 200):
            masks[t, s] = _words(b.masks[t][s])
    exp = np.zeros((5, _CHUNKS, 256, _WORDS), np.uint64)
    for c in range(_CHUNKS):
        for byte in range(1, 256):
            low = byte & -byte
            s = c * 8 + low.bit_length() - 1
            exp[:, c, byte] = exp[:, c, byte ^ low] | (masks[:, s] if s < 200 else 0)
    exp.setflags(write=False)
    return exp


def _nth_true(valid: np.ndarray, r: np.ndarray) -> np.ndarray:
    """Column of the ``r``-th (0-based) true value in each row of ``valid``."""
    arr: np.ndarray = (np.cumsum(valid, axis=1) <= r[:, None]).sum(1)
    return arr


def _words(bits: int) -> np.ndarray:
    return np.array([(bits >> (64 * k)) & 0xFFFFFFFFFFFFFFFF for k in range(_WORDS)], np.uint64)
