"""Tickets, pieces, moves and the move notation (the one module that parses and prints it).

Notation (see README):

- ticket letters ``T`` taxi, ``B`` bus, ``U`` underground, ``K`` black;
- a move is a letter and a station: ``T92``, ``U46``, ``K115``;
- a double move joins two steps with ``+``: ``B58+K74``;
- ``pass``: a detective or police piece with no legal move;
- ``T92!``: Mr X moves and reveals himself voluntarily (R-VAR-EXTRA-REVEAL), then takes one
  ticket from each detective with ``take:D1:B`` moves;
- a piece prefix names the piece where the order is free: ``D2:T92``, ``P1:B58``;
- hidden form, as the detectives see Mr X's log: ``T?``, ``B58+K?``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import IntEnum
from typing import ClassVar, Literal, TypeVar, cast


class Ticket(IntEnum):
    """A ticket. Taxi, bus and underground pay for their own lines; black pays for any line
    (ferry included) and hides which; a double-move card lets Mr X move twice."""

    TAXI = 0
    BUS = 1
    UNDERGROUND = 2
    BLACK = 3
    DOUBLE = 4

    @property
    def letter(self) -> str:
        """The notation letter (``T``, ``B``, ``U``, ``K``; ``2`` for the double-move card)."""
        return _LETTERS[self]

    @property
    def label(self) -> str:
        """The ticket's name in views, JSON and tables: ``taxi``, ``bus``, ``underground``,
        ``black``, ``double``."""
        return self.name.lower()

    @classmethod
    def from_letter(cls, letter: str) -> Ticket:
        """The ticket of a notation letter (case-insensitive)."""
        try:
            return _FROM_LETTER[letter.upper()]
        except KeyError:
            raise NotationError(f"unknown ticket letter {letter!r} (use T, B, U or K)") from None


_LETTERS = {Ticket.TAXI: "T", Ticket.BUS: "B", Ticket.UNDERGROUND: "U", Ticket.BLACK: "K",
            Ticket.DOUBLE: "2"}
_FROM_LETTER = {"T": Ticket.TAXI, "B": Ticket.BUS, "U": Ticket.UNDERGROUND, "K": Ticket.BLACK}
TICKET_NAMES: tuple[str, ...] = tuple(t.label for t in Ticket)
"""Every ticket's name in index order (``taxi`` .. ``double``): views and JSON use these."""

MR_X = "X"
DETECTIVE_IDS = ("D1", "D2", "D3", "D4", "D5")
POLICE_IDS = ("P1", "P2", "P3", "P4")


def is_piece_id(text: str) -> bool:
    """True for ``X``, ``D1``..``D5`` and ``P1``..``P4``."""
    return text == MR_X or text in DETECTIVE_IDS or text in POLICE_IDS


class NotationError(ValueError):
    """A move or record text that does not follow the notation."""


