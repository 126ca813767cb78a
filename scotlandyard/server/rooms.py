"""Live games: one :class:`Room` per game (the core ``Game``, its seats, connections and AI
seats: the game's state machine); :class:`~.games.GameServer` creates, stores and reloads them.

The server runs no game logic of its own: moves are checked and made by the core, and every
connection is sent ``game.view(...)`` for its seat, nothing else. Everything here runs on the
event loop's thread; only AI thinking runs in worker threads, on a frozen view.

Tokens and commitments are in :mod:`.tokens`, sockets in :mod:`.connections`, AI thinking in
:mod:`.thinker`.
"""

from __future__ import annotations

import asyncio
import logging
import random
import secrets
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from ..analysis import analyse
from ..belief import extend_path_counts, normalize_path_counts, path_counts, possible_history
from ..game import Game, IllegalMove
from ..move import MR_X, Move, NotationError
from ..rules import Rules
from .absent import Absence
from .again import Again
from .chat import RoomChat, channel_numbers
from .chat import message as chat_message
from .chat import receives as chat_receives
from .clock import Clock, ClockConfig, RoomClock
from .connections import Connection, RateLimit
from .lobby import open_seats
from .protocol import (
    ChatMessage,
    ChatRecordMessage,
    MoveMessage,
    PingMessage,
    ProtocolError,
    ReclaimMessage,
    RematchMessage,
    SyncMessage,
    TakebackMessage,
    TakeoverMessage,
    state_frame,
)
from .protocol import frame_text as _json
from .seats import DEFAULT_AGENT, LEVELS, Seat, resolve_agent
from .store import (
    UNAVAILABLE,
    MoveConflict,
    StoredCommitment,
    StoredGame,
    StoreError,
)
from .table import TableServer
from .thinker import Thinker, mr_x_pace
from .tokens import Role, commitment_hash, token_hash, token_scope
from .viewtext import ViewEncoder

DB_ERRORS: tuple[type[Exception], ...] = (StoreError, *UNAVAILABLE)  # a write the database refused

if TYPE_CHECKING:
    from pydantic import BaseModel

    from ..view import PlayerView

__all__ = ["DEFAULT_AGENT", "LEVELS", "X_ABSENT_SECONDS", "Connection", "RateLimit", "Role",
           "Room", "RoomServer", "Seat", "SetupError", "commitment_hash", "resolve_agent",
           "token_hash", "token_scope"]

log = logging.getLogger("scotlandyard.server")

X_ABSENT_SECONDS = 60.0
"""The default ``--absent-timeout``: after this long without a connection for a seat, any
other player (of either side) may let an AI take it."""


def last_move(game: Game) -> tuple[str, Move] | None:
    """The last move made, as (piece, move), or ``None`` before the first (``game.moves[-1]``
    without copying the whole list)."""
    history = game.history
    if not history:
        return None
    last = history[-1]
    return game.pieces[last.piece], last.move


class SetupError(ValueError):
    """A game request that cannot be served (the REST layer answers 422)."""


def draw_server_start(rules: Rules, seed: int | None) -> dict[str, int]:
    """The start stations of a game created on the server (R-SETUP).

    A seed given to the server fixes only public facts: the detectives' (and police) start
    cards are drawn with ``random.Random(seed)``; Mr X's card is always drawn by the server's
    secret randomness (:mod:`secrets`) from the cards left, so no seed, and no search over
    seeds, tells anyone where he starts. The draw has the same distribution as the core's
    (:meth:`Game.draw_start`): every card is equally likely for Mr X among those the
    detectives did not draw. Offline, ``Game.new(rules, seed=...)`` stays reproducible.
    """
    hunters = rules.hunters
    if not rules.start_deck_detectives or not rules.start_deck_mr_x:
        raise SetupError("these rules have no start deck")
    public = random.Random(seed) if seed is not None else random.Random(secrets.randbits(64))
    cards = list(rules.start_deck_detectives)
    public.shuffle(cards)
    drawn = cards[: len(hunters)]
    left = [s for s in (rules.start_deck_detectives if rules.shared_start_deck
                        else rules.start_deck_mr_x) if s not in drawn]
    x = left[secrets.randbelow(len(left))]
    return {MR_X: x, **dict(zip(hunters, drawn, strict=True))}


class RoomServer(TableServer, Protocol):
    """What a room asks of its server (:class:`~.games.GameServer` is one) beyond what the
    features do: its pace, the announcement of a watched game, the rebuild from the database."""

    @property
    def ai_delay(self) -> float: ...
    @property
    def pace_mr_x(self) -> bool: ...
    @property
    def mr_x_pace(self) -> dict[str, float]: ...
    @property
    def thinker(self) -> Thinker: ...

    def announce(self, room: Room, ask: bool = False) -> None: ...
    def release(self, room: Room) -> None: ...
    def _rebuild(self, stored: StoredGame, facts: RoomFacts | None = None) -> Room: ...


