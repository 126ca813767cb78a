"""Rematch and takeback (``docs/protocol.md``, "Rematch" and "Takeback").

* **Rematch**, after the end: a player offers (``swap``: the sides change hands), every
  player connected at that moment accepts, and the server starts a new game with the same
  rules and seats (swapped if asked) and sends each accepting connection its own new link
  (``rematch_ready``, never broadcast).
* **Takeback**, during the game: a side takes back its last move and everything after it.
  Against a side played only by the AI this happens at once; otherwise the other side must
  accept. Any move made meanwhile cancels the offer.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from ..move import MR_X
from .lobby import covered, token_plan
from .protocol import ProtocolError, RematchMessage, TakebackMessage
from .protocol import frame_text as _frame

if TYPE_CHECKING:
    from .connections import Connection
    from .rooms import Room


def _side_of(role: str) -> str | None:
    return role if role in ("mr_x", "detectives") else None


class Again:
    """The rematch offer and the takeback offer of one room."""

    def __init__(self, room: Room) -> None:
        """No offers yet."""
        self.room = room
        self.offer: dict[str, Any] | None = None  # rematch
        self.back: dict[str, Any] | None = None   # takeback
        self.next_game: str | None = room.options.get("rematch_game")

    # ---- state fields ----------------------------------------------------------------------------
    def rematch_public(self) -> dict[str, Any] | None:
        """The ``rematch`` field of ``state``: the offer (who offered, swap, who accepted,
        who must) or the new game's id once it started."""
        if self.next_game is not None:
            return {"game_id": self.next_game}
        if self.offer is None:
            return None
        return {"by": self.offer["by"], "swap": self.offer["swap"],
                "accepted": sorted(self.offer["accepted"]), "needed": sorted(self._players())}

    def takeback_public(self) -> dict[str, Any] | None:
        """The ``takeback`` field of ``state``: an offer waiting for the other side."""
        if self.back is None:
            return None
        return {"by": self.back["by"], "side": self.back["side"], "to_ply": self.back["ply"]}

    def moved(self) -> None:
        """A move was made: a takeback offer lapses."""
        self.back = None

    def close(self) -> None:
        """The room closes (nothing to stop)."""

    # ---- rematch -----------------------------------------------------------------------------------
    def _players(self) -> set[str]:
        """Token names of the players connected now (spectators do not count)."""
        return {c.token_name for c in self.room.connections if c.role != "spectator"}

    async def rematch(self, conn: Connection, msg: RematchMessage) -> None:
        """Offer, accept or decline a rematch."""
        room, cid = self.room, msg.id
        if not room.over():
            raise ProtocolError("not_allowed", "a rematch is offered after the end", cid)
        if conn.role == "spectator":
            raise ProtocolError("not_allowed", "spectators do not play rematches", cid)
        if self.next_game is not None:
            raise ProtocolError("not_allowed", "the rematch has started already", cid)
        if msg.decline:
            self.offer = None
            room.broadcast_state()
            return
        if msg.swap:
            names = self._players()
            if room.hotseat or not names <= {MR_X, "detectives"}:
                raise ProtocolError("not_allowed", "swapping sides needs one player for Mr X "
                                    "and one for all the detectives", cid)
        if self.offer is None or self.offer["swap"] != msg.swap:
            self.offer = {"by": conn.token_name, "swap": msg.swap, "accepted": set()}
        self.offer["accepted"].add(conn.token_name)
        if self._players() <= self.offer["accepted"]:
            try:
                await self._start(conn, cid)
            except ProtocolError:
                room.broadcast_state()  # the acceptances stand: accepting again retries
                raise
        room.broadcast_state()

    def _creator(self, conn: Connection) -> str:
        """Whose game-creation bucket a rematch takes from: the address that created this
        game (:attr:`Room.owner <scotlandyard.server.rooms.Room.owner>`), or, when this
        process does not know it (the game was loaded from the database), the address of
        the player whose acceptance starts the rematch."""
        owner = self.room.owner
        return conn.client if owner == self.room.id else owner

    async def _start(self, conn: Connection, cid: Any) -> None:
        """Every player accepted: open the new game and send each its link (unless the
        creator's address has made too many games lately: ``rate_limited``, nothing made)."""
        from .rooms import Seat  # the room module imports this one

        room = self.room
        assert self.offer is not None
        owner = self._creator(conn)
        wait = room.server.clients.create_wait(owner)
        if wait:
            retry = max(1, math.ceil(wait))
            raise ProtocolError("rate_limited", f"too many new games from the address that "
                                f"created this game; the rematch can start in {retry} s "
                                "(accept it again then)", cid)
        swap = bool(self.offer["swap"])
        accepted: set[str] = set(self.offer["accepted"])
        pieces = room.game.pieces
        old = room.seats
        rename = {MR_X: "detectives", "detectives": MR_X} if swap else {}
        mine = sorted(rename.get(n, n) for n in accepted)
        played = {p for n in mine if n != "all" for p in covered(n, pieces)}  # who accepted
        if "all" in mine:  # a hot-seat device keeps its seats
            played |= {p for p, s in old.items() if s.kind == "human"}
        seats: dict[str, Seat] = {}
        for p in pieces:
            src = old[p]
            if swap:  # Mr X's seat gets the detectives' AI, and the other way round
                src = old[pieces[1]] if p == MR_X else old[MR_X]
            if p in played:
                seat = Seat(p, "human")
            else:
                seat = Seat(p, src.kind, src.agent if src.kind == "ai" else None)
                seat.build_agent()
            seats[p] = seat
        human = {p for p, s in seats.items() if s.kind == "human"}
        if room.public:
            names = [*mine, "spectator"]
        else:
            names = token_plan(pieces, human, hotseat=room.hotseat, play_as=None, public=False)
            names = [*mine, *[n for n in names if n not in mine]]
        out = await room.server.open_game(room.game.rules, room.preset, seats, names,
                                    hotseat=room.hotseat, seed=None, public=room.public,
                                    options={k: v for k, v in room.options.items()
                                             if k in ("clock", "absent")},
                                    you=None, owner=owner)
        self.next_game = out["game_id"]
        room.options["rematch_game"] = self.next_game
        await room.save_options()
        self.offer = None
        for c in list(room.connections):
            name = rename.get(c.token_name, c.token_name) if c.token_name in accepted else (
                "spectator" if c.role == "spectator" else None)
            if name is None or name not in out["links"]:
                continue
            c.send(_frame({"type": "rematch_ready", "game_id": out["game_id"],
                           "link": out["links"][name], "token_name": name}))

    # ---- takeback -----------------------------------------------------------------------------------
    async def takeback(self, conn: Connection, msg: TakebackMessage) -> None:
        """Ask for, accept or decline a takeback."""
        room, cid = self.room, msg.id
        game = room.game
        if room.over():
            raise ProtocolError("game_over", "the game is over", cid)
        side = _side_of(conn.role)
        if side is None:
            raise ProtocolError("not_allowed", "only a player of one side can take back a move "
                                               "(not spectators or a hot-seat device)", cid)
        if msg.accept is not None:
            offer = self.back
            if offer is None or offer["side"] == side:
                raise ProtocolError("not_allowed", "there is no takeback offer of the other side "
                                                   "to answer", cid)
            self.back = None
            if msg.accept:
                try:
                    await room.take_back(offer["ply"], cid)
                except ProtocolError:
                    self.back = offer  # the offer stands: it may be accepted again
                    raise
            else:
                room.broadcast_state()
            return
        mine = set(conn.pieces)
        plies = [i for i, (piece, _) in enumerate(game.moves, 1) if piece in mine]
        if not plies:
            raise ProtocolError("not_allowed", "this side has not moved yet", cid)
        ply = plies[-1]
        others = [p for p in game.pieces if (p == MR_X) != (side == "mr_x")]
        if all(room.seats[p].kind == "ai" for p in others):
            await room.take_back(ply, cid)
            return
        self.back = {"by": conn.token_name, "side": side, "ply": ply}
        room.broadcast_state()
