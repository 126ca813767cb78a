"""The games' store on both databases: SQLite (the embedded default) and PostgreSQL (a real
server, started by tests/pg_fixture.py). The same tests run on both; the PostgreSQL-only part
(many workers on one database: conflicts, notifications, game locks) follows."""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from scotlandyard.server.store import (
    SCHEMA_VERSION,
    MoveConflict,
    Store,
    StoredCommitment,
    StoredSeat,
    StoreError,
    open_store,
)
from scotlandyard.server.store import base as store_mod
from scotlandyard.server.store.postgres import PgStore, redact_url, translate

pytestmark = pytest.mark.timeout(120)

SEATS = [StoredSeat("X", "human", None, None), StoredSeat("D1", "ai", "medium", None)]
TOKENS = {"X": "a" * 64, "D1": "b" * 64, "spectator": "c" * 64}


@pytest.fixture(params=["sqlite", "postgresql"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A fresh database of each kind."""
    if request.param == "sqlite":
        return str(tmp_path / "games.sqlite3")
    return str(request.getfixturevalue("pg_url"))


@pytest.fixture
def store(url: str) -> Iterator[Store]:
    s = open_store(url)
    yield s
    s.close()


def new_game(store: Store, game_id: str = "g1", seats: list[StoredSeat] = SEATS) -> None:
    store.create_game(game_id, preset="classic", rules={"preset": "classic", "n": 1},
                      start={"X": 35, "D1": 13}, seed=2**62 + 3, hotseat=False, seats=seats,
                      token_hashes={k: v if game_id == "g1" else v[:-2] + game_id[-2:]
                                    for k, v in TOKENS.items()})


def raw(url: str, sql: str, params: tuple = ()) -> list[tuple]:
    """Run ``sql`` on the database beside the store (to check or damage what it wrote)."""
    if url.startswith("postgresql://"):
        with psycopg.connect(url, autocommit=True) as conn:
            cur = conn.execute(sql.replace("?", "%s"), params)
            return cur.fetchall() if cur.description else []
    db = sqlite3.connect(url, isolation_level=None)
    try:
        return db.execute(sql, params).fetchall()
    finally:
        db.close()


# ---- both databases -------------------------------------------------------------------------------
def test_open_store_picks_the_backend_by_url(url: str, tmp_path: Path) -> None:
    s = open_store(url)
    try:
        assert isinstance(s, PgStore) == url.startswith("postgresql://")
        assert s.shared == url.startswith("postgresql://")
    finally:
        s.close()
    lite = open_store(f"sqlite:///{tmp_path / 'x.sqlite3'}")
    assert type(lite) is Store and (tmp_path / "x.sqlite3").exists()
    lite.close()


def test_a_game_round_trips_exactly(store: Store) -> None:
    new_game(store)
    c1 = StoredCommitment(1, 117, "s" * 32, "h" * 64)
    store.add_move("g1", 1, "X", "T 117", [c1])
    store.add_move("g1", 2, "D1", "T 1")
    g = store.load_game("g1")
    assert g is not None
    assert (g.id, g.preset, g.rules, g.start, g.seed, g.hotseat, g.status) == (
        "g1", "classic", {"preset": "classic", "n": 1}, {"X": 35, "D1": 13}, 2**62 + 3, False,
        "playing")
    assert g.seats == {s.piece: s for s in SEATS}
    assert g.moves == [(1, "X", "T 117"), (2, "D1", "T 1")]
    assert g.commitments == [c1]
    assert abs(g.created - time.time()) < 60 and g.created != int(g.created)  # a full double
    assert store.find_token("b" * 64) == ("g1", "D1")
    assert store.find_token("d" * 64) is None
    assert store.has_game("g1") and not store.has_game("g2")
    assert store.load_game("nope") is None


def test_statuses_outcome_and_ai_games(store: Store) -> None:
    new_game(store, "g1")
    new_game(store, "g2", seats=[StoredSeat("X", "human", None, None)])
    new_game(store, "g3")
    assert store.game_ids() == ["g1", "g2", "g3"]
    assert store.ai_game_ids() == ["g1", "g3"]
    store.add_move("g3", 1, "X", "T 117", outcome={"winner": "mr_x", "reason": "r", "round": 1,
                                                   "piece": None})
    assert store.game_ids("playing") == ["g1", "g2"] and store.game_ids("over") == ["g3"]
    assert store.ai_game_ids() == ["g1"]
    assert store.load_game("g3").status == "over"  # type: ignore[union-attr]
    store.set_seat("g2", StoredSeat("X", "ai", "hard", "taken over by the AI"))
    assert store.load_game("g2").seats["X"] == StoredSeat("X", "ai", "hard", "taken over by the AI")  # type: ignore[union-attr]
    assert store.ai_game_ids() == ["g1", "g2"]


def test_a_second_move_at_the_same_ply_is_a_conflict_and_changes_nothing(store: Store) -> None:
    new_game(store)
    store.add_move("g1", 1, "X", "T 117", [StoredCommitment(1, 117, "s", "h")])
    with pytest.raises(MoveConflict, match="move 1 was already made"):
        store.add_move("g1", 1, "X", "B 22", [StoredCommitment(1, 22, "t", "i")])
    g = store.load_game("g1")
    assert g is not None and g.moves == [(1, "X", "T 117")]
    assert g.commitments == [StoredCommitment(1, 117, "s", "h")]
    store.add_move("g1", 2, "D1", "T 1")  # the store still works after the refusal


def test_bad_writes_are_refused_whole(store: Store) -> None:
    new_game(store)
    with pytest.raises(StoreError, match="no seat D4"):
        store.set_seat("g1", StoredSeat("D4", "ai", "easy", None))
    with pytest.raises(sqlite3.IntegrityError):  # a token hash used twice: nothing is stored
        new_game(store, "g1")
    assert store.game_ids() == ["g1"]
    with pytest.raises(sqlite3.IntegrityError):  # the kind is checked by the schema
        store.set_seat("g1", StoredSeat("X", "robot", None, None))
    assert store.load_game("g1").seats["X"].kind == "human"  # type: ignore[union-attr]


def test_damaged_rows_are_a_store_error(url: str, store: Store) -> None:
    new_game(store)
    raw(url, "UPDATE games SET rules = ? WHERE id = ?", ("{not json", "g1"))
    with pytest.raises(StoreError, match="g1 is stored wrongly"):
        store.load_game("g1")


def test_schema_version_new_migrations_and_newer_schema(url: str, monkeypatch) -> None:
    s = open_store(url)
    assert s.schema_version == SCHEMA_VERSION
    new_game(s)
    s.close()
    # a later version of the server appends a migration: it runs once, data kept
    step = "ALTER TABLE games ADD COLUMN motto TEXT;\nCREATE TABLE IF NOT EXISTS extra (n INTEGER)"
    monkeypatch.setattr(store_mod, "MIGRATIONS", (*store_mod.MIGRATIONS, step))
    monkeypatch.setattr(store_mod, "SCHEMA_VERSION", SCHEMA_VERSION + 1)
    for _ in range(2):
        s = open_store(url)
        assert s.schema_version == SCHEMA_VERSION + 1
        assert s.load_game("g1") is not None
        s.close()
    assert raw(url, "SELECT motto FROM games") == [(None,)]
    monkeypatch.undo()
    # this (older) server refuses the newer database and leaves it as it is
    with pytest.raises(StoreError, match=f"schema version {SCHEMA_VERSION + 1}"):
        open_store(url)
    assert raw(url, "SELECT value FROM meta WHERE key = 'schema_version'") == [
        (str(SCHEMA_VERSION + 1),)]


# ---- PostgreSQL: the dialect ----------------------------------------------------------------------
def test_sqlite_sql_is_translated_for_postgresql() -> None:
    assert translate("SELECT a FROM t WHERE b = ? AND c LIKE 'x%'", True) == \
        "SELECT a FROM t WHERE b = %s AND c LIKE 'x%%'"
    assert translate("SELECT '%'", False) == "SELECT '%'"
    assert translate("BEGIN IMMEDIATE", False) == "BEGIN"
    assert translate("INSERT OR IGNORE INTO meta(k) VALUES (?);", True) == \
        "INSERT INTO meta(k) VALUES (%s) ON CONFLICT DO NOTHING"
    ddl = translate("CREATE TABLE t (id INTEGER PRIMARY KEY AUTOINCREMENT, at REAL, n integer, "
                    "b BLOB, interval_s INTEGER)", False)
    assert ddl == ("CREATE TABLE t (id BIGSERIAL PRIMARY KEY, at DOUBLE PRECISION, n BIGINT, "
                   "b BYTEA, interval_s BIGINT)")
    assert redact_url("postgresql://sy:secret@db:5432/games") == "postgresql://sy:***@db:5432/games"
    assert redact_url("postgresql://sy@db/games") == "postgresql://sy@db/games"


def test_postgresql_tables_have_postgresql_types(pg_url: str) -> None:
    PgStore(pg_url).close()
    types = dict(raw(pg_url, "SELECT column_name, data_type FROM information_schema.columns "
                             "WHERE table_name = 'games'"))
    assert types["created"] == "double precision" and types["seed"] == "bigint"


def test_a_lost_connection_is_made_again_between_transactions(pg_url: str, pg_server) -> None:
    s = PgStore(pg_url)
    try:
        new_game(s)
        pid = s._db.conn.info.backend_pid  # type: ignore[attr-defined]
        raw(pg_server.url, "SELECT pg_terminate_backend(?)", (pid,))
        time.sleep(0.2)
        with pytest.raises(sqlite3.OperationalError):  # the statement that finds it lost fails
            s.find_token("a" * 64)
        assert s.find_token("a" * 64) == ("g1", "X")   # and the next one reconnects
        s.add_move("g1", 1, "X", "T 117")
        assert s.load_game("g1").moves == [(1, "X", "T 117")]  # type: ignore[union-attr]
    finally:
        s.close()


# ---- PostgreSQL: many workers on one database ------------------------------------------------------
def test_workers_migrating_at_once_agree(pg_url: str) -> None:
    stores: list[PgStore] = []
    errors: list[BaseException] = []

    def open_one() -> None:
        try:
            stores.append(PgStore(pg_url))
        except BaseException as exc:  # noqa: BLE001 - collected for the assertion
            errors.append(exc)

    threads = [threading.Thread(target=open_one) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == [] and len(stores) == 4
    assert all(s.schema_version == SCHEMA_VERSION for s in stores)
    for s in stores:
        s.close()


def test_same_ply_from_two_workers_exactly_one_wins(pg_url: str) -> None:
    a, b = PgStore(pg_url), PgStore(pg_url)
    try:
        new_game(a)
        for ply in range(1, 21):  # many rounds, so that the race really is a race
            barrier = threading.Barrier(2)
            results: dict[str, str] = {}

            def write(store: PgStore, name: str, move: str, ply: int = ply,
                      barrier: threading.Barrier = barrier,
                      results: dict[str, str] = results) -> None:
                barrier.wait()
                try:
                    store.add_move("g1", ply, "X", move, [StoredCommitment(ply, ply, name, name)])
                    results[name] = "won"
                except MoveConflict:
                    results[name] = "lost"

            ts = [threading.Thread(target=write, args=(a, "a", f"T {ply}")),
                  threading.Thread(target=write, args=(b, "b", f"B {ply}"))]
            for t in ts:
                t.start()
            for t in ts:
                t.join()
            assert sorted(results.values()) == ["lost", "won"], results
            winner = "a" if results["a"] == "won" else "b"
            g = b.load_game("g1")
            assert g is not None and g.moves[-1] == (ply, "X", f"{'T' if winner == 'a' else 'B'} {ply}")
            assert g.commitments[-1].salt == winner and len(g.commitments) == ply
    finally:
        a.close()
        b.close()


def test_changes_are_notified_to_other_workers_with_the_game_id_only(pg_url: str) -> None:
    a, b = PgStore(pg_url), PgStore(pg_url)
    heard_a: list[str | None] = []
    heard_b: list[str | None] = []
    got = threading.Event()
    a.listen(lambda gid, worker, what: heard_a.append(gid))

    def on_b(gid: str | None, worker: str, what: str) -> None:
        assert worker == a.worker_id
        heard_b.append(f"{gid} {what}".strip())
        got.set()

    b.listen(on_b)
    try:
        new_game(a)
        a.add_move("g1", 1, "X", "T 117", [StoredCommitment(1, 117, "secret-salt", "h")])
        assert got.wait(5)
        got.clear()
        a.set_seat("g1", StoredSeat("D1", "human", None, None))
        assert got.wait(5)
        with pytest.raises(MoveConflict):  # a refused move notifies nobody
            a.add_move("g1", 1, "X", "B 22")
        time.sleep(0.5)
        assert heard_b == ["g1 m1", "g1"]  # a move says its ply (public: the version)
        assert heard_a == []  # a worker does not hear itself
    finally:
        a.close()
        b.close()


def test_notification_payload_carries_no_game_facts(pg_url: str) -> None:
    a = PgStore(pg_url)
    try:
        new_game(a)
        with psycopg.connect(pg_url, autocommit=True) as spy:
            spy.execute("LISTEN scotlandyard_games")
            a.add_move("g1", 1, "X", "T 117", [StoredCommitment(1, 117, "secret-salt", "h")])
            notes = list(spy.notifies(timeout=2, stop_after=1))
        assert [n.payload for n in notes] == [f"g1 {a.worker_id} m1"]
    finally:
        a.close()


def test_a_game_lock_is_held_by_one_worker_and_freed_when_it_dies(pg_url: str) -> None:
    a, b = PgStore(pg_url), PgStore(pg_url)
    try:
        assert a.try_lock_game("g1") and a.try_lock_game("g1")
        assert not b.try_lock_game("g1")
        assert b.try_lock_game("g2")
        assert a.locked_games() == {"g1"} and b.locked_games() == {"g2"}
        a.unlock_game("g1")
        assert b.try_lock_game("g1") and not a.try_lock_game("g1")
        b._locks.close()  # type: ignore[attr-defined] # the worker's connection dies with it
        assert b.locked_games() == set()
        assert a.try_lock_game("g1") and a.try_lock_game("g2")
    finally:
        a.close()
        b.close()


def test_announcements_and_live_workers(pg_url: str) -> None:
    a, b = PgStore(pg_url), PgStore(pg_url)
    heard: list[tuple[str | None, str, str]] = []
    got = threading.Event()
    b.listen(lambda *note: (heard.append(note), got.set()))
    try:
        a.announce("g1", "p X,D1")
        assert got.wait(5)
        assert heard == [("g1", a.worker_id, "p X,D1")]
        assert {a.worker_id, b.worker_id} <= b.live_workers()
        a.close()  # a worker that goes away is no longer live
        deadline = time.monotonic() + 5
        while a.worker_id in b.live_workers() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert a.worker_id not in b.live_workers() and b.worker_id in b.live_workers()
    finally:
        b.close()
    lite = Store(":memory:")
    assert lite.live_workers() == set() and lite.announce("g1", "p X") is None


def test_chat_numbers_are_unique_when_two_workers_post_at_once(pg_url: str) -> None:
    """Two workers post into one game's chat at the same moments: every message is stored,
    numbered 1..n without a gap or a repeat, and each worker is told its own numbers."""
    a, b = PgStore(pg_url), PgStore(pg_url)
    try:
        new_game(a)
        barrier = threading.Barrier(2)
        got: dict[str, list[int]] = {"a": [], "b": []}
        failed: list[BaseException] = []

        def post(store: PgStore, name: str) -> None:
            try:
                for i in range(25):
                    if i % 5 == 0:
                        barrier.wait(timeout=20)
                    got[name].append(store.add_chat("g1", "table", name, f"{name}{i}")[0])
            except BaseException as exc:  # noqa: BLE001 - reported by the assertion below
                failed.append(exc)
                barrier.abort()  # the other thread stops waiting

        ts = [threading.Thread(target=post, args=(st, n)) for st, n in ((a, "a"), (b, "b"))]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        assert not failed, failed
        assert sorted(got["a"] + got["b"]) == list(range(1, 51))
        rows = b.chat("g1")
        assert [r[0] for r in rows] == list(range(1, 51))
        assert {(r[0], r[4]) for r in rows} == {(n, f"{w}{i}") for w in "ab"
                                                for i, n in enumerate(got[w])}
    finally:
        a.close()
        b.close()


def test_a_game_is_read_in_one_snapshot_while_another_worker_commits_a_move(pg_url: str) -> None:
    """Another worker commits a move (and its commitment) between this worker's queries of
    one ``load_game``: the game is read as it was before that commit, or after it, never
    half (moves without their commitments would make the game look damaged)."""
    a, b = PgStore(pg_url), PgStore(pg_url)
    try:
        new_game(a)
        real, fired = b._db.execute, []

        def execute(sql: str, params: object = None) -> object:
            cur = real(sql, params)  # type: ignore[arg-type]
            if "FROM moves" in sql and not fired:  # between the moves and commitments queries
                fired.append(sql)
                t = threading.Thread(target=a.add_move, args=(
                    "g1", 1, "X", "T 117", [StoredCommitment(1, 117, "salt", "h")]))
                t.start()
                t.join()
            return cur

        b._db.execute = execute  # type: ignore[method-assign]
        g = b.load_game("g1")
        assert fired and g is not None
        assert (len(g.moves), len(g.commitments)) == (0, 0)
        g = b.load_game("g1")
        assert g is not None and (len(g.moves), len(g.commitments)) == (1, 1)
    finally:
        a.close()
        b.close()
