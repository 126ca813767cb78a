"""Players who leave (``docs/protocol.md``, "Absent players").

When the last socket of a human seat closes during a game, every connection is told (the
``absent`` field of ``state``: who left, how long ago, and when the computer takes over). With
the game's ``on_absent`` set to ``"ai"`` (the default, chosen by the game's creator), the
computer takes the seat after ``--absent-timeout`` seconds, at the game's level, provided some
other player is still at the table to play against; everyone gets a ``notice`` (``absent_ai``).
The seat remembers the ply from which the computer played it (``handed``), so that its player,
coming back, is shown the moves made for him and takes the seat back with one ``reclaim``.
With ``"wait"`` nobody is handed over automatically: after the same time any player may let
the computer play the seat (``takeover``), as before.

Only public facts leave this module: which seats are away, for how long, and the ply of a
hand-over.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any, Literal

from .protocol import ProtocolError
from .seats import DEFAULT_AGENT, LEVELS, Seat

if TYPE_CHECKING:
    from .table import Table

log = logging.getLogger("scotlandyard.server")

OnAbsent = Literal["ai", "wait"]
NOTE = "the computer plays while its player is away"
"""The note of a seat the computer took because its player left."""


def game_level(seats: dict[str, Seat], options: dict[str, Any], default: str) -> str:
    """The level the computer plays an absent seat at when the creator named none: the level
    of the game's AI seats (Mr X's first), else the clock's stand-in, else ``default``."""

    for seat in seats.values():
        if seat.kind == "ai" and seat.agent in LEVELS and seat.agent != "random":
            return seat.agent
    clock = options.get("clock")
    if isinstance(clock, dict) and isinstance(clock.get("agent"), str):
        return str(clock["agent"])
    return default