class Move:
    """One move. Every move is one of four kinds, each its own class (and ``kind`` tag):

    - :class:`SingleMove` (``kind == "single"``): a ticket and a station, ``T92``; with
      ``reveal`` for Mr X's voluntary reveal ``T92!``;
    - :class:`DoubleMove` (``"double"``): Mr X's two steps on a double-move card, ``B58+K74``;
    - :class:`PassMove` (``"pass"``): a detective or police piece with no legal move;
    - :class:`TakeMove` (``"take"``): Mr X takes ``ticket`` from ``take_from`` after a voluntary
      reveal, ``take:D1:B``.

    ``piece`` is set only where the detectives choose their order (new edition) and in
    records. Make moves with :meth:`single`, :meth:`double`, :meth:`pass_`, :meth:`take` or
    :meth:`parse` (interned: equal moves are usually the same object).

    Code that handles every kind reads ``ticket``, ``to``, ``ticket2``, ``to2`` and
    ``take_from`` on the base: they are ``None`` where the kind has no such field. Narrow with
    ``isinstance`` (or ``match``) to read them typed: a ``SingleMove``'s ``ticket`` and ``to``
    are never ``None``.
    """

    __slots__ = ()
    kind: ClassVar[MoveKind]
    # the fields of the other kinds, as class attributes: None (or False) where a kind has none
    ticket: Ticket | None = None
    to: int | None = None
    ticket2: Ticket | None = None
    to2: int | None = None
    piece: str | None = None
    reveal: bool = False
    take_from: str | None = None
    is_pass: ClassVar[bool] = False
    """True for ``pass``."""
    is_double: ClassVar[bool] = False
    """True for a double move."""
    is_take: ClassVar[bool] = False
    """True for a ``take:Dn:L`` move."""

    def __new__(cls, *args: object, **kwargs: object) -> Move:
        if cls is Move:
            raise TypeError("Move is the base of SingleMove, DoubleMove, PassMove and TakeMove: "
                            "make one with Move.single, Move.double, Move.pass_, Move.take or "
                            "Move.parse")
        return object.__new__(cls)

    # ---- constructors --------------------------------------------------------------------
    @staticmethod
    def single(ticket: Ticket | int, to: int, piece: str | None = None, *,
               reveal: bool = False) -> SingleMove:
        """A one-step move (interned: the same object for the same arguments); ``reveal``
        for Mr X's voluntary reveal (``T92!``)."""
        if piece is None and not reveal and 0 <= to < len(_SINGLES[0]):
            return _SINGLES[ticket][to]
        return _intern(SingleMove(Ticket(ticket), to, piece, reveal))

    @staticmethod
    def double(t1: Ticket | int, to1: int, t2: Ticket | int, to2: int) -> DoubleMove:
        """A double move of two steps (interned: the same object for the same steps)."""
        key = ((t1 * 200 + to1) * 4 + t2) * 200 + to2
        m = _DOUBLES.get(key)
        if m is None:
            m = _DOUBLES[key] = _intern(DoubleMove(_TICKETS[t1], to1, _TICKETS[t2], to2))
        return m

    @staticmethod
    def pass_(piece: str | None = None) -> PassMove:
        """The pass of a piece that cannot move (R-MOVE-2)."""
        return PASS if piece is None else _intern(PassMove(piece))

    @staticmethod
    def take(detective: str, ticket: Ticket | int) -> TakeMove:
        """Mr X takes ``ticket`` from ``detective`` after a voluntary reveal."""
        return _intern(TakeMove(Ticket(ticket), detective))

    # ---- queries --------------------------------------------------------------------------
    @property
    def steps(self) -> tuple[tuple[Ticket, int], ...]:
        """The (ticket, station) steps: none for a pass or take, two for a double move."""
        return ()

    @property
    def destination(self) -> int | None:
        """Where the piece ends up (``None`` for a pass or take)."""
        return None

    def with_piece(self, piece: str | None) -> Move:
        """The same move with ``piece`` set (or cleared with ``None``)."""
        if piece == self.piece:
            return self
        return _intern(self._repiece(piece))

    def _repiece(self, piece: str | None) -> Move:
        raise NotImplementedError

    # ---- notation -------------------------------------------------------------------------
    def __str__(self) -> str:
        return self.notation()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.notation()!r})"

    def notation(self) -> str:
        """The move in notation: ``T92``, ``B58+K74``, ``pass``, ``D2:T92``, ``take:D1:B``."""
        raise NotImplementedError

    def _prefix(self) -> str:
        return f"{self.piece}:" if self.piece else ""

    def hidden(self, shown: tuple[bool, ...] = (False, False)) -> str:
        """Mr X's move as the detectives see it: stations are ``?`` unless shown.

        ``shown[i]`` tells whether step ``i`` is revealed (a reveal slot).
        """
        return self.notation()

    @staticmethod
    def parse(text: str) -> Move:
        """Parse a move in notation (``T92``, ``b58+k74``, ``pass``, ``D2:T92``, ``T92!``,
        ``take:D1:B``). Raises :class:`NotationError` saying what is wrong."""
        if not isinstance(text, str):
            raise NotationError(f"a move is text, not {type(text).__name__}")
        raw = text.strip()
        if not raw:
            raise NotationError("empty move: write e.g. T92, B58+K74 or pass")
        if len(raw) > 40:
            raise NotationError(f"move text too long ({len(raw)} characters)")
        piece = None
        body = raw
        m = _PIECE_PREFIX.match(raw)
        if m and not raw.lower().startswith("take:"):
            piece = m.group(1).upper()
            body = raw[m.end():]
            if not is_piece_id(piece):
                raise NotationError(f"unknown piece {piece!r} in {raw!r} (X, D1..D5, P1..P4)")
        low = body.lower()
        if low == "pass":
            return Move.pass_(piece)
        if low.startswith("take:"):
            tm = _TAKE.fullmatch(body)
            if not tm:
                raise NotationError(f"bad take move {raw!r}: write take:D1:B")
            det = tm.group(1).upper()
            if det not in DETECTIVE_IDS:
                raise NotationError(f"take names a detective D1..D5, not {det!r}")
            t = Ticket.from_letter(tm.group(2))
            if t not in (Ticket.TAXI, Ticket.BUS, Ticket.UNDERGROUND):
                raise NotationError("Mr X takes a taxi, bus or underground ticket (T, B or U)")
            return Move.take(det, t).with_piece(piece)
        reveal = body.endswith("!")
        if reveal:
            body = body[:-1]
        parts = body.split("+")
        if len(parts) > 2:
            raise NotationError(f"{raw!r}: a double move has two steps, not {len(parts)}")
        steps = []
        for part in parts:
            sm = _STEP.fullmatch(part.strip())
            if not sm:
                if "?" in part:
                    raise NotationError(f"{raw!r} is a hidden move; a real move names its station")
                raise NotationError(
                    f"cannot read {part!r} in {raw!r}: a step is a ticket letter T, B, U or K "
                    "and a station number, e.g. T92")
            t = Ticket.from_letter(sm.group(1))
            s = int(sm.group(2))
            if not 1 <= s <= 199:
                raise NotationError(f"no station {s} in {raw!r} (stations are 1..199)")
            steps.append((t, s))
        if len(steps) == 2:
            if reveal:
                raise NotationError("a voluntary reveal (!) goes with a single move")
            mv: Move = Move.double(steps[0][0], steps[0][1], steps[1][0], steps[1][1])
        else:
            mv = Move.single(steps[0][0], steps[0][1], reveal=reveal)
        return mv.with_piece(piece)


