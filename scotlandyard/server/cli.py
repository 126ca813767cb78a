"""The ``serve`` command: run the web server with uvicorn.

The lead registers it in the main CLI as ``app.command("serve")(serve)``;
``python -m scotlandyard.server`` runs it on its own.
"""

from __future__ import annotations

import copy
import gc
import logging
from collections.abc import Callable
from dataclasses import replace
from enum import StrEnum
from typing import Annotated, Any

import typer


def log_config(fmt: str = "text") -> dict[str, Any]:
    """uvicorn's logging configuration with tokens redacted from every logged URL; ``fmt``
    ``json``: one JSON object a line (``logjson.py``)."""
    from uvicorn.config import LOGGING_CONFIG

    cfg = copy.deepcopy(LOGGING_CONFIG)
    if fmt == "json":
        for name in ("default", "access"):
            cfg["formatters"][name] = {"()": "scotlandyard.server.logjson.JsonFormatter"}
    cfg.setdefault("filters", {})["redact_tokens"] = {
        "()": "scotlandyard.server.app.RedactTokens"}
    for handler in cfg["handlers"].values():
        handler.setdefault("filters", []).append("redact_tokens")
    cfg["loggers"]["scotlandyard"] = {"handlers": ["default"], "level": "INFO",
                                      "propagate": False}
    return cfg


def lenient_websockets(release: Callable[[Any], None] | None = None) -> Any:
    """uvicorn's ``websockets-sansio`` protocol, except that a text frame that is not valid
    UTF-8 reaches the app (as text with the bad bytes escaped, see
    :func:`~scotlandyard.server.protocol.parse_client_message`) instead of logging a traceback
    and closing the socket: the client gets a clear ``bad_message`` error and may go on.
    ``release(transport)`` is called when the socket's connection is lost (the connection
    caps of :class:`~scotlandyard.server.edge.EdgeCounts`)."""
    from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

    class LenientSansIO(WebSocketsSansIOProtocol):
        def connection_lost(self, exc: Exception | None) -> None:
            if release is not None:
                release(self.transport)
            super().connection_lost(exc)

        def send_receive_event_to_app(self) -> None:
            if self.curr_msg_data_type == "text" and not self.close_sent:
                data = b"".join(self.frames)
                try:
                    data.decode()
                except UnicodeDecodeError:
                    self.frames = []
                    self.queue.put_nowait({"type": "websocket.receive",
                                           "text": data.decode("utf-8", "surrogateescape")})
                    if not self.read_paused:
                        self.read_paused = True
                        self.transport.pause_reading()
                    return
            super().send_receive_event_to_app()

    return LenientSansIO


class LogFormat(StrEnum):
    """How the server writes its log."""

    text = "text"
    json = "json"


def _warm_up_ai() -> None:
    from ..warmup import AI_STEPS, warm_up

    try:
        warm_up(AI_STEPS)
    except Exception as exc:  # the AI still works, only its first move is slower
        logging.getLogger("scotlandyard").warning("AI warm-up failed: %s", exc)
    _freeze_long_lived()


