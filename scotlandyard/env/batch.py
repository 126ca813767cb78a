"""``BatchSim``: many games stepped at once on the rules kernel, for millions of moves per second.

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

The games run on the rules kernel (:mod:`scotlandyard.kernel`, the one that MCTS uses), one
kernel state per game, the games spread over the CPU cores with ``numba.prange`` (or a plain
loop without numba: the same results, slower). Every game has its own random generator, seeded
from ``seed``, so a seed gives the same games whatever the number of threads.

Rules: both editions, police, pooled supplies, free order; not the extra-reveal variant.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np

from ..game import Game, Outcome, Reason, Winner
from ..kernel import _kernel as K
from ..kernel.fast import board_table, kernel, numba_available, rules_table, state_of_game
from ..kernel.position import check_rules
from ..move import MR_X, Move, Ticket
from ..rules import Rules, as_rules

if TYPE_CHECKING:
    from ..record import Record

REASONS = tuple(r.value for r in Reason)  # index order of ``reason`` (the core's enum)
WINNERS = tuple(w.value for w in Winner)
_CAUGHT, _CORNERED, _STUCK, _SURVIVED = range(4)
_WORDS = 4  # ``possible``: 4 uint64 words hold the bits of stations 0..199
#: kernel outcome -> (winner index, reason index)
_OUTCOME = {K.OUT_SURVIVED: (0, _SURVIVED), K.OUT_STUCK: (0, _STUCK),
            K.OUT_CAUGHT: (1, _CAUGHT), K.OUT_CORNERED: (1, _CORNERED)}
_CHUNKS = 16  # games are split into this many chunks (at most) for the threads


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


class BatchSim:
    """``n_games`` games of ``rules`` stepped together (see the module doc).

    The state of game ``g`` is row ``g`` of a kernel state array (layout in
    :mod:`scotlandyard.kernel._kernel`); these read it as arrays, one row per game (fresh
    arrays: writing to them changes nothing): ``pos`` ``[n, pieces]`` (the truth: column 0 is
    Mr X), ``sup``, ``occ``, ``log_len``, ``moved`` ``[n, pieces]`` (the hunters that moved
    this round),
    ``possible`` ``[n, 4]`` uint64 (Mr X's possible locations, R-BELIEF: bit ``s`` is station
    ``s``). Kept as arrays: ``log_ticket``, ``log_station``, ``done``, ``winner`` (0 Mr X, 1
    detectives, -1 running), ``reason`` (index into ``REASONS``), ``end_round``, ``catcher``,
    ``n_moves``; with ``record=True`` the moves in ``history`` for :meth:`moves`/:meth:`game`.
    ``fast=False`` runs the pure-Python kernel (as without numba).
    """

    def __init__(self, n_games: int, rules: Rules | str | None = None, seed: int | None = None, *,
                 start: dict[str, int] | np.ndarray | None = None, record: bool = True,
                 track_possible: bool = True, fast: bool = True) -> None:
        """Set up ``n_games`` games; start stations are drawn per R-SETUP with ``seed``
        (same distribution as ``Game.new``) or given (a dict for every game, or an array
        ``[n_games, pieces]``)."""
        if isinstance(n_games, bool) or not isinstance(n_games, (int, np.integer)) or n_games < 1:
            raise ValueError(f"n_games is a whole number >= 1, not {n_games!r}")
        rules = as_rules(rules, "BatchSim's rules")  # a preset name too, as the envs take
        if rules.extra_reveal:
            raise ValueError("BatchSim does not play R-VAR-EXTRA-REVEAL (voluntary reveals); "
                             "use the AEC or Gymnasium env for that variant")
        check_rules(rules)
        self.rules = rules
        self.n = int(n_games)
        self.rng = np.random.default_rng(seed)
        self.record = record
        self.track_possible = track_possible
        self.pieces = rules.pieces
        self.n_pieces = len(self.pieces)
        self.n_hunters = self.n_pieces - 1
        self._kern = kernel(fast and numba_available())
        self._ru = self._kern.const(rules_table(rules))
        self._bd = self._kern.const(board_table(rules.board))
        self._reveal_slot = np.zeros(rules.log_slots + 2, bool)
        self._reveal_slot[list(rules.reveal_slots)] = True
        self._maxply = rules.last_round * self.n_pieces
        self._init_state(self._draw_start(start))

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
        n, r, p = self.n, self.rules, self.n_pieces
        self.start = start.copy()
        first = Game(r, {q: int(s) for q, s in zip(self.pieces, start[0], strict=True)})
        template = np.array(state_of_game(first), np.int64)
        template[K.ST_OCC: K.ST_OCC + K.NS] = 0
        template[K.ST_OCCW: K.ST_OCCW + K.NW] = 0
        st = np.tile(template, (n, 1))
        rows = np.arange(n)[:, None]
        st[:, K.ST_POS: K.ST_POS + p] = start
        st[rows, K.ST_OCC + start[:, 1:].astype(np.int64)] = 1
        occ = st[:, K.ST_OCC: K.ST_OCC + K.NS].astype(bool)
        # R-BELIEF at the start: the stations of Mr X's start deck (every station if his start
        # is not one of them), less the hunters' stations
        deck = np.array(sorted(set(r.start_deck_mr_x)), np.int64)
        possible = np.zeros((n, K.NS), bool)
        in_deck = np.isin(start[:, 0], deck) if len(deck) else np.zeros(n, bool)
        possible[:, 1:] = ~in_deck[:, None]
        possible[np.ix_(in_deck, deck)] = True
        possible &= ~occ
        st[:, K.ST_OCCW: K.ST_OCCW + K.NW] = _to_words(occ)
        st[:, K.ST_BEL: K.ST_BEL + K.NW] = _to_words(possible)
        self._st = st
        # every game its own xorshift32 generator (non-zero 32-bit states) from ``seed``
        self._rng = self.rng.integers(1, 1 << 32, size=(n, 1), dtype=np.int64)
        slots = r.log_slots
        self.log_ticket = np.full((n, slots), -1, np.int8)
        self.log_station = np.zeros((n, slots), np.int16)
        self.done = np.zeros(n, bool)
        self.winner = np.full(n, -1, np.int8)
        self.reason = np.full(n, -1, np.int8)
        self.end_round = np.zeros(n, np.int16)
        self.catcher = np.full(n, -1, np.int8)
        self.plies = 0
        self._steps = 0
        self.n_moves = np.zeros(n, np.int16)
        self.history = np.zeros((n, self._maxply) if self.record else (1, 1), np.int32)
        nch = min(n, _CHUNKS)
        self._bufs = np.zeros((nch, K.BUF_LEN), np.int64)
        self._scs = np.zeros((nch, K.SC_LEN), np.int64)
        live = np.arange(n, dtype=np.int64)
        self._kern.batch_check(self._st, self._ru, self._bd, live)
        self._sync(live)

    # ---- state as arrays --------------------------------------------------------------------
    @property
    def round(self) -> int:
        """The round (the same in every running game)."""
        return min(1 + self._steps // self.n_pieces, self.rules.last_round)

    @property
    def phase(self) -> int:
        """0: Mr X moves now; k: the k-th hunter move of the round."""
        return self._steps % self.n_pieces

    @property
    def pos(self) -> np.ndarray:
        """``[n, pieces]`` stations (the truth: column 0 is Mr X)."""
        arr: np.ndarray = self._st[:, K.ST_POS: K.ST_POS + self.n_pieces].astype(np.int16)
        return arr

    @property
    def sup(self) -> np.ndarray:
        """``[n, supplies, 5]`` ticket supplies (taxi, bus, underground, black, double): row 0
        Mr X's, then each detective's (one row when pooled); police have none."""
        rows = 1 + (1 if self.rules.pooled_supply is not None else self.rules.detectives)
        sup = self._st[:, K.ST_SUP: K.ST_SUP + 5 * rows].reshape(self.n, rows, 5)
        arr: np.ndarray = sup.astype(np.int32)
        return arr

    @property
    def occ(self) -> np.ndarray:
        """``[n, 200]`` bool: the stations held by a detective or police piece (column 0, no
        station, reads True)."""
        arr: np.ndarray = self._st[:, K.ST_OCC: K.ST_OCC + K.NS].astype(bool)
        arr[:, 0] = True
        return arr

    @property
    def log_len(self) -> np.ndarray:
        """Slots of Mr X's log used in each game."""
        arr: np.ndarray = self._st[:, K.ST_NLOG].astype(np.int16)
        return arr

    @property
    def moved(self) -> np.ndarray:
        """``[n, pieces]`` bool: the hunters that have moved this round (column 0 False)."""
        bits = self._st[:, K.ST_MOVED]
        arr: np.ndarray = ((bits[:, None] >> np.arange(self.n_pieces)) & 1).astype(bool)
        arr[:, 0] = False
        return arr

    def _bits(self, g: np.ndarray) -> np.ndarray:
        """``[games, 200]`` bool: Mr X's possible locations (column ``s`` is station ``s``)."""
        words = self._st[g][:, K.ST_BEL: K.ST_BEL + K.NW]
        bits = (words[:, :, None] >> np.arange(K.BW)) & 1
        out: np.ndarray = bits.reshape(len(g), K.NW * K.BW)[:, : K.NS].astype(bool)
        return out

    @property
    def possible(self) -> np.ndarray:
        """``[n, 4]`` uint64: Mr X's possible locations as bits (bit ``s`` is station ``s``)."""
        bits = np.zeros((self.n, 64 * _WORDS), bool)
        bits[:, : K.NS] = self._bits(np.arange(self.n))
        arr: np.ndarray = np.packbits(bits, axis=1, bitorder="little").view(np.uint64)
        return arr

    def _sync(self, g: np.ndarray) -> None:
        """Copy the results of the games ``g`` that have just ended from their states."""
        out = self._st[g, K.ST_OUT]
        ended = g[(out != K.OUT_NONE) & ~self.done[g]]
        if not len(ended):
            return
        self.done[ended] = True
        for code, (winner, reason) in _OUTCOME.items():
            hit = ended[self._st[ended, K.ST_OUT] == code]
            self.winner[hit] = winner
            self.reason[hit] = reason
        self.end_round[ended] = self._st[ended, K.ST_ROUND]
        caught = ended[self._st[ended, K.ST_OUT] == K.OUT_CAUGHT]
        self.catcher[caught] = self._st[caught, K.ST_CAPT]

    # ---- helpers -------------------------------------------------------------------------------
    def _revealed_now(self, g: np.ndarray) -> np.ndarray:
        """Mr X's station where the last log slot is a reveal (his pawn stands there), else 0."""
        ln = self.log_len[g].astype(np.int64)
        last = self.log_station[g, np.maximum(ln - 1, 0)]
        return np.where((ln > 0) & self._reveal_slot[ln], last, 0)

    def tickets(self, g: np.ndarray | None = None) -> np.ndarray:
        """``[games, pieces, 5]`` ticket counts (-1 for unlimited)."""
        g = np.arange(self.n) if g is None else np.asarray(g)
        st = self._st[g]
        sup = st[:, K.ST_SUP: K.ST_SUP + 30].reshape(len(g), 6, 5)
        sup_of = self._st[0, K.ST_SUPOF: K.ST_SUPOF + self.n_pieces]
        out = sup[:, np.maximum(sup_of, 0)].astype(np.int32)
        out[:, sup_of < 0, :3] = -1
        out[:, 1:, 3:] = 0
        if self.rules.mr_x_unlimited:
            out[:, 0, :3] = -1
        return out

    def possible_mask(self, g: np.ndarray | None = None) -> np.ndarray:
        """``[games, 199]`` bool: Mr X's possible locations (needs ``track_possible``)."""
        if not self.track_possible:
            raise ValueError("this BatchSim was made with track_possible=False")
        g = np.arange(self.n) if g is None else np.asarray(g)
        arr: np.ndarray = self._bits(g)[:, 1:]
        return arr

    def observe(self, side: str, games: np.ndarray | None = None) -> BatchObservation:
        """``side``'s facts (``"mr_x"`` or ``"detectives"``) for ``games`` (default: running)."""
        if side not in WINNERS:
            raise ValueError(f"side is 'mr_x' or 'detectives', not {side!r}")
        g = np.flatnonzero(~self.done) if games is None else np.asarray(games)
        return BatchObservation(self, side, g)

    # ---- candidate moves ---------------------------------------------------------------------------
    def _batch(self, g: np.ndarray) -> tuple[MoveBatch, np.ndarray]:
        """The candidates of the games ``g`` (every legal move, from the kernel) and their
        kernel codes."""
        kern, live = self._kern, g.astype(np.int64)
        counts = np.zeros(len(g), np.int64)
        kern.batch_count(self._st, self._ru, self._bd, live, counts, self._bufs, self._scs)
        offsets = np.zeros(len(g) + 1, np.int64)
        np.cumsum(counts, out=offsets[1:])
        codes = np.zeros(int(offsets[-1]), np.int64)
        kern.batch_fill(self._st, self._ru, self._bd, live, offsets, codes, self._bufs, self._scs)
        t1 = (codes >> 20) & 15
        t2 = (codes >> 8) & 15
        is_pass = t1 == K.T_PASS
        single = t2 == K.T_NONE
        gi = np.repeat(np.arange(len(g)), counts)
        mb = MoveBatch("mr_x" if self.phase == 0 else "detectives", g, offsets, gi,
                       (codes >> 24).astype(np.int8), np.where(is_pass, -1, t1).astype(np.int8),
                       np.where(is_pass, 0, (codes >> 12) & 255).astype(np.int16),
                       np.where(single, -1, t2).astype(np.int8),
                       np.where(single, 0, codes & 255).astype(np.int16))
        return mb, codes

    def candidates(self) -> MoveBatch:
        """The candidate moves of every running game (Mr X's or the hunters', by phase)."""
        return self._batch(np.flatnonzero(~self.done))[0]

    # ---- stepping --------------------------------------------------------------------------------
    def _play(self, g: np.ndarray, codes: np.ndarray, steps: int) -> None:
        self._kern.batch_play(self._st, self._ru, self._bd, self._rng, g.astype(np.int64),
                              codes, steps, self.history, self.n_moves, self.log_ticket,
                              self.log_station, int(self.record), self._bufs, self._scs)

    def step(self, mr_x: Policy | None = None, detectives: Policy | None = None) -> int:
        """One move in every running game (``None`` policies move uniformly at random).
        Returns how many moves were made."""
        g = np.flatnonzero(~self.done)
        if not len(g):
            return 0
        policy = mr_x if self.phase == 0 else detectives
        if policy is None:
            codes = np.full(len(g), -1, np.int64)
        else:
            moves, all_codes = self._batch(g)
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
            codes = all_codes[c]
        self._play(g, codes, 1)
        self._steps += 1
        self._sync(g)
        self.plies += len(g)
        return len(g)

    def run(self, mr_x: Policy | None = None, detectives: Policy | None = None) -> int:
        """Step until every game is over; returns the number of moves made. With two random
        sides each game is played to its end in one go (the same games as step by step)."""
        if mr_x is None and detectives is None:
            g = np.flatnonzero(~self.done)
            if not len(g):
                return 0
            before = int(self.n_moves.sum())
            self._play(g, np.full(len(g), -1, np.int64), 0)
            made = int(self.n_moves.sum()) - before
            self._steps = int(self.n_moves.max())
            self._sync(g)
            self.plies += made
            return made
        total = 0
        while not self.done.all():
            total += self.step(mr_x, detectives)
        return total

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
        out: list[tuple[str, Move]] = []
        free = self.rules.free_order
        for code in self.history[g, : self.n_moves[g]].tolist():
            piece = self.pieces[code & 15]
            t1, d1 = ((code >> 4) & 7) - 1, (code >> 7) & 255
            t2, d2 = ((code >> 15) & 7) - 1, (code >> 18) & 255
            prefix = piece if (free and piece != MR_X) else None
            move: Move
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


def _to_words(flags: np.ndarray) -> np.ndarray:
    """``[n, NS]`` bool -> ``[n, NW]`` int64: the kernel's bitset words (BW bits each), from
    the flags packed eight to a byte (BW is a whole number of bytes)."""
    n = len(flags)
    pad = np.zeros((n, K.NW * K.BW), bool)
    pad[:, : flags.shape[1]] = flags
    per = K.BW // 8
    b = np.packbits(pad, axis=1, bitorder="little").reshape(n, K.NW, per).astype(np.int64)
    arr: np.ndarray = (b << (8 * np.arange(per, dtype=np.int64))).sum(axis=2)
    return arr
