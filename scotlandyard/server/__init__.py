"""The web server: FastAPI + WebSocket + SQLite (``scotlandyard serve``).

The protocol is documented in ``docs/protocol.md``; :func:`create_app` builds the ASGI app,
:func:`serve` runs it with uvicorn. Importing this package is cheap: the web stack is loaded
when it is used (so the main CLI can register ``serve`` without loading FastAPI).
"""

from __future__ import annotations

from typing import Any

__all__ = ["create_app", "serve"]


def __getattr__(name: str) -> Any:
    if name == "create_app":
        from .app import create_app

        return create_app
    if name == "serve":
        from .cli import serve

        return serve
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
