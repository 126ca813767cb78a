"""Seats for people: which tokens a new game issues, which human seats are still open, the
public lobby of open games, and taking an open seat (``docs/protocol.md``, "Lobby").

A token is issued only for a seat a person will use: never for an AI seat, and in a public
game only for the creator's own seat (``play_as``); the other human seats stay *open* until
someone joins them (``POST /api/games/{id}/join``). Nothing here sees a view or a station:
the lobby lists rules, seats and who is waiting, never a token or a hidden fact.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..move import MR_X
from ..rules import Rules, RulesError
from .limits import network_of, scaled
from .tokens import token_hash

if TYPE_CHECKING:
    from .table import TableServer

SIDES = ("mr_x", "detectives")
LOBBY_LIMIT = 50
"""The most games ``GET /api/lobby`` lists (the newest first)."""
LOBBY_READ = 4 * LOBBY_LIMIT
"""The newest public games read for it, of which the rows over an owner's share
(``Limits.lobby_rows_per_client``) and the unjoined games past their time are left out."""


class JoinError(Exception):
    """A join that cannot be served: ``status`` is the HTTP status to answer (404, 403, 409,
    422), ``message`` says why."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def covered(name: str, pieces: tuple[str, ...]) -> tuple[str, ...]:
    """The pieces a token called ``name`` owns in a game with ``pieces`` (``spectator``: none)."""
    if name == "all":
        return pieces
    if name == "detectives":
        return pieces[1:]
    if name in pieces:
        return (name,)
    return ()


def token_plan(pieces: tuple[str, ...], human: Collection[str], *, hotseat: bool,
               play_as: str | None, public: bool) -> list[str]:
    """The token names a new game issues (``spectator`` always comes last).

    * Only human seats get a token: ``X`` if Mr X is human, ``detectives`` if a detective or
      police piece is, each human hunter piece on its own, ``all`` for a hot-seat game.
    * ``play_as`` (the creator's own token) is issued first; the names that would share its
      pieces are left out (a creator playing ``detectives`` gets no ``D1``.. links).
    * A public game issues only ``play_as`` (and ``spectator``): the other seats are open.
    """
    hunters = [p for p in pieces[1:] if p in human]
    names: list[str] = []
    if MR_X in human:
        names.append(MR_X)
    if hunters:
        names.append("detectives")
        names.extend(hunters)
    if hotseat:
        names.append("all")
    if play_as is not None:
        mine = set(covered(play_as, pieces))
        names = [play_as] + ([] if public else [n for n in names if n != play_as
                                                 and not mine & set(covered(n, pieces))])
    elif public:
        names = []
    return [*names, "spectator"]


def check_play_as(play_as: str, pieces: tuple[str, ...], human: Collection[str],
                  hotseat: bool) -> str | None:
    """Why ``play_as`` cannot be the creator's seat, or ``None`` if it can."""
    if play_as == "all":
        return None if hotseat else "play_as \"all\" is for hot-seat games"
    own = covered(play_as, pieces)
    if not own:
        return (f"play_as {play_as!r} is not a seat of this game (X, detectives, "
                f"{', '.join(pieces[1:])})")
    ai = [p for p in own if p not in human]
    if play_as == "detectives" and len(ai) < len(own):
        return None  # the detectives token may own AI seats next to its human ones
    if ai:
        return f"play_as {play_as}: {', '.join(ai)} is an AI seat"
    return None


def open_seats(pieces: tuple[str, ...], human: Collection[str],
               issued: Iterable[str]) -> list[str]:
    """The human pieces that no issued token owns yet, in piece order."""
    taken: set[str] = set()
    for name in issued:
        taken.update(covered(name, pieces))
    return [p for p in pieces if p in human and p not in taken]


def join_name(pieces: tuple[str, ...], human: Collection[str], issued: Iterable[str],
              seat: str | None, side: str | None) -> str:
    """The token name to issue for a join asking for ``seat`` (a piece) or ``side``
    (``mr_x``/``detectives``); raise :class:`JoinError` (409) when it is not open.

    ``side: "detectives"`` takes every detective seat at once while all of them are open (one
    person against Mr X), else the first open one."""
    free = open_seats(pieces, human, issued)
    if seat is not None:
        if seat not in pieces:
            raise JoinError(422, f"there is no seat {seat} in this game (pieces: "
                                 f"{', '.join(pieces)})")
        if seat not in human:
            raise JoinError(409, f"{seat} is played by the AI")
        if seat not in free:
            raise JoinError(409, f"{seat} is taken")
        return seat
    if side == "mr_x":
        if MR_X not in free:
            raise JoinError(409, "Mr X's seat is taken" if MR_X in human
                            else "Mr X is played by the AI")
        return MR_X
    hunters = [p for p in pieces[1:] if p in human]
    open_hunters = [p for p in hunters if p in free]
    if not hunters:
        raise JoinError(409, "the detectives are played by the AI")
    if not open_hunters:
        raise JoinError(409, "no detective seat is open")
    if open_hunters == hunters:
        return "detectives"
    return open_hunters[0]


