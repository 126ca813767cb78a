"""Computer analysis of finished games on the server (``docs/webapp.md``, "Computer analysis").

A player of a finished game asks for it (``POST /api/games/{id}/analysis``); the jobs run one
at a time, each in a process of its own started for it at the lowest CPU priority (``nice``
19), so the live games' AI seats, which think in the server's own workers, are never held up:
the kernel gives an idle core to them first. The job (``scotlandyard.ai.review.review``, the
same numbers as ``scotlandyard analyse``) reports its progress over a pipe; the result is kept
with the game (the ``analyses`` table) and sent to anyone with a token of the game.

The game is over when the job is queued, so everything in it, Mr X's path included, is shown
to every viewer anyway (``PlayerView.all_shown``); an unfinished game is refused.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import os
from dataclasses import dataclass, field
from typing import Any

from fastapi import FastAPI, HTTPException, Query, Request
from fastapi.responses import JSONResponse

from .limits import ClientLimits, refuse_if_waiting

log = logging.getLogger("scotlandyard.server")

#: at most this many games wait for an analysis (a request beyond gets 503 "try later")
QUEUE_MAX = 32
#: new analyses one address may ask for a minute (bursts of 3)
ANALYSES_PER_MINUTE = 6.0
#: playouts per estimate of the server's analysis (as ``scotlandyard analyse``'s default)
PLAYOUTS = 400


@dataclass
class Job:
    """One game's analysis: its moves, and where it stands."""

    game_id: str
    rules: dict[str, Any]
    start: dict[str, int]
    moves: list[str]
    status: str = "queued"  # queued, running, done, failed
    done: int = 0
    total: int = 0
    error: str = ""
    waiters: list[asyncio.Future[None]] = field(default_factory=list)

    def public(self) -> dict[str, Any]:
        """What a request for the analysis is answered while it is not done."""
        out: dict[str, Any] = {"status": self.status, "done": self.done, "total": self.total}
        if self.error:
            out["error"] = self.error
        return out


def _run(rules: dict[str, Any], start: dict[str, int], moves: list[str], playouts: int,
         conn: Any) -> None:  # pragma: no cover - runs in the job's own process
    """The job's process: lowest priority, the review, progress and the result over ``conn``."""
    with contextlib.suppress(OSError):
        os.nice(19)
    try:
        from ..ai.review import review
        from ..game import Game
        from ..rules import Rules

        game = Game.new(Rules.from_dict(rules), start=start)
        for m in moves:
            game.push(m)
        last = [-1]

        def progress(done: int, total: int) -> None:
            if done - last[0] >= 4 or done == total:
                last[0] = done
                conn.send(("progress", done, total))

        result = review(game, playouts=playouts, progress=progress)
        conn.send(("done", result.to_dict()))
    except Exception as exc:  # noqa: BLE001 - reported to the page, logged by the server
        conn.send(("failed", f"{type(exc).__name__}: {exc}"))
    finally:
        conn.close()


class AnalysisQueue:
    """The server's analysis jobs: one runs at a time, in its own low-priority process."""

    def __init__(self, store_write: Any, playouts: int = PLAYOUTS) -> None:
        self.jobs: dict[str, Job] = {}
        self.order: list[str] = []
        self.playouts = playouts
        self._write = store_write  # async (fn, *args): the store's write thread
        self._runner: asyncio.Task[None] | None = None
        self._wake = asyncio.Event()
        self._proc: Any = None

    def status(self, game_id: str) -> dict[str, Any] | None:
        """A queued or running job's state, or ``None``."""
        job = self.jobs.get(game_id)
        return None if job is None else job.public()

    def submit(self, game_id: str, rules: dict[str, Any], start: dict[str, int],
               moves: list[str]) -> dict[str, Any]:
        """Queue a game (once: a queued or running one is answered with its state). Raises
        ``OverflowError`` when :data:`QUEUE_MAX` games already wait."""
        job = self.jobs.get(game_id)
        if job is not None and job.status in ("queued", "running"):
            return job.public()
        waiting = sum(1 for j in self.jobs.values() if j.status == "queued")
        if waiting >= QUEUE_MAX:
            raise OverflowError(f"{waiting} games wait for an analysis")
        job = self.jobs[game_id] = Job(game_id, rules, start, moves, total=2 * len(moves) + 1)
        self.order.append(game_id)
        if self._runner is None or self._runner.done():
            self._runner = asyncio.get_running_loop().create_task(self._loop())
        self._wake.set()
        return job.public()

    async def _loop(self) -> None:
        while True:
            pending = [g for g in self.order if self.jobs[g].status == "queued"]
            if not pending:
                self._wake.clear()
                await self._wake.wait()
                continue
            job = self.jobs[pending[0]]
            await self._run_one(job)
            self.order.remove(job.game_id)
            if job.status == "done":
                del self.jobs[job.game_id]

    async def _run_one(self, job: Job) -> None:
        job.status = "running"
        ctx = multiprocessing.get_context("spawn")
        here, there = ctx.Pipe(duplex=False)
        proc = ctx.Process(target=_run, args=(job.rules, job.start, job.moves, self.playouts,
                                              there), daemon=True, name="sy-analysis")
        self._proc = proc
        proc.start()
        there.close()
        loop = asyncio.get_running_loop()
        result: dict[str, Any] | None = None
        try:
            while True:
                msg = await loop.run_in_executor(None, _recv, here)
                if msg is None:
                    job.status, job.error = "failed", "the analysis stopped"
                    break
                if msg[0] == "progress":
                    job.done, job.total = msg[1], msg[2]
                elif msg[0] == "done":
                    result = msg[1]
                    break
                else:
                    job.status, job.error = "failed", str(msg[1])
                    break
        finally:
            here.close()
            await loop.run_in_executor(None, proc.join, 10)
            if proc.is_alive():
                proc.kill()
            self._proc = None
        if result is not None:
            try:
                await self._write(job.game_id, result)
                job.status = "done"
            except Exception as exc:  # noqa: BLE001 - the store's errors: told to the page
                job.status, job.error = "failed", f"the analysis was not saved: {exc}"
        if job.status == "failed":
            log.warning("analysis of game %s failed: %s", job.game_id, job.error)

    def shutdown(self) -> None:
        """Stop the running job's process and the queue."""
        if self._proc is not None and self._proc.is_alive():
            self._proc.kill()
        if self._runner is not None:
            self._runner.cancel()


