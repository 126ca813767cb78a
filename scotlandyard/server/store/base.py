"""The store's interface and what its two backends share (``docs/webapp.md``, "Storage").

:class:`GameStore` is all the rest of the server knows of its database; :class:`SqlStore` holds
the SQL both backends run (written once, for SQLite), the schema and its migrations, the rows
(``Stored*``) and the errors. The backends are one module each, neither importing the other:
:mod:`.sqlite` (an embedded file, one server) and :mod:`.postgres` (many workers).
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

T = TypeVar("T")

_META = "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id TEXT PRIMARY KEY,
    created REAL NOT NULL,
    updated REAL NOT NULL,
    preset TEXT NOT NULL,
    rules TEXT NOT NULL,          -- Rules.to_dict() as JSON
    start TEXT NOT NULL,          -- every piece's start station (the truth) as JSON
    seed INTEGER,
    hotseat INTEGER NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('playing', 'over')),
    outcome TEXT                  -- {"winner", "reason", "round", "piece"} once over
);
CREATE TABLE IF NOT EXISTS seats (
    game_id TEXT NOT NULL REFERENCES games(id),
    piece TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('human', 'ai')),
    agent TEXT,
    note TEXT,
    PRIMARY KEY (game_id, piece)
);
CREATE TABLE IF NOT EXISTS tokens (
    hash TEXT PRIMARY KEY,        -- sha256 hex of the token; the token itself is never stored
    game_id TEXT NOT NULL REFERENCES games(id),
    name TEXT NOT NULL            -- X, detectives, D1.., P1.., spectator, all
);
CREATE TABLE IF NOT EXISTS moves (
    game_id TEXT NOT NULL REFERENCES games(id),
    ply INTEGER NOT NULL,         -- 1 for the first move
    piece TEXT NOT NULL,
    move TEXT NOT NULL,           -- notation, as pushed
    at REAL NOT NULL,
    PRIMARY KEY (game_id, ply)
);
CREATE TABLE IF NOT EXISTS commitments (
    game_id TEXT NOT NULL REFERENCES games(id),
    slot INTEGER NOT NULL,
    station INTEGER NOT NULL,
    salt TEXT NOT NULL,
    hash TEXT NOT NULL,
    PRIMARY KEY (game_id, slot)
);
CREATE INDEX IF NOT EXISTS games_status ON games(status);
"""

_SCHEMA_2 = """
CREATE TABLE IF NOT EXISTS game_options (
    game_id TEXT PRIMARY KEY REFERENCES games(id),
    public INTEGER NOT NULL DEFAULT 0,
    options TEXT NOT NULL DEFAULT '{}'  -- JSON: clock set-up, rematch link, chat agreements
);
CREATE INDEX IF NOT EXISTS game_options_public ON game_options(public);
CREATE TABLE IF NOT EXISTS clocks (
    game_id TEXT PRIMARY KEY REFERENCES games(id),
    state TEXT NOT NULL           -- JSON: each side's time left, as of the last move
);
CREATE TABLE IF NOT EXISTS chat (
    game_id TEXT NOT NULL REFERENCES games(id),
    n INTEGER NOT NULL,           -- 1 for the first message of the game
    at REAL NOT NULL,
    channel TEXT NOT NULL CHECK (channel IN ('table', 'team')),
    author TEXT NOT NULL,         -- the token name (X, detectives, D1..)
    text TEXT NOT NULL,
    PRIMARY KEY (game_id, n)
);
"""
"""Version 2: public games and game options, clocks, chat (``docs/protocol.md``). Only new
tables: a game stored under version 1 has no ``game_options`` row and is private, without a
clock."""

_SCHEMA_3 = """
CREATE TABLE IF NOT EXISTS puzzle_ratings (
    puzzle_id TEXT PRIMARY KEY,   -- an id of the package's puzzle file
    rating REAL NOT NULL,         -- Glicko-2: rating, deviation, volatility
    rd REAL NOT NULL,
    vol REAL NOT NULL,
    attempts INTEGER NOT NULL,    -- first attempts by rated players
    solved INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS puzzle_players (
    hash TEXT PRIMARY KEY,        -- sha256 hex of the player's token (never the token)
    created REAL NOT NULL,
    rating REAL NOT NULL,
    rd REAL NOT NULL,
    vol REAL NOT NULL,
    attempts INTEGER NOT NULL,
    solved INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS puzzle_attempts (
    player TEXT NOT NULL REFERENCES puzzle_players(hash),
    puzzle_id TEXT NOT NULL,
    solved INTEGER NOT NULL,
    at REAL NOT NULL,
    PRIMARY KEY (player, puzzle_id)
);
CREATE TABLE IF NOT EXISTS analyses (
    game_id TEXT PRIMARY KEY REFERENCES games(id),
    at REAL NOT NULL,
    result TEXT NOT NULL          -- JSON: the computer analysis of a finished game
);
"""
"""Version 3: puzzle ratings (``docs/webapp.md``, "Puzzles"): each puzzle's and each player's
Glicko-2 rating, and each player's first attempt at a puzzle (only that one is rated); the
computer analysis of finished games (``analyses``)."""