@dataclass(frozen=True)
class LobbyGame:
    """What the lobby lists about one public game (public facts only)."""

    game_id: str
    created: float
    preset: str
    rules: dict[str, Any]
    pieces: tuple[str, ...]
    seats: dict[str, dict[str, Any]]
    open: list[str]
    waiting: list[str]
    ply: int
    clock: dict[str, Any] | None

    def to_dict(self) -> dict[str, Any]:
        """The entry as ``GET /api/lobby`` answers it."""
        return {
            "game_id": self.game_id,
            "created": round(self.created, 3),
            "preset": self.preset,
            "edition": self.rules.get("edition"),
            "detectives": len([p for p in self.pieces if p.startswith("D")]),
            "police": len([p for p in self.pieces if p.startswith("P")]),
            "extra_reveal": bool(self.rules.get("extra_reveal")),
            "pieces": list(self.pieces),
            "seats": self.seats,
            "open": self.open,
            "open_sides": [s for s in SIDES if any((p == MR_X) == (s == "mr_x")
                                                   for p in self.open)],
            "waiting": self.waiting,
            "started": self.ply > 0,
            "clock": self.clock,
        }


def unjoined(names: Iterable[str]) -> bool:
    """Whether a public game's issued token names show nobody joined it: at most one seat's
    token (its creator's; a game created without a seat and joined once looks the same: one
    person waiting)."""
    return sum(1 for n in names if n != "spectator") <= 1


async def listed_games(server: TableServer) -> list[tuple[str | None, dict[str, Any]]]:
    """Every public game the lobby may list, newest first, with its owner (the address that
    created it, if this process did: ``ClientLimits.public_owner``): still being played, a
    seat open, and not an unjoined game older than ``Limits.lobby_unjoined_seconds``. The
    stored games are read in the database's read thread, a few indexed queries at most once
    a second (:meth:`TableServer.lobby_rows`), and none is loaded; games in memory add who
    is connected."""
    ttl = server.limits.lobby_unjoined_seconds
    owners = server.clients.public_owner
    now = time.time()
    games = []
    for row in await server.lobby_rows(LOBBY_READ):
        try:
            pieces = Rules.from_dict(row.rules).pieces
        except (RulesError, ValueError, TypeError):
            continue  # a damaged row is not listed (loading the game reports it)
        room = server.rooms.get(row.id)
        if room is not None:
            if room.over():
                continue
            free = room.open_seats()
            seats = room.seat_infos()
            waiting = [p for p in pieces if seats[p]["connected"] and seats[p]["kind"] == "human"]
            ply = room.game.ply
            clock = room.options.get("clock")
            names: Iterable[str] = room.issued
        else:
            human = {p for p, s in row.seats.items() if s.kind == "human"}
            free = open_seats(pieces, human, row.token_names)
            seats = {p: {"kind": s.kind, "agent": s.agent if s.kind == "ai" else None,
                         "connected": False, "note": s.note, "open": p in free, "away": None}
                     for p, s in row.seats.items()}
            waiting = []
            ply = row.moves
            clock = row.options.get("clock")
            names = row.token_names
        if not free:
            continue
        if ttl and now - row.created > ttl and unjoined(names):
            continue  # nobody came: it leaves the lobby (its links still play it)
        games.append((owners.get(row.id), LobbyGame(
            row.id, row.created, row.preset, row.rules, pieces, seats, free, waiting, ply,
            clock).to_dict()))
    return games


async def list_lobby(server: TableServer, limit: int = LOBBY_LIMIT) -> dict[str, Any]:
    """The body of ``GET /api/lobby``: public games still being played that have an open seat,
    newest first (:func:`listed_games`), at most ``Limits.lobby_rows_per_client`` of one
    address's and twice that (``Limits.per_prefix``) of its /24 or /64, so that nobody fills
    it. Rules, seats and who is waiting; never a token, a station, a move or an owner."""
    lim = server.limits
    caps = (lim.lobby_rows_per_client, scaled(lim.lobby_rows_per_client, lim.per_prefix))
    shown: dict[str, int] = {}
    games = []
    for owner, entry in await listed_games(server):
        if owner is not None and caps[0]:
            keys = (owner, network_of(owner))
            if any(cap and shown.get(k, 0) >= cap for k, cap in zip(keys, caps, strict=True)):
                continue
            for k in keys:
                shown[k] = shown.get(k, 0) + 1
        games.append(entry)
        if len(games) >= limit:
            break
    return {"games": games}


async def open_public_games(server: TableServer, client: str) -> tuple[int, int]:
    """How many games the lobby may list (:func:`listed_games`) were created by ``client``,
    and by any address of its /24 or /64 (``Limits.public_games_per_client``)."""
    net = network_of(client)
    mine = ours = 0
    for owner, _ in await listed_games(server):
        if owner is not None:
            mine += owner == client
            ours += network_of(owner) == net
    return mine, ours


async def join_game(server: TableServer, game_id: str, seat: str | None,
                    side: str | None) -> dict[str, Any]:
    """Take an open seat of a public game: the ``POST /api/games/{id}/join`` answer (201),
    or :class:`JoinError`."""
    room = await server.room(game_id)
    if room is None:
        raise JoinError(404, f"no game {game_id!r}")
    if not room.public:
        raise JoinError(403, "this game is private: ask its players for a link")
    if room.over():
        raise JoinError(409, "the game is over")
    pieces = room.game.pieces
    name = join_name(pieces, room.humans(), room.issued, seat, side)
    token = secrets.token_urlsafe(24)
    blocking = [n for n in (MR_X, "detectives", "all", *pieces[1:])
                if set(covered(n, pieces)) & set(covered(name, pieces))]
    if not await server.db.write(server.store.add_token, game_id, name, token_hash(token),
                                 blocking):
        raise JoinError(409, f"{name} was taken a moment ago")
    server.lobby_changed()
    room.issued.append(name)
    room.seats_changed()
    return {"game_id": game_id, "token_name": name, "pieces": list(covered(name, pieces)),
            "token": token, "link": f"/game/{game_id}#t={token}", "open": room.open_seats()}