def _recv(conn: Any) -> Any:
    try:
        return conn.recv()
    except (EOFError, OSError):
        return None


def install_analysis_routes(app: FastAPI, games: Any, authorized: Any, clients: ClientLimits,
                            client_of: Any) -> None:
    """``POST`` and ``GET /api/games/{id}/analysis`` on ``app``: ``authorized(game_id,
    request, token)`` checks the token as for the game's state; ``games()`` is the server;
    ``clients`` keeps the per-address rate of new analyses."""
    no_store = {"Cache-Control": "no-store"}

    def queue() -> AnalysisQueue:
        q: AnalysisQueue | None = getattr(app.state, "analysis", None)
        if q is None:
            server = games()

            async def write(game_id: str, result: dict[str, Any]) -> None:
                await server.db.write(server.store.set_analysis, game_id, result)

            q = app.state.analysis = AnalysisQueue(write)
        return q

    async def stored(game_id: str) -> dict[str, Any] | None:
        server = games()
        result: dict[str, Any] | None = await server.db.read(server.store.analysis, game_id)
        return result

    @app.post("/api/games/{game_id}/analysis", status_code=202)
    async def request_analysis(game_id: str, request: Request,
                               token: str | None = Query(None, max_length=200)) -> JSONResponse:
        """Ask for the computer analysis of a finished game (any token of the game)."""
        room, _name, _role, _pieces = await authorized(game_id, request, token)
        try:
            game = room.game
            if not game.is_over():
                raise HTTPException(409, "the game is not over: the computer analysis is for "
                                         "finished games")
            done = await stored(game_id)
            if done is not None:
                return JSONResponse({"status": "done", "result": done}, headers=no_store)
            if queue().status(game_id) is None:
                refuse_if_waiting(clients.event_wait("analysis", client_of(request),
                                                     ANALYSES_PER_MINUTE, 3),
                                  "too many analyses asked for from this address")
            try:
                state = queue().submit(game_id, game.rules.to_dict(), dict(game.start),
                                       [str(m) for _, m in game.moves])
            except OverflowError as exc:
                raise HTTPException(503, f"the analysis queue is full ({exc}); try again "
                                         "later", headers={"Retry-After": "30"}) from None
        finally:
            games().release(room)
        return JSONResponse(state, status_code=202, headers=no_store)

    @app.get("/api/games/{game_id}/analysis")
    async def get_analysis(game_id: str, request: Request,
                           token: str | None = Query(None, max_length=200)) -> JSONResponse:
        """The computer analysis of a game: ``{"status": "done", "result": ...}``, or its
        progress (``queued``/``running`` with ``done`` of ``total`` steps), or ``none``."""
        room, _name, _role, _pieces = await authorized(game_id, request, token)
        games().release(room)
        done = await stored(game_id)
        if done is not None:
            return JSONResponse({"status": "done", "result": done}, headers=no_store)
        state = queue().status(game_id)
        return JSONResponse(state or {"status": "none"}, headers=no_store)