MoveKind = Literal["single", "double", "pass", "take"]


@dataclass(frozen=True, slots=True, repr=False)
class SingleMove(Move):
    """A one-step move: ``ticket`` to ``to`` (``T92``; ``T92!`` with a voluntary reveal)."""

    ticket: Ticket = field()
    to: int = field()
    piece: str | None = field(default=None)
    reveal: bool = field(default=False)
    kind: ClassVar[MoveKind] = "single"

    @property
    def steps(self) -> tuple[tuple[Ticket, int], ...]:
        """The one (ticket, station) step."""
        return ((self.ticket, self.to),)

    @property
    def destination(self) -> int:
        """The station moved to."""
        return self.to

    def _repiece(self, piece: str | None) -> SingleMove:
        return SingleMove(self.ticket, self.to, piece, self.reveal)

    def notation(self) -> str:
        """``T92``, ``D2:T92``, ``T92!``."""
        return f"{self._prefix()}{_LETTERS[self.ticket]}{self.to}{'!' if self.reveal else ''}"

    def hidden(self, shown: tuple[bool, ...] = (False, False)) -> str:
        """``T?`` (``T92`` where shown)."""
        return f"{_LETTERS[self.ticket]}{self.to if shown[0] else '?'}{'!' if self.reveal else ''}"


@dataclass(frozen=True, slots=True, repr=False)
class DoubleMove(Move):
    """Mr X's double move: ``ticket`` to ``to``, then ``ticket2`` to ``to2`` (``B58+K74``)."""

    ticket: Ticket = field()
    to: int = field()
    ticket2: Ticket = field()
    to2: int = field()
    piece: str | None = field(default=None)
    kind: ClassVar[MoveKind] = "double"
    is_double: ClassVar[bool] = True

    @property
    def steps(self) -> tuple[tuple[Ticket, int], ...]:
        """The two (ticket, station) steps."""
        return ((self.ticket, self.to), (self.ticket2, self.to2))

    @property
    def destination(self) -> int:
        """The station of the second step."""
        return self.to2

    def _repiece(self, piece: str | None) -> DoubleMove:
        return DoubleMove(self.ticket, self.to, self.ticket2, self.to2, piece)

    def notation(self) -> str:
        """``B58+K74``."""
        return (f"{self._prefix()}{_LETTERS[self.ticket]}{self.to}"
                f"+{_LETTERS[self.ticket2]}{self.to2}")

    def hidden(self, shown: tuple[bool, ...] = (False, False)) -> str:
        """``B?+K?`` (a station where its step is shown)."""
        return (f"{_LETTERS[self.ticket]}{self.to if shown[0] else '?'}"
                f"+{_LETTERS[self.ticket2]}{self.to2 if shown[1] else '?'}")


