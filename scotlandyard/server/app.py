"""The FastAPI application: pages, REST API and the game WebSocket (``docs/protocol.md``).

>>> from scotlandyard.server.app import create_app
>>> app = create_app(":memory:", ai_delay=0)     # serve with uvicorn, or test with TestClient
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import logging
import re
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from functools import cache
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from fastapi import FastAPI, HTTPException, Query, Request, WebSocket
from fastapi.encoders import jsonable_encoder
from fastapi.exception_handlers import http_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from starlette.websockets import WebSocketDisconnect

from ..board import TRANSPORTS, london
from .analysis_jobs import install_analysis_routes
from .games import GameDamaged, GameServer, preset_catalogue
from .limits import ClientLimits, Limits, over_text, refuse_if_waiting, scaled
from .lobby import JoinError, join_game, list_lobby, open_public_games
from .protocol import (
    CreateGame,
    JoinRequest,
    ProtocolError,
    SyncMessage,
    error_frame,
    parse_client_message,
)
from .puzzle_routes import install_puzzle_routes
from .rooms import (
    X_ABSENT_SECONDS,
    Connection,
    Room,
    SetupError,
)
from .store import UNAVAILABLE, StoreError, open_store
from .tokens import Role, token_hash
from .tutorial_routes import install_tutorial_routes

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
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; "
    "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; "
    "form-action 'self'; frame-ancestors 'none'")
"""The pages load scripts, styles and images from this server only and run no inline code."""

DOCS_JS = "https://cdn.jsdelivr.net/npm/swagger-ui-dist@5/swagger-ui-bundle.js"
DOCS_CSS = "https://cdn.jsdelivr.net/npm/swagger-ui-dist@5/swagger-ui.css"
"""Swagger UI's script and style sheet, which ``/api/docs`` loads from FastAPI's CDN."""
_INLINE_SCRIPT = re.compile(r"<script>(.*?)</script>", re.DOTALL)


def docs_page(openapi_url: str, title: str) -> tuple[bytes, str]:
    """The body of ``/api/docs`` (FastAPI's Swagger UI page, with this server's icon) and the
    Content-Security-Policy of that page only: Swagger UI's script and style sheet from the
    CDN (those two files, nothing else there), its one inline script by its SHA-256, images
    from this server and ``data:`` (the style sheet's icons), requests to this server (the
    OpenAPI document, "Try it out"); nothing else, and no other page gets any of it."""
    from fastapi.openapi.docs import get_swagger_ui_html

    body = bytes(get_swagger_ui_html(openapi_url=openapi_url, title=title,
                                     swagger_js_url=DOCS_JS, swagger_css_url=DOCS_CSS,
                                     swagger_favicon_url="/static/img/favicon.svg").body)
    hashes = " ".join(
        "'sha256-" + base64.b64encode(hashlib.sha256(m.encode()).digest()).decode() + "'"
        for m in _INLINE_SCRIPT.findall(body.decode()))
    csp = (f"default-src 'none'; script-src {DOCS_JS} {hashes}; style-src {DOCS_CSS}; "
           "img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; "
           "form-action 'none'; frame-ancestors 'none'")
    return body, csp


class BodyLimit:
    """ASGI middleware: a request body over ``limit`` bytes is answered 413 before the app
    sees it (by its ``Content-Length``, or while it is read when it has none)."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        """Wrap ``app``; ``limit`` <= 0 turns the check off."""
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Read at most ``limit`` bytes of the body, then hand the request on."""
        if scope["type"] != "http" or self.limit <= 0:
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers") or ()).get(b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > self.limit):
            await self._refuse(send)
            return
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                break  # the client went away: let the app see it
            body = message.get("body", b"")
            size += len(body)
            if size > self.limit:
                await self._refuse(send)
                return
            chunks.append(body)
            if not message.get("more_body", False):
                break
        whole: Message = {"type": "http.request", "body": b"".join(chunks), "more_body": False}
        given = False

        async def replay() -> Message:
            nonlocal given
            if not given:
                given = True
                return whole
            return await receive()

        await self.app(scope, replay, send)

    async def _refuse(self, send: Send) -> None:
        response = JSONResponse({"detail": f"request body over {self.limit} bytes"},
                                status_code=413, headers={"Connection": "close"})
        await response({"type": "http"}, _nothing, send)


