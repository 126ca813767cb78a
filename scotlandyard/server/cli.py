"""The ``serve`` command: run the web server with uvicorn.

The lead registers it in the main CLI as ``app.command("serve")(serve)``;
``python -m scotlandyard.server`` runs it on its own.
"""

from __future__ import annotations

import copy
import logging
import threading
from typing import Annotated, Any

import typer


def log_config() -> dict[str, Any]:
    """uvicorn's logging configuration with tokens redacted from every logged URL."""
    from uvicorn.config import LOGGING_CONFIG

    cfg = copy.deepcopy(LOGGING_CONFIG)
    cfg.setdefault("filters", {})["redact_tokens"] = {
        "()": "scotlandyard.server.app.RedactTokens"}
    for handler in cfg["handlers"].values():
        handler.setdefault("filters", []).append("redact_tokens")
    cfg["loggers"]["scotlandyard"] = {"handlers": ["default"], "level": "INFO",
                                      "propagate": False}
    return cfg


def _warm_up_ai() -> None:
    from ..kernel.fast import warm_up

    try:
        warm_up()
    except Exception as exc:  # the AI still works, only its first move is slower
        logging.getLogger("scotlandyard").warning("AI warm-up failed: %s", exc)


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
                                                 "so people can follow.", min=0.0)] = 0.6,
    ai_workers: Annotated[int, typer.Option(help="Worker processes in which AI seats think "
                                                 "(0: threads of the server process, enough "
                                                 "for the built-in agents, whose search runs "
                                                 "without the GIL).", min=0)] = 0,
) -> None:
    """Run the web app and game server (lobby, games, WebSocket protocol for bots).

    Games are kept in DB; a restarted server continues every game where it was.
    """
    import uvicorn

    from .app import create_app
    from .protocol import MAX_FRAME_BYTES

    app = create_app(db, ai_delay=ai_delay, ai_workers=ai_workers)
    # Compile (or load from cache) the MCTS kernel in the background, so that the first AI
    # seat to think does not wait for numba.
    threading.Thread(target=_warm_up_ai, name="ai-warm-up", daemon=True).start()
    from .store_pg import redact_url

    typer.echo(f"scotlandyard: http://{host}:{port}/  (database {redact_url(db)})")
    uvicorn.run(
        app, host=host, port=port, ws="websockets-sansio", log_config=log_config(),
        # frames over MAX_FRAME_BYTES get a "too_large" error; far larger ones close the socket
        ws_max_size=16 * MAX_FRAME_BYTES, ws_per_message_deflate=False,
        proxy_headers=False, server_header=False,
    )


def main() -> None:
    """Entry point of ``python -m scotlandyard.server``."""
    typer.run(serve)
