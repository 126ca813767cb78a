"""Game clocks: a time limit per move and/or a Fischer clock per side (``docs/protocol.md``,
"Clocks").

Each side (Mr X, the detectives with their police) has one clock. A clock runs only while a
human seat of that side is to move and every human seat of the game has a player; each move
(one piece's ply) stops it. With ``per_move`` a move must be made within that many seconds; with
``initial``/``increment`` (Fischer) the side's bank loses the time a move took and gains the
increment after it. A move's time is up at the earlier of the two limits.

The state is stored after every move, so a restarted server continues each clock where the
last move left it (the time between that move and the restart is not charged to anyone).
This module is pure arithmetic on the times it is given; the room arms the timer.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from ..move import MR_X
from .seats import Seat

if TYPE_CHECKING:
    from .table import Table

Side = Literal["mr_x", "detectives"]
OnTimeout = Literal["ai", "lose"]


@dataclass(frozen=True)
class ClockConfig:
    """A game's clock set-up (seconds)."""

    per_move: float | None = None
    initial: float | None = None
    increment: float = 0.0
    on_timeout: OnTimeout = "ai"
    agent: str = "medium"

    def to_dict(self) -> dict[str, Any]:
        """The set-up as stored and as clients see it."""
        return {"per_move": self.per_move, "initial": self.initial, "increment": self.increment,
                "on_timeout": self.on_timeout, "agent": self.agent}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ClockConfig:
        """The inverse of :meth:`to_dict`."""
        on = data.get("on_timeout", "ai")
        return cls(per_move=_opt(data.get("per_move")), initial=_opt(data.get("initial")),
                   increment=float(data.get("increment") or 0.0),
                   on_timeout="lose" if on == "lose" else "ai",
                   agent=str(data.get("agent") or "medium"))


def _opt(value: Any) -> float | None:
    return None if value is None else float(value)


class Clock:
    """The two sides' clocks of one game."""

    def __init__(self, config: ClockConfig, stored: dict[str, Any] | None = None) -> None:
        """A fresh clock, or the one ``stored`` (:meth:`stored`) continued."""
        self.config = config
        bank = config.initial
        self.banks: dict[str, float | None] = {"mr_x": bank, "detectives": bank}
        self.timeouts: dict[str, int] = {"mr_x": 0, "detectives": 0}
        if stored:
            for side in ("mr_x", "detectives"):
                value = stored.get("banks", {}).get(side)
                self.banks[side] = None if value is None or bank is None else float(value)
                self.timeouts[side] = int(stored.get("timeouts", {}).get(side, 0))
        self.turn: Side | None = None
        self.spent = 0.0  # time the current move has taken while the clock was stopped
        self.started: float | None = None  # monotonic time the clock last started running

    # ---- running ----------------------------------------------------------------------------
    def run(self, side: Side, now: float) -> None:
        """Let ``side``'s clock run (a human of that side is to move); a move already being
        timed for that side goes on."""
        if self.turn != side:
            self.turn, self.spent, self.started = side, 0.0, now
        elif self.started is None:
            self.started = now

    def stop(self, now: float) -> None:
        """Stop the clock without ending the move (the seat to move became an AI, or a seat
        lost its player); the time taken so far is kept."""
        if self.started is not None:
            self.spent += now - self.started
            self.started = None

    def moved(self, now: float) -> None:
        """The move being timed was made: charge it (Fischer: add the increment)."""
        side = self.turn
        if side is None:
            return
        taken = self.taken(now)
        bank = self.banks[side]
        if bank is not None:
            self.banks[side] = max(0.0, bank - taken) + self.config.increment
        self.turn, self.spent, self.started = None, 0.0, None

    def flagged(self, now: float) -> Side | None:
        """The side whose time for the current move is up, or ``None``. The move is then
        charged as :meth:`moved` would (the bank goes to zero, plus the increment)."""
        left = self.left(now)
        side = self.turn
        if side is None or left is None or left > 0:
            return None
        self.timeouts[side] += 1
        return side

    # ---- reading -----------------------------------------------------------------------------
    def taken(self, now: float) -> float:
        """Seconds the current move has taken so far."""
        return self.spent + (now - self.started if self.started is not None else 0.0)

    def left(self, now: float) -> float | None:
        """Seconds left for the current move (``None``: no move is being timed)."""
        if self.turn is None:
            return None
        taken = self.taken(now)
        limits = []
        if self.config.per_move is not None:
            limits.append(self.config.per_move - taken)
        bank = self.banks[self.turn]
        if bank is not None:
            limits.append(bank - taken)
        return min(limits) if limits else None

    def public(self, now: float) -> dict[str, Any]:
        """The ``clock`` field of the ``state`` message (the same for every connection)."""
        remaining = {}
        for side, bank in self.banks.items():
            if bank is not None and side == self.turn:
                bank = max(0.0, bank - self.taken(now))
            remaining[side] = None if bank is None else round(bank, 2)
        left = self.left(now)
        return {**self.config.to_dict(), "remaining": remaining, "turn": self.turn,
                "running": self.started is not None,
                "move_left": None if left is None else round(max(0.0, left), 2),
                "timeouts": dict(self.timeouts)}

    def stored(self) -> dict[str, Any]:
        """The state to store after a move."""
        return {"banks": dict(self.banks), "timeouts": dict(self.timeouts)}


