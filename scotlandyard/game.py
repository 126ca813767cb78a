"""``Game``: the full truth of one game, its legal moves, make/unmake and the outcome.

Pieces are indexed inside the engine: 0 is Mr X, 1..d the detectives, d+1.. the police.
The API speaks piece ids (``"X"``, ``"D1"``, ``"P1"``). Rule ids (``R-...``) refer to RULES.md.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from functools import cache
from typing import Literal, NamedTuple

from .board import Board, bits_to_set, iter_bits, london
from .move import (
    _SINGLES,
    DETECTIVE_IDS,
    MR_X,
    PASS,
    TICKET_NAMES,
    Move,
    Ticket,
    is_piece_id,
    piece_singles,
)
from .rules import Rules
from .view import (
    HistoryEntry,
    LogEntry,
    LogSlot,
    Outcome,
    PlayerView,
    PublicMove,
    Reason,
    Winner,
    build_view,
)

__all__ = ["Game", "GameError", "IllegalMove", "LogEntry", "Outcome", "Reason", "Winner"]

TAXI, BUS, UNDERGROUND, BLACK, DOUBLE = 0, 1, 2, 3, 4
_TBU = (0, 1, 2)


class Undo(NamedTuple):
    """What :meth:`Game.pop` needs to unmake one move (the state before it)."""

    piece: int          # index of the piece that moved
    turn: int
    moved: int
    round: int
    belief: int
    outcome: Outcome | None
    take: int
    station: int        # the moving piece's station before the move


_Rows = tuple[tuple[tuple[tuple[Move, ...], ...], tuple[tuple[int, ...], ...]], ...]
_new_undo = tuple.__new__  # Undo(...) through tuple.__new__: the same value, without the
                           # Python-level __new__ of a NamedTuple (make/unmake is hot)


@cache
def _single_rows(board: str, piece: str | None) -> _Rows:
    """Per ticket 0..3 (3: black, any line): for each station, its one-step moves (naming
    ``piece`` where the order is free) and their destinations, in ``legal_moves()`` order."""
    b = london(board)
    rows = _SINGLES if piece is None else piece_singles(piece)
    out = []
    for t in range(4):
        dests = [tuple(b.neighbours[t][s]) if t < 3 else tuple(iter_bits(b.masks[4][s]))
                 if s else () for s in range(200)]
        out.append((tuple(tuple(rows[t][d] for d in ds) for ds in dests), tuple(dests)))
    return tuple(out)


@cache
def _hunter_rows(board: str) -> tuple[tuple[tuple[Move, ...], int], ...]:
    """Per station: every one-step taxi, bus and underground move (in ``legal_moves()``
    order) and their destinations as a bitmask, for a piece that holds all three tickets."""
    singles = _single_rows(board, None)
    out = []
    for s in range(200):
        moves = singles[0][0][s] + singles[1][0][s] + singles[2][0][s]
        mask = 0
        for d in singles[0][1][s] + singles[1][1][s] + singles[2][1][s]:
            mask |= 1 << d
        out.append((moves, mask))
    return tuple(out)


@cache
def _double_rows(board: str) -> dict[int, tuple[tuple[Move, ...], tuple[int, ...], int]]:
    """``(t1 * 200 + d1) * 4 + t2`` -> the double moves ``t1 d1 + t2 d2`` (every d2 one line
    of ``t2`` from d1; black: any line), their d2s and the d2s as a bitmask."""
    singles = _single_rows(board, None)
    out = {}
    for t1 in range(4):
        for d1 in range(1, 200):
            for t2 in range(4):
                dests = singles[t2][1][d1]
                mask = 0
                for d in dests:
                    mask |= 1 << d
                out[(t1 * 200 + d1) * 4 + t2] = (
                    tuple(Move.double(t1, d1, t2, d2) for d2 in dests), dests, mask)
            # key -1 - (t1 * 200 + d1): every second step, for a supply that has them all
            parts = [out[(t1 * 200 + d1) * 4 + t2] for t2 in range(4)]
            out[-1 - (t1 * 200 + d1)] = (sum((q[0] for q in parts), ()),
                                         sum((q[1] for q in parts), ()),
                                         parts[0][2] | parts[1][2] | parts[2][2] | parts[3][2])
    return out


class IllegalMove(ValueError):
    """A move that the rules do not allow; the message names the rule (``R-...``)."""


class GameError(ValueError):
    """A bad set-up (start positions) or an operation that the game's state does not allow."""