async def _nothing() -> Message:  # pragma: no cover - a JSONResponse never receives
    return {"type": "http.disconnect"}


def _client(conn: Request | WebSocket) -> str:
    """The client's address (the key of per-client limits)."""
    return conn.client.host if conn.client is not None else "unknown"


def damaged_text(exc: GameDamaged) -> str:
    """What a damaged game's players are told."""
    return f"this game's record is damaged: {exc}. It cannot be played on this server."


def origin_allowed(origin: str | None, host: str | None, allowed: tuple[str, ...]) -> bool:
    """Whether a WebSocket upgrade with this ``Origin`` may open a game socket: no Origin
    (a bot, not a browser), the server's own origin (the same host and port), or one listed."""
    if origin is None:
        return True
    if origin.rstrip("/").lower() in {a.rstrip("/").lower() for a in allowed}:
        return True
    try:
        netloc = urlsplit(origin).netloc.lower()
    except ValueError:
        return False
    return bool(netloc) and netloc == (host or "").lower()


@cache
def board_payload(name: str) -> bytes:
    """The body of ``GET /api/board`` (built once per board)."""
    b = london(name)
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


class SyncFlood(Exception):
    """A socket went on sending ``sync`` far over its budget (``Limits.sync_strikes``)."""




def create_app(db: str | Path = "scotlandyard.sqlite3", ai_delay: float = 0.6,
               static_dir: Path | None = None, ai_workers: int = 0,
               absent_timeout: float = X_ABSENT_SECONDS,
               limits: Limits | None = None, *, pace_mr_x: bool = True) -> FastAPI:
    """The web app over the database ``db`` (a SQLite file, or ``postgresql://...``). Games
    still being played are resumed at start-up (AI seats think again); AI seats wait
    ``ai_delay`` seconds before each move and think in ``ai_workers`` processes (0: threads);
    a seat without a connection for ``absent_timeout`` seconds may be handed to the AI by any
    other player. ``limits``: see :class:`Limits`.

    ``pace_mr_x=False`` is for tests only: an AI Mr X then replies as soon as he has thought
    (after ``ai_delay``), so his think time, which follows his hidden position, shows. Tests
    that play whole AI games use it to run fast; a server never does (``scotlandyard serve``
    has no such option)."""
    static = Path(static_dir) if static_dir is not None else STATIC_DIR
    holder: dict[str, GameServer] = {}
    lim = limits if limits is not None else Limits()
    clients = ClientLimits(lim)
    network = (f" (its IPv4 /24 or IPv6 /64, which together get {lim.per_prefix:g} times an "
               "address's budget)")

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        install_log_redaction()
        store = open_store(db, exclusive=True, busy_timeout=lim.db_wait)
        server = GameServer(store, ai_delay, ai_workers, absent_timeout, lim, clients=clients)
        server.pace_mr_x = pace_mr_x
        server.thinker.warm_up()
        holder["server"] = server
        app.state.games = server
        resumed = await server.resume()
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
            if getattr(app.state, "analysis", None) is not None:
                app.state.analysis.shutdown()
            server.shutdown()
            store.close()
            log.info("scotlandyard server stopped")

    app = FastAPI(title="scotlandyard", version="1", lifespan=lifespan,
                  docs_url=None, redoc_url=None, openapi_url="/api/openapi.json")

    def games() -> GameServer:
        return holder["server"]

    app.add_middleware(BodyLimit, limit=lim.body_bytes)
    if lim.allowed_hosts:
        app.add_middleware(TrustedHostMiddleware, allowed_hosts=list(lim.allowed_hosts))

    @app.middleware("http")
    async def security_headers(request: Request, call_next: Any) -> Response:
        response: Response = await call_next(request)
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("Referrer-Policy", "no-referrer")
        response.headers.setdefault("X-Frame-Options", "DENY")
        response.headers.setdefault("Content-Security-Policy", CONTENT_SECURITY_POLICY)
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
    def index(status_code: int = 200) -> Response:
        page = static / "index.html"
        if page.is_file():
            return FileResponse(page, status_code=status_code, media_type="text/html",
                                headers={"Cache-Control": "no-cache"})
        return HTMLResponse(_PLACEHOLDER, status_code=status_code)

    @app.exception_handler(StarletteHTTPException)
    async def not_found(request: Request, exc: StarletteHTTPException) -> Response:
        """A mistyped address in a browser gets the app's "Page not found" page (404, HTML);
        /api/* and /static/* keep their JSON answers."""
        path = request.url.path
        if exc.status_code == 404 and not path.startswith(("/api/", "/static/")) and path != "/api":
            return index(404)
        return await http_exception_handler(request, exc)

    @app.get("/", include_in_schema=False)
    async def lobby_page() -> Response:
        return index()

    @app.get("/game/{game_id}", include_in_schema=False)
    async def game_page(game_id: str) -> Response:
        return index()

    @app.get("/rules", include_in_schema=False)
    async def rules_page() -> Response:
        return index()

    @app.get("/tutorial", include_in_schema=False)
    @app.get("/tutorial/{lesson_id}", include_in_schema=False)
    async def tutorial_page(lesson_id: str = "") -> Response:
        return index()

    @app.get("/puzzles", include_in_schema=False)
    @app.get("/puzzles/{puzzle_id}", include_in_schema=False)
    async def puzzles_page(puzzle_id: str = "") -> Response:
        return index()

    app.mount("/static", _StaticFiles(directory=static, check_dir=False), name="static")

    docs_body, docs_csp = docs_page("/api/openapi.json", f"{app.title} - Swagger UI")

    @app.get("/api/docs", include_in_schema=False)
    async def api_docs() -> Response:
        """Swagger UI for the REST API, under a Content-Security-Policy of its own
        (:func:`docs_page`); every other response keeps :data:`CONTENT_SECURITY_POLICY`."""
        return Response(docs_body, media_type="text/html",
                        headers={"Content-Security-Policy": docs_csp, "Cache-Control": "no-cache"})

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
    async def create_game(body: CreateGame, request: Request) -> JSONResponse:
        """Create a game; answers its id, one token per seat, a spectator token and links."""
        client = _client(request)
        if body.public and lim.public_games_per_client:
            try:
                counts = await open_public_games(games(), client)
            except UNAVAILABLE as exc:
                raise HTTPException(503, f"the database is busy ({exc}); try again",
                                    headers={"Retry-After": "2"}) from None
            caps = (lim.public_games_per_client,
                    scaled(lim.public_games_per_client, lim.per_prefix))
            for what, n, cap in zip(("address", "network"), counts, caps, strict=True):
                if cap and n >= cap:
                    raise HTTPException(429, over_text(
                        what, lim.public_games_per_client, lim.per_prefix,
                        "open public games") + ": one leaves the lobby when its seats are "
                        f"taken, it ends, or nobody joined it for "
                        f"{lim.lobby_unjoined_seconds:g} s",
                        headers={"Retry-After": "60"})
        refuse_if_waiting(clients.create_wait(_client(request)), "too many new games from "
                           f"this address or its network{network}")
        try:
            out = await games().create(body, owner=_client(request))
        except SetupError as exc:
            raise HTTPException(422, str(exc)) from None
        except StoreError as exc:
            log.error("a new game was not saved: %s", exc)
            raise HTTPException(503, f"the game was not saved ({exc}); try again",
                                headers={"Retry-After": "2"}) from None
        if out["public"]:
            clients.owns(out["game_id"], client)
        return JSONResponse(out, status_code=201, headers=NO_STORE)

    @app.get("/api/lobby")
    async def lobby(request: Request) -> JSONResponse:
        """Public games that have an open seat (rules, seats, who is waiting; no tokens)."""
        refuse_if_waiting(clients.lobby_wait(_client(request)), "too many lobby requests from "
                           f"this address (at most {lim.lobby_per_minute:g} a minute) or its "
                           f"network{network}")
        try:
            body = await list_lobby(games())
        except UNAVAILABLE as exc:
            raise HTTPException(503, f"the database is busy ({exc}); try again",
                                headers={"Retry-After": "2"}) from None
        return JSONResponse(body, headers=NO_STORE)

    @app.post("/api/games/{game_id}/join", status_code=201)
    async def join(game_id: str, body: JoinRequest, request: Request) -> JSONResponse:
        """Take an open seat of a public game: its token and link (409 when taken)."""
        refuse_if_waiting(clients.join_wait(_client(request)), "too many seats taken from "
                           f"this address (at most {lim.joins_per_minute:g} a minute) or its "
                           f"network{network}")
        try:
            out = await join_game(games(), game_id, body.seat, body.side)
        except JoinError as exc:
            raise HTTPException(exc.status, exc.message) from None
        except GameDamaged as exc:
            raise HTTPException(409, damaged_text(exc)) from None
        except UNAVAILABLE as exc:
            raise HTTPException(503, f"the database is busy ({exc}); try again",
                                headers={"Retry-After": "2"}) from None
        return JSONResponse(out, status_code=201, headers=NO_STORE)

    install_puzzle_routes(app, games, clients, _client)
    install_tutorial_routes(app)

    async def authorized(game_id: str, request: Request, token: str | None) -> tuple[Room, str, Role, tuple[str, ...]]:
        header = request.headers.get("authorization", "")
        if header[:7].lower() == "bearer ":
            token = header[7:].strip()
        try:
            if not await games().exists(game_id):
                raise HTTPException(404, f"no game {game_id!r}")
            auth = await games().authenticate(game_id, token)
        except GameDamaged as exc:
            raise HTTPException(409, damaged_text(exc)) from None
        except UNAVAILABLE as exc:
            raise HTTPException(503, f"the database is busy ({exc}); try again",
                                headers={"Retry-After": "2"}) from None
        if auth is None:
            raise HTTPException(401, "a valid token for this game is needed (Authorization: "
                                     "Bearer TOKEN, or ?token=)",
                                headers={"WWW-Authenticate": "Bearer"})
        return auth

    install_analysis_routes(app, games, authorized, clients, _client)

    @app.get("/api/games/{game_id}/state")
    async def game_state(game_id: str, request: Request,
                         token: str | None = Query(None, max_length=200)) -> JSONResponse:
        """The same body as the WebSocket ``state`` message, plus role and pieces."""
        room, name, role, pieces = await authorized(game_id, request, token)
        body = room.state(room.view_key(role, pieces))
        last = await games().db.read(games().store.last_move_at, game_id)  # for "My games"
        body.update(role=role, pieces=list(pieces), token_name=name, game_id=game_id,
                    last_move_at=last)
        games().release(room)
        return JSONResponse(body, headers=NO_STORE)

    @app.get("/api/games/{game_id}/record")
    async def game_record(game_id: str, request: Request,
                          format: Literal["text", "json"] = "text",
                          token: str | None = Query(None, max_length=200)) -> Response:
        """The game record: public (Mr X's hidden stations removed) for the detectives'
        side and spectators while the game runs, full for Mr X and after the end."""
        room, name, role, pieces = await authorized(game_id, request, token)
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
        if not origin_allowed(websocket.headers.get("origin"), websocket.headers.get("host"),
                              lim.allowed_origins):
            log.warning("game socket refused: foreign origin %r",
                        websocket.headers.get("origin", "")[:100])
            await deny(websocket, 403, "game sockets are opened by this server's own pages "
                                       "(or by bots, which send no Origin)")
            return
        token = websocket.query_params.get("token")
        client, key = _client(websocket), token_hash(token or "")
        why = clients.open_socket(client, key)
        if why is not None:
            await deny(websocket, 429, why)
            return
        try:
            await _play(websocket, game_id, token)
        finally:
            clients.close_socket(client, key)

    async def deny(websocket: WebSocket, status: int, detail: str) -> None:
        try:
            await websocket.send_denial_response(JSONResponse({"detail": detail},
                                                              status_code=status))
        except RuntimeError:  # a server without the denial extension: a plain refusal (403)
            await websocket.close(1008)

    async def _play(websocket: WebSocket, game_id: str, token: str | None) -> None:
        await websocket.accept()
        try:
            auth = await games().authenticate(game_id, token)
        except GameDamaged as exc:
            await websocket.send_text(error_frame("damaged", damaged_text(exc)))
            await websocket.close(4500)
            return
        except UNAVAILABLE as exc:
            await websocket.send_text(error_frame("not_saved", f"the database is busy ({exc}); "
                                                               "connect again"))
            await websocket.close(1013)
            return
        if auth is None:
            why = ("this token does not open this game" if await games().exists(game_id)
                   else "no game with this id")
            await websocket.send_text(error_frame("bad_token", why))
            await websocket.close(4401)
            return
        room, name, role, pieces = auth
        conn = Connection(websocket.send_text, websocket.close, name, role, pieces,
                          send_timeout=lim.send_timeout, max_bytes=lim.queued_bytes,
                          client=_client(websocket), sync_rate=lim.sync_per_second,
                          sync_burst=lim.sync_burst)
        room.join(conn)
        reader = asyncio.create_task(_receive(websocket, room, conn))
        conn.on_evict = reader.cancel  # a socket that does not read is dropped (Limits)
        try:
            await reader
        except asyncio.CancelledError:
            if conn.evicted is None:
                reader.cancel()
                raise
            log.info("game %s: a %s socket was dropped: %s", game_id, role, conn.evicted)
        finally:
            room.leave(conn)
            conn.stop()

    sync_frames: dict[tuple[str, str], tuple[float, str]] = {}
    """The last ``state`` built for a sync, per (game, view), and when."""

    async def answer_sync(room: Room, conn: Connection, msg: SyncMessage) -> None:
        """A ``sync``: the newest ``state`` of the socket's view that is under
        ``Limits.sync_cached_seconds`` old and not older than the last one the socket was sent
        (every change of the game sends each socket a new one), else one built afresh: at
        most one build a view a game in that time, however many sockets sync. Over the
        socket's budget (``Limits.sync_per_second``) it is answered when the budget allows,
        and the socket is not read meanwhile (uvicorn stops reading a socket whose messages
        the app does not take): a flood of syncs is slowed to that pace at the sender."""
        if lim.sync_per_second > 0 and not conn.syncs.allow():
            if lim.sync_strikes and conn.syncs.strikes > lim.sync_strikes:
                raise SyncFlood
            while (wait := conn.syncs.wait()) > 0:
                await asyncio.sleep(wait)
            conn.syncs.take()
        now = time.monotonic()
        fresh = lim.sync_cached_seconds
        if conn.last_state is not None and now - conn.last_state_at <= fresh:
            conn.send(conn.last_state)
            return
        key = (room.id, room.view_key(conn.role, conn.pieces))
        built = sync_frames.get(key)
        if built is not None and now - built[0] <= fresh and built[0] >= conn.last_state_at:
            conn.send(built[1])
            return
        await room.handle(conn, msg)
        if conn.last_state is not None:
            if len(sync_frames) > 10_000:
                sync_frames.clear()
            sync_frames[key] = (conn.last_state_at, conn.last_state)

    async def _receive(websocket: WebSocket, room: Room, conn: Connection) -> None:
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
                    msg = parse_client_message(frame)
                    if isinstance(msg, SyncMessage):
                        try:
                            await answer_sync(room, conn, msg)
                        except SyncFlood:
                            conn.send(error_frame("rate_limited", "too many sync messages (at "
                                                  f"most {lim.sync_per_second:g} a second); "
                                                  "closing"))
                            await conn.drain()
                            await websocket.close(1008)
                            break
                    else:
                        await room.handle(conn, msg)
                except ProtocolError as exc:
                    conn.send(error_frame(exc.code, exc.message, exc.client_id))
        except (WebSocketDisconnect, RuntimeError):
            pass  # the client went away (RuntimeError: receive after a close)

    return app