class RoomClock:
    """A room's clock: runs for the side to move while a human of it is to move and every
    human seat has a player, arms a timer for the end of the move's time, and when it fires
    lets the AI make that move (``on_timeout: "ai"``) or ends the game (``"lose"``)."""

    def __init__(self, room: Table, config: ClockConfig,
                 stored: dict[str, Any] | None = None) -> None:
        """The clock of ``room`` (continued from ``stored``)."""
        self.room = room
        self.clock = Clock(config, stored)
        self._timer: asyncio.TimerHandle | None = None
        self._task: asyncio.Task[None] | None = None

    def side_now(self) -> Side | None:
        """The side whose clock should run now, or ``None``."""
        room = self.room
        game = room.game
        if room.over() or room.open_seats():
            return None
        if not any(room.seats[p].kind == "human" for p in game.pieces_to_move):
            return None
        return "mr_x" if game.to_move == MR_X else "detectives"

    def update(self) -> None:
        """Follow the position: run the right side's clock (or none) and re-arm the timer."""
        now = time.monotonic()
        side = self.side_now()
        if side is None:
            self.clock.stop(now)
        else:
            self.clock.run(side, now)
        self._arm(now)

    def moved(self) -> None:
        """A move was made: charge it and store the clock (queued to the database's write
        thread after the move, not awaited: a refused write is logged, and the clock then
        restarts from its previous state after a restart)."""
        self.clock.moved(time.monotonic())
        self.room.server.db.submit(self.room.server.store.set_clock, self.room.id,
                                   self.clock.stored())

    def public(self) -> dict[str, Any]:
        """The ``clock`` field of ``state``."""
        return self.clock.public(time.monotonic())

    def cancel(self) -> None:
        """Stop the timer (the room closes)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._task is not None:
            self._task.cancel()

    def _arm(self, now: float) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        left = self.clock.left(now)
        if self.clock.started is not None and left is not None:
            self._timer = asyncio.get_running_loop().call_later(max(0.0, left) + 0.02, self._fire)

    def _fire(self) -> None:
        self._timer = None
        room = self.room
        if room.closed or room.over():
            return
        now = time.monotonic()
        side = self.clock.flagged(now)
        if side is None:
            self._arm(now)
            return
        if self._task is not None and not self._task.done():
            return
        if not room.server.store.try_lock_game(room.id):
            # another server process on the database holds the game (docs/deploy.md): it
            # acts on the time-out; look again later in case that process has died
            self._timer = asyncio.get_running_loop().call_later(2.0, self._fire)
            return
        if self.clock.config.on_timeout == "lose":
            self._task = asyncio.create_task(self._lose(side))
        else:
            self._task = asyncio.create_task(self._stand_in(side))

    async def _lose(self, side: Side) -> None:
        if not await self.room.lose_on_time(side):  # the database refused: try again soon
            self._timer = asyncio.get_running_loop().call_later(1.0, self._fire)

    async def _stand_in(self, side: Side) -> None:
        """The AI makes the move of the human seat whose time ran out (the seat stays human)."""

        room = self.room
        game = room.game
        version = game.ply
        pieces = [p for p in game.pieces_to_move if room.seats[p].kind == "human"]
        if not pieces:
            return
        piece = pieces[0]
        legal = [m for m in game.legal_moves() if (m.piece or game.to_move) == piece]
        seat = Seat(piece, "ai", self.clock.config.agent)
        seat.build_agent()
        # Mr X's stand-in is paced as an AI Mr X is (finding 7): its think time must not show
        pace = room.reply_pace(seat, piece) if piece == MR_X else 0.0
        try:
            move = await room.server.thinker.choose(room, seat, piece, legal, pace=pace)
        except Exception:  # the agent failed: a random legal move
            move = legal[seat.rng.randrange(len(legal))]
        if room.closed or game.ply != version or move not in legal:
            return  # the player moved meanwhile
        from ..game import IllegalMove
        from .store import UNAVAILABLE, StoreError

        try:
            await room.apply(move, at_ply=version)
        except (IllegalMove, StoreError):
            return  # the player moved meanwhile, or the database refused: nothing changed
        except UNAVAILABLE:
            return  # the database is out of reach: nothing changed
        room.notice({"type": "notice", "code": "timeout_ai", "piece": piece, "side": side})
        room.after_move()