class Room:
    """One live game."""

    def __init__(self, server: RoomServer, game_id: str, game: Game, preset: str,
                 seats: dict[str, Seat], hotseat: bool,
                 commitments: list[StoredCommitment], *, public: bool = False,
                 options: dict[str, Any] | None = None, issued: list[str] | None = None,
                 clock_state: dict[str, Any] | None = None,
                 adjudication: dict[str, Any] | None = None) -> None:
        """A room for ``game`` (already replayed to its current position); ``issued``: the
        names of the tokens handed out so far; ``options``: as stored (clock set-up, ...)."""
        self.server = server
        self.id = game_id
        self.game = game
        self.preset = preset
        self.seats = seats
        self.hotseat = hotseat
        self.commitments = commitments
        self._beliefs: tuple[int, dict[str, float], list[dict[str, Any]] | None] | None = None
        self._views: tuple[tuple[Game, int, object], dict[str, PlayerView],
                           dict[str, str]] | None = None  # (position, views, their JSON)
        self._analysis: tuple[int, dict[str, Any]] | None = None  # (ply, post-game analysis)
        self._encoder = ViewEncoder()  # the views' JSON, history and log kept between moves
        self._p_true: dict[int, float] = {}
        """The public map's probability of Mr X's true station right after each of his moves
        (by the length of his log then), kept for the post-game analysis (never sent)."""
        # the public map's path counts (belief.path_counts) at (game, plies, last record)
        self._path_counts: tuple[Game, int, object, dict[int, int]] | None = None
        self.connections: set[Connection] = set()
        now = time.monotonic()
        self._absent_since: dict[str, float] = {p: now for p in game.pieces}
        self._ai_task: asyncio.Task[None] | None = None
        self._unwatched_since: float | None = now  # nobody connected since (None: someone is)
        self._pause_timer: asyncio.TimerHandle | None = None
        self._writing = asyncio.Lock()  # one move or seat change at a time goes to the database
        self._stale = False  # another server process changed the game: reload (refresh_soon)
        self._refresher: asyncio.Task[None] | None = None
        self._edits = 0  # local changes made outside ``_writing`` (takebacks): refresh re-reads
        self.last_active = now
        self.closed = False
        self.elsewhere: dict[str, frozenset[str]] = {}
        """Pieces with sockets on other server processes (``cluster.py``), by worker id."""
        self.chat_delivered = 0
        """The last chat message number this process has sent its sockets (or need not)."""
        self.chat_posted_here: set[int] = set()
        self.adjudication: dict[str, Any] | None = adjudication
        self.public = public
        self.options: dict[str, Any] = dict(options or {})
        self.issued: list[str] = list(issued if issued is not None else [])
        self.chat = RoomChat(self)
        clock = self.options.get("clock")
        self.clock = (RoomClock(self, ClockConfig.from_dict(clock), clock_state)
                      if isinstance(clock, dict) else None)
        self.again = Again(self)
        self.absence = Absence(self)
        self.owner = game_id
        """Who the heavy AI lane counts this game's moves against (:class:`~.thinker.FairLane`):
        the address that created it, while this process has it in memory since then; else the
        game itself."""

    # ---- seats and their players -----------------------------------------------------------------
    def humans(self) -> set[str]:
        """The pieces people play."""
        return {p for p, s in self.seats.items() if s.kind == "human"}

    def open_seats(self) -> list[str]:
        """Human seats whose token nobody holds yet (a public game waiting for players)."""
        return open_seats(self.game.pieces, self.humans(), self.issued)

    def over(self) -> bool:
        """Whether the game has ended (by the rules, or on time)."""
        return self.game.is_over() or self.adjudication is not None

    def notice(self, frame: dict[str, Any]) -> None:
        """Send every connection a ``notice`` (public facts only)."""
        text = _json(frame)
        for conn in list(self.connections):
            conn.send(text)

    async def lose_on_time(self, side: str) -> bool:
        """``side`` ran out of time and the game's clock says it loses: end the game (stored
        first, in the database's thread). False if the database refused (nothing changed)."""
        winner = "detectives" if side == "mr_x" else "mr_x"
        outcome = {"winner": winner, "reason": "time", "round": self.game.round, "piece": None}
        async with self._writing:
            if self.over() or self.closed:
                return True
            try:
                await self.server.db.write(self.server.store.set_outcome, self.id, outcome)
            except DB_ERRORS as exc:
                log.error("game %s: a loss on time was not saved: %s", self.id, exc)
                return False
        self.adjudication = outcome
        self.cancel_ai()
        self.notice({"type": "notice", "code": "timeout_lost", "side": side})
        self.seats_changed()
        return True

    async def take_back(self, ply: int, cid: Any = None, *, side: str | None = None,
                        at_ply: int | None = None) -> None:
        """Undo move ``ply`` and every later one (a takeback ``side`` asked for and was granted:
        :mod:`.again` decides which), counting it against ``side``'s limit; the commitments of
        the log slots undone are dropped. ``at_ply``: only if the game is still at that ply
        (else ``not_taken``: the game moved on). The database has it first (in its thread);
        raises :class:`ProtocolError` (``not_saved``) if it refuses, and then nothing changed."""
        async with self._writing:
            game = self.game
            if at_ply is not None and game.ply != at_ply:
                raise ProtocolError("not_taken", "the game moved on meanwhile (another move was "
                                    "made): nothing was taken back", cid)
            if side is not None:
                refusal = self.again.limit_refusal(side, cid)
                if refusal is not None:
                    raise refusal
            self.cancel_ai()  # an AI search for the position undone stops
            options = None
            if side is not None:
                counts = dict(self.options.get("takebacks") or {})
                counts[side] = self.again.used(side) + 1
                options = {**self.options, "takebacks": counts}
            undone = [m for _, m in game.moves[ply - 1:]]
            last = game.ply
            for _ in undone:
                game.pop()
            keep = len(game.log)
            for move in undone:  # the position waits for the database, as every reader sees it
                game.push(move)
            try:
                await self.server.db.write(self.server.store.undo_moves, self.id, ply, keep,
                                           last_ply=last, options=options)
            except MoveConflict:  # another server process stored a move meanwhile
                self.kick_ai()
                raise ProtocolError("not_taken", "the game moved on meanwhile (another move was "
                                    "made): nothing was taken back", cid) from None
            except DB_ERRORS as exc:
                log.error("game %s: a takeback was not saved: %s", self.id, exc)
                self.kick_ai()
                raise ProtocolError("not_saved", f"the takeback was not saved ({exc}); nothing "
                                                 "changed: ask again", cid) from None
            for _ in undone:
                game.pop()
            if options is not None:
                self.options = options
            self._edits += 1
        self.commitments = [c for c in self.commitments if c.slot <= keep]
        self._beliefs = None
        self._p_true = {k: p for k, p in self._p_true.items() if k <= keep}
        self.notice({"type": "notice", "code": "takeback", "ply": ply})
        self.seats_changed()

    async def save_options(self) -> None:
        """Store ``options`` (after a change), in the database's thread; raises
        :class:`ProtocolError` (``not_saved``) if it refuses."""
        try:
            await self.server.db.write(self.server.store.set_options, self.id, dict(self.options))
        except DB_ERRORS as exc:
            log.error("game %s: an option change was not saved: %s", self.id, exc)
            raise ProtocolError("not_saved", f"the change was not saved ({exc}); try "
                                             "again") from None

    # ---- what each connection sees ---------------------------------------------------------------
    def local_pieces(self) -> set[str]:
        """The pieces owned by a connection to this process."""
        owned: set[str] = set()
        for c in self.connections:
            owned.update(c.pieces)
        return owned

    def connected(self, piece: str) -> bool:
        """Whether a connection owning ``piece`` is open (here or on another process)."""
        return (any(piece in c.pieces for c in self.connections)
                or any(piece in ps for ps in self.elsewhere.values()))

    def seat_infos(self) -> dict[str, dict[str, Any]]:
        """Every seat as clients see it."""
        owned = self.local_pieces().union(*self.elsewhere.values())
        free = set(self.open_seats())
        now = time.monotonic()
        return {p: s.info(p in owned, p in free,
                          None if p in owned or s.kind != "human"
                          else round(now - self._absent_since[p], 1))
                for p, s in self.seats.items()}

    def set_elsewhere(self, worker: str, pieces: frozenset[str]) -> None:
        """Another process said which pieces have sockets there (none: it is gone)."""
        before = {p for p in self.game.pieces if self.connected(p)}
        watched = self.watched()
        if pieces:
            self.elsewhere[worker] = pieces
        else:
            self.elsewhere.pop(worker, None)
        if watched != self.watched():
            self._watch_changed()
        after = {p for p in self.game.pieces if self.connected(p)}
        now = time.monotonic()
        for p in before - after:
            self._absent_since[p] = now
        self.absence.left(sorted(before - after))
        self.absence.came(sorted(after - before))
        if before != after and self.connections:
            self.broadcast_state()

    def view_key(self, role: Role, pieces: tuple[str, ...]) -> str:
        """Whose view a token with this role and these pieces gets (``docs/protocol.md``)."""
        if role == "mr_x":
            return MR_X
        if role == "spectator" or not pieces:
            return "spectator"
        if role == "hotseat":
            hunters = self.game.pieces[1:]
            humans = {p for p, s in self.seats.items() if s.kind == "human"}
            if MR_X in humans and (self.game.to_move == MR_X or not humans.intersection(hunters)):
                return MR_X
            return hunters[0]
        return pieces[0]

    def openings(self) -> list[dict[str, Any]] | None:
        """Every slot's station and salt once the game is over, else ``None``."""
        if not self.over():
            return None
        return [{"slot": c.slot, "station": c.station, "salt": c.salt} for c in self.commitments]

    def public_beliefs(self) -> tuple[dict[str, float], list[dict[str, Any]] | None]:
        """What the detectives can work out, computed from the spectator's view only (so it is
        the same for every connection and never uses the truth): the probability of each
        possible station ("paths" model) and, once the game is over, the possible stations
        after each of Mr X's log slots. Cached per version."""
        game = self.game
        version = game.ply
        cached = self._beliefs
        if cached is not None and cached[0] == version:
            return cached[1], cached[2]
        public = self.view("spectator")
        records = game.history
        size = len(records)
        kept = self._path_counts
        if (kept is not None and kept[0] is game and kept[1] == size - 1
                and kept[2] is (records[size - 2] if size >= 2 else None)):
            # one ply on from the counts kept: extend them by that record alone
            before = len(kept[3])
            counts = extend_path_counts(public, kept[3])
            same = counts is kept[3] and len(counts) == before
        else:
            counts, same = path_counts(public), False
        self._path_counts = (game, size, records[-1] if size else None, counts)
        last = last_move(game)
        if same and cached is not None and cached[0] == version - 1 and not game.is_over():
            # a pass, a ticket taken, or a detective or police move onto a station Mr X
            # cannot be on changes nothing in the map
            prob = cached[1]
        else:
            raw = normalize_path_counts(public, counts)
            prob = {str(st): round(p, 6) for st, p in raw.items()}
            if last is not None and last[0] == MR_X and last[1].take_from is None and last[1].steps:
                # the map right after his move: the analysis needs it at the end
                self._p_true[len(game.log)] = float(raw.get(game.station(MR_X), 0.0))
        history = None
        if self.game.is_over():
            history = [{"slot": slot, "round": rnd, "possible": sorted(poss)}
                       for slot, rnd, poss in possible_history(public)]
        self._beliefs = (version, prob, history)
        return prob, history

    def analysis(self) -> dict[str, Any] | None:
        """The post-game analysis (``scotlandyard.analysis``) once the game is over, else
        ``None``: it uses Mr X's true path, so it is never sent before the end."""
        if not self.game.is_over():
            return None
        if self._analysis is None or self._analysis[0] != self.game.ply:
            self._analysis = (self.game.ply, analyse(self.game, self._p_true))
        return self._analysis[1]

    def _position_cache(self) -> tuple[dict[str, PlayerView], dict[str, str]]:
        """The views and view texts kept for the position in play (emptied when the game
        changes: a move, a takeback, a reload)."""
        game = self.game
        history = game.history
        size = len(history)
        last = history[-1] if size else None
        cached = self._views
        if (cached is None or cached[0][0] is not game or cached[0][1] != size
                or cached[0][2] is not last):
            cached = self._views = ((game, size, last), {}, {})
        return cached[1], cached[2]

    def view(self, key: str) -> PlayerView:
        """``game.view(key)``, built once per position: a move's frames and the public map
        share the views (:meth:`broadcast_state` lets them go when it is done; their text is
        kept until the game changes, for the sockets that join or sync)."""
        views = self._position_cache()[0]
        view = views.get(key)
        if view is None:
            view = views[key] = self.game.view(key)
        return view

    def view_text(self, key: str) -> str:
        """``game.view(key).to_dict()`` as JSON text (once per position and view; the history
        and log entries' text is kept from the moves before, :class:`ViewEncoder`)."""
        texts = self._position_cache()[1]
        text = texts.get(key)
        if text is None:
            text = texts[key] = self._encoder.text(self.view(key))
        return text

    def shared_state(self, seats: dict[str, Any] | None = None) -> dict[str, Any]:
        """The fields of the ``state`` message that are the same for every connection (all of
        them public: the public map is computed from the spectator's view)."""
        prob, history = self.public_beliefs()
        return {
            "seats": seats if seats is not None else self.seat_infos(),
            "commitments": [{"slot": c.slot, "hash": c.hash} for c in self.commitments],
            "openings": self.openings(),
            "probability": prob,
            "possible_history": history,
            "analysis": self.analysis(),
            "version": self.game.ply,
            "clock": self.clock.public() if self.clock is not None else None,
            "chat_record": self.chat.agreements(),
            "rematch": self.again.rematch_public(),
            "takeback": self.again.takeback_public(),
            "adjudication": self.adjudication,
            "absent": self.absence.public(),
        }

    def state(self, key: str, seats: dict[str, Any] | None = None) -> dict[str, Any]:
        """The ``state`` message for the view ``key``."""
        return {"type": "state", "view": self.view(key).to_dict(), **self.shared_state(seats)}

    def broadcast_state(self, only: Connection | None = None) -> None:
        """Send every connection (or ``only``) its fresh state. Each distinct view is encoded
        once (per position) and the fields every connection shares once per call; the
        connections that share a view are sent the same text."""
        shared = _json(self.shared_state(self.seat_infos()))
        cache: dict[str, str] = {}
        for conn in [only] if only is not None else list(self.connections):
            key = self.view_key(conn.role, conn.pieces)
            text = cache.get(key)
            if text is None:
                text = cache[key] = state_frame(self.view_text(key), shared)
            conn.send(text)
        # the texts stay for joins and syncs; the views (about 25 objects each) go now, before
        # the garbage collector walks them: hundreds of rooms' views alive between two moves
        # were most of what its young collections walked under load
        self._position_cache()[0].clear()

    # ---- connections -----------------------------------------------------------------------------
    def join(self, conn: Connection) -> None:
        """A connection opened: welcome it and send it (and others, if a seat came online) state."""
        self.last_active = time.monotonic()
        before = {p for p in self.game.pieces if self.connected(p)}
        here = self.local_pieces()
        watched, first = self.watched(), not self.connections
        self.connections.add(conn)
        conn.send(_json({"type": "welcome", "game_id": self.id, "pieces": list(conn.pieces),
                         "role": conn.role, "token_name": conn.token_name,
                         "absent_timeout": self.server.absent_timeout}))
        self.chat.send_history(conn)
        self.absence.came(conn.pieces)
        if set(conn.pieces) - before:
            self.broadcast_state()
        else:
            self.broadcast_state(only=conn)
        if set(conn.pieces) - here or first:
            self.server.announce(self)  # (the first socket here: others learn it is watched)
        if not watched:
            self._watch_changed()

    def leave(self, conn: Connection) -> None:
        """A connection closed."""
        if conn not in self.connections:
            return
        self.connections.discard(conn)
        conn.stop()
        now = self.last_active = time.monotonic()
        gone = [p for p in conn.pieces if not self.connected(p)]
        for p in gone:
            self._absent_since[p] = now
        self.absence.left(gone)  # the computer takes over, or the others may hand them over
        if gone and self.connections:
            self.broadcast_state()
        if set(conn.pieces) - self.local_pieces() or not self.connections:
            self.server.announce(self)
        if not self.watched():
            self._watch_changed()
        self.server.release(self)

    def absent_for(self, piece: str) -> float:
        """Seconds since the last connection owning ``piece`` closed (0 while one is open)."""
        if self.connected(piece):
            return 0.0
        return time.monotonic() - self._absent_since[piece]

    # ---- client messages -------------------------------------------------------------------------
    async def handle(self, conn: Connection, msg: BaseModel) -> None:
        """Act on one validated client message; raise :class:`ProtocolError` to refuse it."""
        if isinstance(msg, MoveMessage):
            await self._human_move(conn, msg)
        elif isinstance(msg, PingMessage):
            conn.send(_json({"type": "pong", "id": msg.id}))
        elif isinstance(msg, SyncMessage):
            self.broadcast_state(only=conn)
        elif isinstance(msg, TakeoverMessage):
            await self._takeover(conn, msg)
        elif isinstance(msg, ReclaimMessage):
            await self._reclaim(conn, msg)
        elif isinstance(msg, ChatMessage):
            await self.chat.post(conn, msg)
        elif isinstance(msg, ChatRecordMessage):
            await self.chat.agree(conn, msg)
        elif isinstance(msg, RematchMessage):
            await self.again.rematch(conn, msg)
        elif isinstance(msg, TakebackMessage):
            await self.again.takeback(conn, msg)
        else:  # pragma: no cover - the schema admits no other type
            raise ProtocolError("unknown_type", "unknown message")

    async def _human_move(self, conn: Connection, msg: MoveMessage) -> None:
        cid = msg.id
        refusal = self._human_refusal(conn, None, cid)  # the game is over
        if refusal is not None:
            raise refusal
        try:
            move = Move.parse(msg.move)
        except NotationError as exc:
            raise ProtocolError("illegal_move", str(exc), cid) from None
        shared = self.server.store.shared
        sent_at = self.game.ply
        for attempt in (1, 2):
            seen = self.game.ply
            refusal = self._human_refusal(conn, move, cid)
            if refusal is None:
                try:
                    await self.apply(move, at_ply=seen)
                except IllegalMove as exc:  # another move came first (while this one waited)
                    refusal = ProtocolError("illegal_move", str(exc), cid)
                except MoveConflict:  # another server process stored a move at this ply first
                    refusal = ProtocolError("not_taken", "another move was made first", cid)
                    if attempt == 2:
                        await self.refresh()
                except DB_ERRORS as exc:
                    log.error("game %s: a move was not saved: %s", self.id, exc)
                    raise ProtocolError("not_saved", f"the move was not saved ({exc}); nothing "
                                                     "changed: send it again", cid) from None
                else:
                    break
            # refused on this process's copy of the game: with other server processes on the
            # database, that copy may be behind (their notification is on its way). The
            # database decides: catch up (the client is sent the current state) and check
            # the move once more against it.
            if attempt == 1 and ((shared and await self.refresh()) or self.game.ply != seen):
                continue
            if self.game.ply != sent_at:  # the game moved on: not taken, here is the state
                raise ProtocolError("not_taken", "another move was made first; your move was "
                                    f"not taken (the game is at version {self.game.ply}): "
                                    f"{refusal.message}", cid)
            raise refusal
        conn.limit.refund()
        conn.send(_json({"type": "ack", "id": cid, "version": self.game.ply}))
        self.after_move()

    def _human_refusal(self, conn: Connection, move: Move | None,
                       cid: Any) -> ProtocolError | None:
        """Why ``conn`` may not make ``move`` now (``None``: only whether the game is over),
        or ``None`` if it may."""
        game = self.game
        if self.over():
            out = game.outcome()
            why = out.describe() if out is not None else "a side ran out of time"
            return ProtocolError("game_over", f"the game is over: {why}", cid)
        if move is None:
            return None
        piece = move.piece or game.to_move
        if conn.role == "spectator":
            return ProtocolError("not_your_turn", "spectators do not move", cid)
        if piece not in conn.pieces:
            return ProtocolError("not_your_turn", f"this token does not play {piece} "
                                                  f"(it plays {', '.join(conn.pieces)})", cid)
        if piece not in game.pieces_to_move:
            who = "Mr X" if game.to_move == MR_X else ", ".join(game.pieces_to_move)
            return ProtocolError("not_your_turn", f"{piece} is not to move; {who} to move", cid)
        seat = self.seats[piece]
        if seat.kind != "human":
            return ProtocolError("not_your_turn", f"{piece} is played by the AI ({seat.agent}); "
                                                  "reclaim the seat to play it", cid)
        illegal = game.why_illegal(move)
        if illegal is not None:
            return ProtocolError("illegal_move", illegal, cid)
        return None

    def refresh_soon(self) -> None:
        """Another server process changed this game (its notification came): reload it after
        the move or reload in progress here. Notifications that come meanwhile make one more
        reload, not one each; every reload reads the whole game, so none misses a ply."""
        self._stale = True
        if self._refresher is None or self._refresher.done():
            self._refresher = asyncio.create_task(self._refresh_loop())

    async def _refresh_loop(self) -> None:
        while self._stale and not self.closed:
            self._stale = False
            try:
                await self.refresh(strict=True)
            except DB_ERRORS as exc:  # the database is away: try again (a ply is never lost)
                log.warning("game %s cannot be reloaded now (%s); trying again", self.id,
                            type(exc).__name__)
                self._stale = True
                await asyncio.sleep(1.0)

    def _read_fresh(self) -> tuple[StoredGame | None, list[str], dict[str, Any] | None,
                                   dict[str, Any] | None, list[tuple[int, float, str, str, str]]]:
        """What :meth:`refresh` needs from the database (run in the store's read thread)."""
        store = self.server.store
        stored = store.load_game(self.id)
        if stored is None:
            return None, [], None, None, []
        return (stored, store.token_names(self.id),
                store.adjudication(self.id) if stored.status == "over" else None,
                store.clock(self.id) if self.clock is not None else None,
                store.chat(self.id))

    async def refresh(self, strict: bool = False) -> bool:
        """Catch up with the database, where another server process on the same database
        (``docs/deploy.md``) made moves or changed seats: replay the new moves, take the new
        seats and commitments, and send every connection here its view. True if anything
        changed. Runs after any move of this process in progress (never in the middle of
        one: a move it is committing must not be taken in twice). ``strict``: raise the
        database's errors (else logged, and False)."""
        async with self._writing:
            for _ in range(3):
                edits = self._edits
                try:
                    fresh = await self.server.db.read(self._read_fresh)
                except StoreError as exc:
                    log.error("game %s cannot be reloaded: %s", self.id, exc)
                    return False
                except UNAVAILABLE as exc:
                    if strict:
                        raise
                    log.warning("game %s cannot be reloaded now: %s", self.id, type(exc).__name__)
                    return False
                if edits == self._edits:  # no takeback here meanwhile: the read is current
                    break
            if self.closed:
                return False
            return self._catch_up(*fresh)

    def _catch_up(self, stored: StoredGame | None, issued: list[str],
                  adjudication: dict[str, Any] | None, clock: dict[str, Any] | None,
                  chat: list[tuple[int, float, str, str, str]]) -> bool:
        if stored is None:
            return False
        game = self.game
        local = [(i + 1, p, m.notation()) for i, (p, m) in enumerate(game.moves)]
        changed = False
        if stored.moves[:len(local)] == local:
            for _, _, text in stored.moves[len(local):]:
                game.push(Move.parse(text))
                changed = True
        else:  # moves were taken back elsewhere: replay the whole game
            # (from the rows read in the database's thread: only the replayed game is kept,
            # so nothing more is read here, on the event loop)
            facts = RoomFacts(self.public, self.options, issued, clock, adjudication)
            try:
                fresh = self.server._rebuild(stored, facts)
            except StoreError as exc:
                log.error("game %s cannot be reloaded: %s", self.id, exc)
                return False
            fresh.close()
            self.game, changed = fresh.game, True
            self._beliefs = None
            self._p_true = {}
        self.commitments = list(stored.commitments)
        if sorted(issued) != sorted(self.issued):  # a seat joined through another process
            self.issued, changed = issued, True
        for p, row in stored.seats.items():
            seat = self.seats.get(p)
            if seat is not None and (seat.kind, seat.agent, seat.note) != (row.kind, row.agent,
                                                                           row.note):
                new = Seat(p, row.kind, row.agent, row.note)  # type: ignore[arg-type]
                new.build_agent()
                self.seats[p] = new
                changed = True
        if stored.status == "over" and not self.game.is_over() and self.adjudication is None:
            self.adjudication, changed = adjudication, True  # lost on time there
        if self.clock is not None and clock is not None and clock != self.clock.clock.stored():
            self.clock.clock, changed = Clock(self.clock.clock.config, clock), True
        self._deliver_chat(chat)
        if changed:
            self.after_move()
        return changed

    def _deliver_chat(self, chat: list[tuple[int, float, str, str, str]]) -> None:
        """Send this process's sockets the chat messages posted through other processes."""
        self.chat.rows = list(chat)  # the history sent on connect
        rows = [r for r in chat if r[0] > self.chat_delivered]
        number = channel_numbers(chat)  # what clients see: each channel numbered on its own
        for n, at, channel, author, text in rows:
            if n in self.chat_posted_here:
                continue
            frame = _json({"type": "chat", "message": chat_message(number[n], at, channel,
                                                                   author, text)})
            for conn in list(self.connections):
                if chat_receives(conn.role, channel):
                    conn.send(frame)
        if rows:
            self.chat_delivered = max(r[0] for r in rows)
            self.chat_posted_here = {n for n in self.chat_posted_here if n > self.chat_delivered}

    async def apply(self, move: Move, at_ply: int | None = None) -> None:
        """Make a move and commit it (and its commitments) to the database first: the game
        changes only once the database has it. Raises :class:`IllegalMove` if it is not legal
        (now: another move may have come first) and :class:`StoreError` if the database
        refuses (the game is then unchanged). ``at_ply``: refuse if the game is no longer at
        that ply."""
        async with self._writing:
            game = self.game
            if at_ply is not None and game.ply != at_ply:
                raise IllegalMove("the game moved on")
            why = game.why_illegal(move)
            if why is not None:
                raise IllegalMove(why)
            before = len(game.log)
            game.push(move)
            try:
                undo = game.history[-1]
                piece, made = game.pieces[undo.piece], undo.move
                ply = game.ply
                new = [seal(self.id, entry.slot, entry.station) for entry in game.log[before:]]
                out = game.outcome()
                outcome = None if out is None else {"winner": out.winner, "reason": out.reason,
                                                    "round": out.round, "piece": out.piece}
            finally:
                game.pop()  # the position waits for the database, as every reader sees it
            await self.server.db.write(self.server.store.add_move, self.id, ply, piece,
                                       made.notation(), new, outcome)
            game.push(move)
            self.commitments.extend(new)
            self.last_active = time.monotonic()
            self.again.moved()
            if self.clock is not None:
                self.clock.moved()

    def after_move(self) -> None:
        """Tell everyone, and let an AI seat move if it is its turn."""
        self.seats_changed()

    def seats_changed(self) -> None:
        """After a move or a seat change: the clock follows whoever is to move now, everyone
        is told, and an AI seat to move starts thinking."""
        if self.clock is not None:
            self.clock.update()
        self.broadcast_state()
        self.kick_ai()

    async def _takeover(self, conn: Connection, msg: TakeoverMessage) -> None:
        piece, cid = msg.piece, msg.id
        seat = self.seats.get(piece)
        if seat is None:
            raise ProtocolError("not_allowed", f"there is no {piece} in this game", cid)
        if seat.kind == "ai":
            raise ProtocolError("not_allowed", f"{piece} is already played by the AI", cid)
        if self.over():
            raise ProtocolError("game_over", "the game is over", cid)
        if conn.role == "spectator":
            raise ProtocolError("not_allowed", "spectators cannot change seats", cid)
        if piece not in conn.pieces:
            wait = self.server.absent_timeout
            team = conn.role in ("detectives", "hotseat") and piece != MR_X
            if self.connected(piece):
                raise ProtocolError("not_allowed", f"{piece}'s player is connected", cid)
            if not team and self.absent_for(piece) <= wait:
                who = "Mr X's seat" if piece == MR_X else f"{piece}'s seat"
                raise ProtocolError("not_allowed", f"{who} can be given to the AI by its own "
                                    f"player, or by anyone at the table once it has been "
                                    f"without a connection for {wait:g} s", cid)
        try:
            resolve_agent(msg.agent)
        except ValueError as exc:
            raise ProtocolError("bad_message", str(exc), cid) from None
        new = Seat(piece, "ai", msg.agent, "taken over by the AI")
        new.build_agent()
        await self._save_seat(new, cid)
        if self.seats.get(piece) is not seat:
            raise ProtocolError("not_allowed", f"{piece}'s seat changed meanwhile", cid)
        self.seats[piece] = new
        if piece not in conn.pieces:  # its player is away: he is shown what was played for him
            await self.absence.mark(piece)
            self.notice({"type": "notice", "code": "absent_ai", "piece": piece,
                         "agent": msg.agent})
        self.seats_changed()

    async def _save_seat(self, seat: Seat, cid: Any) -> None:
        try:
            async with self._writing:
                await self.server.db.write(self.server.store.set_seat, self.id, seat.stored())
        except DB_ERRORS as exc:
            log.error("game %s: a seat change was not saved: %s", self.id, exc)
            raise ProtocolError("not_saved", f"the seat change was not saved ({exc}); nothing "
                                             "changed: send it again", cid) from None

    async def _reclaim(self, conn: Connection, msg: ReclaimMessage) -> None:
        piece, cid = msg.piece, msg.id
        seat = self.seats.get(piece)
        if seat is None:
            raise ProtocolError("not_allowed", f"there is no {piece} in this game", cid)
        if piece not in conn.pieces:
            raise ProtocolError("not_allowed", f"this token does not own {piece}", cid)
        if seat.kind != "ai":
            raise ProtocolError("not_allowed", f"{piece} is already played by a human", cid)
        new = Seat(piece, "human")
        await self._save_seat(new, cid)
        if self.seats.get(piece) is not seat:
            raise ProtocolError("not_allowed", f"{piece}'s seat changed meanwhile", cid)
        self.seats[piece] = new  # an AI move being computed for the old seat is dropped
        await self.absence.unmark(piece)
        self.seats_changed()

    # ---- AI seats --------------------------------------------------------------------------------
    def _ai_group(self) -> list[str]:
        """The AI-played pieces that may move now and share the first one's agent."""
        if self.over() or self.closed:
            return []
        group: list[str] = []
        for p in self.game.pieces_to_move:
            s = self.seats[p]
            if s.kind == "ai" and (not group or s.agent == self.seats[group[0]].agent):
                group.append(p)
        return group

    def ai_busy(self) -> bool:
        """Whether an AI seat is to move or thinking (the game must stay in memory); not while
        the AI waits for someone to connect (:meth:`ai_may_think`)."""
        return ((self._ai_task is not None and not self._ai_task.done())
                or (bool(self._ai_group()) and self.ai_may_think()))

    def watched(self) -> bool:
        """Whether a socket (a player's or a spectator's) is open to this game, here or on
        another server process."""
        return bool(self.connections) or any(self.elsewhere.values())

    def ai_may_think(self) -> bool:
        """Whether the AI seats may think: while someone is connected, and for
        ``Limits.unwatched_seconds`` after the last socket closed (a page reloading) or the
        game was created or loaded. Then their search is cancelled (:meth:`cancel_ai`) until
        someone connects: nobody's games think for an empty room."""
        since = self._unwatched_since
        return since is None or time.monotonic() - since < self.server.limits.unwatched_seconds

    def _watch_changed(self) -> None:
        """Someone connected to an unwatched game (its AI thinks again), or the last socket
        closed (its AI stops after the grace)."""
        if self._pause_timer is not None:
            self._pause_timer.cancel()
            self._pause_timer = None
        if self.watched():
            self._unwatched_since = None
            self.kick_ai()
        else:
            self._unwatched_since = time.monotonic()
            self._arm_pause()

    def _arm_pause(self) -> None:
        if self._pause_timer is None and self._unwatched_since is not None and not self.closed:
            left = self._unwatched_since + self.server.limits.unwatched_seconds - time.monotonic()
            self._pause_timer = asyncio.get_running_loop().call_later(
                max(0.0, left) + 0.01, self._pause_if_unwatched)

    def _pause_if_unwatched(self) -> None:
        self._pause_timer = None
        if not self.ai_may_think():
            self.cancel_ai()

    def cancel_ai(self) -> None:
        """Stop the AI seats' thinking now (a takeback, nobody connected, the game ended): the
        task is cancelled, its move dropped, and the search itself ends within about 20 ms
        (the thinker sets its stop flag), so it leaves the CPU. :meth:`kick_ai` lets the AI
        think again, from the position then."""
        if self._ai_task is not None:
            self._ai_task.cancel()
            self._ai_task = None

    def kick_ai(self) -> None:
        """Start the AI task if an AI seat is to move and none is thinking (and someone is
        connected, or was a moment ago: :meth:`ai_may_think`)."""
        if self._ai_task is not None and not self._ai_task.done():
            return
        if not self.ai_may_think():
            return
        if not self.watched():
            self._arm_pause()
        # with many server processes on one database, the one holding the game's lock plays
        if self._ai_group() and self.server.store.try_lock_game(self.id):
            self._ai_task = asyncio.create_task(self._ai_loop())

    async def _ai_loop(self) -> None:
        try:
            await self._ai_moves()
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # e.g. the database refused: the seat waits for a restart
            log.error("game %s: the AI stopped: %s", self.id, type(exc).__name__)

    def reply_pace(self, seat: Seat, piece: str) -> float:
        """The seconds an AI seat's move takes as others see it: ``ai_delay`` for the
        detectives (their think time depends on public facts only); for Mr X his agent's
        pace on this server's kernel (:attr:`GameServer.mr_x_pace`), whatever ``ai_delay``
        is (at least that), in whole multiples (:func:`paced_wait`)."""
        delay = self.server.ai_delay
        if piece != MR_X or not self.server.pace_mr_x:
            return delay
        return max(delay, mr_x_pace(self.server.mr_x_pace, seat.plays or "random"))

    async def _ai_moves(self) -> None:
        while True:
            group = self._ai_group()
            if not group or not self.ai_may_think():
                return
            started = time.monotonic()
            game = self.game
            version = game.ply
            seat = self.seats[group[0]]
            legal = [m for m in game.legal_moves()
                     if (m.piece or game.to_move) in group]
            pace = self.reply_pace(seat, group[0])
            paced = group[0] == MR_X and pace > 0  # the thinker paces his think (finding 7)
            try:
                move = await self.server.thinker.choose(self, seat, group[0], legal,
                                                        pace=pace if paced else 0.0)
            except Exception as exc:
                log.error("game %s: agent %s failed (%s); a random move is played instead",
                          self.id, seat.agent, type(exc).__name__)
                move = legal[seat.rng.randrange(len(legal))]
            if not paced:  # the detectives: at least ai_delay, so people can follow
                await asyncio.sleep(max(0.0, pace - (time.monotonic() - started)))
            if self.closed or game.ply != version or self.seats.get(group[0]) is not seat:
                continue  # the game moved on (a human moved, a seat changed): think again
            if move not in legal:
                log.error("game %s: agent %s chose a move that is not legal; a random move is "
                          "played instead", self.id, seat.agent)
                move = legal[seat.rng.randrange(len(legal))]
            try:
                await self.apply(move, at_ply=version)
            except IllegalMove:  # a human moved first meanwhile: think again
                continue
            except MoveConflict:  # another server process moved first: catch up, think again
                await self.refresh()
                continue
            except DB_ERRORS as exc:  # the database refused: try again soon
                log.error("game %s: an AI move was not saved (%s); trying again", self.id, exc)
                await asyncio.sleep(1.0)
                continue
            self.after_move()

    def close(self) -> None:
        """Stop the AI and the timers (server shutdown or eviction)."""
        self.closed = True
        self.cancel_ai()
        if self._pause_timer is not None:
            self._pause_timer.cancel()
        if self._refresher is not None:
            self._refresher.cancel()
        self.absence.close()
        if self.clock is not None:
            self.clock.cancel()
        self.again.close()


def seal(game_id: str, slot: int, station: int) -> StoredCommitment:
    """The commitment of Mr X's log slot ``slot`` at ``station`` with a fresh salt; slot 0 is
    his start, sealed when the game is created so a server cannot choose it after the game."""
    salt = secrets.token_hex(16)
    return StoredCommitment(slot, station, salt, commitment_hash(game_id, slot, station, salt))


@dataclass(frozen=True)
class RoomFacts:
    """A stored game's rows besides its moves: lobby flag, options, issued token names,
    clock and off-board outcome."""

    public: bool
    options: dict[str, Any]
    issued: list[str]
    clock: dict[str, Any] | None
    adjudication: dict[str, Any] | None
