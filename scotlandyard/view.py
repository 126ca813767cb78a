"""``PlayerView``: exactly what one player may know. The one hidden-information filter.

Everything that leaves the core for a player (server frames, AI agents, environments, the
record's public form, the terminal's hidden display) is a view made by :func:`build_view`
(called by ``Game.view``) from the game's public-facts API (:class:`GameFacts`), or a view's
:meth:`PlayerView.public`. Detective and spectator views carry Mr X's station only for
revealed log slots; once the game is over, everything is shown (Mr X opens his log at the end).

This module holds the value classes (``Outcome``, ``LogEntry``, ``LogSlot``, ``PublicMove``,
``PlayerView``) and imports nothing of ``game``: the game builds its views through it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from types import MappingProxyType
from typing import Any, Literal, NamedTuple, Protocol

from .board import bits_to_set
from .move import MR_X, TICKET_NAMES, Move, Ticket
from .rules import Rules

Side = Literal["mr_x", "detectives", "spectator"]


class Winner(StrEnum):
    """The winning side (its value is what JSON, records and the protocol carry)."""

    MR_X = "mr_x"
    DETECTIVES = "detectives"


class Reason(StrEnum):
    """Why a game ended (R-END), as JSON, records and the protocol carry it."""

    CAUGHT = "caught"
    CORNERED = "cornered"
    DETECTIVES_STUCK = "detectives_stuck"
    SURVIVED = "survived"


__all__ = ["TICKET_NAMES", "GameFacts", "HistoryEntry", "LogEntry", "LogSlot", "Outcome",
           "PlayerView", "PublicMove", "Reason", "Side", "ViewCache", "Winner", "build_view"]


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a game ended: the winning side, why (``caught``, ``cornered``,
    ``detectives_stuck``, ``survived``), in which round, and the capturing piece."""

    winner: Winner
    reason: Reason
    round: int
    piece: str | None = None

    def __post_init__(self) -> None:
        # accept the plain values too ("mr_x", "caught"): a wrong one is a ValueError here
        # (the enum members themselves, as the game gives them, are kept as they are)
        if type(self.winner) is not Winner:
            object.__setattr__(self, "winner", Winner(self.winner))
        if type(self.reason) is not Reason:
            object.__setattr__(self, "reason", Reason(self.reason))

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (a view's ``outcome``)."""
        return {"winner": self.winner, "reason": self.reason, "round": self.round,
                "piece": self.piece, "text": self.describe()}

    def describe(self) -> str:
        """A sentence for people."""
        text = {
            "caught": f"{self.piece} caught Mr X",
            "cornered": "Mr X had no legal move",
            "detectives_stuck": "no detective or police piece could move",
            "survived": "Mr X stayed free to the end",
        }[self.reason]
        side = "Mr X" if self.winner == "mr_x" else "The detectives"
        return f"{side} won in round {self.round}: {text}."


class LogEntry(NamedTuple):
    """One slot of Mr X's travel log (with the true station; views hide it). A named tuple:
    the game makes one per step of Mr X, so it is cheap to build."""

    slot: int
    round: int
    ticket: Ticket
    station: int
    reveal: bool
    double: bool
    voluntary: bool


class HistoryEntry(Protocol):
    """One move of the game's history, as views read it (the game's undo record is one);
    views cache on its identity."""

    @property
    def piece(self) -> int:
        """The index of the piece that moved (0: Mr X)."""
    @property
    def move(self) -> Move:
        """The move (Mr X's true move)."""
    @property
    def round(self) -> int:
        """The round it was made in."""


class GameFacts(Protocol):
    """The game's public-facts API that :func:`build_view` reads (``Game`` provides it).

    ``stations`` and ``start`` hold Mr X's truth too, and ``log`` his true stations: the view
    decides what of them a viewer gets."""

    rules: Rules

    @property
    def pieces(self) -> tuple[str, ...]: ...
    @property
    def round(self) -> int: ...
    @property
    def to_move(self) -> str | None: ...
    @property
    def pieces_to_move(self) -> tuple[str, ...]: ...
    @property
    def pending_take(self) -> str | None: ...
    @property
    def history(self) -> Sequence[HistoryEntry]: ...
    @property
    def true_log(self) -> Sequence[LogEntry]: ...
    @property
    def station_list(self) -> Sequence[int]: ...
    @property
    def start_stations(self) -> Mapping[str, int]: ...
    @property
    def start_bits(self) -> int: ...
    @property
    def possible_bits(self) -> int: ...
    @property
    def view_cache(self) -> dict[bool, ViewCache]: ...
    def tickets(self, piece: str) -> Mapping[Ticket, int | None]: ...
    def legal_moves(self) -> list[Move]: ...
    def outcome(self) -> Outcome | None: ...


@dataclass(frozen=True, slots=True)
class LogSlot:
    """One slot of Mr X's travel log as the viewer sees it (``station`` is ``None`` if hidden)."""

    slot: int
    round: int
    ticket: Ticket
    station: int | None
    reveal: bool
    double: bool
    voluntary: bool = False


@dataclass(frozen=True, slots=True)
class PublicMove:
    """One move as the viewer saw it. For Mr X, ``steps`` hold ``None`` for hidden stations;
    ``slots`` are the log slots the steps filled."""

    piece: str
    round: int
    notation: str
    steps: tuple[tuple[Ticket, int | None], ...]
    slots: tuple[int, ...] = ()
    take: tuple[str, Ticket] | None = None
    reveal: bool = False

    @property
    def is_pass(self) -> bool:
        """True for a pass."""
        return not self.steps and self.take is None


@dataclass(frozen=True)
class PlayerView:
    """The facts one player may know (R-BELIEF's public facts, plus Mr X's own for ``X``)."""

    viewer: str
    side: Side
    rules: Rules
    round: int
    to_move: str | None
    pieces_to_move: tuple[str, ...]
    stations: Mapping[str, int]
    mr_x_station: int | None
    tickets: Mapping[str, Mapping[str, int | None]]
    log: tuple[LogSlot, ...]
    history: tuple[PublicMove, ...]
    start: Mapping[str, int]
    start_candidates: frozenset[int]
    possible: frozenset[int]
    legal_moves: tuple[Move, ...]
    outcome: Outcome | None
    pending_take: str | None = None
    all_shown: bool = False

    @property
    def is_over(self) -> bool:
        """True once the game has ended."""
        return self.outcome is not None

    @property
    def last_reveal(self) -> LogSlot | None:
        """The newest revealed log slot, if any."""
        for entry in reversed(self.log):
            if entry.reveal:
                return entry
        return None

    @property
    def my_turn(self) -> bool:
        """True when the viewer's side is to move."""
        if self.to_move is None:
            return False
        if self.side == "mr_x":
            return self.to_move == MR_X
        return self.side == "detectives" and self.to_move != MR_X

    def public(self) -> PlayerView:
        """This view with Mr X's hidden facts removed even if the game is over: what the
        detectives knew while it ran (for a public record, or showing one). Mr X's own view
        becomes a spectator's."""
        if not self.all_shown and self.side != "mr_x":
            return self
        log = tuple(e if e.reveal or e.station is None else dataclasses.replace(e, station=None)
                    for e in self.log)
        by_slot = {e.slot: e for e in log}
        history = tuple(_hide_move(h, by_slot) for h in self.history)
        out = self.outcome
        mr_x = None
        if out is not None and out.reason == "caught" and out.piece:
            mr_x = self.stations[out.piece]
        elif log and log[-1].reveal:
            mr_x = log[-1].station
        start = MappingProxyType({p: s for p, s in self.start.items() if p != MR_X})
        legal = self.legal_moves if self.side != "mr_x" else ()
        return dataclasses.replace(self, log=log, history=history, mr_x_station=mr_x,
                                   start=start, all_shown=False, legal_moves=legal,
                                   side="spectator" if self.side == "mr_x" else self.side)

    def public_log(self) -> list[str]:
        """The log in hidden notation (``T?``, ``U46`` at reveals)."""
        return [f"{e.ticket.letter}{e.station if e.station is not None else '?'}" for e in self.log]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (what the server sends)."""
        out = self.outcome
        return {
            "viewer": self.viewer,
            "side": self.side,
            "rules": self.rules.to_dict(),
            "round": self.round,
            "to_move": self.to_move,
            "pieces_to_move": list(self.pieces_to_move),
            "stations": dict(self.stations),
            "mr_x_station": self.mr_x_station,
            "tickets": {p: dict(t) for p, t in self.tickets.items()},
            "log": [
                {"slot": e.slot, "round": e.round, "ticket": TICKET_NAMES[e.ticket],
                 "station": e.station, "reveal": e.reveal, "double": e.double,
                 "voluntary": e.voluntary}
                for e in self.log
            ],
            "history": [
                {"piece": h.piece, "round": h.round, "move": h.notation} for h in self.history
            ],
            "start": dict(self.start),
            "possible": sorted(self.possible),
            "legal_moves": [m.notation() for m in self.legal_moves],
            "pending_take": self.pending_take,
            "outcome": None if out is None else out.to_dict(),
            "all_shown": self.all_shown,
        }


def _hide_move(h: PublicMove, log: Mapping[int, LogSlot]) -> PublicMove:
    """A Mr X move of the history as the detectives saw it (``log``: the public slots)."""
    if h.piece != MR_X or h.take is not None or not h.steps:
        return h
    shown = tuple(log[slot].station is not None for slot in h.slots)
    if all(shown):
        return h
    steps = tuple((t, s if shown[k] else None) for k, (t, s) in enumerate(h.steps))
    text = "+".join(f"{t.letter}{'?' if s is None else s}" for t, s in steps)
    return dataclasses.replace(h, steps=steps, notation=text + ("!" if h.reveal else ""))


class ViewCache:
    """What :func:`build_view` keeps between calls for one game and one kind of viewer (who
    may see Mr X's hidden stations, or not): each history entry as that viewer sees it, and
    the public history and log as last assembled, with the record they end at.

    An entry is reused while the game's record at its index is the same object. The assembled
    history is extended, not rebuilt, while the record it ended at is still at that index:
    records are only appended or popped at the end of the history, and a record is never
    pushed twice, so that record being in its place means that every record before it is too
    (the cache holds it, so its identity cannot pass to another object). A history that is
    shorter, or has another record there (a takeback and other moves, a diverged copy), is
    assembled again from the entries."""

    __slots__ = ("entries", "size", "last", "history", "log", "_sets", "tickets")

    def __init__(self) -> None:
        """An empty cache (no history seen yet)."""
        self.entries: list[tuple[HistoryEntry, tuple[PublicMove, tuple[LogSlot, ...]]]] = []
        self.size = 0
        self.last: HistoryEntry | None = None
        self.history: list[PublicMove] = []
        self.log: list[LogSlot] = []
        self._sets: dict[int, frozenset[int]] = {}
        # every piece's tickets (the same for every viewer) at (plies, last record): the
        # views of one position share them (read-only mappings)
        self.tickets: tuple[int, HistoryEntry | None, Mapping[str, Mapping[str, int | None]]] \
            | None = None

    def stations(self, bits: int) -> frozenset[int]:
        """``bits_to_set(bits)``, kept for the two bitsets of the views of the newest
        positions (where Mr X may have started, where he may be): every view of a position
        shares them (frozensets, immutable)."""
        sets = self._sets
        found = sets.get(bits)
        if found is None:
            if len(sets) >= 4:
                sets.clear()
            found = sets[bits] = bits_to_set(bits)
        return found

    def __getstate__(self) -> dict[str, object]:
        """Pickled (a pickled or deep-copied game, e.g. OpenSpiel's states) without the shared
        tickets, whose read-only mappings do not pickle; they are rebuilt on first use."""
        return {k: getattr(self, k) for k in self.__slots__ if k != "tickets"}

    def __setstate__(self, state: dict[str, object]) -> None:
        """Restored from :meth:`__getstate__`."""
        self.__init__()  # type: ignore[misc]  # re-initialise the slots, then restore them
        for k, v in state.items():
            setattr(self, k, v)

    def copy(self) -> ViewCache:
        """A cache of its own for a copy of the game, holding the same (immutable) parts."""
        c = ViewCache()
        c.entries = list(self.entries)
        c.size, c.last = self.size, self.last
        c.history, c.log = list(self.history), list(self.log)
        c._sets = dict(self._sets)
        return c


def _side_of(piece: str, pieces: tuple[str, ...]) -> Side:
    if piece == MR_X:
        return "mr_x"
    if piece == "spectator":
        return "spectator"
    if piece in pieces:
        return "detectives"
    raise ValueError(f"no piece {piece!r} in this game (pieces: {', '.join(pieces)}, or spectator)")


def _public_entry(pid: str, i: int, move: Move, rnd: int, entries: Sequence[LogEntry],
                  knows: bool) -> tuple[PublicMove, tuple[LogSlot, ...]]:
    """One history entry as a viewer sees it, with the log slots it filled."""
    if i == 0 and move.take_from is None:
        shown = tuple(knows or e.reveal for e in entries)
        steps = tuple((t, s if shown[k] else None) for k, (t, s) in enumerate(move.steps))
        slots = tuple(e.slot for e in entries)
        text = move.notation() if all(shown) else move.hidden(shown)
        log = tuple(LogSlot(e.slot, e.round, e.ticket, e.station if shown[k] else None, e.reveal,
                            e.double, e.voluntary) for k, e in enumerate(entries))
        return PublicMove(pid, rnd, text, steps, slots, None, move.reveal), log
    if i == 0 and move.take_from is not None and move.ticket is not None:
        return PublicMove(pid, rnd, move.notation(), (), (), (move.take_from, move.ticket),
                          False), ()
    return PublicMove(pid, rnd, move.notation(), move.steps), ()


def build_view(game: GameFacts, piece: str) -> PlayerView:
    """Build ``piece``'s view of ``game`` from its public facts (see ``Game.view``)."""
    ids = game.pieces
    side = _side_of(piece, ids)
    outcome = game.outcome()
    over = outcome is not None
    knows = side == "mr_x" or over  # who may see Mr X's hidden stations
    # Public entries depend only on the history and on ``knows``: they are kept per game and
    # kind of viewer (ViewCache), and so is the history as last assembled, extended by the moves
    # made since (a view a move costs one entry, not a walk of the whole history).
    vc = game.view_cache[knows]
    true_log = game.true_log
    records = game.history
    size = len(records)
    done = vc.size
    if done and (size < done or records[done - 1] is not vc.last):
        done = 0  # moves were taken back (or this is another history): assemble again
        vc.history.clear()
        vc.log.clear()
    if done < size:
        cache = vc.entries
        history_items, log_items = vc.history, vc.log
        slot = len(log_items)
        for k in range(done, size):
            hist = records[k]
            i, move, rnd = hist.piece, hist.move, hist.round
            if k < len(cache) and cache[k][0] is hist:
                pub, slots_view = cache[k][1]
            else:
                del cache[k:]
                n = len(move.steps) if i == 0 and move.take_from is None else 0
                pub, slots_view = _public_entry(ids[i], i, move, rnd, true_log[slot: slot + n],
                                                knows)
                cache.append((hist, (pub, slots_view)))
            history_items.append(pub)
            log_items.extend(slots_view)
            slot += len(slots_view)
        vc.size, vc.last = size, records[size - 1]
    elif size == 0:
        vc.size, vc.last = 0, None
    log = tuple(vc.log)
    history = tuple(vc.history)
    pos = game.station_list
    stations = {p: s for p, s in zip(ids, pos, strict=True) if p != MR_X}
    mr_x: int | None
    if knows:
        mr_x = pos[0]
    elif true_log and true_log[-1].reveal:
        mr_x = true_log[-1].station  # his pawn stands there until his next move
    else:
        mr_x = None
    last = records[size - 1] if size else None
    kept = vc.tickets
    if kept is None or kept[0] != size or kept[1] is not last:
        kept = game.view_cache[not knows].tickets  # the other kind of viewer's, if as new
        if kept is None or kept[0] != size or kept[1] is not last:
            kept = (size, last, MappingProxyType({
                p: MappingProxyType({TICKET_NAMES[t]: c for t, c in game.tickets(p).items()})
                for p in ids}))
        vc.tickets = kept
    tickets = kept[2]
    start = {p: s for p, s in game.start_stations.items() if knows or p != MR_X}
    legal: tuple[Move, ...] = ()
    to_move = game.to_move
    if to_move is not None and ((side == "mr_x" and to_move == MR_X)
                                or (side == "detectives" and to_move != MR_X)):
        legal = tuple(game.legal_moves())
    return PlayerView(
        viewer=piece,
        side=side,
        rules=game.rules,
        round=game.round,
        to_move=to_move,
        pieces_to_move=game.pieces_to_move,
        stations=MappingProxyType(stations),
        mr_x_station=mr_x,
        tickets=tickets,
        log=log,
        history=history,
        start=MappingProxyType(start),
        start_candidates=vc.stations(game.start_bits),
        possible=vc.stations(game.possible_bits),
        legal_moves=legal,
        outcome=outcome,
        pending_take=game.pending_take,
        all_shown=over,
    )
