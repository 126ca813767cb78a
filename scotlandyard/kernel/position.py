"""The kernel's public API: a game position in the kernel's compact array form, its legal
moves, make/unmake, Mr X's possible locations and move-tree counts (perft).

``Game`` is the readable reference; :class:`Position` runs the same rules in the kernel
(:mod:`._kernel`), compiled with numba when it is installed (``fast=True``) or as plain Python.
The two are kept equal by the perft suite (``tests/perft/*.perft``: exact move-tree counts from
fixed positions of every preset and variant) and by property tests that compare their moves,
states and possible locations after random moves.

>>> from scotlandyard import Game, Rules
>>> from scotlandyard.kernel import Position
>>> game = Game.new(Rules.classic(), seed=7)
>>> pos = Position.from_game(game, fast=False)
>>> sorted(m.notation() for m in pos.legal_moves()) == sorted(
...     m.notation() for m in game.legal_moves())
True
>>> pos.push(pos.legal_moves()[0]); pos.pop()
>>> pos.facts() == game_facts(game)
True
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any, NamedTuple

from ..game import Game, IllegalMove, Outcome
from ..move import MR_X, Move, NotationError, Ticket
from ..rules import Rules
from . import _kernel as K
from .fast import (
    OUTCOMES,
    Kernel,
    _seed32,
    board_table,
    decode,
    encode,
    kernel,
    rules_table,
    state_of_game,
)

__all__ = [
    "Facts", "Position", "SUPPORTED_SETTINGS", "UnsupportedRules", "check_rules", "game_facts",
    "random_games",
]


class UnsupportedRules(ValueError):
    """Rules the kernel does not play; the message names the setting."""


#: Every ``Rules`` setting the kernel plays (all of today's settings; a setting added to
#: ``Rules`` later is refused by :func:`check_rules` unless it keeps its default).
SUPPORTED_SETTINGS = frozenset({
    "edition", "variant", "detectives", "police", "detective_tickets", "pooled_supply",
    "mr_x_tickets", "mr_x_unlimited", "black_tickets", "double_moves", "reveal_slots",
    "last_round", "ticket_handover", "free_order", "board", "start_deck_detectives",
    "start_deck_mr_x", "shared_start_deck", "extra_reveal", "police_keep_hunting",
})

_MAX_SLOTS = K.RU_LEN - K.RU_REV - 3


def check_rules(rules: Rules) -> None:
    """Raise :class:`UnsupportedRules` if the kernel cannot play ``rules`` exactly."""
    if not isinstance(rules, Rules):
        raise TypeError(f"rules is a Rules value, not {type(rules).__name__}")
    for f in dataclasses.fields(rules):
        if f.name in SUPPORTED_SETTINGS:
            continue
        value = getattr(rules, f.name)
        default = f.default if f.default is not dataclasses.MISSING else None
        if value != default:
            raise UnsupportedRules(f"the kernel does not play the setting {f.name}={value!r} "
                                   f"(use Game, the reference engine)")
    if rules.log_slots > _MAX_SLOTS:
        raise UnsupportedRules(f"the kernel handles up to {_MAX_SLOTS} log slots, these rules "
                               f"have {rules.log_slots}")


class Facts(NamedTuple):
    """Every fact of a position that both implementations hold, for exact comparisons.

    ``tickets`` per piece in seat order: taxi, bus, underground, black, double (``None`` for
    unlimited: police, Mr X's taxi/bus/underground in the new edition; 0 black and double for
    the detectives' side)."""

    stations: tuple[int, ...]
    tickets: tuple[tuple[int | None, ...], ...]
    round: int
    pieces_to_move: tuple[str, ...]
    log_len: int
    pending_take: str | None
    possible: frozenset[int]
    outcome: Outcome | None


def game_facts(game: Game) -> Facts:
    """The :class:`Facts` of a ``Game``."""
    tickets = []
    for p in game.pieces:
        t = game.tickets(p)
        row = (t[Ticket.TAXI], t[Ticket.BUS], t[Ticket.UNDERGROUND])
        extra = (t[Ticket.BLACK], t[Ticket.DOUBLE]) if p == MR_X else (0, 0)
        tickets.append(row + extra)
    return Facts(tuple(game.station(p) for p in game.pieces), tuple(tickets), game.round,
                 game.pieces_to_move, len(game.log), game.pending_take,
                 game.possible_locations(), game.outcome())


class Position:
    """A position in the kernel's array form, with make/unmake.

    Build it with :meth:`from_game`. Moves are :class:`~scotlandyard.Move` values (as
    ``Game`` gives them) or the kernel's int codes (:meth:`legal_codes`); ``push`` refuses a
    move that is not legal here with :class:`~scotlandyard.IllegalMove`.
    """

    __slots__ = ("rules", "_kern", "_st", "_ru", "_bd", "_buf", "_sc", "_undo")

    def __init__(self, rules: Rules, state: Sequence[int], *, fast: bool = True) -> None:
        """A position of ``rules`` from a kernel state (``ST_LEN`` ints, as
        :func:`~scotlandyard.kernel.fast.state_of_game` builds it)."""
        check_rules(rules)
        if len(state) != K.ST_LEN:
            raise ValueError(f"a kernel state has {K.ST_LEN} ints, not {len(state)}")
        self.rules = rules
        self._kern: Kernel = kernel(fast)
        kern = self._kern
        self._st: Any = kern.ints([int(v) for v in state])
        self._ru: Any = kern.const(rules_table(rules))
        self._bd: Any = kern.const(board_table(rules.board))
        self._buf: Any = kern.ints(K.BUF_LEN)
        self._sc: Any = kern.ints(K.SC_LEN)
        self._undo: list[Any] = []

    @classmethod
    def from_game(cls, game: Game, *, fast: bool = True) -> Position:
        """The position of ``game`` (its truth: Mr X's station included)."""
        check_rules(game.rules)
        return cls(game.rules, state_of_game(game, game.pending_take), fast=fast)

    def copy(self) -> Position:
        """An independent copy (without the undo stack)."""
        return Position(self.rules, self.state, fast=self.fast)

    # ---- state ---------------------------------------------------------------------------------
    @property
    def fast(self) -> bool:
        """True if this position runs on the numba-compiled kernel."""
        return self._kern.fast

    @property
    def state(self) -> list[int]:
        """The kernel state as a list of ints (a copy; layout in :mod:`._kernel`)."""
        return [int(v) for v in self._st]

    def _get(self, offset: int) -> int:
        return int(self._st[offset])

    def is_over(self) -> bool:
        """True once a side has won."""
        return self._get(K.ST_OUT) != K.OUT_NONE

    def outcome(self) -> Outcome | None:
        """The result as ``Game.outcome()`` reports it, or ``None``."""
        out = self._get(K.ST_OUT)
        if out == K.OUT_NONE:
            return None
        winner, reason = OUTCOMES[out]
        piece = self.rules.pieces[self._get(K.ST_CAPT)] if out == K.OUT_CAUGHT else None
        return Outcome(winner, reason, self._get(K.ST_ROUND), piece)

    @property
    def to_move(self) -> str | None:
        """The piece to move (the first of :attr:`pieces_to_move`), ``None`` when over."""
        if self.is_over():
            return None
        return self.rules.pieces[self._get(K.ST_TURN)]

    @property
    def pieces_to_move(self) -> tuple[str, ...]:
        """The pieces that may move now (every unmoved hunter in free order)."""
        if self.is_over():
            return ()
        ids = self.rules.pieces
        turn = self._get(K.ST_TURN)
        if turn == 0 or not self.rules.free_order:
            return (ids[turn],)
        moved = self._get(K.ST_MOVED)
        return tuple(ids[i] for i in range(1, len(ids)) if not (moved >> i) & 1)

    def possible_locations(self) -> frozenset[int]:
        """Mr X's possible locations (R-BELIEF), as ``Game.possible_locations()``."""
        st = self._st
        return frozenset(s for s in range(1, K.NS) if K.bel_has(st, s))

    def facts(self) -> Facts:
        """Every fact this position holds (compare with :func:`game_facts`)."""
        rules = self.rules
        ids = rules.pieces
        st = self._st
        unl = rules.mr_x_unlimited
        tickets: list[tuple[int | None, ...]] = []
        for i in range(len(ids)):
            si = int(st[K.ST_SUPOF + i])
            if si < 0:
                tickets.append((None, None, None, 0, 0))
                continue
            row = [int(st[K.ST_SUP + si * 5 + k]) for k in range(5)]
            if i == 0:
                tickets.append((*((None,) * 3 if unl else row[:3]), row[3], row[4]))
            else:
                tickets.append((*row[:3], 0, 0))
        take = self._get(K.ST_TAKE)
        return Facts(tuple(int(st[K.ST_POS + i]) for i in range(len(ids))), tuple(tickets),
                     self._get(K.ST_ROUND), self.pieces_to_move, self._get(K.ST_NLOG),
                     ids[take] if take and not self.is_over() else None,
                     self.possible_locations(), self.outcome())

    # ---- moves --------------------------------------------------------------------------------
    def legal_codes(self) -> list[int]:
        """Every legal move as a kernel code (``piece<<24 | t1<<20 | d1<<12 | t2<<8 | d2``)."""
        n = self._kern.gen_legal(self._st, self._ru, self._bd, self._buf, self._sc)
        return [int(c) for c in self._buf[:n]]

    def legal_moves(self) -> list[Move]:
        """Every legal move, the same set as ``Game.legal_moves()`` in the same position."""
        return [decode(c, self.rules) for c in self.legal_codes()]

    def code(self, move: Move | str | int) -> int:
        """The kernel code of ``move`` (a Move, its notation or a code) for the side to move."""
        if isinstance(move, bool):
            raise TypeError("a move is a Move, its notation or a kernel code")
        if isinstance(move, int):
            return move
        if isinstance(move, str):
            move = Move.parse(move)
        if not isinstance(move, Move):
            raise TypeError(f"a move is a Move, its notation or a kernel code, not {move!r}")
        to_move = self.to_move
        if to_move is None:
            raise IllegalMove("R-END: the game is over")
        try:
            return encode(move, to_move, self.rules)
        except ValueError as exc:  # a piece these rules do not have
            raise IllegalMove(f"{move}: {exc}") from None

    def push(self, move: Move | str | int) -> None:
        """Make a legal move; raises :class:`~scotlandyard.IllegalMove` (position unchanged)
        for any other."""
        try:
            code = self.code(move)
        except NotationError as exc:
            raise IllegalMove(str(exc)) from None
        if self.is_over():
            raise IllegalMove("R-END: the game is over")
        if code not in self.legal_codes():
            raise IllegalMove(f"{move} is not a legal move here (legal: "
                              f"{', '.join(m.notation() for m in self.legal_moves()[:8])}...)")
        self.push_code(code)

    def push_code(self, code: int) -> None:
        """Make a move known to be legal (a code from :meth:`legal_codes`), unchecked."""
        saved = self._kern.ints(K.ST_LEN)
        self._kern.save_state(self._st, saved)
        self._undo.append(saved)
        self._kern.apply_move(self._st, self._ru, self._bd, code)

    def pop(self) -> None:
        """Unmake the last move."""
        if not self._undo:
            raise IndexError("no move to take back")
        self._kern.load_state(self._st, self._undo.pop())

    # ---- perft ----------------------------------------------------------------------------------
    def perft(self, depth: int) -> list[int]:
        """Move-tree counts: entry ``k`` is the number of move sequences of length ``k + 1``
        from here (a finished game has no moves; a pass and each take are moves)."""
        if isinstance(depth, bool) or not isinstance(depth, int) or depth < 0:
            raise ValueError(f"depth is a whole number >= 0, not {depth!r}")
        if depth == 0:
            return []
        kern = self._kern
        if kern.fast:
            import numpy as np

            stack: Any = np.zeros((depth, K.ST_LEN), np.int64)
            bufs: Any = np.zeros((depth, K.BUF_LEN), np.int64)
        else:
            stack = [[0] * K.ST_LEN for _ in range(depth)]
            bufs = [[0] * K.BUF_LEN for _ in range(depth)]
        counts = kern.ints(depth)
        kern.perft(self._st, self._ru, self._bd, depth, counts, stack, bufs, kern.ints(depth),
                   kern.ints(depth), self._sc)
        return [int(c) for c in counts]

    def __repr__(self) -> str:
        out = self.outcome()
        state = out.describe() if out is not None else f"{self.to_move} to move"
        return f"<Position {self.rules.edition} round {self._get(K.ST_ROUND)}, {state}>"


def random_games(rules: Rules, n: int, seed: int = 1, *, fast: bool = True) -> tuple[int, int]:
    """Play ``n`` full games inside the kernel with uniformly random legal moves (each of
    ``legal_moves()`` equally likely), start stations drawn from the rules' shared start deck,
    Mr X's possible locations tracked: returns (Mr X's wins, moves made). For benchmarks and
    statistics; the rules need a shared start deck (the classic set-up)."""
    check_rules(rules)
    if not rules.shared_start_deck or not rules.start_deck_detectives:
        raise ValueError("random_games draws from a shared start deck (the classic set-up)")
    kern = kernel(fast)
    deck = list(rules.start_deck_detectives)
    root = state_of_game(Game(rules, dict(zip(rules.pieces, deck, strict=False))))
    for s in range(1, K.NS):
        root[K.ST_OCC + s] = 0
    for w in range(K.NW):
        root[K.ST_BEL + w] = root[K.ST_OCCW + w] = 0
    root[K.ST_OUT] = root[K.ST_CAPT] = 0
    res = kern.ints(2)
    kern.random_games(n, kern.ints(root), kern.ints(K.ST_LEN), kern.const(rules_table(rules)),
                      kern.const(board_table(rules.board)), kern.ints(deck),
                      kern.ints([_seed32(seed)]), kern.ints(K.BUF_LEN), kern.ints(K.SC_LEN), res)
    return int(res[0]), int(res[1])
