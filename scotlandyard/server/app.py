"""The FastAPI application: pages, REST API and the game WebSocket (``docs/protocol.md``).

>>> from scotlandyard.server.app import create_app
>>> app = create_app(":memory:", ai_delay=0)     # serve with uvicorn, or test with TestClient
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from functools import cache
from pathlib import Path
from typing import Any, Literal

from fastapi import FastAPI, HTTPException, Query, Request, WebSocket
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.websockets import WebSocketDisconnect

from ..board import TRANSPORTS, london
from .lobby import JoinError, join_game, list_lobby
from .protocol import CreateGame, JoinRequest, ProtocolError, error_frame, parse_client_message
from .rooms import X_ABSENT_SECONDS, Connection, GameServer, Room, SetupError, preset_catalogue
from .store import StoreError, open_store

STATIC_DIR = Path(__file__).parent / "static"
log = logging.getLogger("scotlandyard.server")
_TOKEN_IN_TEXT = re.compile(r"(token=)[^&\s\"']*", re.IGNORECASE)


class RedactTokens(logging.Filter):
    """Replace ``token=...`` in log records with ``token=REDACTED`` (uvicorn logs request
    paths with their query strings, and WebSocket and download URLs carry tokens there)."""

    def filter(self, record: logging.LogRecord) -> bool:
        """Redact the record in place; never drops it."""
        if isinstance(record.msg, str) and "token=" in record.msg.lower():
            record.msg = _TOKEN_IN_TEXT.sub(r"\1REDACTED", record.msg)
        if record.args:
            args = record.args if isinstance(record.args, tuple) else (record.args,)
            if any(isinstance(a, str) and "token=" in a.lower() for a in args):
                record.args = tuple(_TOKEN_IN_TEXT.sub(r"\1REDACTED", a) if isinstance(a, str)
                                    else a for a in args)
        return True


def install_log_redaction() -> None:
    """Put :class:`RedactTokens` on uvicorn's loggers (idempotent)."""
    for name in ("uvicorn.error", "uvicorn.access", "uvicorn"):
        logger = logging.getLogger(name)
        if not any(isinstance(f, RedactTokens) for f in logger.filters):
            logger.addFilter(RedactTokens())


class _StaticFiles(StaticFiles):
    """Static files that answer 404 (not 500) while the folder does not exist."""

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if self.directory is not None and not Path(self.directory).is_dir():
            response = JSONResponse({"detail": "no static files"}, status_code=404)
            await response(scope, receive, send)
            return
        await super().__call__(scope, receive, send)


_PLACEHOLDER = """<!doctype html><html lang="en"><meta charset="utf-8">
<title>Scotland Yard</title><body><h1>Scotland Yard</h1>
<p>The web app's files are not installed (scotlandyard/server/static/index.html). The server
and its API run: see docs/protocol.md.</p></body></html>"""

NO_STORE = {"Cache-Control": "no-store"}


@cache
def board_payload(name: str) -> bytes:
    """The body of ``GET /api/board`` (built once per board)."""
    b = london(name)  # type: ignore[arg-type]
    return json.dumps({
        "board": name,
        "stations": b.stations,
        "width": b.width,
        "height": b.height,
        "positions": {str(s): list(b.positions[s]) for s in range(1, b.stations + 1)},
        "edges": {t.label: [list(e) for e in b.edges[t]] for t in TRANSPORTS},
        "stop_types": {str(s): [t.label for t in TRANSPORTS if t in b.stop_types(s)]
                       for s in range(1, b.stations + 1)},
    }, separators=(",", ":")).encode()


