"""SQLite persistence of the web server's games: set-up, seats, token hashes, moves, commitments.

The truth of a game (Mr X's start, his moves, the commitment salts) is stored here because the
server must be able to rebuild every game after a restart; none of it leaves the server except
through the views and records the rooms hand out.

Durability: the database runs in WAL mode with ``synchronous=NORMAL``. Each move is one
transaction, committed before the move is acknowledged. In WAL mode a committed transaction is
in the log file the moment ``COMMIT`` returns, so a server process that is killed (SIGKILL,
crash) loses nothing it has acknowledged, and the database is never corrupted; only a power
loss or an OS crash can drop the last few moves (NORMAL syncs the log at checkpoints, not at
every commit). ``synchronous=FULL`` would add an fsync to every move, a disk round trip on the
event loop for every player of every game, to protect against a machine crash that costs at
most the last moves of a board game. Use ``Store(path, synchronous="FULL")`` where that trade
is wrong.

Concurrency: the server calls a store from two worker threads (never from the event loop): one
for writes, one for reads, each with its own connection, so a write lock held by another
process (a backup, the ``sqlite3`` shell) delays writes only, never the loop or the reads.
A server takes an exclusive lock on ``PATH.lock`` for as long as it runs: a second server on the
same database refuses to start (two servers would each think they own every game).

The interface (:class:`Store`'s public methods and the ``Stored*`` rows) is all the rest of the
server knows of the database; another backend (PostgreSQL) implements the same methods.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import sqlite3
import threading
from pathlib import Path

from .base import SqlStore, StoreError, StoreLocked


class Store(SqlStore):
    """The server's SQLite database: a write connection and a read connection (each used by
    one thread at a time), and the lock that keeps a second server away."""

    def __init__(self, path: str | Path, synchronous: str = "NORMAL", *,
                 exclusive: bool = False, busy_timeout: float = 5.0) -> None:
        """Open (and create or check) the database at ``path`` (``":memory:"`` for tests).
        ``exclusive``: take the server lock (raise :class:`StoreLocked` if another process
        holds it). A write waits ``busy_timeout`` seconds for another process's lock, then is
        refused (:class:`StoreBusy`)."""
        if synchronous not in ("NORMAL", "FULL"):
            raise ValueError("synchronous is NORMAL or FULL")
        self.path = str(path)
        self._lock_file: int | None = None
        if exclusive and self.path != ":memory:":
            self._take_lock()
        ms = int(busy_timeout * 1000)
        self._wlock: threading.Lock | threading.RLock = threading.Lock()
        self._group_thread: int | None = None  # the thread writing a group (Store.group)
        try:
            self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            self._db.execute(f"PRAGMA busy_timeout = {ms}")
            self._db.execute("PRAGMA journal_mode = WAL")
            self._db.execute(f"PRAGMA synchronous = {synchronous}")
            self._db.execute("PRAGMA foreign_keys = ON")
            self._migrate()
            if self.path == ":memory:":
                self._rdb = self._db
            else:
                self._rdb = sqlite3.connect(self.path, isolation_level=None,
                                            check_same_thread=False)
                self._rdb.execute(f"PRAGMA busy_timeout = {ms}")
        except sqlite3.Error as exc:
            self._release_lock()
            raise StoreError(f"{self.path} cannot be opened as a game database: {exc}") from exc
        self._rlock: threading.Lock | threading.RLock = (
            threading.Lock() if self._rdb is not self._db else self._wlock)

    def _take_lock(self) -> None:
        lock = self.path + ".lock"
        fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            try:
                owner = os.read(fd, 64).decode(errors="replace").strip() or "?"
            finally:
                os.close(fd)
            why = (f"another scotlandyard server (pid {owner}) is using {self.path} (it holds "
                   f"{lock}); stop it, or give this one another --db")
            raise StoreLocked(why) from None
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        self._lock_file = fd

    def _release_lock(self) -> None:
        if self._lock_file is not None:
            with contextlib.suppress(OSError):
                fcntl.flock(self._lock_file, fcntl.LOCK_UN)
                os.close(self._lock_file)
            self._lock_file = None

    def close(self) -> None:
        """Close the database (and give up the server lock)."""
        if self._rdb is not self._db:
            self._rdb.close()
        self._db.close()
        self._release_lock()

    # ---- writes ---------------------------------------------------------------------------
