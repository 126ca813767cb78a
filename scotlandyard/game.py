"""``Game``: the full truth of one game, its legal moves, make/unmake and the outcome.

Pieces are indexed inside the engine: 0 is Mr X, 1..d the detectives, d+1.. the police.
The API speaks piece ids (``"X"``, ``"D1"``, ``"P1"``). Rule ids (``R-...``) refer to RULES.md.
"""

from __future__ import annotations

import numbers
import random
from collections.abc import Callable, Sequence
from functools import cache
from typing import Literal, NamedTuple, TypeVar, cast

from .board import STATION_BIT, Board, bits_to_set, iter_bits, london
from .move import (
    _SINGLES,
    DETECTIVE_IDS,
    MR_X,
    PASS,
    TICKET_NAMES,
    DoubleMove,
    Move,
    NotationError,
    PassMove,
    SingleMove,
    TakeMove,
    Ticket,
    is_piece_id,
    piece_singles,
)
from .rules import Rules, as_rules
from .view import (
    LogEntry,
    Outcome,
    PlayerView,
    Reason,
    ViewCache,
    Winner,
    build_view,
)

__all__ = ["Game", "GameError", "IllegalMove", "LogEntry", "Outcome", "Reason", "Winner"]

TAXI, BUS, UNDERGROUND, BLACK, DOUBLE = 0, 1, 2, 3, 4
_TBU = (0, 1, 2)


class Undo(NamedTuple):
    """One move of the game's history with what :meth:`Game.pop` needs to unmake it (the
    state before it). ``piece``, ``move`` and ``round`` are the history entry views read
    (:class:`~.view.HistoryEntry`)."""

    piece: int          # index of the piece that moved
    move: Move
    round: int          # the round it was made in (the round before it)
    turn: int
    moved: int
    belief: int
    outcome: Outcome | None
    take: int
    station: int        # the moving piece's station before the move


_UndoTuple = tuple[int, Move, int, int, int, int, Outcome | None, int, int]
"""An :class:`Undo` record's fields as a plain tuple, in its order: what ``push`` stores (a
plain tuple costs about 176 ns less to make than a named one: 3.8% of a random game's time
through the public API, measured in one run). :attr:`Game.history` names the records when it
is read; nothing else reads a record by position except :meth:`Game.pop`'s unpacking."""


_BIT = STATION_BIT  # _BIT[s]: station s as a bitset


_Rows = tuple[tuple[tuple[tuple[SingleMove, ...], ...], tuple[tuple[int, ...], ...]], ...]
_new = tuple.__new__  # LogEntry(...) through tuple.__new__: the same value, without the
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


_M = TypeVar("_M", SingleMove, DoubleMove)
_Row = tuple[tuple[SingleMove, ...], tuple[int, ...], int]
"""A row of moves: the moves, one bit per move (its destination: ``1 << station``), and the
union of those bits (a row none of whose stations is taken is legal whole)."""
_DoubleRow = tuple[tuple[DoubleMove, ...], tuple[int, ...], int]
_HunterRows = tuple[tuple[_Row, ...], ...]


def _row(moves: Sequence[tuple[_M, ...]], dests: Sequence[tuple[int, ...]], avail: int
         ) -> tuple[tuple[_M, ...], tuple[int, ...], int]:
    """The row of the tickets of ``avail`` (bit ``t``: ticket ``t``), in ticket order, from
    each ticket's ``moves`` and their ``dests``."""
    return _join([(ms, tuple(_BIT[d] for d in ds), _mask(ds))
                  for ms, ds in zip(moves, dests, strict=True)], avail)


def _join(parts: Sequence[tuple[tuple[_M, ...], tuple[int, ...], int]], avail: int
          ) -> tuple[tuple[_M, ...], tuple[int, ...], int]:
    """The row made of the rows ``parts[t]`` of the tickets ``t`` of ``avail``, in order."""
    row: tuple[_M, ...] = ()
    bits: tuple[int, ...] = ()
    mask = 0
    for t, (ms, bs, m) in enumerate(parts):
        if (avail >> t) & 1:
            row += ms
            bits += bs
            mask |= m
    return row, bits, mask


def _mask(stations: Sequence[int]) -> int:
    """The bitset of ``stations``."""
    mask = 0
    for d in stations:
        mask |= _BIT[d]
    return mask


@cache
def _hunter_rows(board: str, piece: str | None) -> _HunterRows:
    """``[avail][station]``: a hunter's row of one-step moves (naming ``piece`` where the
    order is free; in ``legal_moves()`` order) for the tickets it holds: ``avail`` bit 0
    taxi, 1 bus, 2 underground."""
    singles = _single_rows(board, piece)
    return tuple(tuple(_row([singles[t][0][s] for t in _TBU], [singles[t][1][s] for t in _TBU],
                            avail) for s in range(200)) for avail in range(8))