def create_app(db: str | Path = "scotlandyard.sqlite3", ai_delay: float = 0.6,
               static_dir: Path | None = None, ai_workers: int = 0,
               absent_timeout: float = X_ABSENT_SECONDS) -> FastAPI:
    """The web app over the database ``db`` (a SQLite file, or ``postgresql://...``). Games still being played are resumed at
    start-up (AI seats think again); AI seats wait ``ai_delay`` seconds before each move and
    think in ``ai_workers`` processes (0: threads); a seat without a connection for
    ``absent_timeout`` seconds may be handed to the AI by any other player."""
    static = Path(static_dir) if static_dir is not None else STATIC_DIR
    holder: dict[str, GameServer] = {}

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        install_log_redaction()
        store = open_store(db)
        server = GameServer(store, ai_delay, ai_workers, absent_timeout)
        server.thinker.warm_up()
        holder["server"] = server
        app.state.games = server
        resumed = server.resume()
        cluster = None
        if store.shared:  # other workers on the same database: hear them, share AI seats
            from .cluster import Cluster

            cluster = Cluster(server)
            cluster.start()
        app.state.cluster = cluster
        app.state.draining = False
        log.info("scotlandyard server: database %s, %d game(s) resumed", store.path, resumed)
        try:
            yield
        finally:
            # drain: uvicorn has stopped accepting and closed the sockets (1012: clients
            # reconnect, to another worker behind a load balancer); stop the AI seats and give
            # their games back, so that another worker picks them up at once
            app.state.draining = True
            if cluster is not None:
                cluster.stop()
            server.shutdown()
            store.close()
            log.info("scotlandyard server stopped")

    app = FastAPI(title="scotlandyard", version="1", lifespan=lifespan,
                  docs_url="/api/docs", redoc_url=None, openapi_url="/api/openapi.json")

    def games() -> GameServer:
        return holder["server"]

    @app.middleware("http")
    async def security_headers(request: Request, call_next: Any) -> Response:
        response = await call_next(request)
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("Referrer-Policy", "no-referrer")
        response.headers.setdefault("X-Frame-Options", "DENY")
        return response

    @app.exception_handler(RequestValidationError)
    async def validation_error(request: Request, exc: RequestValidationError) -> JSONResponse:
        errors = jsonable_encoder(exc.errors(), exclude={"input", "ctx", "url"})
        parts = []
        for err in errors[:4]:
            where = ".".join(str(x) for x in err.get("loc", ()) if x not in ("body", "query"))
            parts.append(f"{where or 'body'}: {err.get('msg')}")
        return JSONResponse({"detail": "; ".join(parts) or "bad request", "errors": errors},
                            status_code=422)

    # ---- pages ----------------------------------------------------------------------------------
    def index() -> Response:
        page = static / "index.html"
        if page.is_file():
            return FileResponse(page, media_type="text/html", headers={"Cache-Control": "no-cache"})
        return HTMLResponse(_PLACEHOLDER)

    @app.get("/", include_in_schema=False)
    async def lobby_page() -> Response:
        return index()

    @app.get("/game/{game_id}", include_in_schema=False)
    async def game_page(game_id: str) -> Response:
        return index()

    @app.get("/rules", include_in_schema=False)
    async def rules_page() -> Response:
        return index()

    app.mount("/static", _StaticFiles(directory=static, check_dir=False), name="static")

    # ---- REST -----------------------------------------------------------------------------------
    @app.get("/api/board")
    async def board(board: Literal["classic", "2014"] = "classic") -> Response:
        """Stations, positions, lines and stop types of a board, for drawing."""
        return Response(board_payload(board), media_type="application/json",
                        headers={"Cache-Control": "public, max-age=3600"})

    @app.get("/api/health")
    async def health() -> JSONResponse:
        """For load balancers and monitoring: 200 while this worker serves (its database
        answers), 503 while it drains or its database is away."""
        from .cluster import health_report

        body = health_report(games(), app.state.cluster, app.state.draining)
        return JSONResponse(body, status_code=200 if body["status"] == "ok" else 503,
                            headers=NO_STORE)

    @app.get("/api/presets")
    async def presets() -> dict[str, Any]:
        """The rule presets and the AI levels/agents of this server."""
        return preset_catalogue()

    @app.post("/api/games", status_code=201)
    async def create_game(body: CreateGame) -> JSONResponse:
        """Create a game; answers its id, one token per seat, a spectator token and links."""
        try:
            out = games().create(body)
        except SetupError as exc:
            raise HTTPException(422, str(exc)) from None
        return JSONResponse(out, status_code=201, headers=NO_STORE)

    @app.get("/api/lobby")
    async def lobby() -> JSONResponse:
        """Public games that have an open seat (rules, seats, who is waiting; no tokens)."""
        return JSONResponse(list_lobby(games()), headers=NO_STORE)

    @app.post("/api/games/{game_id}/join", status_code=201)
    async def join(game_id: str, body: JoinRequest) -> JSONResponse:
        """Take an open seat of a public game: its token and link (409 when taken)."""
        try:
            out = join_game(games(), game_id, body.seat, body.side)
        except JoinError as exc:
            raise HTTPException(exc.status, exc.message) from None
        except StoreError as exc:
            log.error("game %s cannot be loaded: %s", game_id, exc)
            raise HTTPException(500, "this game's stored data is damaged") from None
        return JSONResponse(out, status_code=201, headers=NO_STORE)

    def authorized(game_id: str, request: Request, token: str | None) -> tuple[Room, str, str, tuple[str, ...]]:
        header = request.headers.get("authorization", "")
        if header[:7].lower() == "bearer ":
            token = header[7:].strip()
        if not games().exists(game_id):
            raise HTTPException(404, f"no game {game_id!r}")
        try:
            auth = games().authenticate(game_id, token)
        except StoreError as exc:
            log.error("game %s cannot be loaded: %s", game_id, exc)
            raise HTTPException(500, "this game's stored data is damaged") from None
        if auth is None:
            raise HTTPException(401, "a valid token for this game is needed (Authorization: "
                                     "Bearer TOKEN, or ?token=)",
                                headers={"WWW-Authenticate": "Bearer"})
        return auth

    @app.get("/api/games/{game_id}/state")
    async def game_state(game_id: str, request: Request,
                         token: str | None = Query(None, max_length=200)) -> JSONResponse:
        """The same body as the WebSocket ``state`` message, plus role and pieces."""
        room, name, role, pieces = authorized(game_id, request, token)
        body = room.state(room.view_key(role, pieces))
        body.update(role=role, pieces=list(pieces), token_name=name)
        games().release(room)
        return JSONResponse(body, headers=NO_STORE)

    @app.get("/api/games/{game_id}/record")
    async def game_record(game_id: str, request: Request,
                          format: Literal["text", "json"] = "text",
                          token: str | None = Query(None, max_length=200)) -> Response:
        """The game record: public (Mr X's hidden stations removed) for the detectives'
        side and spectators while the game runs, full for Mr X and after the end."""
        room, name, role, pieces = authorized(game_id, request, token)
        full = (room.over() or role == "mr_x"
                or (role == "hotseat" and room.seats["X"].kind == "human"))
        try:
            from ..record import Record
        except ImportError:  # the record module ships with the package; guard for partial builds
            raise HTTPException(503, "game records are not available in this build") from None
        players = {p: ("human" if s.kind == "human" else f"AI ({s.agent})")
                   for p, s in room.seats.items()}
        tags = room.chat.record_tags()
        if room.adjudication is not None:
            loser = "Mr X" if room.adjudication["winner"] == "detectives" else "the detectives"
            tags = {"Termination": f"{loser} ran out of time", **tags}
        record = Record.from_game(room.game, players=players,
                                  event=f"scotlandyard web game {game_id}", tags=tags)
        games().release(room)
        if not full:
            record = record.public()
        ext = "json" if format == "json" else "txt"
        text = record.to_json() if format == "json" else record.to_text()
        return Response(text, media_type="application/json" if format == "json" else "text/plain",
                        headers={**NO_STORE, "Content-Disposition":
                                 f'attachment; filename="scotlandyard-{game_id}.{ext}"'})

    # ---- WebSocket ------------------------------------------------------------------------------
    @app.websocket("/ws/{game_id}")
    async def play(websocket: WebSocket, game_id: str) -> None:
        """The game socket (``docs/protocol.md``)."""
        await websocket.accept()
        token = websocket.query_params.get("token")
        try:
            auth = games().authenticate(game_id, token)
        except StoreError as exc:
            log.error("game %s cannot be loaded: %s", game_id, exc)
            auth = None
        if auth is None:
            why = ("this token does not open this game" if games().exists(game_id)
                   else "no game with this id")
            await websocket.send_text(error_frame("bad_token", why))
            await websocket.close(4401)
            return
        room, name, role, pieces = auth
        conn = Connection(websocket.send_text, websocket.close, name, role, pieces)
        room.join(conn)
        try:
            while True:
                message = await websocket.receive()
                if message["type"] == "websocket.disconnect":
                    break
                if not conn.limit.allow():
                    if conn.limit.flooding:
                        await conn.drain()
                        await websocket.close(1008)
                        break
                    if conn.limit.refused == 1:
                        conn.send(error_frame("rate_limited", "too many messages; slow down"))
                    continue
                frame = message.get("text")
                if frame is None:
                    frame = message.get("bytes")
                try:
                    room.handle(conn, parse_client_message(frame))
                except ProtocolError as exc:
                    conn.send(error_frame(exc.code, exc.message, exc.client_id))
        except (WebSocketDisconnect, RuntimeError):
            pass  # the client went away (RuntimeError: receive after a close)
        finally:
            room.leave(conn)
            conn.stop()

    return app
