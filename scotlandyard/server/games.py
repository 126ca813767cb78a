"""All games of one server (:class:`GameServer`): creating, storing, loading and resuming
games, authenticating tokens, AI scheduling across games, the lobby's rows, quarantine of
damaged games and archiving of idle ones. One game is a :class:`~.rooms.Room`.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from typing import TYPE_CHECKING, Any

from ..ai import agent_names
from ..game import Game
from ..move import MR_X, Move
from ..rules import PRESET_TABLE, Rules, RulesError, preset_info
from .absent import game_level
from .clock import ClockConfig
from .limits import ClientLimits, Limits
from .lobby import check_play_as, token_plan
from .protocol import (
    CreateGame,
)
from .rooms import (
    X_ABSENT_SECONDS,
    Room,
    RoomFacts,
    SetupError,
    draw_server_start,
    seal,
)
from .seats import DEFAULT_AGENT, LEVELS, Seat, resolve_agent
from .store import (
    UNAVAILABLE,
    AsyncStore,
    GameStore,
    LobbyRow,
    StoredGame,
    StoreError,
)
from .thinker import Thinker, mr_x_paces, owner_key
from .tokens import Role, commitment_hash, token_hash, token_scope

if TYPE_CHECKING:

    pass

log = logging.getLogger("scotlandyard.server")

LOBBY_TTL = 1.0
"""Seconds the lobby's stored rows are reused (a new game or join here refreshes them)."""


class GameDamaged(StoreError):
    """A stored game that cannot be rebuilt: it is quarantined (its players are told why,
    every other game plays on). The message names what is wrong, never a hidden fact."""


