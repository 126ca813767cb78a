"""PostgreSQL persistence of the web server's games, for many server processes on one database.

:class:`PgStore` runs the store's shared SQL (:class:`~.base.SqlStore`) on PostgreSQL: the same
tables, the same migrations (``base.MIGRATIONS``, column types translated), the same methods.
The store's SQL is written once, for SQLite; :class:`_PgConnection` runs it on psycopg 3
(``?`` placeholders, ``BEGIN IMMEDIATE``, ``INSERT OR IGNORE``, sqlite3's exception classes),
so a method added to ``SqlStore`` works on both databases.

What PostgreSQL adds, for several workers (processes, on one or several machines):

- a move is stored by exactly one worker: the ``(game_id, ply)`` key of ``moves`` decides, and
  the loser gets :class:`~scotlandyard.server.store.MoveConflict`;
- every change to a game (a move, a seat) sends ``NOTIFY scotlandyard_games`` with the game's
  id and the sending worker's id only, in the same transaction; :meth:`PgStore.listen` hands
  them to the server, which reloads the game from the database (hidden facts never travel in
  a notification);
- the AI seats of a game are played by the worker holding the game's session advisory lock
  (:meth:`PgStore.try_lock_game`): a worker that dies loses its connection and so its locks,
  and another worker takes the game over.

Durability: PostgreSQL's own (``synchronous_commit`` on by default: a committed move survives a
crash of the database machine too).
"""

from __future__ import annotations

import functools
import logging
import re
import secrets
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from .base import MoveConflict, SqlStore, StoredCommitment, StoredGame, StoreError, _statements

log = logging.getLogger("scotlandyard.server")

CHANNEL = "scotlandyard_games"
"""The ``LISTEN``/``NOTIFY`` channel of game changes (payload: ``"<game_id> <worker_id>"``, and
`` m<ply>`` after it for a move: public facts only, never a station or a move)."""
_MIGRATION_LOCK = 0x5C07_1A4D  # pg_advisory_lock key held while a worker migrates the schema
_LOCK_SPACE = 0x5C07  # first key of the two-key advisory locks of games (second: a hash of the id)
_CHAT_SPACE = 0x5C08  # the same, for numbering a game's chat messages (transaction locks)

try:  # the optional extra: pip install 'scotlandyard[pg]'
    import psycopg
    from psycopg import errors as pg_errors
except ImportError:  # pragma: no cover - the test command installs it
    psycopg = None  # type: ignore[assignment]
    pg_errors = None  # type: ignore[assignment]


def redact_url(url: str) -> str:
    """``url`` without its password (for logs and the health endpoint)."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.rsplit("@", 1)[1]
    user = parts.username or ""
    return urlunsplit(parts._replace(netloc=f"{user}:***@{netloc}"))


# ---- SQLite's dialect on PostgreSQL ----------------------------------------------------------
_TYPES = [
    (re.compile(r"\bINTEGER\s+PRIMARY\s+KEY(\s+AUTOINCREMENT)?\b", re.I), "BIGSERIAL PRIMARY KEY"),
    (re.compile(r"\bINTEGER\b", re.I), "BIGINT"),
    (re.compile(r"\bREAL\b", re.I), "DOUBLE PRECISION"),
    (re.compile(r"\bBLOB\b", re.I), "BYTEA"),
]
_INSERT_OR_IGNORE = re.compile(r"^\s*INSERT\s+OR\s+IGNORE\s+", re.I)
_DDL = re.compile(r"^\s*(CREATE\s+TABLE|ALTER\s+TABLE)\b", re.I)


def translate(sql: str, has_params: bool) -> str:
    """One SQLite statement as PostgreSQL runs it (placeholders, column types, conflicts)."""
    if _DDL.match(sql):
        for pattern, repl in _TYPES:
            sql = pattern.sub(repl, sql)
    if _INSERT_OR_IGNORE.match(sql):
        sql = _INSERT_OR_IGNORE.sub("INSERT ", sql).rstrip().rstrip(";") + " ON CONFLICT DO NOTHING"
    if re.match(r"^\s*BEGIN\s+(IMMEDIATE|EXCLUSIVE|DEFERRED)\b", sql, re.I):
        return "BEGIN"
    if has_params:
        sql = sql.replace("%", "%%").replace("?", "%s")
    return sql


class PgIntegrityError(sqlite3.IntegrityError):
    """A PostgreSQL integrity error (unique, foreign key, check), as sqlite3's class."""


class PgOperationalError(sqlite3.OperationalError):
    """A PostgreSQL connection or server error, as sqlite3's class."""


class PgDatabaseError(sqlite3.DatabaseError):
    """Any other PostgreSQL error, as sqlite3's class."""


