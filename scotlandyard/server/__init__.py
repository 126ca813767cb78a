"""The web server: FastAPI + WebSocket + SQLite (``scotlandyard serve``).

The protocol is documented in ``docs/protocol.md``; :func:`create_app` builds the ASGI app,
:func:`serve` runs it with uvicorn.
"""

from .app import create_app
from .cli import serve

__all__ = ["create_app", "serve"]