class GameServer:
    """All games of one server: creation, lookup by token, lazy loading, AI scheduling,
    quarantine of damaged games and archiving of idle ones."""

    def __init__(self, store: GameStore, ai_delay: float = 0.6, ai_workers: int = 0,
                 absent_timeout: float = X_ABSENT_SECONDS,
                 limits: Limits | None = None, *, clients: ClientLimits | None = None) -> None:
        """Serve the games in ``store``; AI seats wait ``ai_delay`` seconds before moving and
        think in ``ai_workers`` worker processes (0: in threads of this process); a seat
        without a connection for ``absent_timeout`` seconds may be handed to the AI by any
        other player. ``clients``: the per-client-address limits the app keeps (a rematch
        takes from its game-creation bucket); a fresh one if not given."""
        self.store = store
        self.db = AsyncStore(store)
        self.limits = limits if limits is not None else Limits()
        self.clients = clients if clients is not None else ClientLimits(self.limits)
        self.ai_delay = max(0.0, float(ai_delay))
        self.absent_timeout = max(0.0, float(absent_timeout))
        self.rooms: dict[str, Room] = {}
        self.damaged: dict[str, str] = {}
        self._loading: dict[str, asyncio.Future[Room | None]] = {}
        self._sweeper: asyncio.Task[None] | None = None
        self.thinker = Thinker(ai_workers, self.limits.heavy_ai)
        self.pace_mr_x = True
        """AI Mr X replies in fixed time (finding 7); only tests turn it off
        (``create_app(pace_mr_x=False)``)."""
        from ..kernel.fast import numba_available

        self.fast_kernel = numba_available()
        """Whether the AI seats' searches run on the compiled kernel (numba is installed)."""
        self.mr_x_pace: dict[str, float] = mr_x_paces(self.fast_kernel)
        """Seconds every reply of an AI Mr X of each agent takes, as others see it, covering
        the longest think of its budget on this server's kernel (:func:`.thinker.mr_x_paces`)."""
        self._lobby: tuple[float, int, list[LobbyRow]] | None = None

    # ---- the lobby ------------------------------------------------------------------------------
    async def lobby_rows(self, limit: int) -> list[LobbyRow]:
        """The stored public games the lobby lists (``Store.lobby_games``, read in the
        database's read thread), reused for :data:`LOBBY_TTL` seconds."""
        now = time.monotonic()
        cached = self._lobby
        if cached is not None and cached[1] >= limit and now - cached[0] < LOBBY_TTL:
            return cached[2][:limit]
        rows = await self.db.read(self.store.lobby_games, limit)
        self._lobby = (now, limit, rows)
        return rows

    def lobby_changed(self) -> None:
        """A public game was created or joined here: the next lobby request reads again."""
        self._lobby = None

    # ---- start-up ---------------------------------------------------------------------------
    async def resume(self) -> int:
        """Load the games played in the last ``idle_seconds`` (their AI seats think again) and
        start archiving idle games; return how many were loaded. Older games load when one of
        their tokens is used. A game that cannot be rebuilt is quarantined, not fatal.
        With many server processes on one database (``store.shared``), only the games with AI
        seats that no other process plays (``cluster.py`` picks up the rest later)."""
        n = 0
        if self.store.shared:
            ids = [g for g in await self.db.read(self.store.ai_game_ids)
                   if self.store.try_lock_game(g)]
        else:
            ids = await self.db.read(self.store.active_game_ids,
                                     time.time() - self.limits.idle_seconds)
        for gid in ids:
            try:
                room = await self.room(gid)
            except GameDamaged:
                continue  # quarantined (logged once by room())
            if room is not None:
                room.seats_changed()
                n += 1
        if self._sweeper is None:
            self._sweeper = asyncio.create_task(self._sweep())
        return n

    async def _sweep(self) -> None:
        lim = self.limits
        period = max(0.05, min(1.0, lim.send_timeout / 4, lim.idle_seconds / 4))
        while True:
            await asyncio.sleep(period)
            self.check_connections()
            self.archive_idle()

    def check_connections(self) -> int:
        """Evict the sockets that have not taken a frame for ``send_timeout``; how many."""
        now = time.monotonic()
        return sum(conn.check(now) for room in list(self.rooms.values())
                   for conn in list(room.connections))

    def archive_idle(self) -> int:
        """Drop from memory the games that nobody watches and where no AI is to move, idle for
        ``idle_seconds`` (finished games, on the board or on time: at once); they stay in the
        database. Returns how many."""
        now = time.monotonic()
        idle = [r for r in self.rooms.values()
                if not r.connections and not r.ai_busy()
                and (r.over() or now - r.last_active >= self.limits.idle_seconds)]
        for room in idle:
            self.evict(room)
        return len(idle)

    def shutdown(self) -> None:
        """Stop every room's AI, the archiver, the AI workers and the database threads."""
        if self._sweeper is not None:
            self._sweeper.cancel()
        for room in self.rooms.values():
            room.close()
        self.thinker.shutdown()
        self.db.shutdown()

    def evict(self, room: Room) -> None:
        """Drop a game nobody watches from memory (it stays in the database)."""
        if self.rooms.get(room.id) is room:
            room.close()
            del self.rooms[room.id]
            self.store.unlock_game(room.id)

    # ---- lookup ---------------------------------------------------------------------------------
    async def room(self, game_id: str) -> Room | None:
        """The live room of ``game_id``, loaded from the database if needed, or ``None``.
        Raises :class:`GameDamaged` for a quarantined game."""
        room = self.rooms.get(game_id)
        if room is not None:
            return room
        if game_id in self.damaged:
            raise GameDamaged(self.damaged[game_id])
        pending = self._loading.get(game_id)
        if pending is not None:
            return await asyncio.shield(pending)
        future: asyncio.Future[Room | None] = asyncio.get_running_loop().create_future()
        self._loading[game_id] = future
        try:
            room = await self._load(game_id)
        except BaseException as exc:
            future.set_exception(exc)
            future.exception()  # retrieved: waiters get it, nobody else needs to
            raise
        else:
            future.set_result(room)
            return room
        finally:
            del self._loading[game_id]

    async def _load(self, game_id: str) -> Room | None:
        try:
            read = await self.db.read(self._read_game, game_id)
            if read is None:
                return None
            stored, facts, chat = read
            room = self._rebuild(stored, facts)
        except UNAVAILABLE:
            raise  # the database cannot be used now: not the game's fault
        except StoreError as exc:
            why = str(exc)
            self.damaged[game_id] = why
            log.error("game %s quarantined: its stored record is damaged: %s", game_id, why)
            raise GameDamaged(why) from None
        self.rooms[game_id] = room
        room.chat.rows = chat
        room.chat_delivered = chat[-1][0] if chat else 0
        if self.store.shared:
            self.store.announce(game_id, "q")  # who has sockets in it elsewhere?
        if room.clock is not None:  # the side to move's clock runs here too (from now: the
            room.clock.update()     # time it took elsewhere before is not stored)
        room.kick_ai()
        return room

    async def exists(self, game_id: str) -> bool:
        """Whether there is a game ``game_id`` (live or stored)."""
        return game_id in self.rooms or await self.db.read(self.store.has_game, game_id)

    async def authenticate(self, game_id: str, token: str | None) -> tuple[Room, str, Role, tuple[str, ...]] | None:
        """(room, token name, role, owned pieces) of ``token`` in ``game_id``, or ``None``.
        The game is loaded only for a token that opens it (:class:`GameDamaged` if it is
        quarantined)."""
        if not token or len(token) > 200:
            return None
        try:
            found = await self.db.read(self.store.find_token, token_hash(token))
        except UNAVAILABLE:
            raise
        except StoreError as exc:  # the token's row is damaged (not UTF-8)
            raise GameDamaged(str(exc)) from None
        if found is None or not secrets.compare_digest(found[0], game_id):
            return None
        loaded = game_id in self.rooms
        room = await self.room(game_id)
        if room is None:
            return None
        if loaded and self.store.shared:
            await room.refresh()  # a missed notification must not show an old position
        if room.closed:  # dropped from memory meanwhile (its last socket left): load it again
            room = await self.room(game_id)
            if room is None:
                return None
        try:
            role, pieces = token_scope(found[1], room.game.pieces)
        except StoreError:  # a token stored with a name no token has: that token is damaged
            raise GameDamaged(f"game {game_id}: a token is stored with an unknown name") from None
        return room, found[1], role, pieces

    def announce(self, room: Room, ask: bool = False) -> None:
        """Tell the other server processes on the database which of ``room``'s pieces have
        sockets here (``ask``: and ask them the same)."""
        if self.store.shared:  # "*": a socket is open here (a spectator's too)
            pieces = sorted(room.local_pieces()) + (["*"] if room.connections else [])
            self.store.announce(room.id, "p " + ",".join(pieces))
            if ask:
                self.store.announce(room.id, "q")

    def release(self, room: Room) -> None:
        """Drop a finished game that no socket watches (after a REST call loaded it); with
        many server processes, also a running game that no socket here watches and whose AI
        seats another process plays (or that has none)."""
        if room.connections:
            return
        if room.over() or (self.store.shared
                                   and room.id not in self.store.locked_games(check=False)):
            self.evict(room)

    def _read_game(self, game_id: str) -> tuple[StoredGame, RoomFacts,
                                                list[tuple[int, float, str, str, str]]] | None:
        """Database thread: a stored game, the rest of its rows and its chat (``None``: no
        such game). Every row is read before the room exists, so a damaged one (a chat
        message that is not UTF-8...) quarantines the game instead of failing half-loaded."""
        stored = self.store.load_game(game_id)
        if stored is None:
            return None
        return stored, self._facts(game_id), self.store.chat(game_id)

    def _facts(self, game_id: str) -> RoomFacts:
        public, options = self.store.options(game_id)
        return RoomFacts(public, options, self.store.token_names(game_id),
                         self.store.clock(game_id), self.store.adjudication(game_id))

    def _rebuild(self, stored: StoredGame, facts: RoomFacts | None = None) -> Room:
        """Replay a stored game through the core to where it was; raise :class:`StoreError`
        saying what is wrong (never a hidden station or move) if it cannot be. ``facts``: its
        other rows, read with it (else read here)."""
        gid = stored.id
        try:
            rules = Rules.from_dict(stored.rules)
        except (RulesError, ValueError, TypeError, KeyError) as exc:
            raise StoreError(f"game {gid}: its rules are not valid ({type(exc).__name__})") from exc
        try:
            game = Game.new(rules, start=stored.start)
        except (ValueError, TypeError, KeyError) as exc:
            raise StoreError(f"game {gid}: its start stations are not valid for its rules") from exc
        # no game.seed: on the server a seed fixes the detectives' cards only, so records
        # must not suggest that Game.new(seed=...) gives this game's start
        for ply, piece, text in stored.moves:
            try:
                game.push(Move.parse(text))
            except (ValueError, TypeError) as exc:
                raise StoreError(f"game {gid}: move {ply} (by {piece}) does not replay "
                                 f"({type(exc).__name__})") from exc
            made_by = game.pieces[game.history[-1].piece]
            if game.ply != ply or made_by != piece:
                raise StoreError(f"game {gid}: move {ply} is stored as {piece}'s but was "
                                 f"made by {made_by}")
        sealed = [(c.slot, c.station) for c in stored.commitments]
        if sealed and sealed[0][0] == 0:  # his start (sealed since 9722bfb; older games: none)
            if sealed[0][1] != game.start[MR_X]:
                raise StoreError(f"game {gid}: the seal of Mr X's start does not match his start")
            sealed = sealed[1:]
        if sealed != [(e.slot, e.station) for e in game.log]:
            raise StoreError(f"game {gid}: commitments do not match Mr X's log")
        for c in stored.commitments:
            if not secrets.compare_digest(str(c.hash),
                                          commitment_hash(gid, c.slot, c.station, str(c.salt))):
                raise StoreError(f"game {gid}: the commitment of log slot {c.slot} was changed "
                                 "(its hash does not match its station and salt)")
        seats = {}
        for p in game.pieces:
            row = stored.seats.get(p)
            if row is None or row.kind not in ("human", "ai"):
                seat = Seat(p, "human")
            else:
                seat = Seat(p, row.kind, row.agent, row.note)  # type: ignore[arg-type]
            try:
                seat.build_agent()
            except ValueError:  # an agent this server does not know: random plays
                seat.build_agent_fallback(f"agent {str(row.agent if row else None)[:40]!r} is not known on this "
                                          "server; random plays instead")
            seats[p] = seat
        if facts is None:
            facts = self._facts(gid)
        return Room(self, gid, game, stored.preset, seats, stored.hotseat,
                    list(stored.commitments), public=facts.public, options=facts.options,
                    issued=facts.issued, clock_state=facts.clock,
                    adjudication=facts.adjudication if not game.is_over()
                    and stored.status == "over" else None)

    # ---- creation -------------------------------------------------------------------------------
    async def create(self, req: CreateGame, owner: str | None = None) -> dict[str, Any]:
        """Create a game from a ``POST /api/games`` body; raise :class:`SetupError` if it
        cannot be made. Returns the response body (tokens and links). ``owner``: the client
        address that asked (:attr:`Room.owner`)."""
        rules = self._rules(req)
        unknown = [p for p in req.seats if p not in rules.pieces]
        if unknown:
            raise SetupError(f"no seat {', '.join(unknown)} in this game (pieces: "
                             f"{', '.join(rules.pieces)})")
        seats: dict[str, Seat] = {}
        for p in rules.pieces:
            ask = req.seats.get(p)
            if ask is None or ask.kind == "human":
                seats[p] = Seat(p, "human")
                continue
            agent = ask.agent or DEFAULT_AGENT
            try:
                resolve_agent(agent)
            except ValueError as exc:
                raise SetupError(f"seat {p}: {exc}") from None
            seats[p] = Seat(p, "ai", agent)
            seats[p].build_agent()
        human = {p for p, s in seats.items() if s.kind == "human"}
        if req.play_as is not None:
            why = check_play_as(req.play_as, rules.pieces, human, req.hotseat)
            if why:
                raise SetupError(why)
        if req.public and req.hotseat:
            raise SetupError("a hot-seat game is played on one device: it cannot be public")
        if req.public and not human:
            raise SetupError("a public game needs a human seat")
        options: dict[str, Any] = {}
        if req.clock is not None:
            clock = req.clock
            agent = clock.agent or DEFAULT_AGENT
            try:
                resolve_agent(agent)
            except ValueError as exc:
                raise SetupError(f"clock: {exc}") from None
            options["clock"] = ClockConfig(clock.per_move, clock.initial, clock.increment,
                                           clock.on_timeout, agent).to_dict()
        absent_agent = req.absent_agent or game_level(seats, options,
                                                       default_level(agent_names()))
        try:
            resolve_agent(absent_agent)
        except ValueError as exc:
            raise SetupError(f"absent_agent: {exc}") from None
        options["absent"] = {"on": req.on_absent, "agent": absent_agent}
        names = token_plan(rules.pieces, human, hotseat=req.hotseat, play_as=req.play_as,
                           public=req.public)
        return await self.open_game(rules, req.preset, seats, names, hotseat=req.hotseat,
                              seed=req.seed, public=req.public, options=options,
                              you=req.play_as, owner=owner)

    async def open_game(self, rules: Rules, preset: str, seats: dict[str, Seat],
                        names: list[str], *, hotseat: bool, seed: int | None, public: bool,
                        options: dict[str, Any], you: str | None,
                        owner: str | None = None) -> dict[str, Any]:
        """Store and start a new game with tokens ``names``; the ``POST /api/games`` answer.
        A game without a human seat is refused (:class:`SetupError`) when ``owner`` has
        ``Limits.computer_games`` of them in play already."""
        if owner is not None and all(s.kind == "ai" for s in seats.values()):
            self.check_computer_games(owner)
        game = Game.new(rules, start=draw_server_start(rules, seed))
        game_id = secrets.token_urlsafe(9)
        tokens = {name: secrets.token_urlsafe(24) for name in names}
        sealed_start = seal(game_id, 0, game.start[MR_X])
        await self.db.write(
            self.store.create_game, game_id, preset=preset, rules=rules.to_dict(),
            start=game.start, seed=seed, hotseat=hotseat, seats=[s.stored() for s in seats.values()],
            token_hashes={name: token_hash(t) for name, t in tokens.items()},
            public=public, options=options, commitments=[sealed_start])
        room = Room(self, game_id, game, preset, seats, hotseat, [sealed_start], public=public,
                    options=options, issued=list(names))
        if owner is not None:
            room.owner = owner
        self.rooms[game_id] = room
        if public:
            self.lobby_changed()
        room.seats_changed()
        log.info("game %s created: %s, seats %s%s", game_id, preset,
                 " ".join(f"{p}={s.kind}" for p, s in seats.items()), " (public)" if public else "")
        return {
            "game_id": game_id,
            "pieces": list(rules.pieces),
            "public": public,
            "you": you,
            "tokens": tokens,
            "links": {name: f"/game/{game_id}#t={t}" for name, t in tokens.items()},
            "seats": room.seat_infos(),
            "open": room.open_seats(),
            "clock": options.get("clock"),
        }

    def check_computer_games(self, owner: str) -> None:
        """Raise :class:`SetupError` if ``owner`` (by :func:`.thinker.owner_key`) has
        ``Limits.computer_games`` games the computer plays alone in play in memory."""
        cap = self.limits.computer_games
        if cap <= 0:
            return
        key = owner_key(owner)
        running = sum(1 for r in self.rooms.values()
                      if not r.humans() and not r.over() and owner_key(r.owner) == key)
        if running >= cap:
            raise SetupError(f"this address already has {running} games in play that the "
                             f"computer plays alone (at most {cap}): let one end first, or "
                             "take a seat yourself")

    @staticmethod
    def _rules(req: CreateGame) -> Rules:
        try:
            rules = preset_info(req.preset).rules(req.detectives)
            if req.extra_reveal:
                rules = rules.replace(extra_reveal=True)
        except RulesError as exc:
            raise SetupError(str(exc)) from None
        return rules