@cache
def _mr_x_rows(board: str) -> tuple[tuple[_Row, ...], ...]:
    """``[avail][station]``: Mr X's row of one-step moves for the tickets he holds
    (``avail`` bit 0 taxi, 1 bus, 2 underground, 3 black; in ``legal_moves()`` order: taxi,
    bus, underground, black)."""
    singles = _single_rows(board, None)
    return tuple(tuple(_row([singles[t][0][s] for t in range(4)],
                            [singles[t][1][s] for t in range(4)], avail)
                       for s in range(200)) for avail in range(16))


@cache
def _double_rows(board: str) -> tuple[_DoubleRow, ...]:
    """At ``(t1 * 200 + d1) * 16 + avail``: the row of double moves ``t1 d1 + t2 d2`` whose
    second step pays with a ticket of ``avail`` (bits as in :func:`_mr_x_rows`; every d2 one
    line of ``t2`` from d1, black: any line), in ``legal_moves()`` order."""
    singles = _single_rows(board, None)
    out: list[_DoubleRow] = [((), (), 0)] * (4 * 200 * 16)
    for t1 in range(4):
        for d1 in range(1, 200):
            parts = [_row([tuple(Move.double(t1, d1, t2, d2) for d2 in singles[t2][1][d1])],
                          [singles[t2][1][d1]], 1) for t2 in range(4)]
            for avail in range(16):
                out[(t1 * 200 + d1) * 16 + avail] = _join(parts, avail)
    return tuple(out)


_DOUBLES_KEPT = 8192  # double-move rows kept per board (each about 2 KB): a bound, not a need


@cache
def _double_lists(board: str) -> dict[int, _DoubleRow]:
    """The rows of :func:`_mr_x_doubles`, made on first use (kept per board)."""
    return {}


def _mr_x_doubles(board: str, x: int, avail: int, twos: int) -> _DoubleRow:
    """Mr X's double moves from ``x`` with the tickets of ``avail`` at hand and those of
    ``twos`` held at least twice (bits as in :func:`_mr_x_rows`; a ticket held once pays for
    one step only), in ``legal_moves()`` order: after each single step of ``x``'s row, its
    second steps. One bit per move marks both its stations (a move is legal if neither is
    taken). Made from :func:`_double_rows` on first use."""
    table = _double_lists(board)
    key = (x * 16 + avail) * 16 + twos
    got = table.get(key)
    if got is not None:
        return got
    drows = _double_rows(board)
    moves: list[DoubleMove] = []
    bits: list[int] = []
    mask = 0
    for m in _mr_x_rows(board)[avail][x][0]:
        t1 = m.ticket
        left = avail if (twos >> t1) & 1 else avail & ~(1 << t1)
        mv, dbits, mask2 = drows[(t1 * 200 + m.to) * 16 + left]
        if mv:
            first = _BIT[m.to]
            moves.extend(mv)
            bits.extend(map(first.__or__, dbits))
            mask |= first | mask2
    if len(table) >= _DOUBLES_KEPT:
        table.clear()
    row = table[key] = (tuple(moves), tuple(bits), mask)
    return row


def _shuffle(rng: random.Random, cards: list[int]) -> None:
    """``rng.shuffle(cards)``: the same draws in the same order (CPython's Fisher-Yates over
    ``getrandbits``, as ``random.Random.shuffle`` and ``_randbelow`` make them), without a
    Python-level call per card (a seeded start is drawn for every ``Game.new``)."""
    getrandbits = rng.getrandbits
    for i, k in _shuffle_steps(len(cards)):
        j = getrandbits(k)
        while j > i:
            j = getrandbits(k)
        cards[i], cards[j] = cards[j], cards[i]


@cache
def _shuffle_steps(n: int) -> tuple[tuple[int, int], ...]:
    """The steps of a shuffle of ``n`` cards: each card ``i`` from the last down to the
    second, with the bits that a draw of ``0..i`` takes (:func:`_shuffle`)."""
    return tuple((i, (i + 1).bit_length()) for i in range(n - 1, 0, -1))