@dataclass(frozen=True, slots=True, repr=False)
class PassMove(Move):
    """The pass of a detective or police piece that cannot move (R-MOVE-2)."""

    piece: str | None = field(default=None)
    kind: ClassVar[MoveKind] = "pass"
    is_pass: ClassVar[bool] = True

    def _repiece(self, piece: str | None) -> PassMove:
        return PassMove(piece)

    def notation(self) -> str:
        """``pass``, ``D2:pass``."""
        return self._prefix() + "pass"


@dataclass(frozen=True, slots=True, repr=False)
class TakeMove(Move):
    """Mr X takes ``ticket`` from the detective ``take_from`` (R-VAR-EXTRA-REVEAL)."""

    ticket: Ticket = field()
    take_from: str = field()
    piece: str | None = field(default=None)
    kind: ClassVar[MoveKind] = "take"
    is_take: ClassVar[bool] = True

    def _repiece(self, piece: str | None) -> TakeMove:
        return TakeMove(self.ticket, self.take_from, piece)

    def notation(self) -> str:
        """``take:D1:B``."""
        return f"{self._prefix()}take:{self.take_from}:{_LETTERS[self.ticket]}"


AnyMove = SingleMove | DoubleMove | PassMove | TakeMove
"""Every kind of move, as a union that ``match`` and ``kind`` comparisons narrow."""


_PIECE_PREFIX = re.compile(r"^\s*([A-Za-z]\d?)\s*:")
_TAKE = re.compile(r"take:\s*([A-Za-z]\d?)\s*:\s*([A-Za-z])", re.IGNORECASE)
_STEP = re.compile(r"([TBUKtbuk])\s*(\d{1,3})")

_INTERNED: dict[Move, Move] = {}
_M = TypeVar("_M", bound=Move)


def _intern(m: _M) -> _M:
    got = _INTERNED.get(m)
    if got is None:
        if len(_INTERNED) > 500_000:  # bound the cache in very long-running processes
            _INTERNED.clear()
        _INTERNED[m] = m
        return m
    return cast(_M, got)  # an equal move is a move of the same class (dataclass equality)


_TICKETS = tuple(Ticket)
_DOUBLES: dict[int, DoubleMove] = {}
_SINGLES: list[list[SingleMove]] = [[SingleMove(Ticket(t), s) for s in range(200)] for t in range(4)]
PASS = PassMove()
for _row in _SINGLES:  # the plain moves are the interned ones (``with_piece(None)`` finds them)
    for _m in _row:
        _INTERNED[_m] = _m
_INTERNED[PASS] = PASS


_PIECE_SINGLES: dict[str, list[list[SingleMove]]] = {}


def piece_singles(piece: str) -> list[list[SingleMove]]:
    """Interned one-step moves naming ``piece``: ``piece_singles("D2")[ticket][station]``."""
    rows = _PIECE_SINGLES.get(piece)
    if rows is None:
        rows = _PIECE_SINGLES[piece] = [
            [_intern(SingleMove(Ticket(t), s, piece)) for s in range(200)] for t in range(4)]
    return rows


def parse_hidden(text: str) -> tuple[tuple[Ticket, int | None], ...]:
    """Parse a hidden-form log entry (``T?``, ``B58+K?``) into (ticket, station or None) steps."""
    out: list[tuple[Ticket, int | None]] = []
    body = text.strip().rstrip("!")
    for part in body.split("+"):
        part = part.strip()
        if len(part) < 2:
            raise NotationError(f"cannot read hidden step {part!r} in {text!r}")
        t = Ticket.from_letter(part[0])
        rest = part[1:]
        if rest == "?":
            out.append((t, None))
        elif rest.isdigit() and 1 <= int(rest) <= 199:
            out.append((t, int(rest)))
        else:
            raise NotationError(f"cannot read hidden step {part!r} in {text!r}")
    if not 1 <= len(out) <= 2:
        raise NotationError(f"{text!r}: one or two steps")
    return tuple(out)
