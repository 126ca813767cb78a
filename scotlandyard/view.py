"""``PlayerView``: exactly what one player may know. The one hidden-information filter.

Everything that leaves the core for a player (server frames, AI agents, environments) is a
view made here. Detective and spectator views carry Mr X's station only for revealed log
slots; once the game is over, everything is shown (Mr X opens his log at the end).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal

from .board import bits_to_set
from .move import MR_X, Move, Ticket
from .rules import Rules

if TYPE_CHECKING:
    from .game import Game, Outcome

Side = Literal["mr_x", "detectives", "spectator"]
TICKET_NAMES = ("taxi", "bus", "underground", "black", "double")


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
            "outcome": None if out is None else {
                "winner": out.winner, "reason": out.reason, "round": out.round,
                "piece": out.piece, "text": out.describe()},
            "all_shown": self.all_shown,
        }


def _side_of(piece: str, game: Game) -> Side:
    if piece == MR_X:
        return "mr_x"
    if piece == "spectator":
        return "spectator"
    if piece in game.pieces:
        return "detectives"
    raise ValueError(f"no piece {piece!r} in this game (pieces: {', '.join(game.pieces)}, or spectator)")


def _public_entry(game: Game, i: int, move: Move, rnd: int, entries: list,
                  knows: bool) -> tuple[PublicMove, tuple[LogSlot, ...]]:
    """One history entry as a viewer sees it, with the log slots it filled."""
    pid = game._ids[i]
    if i == 0 and move.take_from is None:
        shown = tuple(knows or e.reveal for e in entries)
        steps = tuple((t, s if shown[k] else None) for k, (t, s) in enumerate(move.steps))
        slots = tuple(e.slot for e in entries)
        text = move.notation() if all(shown) else move.hidden(shown)
        log = tuple(LogSlot(e.slot, e.round, e.ticket, e.station if shown[k] else None, e.reveal,
                            e.double, e.voluntary) for k, e in enumerate(entries))
        return PublicMove(pid, rnd, text, steps, slots, None, move.reveal), log
    if i == 0:
        return PublicMove(pid, rnd, move.notation(), (), (), (move.take_from, move.ticket),  # type: ignore[arg-type]
                          False), ()
    return PublicMove(pid, rnd, move.notation(), move.steps), ()


def make_view(game: Game, piece: str) -> PlayerView:
    """Build ``piece``'s view of ``game`` (see :meth:`Game.view`)."""
    side = _side_of(piece, game)
    over = game.is_over()
    knows = side == "mr_x" or over  # who may see Mr X's hidden stations
    # Public entries depend only on the history and on ``knows``; they are cached per game and
    # reused while the history object at that index is the same (push/pop invalidate naturally).
    cache = game._viewcache[knows]
    log_items: list[LogSlot] = []
    history: list[PublicMove] = []
    slot = 0
    for k, hist in enumerate(game._history):
        i, move, rnd = hist
        n = len(move.steps) if i == 0 and move.take_from is None else 0
        if k < len(cache) and cache[k][0] is hist:
            pub, slots_view = cache[k][1]  # type: ignore[misc]
        else:
            del cache[k:]
            pub, slots_view = _public_entry(game, i, move, rnd, game._log[slot: slot + n], knows)
            cache.append((hist, (pub, slots_view)))
        history.append(pub)
        log_items.extend(slots_view)
        slot += n
    log = tuple(log_items)
    stations = {p: s for p, s in zip(game._ids, game._pos, strict=True) if p != MR_X}
    if knows:
        mr_x = game._pos[0]
    elif game._log and game._log[-1].reveal:
        mr_x = game._log[-1].station  # his pawn stands there until his next move
    else:
        mr_x = None
    tickets = {}
    for p in game._ids:
        tickets[p] = MappingProxyType({TICKET_NAMES[t]: c for t, c in game.tickets(p).items()})
    start = {p: s for p, s in game._start.items() if knows or p != MR_X}
    legal: tuple[Move, ...] = ()
    to_move = game.to_move
    if to_move is not None and ((side == "mr_x" and to_move == MR_X)
                                or (side == "detectives" and to_move != MR_X)):
        legal = tuple(game.legal_moves())
    pending = game._ids[game._take] if game._take and not over else None
    return PlayerView(
        viewer=piece,
        side=side,
        rules=game.rules,
        round=game.round,
        to_move=to_move,
        pieces_to_move=game.pieces_to_move,
        stations=MappingProxyType(stations),
        mr_x_station=mr_x,
        tickets=MappingProxyType(tickets),
        log=log,
        history=tuple(history),
        start=MappingProxyType(start),
        start_candidates=bits_to_set(game._start_belief),
        possible=bits_to_set(game._belief),
        legal_moves=legal,
        outcome=game.outcome(),
        pending_take=pending,
        all_shown=over,
    )
