"""Rematch and takeback (``docs/protocol.md``, "Rematch" and "Takeback").

* **Rematch**, after the end: a player offers (``swap``: the sides change hands), every
  player connected at that moment accepts, and the server starts a new game with the same
  rules and seats (swapped if asked) and sends each accepting connection its own new link
  (``rematch_ready``, never broadcast).
* **Takeback**, during the game: a player takes back their own last move and the moves of
  their side after it, only among the moves their side made since the other side last moved
  (:func:`plan_takeback`): a takeback never undoes a move of the other side, so it never takes
  back anything the requester has learnt since (a reveal, a logged ticket), against the
  computer too. Team mates whose moves it undoes must agree, and so must the other side
  unless only the AI plays it; each side has :attr:`Limits.takebacks
  <scotlandyard.server.limits.Limits.takebacks>` of them a game. Any move made meanwhile
  cancels the offer.
"""

from __future__ import annotations

import math
from collections.abc import Collection
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..move import MR_X
from .lobby import covered, token_plan
from .protocol import ProtocolError, RematchMessage, TakebackMessage
from .protocol import frame_text as _frame
from .seats import Seat

if TYPE_CHECKING:
    from ..game import Game
    from .connections import Connection
    from .table import Table


def _side_of(role: str) -> str | None:
    return role if role in ("mr_x", "detectives") else None


def piece_side(piece: str) -> str:
    """``"mr_x"`` for Mr X, ``"detectives"`` for a detective or police piece."""
    return "mr_x" if piece == MR_X else "detectives"


class TakebackRefused(ValueError):
    """A takeback that may not be made; the message says why."""


@dataclass(frozen=True)
class TakebackPlan:
    """What a takeback undoes: move ``ply`` (1-based) and every later one."""

    ply: int
    """The first move undone."""
    undone: tuple[str, ...]
    """The pieces whose moves are undone, in order (all of the requester's side)."""
    mates: frozenset[str]
    """Team mates played by people (not by the requester) whose moves are undone: each must
    agree."""


def plan_takeback(game: Game, side: str, mine: Collection[str], human: Collection[str]
                  ) -> TakebackPlan:
    """The takeback ``side``'s player of ``mine`` may ask for now: their own last move and
    the moves after it, all of them moves of ``side`` made since the other side last moved.
    Never a move of the other side, so never one before a fact the requester has seen since
    (a reveal, a logged ticket, a detective's move), and for the detectives never a move that
    narrowed down where Mr X may be (it told them he is not on that station). ``human``: the pieces people play (the
    mates among them must agree). Raises :class:`TakebackRefused` saying why not."""
    moves = game.moves
    if not any(p in mine for p, _ in moves):
        raise TakebackRefused("you have not moved yet: there is nothing to take back")
    since = len(moves)
    while since > 0 and piece_side(moves[since - 1][0]) == side:
        since -= 1  # moves[since:] are this side's moves since the other side last moved
    own = [i for i in range(since, len(moves)) if moves[i][0] in mine]
    if not own:
        other = "Mr X" if side == "detectives" else "the detectives"
        raise TakebackRefused(f"{other} moved after your last move: a takeback undoes only "
                              f"your side's moves made since {other} last moved")
    first = own[-1]
    if side == "detectives":  # a move that narrowed down where Mr X may be told them that
        history = game.history
        for k in range(first, len(moves)):
            after = history[k + 1].belief if k + 1 < len(moves) else game.possible_bits
            if after != history[k].belief:
                where = moves[k][1].destination
                told = f"{moves[k][0]}'s move to {where}" if where is not None else \
                    f"{moves[k][0]}'s move"
                raise TakebackRefused(f"{told} showed that Mr X is not there: a move that "
                                      "narrowed down where he may be cannot be taken back")
    undone = tuple(p for p, _ in moves[first:])
    mates = frozenset(p for p in undone if p not in mine and p in human)
    return TakebackPlan(first + 1, undone, mates)


class Again:
    """The rematch offer and the takeback offer of one room."""

    def __init__(self, room: Table) -> None:
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
        """The ``takeback`` field of ``state``: an offer waiting for answers (``opponent``:
        the other side's; ``mates``: the pieces of team mates whose moves it undoes)."""
        if self.back is None:
            return None
        return {"by": self.back["by"], "side": self.back["side"], "to_ply": self.back["ply"],
                "opponent": self.back["opponent"], "mates": sorted(self.back["mates"])}

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
        game (:attr:`Table.owner <scotlandyard.server.rooms.Table.owner>`), or, when this
        process does not know it (the game was loaded from the database), the address of
        the player whose acceptance starts the rematch."""
        owner = self.room.owner
        return conn.client if owner == self.room.id else owner

    async def _start(self, conn: Connection, cid: Any) -> None:
        """Every player accepted: open the new game and send each its link (unless the
        creator's address has made too many games lately: ``rate_limited``, nothing made)."""

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
    def used(self, side: str) -> int:
        """Takebacks granted to ``side`` in this game so far."""
        counts = self.room.options.get("takebacks")
        n = counts.get(side, 0) if isinstance(counts, dict) else 0
        return n if isinstance(n, int) else 0

    def limit_refusal(self, side: str, cid: Any) -> ProtocolError | None:
        """``not_allowed`` if ``side`` has used every takeback the server allows a game."""
        limit = self.room.server.limits.takebacks
        if limit is not None and self.used(side) >= limit:
            return ProtocolError("not_allowed", f"this side has used its {limit} takeback"
                                 f"{'' if limit == 1 else 's'} of this game (the server allows "
                                 f"{limit} a side a game)", cid)
        return None

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
            await self._answer(conn, side, msg.accept, cid)
            return
        refusal = self.limit_refusal(side, cid)
        if refusal is not None:
            raise refusal
        try:
            plan = plan_takeback(game, side, conn.pieces, room.humans())
        except TakebackRefused as exc:
            raise ProtocolError("not_allowed", str(exc), cid) from None
        others = [p for p in game.pieces if piece_side(p) != side]
        opponent = not all(room.seats[p].kind == "ai" for p in others)
        offer = {"by": conn.token_name, "side": side, "ply": plan.ply, "at": game.ply,
                 "opponent": opponent, "mates": set(plan.mates)}
        if not opponent and not plan.mates:  # against the computer: at once, within the rule
            await room.take_back(plan.ply, cid, side=side, at_ply=game.ply)
            return
        self.back = offer
        room.broadcast_state()

    async def _answer(self, conn: Connection, side: str, accept: bool, cid: Any) -> None:
        """``conn``'s answer to the offer: as the other side, or as a team mate whose move it
        undoes. The takeback is made once every answer needed is yes; one no drops it."""
        room, offer = self.room, self.back
        theirs = offer is not None and offer["side"] != side and offer["opponent"]
        mine = (set(conn.pieces) & offer["mates"]) if offer is not None and (
            offer["side"] == side) else set()
        if offer is None or not (theirs or mine):
            raise ProtocolError("not_allowed", "there is no takeback offer waiting for your "
                                               "answer", cid)
        if not accept:
            self.back = None
            room.broadcast_state()
            return
        if theirs:
            offer["opponent"] = False
        offer["mates"] -= mine
        if offer["opponent"] or offer["mates"]:
            room.broadcast_state()  # more answers to come
            return
        self.back = None
        try:
            await room.take_back(offer["ply"], cid, side=offer["side"], at_ply=offer["at"])
        except ProtocolError:
            if room.game.ply == offer["at"]:
                self.back = offer  # the offer stands: it may be accepted again
            raise