def _freeze_long_lived() -> None:
    """Move every object alive now (modules, the boards' and the AI's tables) out of the cyclic
    garbage collector's way: they live as long as the process, and a full collection, a pause
    for every socket, then walks only the games' objects (half of them at 300 games). Called
    before the games load and again after the AI warm-up (a game alive then is frozen too: its
    cyclic parts are not collected when it leaves memory, once, a few hundred objects each)."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


GC_THRESHOLDS = (700, 3, 3300)
"""The collector's thresholds in the server: the youngest generation as Python's default, the
middle one collected after 3 young collections instead of 10 (it then holds about a third as
many survivors: pauses of about 3-4 ms instead of 9-11 ms at 400-500 games, for the same
collector CPU), and full collections after 3,300 middle ones, so as rare as with (700, 10,
1000): 100 times rarer than the default. A full collection walks every game in memory,
100-250 ms at 300 games on this project's 2-core test machine: at the default pace (every few
seconds under load) it alone put the p99 move latency over 100 ms. What it collects is cyclic
garbage that outlived the young collections (closed sockets' tasks), a small part of the memory;
games are freed by reference counting when they leave memory."""


def serve(
    host: Annotated[str, typer.Option(help="Interface to listen on (127.0.0.1: this machine "
                                           "only; 0.0.0.0: every interface).")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="TCP port.", min=1, max=65535)] = 8000,
    db: Annotated[str, typer.Option(help="Database of the games: a SQLite file (created if "
                                         "missing), or postgresql://user:pass@host/dbname for "
                                         "many server processes on one database (pip install "
                                         "'scotlandyard[pg]'; docs/deploy.md).")
                  ] = "scotlandyard.sqlite3",
    ai_delay: Annotated[float, typer.Option(help="Seconds an AI seat waits before each move, "
                                                 "so people can follow (an AI Mr X replies at "
                                                 "his agent's fixed pace, at least this, "
                                                 "whatever it is).", min=0.0)] = 0.6,
    ai_workers: Annotated[int, typer.Option(help="Worker processes in which AI seats think "
                                                 "(0: threads of the server process, enough "
                                                 "for the built-in agents, whose search runs "
                                                 "without the GIL).", min=0)] = 0,
    log_format: Annotated[LogFormat, typer.Option(
        help="text, or json: one JSON object a line (tokens are redacted either way).")
    ] = LogFormat.text,
    graceful_timeout: Annotated[float, typer.Option(
        help="On SIGTERM: seconds to wait for requests in flight before stopping (sockets "
             "are closed at once with 1012, so clients reconnect to another worker).",
        min=0.0)] = 10.0,
    trusted_proxy: Annotated[str, typer.Option(
        help="Address(es) or networks of a reverse proxy (nginx) whose X-Forwarded-For names "
             "the client (comma-separated, e.g. 127.0.0.1 or 10.0.0.0/24; empty: trust none). "
             "Per-client limits then see real clients; the X-Forwarded-For of any other "
             "address is ignored, and the proxy's own connections are not capped "
             "(docs/deploy.md).")
    ] = "",
    agent_module: Annotated[list[str] | None, typer.Option(
        "--agent-module", help="A trained policy to offer as an AI seat, as module:attribute "
                               "(a callable obs, mask -> action, an SB3 model, or an agent; "
                               "docs/env.md). Repeatable. Seats name it by that text.")] = None,
    absent_timeout: Annotated[float, typer.Option(help="Seconds a seat must be without any "
                                                       "connection before any other player "
                                                       "(of either side) may hand it to the "
                                                       "AI.", min=0.0)] = 60.0,
    allowed_host: Annotated[list[str] | None, typer.Option(
        help="Answer only requests for this Host (repeat for more; default: any). Set it when "
             "the server is reachable under a name, against DNS rebinding.")] = None,
    allowed_origin: Annotated[list[str] | None, typer.Option(
        help="Another origin (https://example.org) whose pages may open game sockets; the "
             "server's own pages and bots always may.")] = None,
    takebacks: Annotated[int, typer.Option(
        help="Takebacks each side of a game may make (0: none).", min=0)] = 3,
    no_limits: Annotated[bool, typer.Option(
        "--no-limits", help="Turn off the per-client limits (load tests from one address "
                            "only).")] = False,
) -> None:
    """Run the web app and game server (lobby, games, WebSocket protocol for bots).

    Games are kept in DB; a restarted server continues every game where it was.
    """
    import uvicorn

    from .app import create_app
    from .limits import Limits
    from .protocol import MAX_FRAME_BYTES

    for spec in agent_module or []:
        from ..ai import register_policy
        from ..env.policy import PolicyError

        try:
            register_policy(spec)
        except (PolicyError, ModuleNotFoundError) as exc:
            typer.echo(f"error: --agent-module {spec}: {exc}", err=True)
            raise typer.Exit(2) from None
    limits = Limits(allowed_hosts=tuple(allowed_host or ()),
                    allowed_origins=tuple(allowed_origin or ()), takebacks=takebacks)
    if no_limits:
        limits = replace(limits, games_per_minute=0, lobby_per_minute=0, joins_per_minute=0,
                         sockets_per_client=0, sockets_per_token=0, connections_per_client=0,
                         public_games_per_client=0, lobby_rows_per_client=0,
                         computer_games=0)
    from .edge import EdgeCounts, guarded_h11, raise_file_limit

    try:
        edge = EdgeCounts(limits, trusted_proxy)
    except ValueError as exc:
        typer.echo(f"error: --trusted-proxy: {exc}", err=True)
        raise typer.Exit(2) from None
    from .store import Store, StoreError

    try:  # say why at once, before uvicorn starts (the app takes the lock again at start-up)
        if not db.startswith(("postgresql://", "postgres://")):  # PostgreSQL serves many
            Store(db.removeprefix("sqlite:///"), exclusive=True).close()
    except StoreError as exc:
        typer.echo(f"scotlandyard serve: {exc}", err=True)
        raise typer.Exit(1) from None
    app = create_app(db, ai_delay=ai_delay, ai_workers=ai_workers, limits=limits,
                     absent_timeout=absent_timeout)
    _freeze_long_lived()
    # Compile (or load from cache) the MCTS kernel in the background, so that the first AI
    # seat to think does not wait for numba: until it is ready the AI searches on the
    # pure-Python kernel at a budget that answers in its usual time (ai.mcts.while_compiling).
    from ..kernel.fast import compile_in_background

    compile_in_background(_warm_up_ai, name="ai-warm-up")
    from .store.postgres import redact_url

    files = raise_file_limit()
    if log_format is LogFormat.text:
        typer.echo(f"scotlandyard: http://{host}:{port}/  (database {redact_url(db)}; "
                   f"open-file limit {files[1]})")
    uvicorn.run(
        app, host=host, port=port, ws=lenient_websockets(edge.release),
        # h11, never httptools (which uvicorn[standard] installs): header block and count
        # capped, a request must arrive within Limits.request_seconds (edge.py)
        http=guarded_h11(limits, edge), h11_max_incomplete_event_size=limits.header_bytes,
        log_config=log_config(log_format.value),
        # frames over MAX_FRAME_BYTES get a "too_large" error; far larger ones close the socket
        ws_max_size=16 * MAX_FRAME_BYTES, ws_per_message_deflate=False,
        proxy_headers=bool(trusted_proxy), forwarded_allow_ips=trusted_proxy or None,
        server_header=False, timeout_graceful_shutdown=round(graceful_timeout),
    )


def main() -> None:
    """Entry point of ``python -m scotlandyard.server``."""
    typer.run(serve)