MIGRATIONS: tuple[str, ...] = (_SCHEMA, _SCHEMA_2, _SCHEMA_3)
"""The schema's history: ``MIGRATIONS[v - 1]`` takes a database from version ``v - 1`` to ``v``.
A change to the schema is a new script appended here (never an edit of an old one). The SQL is
written once, for SQLite; the PostgreSQL store (``store_pg.py``) runs the same scripts with the
column types translated (REAL -> DOUBLE PRECISION, INTEGER -> BIGINT, ...)."""
SCHEMA_VERSION = len(MIGRATIONS)


def _statements(script: str) -> list[str]:
    """The statements of an SQL script (split at the ``;`` that end one, not those in comments
    or literals)."""
    out: list[str] = []
    buf = ""
    for piece in script.split(";"):
        buf += piece + ";"
        if sqlite3.complete_statement(buf):
            if buf.strip(" \n\t;"):
                out.append(buf.strip().rstrip(";"))
            buf = ""
    if buf.strip(" \n\t;"):
        out.append(buf.strip().rstrip(";"))
    return out


class StoreError(RuntimeError):
    """The database cannot be used (newer schema, corrupt rows)."""


class MoveConflict(StoreError):
    """Another move was stored first at this ply (another server process on the same database
    accepted one): the (game, ply) key decides, and this one is not taken."""


class StoreBusy(StoreError):
    """A write was refused (the database is locked by another process, or full); nothing of it
    was stored."""


class StoreLocked(StoreError):
    """Another server already uses this database."""


UNAVAILABLE: tuple[type[Exception], ...] = (StoreBusy, sqlite3.OperationalError)
"""What a store raises when the database cannot be used just now (locked, gone, full): the
request failed and changed nothing, the game is fine (PostgreSQL's errors are raised as
sqlite3's classes too, see ``store_pg``)."""


@dataclass(frozen=True)
class StoredSeat:
    """A seat row."""

    piece: str
    kind: str
    agent: str | None
    note: str | None


@dataclass(frozen=True)
class StoredCommitment:
    """A commitment row: the slot's true station, its salt and the published hash."""

    slot: int
    station: int
    salt: str
    hash: str


@dataclass(frozen=True)
class StoredGame:
    """Everything needed to rebuild one game."""

    id: str
    created: float
    preset: str
    rules: dict[str, Any]
    start: dict[str, int]
    seed: int | None
    hotseat: bool
    status: str
    seats: dict[str, StoredSeat]
    moves: list[tuple[int, str, str]]  # (ply, piece, notation)
    commitments: list[StoredCommitment]


@dataclass(frozen=True)
class LobbyRow:
    """What the lobby needs of one stored public game (public facts only)."""

    id: str
    created: float
    preset: str
    rules: dict[str, Any]
    options: dict[str, Any]
    moves: int
    seats: dict[str, StoredSeat]
    token_names: list[str]