class _Setup:
    """What every game of one ``Rules`` value shares (built once per value: see
    :func:`_setup`)."""

    __slots__ = ("board", "ids", "index", "n", "nd", "supplies", "sup_of", "give", "pooled",
                 "unlimited", "handover", "free", "reveal", "slots", "last_round",
                 "hrows", "xrows", "extra", "stuck_last", "hunters_mask", "deck", "deck_bits", "all_bits")

    def __init__(self, rules: Rules) -> None:
        self.board = board = london(rules.board)
        self.ids = ids = rules.pieces
        self.index = {p: i for i, p in enumerate(ids)}
        self.n = len(ids)
        self.nd = nd = rules.detectives
        supplies: list[tuple[int, ...]] = [(*rules.mr_x_tickets, rules.black_tickets,
                                            rules.double_moves)]
        sup_of = [0]
        if rules.pooled_supply is not None:
            supplies.append(tuple(rules.pooled_supply))
            sup_of += [1] * nd
        else:
            for _ in range(nd):
                supplies.append(tuple(rules.detective_tickets))
                sup_of.append(len(supplies) - 1)
        sup_of += [-1] * rules.police  # police move free
        self.supplies = tuple(supplies)
        self.sup_of = sup_of  # (read only: games share it)
        self.give = rules.ticket_handover and not rules.mr_x_unlimited
        self.pooled = rules.pooled_supply is not None
        self.unlimited = rules.mr_x_unlimited
        self.handover = rules.ticket_handover
        self.free = rules.free_order
        self.reveal = frozenset(rules.reveal_slots)
        self.slots = rules.log_slots
        self.last_round = rules.last_round
        self.hrows = _hunter_rows(rules.board, None)
        self.xrows = _mr_x_rows(rules.board)
        self.extra = rules.extra_reveal
        # R-END (3): the pieces 1..stuck_last-1 count (and block) in the detectives-stuck test
        self.stuck_last = self.n if rules.police_keep_hunting else nd + 1
        self.hunters_mask = ((1 << self.n) - 1) & ~1
        self.deck = frozenset(rules.start_deck_mr_x)
        self.deck_bits = sum(1 << s for s in self.deck)
        self.all_bits = sum(1 << s for s in range(1, board.stations + 1))


_SETUPS: dict[int, tuple[Rules, _Setup]] = {}


def _setup(rules: Rules) -> _Setup:
    """The shared set-up of ``rules`` (cached by identity; ``Rules`` values are frozen)."""
    got = _SETUPS.get(id(rules))
    if got is None or got[0] is not rules:
        if len(_SETUPS) > 64:
            _SETUPS.clear()
        got = _SETUPS[id(rules)] = (rules, _Setup(rules))
    return got[1]


class IllegalMove(ValueError):
    """A move that the rules do not allow; the message names the rule (``R-...``)."""


class GameError(ValueError):
    """A bad set-up (start positions) or an operation that the game's state does not allow."""


def check_seed(seed: object) -> int:
    """``seed`` as a start seed: a whole number >= 0 (numpy's integers too). Raises
    :class:`TypeError` for another type (``"7"``, ``7.5``, ``True``, bytes: ``random.Random``
    would take them and draw another start than ``7``) and :class:`ValueError` for a negative
    number (it would draw the same start as its absolute value)."""
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral):
        raise TypeError(f"seed is a whole number >= 0 or None, not {seed!r} "
                        f"({type(seed).__name__})")
    if seed < 0:
        raise ValueError(f"seed is a whole number >= 0 or None, not {seed!r}")
    return int(seed)