class Game:
    """One game of Scotland Yard: holds the truth, generates and makes moves.

    >>> g = Game.new(Rules.classic(detectives=5), seed=7)
    >>> g.to_move
    'X'
    """

    __slots__ = (
        "rules", "board", "_n", "_nd", "_ids", "_index", "_pos", "_sup", "_sup_of", "_occ",
        "_round", "_turn", "_moved", "_log", "_take", "_outcome", "_belief", "_history",
        "_undo", "_start", "_start_belief", "_unlimited", "_handover", "_free", "_reveal",
        "_hunters_mask", "_nb", "_masks", "_slots", "_last_round", "seed", "_viewcache",
        "_rows", "_drows", "_witness", "_hrows",
    )

    # ---- construction ----------------------------------------------------------------------
    def __init__(self, rules: Rules, start: dict[str, int]) -> None:
        """Set up a game at the given start stations (every piece of ``rules.pieces``).

        Prefer :meth:`new`. Raises :class:`GameError` for a bad set-up (R-SETUP).
        """
        self.rules = rules
        self.board: Board = london(rules.board)
        self.seed: int | None = None
        ids = rules.pieces
        self._ids = ids
        self._index = {p: i for i, p in enumerate(ids)}
        self._n = len(ids)
        self._nd = rules.detectives
        self._check_start(start)
        self._pos = [start[p] for p in ids]
        self._start = {p: start[p] for p in ids}
        # supplies: 0 is Mr X's [T, B, U, K, 2]; detectives' follow; pooled detectives share one
        self._sup: list[list[int]] = [[*rules.mr_x_tickets, rules.black_tickets, rules.double_moves]]
        self._sup_of = [0]
        if rules.pooled_supply is not None:
            self._sup.append([*rules.pooled_supply, 0, 0])
            self._sup_of += [1] * rules.detectives
        else:
            for _ in range(rules.detectives):
                self._sup.append([*rules.detective_tickets, 0, 0])
                self._sup_of.append(len(self._sup) - 1)
        self._sup_of += [-1] * rules.police  # police move free
        self._unlimited = rules.mr_x_unlimited
        self._handover = rules.ticket_handover
        self._free = rules.free_order
        self._reveal = frozenset(rules.reveal_slots)
        self._slots = rules.log_slots
        self._last_round = rules.last_round
        self._nb = self.board.neighbours
        self._masks = self.board.masks
        self._rows = _single_rows(rules.board, None)
        self._drows: dict[int, tuple[tuple[Move, ...], tuple[int, ...], int]] | None = None
        self._hrows = _hunter_rows(rules.board)
        self._witness = (0, 0, 0)  # (detective, ticket, station): a move that was legal
        self._occ = 0
        for i in range(1, self._n):
            self._occ |= 1 << self._pos[i]
        self._hunters_mask = ((1 << self._n) - 1) & ~1
        self._round = 1
        self._turn = 0
        self._moved = 0
        self._take = 0
        self._log: list[LogEntry] = []
        self._history: list[tuple[int, Move, int]] = []
        self._undo: list[Undo] = []
        self._viewcache: dict[bool, list[tuple[HistoryEntry, tuple[PublicMove, tuple[LogSlot, ...]]]]] = {
            False: [], True: []}
        self._outcome: Outcome | None = None
        deck = rules.start_deck_mr_x
        if deck and start[MR_X] in deck:
            cand = 0
            for s in deck:
                cand |= 1 << s
        else:
            cand = 0
            for s in range(1, self.board.stations + 1):
                cand |= 1 << s
        self._start_belief = cand & ~self._occ
        self._belief = self._start_belief
        self._outcome = self._check_end()

    def _check_start(self, start: dict[str, int]) -> None:
        if not isinstance(start, dict):
            raise GameError("R-SETUP: start is a mapping of piece to station, e.g. {'X': 132, 'D1': 13}")
        missing = [p for p in self._ids if p not in start]
        extra = [p for p in start if p not in self._ids]
        if missing:
            raise GameError(f"R-SETUP: no start station for {', '.join(missing)}")
        if extra:
            raise GameError(f"R-SETUP: these rules have no piece {', '.join(map(str, extra))} "
                            f"(pieces: {', '.join(self._ids)})")
        for p, s in start.items():
            if not isinstance(s, int) or isinstance(s, bool) or not 1 <= s <= self.board.stations:
                raise GameError(f"R-SETUP: {p} starts on {s!r}, not a station 1..{self.board.stations}")
        seen: dict[int, str] = {}
        for p in self._ids:
            s = start[p]
            if s in seen:
                raise GameError(f"R-SETUP: {seen[s]} and {p} both start on {s} (one piece per station)")
            seen[s] = p

    @classmethod
    def new(cls, rules: Rules | None = None, *, seed: int | None = None,
            start: dict[str, int] | None = None) -> Game:
        """A new game. Start stations are drawn from the edition's decks (R-SETUP) with
        ``random.Random(seed)``, or given as ``start={"X": 132, "D1": 13, ...}``."""
        rules = rules or Rules.classic()
        if start is None:
            start = cls.draw_start(rules, seed)
        game = cls(rules, dict(start))
        game.seed = seed
        return game

    @staticmethod
    def draw_start(rules: Rules, seed: int | None = None) -> dict[str, int]:
        """Draw distinct start stations from the rules' decks (R-SETUP)."""
        rng = random.Random(seed)
        hunters = rules.hunters
        if not rules.start_deck_detectives or not rules.start_deck_mr_x:
            raise GameError("R-SETUP: these rules have no start deck; give start= stations")
        if rules.shared_start_deck:
            cards = list(rules.start_deck_detectives)
            rng.shuffle(cards)
            drawn = cards[: len(hunters) + 1]
            return {MR_X: drawn[0], **{p: s for p, s in zip(hunters, drawn[1:], strict=True)}}
        d_tiles = list(rules.start_deck_detectives)
        rng.shuffle(d_tiles)
        x_tiles = [s for s in rules.start_deck_mr_x if s not in d_tiles[: len(hunters)]]
        return {MR_X: rng.choice(x_tiles), **{p: s for p, s in zip(hunters, d_tiles, strict=False)}}

    @classmethod
    def from_view(cls, view: PlayerView, mr_x: int | None = None) -> Game:
        """A game in ``view``'s current position with Mr X on ``mr_x`` (a determinization).

        For search: a detective agent samples ``mr_x`` from ``view.possible``; Mr X's own view
        supplies his true station when ``mr_x`` is omitted. Pieces, tickets, round, turn, log
        length and possible locations are the view's; the history before this position is not
        reproduced (``pop()`` stops here). Raises :class:`GameError` if ``mr_x`` is impossible.
        """
        if view.outcome is not None:
            raise GameError("the game in this view is over")
        if mr_x is None:
            if view.side != "mr_x" or view.mr_x_station is None:
                raise GameError("give mr_x: only Mr X's own view knows where he is")
            mr_x = view.mr_x_station
        if mr_x not in view.possible:
            raise GameError(f"R-BELIEF: Mr X cannot be on {mr_x} (not a possible location)")
        rules = view.rules
        start = dict(view.stations)
        start[MR_X] = mr_x
        g = cls(rules, start)
        names = TICKET_NAMES
        for i, p in enumerate(g._ids):
            si = g._sup_of[i]
            if si < 0:
                continue
            counts = view.tickets[p]
            sup = g._sup[si]
            for k, name in enumerate(names[: len(sup)]):
                c = counts.get(name)
                if c is not None:
                    sup[k] = c
        g._round = view.round
        g._turn = g._index[view.to_move] if view.to_move is not None else 0
        if g._turn != 0 and g._free:
            waiting = set(view.pieces_to_move)
            g._moved = sum(1 << i for i in range(1, g._n) if g._ids[i] not in waiting)
        elif g._turn != 0:
            g._moved = sum(1 << i for i in range(1, g._turn))
        g._take = g._index[view.pending_take] if view.pending_take else 0
        g._log = [LogEntry(e.slot, e.round, e.ticket, e.station if e.station is not None else 0,
                           e.reveal, e.double, e.voluntary) for e in view.log]
        bits = 0
        for s in view.possible:
            bits |= 1 << s
        g._belief = bits
        g._start_belief = bits
        g._outcome = g._check_end()
        return g

    def copy(self) -> Game:
        """An independent copy (the undo stack included)."""
        g = Game.__new__(Game)
        for name in Game.__slots__:
            setattr(g, name, getattr(self, name))
        g._pos = list(self._pos)
        # keep pooled supplies shared inside the copy, as they are in the original
        g._sup = [list(s) for s in self._sup]
        g._log = list(self._log)
        g._history = list(self._history)
        g._undo = list(self._undo)
        g._viewcache = {k: list(v) for k, v in self._viewcache.items()}
        return g

    # ---- public state ------------------------------------------------------------------------
    @property
    def to_move(self) -> str | None:
        """The piece to move (``None`` when the game is over). Where the detectives choose their
        order, this is the first of :attr:`pieces_to_move`."""
        if self._outcome is not None:
            return None
        return self._ids[self._turn]

    @property
    def pieces_to_move(self) -> tuple[str, ...]:
        """The pieces that may move now: one, or the detectives' unmoved pieces in free order."""
        if self._outcome is not None:
            return ()
        if self._turn == 0 or not self._free:
            return (self._ids[self._turn],)
        return tuple(self._ids[i] for i in range(1, self._n) if not (self._moved >> i) & 1)

    @property
    def side_to_move(self) -> Literal["mr_x", "detectives"] | None:
        """``"mr_x"`` or ``"detectives"`` (``None`` when over)."""
        if self._outcome is not None:
            return None
        return "mr_x" if self._turn == 0 else "detectives"

    @property
    def round(self) -> int:
        """The current round, 1..last_round."""
        return self._round

    @property
    def pieces(self) -> tuple[str, ...]:
        """Every piece id in seat order."""
        return self._ids

    @property
    def start(self) -> dict[str, int]:
        """Every piece's start station (Mr X's too: this is the truth)."""
        return dict(self._start)

    def station(self, piece: str) -> int:
        """Where ``piece`` stands (the truth, Mr X included)."""
        return self._pos[self._piece_index(piece)]

    @property
    def stations(self) -> dict[str, int]:
        """Every piece's station (the truth)."""
        return dict(zip(self._ids, self._pos, strict=True))

    def tickets(self, piece: str) -> dict[Ticket, int | None]:
        """The tickets ``piece`` may spend: ``None`` counts are unlimited (Mr X in the new
        edition; police move free). Pooled detectives report the shared supply."""
        i = self._piece_index(piece)
        si = self._sup_of[i]
        if si < 0:
            return {Ticket.TAXI: None, Ticket.BUS: None, Ticket.UNDERGROUND: None}
        sup = self._sup[si]
        if i == 0:
            return {
                Ticket.TAXI: None if self._unlimited else sup[0],
                Ticket.BUS: None if self._unlimited else sup[1],
                Ticket.UNDERGROUND: None if self._unlimited else sup[2],
                Ticket.BLACK: sup[3],
                Ticket.DOUBLE: sup[4],
            }
        return {Ticket.TAXI: sup[0], Ticket.BUS: sup[1], Ticket.UNDERGROUND: sup[2]}

    @property
    def pending_take(self) -> str | None:
        """The detective Mr X takes a ticket from next (R-VAR-EXTRA-REVEAL), or ``None``."""
        return self._ids[self._take] if self._take and self._outcome is None else None

    @property
    def log(self) -> tuple[LogEntry, ...]:
        """Mr X's travel log with the true stations."""
        return tuple(self._log)

    @property
    def moves(self) -> list[tuple[str, Move]]:
        """Every move made so far, as (piece, move)."""
        return [(self._ids[i], m) for i, m, _ in self._history]

    @property
    def ply(self) -> int:
        """How many moves have been made."""
        return len(self._history)

    def is_over(self) -> bool:
        """True once a side has won."""
        return self._outcome is not None

    def outcome(self) -> Outcome | None:
        """The result, or ``None`` while the game goes on."""
        return self._outcome

    def possible_locations(self) -> frozenset[int]:
        """Every station Mr X may be on, from public facts only (R-BELIEF)."""
        return bits_to_set(self._belief)

    @property
    def possible_bits(self) -> int:
        """:meth:`possible_locations` as a bitset (bit ``s`` for station ``s``)."""
        return self._belief

    def view(self, piece: str) -> PlayerView:
        """What ``piece``'s player may know (or ``"spectator"``): the only way facts leave the
        game for a player. Detective and spectator views carry Mr X's station only at reveal
        slots (and everything once the game is over)."""
        return build_view(self, piece)

    # ---- the public-facts API that views are built from (view.GameFacts) ----------------------
    @property
    def history(self) -> Sequence[HistoryEntry]:
        """Every move made so far as ``(piece index, move, round)`` (Mr X's true moves)."""
        return self._history

    @property
    def true_log(self) -> Sequence[LogEntry]:
        """Mr X's travel log with the true stations (as :attr:`log`, without a copy)."""
        return self._log

    @property
    def station_list(self) -> Sequence[int]:
        """Every piece's station in seat order (the truth, Mr X first)."""
        return self._pos

    @property
    def start_stations(self) -> dict[str, int]:
        """Every piece's start station (the truth; :attr:`start` is a copy)."""
        return self._start

    @property
    def start_bits(self) -> int:
        """Where Mr X may have started, from public facts (a bitset, R-BELIEF)."""
        return self._start_belief

    @property
    def view_cache(self) -> dict[bool, list[tuple[HistoryEntry, tuple[PublicMove, tuple[LogSlot, ...]]]]]:
        """The views' cache of public history entries (kept by :func:`~.view.build_view`)."""
        return self._viewcache

    # ---- move generation -------------------------------------------------------------------------
    def legal_moves(self) -> list[Move]:
        """Every legal move now. In free order the moves name their piece (``D2:T92``)."""
        if self._outcome is not None:
            return []
        t = self._turn
        if t == 0:
            if self._take:
                return self._take_moves()
            return self._mr_x_moves()
        if not self._free:
            moves = self._hunter_moves(t)
            return moves if moves else [PASS]
        # R-ORDER-FREE: a piece passes only when no piece still to move has a real move
        out: list[Move] = []
        stuck: list[str] = []
        moved = self._moved
        for i in range(1, self._n):
            if not (moved >> i) & 1:
                pid = self._ids[i]
                ms = self._hunter_moves(i, _single_rows(self.rules.board, pid))
                if ms:
                    out.extend(ms)
                else:
                    stuck.append(pid)
        return out if out else [Move.pass_(pid) for pid in stuck]

    def _hunter_moves(self, i: int, rows: _Rows | None = None) -> list[Move]:
        """Hunter ``i``'s moves (from the board's precomputed rows: a row whose stations are
        all free is taken whole)."""
        p = self._pos[i]
        occ = self._occ
        si = self._sup_of[i]
        sup = self._sup[si] if si >= 0 else None
        if rows is None:
            if sup is None or (sup[0] and sup[1] and sup[2]):
                moves, mask = self._hrows[p]
                if not mask & occ:
                    return list(moves)
            rows = self._rows
        masks = self._masks
        out: list[Move] = []
        for t in _TBU:
            if sup is not None and not sup[t]:
                continue
            if masks[t][p] & occ:
                out.extend([m for m, d in zip(rows[t][0][p], rows[t][1][p], strict=True)
                            if not (occ >> d) & 1])
            else:
                out.extend(rows[t][0][p])
        return out

    def _mr_x_singles(self, at: int, sup: list[int], occ: int) -> list[tuple[int, int]]:
        nb = self._nb
        out = []
        unlimited = self._unlimited
        for t in _TBU:
            if unlimited or sup[t]:
                for d in nb[t][at]:
                    if not (occ >> d) & 1:
                        out.append((t, d))
        if sup[BLACK]:
            for d in iter_bits(self._masks[4][at] & ~occ):
                out.append((BLACK, d))
        return out

    def _mr_x_moves(self) -> list[Move]:
        sup = self._sup[0]
        occ = self._occ
        x = self._pos[0]
        rows = self._rows
        masks = self._masks
        unlimited = self._unlimited
        out: list[Move] = []
        for t in (TAXI, BUS, UNDERGROUND, BLACK):
            if not (sup[t] or (unlimited and t != BLACK)):
                continue
            if masks[4 if t == BLACK else t][x] & occ:
                out.extend([m for m, d in zip(rows[t][0][x], rows[t][1][x], strict=True)
                            if not (occ >> d) & 1])
            else:
                out.extend(rows[t][0][x])
        singles = list(out)
        slot = len(self._log) + 1
        if self.rules.extra_reveal and slot not in self._reveal:
            out.extend(Move.parse(f"{m.notation()}!") for m in singles)
        if sup[DOUBLE] and slot + 1 <= self._slots and singles:
            drows = self._drows
            if drows is None:
                drows = self._drows = _double_rows(self.rules.board)
            for m in singles:
                t1: int = m.ticket  # type: ignore[assignment]
                spend = not unlimited or t1 == BLACK
                if spend:
                    sup[t1] -= 1
                first = t1 * 200 + m.to  # type: ignore[operator]
                if sup[3] and (unlimited or (sup[0] and sup[1] and sup[2])):
                    mv, ds, mask = drows[-1 - first]
                    if not mask & occ:
                        out.extend(mv)
                        if spend:
                            sup[t1] += 1
                        continue
                base = first * 4
                for t2 in (TAXI, BUS, UNDERGROUND, BLACK):
                    if not (sup[t2] or (unlimited and t2 != BLACK)):
                        continue
                    mv, ds, mask = drows[base + t2]
                    if mask & occ:
                        out.extend([mm for mm, d in zip(mv, ds, strict=True)
                                    if not (occ >> d) & 1])
                    else:
                        out.extend(mv)
                if spend:
                    sup[t1] += 1
        return out

    def _take_moves(self) -> list[Move]:
        j = self._take
        sup = self._sup[self._sup_of[j]]
        det = self._ids[j]
        return [Move.take(det, Ticket(t)) for t in _TBU if sup[t]]

    def _can_move(self, i: int, occ: int | None = None) -> bool:
        """Whether hunter ``i`` has any legal move from where it stands (with the pieces of
        ``occ`` as blockers; default: every detective and police piece)."""
        p = self._pos[i]
        free = ~(self._occ if occ is None else occ)
        masks = self._masks
        si = self._sup_of[i]
        if si < 0:
            return bool((masks[0][p] | masks[1][p] | masks[2][p]) & free)
        sup = self._sup[si]
        return bool((sup[0] and masks[0][p] & free) or (sup[1] and masks[1][p] & free)
                    or (sup[2] and masks[2][p] & free))

    def _mr_x_can_move(self) -> bool:
        x = self._pos[0]
        sup = self._sup[0]
        free = ~self._occ
        masks = self._masks
        if sup[BLACK] and masks[4][x] & free:
            return True
        unlimited = self._unlimited
        return bool(((unlimited or sup[0]) and masks[0][x] & free)
                    or ((unlimited or sup[1]) and masks[1][x] & free)
                    or ((unlimited or sup[2]) and masks[2][x] & free))

    # ---- validation --------------------------------------------------------------------------------
    def why_illegal(self, move: Move) -> str | None:
        """Why ``move`` is not legal now (naming the rule), or ``None`` if it is legal."""
        if self._outcome is not None:
            return f"R-END: the game is over ({self._outcome.describe()})"
        if not isinstance(move, Move):
            return f"not a move: {move!r}"
        piece = move.piece
        t = self._turn
        if piece is not None and not is_piece_id(piece):
            return f"unknown piece {piece!r}"
        if piece is not None and piece not in self._index:
            return f"R-PIECES: there is no {piece} in this game (pieces: {', '.join(self._ids)})"
        if t == 0:
            if piece is not None and piece != MR_X:
                return f"R-ROUND: it is Mr X's turn, not {piece}'s"
            if self._take:
                det = self._ids[self._take]
                if not move.is_take:
                    return f"R-VAR-EXTRA-REVEAL: Mr X now takes a ticket from {det} (take:{det}:T/B/U)"
                if move.take_from != det:
                    return f"R-VAR-EXTRA-REVEAL: Mr X takes from {det} next, not {move.take_from}"
                if not self._sup[self._sup_of[self._take]][move.ticket]:  # type: ignore[index]
                    return f"R-VAR-EXTRA-REVEAL: {det} has no {move.ticket.name.lower()} ticket"  # type: ignore[union-attr]
                return None
            return self._why_illegal_mr_x(move)
        # the detectives' side
        if move.is_take:
            return "R-VAR-EXTRA-REVEAL: only Mr X takes tickets"
        if self._free:
            i = self._index.get(piece, self._turn) if piece is not None else self._turn
            if i == 0:
                return "R-ROUND: Mr X has moved this round; it is the detectives' turn"
            if (self._moved >> i) & 1:
                return f"R-ORDER-FREE: {self._ids[i]} has already moved this round"
        else:
            i = t
            if piece is not None and piece != self._ids[t]:
                return f"R-ROUND: it is {self._ids[t]}'s turn, not {piece}'s (fixed order)"
        return self._why_illegal_hunter(i, move)

    def _why_illegal_hunter(self, i: int, move: Move) -> str | None:
        pid = self._ids[i]
        if move.is_pass:
            can = self._hunter_moves(i)
            if can:
                return (f"R-MOVE-2: {pid} can move ({', '.join(m.notation() for m in can[:6])}"
                        f"{'...' if len(can) > 6 else ''}) and must move")
            if self._free:
                for j in range(1, self._n):
                    if j != i and not (self._moved >> j) & 1 and self._hunter_moves(j):
                        return (f"R-ORDER-FREE: {pid} passes only as a last resort; "
                                f"{self._ids[j]} can still move this round and may free it")
            return None
        if move.is_double:
            return "R-MRX: only Mr X makes double moves"
        if move.reveal:
            return "R-VAR-EXTRA-REVEAL: only Mr X reveals himself"
        tk, d = move.ticket, move.to
        p = self._pos[i]
        if tk == Ticket.BLACK:
            return "R-TICKETS: only Mr X has black tickets"
        if tk not in _TBU:
            return f"R-TICKETS: a {tk.name.lower()} ticket is not a move"  # type: ignore[union-attr]
        if d not in self._nb[tk][p]:
            return f"R-BOARD: no {tk.name.lower()} line from {p} to {d}"
        si = self._sup_of[i]
        if si >= 0 and not self._sup[si][tk]:
            return f"R-TICKETS: {pid} has no {tk.name.lower()} ticket left"
        if (self._occ >> d) & 1:
            other = next(self._ids[j] for j in range(1, self._n) if self._pos[j] == d)
            return f"R-ROUND: {d} is occupied by {other} (one piece per station)"
        return None

    def _why_illegal_mr_x(self, move: Move) -> str | None:
        if move.is_pass:
            return "R-MOVE-2: Mr X never passes"
        if move.is_take:
            return "R-VAR-EXTRA-REVEAL: Mr X takes tickets only right after a voluntary reveal"
        sup = list(self._sup[0])
        at = self._pos[0]
        occ = self._occ
        slot = len(self._log) + 1
        if move.is_double:
            if not sup[DOUBLE]:
                return "R-MRX: no double-move card left"
            if slot + 1 > self._slots:
                return f"R-MRX: the travel log has only {self._slots} slots"
        if move.reveal:
            if not self.rules.extra_reveal:
                return "R-VAR-EXTRA-REVEAL: voluntary reveals are not in these rules"
            if slot in self._reveal:
                return f"R-VAR-EXTRA-REVEAL: slot {slot} is a reveal slot already"
        for n, (tk, d) in enumerate(move.steps):
            which = "" if not move.is_double else ("first step: " if n == 0 else "second step: ")
            if tk == Ticket.DOUBLE:
                return "R-MRX: the double-move card is not a step's ticket"
            if tk == Ticket.BLACK:
                if not (self._masks[4][at] >> d) & 1:
                    return f"R-BOARD: {which}no line from {at} to {d}"
            elif d not in self._nb[tk][at]:
                ferry = "; the ferry needs a black ticket" if d in self._nb[3][at] else ""
                return f"R-BOARD: {which}no {tk.name.lower()} line from {at} to {d}{ferry}"
            if tk == Ticket.BLACK or not self._unlimited:
                if sup[tk] <= 0:
                    return f"R-TICKETS: {which}Mr X has no {tk.name.lower()} ticket left"
                sup[tk] -= 1
            if (occ >> d) & 1:
                return f"R-ROUND: {which}Mr X may not move onto a detective or police piece ({d})"
            at = d
        return None

    # ---- make / unmake ---------------------------------------------------------------------------------
    def push(self, move: Move | str) -> None:
        """Make ``move`` (a :class:`Move` or notation). Raises :class:`IllegalMove` naming the
        rule if it is not legal now; the game is then unchanged."""
        if type(move) is not Move and isinstance(move, str):
            move = Move.parse(move)
        t = self._turn
        if t and not self._free and self._outcome is None and type(move) is Move:
            # the commonest move, a piece's step in the fixed order: checked here, exactly
            tk = move.ticket
            if tk is not None and tk < 3 and move.piece is None and move.ticket2 is None \
                    and move.take_from is None and not move.reveal:
                d: int = move.to  # type: ignore[assignment]
                p = self._pos[t]
                if (self._masks[tk][p] >> d) & 1 and not (self._occ >> d) & 1:
                    si = self._sup_of[t]
                    if si < 0 or self._sup[si][tk] > 0:
                        self._push_hunter(t, move)
                        return
        if not self._plainly_legal(move):
            why = self.why_illegal(move)
            if why is not None:
                raise IllegalMove(why)
        self._push(move)

    def _plainly_legal(self, move: Move) -> bool:
        """A quick exact test for the commonest moves: a detective's or police piece's
        single step (fixed or free order), Mr X's single or double move. True only if
        ``move`` is legal; False means "ask :meth:`why_illegal`" (every other kind of move:
        passes, takes, reveals; and every illegal one)."""
        t = self._turn
        if self._outcome is not None or type(move) is not Move or move.take_from is not None \
                or move.reveal:
            return False
        tk = move.ticket
        if t == 0:
            return self._plainly_legal_mr_x(move)
        if tk is None or tk > 2 or move.ticket2 is not None:
            return False
        piece = move.piece
        if piece is not None:
            i = self._index.get(piece, 0)
            if i == 0 or (not self._free and i != t) or (self._moved >> i) & 1:
                return False
        else:
            i = t
        d = move.to
        p = self._pos[i]
        if not (self._masks[tk][p] >> d) & 1 or (self._occ >> d) & 1:  # type: ignore[operator]
            return False
        si = self._sup_of[i]
        return si < 0 or self._sup[si][tk] > 0

    def _plainly_legal_mr_x(self, move: Move) -> bool:
        if self._take or move.piece not in (None, MR_X):
            return False
        tk, d, tk2 = move.ticket, move.to, move.ticket2
        if tk is None or tk > 3:
            return False
        masks = self._masks
        occ = self._occ
        sup = self._sup[0]
        unlimited = self._unlimited
        if not (masks[4 if tk == 3 else tk][self._pos[0]] >> d) & 1 or (occ >> d) & 1:  # type: ignore[operator]
            return False
        if (tk == 3 or not unlimited) and sup[tk] <= 0:
            return False
        if tk2 is None:
            return True
        d2 = move.to2
        if tk2 > 3 or not sup[DOUBLE] or len(self._log) + 2 > self._slots:
            return False
        if not (masks[4 if tk2 == 3 else tk2][d] >> d2) & 1 or (occ >> d2) & 1:  # type: ignore[index, operator]
            return False
        return not (tk2 == 3 or not unlimited) or sup[tk2] > (1 if tk2 == tk else 0)

    def _push(self, move: Move) -> None:
        """Make a move already known to be legal."""
        t = self._turn
        if t != 0 and self._free:
            if move.piece is not None:
                i = self._index[move.piece]
            else:
                i = t
                move = move.with_piece(self._ids[i])  # records name the piece in free order
        else:
            i = t
        if i != 0:
            self._push_hunter(i, move)
            return
        undo: Undo = _new_undo(Undo, (0, t, self._moved, self._round, self._belief,
                                      self._outcome, self._take, self._pos[0]))
        self._undo.append(undo)
        if move.take_from is not None:
            self._do_take(move)
        else:
            self._do_mr_x(move)
        self._history.append((0, move, undo.round))
        if self._outcome is None:
            self._outcome = self._check_end(undo.round)
            if self._outcome is not None and self._outcome.reason == "detectives_stuck":
                self._round = self._outcome.round  # the game ended in the round of that move

    def _push_hunter(self, i: int, move: Move) -> None:
        """Make hunter ``i``'s legal move (a step or a pass), then the R-END checks."""
        rnd = self._round
        pos = self._pos
        self._undo.append(_new_undo(Undo, (i, self._turn, self._moved, rnd, self._belief,
                                           None, self._take, pos[i])))
        self._history.append((i, move, rnd))
        tk = move.ticket
        if tk is not None:
            d: int = move.to  # type: ignore[assignment]
            si = self._sup_of[i]
            if si >= 0:
                self._sup[si][tk] -= 1
                if self._handover and not self._unlimited:
                    self._sup[0][tk] += 1
            self._occ = (self._occ & ~(1 << pos[i])) | (1 << d)
            pos[i] = d
            if d == pos[0]:
                self._belief = 1 << d
                self._outcome = Outcome(Winner.DETECTIVES, Reason.CAUGHT, rnd, self._ids[i])
                return
            self._belief &= ~(1 << d)
        moved = self._moved | (1 << i)
        if moved == self._hunters_mask:
            if rnd >= self._last_round:
                self._moved = moved
                self._outcome = Outcome(Winner.MR_X, Reason.SURVIVED, rnd)
                return
            self._round = rnd + 1
            self._turn = 0
            self._moved = 0
        else:
            self._moved = moved
            if self._free:
                j = 1
                while (moved >> j) & 1:
                    j += 1
                self._turn = j
            else:
                self._turn = i + 1
        # R-END (3) and (4), as _check_end
        if self._detectives_stuck():
            self._outcome = Outcome(Winner.MR_X, Reason.DETECTIVES_STUCK, rnd)
            self._round = rnd  # the game ended in the round of that move
        elif self._turn == 0 and not self._take and not self._mr_x_can_move():
            self._outcome = Outcome(Winner.DETECTIVES, Reason.CORNERED, self._round)

    def _do_mr_x(self, move: Move) -> None:
        sup = self._sup[0]
        occ = self._occ
        belief = self._belief
        expand = self.board.expand
        unlimited = self._unlimited
        double = move.ticket2 is not None
        if double:
            sup[DOUBLE] -= 1
        for tk, d in move.steps:
            if tk == BLACK or not unlimited:
                sup[tk] -= 1
            slot = len(self._log) + 1
            reveal = slot in self._reveal or move.reveal
            self._log.append(LogEntry(slot, self._round, tk, d, reveal, double, move.reveal))
            belief = (1 << d) if reveal else expand(belief, 4 if tk == BLACK else tk) & ~occ
        self._belief = belief
        self._pos[0] = move.to2 if double else move.to  # type: ignore[assignment]
        if move.reveal:
            self._take = self._next_take(1)
        if not self._take:
            self._start_hunters()

    def _next_take(self, j: int) -> int:
        while j <= self._nd:
            sup = self._sup[self._sup_of[j]]
            if sup[0] or sup[1] or sup[2]:
                return j
            j += 1
        return 0

    def _do_take(self, move: Move) -> None:
        j = self._take
        tk = move.ticket
        self._sup[self._sup_of[j]][tk] -= 1  # type: ignore[index]
        if not self._unlimited:
            self._sup[0][tk] += 1  # type: ignore[index]
        self._take = self._next_take(j + 1)
        if not self._take:
            self._start_hunters()

    def _start_hunters(self) -> None:
        self._turn = 1
        self._moved = 0

    def _check_end(self, move_round: int | None = None) -> Outcome | None:
        """R-END checks after a move (made in ``move_round``): (3) detectives stuck, (4) Mr X
        cornered. (1) caught and (2) survived are decided while the move is made."""
        if self._detectives_stuck():
            return Outcome(Winner.MR_X, Reason.DETECTIVES_STUCK, move_round or self._round)
        if self._turn == 0 and not self._take and not self._mr_x_can_move():
            return Outcome(Winner.DETECTIVES, Reason.CORNERED, self._round)
        return None

    def _detectives_stuck(self) -> bool:
        """R-END (3): no detective piece has a legal move, police treated as absent (they
        neither move for the detectives nor block them). With ``police_keep_hunting`` the
        police count as hunters (and blockers) too."""
        occ = self._occ
        pos = self._pos
        if self.rules.police_keep_hunting:
            last = self._n
        else:
            last = self._nd + 1
            for i in range(last, self._n):
                occ &= ~(1 << pos[i])
        masks = self._masks
        # the witness of the last check: if that move is still legal, some detective can move
        k, t, d = self._witness
        if 0 < k < last and not (occ >> d) & 1 and (masks[t][pos[k]] >> d) & 1:
            sk = self._sup_of[k]
            if sk < 0 or self._sup[sk][t]:
                return False
        for i in range(1, last):
            p = pos[i]
            si = self._sup_of[i]
            sup = self._sup[si] if si >= 0 else None
            for t in _TBU:
                if sup is None or sup[t]:
                    free = masks[t][p] & ~occ
                    if free:
                        self._witness = (i, t, (free & -free).bit_length() - 1)
                        return False
        return True

    def pop(self) -> Move:
        """Unmake the last move and return it."""
        if not self._undo:
            raise GameError("no move to take back")
        i, turn, moved, rnd, belief, outcome, take, old_pos = self._undo.pop()
        _, move, _ = self._history.pop()
        if i == 0:
            sup = self._sup[0]
            if move.take_from is not None:
                j = take
                self._sup[self._sup_of[j]][move.ticket] += 1  # type: ignore[index]
                if not self._unlimited:
                    sup[move.ticket] -= 1  # type: ignore[index]
            else:
                steps = move.steps
                del self._log[len(self._log) - len(steps):]
                for tk, _d in steps:
                    if tk == BLACK or not self._unlimited:
                        sup[tk] += 1
                if move.ticket2 is not None:
                    sup[DOUBLE] += 1
                self._pos[0] = old_pos
        elif move.ticket is not None:
            tk = move.ticket
            si = self._sup_of[i]
            if si >= 0:
                self._sup[si][tk] += 1
                if self._handover and not self._unlimited:
                    self._sup[0][tk] -= 1
            self._occ = (self._occ & ~(1 << self._pos[i])) | (1 << old_pos)
            self._pos[i] = old_pos
        self._turn, self._moved, self._round, self._belief = turn, moved, rnd, belief
        self._outcome, self._take = outcome, take
        return move

    def peek(self) -> Move | None:
        """The last move made, or ``None``."""
        return self._history[-1][1] if self._history else None

    # ---- helpers --------------------------------------------------------------------------------------
    def _piece_index(self, piece: str) -> int:
        try:
            return self._index[piece]
        except KeyError:
            raise GameError(f"no piece {piece!r} in this game (pieces: {', '.join(self._ids)})") from None

    def __repr__(self) -> str:
        state = self._outcome.describe() if self._outcome else f"{self.to_move} to move"
        return f"<Game {self.rules.edition} round {self._round}, {state}>"

    @property
    def detective_ids(self) -> tuple[str, ...]:
        """The detective pieces (not police)."""
        return DETECTIVE_IDS[: self._nd]