class Absence:
    """The absent seats of one room: who left when, the timers of their hand-over, and the
    seats the computer took for an absent player (stored in the room's options)."""

    def __init__(self, room: Table) -> None:
        """Nobody has left yet."""
        self.room = room
        self.departed: set[str] = set()
        """Human seats whose last socket closed while this room was in memory (a seat whose
        player never came is not handed over automatically: the game has not started for him)."""
        self._timers: dict[str, asyncio.TimerHandle] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    # ---- the rule ----------------------------------------------------------------------------
    @property
    def on(self) -> OnAbsent:
        """``"ai"``: the computer takes an absent seat; ``"wait"``: nobody does on their own."""
        opt = self.room.options.get("absent")
        return "wait" if isinstance(opt, dict) and opt.get("on") == "wait" else "ai"

    @property
    def agent(self) -> str:
        """The level the computer plays an absent seat at."""
        opt = self.room.options.get("absent")
        if isinstance(opt, dict) and isinstance(opt.get("agent"), str) and opt["agent"]:
            return str(opt["agent"])

        return game_level(self.room.seats, self.room.options, DEFAULT_AGENT)

    def handed(self) -> dict[str, int]:
        """The seats the computer plays for an absent player: piece -> the ply it took over."""
        handed = self.room.options.get("handed")
        if not isinstance(handed, dict):
            return {}
        return {p: int(v) for p, v in handed.items()
                if isinstance(v, int) and self.room.seats.get(p) is not None
                and self.room.seats[p].kind == "ai"}

    def public(self) -> dict[str, Any]:
        """The ``absent`` field of ``state`` (the same for every connection)."""
        room = self.room
        timeout = room.server.absent_timeout
        seats: dict[str, dict[str, Any]] = {}
        if not room.over():
            for p in sorted(self.departed):
                if room.seats[p].kind != "human" or room.connected(p):
                    continue
                away = room.absent_for(p)
                seats[p] = {"away": round(away, 1),
                            "takeover_in": round(max(0.0, timeout - away), 1)
                            if self.on == "ai" else None}
        return {"on": self.on, "agent": self.agent, "timeout": timeout, "seats": seats,
                "handed": self.handed()}

    # ---- sockets come and go -------------------------------------------------------------------
    def left(self, pieces: list[str]) -> None:
        """The last sockets of ``pieces`` closed: arm their hand-over (or the broadcast that
        says the others may now hand them over)."""
        room = self.room
        for p in pieces:
            if room.seats[p].kind == "human" and not room.over():
                self.departed.add(p)
                self.arm(p)

    def came(self, pieces: tuple[str, ...] | list[str]) -> None:
        """Sockets of ``pieces`` opened: their timers stop; the seats left by others whose
        time ran out while nobody was at the table to play against are handed over now."""
        for p in pieces:
            self.departed.discard(p)
            timer = self._timers.pop(p, None)
            if timer is not None:
                timer.cancel()
        for p in list(self.departed):
            if p not in self._timers and not self.room.connected(p):
                self.arm(p)

    def arm(self, piece: str) -> None:
        """(Re-)arm the timer of ``piece``'s absence."""
        old = self._timers.pop(piece, None)
        if old is not None:
            old.cancel()
        wait = max(0.0, self.room.server.absent_timeout - self.room.absent_for(piece))
        self._timers[piece] = asyncio.get_running_loop().call_later(
            wait + 0.05, self._passed, piece)

    def _someone_waits(self, piece: str) -> bool:
        """Whether a player of another seat is at the table (here or on another process)."""
        room = self.room
        if any(c.role != "spectator" and piece not in c.pieces and c.pieces
               for c in room.connections):
            return True
        return any(ps - {piece} for ps in room.elsewhere.values())

    def _passed(self, piece: str) -> None:
        self._timers.pop(piece, None)
        room = self.room
        if room.closed or room.connected(piece) or room.over():
            return
        if (self.on == "ai" and piece in self.departed and room.seats[piece].kind == "human"
                and self._someone_waits(piece)):
            task = asyncio.create_task(self._hand_over(piece))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        elif room.connections:
            room.broadcast_state()  # the others may now hand the seat over themselves

    async def _hand_over(self, piece: str) -> None:

        room = self.room
        seat = room.seats.get(piece)
        if seat is None or seat.kind != "human" or room.closed or room.over():
            return
        if not room.server.store.try_lock_game(room.id):
            # another server process on the database holds the game and hands it over
            self._timers[piece] = asyncio.get_running_loop().call_later(2.0, self._passed, piece)
            return
        agent = self.agent
        new = Seat(piece, "ai", agent, NOTE)
        new.build_agent()
        try:
            await room._save_seat(new, None)
        except ProtocolError:  # the database refused (logged): try again soon
            self._timers[piece] = asyncio.get_running_loop().call_later(2.0, self._passed, piece)
            return
        if room.seats.get(piece) is not seat:
            return  # the seat changed meanwhile
        room.seats[piece] = new
        await self.mark(piece)
        room.notice({"type": "notice", "code": "absent_ai", "piece": piece, "agent": agent})
        room.seats_changed()

    # ---- the record of a hand-over ---------------------------------------------------------------
    async def mark(self, piece: str) -> None:
        """Remember that the computer plays ``piece`` for its absent player from this ply on."""
        handed = dict(self.room.options.get("handed") or {})
        handed[piece] = self.room.game.ply
        await self._store(handed)

    async def unmark(self, piece: str) -> None:
        """The player took ``piece`` back."""
        handed = dict(self.room.options.get("handed") or {})
        if handed.pop(piece, None) is not None:
            await self._store(handed)

    async def _store(self, handed: dict[str, int]) -> None:
        room = self.room
        room.options["handed"] = handed
        try:
            await room.save_options()
        except ProtocolError:  # logged by save_options; the seat itself is stored
            pass

    def close(self) -> None:
        """Stop the timers and hand-overs (the room closes)."""
        for timer in self._timers.values():
            timer.cancel()
        self._timers.clear()
        for task in list(self._tasks):
            task.cancel()