def preset_catalogue() -> dict[str, Any]:
    """The body of ``GET /api/presets``, read off the core's preset table."""
    books = [p for p in PRESET_TABLE if p.book]  # the small boards' presets are research only
    presets = {p.name: p.rules().to_dict() for p in books}
    known = agent_names()
    return {
        "presets": presets,
        "detectives": {p.name: dict(zip(("min", "max", "default"), p.detectives, strict=True))
                       for p in books},
        "books": {p.name: {"title": p.title, "source": p.source, "aliases": list(p.aliases),
                           "detectives": list(p.book_detectives)} for p in books},
        "pieces": {p.name: {str(n): list(p.rules(n).pieces)
                            for n in range(p.detectives[0], p.detectives[1] + 1)}
                   for p in books},
        "levels": list(LEVELS),
        "agents": known,
        "fallback": {lvl: "random" for lvl in LEVELS if lvl not in known},
        "default_level": default_level(known),
    }


def default_level(known: list[str]) -> str:
    """The strongest level that answers within about 2 s a move here: ``hard`` (0.5-0.9 s a
    move with numba, docs/ai.md) where the compiled kernel runs, else ``medium`` (capped at
    2 s), else the strongest one registered."""
    try:
        from ..kernel.fast import numba_available
        fast = numba_available()
    except ImportError:  # pragma: no cover - the kernel ships with the package
        fast = False
    for level in (("hard", "medium") if fast else ("medium",)):
        if level in known:
            return level
    return next((lvl for lvl in reversed(LEVELS) if lvl in known and lvl != "max"), "random")