class Game:
    """One game of Scotland Yard: holds the truth, generates and makes moves.

    >>> g = Game.new(Rules.classic(detectives=5), seed=7)
    >>> g.to_move
    'X'
    """

    __slots__ = (
        "rules", "board", "_n", "_nd", "_ids", "_index", "_pos", "_sup", "_sup_of", "_occ",
        "_round", "_turn", "_moved", "_log", "_take", "_outcome", "_belief",
        "_undo", "_start", "_start_belief", "_unlimited", "_handover", "_free", "_reveal",
        "_hunters_mask", "_nb", "_masks", "_slots", "_last_round", "seed", "_viewcache",
        "_wit", "_wit_to", "_hrows", "_stuck_last", "_extra", "_expand", "_sups",
        "_give", "_give_to", "_pooled", "_xrows", "_pass_token",
    )

    rules: Rules
    board: Board
    seed: int | None
    _ids: tuple[str, ...]
    _index: dict[str, int]
    _n: int
    _nd: int
    _pos: list[int]
    _start: dict[str, int]
    _sup: list[list[int]]
    _sup_of: list[int]
    _sups: list[list[int] | None]
    _give: bool
    _give_to: list[int] | None
    _pooled: bool
    _unlimited: bool
    _handover: bool
    _free: bool
    _reveal: frozenset[int]
    _slots: int
    _last_round: int
    _nb: tuple[tuple[tuple[int, ...], ...], ...]
    _masks: tuple[tuple[int, ...], ...]
    _hrows: _HunterRows
    _xrows: tuple[tuple[_Row, ...], ...]
    _expand: Callable[[int, int], int]
    _extra: bool
    _stuck_last: int
    _wit: int
    _wit_to: int
    _pass_token: object
    _occ: int
    _hunters_mask: int
    _round: int
    _turn: int
    _moved: int
    _take: int
    _log: list[LogEntry]
    _undo: list[_UndoTuple]  # plain tuples at the end, Undo records below (see history)
    _viewcache: dict[bool, ViewCache] | None  # made on first use (see view_cache)
    _outcome: Outcome | None
    _start_belief: int
    _belief: int

    # ---- construction ----------------------------------------------------------------------
    def __init__(self, rules: Rules | str, start: dict[str, int]) -> None:
        """Set up a game at the given start stations (every piece of ``rules.pieces``).

        Prefer :meth:`new`. Raises :class:`GameError` for a bad set-up (R-SETUP); ``rules``
        as :meth:`new` takes them.
        """
        self._set_up(rules if type(rules) is Rules else as_rules(rules, "Game's rules"),
                     start, True)

    def _set_up(self, rules: Rules, start: dict[str, int], check: bool) -> None:
        s = _setup(rules)
        self.rules = rules
        self.board = s.board
        self.seed = None
        self._ids = ids = s.ids
        self._index = s.index
        self._n = s.n
        self._nd = s.nd
        if check:
            self._check_start(start)
            pos = [start[p] for p in ids]
            start = dict(zip(ids, pos, strict=True))
        else:  # a fresh draw of draw_start's: valid, in seat order
            pos = list(start.values())
        self._pos = pos
        self._start = start
        # supplies: 0 is Mr X's [T, B, U, K, 2]; detectives' [T, B, U] follow; pooled
        # detectives share one
        self._sup = [list(x) for x in s.supplies]
        self._sup_of = s.sup_of
        self._give = s.give
        self._link_supplies()
        self._pooled = s.pooled
        self._unlimited = s.unlimited
        self._handover = s.handover
        self._free = s.free
        self._reveal = s.reveal
        self._slots = s.slots
        self._last_round = s.last_round
        self._nb = s.board.neighbours
        self._masks = s.board.masks
        self._hrows = s.hrows
        self._xrows = s.xrows
        self._expand = s.board.expand
        self._extra = s.extra
        self._stuck_last = s.stuck_last
        # the witness of R-END (3): a detective (_wit, 0: "not known", and the next test looks
        # for one) and a station it can move to now (_wit_to), kept valid by every push; two
        # ints, not a tuple: a hunter's step sets it, and a tuple a step is an allocation
        self._wit = 0
        self._wit_to = 0
        self._pass_token = None  # see push: the newest record when legal_moves() offered a pass
        occ = 0
        for i in range(1, s.n):
            occ |= 1 << pos[i]
        self._occ = occ
        self._hunters_mask = s.hunters_mask
        self._round = 1
        self._turn = 0
        self._moved = 0
        self._take = 0
        self._log = []
        self._undo = []  # the history: one record per move made (see history)
        self._viewcache = None  # made by the views on first use (see view_cache)
        self._outcome = None
        cand = s.deck_bits if start[MR_X] in s.deck else s.all_bits
        self._start_belief = cand & ~occ
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
            if s not in self.board.playable:  # a small board: a station it does not have
                raise GameError(f"R-SETUP: {p} starts on {s}, not on the {self.board.name} board "
                                f"(its stations: {', '.join(map(str, sorted(self.board.playable)))})")
        seen: dict[int, str] = {}
        for p in self._ids:
            s = start[p]
            if s in seen:
                raise GameError(f"R-SETUP: {seen[s]} and {p} both start on {s} (one piece per station)")
            seen[s] = p

    @classmethod
    def new(cls, rules: Rules | str | None = None, *, seed: int | None = None,
            start: dict[str, int] | None = None) -> Game:
        """A new game of ``rules`` (a :class:`Rules`, a preset name such as ``"classic"``, or
        ``None``: the classic rules). Start stations are drawn from the edition's decks
        (R-SETUP) with ``random.Random(seed)`` (``seed`` a whole number >= 0, or ``None`` for a
        fresh draw), or given as ``start={"X": 132, "D1": 13, ...}``.

        Raises :class:`TypeError` for rules or a seed of another type (``"7"``, ``7.5``,
        ``True``, bytes) and :class:`ValueError` for a negative seed (``random`` would draw
        the same start as for its absolute value)."""
        if type(rules) is not Rules:
            rules = as_rules(rules, "Game.new's rules")
        if seed is not None:
            seed = check_seed(seed)
        if start is None:  # drawn from the decks: a valid set-up (R-SETUP)
            game = cls.__new__(cls)
            game._set_up(rules, cls.draw_start(rules, seed), False)
        else:
            game = cls(rules, dict(start))
        game.seed = seed
        return game

    @staticmethod
    def draw_start(rules: Rules, seed: int | None = None) -> dict[str, int]:
        """Draw distinct start stations from the rules' decks (R-SETUP), seeded as
        :meth:`new`."""
        rng = random.Random(seed if seed is None or type(seed) is int and seed >= 0
                            else check_seed(seed))
        if not rules.start_deck_detectives or not rules.start_deck_mr_x:
            raise GameError("R-SETUP: these rules have no start deck; give start= stations")
        ids = _setup(rules).ids  # Mr X, then the hunters in seat order
        cards = list(rules.start_deck_detectives)
        need = len(ids) if rules.shared_start_deck else len(ids) - 1  # (Mr X's own deck)
        if len(cards) < need:
            raise GameError(f"R-SETUP: {len(cards)} start cards for {need} pieces")
        _shuffle(rng, cards)
        if rules.shared_start_deck:  # one deck: Mr X draws first, then each hunter
            return dict(zip(ids, cards, strict=False))
        taken = set(cards[: len(ids) - 1])
        x_tiles = [s for s in rules.start_deck_mr_x if s not in taken]
        return {MR_X: rng.choice(x_tiles), **dict(zip(ids[1:], cards, strict=False))}

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
        g._wit = 0  # the tickets changed: look for a detective's move again
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
        g._link_supplies()
        g._log = list(self._log)
        g._undo = list(self._undo)
        vc = self._viewcache
        g._viewcache = None if vc is None else {k: v.copy() for k, v in vc.items()}
        return g

    def _link_supplies(self) -> None:
        """``_sups[i]``: piece ``i``'s supply list (the pooled list shared; ``None`` for
        police, who move free)."""
        self._sups = [self._sup[si] if si >= 0 else None for si in self._sup_of]
        # where a detective's spent ticket goes (R-TICKETS: Mr X's supply in the classic game)
        self._give_to = self._sup[0] if self._give else None

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
        return [(self._ids[u.piece], u.move) for u in self.history]

    @property
    def ply(self) -> int:
        """How many moves have been made."""
        return len(self._undo)

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

    def view(self, piece: str | None = None) -> PlayerView:
        """What ``piece``'s player may know (or ``"spectator"``): the only way facts leave the
        game for a player. Detective and spectator views carry Mr X's station only at reveal
        slots (and everything once the game is over).

        ``None`` (the default) is the piece to move, so ``game.view()`` and the idiom
        ``game.view(game.to_move)`` (``to_move`` is ``str | None``) type-check alike; on a
        finished game there is none, and :class:`GameError` asks for a piece."""
        if piece is None:
            piece = self.to_move
            if piece is None:
                raise GameError("the game is over: no piece is to move; name the piece whose "
                                "view you want ('X', 'D1', ... or 'spectator')")
        return build_view(self, piece)

    # ---- the public-facts API that views are built from (view.GameFacts) ----------------------
    @property
    def history(self) -> Sequence[Undo]:
        """Every move made so far, each with its ``piece`` (index), ``move`` and ``round``
        (Mr X's true moves; the records are the undo stack's).

        ``push`` stores each record as a plain tuple (the cheapest record to make); they are
        named here, once each: the plain ones are always the newest, so the walk stops at the
        first named record. A record keeps its identity from then on (views cache by it)."""
        undo = self._undo
        k = len(undo) - 1
        while k >= 0 and type(undo[k]) is not Undo:
            undo[k] = Undo._make(undo[k])
            k -= 1
        return cast(list[Undo], undo)  # every record is named now

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
    def view_cache(self) -> dict[bool, ViewCache]:
        """The views' cache of public history entries (kept by :func:`~.view.build_view`;
        made on first use, so that a game played without views, as in search or batch play,
        does not make one a game)."""
        vc = self._viewcache
        if vc is None:
            vc = self._viewcache = {False: ViewCache(), True: ViewCache()}
        return vc

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
            sup = self._sups[t]
            # the row of the tickets at hand (bit 0 taxi, 1 bus, 2 underground): whole if no
            # piece stands on its stations
            avail = 7 if sup is None or 0 not in sup else \
                (sup[0] > 0) | (sup[1] > 0) << 1 | (sup[2] > 0) << 2
            row, bits, mask = self._hrows[avail][self._pos[t]]
            occ = self._occ
            if not mask & occ:
                if row:
                    return list(row)
            else:
                moves: list[Move] = [m for m, bit in zip(row, bits, strict=True) if not occ & bit]
                if moves:
                    return moves
            # the token that lets push() take this pass without asking again (while the
            # newest record is this one, the position is this one)
            self._pass_token = self._undo[-1] if self._undo else None
            return [PASS]
        # R-ORDER-FREE: a piece passes only when no piece still to move has a real move
        out: list[Move] = []
        stuck: list[str] = []
        moved = self._moved
        for i in range(1, self._n):
            if not (moved >> i) & 1:
                pid = self._ids[i]
                ms = self._hunter_moves(i, _hunter_rows(self.rules.board, pid))
                if ms:
                    out.extend(ms)
                else:
                    stuck.append(pid)
        return out if out else [Move.pass_(pid) for pid in stuck]

    def _hunter_moves(self, i: int, rows: _HunterRows | None = None) -> list[Move]:
        """Hunter ``i``'s moves, from the board's precomputed rows for the tickets it holds
        (``rows``: the rows naming the piece, in free order): a row whose stations are all
        free is taken whole."""
        sup = self._sups[i]
        avail = 7 if sup is None else (sup[0] > 0) | (sup[1] > 0) << 1 | (sup[2] > 0) << 2
        moves, bits, mask = (rows or self._hrows)[avail][self._pos[i]]
        occ = self._occ
        if not mask & occ:
            return list(moves)
        return [m for m, bit in zip(moves, bits, strict=True) if not occ & bit]

    def _mr_x_moves(self) -> list[Move]:
        """Mr X's moves, from the board's precomputed rows for the tickets he holds: his
        single steps (a row whose stations are all free is taken whole), the same with a
        voluntary reveal where the rules have it, then his double moves."""
        sup = self._sup[0]
        occ = self._occ
        unlimited = self._unlimited
        # the tickets at hand: avail bit 0 taxi, 1 bus, 2 underground, 3 black
        avail = (7 if unlimited else (sup[0] > 0) | (sup[1] > 0) << 1 | (sup[2] > 0) << 2) \
            | (sup[3] > 0) << 3
        row, bits, mask = self._xrows[avail][self._pos[0]]
        # the single steps start the list that is returned (no second copy)
        out: list[Move] = [m for m, bit in zip(row, bits, strict=True)
                           if not occ & bit] if mask & occ else list(row)
        singles = len(out)
        slot = len(self._log) + 1
        if self._extra and slot not in self._reveal:
            out.extend([Move.single(m.ticket, m.to, reveal=True) for m in out
                        if isinstance(m, SingleMove)])  # (all of them: the steps so far)
        if sup[DOUBLE] and slot + 1 <= self._slots and singles:
            # the tickets held twice (a ticket held once pays for one of the two steps)
            twos = (7 if unlimited else (sup[0] > 1) | (sup[1] > 1) << 1 | (sup[2] > 1) << 2) \
                | (sup[3] > 1) << 3
            mv, dbits, dmask = _mr_x_doubles(self.rules.board, self._pos[0], avail, twos)
            if dmask & occ:
                out.extend([m for m, bit in zip(mv, dbits, strict=True) if not occ & bit])
            else:
                out.extend(mv)
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
    def why_illegal(self, move: Move | str) -> str | None:
        """Why ``move`` (a :class:`Move` or notation, as :meth:`push` takes) is not legal now,
        naming the rule, or ``None`` if it is legal; notation that does not parse gets the
        :class:`~scotlandyard.move.NotationError`'s reason."""
        if isinstance(move, str):
            try:
                move = Move.parse(move)
            except NotationError as exc:
                return f"not a move: {exc}"
        if self._outcome is not None:
            return f"R-END: the game is over ({self._outcome.describe()})"
        if not isinstance(move, Move):
            return (f"not a move: {move!r} ({type(move).__name__}; a Move or its notation, a "
                    f"str such as 'T92')")
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
                if not isinstance(move, TakeMove):
                    return f"R-VAR-EXTRA-REVEAL: Mr X now takes a ticket from {det} (take:{det}:T/B/U)"
                if move.take_from != det:
                    return f"R-VAR-EXTRA-REVEAL: Mr X takes from {det} next, not {move.take_from}"
                if move.ticket > 2 or not self._sup[self._sup_of[self._take]][move.ticket]:
                    return f"R-VAR-EXTRA-REVEAL: {det} has no {move.ticket.label} ticket"
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
        if isinstance(move, PassMove):
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
        if isinstance(move, DoubleMove):
            return "R-MRX: only Mr X makes double moves"
        if not isinstance(move, SingleMove):
            return f"R-MOVE-1: {move.notation()} is not a move for {pid}"
        if move.reveal:
            return "R-VAR-EXTRA-REVEAL: only Mr X reveals himself"
        tk, d = move.ticket, move.to
        p = self._pos[i]
        if tk == Ticket.BLACK:
            return "R-TICKETS: only Mr X has black tickets"
        if tk not in _TBU:
            return f"R-TICKETS: a {tk.label} ticket is not a move"
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
        rule if it is not legal now; the game is then unchanged.

        The commonest moves (a piece's step or pass in the fixed order, Mr X's single or
        double move) are checked here by a few exact bit tests; every other move, and every
        move those tests do not pass, goes through :meth:`why_illegal`."""
        t = self._turn
        if isinstance(move, SingleMove):
            if t:
                if not self._free and self._outcome is None:
                    # a piece's step in the fixed order: checked here, exactly
                    tk = move.ticket
                    d = move.to
                    if tk < 3 and move.piece is None and not move.reveal \
                            and d in self._nb[tk][self._pos[t]] and not self._occ & _BIT[d]:
                        sup = self._sups[t]
                        if sup is None or sup[tk] > 0:
                            self._step_hunter(t, move, tk, d, sup)
                            return
            elif self._outcome is None and not self._take and move.piece is None \
                    and not move.reveal and self._mr_x_step_ok(move.ticket, move.to, 0):
                self._push_mr_x(move)
                return
        elif move is PASS:
            # a pass in the fixed order: legal if legal_moves() offered it in this very
            # position (its token is the newest record: see legal_moves), or no move is left
            if t and not self._free and self._outcome is None and (
                    (self._undo and self._undo[-1] is self._pass_token)
                    or not self._can_move(t)):
                self._step_hunter(t, move, -1, 0, None)
                return
        elif isinstance(move, DoubleMove):
            if not t and self._outcome is None and not self._take and move.piece is None \
                    and self._mr_x_double_ok(move):
                self._push_mr_x(move)
                return
        elif isinstance(move, str):
            move = Move.parse(move)
        elif not isinstance(move, Move):
            raise TypeError(f"push takes a Move or its notation (a str such as 'T92'), not "
                            f"{move!r} ({type(move).__name__})")
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
        if self._outcome is not None:
            return False
        t = self._turn
        if t == 0:
            if self._take or move.piece not in (None, MR_X):
                return False
            if isinstance(move, SingleMove):
                return not move.reveal and self._mr_x_step_ok(move.ticket, move.to, 0)
            if isinstance(move, DoubleMove):
                return self._mr_x_double_ok(move)
            return False
        if not isinstance(move, SingleMove) or move.reveal:
            return False
        tk = move.ticket
        if tk > 2:
            return False
        piece = move.piece
        if piece is not None:
            i = self._index.get(piece, 0)
            if i == 0 or (not self._free and i != t) or (self._moved >> i) & 1:
                return False
        else:
            i = t
        d = move.to
        if not self._masks[tk][self._pos[i]] & _BIT[d] or self._occ & _BIT[d]:
            return False
        sup = self._sups[i]
        return sup is None or sup[tk] > 0

    def _mr_x_step_ok(self, tk: int, d: int, spent: int) -> bool:
        """Whether Mr X may step from where he stands to ``d`` with ticket ``tk`` (0..3)
        while ``spent`` tickets of that kind are already used this move."""
        if tk > 3 or self._occ & _BIT[d] or not self._masks[4 if tk == 3 else tk][self._pos[0]] & _BIT[d]:
            return False
        return (tk != 3 and self._unlimited) or self._sup[0][tk] > spent

    def _mr_x_double_ok(self, move: DoubleMove) -> bool:
        tk, d, tk2, d2 = move.ticket, move.to, move.ticket2, move.to2
        sup = self._sup[0]
        if tk2 > 3 or not sup[DOUBLE] or len(self._log) + 2 > self._slots \
                or not self._mr_x_step_ok(tk, d, 0):
            return False
        if not self._masks[4 if tk2 == 3 else tk2][d] & _BIT[d2] or self._occ & _BIT[d2]:
            return False
        return (tk2 != 3 and self._unlimited) or sup[tk2] > (1 if tk2 == tk else 0)

    def _push(self, move: Move) -> None:
        """Make a move already known to be legal."""
        t = self._turn
        if t != 0:
            i = t
            if self._free:
                if move.piece is not None:
                    i = self._index[move.piece]
                else:
                    move = move.with_piece(self._ids[i])  # records name the piece in free order
            if isinstance(move, SingleMove):
                self._step_hunter(i, move, move.ticket, move.to, self._sups[i])
            else:
                self._step_hunter(i, move, -1, 0, None)
            return
        if isinstance(move, (SingleMove, DoubleMove)):
            self._push_mr_x(move)
            return
        rnd = self._round
        self._undo.append((0, move, rnd, t, self._moved, self._belief, self._outcome,
                           self._take, self._pos[0]))
        if isinstance(move, TakeMove):
            self._do_take(move)
        self._after_mr_x(rnd)

    def _after_mr_x(self, rnd: int) -> None:
        """The R-END checks after a move of Mr X's (made in round ``rnd``)."""
        if self._outcome is None and not self._wit:
            # (Mr X's single or double move changes nothing of the detectives': with a
            # witness kept, they are not stuck and it is not his turn again)
            self._outcome = self._check_end(rnd)
            if self._outcome is not None and self._outcome.reason == "detectives_stuck":
                self._round = self._outcome.round  # the game ended in the round of that move

    def _step_hunter(self, i: int, move: Move, tk: int, d: int, sup: list[int] | None) -> None:
        """Make hunter ``i``'s legal move: a step to ``d`` with ticket ``tk`` paid from
        ``sup`` (its supply, ``_sups[i]``: ``None`` for police), or a pass (``tk`` -1); then
        the R-END checks."""
        rnd = self._round
        pos = self._pos
        old = pos[i]
        moved = self._moved
        belief = self._belief
        self._undo.append((i, move, rnd, self._turn, moved, belief, None, 0,
                           old))  # (no take is pending now)
        # R-END (3): the detectives are not stuck while one of them has a legal move (the
        # witness: a piece and a station it can move to). The piece that just moved can go
        # back the way it came while it holds a ticket of that kind (the station it left is
        # free now): that is the witness then (``back``). Else the last witness is still legal
        # unless its piece moved now or this move took its station (pooled supplies: or its
        # ticket ran out); failing that, look for one.
        back = False
        if tk >= 0:
            if sup is not None:
                left = sup[tk] - 1
                sup[tk] = left
                give_to = self._give_to
                if give_to is not None:
                    give_to[tk] += 1
                back = left > 0 and i < self._stuck_last
            else:
                back = i < self._stuck_last
            bit = _BIT[d]
            self._occ ^= _BIT[old] | bit
            pos[i] = d
            if d == pos[0]:
                self._belief = bit
                self._outcome = Outcome(Winner.DETECTIVES, Reason.CAUGHT, rnd, self._ids[i])
                return
            if belief & bit:
                self._belief = belief ^ bit
        moved |= 1 << i
        wrapped = moved == self._hunters_mask
        if wrapped:
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
        if back:
            self._wit = i
            self._wit_to = old
        else:
            k = self._wit
            if (not k or k == i or self._wit_to == d or self._pooled) and self._detectives_stuck():
                self._outcome = Outcome(Winner.MR_X, Reason.DETECTIVES_STUCK, rnd)
                self._round = rnd  # the game ended in the round of that move
                return
        # R-END (4)
        if wrapped and not self._mr_x_can_move():
            self._outcome = Outcome(Winner.DETECTIVES, Reason.CORNERED, rnd + 1)

    def _push_mr_x(self, move: SingleMove | DoubleMove) -> None:
        """Make Mr X's legal single or double move."""
        rnd = self._round
        self._undo.append((0, move, rnd, 0, self._moved, self._belief, None, self._take,
                           self._pos[0]))
        sup = self._sup[0]
        occ = self._occ
        expand = self._expand
        unlimited = self._unlimited
        log = self._log
        shown = self._reveal
        slot = len(log) + 1
        tk = move.ticket
        if tk == BLACK or not unlimited:
            sup[tk] -= 1
        if isinstance(move, DoubleMove):
            sup[DOUBLE] -= 1
            tk2 = move.ticket2
            if tk2 == BLACK or not unlimited:
                sup[tk2] -= 1
            d = move.to
            reveal = slot in shown
            log.append(_new(LogEntry, (slot, rnd, tk, d, reveal, True, False)))
            belief = (1 << d) if reveal else expand(self._belief, 4 if tk == BLACK else tk) & ~occ
            d = move.to2
            reveal = slot + 1 in shown
            log.append(_new(LogEntry, (slot + 1, rnd, tk2, d, reveal, True, False)))
            self._belief = (1 << d) if reveal else expand(belief, 4 if tk2 == BLACK else tk2) & ~occ
            self._pos[0] = d
        else:
            d = move.to
            voluntary = move.reveal
            reveal = voluntary or slot in shown
            log.append(_new(LogEntry, (slot, rnd, tk, d, reveal, False, voluntary)))
            self._belief = (1 << d) if reveal else expand(self._belief, 4 if tk == BLACK else tk) & ~occ
            self._pos[0] = d
            if voluntary:
                self._take = self._next_take(1)
        if not self._take:
            self._turn = 1
            self._moved = 0
        if not self._wit:
            self._after_mr_x(rnd)

    def _next_take(self, j: int) -> int:
        while j <= self._nd:
            sup = self._sup[self._sup_of[j]]
            if sup[0] or sup[1] or sup[2]:
                return j
            j += 1
        return 0

    def _do_take(self, move: TakeMove) -> None:
        j = self._take
        tk = move.ticket
        self._sup[self._sup_of[j]][tk] -= 1
        if not self._unlimited:
            self._sup[0][tk] += 1
        self._wit = 0  # a detective's ticket went: look for a move again
        self._take = self._next_take(j + 1)
        if not self._take:
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
        police count as hunters (and blockers) too. Keeps the move found as the witness."""
        occ = self._occ
        pos = self._pos
        last = self._stuck_last
        for i in range(last, self._n):
            occ &= ~(1 << pos[i])
        masks = self._masks
        sups = self._sups
        for i in range(1, last):
            p = pos[i]
            sup = sups[i]
            for t in _TBU:
                if sup is None or sup[t]:
                    free = masks[t][p] & ~occ
                    if free:
                        self._wit = i
                        self._wit_to = (free & -free).bit_length() - 1
                        return False
        self._wit = 0
        return True

    def pop(self) -> Move:
        """Unmake the last move and return it."""
        if not self._undo:
            raise GameError("no move to take back")
        # the record's fields in Undo's order (the one read of a record besides history)
        i, move, rnd, turn, moved, belief, outcome, take, old_pos = self._undo.pop()
        self._wit = 0  # it may not be legal before this move: find one again
        if i == 0:
            sup = self._sup[0]
            if isinstance(move, TakeMove):
                self._sup[self._sup_of[take]][move.ticket] += 1
                if not self._unlimited:
                    sup[move.ticket] -= 1
            else:
                steps = move.steps
                del self._log[len(self._log) - len(steps):]
                for tk, _d in steps:
                    if tk == BLACK or not self._unlimited:
                        sup[tk] += 1
                if isinstance(move, DoubleMove):
                    sup[DOUBLE] += 1
                self._pos[0] = old_pos
        elif isinstance(move, SingleMove):
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
        return self.history[-1].move if self._undo else None

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
