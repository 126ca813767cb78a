"""The web server's database: the interface (:class:`GameStore`), the two backends (SQLite,
:class:`Store`, and PostgreSQL, :class:`~.postgres.PgStore`), and the write thread.

``open_store(url)`` picks the backend. The names the server and the tests use are here.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .base import (
    MIGRATIONS,
    SCHEMA_VERSION,
    UNAVAILABLE,
    GameStore,
    LobbyRow,
    MoveConflict,
    SqlStore,
    StoreBusy,
    StoredCommitment,
    StoredGame,
    StoredSeat,
    StoreError,
    StoreLocked,
)
from .sqlite import Store
from .writer import GROUP_MAX, AsyncStore

__all__ = ["GROUP_MAX", "MIGRATIONS", "SCHEMA_VERSION", "UNAVAILABLE", "AsyncStore", "GameStore",
           "LobbyRow", "MoveConflict", "SqlStore", "Store", "StoreBusy", "StoreError",
           "StoreLocked", "StoredCommitment", "StoredGame", "StoredSeat", "open_store"]


def open_store(url: str | Path, **sqlite_options: Any) -> GameStore:
    """The store at ``url``: ``postgresql://...`` (or ``postgres://``) is a PostgreSQL database
    (``pip install 'scotlandyard[pg]'``), anything else a SQLite file (``sqlite:///path`` or a
    plain path; ``:memory:`` for tests). ``sqlite_options`` go to :class:`Store` (``exclusive``,
    ``busy_timeout``, ``synchronous``); PostgreSQL serves many processes and takes no lock."""
    text = str(url)
    if text.startswith(("postgresql://", "postgres://")):
        from .postgres import PgStore

        return PgStore(text)
    if text.startswith("sqlite:///"):
        text = text[len("sqlite:///"):]
    return Store(text, **sqlite_options)