def _as_sqlite_error(exc: Exception) -> sqlite3.Error:
    if isinstance(exc, psycopg.IntegrityError):
        return PgIntegrityError(str(exc))
    if isinstance(exc, psycopg.OperationalError | psycopg.InterfaceError):
        return PgOperationalError(str(exc))
    return PgDatabaseError(str(exc))


class _Cursor:
    """The part of ``sqlite3.Cursor`` the store uses, over rows psycopg has fetched."""

    def __init__(self, rows: list[tuple[Any, ...]], rowcount: int) -> None:
        self._rows = rows
        self.rowcount = rowcount

    def fetchone(self) -> tuple[Any, ...] | None:
        """The next row, or ``None``."""
        return self._rows.pop(0) if self._rows else None

    def fetchall(self) -> list[tuple[Any, ...]]:
        """The remaining rows."""
        rows, self._rows = self._rows, []
        return rows

    def __iter__(self) -> Iterator[tuple[Any, ...]]:
        return iter(self.fetchall())


class _PgConnection:
    """The part of ``sqlite3.Connection`` the store uses, on a psycopg connection in autocommit
    mode (transactions are the store's own ``BEGIN`` .. ``COMMIT``). Errors are raised as
    sqlite3's classes, so the store's ``except sqlite3.…`` clauses hold on both databases."""

    def __init__(self, connect: Callable[[], Any], lock: threading.RLock) -> None:
        self._connect = connect
        self.conn = connect()
        self._lock = lock
        self.in_transaction = False

    def _live(self) -> Any:
        """The connection, made again if it was lost between transactions (a database
        restart); a transaction that lost it fails (it is rolled back by the server)."""
        if (self.conn.closed or self.conn.broken) and not self.in_transaction:
            log.warning("the database connection was lost; connecting again")
            self.conn = self._connect()
        return self.conn

    def execute(self, sql: str, params: Sequence[Any] | None = None) -> _Cursor:
        """Run one statement; its rows are fetched at once."""
        text = translate(sql, params is not None)
        head = text.lstrip()[:8].upper()
        with self._lock:
            ending = head.startswith(("COMMIT", "ROLLBACK"))
            try:
                # COMMIT never goes to a new connection: that would "commit" nothing, silently
                conn = self.conn if ending else self._live()
                cur = conn.execute(text, tuple(params) if params is not None else None)
                if head.startswith("BEGIN"):
                    self.in_transaction = True
                rows = cur.fetchall() if cur.description is not None else []
                return _Cursor(rows, cur.rowcount)
            except psycopg.Error as exc:
                raise _as_sqlite_error(exc) from exc
            finally:
                if ending:
                    self.in_transaction = False

    def executemany(self, sql: str, seq: Iterable[Sequence[Any]]) -> _Cursor:
        """Run one statement for every parameter tuple."""
        rows = [tuple(p) for p in seq]
        with self._lock:
            if not rows:
                return _Cursor([], 0)
            try:
                with self._live().cursor() as cur:
                    cur.executemany(translate(sql, True), rows)
                    return _Cursor([], cur.rowcount)
            except psycopg.Error as exc:
                raise _as_sqlite_error(exc) from exc

    def executescript(self, script: str) -> None:
        """Run several statements (no parameters)."""
        for statement in _statements(script):
            self.execute(statement)

    def close(self) -> None:
        """Close the connection."""
        self.conn.close()


class _PgTransaction:
    """``BEGIN`` .. ``COMMIT`` (``ROLLBACK`` on an exception), holding the store's lock so that
    threads do not interleave statements; the game changes queued by the store are notified
    inside the transaction, so they are sent exactly when it commits."""

    def __init__(self, store: PgStore) -> None:
        self._store = store

    def __enter__(self) -> None:
        self._store._lock.acquire()
        try:
            self._store._db.execute("BEGIN")
        except BaseException:
            self._store._lock.release()
            raise

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        store = self._store
        try:
            if exc_type is None:
                for game_id, what in dict.fromkeys(store._changed):
                    store._db.execute("SELECT pg_notify(?, ?)", (CHANNEL, " ".join(
                        filter(None, (game_id, store.worker_id, what)))))
                store._db.execute("COMMIT")
            else:
                try:
                    store._db.execute("ROLLBACK")
                except sqlite3.Error:
                    pass  # the connection is gone: the transaction is void anyway
        finally:
            store._changed.clear()
            store._lock.release()