class SqlStore:
    """The methods both backends share: the store's SQL, written once for SQLite (the
    PostgreSQL backend runs it through a connection that translates it). A backend sets
    ``path``, ``_db`` (the write connection), ``_rdb`` (the read one), ``_wlock``/``_rlock``
    (their thread locks), ``_group_thread`` and ``shared``, and may override ``_tx``."""

    path: str
    shared: bool = False
    _db: Any
    _rdb: Any
    _wlock: threading.Lock | threading.RLock
    _rlock: threading.Lock | threading.RLock
    _group_thread: int | None = None

    def close(self) -> None:
        """Close the database (each backend its own way)."""
        raise NotImplementedError

    def _migrate(self) -> None:
        """Bring the schema to :data:`SCHEMA_VERSION` in one transaction (each missing script of
        :data:`MIGRATIONS`, in order); a database with a newer schema is refused untouched."""
        with self._tx():
            self._db.execute(_META)
            row = self._db.execute(
                "SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
            version = 0 if row is None else int(row[0])
            if version > SCHEMA_VERSION:
                raise StoreError(f"{self.path} has schema version {version}; this server knows "
                                 f"version {SCHEMA_VERSION} (upgrade scotlandyard)")
            for script in MIGRATIONS[version:]:
                for statement in _statements(script):
                    self._db.execute(statement)
            if version < SCHEMA_VERSION:
                self._db.execute("DELETE FROM meta WHERE key = 'schema_version'")
                self._db.execute("INSERT INTO meta(key, value) VALUES ('schema_version', ?)",
                                 (str(SCHEMA_VERSION),))

    def _tx(self) -> _Transaction | _Savepoint:
        if self._group_thread == threading.get_ident():
            return _Savepoint(self._db)
        return _Transaction(self._db, self._wlock)

    @contextlib.contextmanager
    def group(self) -> Iterator[None]:
        """One transaction for several writes made in it by this thread (each write's own
        transaction becomes a savepoint): :class:`AsyncStore` commits the writes that queued
        up together, one ``COMMIT`` for all. Raises :class:`StoreBusy` if ``BEGIN`` or
        ``COMMIT`` is refused (then none of the writes is stored)."""
        with _Transaction(self._db, self._wlock):
            self._group_thread = threading.get_ident()
            try:
                yield
            finally:
                self._group_thread = None

    @contextlib.contextmanager
    def _read(self) -> Iterator[sqlite3.Connection]:
        with self._rlock:
            yield self._rdb

    @property
    def schema_version(self) -> int:
        """The schema version written in the ``meta`` table."""
        row = self._db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        return int(row[0])

    def create_game(self, game_id: str, *, preset: str, rules: dict[str, Any],
                    start: dict[str, int], seed: int | None, hotseat: bool,
                    seats: Iterable[StoredSeat], token_hashes: dict[str, str],
                    public: bool = False, options: dict[str, Any] | None = None,
                    commitments: Iterable[StoredCommitment] = ()) -> None:
        """Store a new game with its seats and token hashes (name -> sha256 hex), whether the
        lobby lists it, its options (clock set-up, ...) and the commitments made before any
        move (the seal of Mr X's start, log slot 0)."""
        now = time.time()
        with self._tx():
            self._db.execute(
                "INSERT INTO games(id, created, updated, preset, rules, start, seed, hotseat, status)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'playing')",
                (game_id, now, now, preset, json.dumps(rules), json.dumps(start), seed,
                 int(hotseat)))
            self._db.executemany(
                "INSERT INTO seats(game_id, piece, kind, agent, note) VALUES (?, ?, ?, ?, ?)",
                [(game_id, s.piece, s.kind, s.agent, s.note) for s in seats])
            self._db.executemany(
                "INSERT INTO tokens(hash, game_id, name) VALUES (?, ?, ?)",
                [(h, game_id, name) for name, h in token_hashes.items()])
            self._db.execute("INSERT INTO game_options(game_id, public, options) VALUES (?, ?, ?)",
                             (game_id, int(public), json.dumps(options or {})))
            self._add_commitments(game_id, commitments)

    def _add_commitments(self, game_id: str, commitments: Iterable[StoredCommitment]) -> None:
        self._db.executemany(
            "INSERT INTO commitments(game_id, slot, station, salt, hash) VALUES (?, ?, ?, ?, ?)",
            [(game_id, c.slot, c.station, c.salt, c.hash) for c in commitments])

    def add_move(self, game_id: str, ply: int, piece: str, move: str,
                 commitments: Iterable[StoredCommitment] = (),
                 outcome: dict[str, Any] | None = None) -> None:
        """Commit one accepted move (and the commitments of the log slots it filled, and the
        outcome if it ended the game) in one transaction."""
        now = time.time()
        with self._tx():
            taken = self._db.execute("SELECT 1 FROM moves WHERE game_id = ? AND ply = ?",
                                     (game_id, ply)).fetchone()
            if taken is not None:
                raise MoveConflict(f"game {game_id}: move {ply} was already made")
            self._db.execute("INSERT INTO moves(game_id, ply, piece, move, at) VALUES (?, ?, ?, ?, ?)",
                             (game_id, ply, piece, move, now))
            self._add_commitments(game_id, commitments)
            if outcome is not None:
                self._db.execute("UPDATE games SET status = 'over', outcome = ?, updated = ? "
                                 "WHERE id = ?", (json.dumps(outcome), now, game_id))
            else:
                self._db.execute("UPDATE games SET updated = ? WHERE id = ?", (now, game_id))

    def set_seat(self, game_id: str, seat: StoredSeat) -> None:
        """Change a seat (takeover, reclaim)."""
        with self._tx():
            cur = self._db.execute("UPDATE seats SET kind = ?, agent = ?, note = ? "
                                   "WHERE game_id = ? AND piece = ?",
                                   (seat.kind, seat.agent, seat.note, game_id, seat.piece))
            if cur.rowcount != 1:
                raise StoreError(f"no seat {seat.piece} in game {game_id}")

    # ---- reads ----------------------------------------------------------------------------
    def find_token(self, token_hash: str) -> tuple[str, str] | None:
        """(game_id, token name) of a token hash, or ``None``."""
        with self._read() as db, _utf8("a stored token"):
            row = db.execute("SELECT game_id, name FROM tokens WHERE hash = ?",
                             (token_hash,)).fetchone()
        return None if row is None else (row[0], row[1])

    def has_game(self, game_id: str) -> bool:
        """Whether a game with this id is stored."""
        with self._read() as db:
            return db.execute("SELECT 1 FROM games WHERE id = ?", (game_id,)).fetchone() is not None

    def last_move_at(self, game_id: str) -> float | None:
        """When the game's last move was stored (Unix time), or ``None`` before the first."""
        with self._read() as db:
            row = db.execute("SELECT MAX(at) FROM moves WHERE game_id = ?", (game_id,)).fetchone()
        return None if row is None or row[0] is None else float(row[0])

    def game_ids(self, status: str | None = None) -> list[str]:
        """Every game id (or those with ``status`` ``playing``/``over``), oldest first."""
        with self._read() as db:
            if status is None:
                rows = db.execute("SELECT id FROM games ORDER BY created").fetchall()
            else:
                rows = db.execute("SELECT id FROM games WHERE status = ? ORDER BY created",
                                  (status,)).fetchall()
        return [r[0] for r in rows]

    def active_game_ids(self, since: float) -> list[str]:
        """Games still being played whose last move (or creation) is at ``since`` (a
        ``time.time()``) or later, oldest first: those a restarted server resumes at once."""
        with self._read() as db:
            rows = db.execute("SELECT id FROM games WHERE status = 'playing' AND updated >= ? "
                              "ORDER BY created", (since,)).fetchall()
        return [r[0] for r in rows]

    def ai_game_ids(self) -> list[str]:
        """The games being played that have an AI seat, oldest first."""
        with self._read() as db:
            rows = db.execute(
                "SELECT g.id FROM games g WHERE g.status = 'playing' AND EXISTS "
                "(SELECT 1 FROM seats s WHERE s.game_id = g.id AND s.kind = 'ai') "
                "ORDER BY g.created").fetchall()
        return [r[0] for r in rows]

    def load_game(self, game_id: str) -> StoredGame | None:
        """Everything stored about one game, or ``None``. Raises :class:`StoreError` for a
        row that cannot be a game (its message names the field, never its content)."""
        with self._read() as db, _utf8(f"game {game_id}"):
            return self._load(db, game_id)

    @staticmethod
    def _load(db: sqlite3.Connection, game_id: str) -> StoredGame | None:
        row = db.execute(
            "SELECT id, created, preset, rules, start, seed, hotseat, status FROM games WHERE id = ?",
            (game_id,)).fetchone()
        if row is None:
            return None
        field = "seats"
        try:
            seats = {
                r[0]: StoredSeat(r[0], r[1], r[2], r[3])
                for r in db.execute(
                    "SELECT piece, kind, agent, note FROM seats WHERE game_id = ?", (game_id,))
            }
            field = "moves"
            moves = [(r[0], r[1], r[2]) for r in db.execute(
                "SELECT ply, piece, move FROM moves WHERE game_id = ? ORDER BY ply", (game_id,))]
            field = "commitments"
            commitments = [StoredCommitment(*r) for r in db.execute(
                "SELECT slot, station, salt, hash FROM commitments WHERE game_id = ? ORDER BY slot",
                (game_id,))]
            field = "rules"
            rules = json.loads(row[3])
            if not isinstance(rules, dict):
                raise TypeError("not an object")
            field = "start"
            start = json.loads(row[4])
            if not isinstance(start, dict):
                raise TypeError("not an object")
            start = {str(k): _station(v) for k, v in start.items()}
            field = "row"
            return StoredGame(
                id=row[0], created=row[1], preset=row[2], rules=rules, start=start,
                seed=row[5], hotseat=bool(row[6]), status=row[7], seats=seats, moves=moves,
                commitments=commitments)
        except sqlite3.OperationalError:
            raise
        except (ValueError, TypeError, AttributeError, RecursionError) as exc:
            raise StoreError(f"game {game_id} is stored wrongly ({field}: "
                             f"{type(exc).__name__})") from exc

    # ---- many server processes (PostgreSQL; one SQLite process serves alone) ------------------
    shared = False
    """Whether other server processes may serve the same games (see ``store_pg.PgStore``)."""

    def listen(self, callback: Callable[[str | None, str, str], None]) -> None:
        """Call ``callback(game_id, worker, what)`` (from another thread) whenever another
        process changed a game (``what`` empty) or announced something of it (:meth:`announce`),
        ``callback(None, "", "")`` when changes may have been missed. SQLite: never."""

    def announce(self, game_id: str, what: str) -> None:
        """Tell the other processes something public of ``game_id`` (which of its seats have
        sockets here). SQLite: nobody to tell."""

    def live_workers(self) -> set[str]:
        """The ids of the server processes connected to the database now. SQLite: none."""
        return set()

    def try_lock_game(self, game_id: str) -> bool:
        """Become the one process that plays ``game_id``'s AI seats (and clocks); False if
        another live process is. SQLite: always True (one process)."""
        return True

    def unlock_game(self, game_id: str) -> None:
        """Give up :meth:`try_lock_game`'s claim (the game ended or left memory)."""

    def locked_games(self, check: bool = True) -> set[str]:
        """The games whose AI seats this process plays (``check``: ask the database, as a lost
        connection loses them). SQLite: none are locked (:meth:`try_lock_game` is free)."""
        return set()

    # ---- lobby, options, clocks, chat (the tables of _SCHEMA_2) ---------------------------------
    def options(self, game_id: str) -> tuple[bool, dict[str, Any]]:
        """(public, options) of a game (a game stored before options existed: private, ``{}``)."""
        with self._read() as db, _utf8(f"game {game_id}"):
            row = db.execute("SELECT public, options FROM game_options WHERE game_id = ?",
                             (game_id,)).fetchone()
        if row is None:
            return False, {}
        try:
            options = json.loads(row[1])
        except ValueError as exc:
            raise StoreError(f"game {game_id}: its options are stored wrongly: {exc}") from exc
        return bool(row[0]), options if isinstance(options, dict) else {}

    def set_options(self, game_id: str, options: dict[str, Any]) -> None:
        """Replace a game's options (its public flag stays)."""
        with self._tx():
            self._db.execute("INSERT INTO game_options(game_id, options) VALUES (?, ?) "
                             "ON CONFLICT(game_id) DO UPDATE SET options = excluded.options",
                             (game_id, json.dumps(options)))

    def token_names(self, game_id: str) -> list[str]:
        """The names of the tokens issued for a game."""
        with self._read() as db, _utf8(f"game {game_id}"):
            return [r[0] for r in db.execute(
                "SELECT name FROM tokens WHERE game_id = ? ORDER BY name", (game_id,))]

    def add_token(self, game_id: str, name: str, token_hash: str, unless: Iterable[str]) -> bool:
        """Issue one more token ``name`` for a game, unless a token called one of ``unless``
        exists already (checked in the same transaction); True if it was added."""
        blocking = sorted(set(unless) | {name})
        marks = ", ".join("?" * len(blocking))
        with self._tx():
            cur = self._db.execute(
                "INSERT INTO tokens(hash, game_id, name) SELECT ?, ?, ? WHERE NOT EXISTS "
                f"(SELECT 1 FROM tokens WHERE game_id = ? AND name IN ({marks}))",
                (token_hash, game_id, name, game_id, *blocking))
            return bool(cur.rowcount == 1)

    def lobby_games(self, limit: int) -> list[LobbyRow]:
        """What the lobby lists of the newest public games still being played, in three
        indexed queries (no game is loaded: no moves, no start, no commitments). A damaged row
        is left out (loading the game reports it): one with text that is not UTF-8 too, which
        SQLite refuses for the whole query, so the games are then read one by one."""
        with self._read() as db:
            try:
                return self._lobby_rows(db, limit)
            except sqlite3.OperationalError as exc:
                if not _not_utf8(exc):
                    raise
            ids = [r[0] for r in db.execute(
                "SELECT g.id FROM games g JOIN game_options o ON o.game_id = g.id "
                "WHERE o.public = 1 AND g.status = 'playing' "
                "ORDER BY g.created DESC LIMIT ?", (limit,))]
            out = []
            for gid in ids:
                try:
                    out.extend(self._lobby_rows(db, 1, gid))
                except sqlite3.OperationalError as exc:
                    if not _not_utf8(exc):
                        raise
            return out

    @staticmethod
    def _lobby_rows(db: sqlite3.Connection, limit: int,
                    only: str | None = None) -> list[LobbyRow]:
        """:meth:`lobby_games`' queries (``only``: that game alone)."""
        where = "" if only is None else "AND g.id = ? "
        rows = db.execute(
            "SELECT g.id, g.created, g.preset, g.rules, o.options, "
            "(SELECT COUNT(*) FROM moves m WHERE m.game_id = g.id) "
            "FROM games g JOIN game_options o ON o.game_id = g.id "
            f"WHERE o.public = 1 AND g.status = 'playing' {where}"
            "ORDER BY g.created DESC LIMIT ?",
            (limit,) if only is None else (only, limit)).fetchall()
        ids = [r[0] for r in rows]
        seats: dict[str, dict[str, StoredSeat]] = {gid: {} for gid in ids}
        names: dict[str, list[str]] = {gid: [] for gid in ids}
        if ids:
            marks = ", ".join("?" * len(ids))
            for gid, piece, kind, agent, note in db.execute(
                    "SELECT game_id, piece, kind, agent, note FROM seats "
                    f"WHERE game_id IN ({marks})", ids):
                seats[gid][piece] = StoredSeat(piece, kind, agent, note)
            for gid, name in db.execute(
                    f"SELECT game_id, name FROM tokens WHERE game_id IN ({marks}) "
                    "ORDER BY name", ids):
                names[gid].append(name)
        out = []
        for gid, created, preset, rules_text, options_text, ply in rows:
            try:
                rules, options = json.loads(rules_text), json.loads(options_text)
            except (ValueError, TypeError, RecursionError):
                continue
            if (isinstance(rules, dict) and isinstance(options, dict)
                    and isinstance(created, int | float)):
                out.append(LobbyRow(gid, created, preset, rules, options, int(ply), seats[gid],
                                    names[gid]))
        return out

    def clock(self, game_id: str) -> dict[str, Any] | None:
        """A game's stored clock state, or ``None``."""
        with self._read() as db, _utf8(f"game {game_id}"):
            row = db.execute("SELECT state FROM clocks WHERE game_id = ?", (game_id,)).fetchone()
        if row is None:
            return None
        try:
            state = json.loads(row[0])
        except ValueError as exc:
            raise StoreError(f"game {game_id}: its clock is stored wrongly: {exc}") from exc
        return state if isinstance(state, dict) else None

    def set_clock(self, game_id: str, state: dict[str, Any]) -> None:
        """Store a game's clock state."""
        with self._tx():
            self._db.execute("INSERT INTO clocks(game_id, state) VALUES (?, ?) ON CONFLICT"
                             "(game_id) DO UPDATE SET state = excluded.state",
                             (game_id, json.dumps(state)))

    def add_chat(self, game_id: str, channel: str, author: str, text: str) -> tuple[int, float]:
        """Store one chat message; returns its number in the game and its time."""
        now = time.time()
        with self._tx():
            row = self._db.execute("SELECT COALESCE(MAX(n), 0) + 1 FROM chat WHERE game_id = ?",
                                   (game_id,)).fetchone()
            self._db.execute("INSERT INTO chat(game_id, n, at, channel, author, text) "
                             "VALUES (?, ?, ?, ?, ?, ?)",
                             (game_id, row[0], now, channel, author, text))
        return int(row[0]), now

    def set_outcome(self, game_id: str, outcome: dict[str, Any]) -> None:
        """End a game off the board (a loss on time): status ``over`` with ``outcome``."""
        with self._tx():
            self._db.execute("UPDATE games SET status = 'over', outcome = ?, updated = ? "
                             "WHERE id = ?", (json.dumps(outcome), time.time(), game_id))

    def adjudication(self, game_id: str) -> dict[str, Any] | None:
        """The stored outcome of a game that ended off the board, or ``None``."""
        with self._read() as db, _utf8(f"game {game_id}"):
            row = db.execute("SELECT outcome FROM games WHERE id = ?", (game_id,)).fetchone()
        if row is None or row[0] is None:
            return None
        try:
            out = json.loads(row[0])
        except ValueError as exc:
            raise StoreError(f"game {game_id}: its outcome is stored wrongly: {exc}") from exc
        return out if isinstance(out, dict) and out.get("reason") == "time" else None

    def undo_moves(self, game_id: str, ply: int, keep_slots: int, *, last_ply: int | None = None,
                   options: dict[str, Any] | None = None) -> None:
        """Delete move ``ply`` and every later one, and the commitments of log slots after
        ``keep_slots`` (a takeback), in one transaction; with ``options``, store them too (the
        takebacks counted). ``last_ply``: raise :class:`MoveConflict` (nothing changed) unless
        the game's last stored move is that one (another process moved meanwhile)."""
        with self._tx():
            if last_ply is not None:
                row = self._db.execute("SELECT MAX(ply) FROM moves WHERE game_id = ?",
                                       (game_id,)).fetchone()
                if (row[0] or 0) != last_ply:
                    raise MoveConflict(f"game {game_id}: moves were made meanwhile")
            if options is not None:
                self._db.execute("INSERT INTO game_options(game_id, options) VALUES (?, ?) "
                                 "ON CONFLICT(game_id) DO UPDATE SET options = excluded.options",
                                 (game_id, json.dumps(options)))
            self._db.execute("DELETE FROM moves WHERE game_id = ? AND ply >= ?", (game_id, ply))
            self._db.execute("DELETE FROM commitments WHERE game_id = ? AND slot > ?",
                             (game_id, keep_slots))
            self._db.execute("UPDATE games SET updated = ? WHERE id = ?", (time.time(), game_id))

    # ---- puzzles ------------------------------------------------------------------------------
    def add_puzzle_player(self, token_hash: str, rating: tuple[float, float, float]) -> None:
        """A new puzzle player (the hash of his token) with a starting ``(rating, rd, vol)``."""
        with self._tx():
            self._db.execute("INSERT INTO puzzle_players(hash, created, rating, rd, vol, "
                             "attempts, solved) VALUES (?, ?, ?, ?, ?, 0, 0)",
                             (token_hash, time.time(), *rating))

    def puzzle_player(self, token_hash: str) -> tuple[float, float, float, int, int] | None:
        """A player's ``(rating, rd, vol, attempts, solved)``, or ``None``."""
        with self._read() as db:
            row = db.execute("SELECT rating, rd, vol, attempts, solved FROM puzzle_players "
                             "WHERE hash = ?", (token_hash,)).fetchone()
        return None if row is None else (row[0], row[1], row[2], row[3], row[4])

    def puzzle_ratings(self) -> dict[str, tuple[float, float, float, int, int]]:
        """Every rated puzzle's ``(rating, rd, vol, attempts, solved)`` by id."""
        with self._read() as db:
            return {r[0]: (r[1], r[2], r[3], r[4], r[5]) for r in db.execute(
                "SELECT puzzle_id, rating, rd, vol, attempts, solved FROM puzzle_ratings")}

    def puzzles_tried(self, token_hash: str) -> set[str]:
        """The puzzles a player has tried."""
        with self._read() as db:
            return {r[0] for r in db.execute(
                "SELECT puzzle_id FROM puzzle_attempts WHERE player = ?", (token_hash,))}

    def rate_puzzle(self, token_hash: str, puzzle_id: str, solved: bool,
                    initial: tuple[float, float, float],
                    update: Callable[[tuple[float, float, float], tuple[float, float, float],
                                      float], tuple[float, float, float]],
                    ) -> tuple[tuple[float, float, float], tuple[float, float, float]] | None:
        """Rate a player's first attempt at a puzzle in one transaction: ``update(own, other,
        score)`` gives each side's new ``(rating, rd, vol)`` from both old ones (the puzzle
        starts at ``initial``). Returns the player's and the puzzle's new ratings, or ``None``
        when the player tried this puzzle before or is unknown (nothing changes)."""
        with self._tx():
            db = self._db
            if db.execute("SELECT 1 FROM puzzle_attempts WHERE player = ? AND puzzle_id = ?",
                          (token_hash, puzzle_id)).fetchone() is not None:
                return None
            prow = db.execute("SELECT rating, rd, vol FROM puzzle_players WHERE hash = ?",
                              (token_hash,)).fetchone()
            if prow is None:
                return None
            qrow = db.execute("SELECT rating, rd, vol FROM puzzle_ratings WHERE puzzle_id = ?",
                              (puzzle_id,)).fetchone()
            player = (float(prow[0]), float(prow[1]), float(prow[2]))
            puzzle = initial if qrow is None else (float(qrow[0]), float(qrow[1]),
                                                   float(qrow[2]))
            new_player = update(player, puzzle, 1.0 if solved else 0.0)
            new_puzzle = update(puzzle, player, 0.0 if solved else 1.0)
            win = int(solved)
            db.execute("INSERT INTO puzzle_attempts(player, puzzle_id, solved, at) "
                       "VALUES (?, ?, ?, ?)", (token_hash, puzzle_id, win, time.time()))
            db.execute("UPDATE puzzle_players SET rating = ?, rd = ?, vol = ?, "
                       "attempts = attempts + 1, solved = solved + ? WHERE hash = ?",
                       (*new_player, win, token_hash))
            db.execute("INSERT INTO puzzle_ratings(puzzle_id, rating, rd, vol, attempts, solved) "
                       "VALUES (?, ?, ?, ?, 1, ?) ON CONFLICT(puzzle_id) DO UPDATE SET "
                       "rating = excluded.rating, rd = excluded.rd, vol = excluded.vol, "
                       "attempts = puzzle_ratings.attempts + 1, "
                       "solved = puzzle_ratings.solved + excluded.solved",
                       (puzzle_id, *new_puzzle, win))
        return new_player, new_puzzle

    def set_analysis(self, game_id: str, result: dict[str, Any]) -> None:
        """Keep a finished game's computer analysis (replacing an older one)."""
        with self._tx():
            self._db.execute("INSERT INTO analyses(game_id, at, result) VALUES (?, ?, ?) "
                             "ON CONFLICT(game_id) DO UPDATE SET at = excluded.at, "
                             "result = excluded.result", (game_id, time.time(), json.dumps(result)))

    def analysis(self, game_id: str) -> dict[str, Any] | None:
        """A game's computer analysis, or ``None``."""
        with self._read() as db, _utf8(f"game {game_id}"):
            row = db.execute("SELECT result FROM analyses WHERE game_id = ?",
                             (game_id,)).fetchone()
        if row is None:
            return None
        try:
            out = json.loads(row[0])
        except ValueError as exc:
            raise StoreError(f"game {game_id}: its analysis is stored wrongly: {exc}") from exc
        return out if isinstance(out, dict) else None

    def chat(self, game_id: str) -> list[tuple[int, float, str, str, str]]:
        """Every chat message of a game: (n, at, channel, author, text), oldest first."""
        with self._read() as db, _utf8(f"game {game_id}"):
            return [(r[0], r[1], r[2], r[3], r[4]) for r in db.execute(
                "SELECT n, at, channel, author, text FROM chat WHERE game_id = ? ORDER BY n",
                (game_id,))]


@contextlib.contextmanager
def _utf8(what: str) -> Iterator[None]:
    """Turn SQLite's refusal to decode a text field that is not UTF-8 (a damaged row) into a
    :class:`StoreError` naming ``what`` (a game: it is quarantined), never the bad bytes, which
    sqlite3's own message quotes."""
    try:
        yield
    except sqlite3.OperationalError as exc:
        if _not_utf8(exc):
            raise StoreError(f"{what}: a text field is not valid UTF-8") from None
        raise


def _not_utf8(exc: sqlite3.OperationalError) -> bool:
    return "decode" in str(exc).lower()


def _station(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError("a station is a whole number")
    return value


class _Transaction:
    """``BEGIN IMMEDIATE`` .. ``COMMIT`` (``ROLLBACK`` on an exception), holding the write
    connection's thread lock. A refused ``BEGIN`` or ``COMMIT`` (locked, disk full, read-only)
    raises :class:`StoreBusy` and leaves nothing stored."""

    def __init__(self, db: sqlite3.Connection, lock: threading.Lock | threading.RLock) -> None:
        self._db = db
        self._lock = lock

    def __enter__(self) -> None:
        self._lock.acquire()
        try:
            self._db.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as exc:
            self._lock.release()
            raise StoreBusy(f"the database refused the write ({exc})") from exc

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        try:
            if exc_type is None:
                try:
                    self._db.execute("COMMIT")
                except sqlite3.Error as err:
                    with contextlib.suppress(sqlite3.Error):
                        self._db.execute("ROLLBACK")
                    raise StoreBusy(f"the database refused the write ({err})") from err
            else:
                with contextlib.suppress(sqlite3.Error):
                    self._db.execute("ROLLBACK")
                if isinstance(exc, sqlite3.OperationalError):  # locked, full, read-only
                    raise StoreBusy(f"the database refused the write ({exc})") from exc
        finally:
            self._lock.release()


class _Savepoint:
    """A write inside a group (:meth:`Store.group`): ``SAVEPOINT`` .. ``RELEASE`` (``ROLLBACK
    TO`` on an exception), so one refused write of the group changes nothing and the others
    stay; the group's ``COMMIT`` makes them all durable at once."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db

    def __enter__(self) -> None:
        try:
            self._db.execute("SAVEPOINT w")
        except sqlite3.Error as exc:
            raise StoreBusy(f"the database refused the write ({exc})") from exc

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        if exc_type is None:
            try:
                self._db.execute("RELEASE w")
            except sqlite3.Error as err:
                with contextlib.suppress(sqlite3.Error):
                    self._db.execute("ROLLBACK TO w")
                    self._db.execute("RELEASE w")
                raise StoreBusy(f"the database refused the write ({err})") from err
        else:
            with contextlib.suppress(sqlite3.Error):
                self._db.execute("ROLLBACK TO w")
                self._db.execute("RELEASE w")
            if isinstance(exc, sqlite3.OperationalError):
                raise StoreBusy(f"the database refused the write ({exc})") from exc


class GameStore(Protocol):
    """What the rest of the server knows of its database (``GameServer.store``): every
    backend (:class:`~scotlandyard.server.store.sqlite.Store`,
    :class:`~scotlandyard.server.store.postgres.PgStore`) implements it."""

    path: str
    shared: bool

    def close(self) -> None: ...
    def group(self) -> contextlib.AbstractContextManager[None]: ...
    @property
    def schema_version(self) -> int: ...
    def create_game(self, game_id: str, *, preset: str, rules: dict[str, Any], start: dict[str, int], seed: int | None, hotseat: bool, seats: Iterable[StoredSeat], token_hashes: dict[str, str], public: bool = False, options: dict[str, Any] | None = None, commitments: Iterable[StoredCommitment] = ()) -> None: ...
    def add_move(self, game_id: str, ply: int, piece: str, move: str, commitments: Iterable[StoredCommitment] = (), outcome: dict[str, Any] | None = None) -> None: ...
    def set_seat(self, game_id: str, seat: StoredSeat) -> None: ...
    def find_token(self, token_hash: str) -> tuple[str, str] | None: ...
    def has_game(self, game_id: str) -> bool: ...
    def last_move_at(self, game_id: str) -> float | None: ...
    def game_ids(self, status: str | None = None) -> list[str]: ...
    def active_game_ids(self, since: float) -> list[str]: ...
    def ai_game_ids(self) -> list[str]: ...
    def load_game(self, game_id: str) -> StoredGame | None: ...
    def listen(self, callback: Callable[[str | None, str, str], None]) -> None: ...
    def announce(self, game_id: str, what: str) -> None: ...
    def live_workers(self) -> set[str]: ...
    def try_lock_game(self, game_id: str) -> bool: ...
    def unlock_game(self, game_id: str) -> None: ...
    def locked_games(self, check: bool = True) -> set[str]: ...
    def options(self, game_id: str) -> tuple[bool, dict[str, Any]]: ...
    def set_options(self, game_id: str, options: dict[str, Any]) -> None: ...
    def token_names(self, game_id: str) -> list[str]: ...
    def add_token(self, game_id: str, name: str, token_hash: str, unless: Iterable[str]) -> bool: ...
    def lobby_games(self, limit: int) -> list[LobbyRow]: ...
    def clock(self, game_id: str) -> dict[str, Any] | None: ...
    def set_clock(self, game_id: str, state: dict[str, Any]) -> None: ...
    def add_chat(self, game_id: str, channel: str, author: str, text: str) -> tuple[int, float]: ...
    def set_outcome(self, game_id: str, outcome: dict[str, Any]) -> None: ...
    def adjudication(self, game_id: str) -> dict[str, Any] | None: ...
    def undo_moves(self, game_id: str, ply: int, keep_slots: int, *, last_ply: int | None = None, options: dict[str, Any] | None = None) -> None: ...
    def add_puzzle_player(self, token_hash: str, rating: tuple[float, float, float]) -> None: ...
    def puzzle_player(self, token_hash: str) -> tuple[float, float, float, int, int] | None: ...
    def puzzle_ratings(self) -> dict[str, tuple[float, float, float, int, int]]: ...
    def puzzles_tried(self, token_hash: str) -> set[str]: ...
    def rate_puzzle(self, token_hash: str, puzzle_id: str, solved: bool, initial: tuple[float, float, float], update: Callable[[tuple[float, float, float], tuple[float, float, float], float], tuple[float, float, float]], ) -> tuple[tuple[float, float, float], tuple[float, float, float]] | None: ...
    def set_analysis(self, game_id: str, result: dict[str, Any]) -> None: ...
    def analysis(self, game_id: str) -> dict[str, Any] | None: ...
    def chat(self, game_id: str) -> list[tuple[int, float, str, str, str]]: ...
