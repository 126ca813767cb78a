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
from dataclasses import dataclass
from enum import IntEnum


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


@dataclass(frozen=True, slots=True)
class Move:
    """One move: a ticket and a station, two of them for a double move, or a pass.

    ``piece`` is set only where the detectives choose their order (new edition) and in
    records; ``reveal`` marks a voluntary reveal; ``take_from`` marks Mr X taking
    ``ticket`` from that detective after a voluntary reveal.
    """

    ticket: Ticket | None
    to: int | None
    ticket2: Ticket | None = None
    to2: int | None = None
    piece: str | None = None
    reveal: bool = False
    take_from: str | None = None

    # ---- constructors --------------------------------------------------------------------
    @staticmethod
    def single(ticket: Ticket, to: int, piece: str | None = None) -> Move:
        """A one-step move (interned: the same object for the same arguments)."""
        if piece is None and 0 <= to < len(_SINGLES[0]):
            return _SINGLES[ticket][to]
        return _intern(Move(Ticket(ticket), to, piece=piece))

    @staticmethod
    def double(t1: Ticket | int, to1: int, t2: Ticket | int, to2: int) -> Move:
        """A double move of two steps (interned: the same object for the same steps)."""
        key = ((t1 * 200 + to1) * 4 + t2) * 200 + to2
        m = _DOUBLES.get(key)
        if m is None:
            m = _DOUBLES[key] = Move(_TICKETS[t1], to1, _TICKETS[t2], to2)
        return m

    @staticmethod
    def pass_(piece: str | None = None) -> Move:
        """The pass of a piece that cannot move (R-MOVE-2)."""
        return PASS if piece is None else _intern(Move(None, None, piece=piece))

    @staticmethod
    def take(detective: str, ticket: Ticket) -> Move:
        """Mr X takes ``ticket`` from ``detective`` after a voluntary reveal."""
        return _intern(Move(Ticket(ticket), None, take_from=detective))

    # ---- queries --------------------------------------------------------------------------
    @property
    def is_pass(self) -> bool:
        """True for ``pass``."""
        return self.ticket is None

    @property
    def is_double(self) -> bool:
        """True for a double move."""
        return self.ticket2 is not None

    @property
    def is_take(self) -> bool:
        """True for a ``take:Dn:L`` move."""
        return self.take_from is not None

    @property
    def steps(self) -> tuple[tuple[Ticket, int], ...]:
        """The (ticket, station) steps: none for a pass or take, two for a double move."""
        if self.ticket is None or self.to is None:
            return ()
        if self.ticket2 is None:
            return ((self.ticket, self.to),)
        return ((self.ticket, self.to), (self.ticket2, self.to2))  # type: ignore[return-value]

    @property
    def destination(self) -> int | None:
        """Where the piece ends up (``None`` for a pass or take)."""
        return self.to2 if self.ticket2 is not None else self.to

    def with_piece(self, piece: str | None) -> Move:
        """The same move with ``piece`` set (or cleared with ``None``)."""
        if piece == self.piece:
            return self
        return _intern(Move(self.ticket, self.to, self.ticket2, self.to2, piece, self.reveal,
                            self.take_from))

    # ---- notation -------------------------------------------------------------------------
    def __str__(self) -> str:
        return self.notation()

    def notation(self) -> str:
        """The move in notation: ``T92``, ``B58+K74``, ``pass``, ``D2:T92``, ``take:D1:B``."""
        prefix = f"{self.piece}:" if self.piece else ""
        if self.take_from is not None:
            return f"{prefix}take:{self.take_from}:{_LETTERS[self.ticket]}"  # type: ignore[index]
        if self.ticket is None:
            return prefix + "pass"
        text = f"{_LETTERS[self.ticket]}{self.to}"
        if self.ticket2 is not None:
            text += f"+{_LETTERS[self.ticket2]}{self.to2}"
        if self.reveal:
            text += "!"
        return prefix + text

    def hidden(self, shown: tuple[bool, ...] = (False, False)) -> str:
        """Mr X's move as the detectives see it: stations are ``?`` unless shown.

        ``shown[i]`` tells whether step ``i`` is revealed (a reveal slot).
        """
        if self.ticket is None or self.take_from is not None:
            return self.notation()
        parts = []
        for i, (t, s) in enumerate(self.steps):
            parts.append(f"{_LETTERS[t]}{s if shown[i] else '?'}")
        return "+".join(parts) + ("!" if self.reveal else "")

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
            mv = Move.double(steps[0][0], steps[0][1], steps[1][0], steps[1][1])
        else:
            mv = Move.single(steps[0][0], steps[0][1])
            if reveal:
                mv = _intern(Move(mv.ticket, mv.to, reveal=True))
        return mv.with_piece(piece)


_PIECE_PREFIX = re.compile(r"^\s*([A-Za-z]\d?)\s*:")
_TAKE = re.compile(r"take:\s*([A-Za-z]\d?)\s*:\s*([A-Za-z])", re.IGNORECASE)
_STEP = re.compile(r"([TBUKtbuk])\s*(\d{1,3})")

_INTERNED: dict[Move, Move] = {}


def _intern(m: Move) -> Move:
    got = _INTERNED.get(m)
    if got is None:
        if len(_INTERNED) > 500_000:  # bound the cache in very long-running processes
            _INTERNED.clear()
        _INTERNED[m] = m
        got = m
    return got


_TICKETS = tuple(Ticket)
_DOUBLES: dict[int, Move] = {}
_SINGLES: list[list[Move]] = [[Move(Ticket(t), s) for s in range(200)] for t in range(4)]
PASS = Move(None, None)


_PIECE_SINGLES: dict[str, list[list[Move]]] = {}


def piece_singles(piece: str) -> list[list[Move]]:
    """Interned one-step moves naming ``piece``: ``piece_singles("D2")[ticket][station]``."""
    rows = _PIECE_SINGLES.get(piece)
    if rows is None:
        rows = _PIECE_SINGLES[piece] = [
            [_intern(Move(Ticket(t), s, piece=piece)) for s in range(200)] for t in range(4)]
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