class PgStore(SqlStore):
    """The server's PostgreSQL database (``postgresql://user:password@host:port/dbname``).

    One connection for the store's statements (used from any thread, one statement or
    transaction at a time), one for advisory locks and one, in a thread, for ``LISTEN``.
    """

    shared = True

    def __init__(self, url: str, *, worker_id: str | None = None) -> None:
        """Connect to ``url``, create or migrate the schema (one worker at a time) and check
        its version."""
        if psycopg is None:
            raise StoreError("PostgreSQL needs psycopg 3: pip install 'scotlandyard[pg]'")
        self.url = url
        self.path = redact_url(url)
        self.worker_id = worker_id or secrets.token_hex(4)
        self._lock = threading.RLock()
        self._changed: list[tuple[str, str]] = []  # (game, what) to notify at the commit
        self._locks: Any = None
        self._locks_mutex = threading.Lock()
        self._held: set[str] = set()
        self._listener: threading.Thread | None = None
        self._stop = threading.Event()
        try:
            self._db = _PgConnection(self._connect, self._lock)
        except psycopg.Error as exc:
            raise StoreError(f"cannot connect to {self.path}: {exc}") from exc
        # the SQLite store's read connection and locks are this one connection and lock here
        # (PostgreSQL serves many workers at once; no file lock keeps a second one away)
        self._rdb = self._db
        self._wlock = self._rlock = self._lock
        self._lock_file = None
        self._migrate()

    def _connect(self) -> Any:
        return psycopg.connect(self.url, autocommit=True, connect_timeout=10,
                               application_name=f"scotlandyard-{self.worker_id}")

    def _migrate(self) -> None:
        # one worker at a time: concurrent CREATE TABLE IF NOT EXISTS can collide in PostgreSQL
        with self._lock:
            self._db.execute(f"SELECT pg_advisory_lock({_MIGRATION_LOCK})")
            try:
                super()._migrate()
            finally:
                self._db.execute(f"SELECT pg_advisory_unlock({_MIGRATION_LOCK})")

    def _tx(self) -> _PgTransaction:  # type: ignore[override]
        return _PgTransaction(self)

    def close(self) -> None:
        """Stop listening, give up the game locks and close the connections."""
        self._stop.set()
        if self._listener is not None:
            self._listener.join(timeout=5)
        with self._locks_mutex:
            if self._locks is not None:
                self._locks.close()
                self._locks = None
            self._held.clear()
        self._db.close()

    # ---- writes that other workers must hear of ------------------------------------------------
    def add_move(self, game_id: str, ply: int, piece: str, move: str,
                 commitments: Iterable[StoredCommitment] = (),
                 outcome: dict[str, Any] | None = None) -> None:
        """Commit one move as :meth:`Store.add_move` does, and notify the other workers. Two
        workers storing the same ply: one commits, the other gets :class:`MoveConflict`."""
        with self._lock:
            self._changed.append((game_id, f"m{ply}"))
            try:
                super().add_move(game_id, ply, piece, move, commitments, outcome)
            except PgIntegrityError as exc:
                if isinstance(exc.__cause__, pg_errors.UniqueViolation):
                    raise MoveConflict(f"game {game_id}: move {ply} was already made") from exc
                raise

    def add_chat(self, game_id: str, channel: str, author: str, text: str) -> tuple[int, float]:
        """Store one chat message as :meth:`Store.add_chat` does; its number is taken in the
        insert's transaction while holding the game's chat lock (a transaction advisory
        lock), so messages posted at once through several workers never get the same
        number, and numbers are committed in order. Notifies the other workers."""
        now = time.time()
        with self._lock:
            self._changing(game_id)
            try:
                with self._tx():
                    self._db.execute("SELECT pg_advisory_xact_lock(?, hashtext(?))",
                                     (_CHAT_SPACE, game_id))
                    row = self._db.execute("SELECT COALESCE(MAX(n), 0) + 1 FROM chat "
                                           "WHERE game_id = ?", (game_id,)).fetchone()
                    assert row is not None
                    self._db.execute("INSERT INTO chat(game_id, n, at, channel, author, text) "
                                     "VALUES (?, ?, ?, ?, ?, ?)",
                                     (game_id, row[0], now, channel, author, text))
            finally:
                self._changed.clear()
        return int(row[0]), now

    def load_game(self, game_id: str) -> StoredGame | None:
        """Everything stored about one game, as :meth:`Store.load_game`, read in one snapshot
        (a ``REPEATABLE READ`` transaction): its several queries see the same commits, so a
        move another worker commits meanwhile is seen with its commitments, or not at all."""
        with self._lock:
            if self._db.in_transaction:  # already inside one of the store's transactions
                return super().load_game(game_id)
            self._db.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
            try:
                return super().load_game(game_id)
            finally:
                try:
                    self._db.execute("COMMIT")
                except sqlite3.Error:
                    pass  # the connection is gone: nothing was written anyway

    def _changing(self, game_id: str) -> None:
        """Queue a notification of ``game_id`` for the next commit of this thread's
        transaction (the store's lock is held)."""
        self._changed.append((game_id, ""))

    # ---- LISTEN --------------------------------------------------------------------------------
    def listen(self, callback: Callable[[str | None, str, str], None]) -> None:
        """Call ``callback(game_id, worker, what)`` from a listener thread for every game
        another worker changed (``what`` empty) or announced something of, and
        ``callback(None, "", "")`` after the listening connection was lost and made again
        (changes may have been missed: reload everything)."""
        if self._listener is not None:
            raise RuntimeError("already listening")
        ready = threading.Event()
        self._listener = threading.Thread(target=self._listen, args=(callback, ready),
                                          name="pg-listen", daemon=True)
        self._listener.start()
        ready.wait(10)

    def _listen(self, callback: Callable[[str | None, str, str], None],
                ready: threading.Event) -> None:
        first = True
        while not self._stop.is_set():
            try:
                with self._connect() as conn:
                    conn.execute(f"LISTEN {CHANNEL}")
                    ready.set()
                    if not first:
                        callback(None, "", "")
                    first = False
                    while not self._stop.is_set():
                        for note in conn.notifies(timeout=0.5):
                            game_id, origin, what = (note.payload.split(" ", 2) + ["", ""])[:3]
                            if origin != self.worker_id:
                                callback(game_id, origin, what)
            except psycopg.Error as exc:
                if self._stop.is_set():
                    return
                log.warning("database listener lost its connection (%s); reconnecting",
                            type(exc).__name__)
                self._stop.wait(1.0)
            except Exception:  # a bug in the callback must not stop the listener
                log.exception("database listener callback failed")

    def announce(self, game_id: str, what: str) -> None:
        """Notify the other workers of ``what`` about ``game_id`` (public facts only: which
        seats have sockets on this worker)."""
        try:
            self._db.execute("SELECT pg_notify(?, ?)", (CHANNEL, f"{game_id} {self.worker_id} {what}"))
        except sqlite3.Error as exc:  # presence is a courtesy: never fail a connection for it
            log.warning("cannot announce to the other workers: %s", type(exc).__name__)

    def live_workers(self) -> set[str]:
        """The ids of the workers connected to the database now (their connections are named
        ``scotlandyard-<id>``; a killed worker's vanish with it)."""
        rows = self._db.execute("SELECT DISTINCT application_name FROM pg_stat_activity "
                                "WHERE application_name LIKE 'scotlandyard-%'").fetchall()
        return {str(r[0]).removeprefix("scotlandyard-") for r in rows}

    # ---- game locks (AI seats, clocks) ---------------------------------------------------------
    def _lock_conn(self) -> Any:
        if self._locks is None or self._locks.closed or self._locks.broken:
            if self._locks is not None and self._held:
                log.warning("lost the database connection holding %d game lock(s)",
                            len(self._held))
            self._held.clear()
            self._locks = self._connect()
        return self._locks

    def try_lock_game(self, game_id: str) -> bool:
        """Take ``game_id``'s session advisory lock (held until :meth:`unlock_game`, or until
        this worker's lock connection closes: a dead worker frees its games)."""
        with self._locks_mutex:
            if game_id in self._held:
                return True
            try:
                conn = self._lock_conn()
                row = conn.execute("SELECT pg_try_advisory_lock(%s, hashtext(%s))",
                                   (_LOCK_SPACE, game_id)).fetchone()
            except psycopg.Error as exc:
                log.warning("cannot take game lock: %s", type(exc).__name__)
                self._locks = None
                return False
            if row is not None and row[0]:
                self._held.add(game_id)
                return True
            return False

    def unlock_game(self, game_id: str) -> None:
        """Give up ``game_id``'s lock."""
        with self._locks_mutex:
            if game_id not in self._held:
                return
            self._held.discard(game_id)
            try:
                self._lock_conn().execute("SELECT pg_advisory_unlock(%s, hashtext(%s))",
                                          (_LOCK_SPACE, game_id))
            except psycopg.Error:
                self._locks = None

    def locked_games(self, check: bool = True) -> set[str]:
        """The games this worker holds the lock of (``check``: make sure the lock connection
        still lives; once it is lost, none)."""
        with self._locks_mutex:
            if check:
                try:
                    self._lock_conn().execute("SELECT 1")
                except psycopg.Error:
                    self._locks = None
                    self._held.clear()
            return set(self._held)


_GAME_WRITES = ("set_seat", "set_options", "add_token", "set_clock", "set_outcome", "undo_moves")
"""The store's writes of one game (first argument: its id) besides ``add_move`` and
``add_chat``: each notifies
the other workers when it commits. Names the store does not have are skipped."""


def _notifying(name: str) -> Callable[..., Any]:
    base = getattr(SqlStore, name)

    @functools.wraps(base)
    def method(self: PgStore, game_id: str, *args: Any, **kwargs: Any) -> Any:
        with self._lock:
            self._changing(game_id)
            try:
                return base(self, game_id, *args, **kwargs)
            finally:
                self._changed.clear()

    return method


for _name in _GAME_WRITES:
    if hasattr(SqlStore, _name):
        setattr(PgStore, _name, _notifying(_name))
