"""Many server processes ("workers") on one PostgreSQL database (``docs/deploy.md``).

Each worker keeps in memory only the games its own sockets use and the games whose AI seats it
plays. The database is the truth, and a worker learns what the others did in two ways:

- **notifications**: the store hands over the id of each game another worker changed
  (``LISTEN``/``NOTIFY``; the id only, never a fact of the game); the worker reloads that game
  from the database, if it has it in memory, and sends its own connections their views;
- **the sweep**, every ``sweep_seconds``: the worker takes the lock of every game with AI seats
  that no live worker holds (a worker that died, or shut down, lost its locks with its
  database connection), loads it and lets its AI seats play; it gives back the locks of games
  that ended or left its memory, and restarts AI seats that stopped.

A move is stored by exactly one worker (the ``(game, ply)`` key; ``Room.apply``), so two
workers that both think a seat is theirs can never both move it.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any

from .store import StoreError

if TYPE_CHECKING:
    from .games import GameServer

log = logging.getLogger("scotlandyard.server")

SWEEP_SECONDS = 2.0
"""How often a worker looks for games with AI seats that no live worker plays."""


class Cluster:
    """One worker's part in a cluster: listening to the others and picking up games."""

    def __init__(self, server: GameServer, sweep_seconds: float = SWEEP_SECONDS) -> None:
        """For ``server`` (whose store is shared); :meth:`start` it on the event loop."""
        self.server = server
        self.sweep_seconds = sweep_seconds
        self._task: asyncio.Task[None] | None = None
        self.notified = 0  # notifications acted on (for the health endpoint)

    def start(self) -> None:
        """Listen to the other workers and start sweeping (call on the running event loop)."""
        loop = asyncio.get_running_loop()

        def from_listener(game_id: str | None, worker: str, what: str) -> None:
            try:
                loop.call_soon_threadsafe(self.changed, game_id, worker, what)
            except RuntimeError:  # the loop is closed: the worker is stopping
                pass

        self.server.store.listen(from_listener)
        self._task = asyncio.create_task(self._sweep_loop())

    def stop(self) -> None:
        """Stop sweeping (the store's close stops the listener)."""
        if self._task is not None:
            self._task.cancel()

    def changed(self, game_id: str | None, worker: str = "", what: str = "") -> None:
        """Another worker changed ``game_id`` (``what``: empty, or ``m<ply>`` for a move;
        ``None``: any game, notifications may have been lost), or said which of its seats have
        sockets there (``what`` ``p X,D1``), or asked who has (``q``). Cheap: a game to reload
        is marked, and reloaded after the move or reload in progress (``Room.refresh_soon``);
        a move notification of a ply this worker's game already has is skipped."""
        server = self.server
        if game_id is None:
            for each in list(server.rooms.values()):
                self.notified += 1
                each.refresh_soon()
                server.announce(each, ask=True)
            return
        room = server.rooms.get(game_id)
        if room is None:
            return
        if what.startswith("p"):
            room.set_elsewhere(worker, frozenset(p for p in what[1:].strip().split(",") if p))
        elif what == "q":
            if room.local_pieces():
                server.announce(room)
        else:
            # (never dropped from memory here: a socket may be joining it right now)
            self.notified += 1
            if what.startswith("m") and what[1:].isdigit() and room.game.ply >= int(what[1:]):
                return  # this worker already has that move (a late or repeated notification)
            room.refresh_soon()

    async def _sweep_loop(self) -> None:
        while True:
            await asyncio.sleep(self.sweep_seconds)
            try:
                await self.sweep()
            except Exception as exc:  # the database is away: try again at the next sweep
                log.warning("sweep failed: %s", type(exc).__name__)

    async def sweep(self) -> int:
        """One sweep (see the module's docstring); returns how many games were picked up."""
        server, store = self.server, self.server.store
        live = store.live_workers()
        for known in list(server.rooms.values()):
            for worker in [w for w in known.elsewhere if w not in live]:
                known.set_elsewhere(worker, frozenset())  # that worker died with its sockets
        held = store.locked_games(check=True)
        for game_id in held:
            room = server.rooms.get(game_id)
            if room is None or room.game.is_over():
                store.unlock_game(game_id)
            else:
                room.kick_ai()  # an AI seat that stopped (a database error) starts again
        picked = 0
        for game_id in store.ai_game_ids():
            if game_id in held or not store.try_lock_game(game_id):
                continue
            try:
                loaded = game_id in server.rooms
                room = await server.room(game_id)
            except StoreError as exc:
                log.error("game %s cannot be loaded: %s", game_id, exc)
                store.unlock_game(game_id)
                continue
            if room is None:
                store.unlock_game(game_id)
                continue
            if loaded:
                await room.refresh()
            log.info("game %s: this worker plays its AI seats now", game_id)
            room.kick_ai()
            picked += 1
        return picked


def health_report(server: GameServer, cluster: Cluster | None, draining: bool) -> dict[str, Any]:
    """The body of ``GET /api/health``: ``status`` (``ok``, ``draining``, ``database_error``),
    this worker's id, its database (no password) and what it holds in memory."""
    store = server.store
    status = "draining" if draining else "ok"
    try:
        version = store.schema_version  # one query: the database answers
    except Exception as exc:  # noqa: BLE001 - any database failure is reported, not raised
        log.warning("health: the database does not answer: %s", type(exc).__name__)
        status, version = "database_error", None
    return {
        "status": status,
        "worker": getattr(store, "worker_id", None),
        "database": "postgresql" if store.shared else "sqlite",
        "schema_version": version,
        "games_in_memory": len(server.rooms),
        "connections": sum(len(r.connections) for r in server.rooms.values()),
        "ai_games": len(store.locked_games(check=False)) if store.shared else None,
        "notifications": cluster.notified if cluster is not None else None,
    }
