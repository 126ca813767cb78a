"""The server's database under damage and contention (issue 10, findings 3 and 4): a damaged
stored game is quarantined while every other game plays, a changed commitment is caught at load,
another process's write lock stalls no other game, a refused write loses nothing, and a second
server on the same file refuses to start."""

from __future__ import annotations

import logging
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from scotlandyard.server.app import create_app
from scotlandyard.server.limits import Limits
from scotlandyard.server.store import Store, StoreLocked

pytestmark = pytest.mark.timeout(120)


def app(db: Path, **limits: Any) -> TestClient:
    return TestClient(create_app(db, ai_delay=0, limits=Limits(**limits)))


def create(c: TestClient, **body: Any) -> dict:
    r = c.post("/api/games", json=body)
    assert r.status_code == 201, r.text
    return r.json()


def ws_url(g: dict, name: str) -> str:
    return f"/ws/{g['game_id']}?token={g['tokens'][name]}"


def first_state(ws) -> dict:
    assert ws.receive_json()["type"] == "welcome"
    while (msg := ws.receive_json())["type"] != "state":
        pass
    return msg


def move_x(c: TestClient, g: dict) -> dict:
    """Mr X makes his first legal move; answers the ack."""
    with c.websocket_connect(ws_url(g, "X")) as ws:
        st = first_state(ws)
        ws.send_json({"type": "move", "move": st["view"]["legal_moves"][0], "id": 1})
        while (msg := ws.receive_json())["type"] != "ack":
            assert msg["type"] != "error", msg
        return msg


def sql(db: Path, statement: str, *args: Any) -> None:
    con = sqlite3.connect(db)
    con.execute(statement, args)
    con.commit()
    con.close()


# ---- 3. quarantine ------------------------------------------------------------------------------
def test_damaged_games_are_quarantined_and_every_other_game_plays(tmp_path, caplog):
    db = tmp_path / "g.sqlite3"
    with app(db) as c:
        bad_start, bad_text, unknown_agent, healthy = (
            create(c, detectives=2), create(c, detectives=2),
            create(c, detectives=2, seats={"D2": {"kind": "ai", "agent": "random"}}),
            create(c, detectives=2))
    sql(db, "UPDATE games SET start = '[1, 2, 3]' WHERE id = ?", bad_start["game_id"])
    sql(db, "UPDATE seats SET note = CAST(x'ff00fe' AS TEXT) WHERE game_id = ? AND piece = 'D1'",
        bad_text["game_id"])
    sql(db, "UPDATE seats SET agent = 'no-such-agent' WHERE game_id = ? AND piece = 'D2'",
        unknown_agent["game_id"])
    caplog.set_level(logging.ERROR, logger="scotlandyard.server")
    with app(db) as c:  # the server starts (it used to exit)
        assert move_x(c, healthy)["version"] == 1
        for g, why in ((bad_start, "start"), (bad_text, "not valid UTF-8")):
            with c.websocket_connect(ws_url(g, "D1")) as ws:
                err = ws.receive_json()
                assert err["type"] == "error" and err["code"] == "damaged"
                assert err["message"].startswith("this game's record is damaged:")
                assert why in err["message"]
                with pytest.raises(Exception) as closed:
                    ws.receive_json()
                assert getattr(closed.value, "code", None) == 4500
            r = c.get(f"/api/games/{g['game_id']}/state", params={"token": g["tokens"]["X"]})
            assert r.status_code == 409 and "record is damaged" in r.json()["detail"]
        # an agent this server does not know: random plays the seat, and says so
        st = c.get(f"/api/games/{unknown_agent['game_id']}/state",
                   params={"token": unknown_agent["tokens"]["X"]}).json()
        assert "not known on this server" in st["seats"]["D2"]["note"]
        assert move_x(c, unknown_agent)["version"] == 1
    lines = [r.getMessage() for r in caplog.records if "quarantined" in r.getMessage()]
    assert len(lines) == 2 and all("record is damaged" in line for line in lines)
    assert not [r for r in caplog.records if r.exc_info]  # a log line, not a traceback


def test_text_that_is_not_utf8_in_any_table_quarantines_its_game_only(tmp_path, caplog):
    """Bytes that are not UTF-8 in a chat message, a token's name, a game's options or its
    outcome (not only in the rows of ``load_game``): the server starts (it used to exit at
    start-up with sqlite3's "Could not decode to UTF-8" traceback), that game is quarantined,
    every other game plays and the lobby still lists the healthy public games."""
    db = tmp_path / "g.sqlite3"
    with app(db, lobby_rows_per_client=10) as c:  # five games of one address listed
        bad = {name: create(c, detectives=2, public=True, play_as="X")
               for name in ("chat", "token", "options", "outcome")}
        healthy = create(c, detectives=2, public=True, play_as="X")
        with c.websocket_connect(ws_url(bad["chat"], "X")) as ws:
            first_state(ws)
            ws.send_json({"type": "chat", "text": "hello"})
            while ws.receive_json()["type"] != "chat":
                pass
        assert {g["game_id"] for g in c.get("/api/lobby").json()["games"]} == {
            g["game_id"] for g in [*bad.values(), healthy]}
    ids = {name: g["game_id"] for name, g in bad.items()}
    not_utf8 = "CAST(x'ff00fe' AS TEXT)"
    sql(db, f"UPDATE chat SET text = {not_utf8} WHERE game_id = ?", ids["chat"])
    sql(db, f"UPDATE tokens SET name = {not_utf8} WHERE game_id = ? AND name = 'spectator'",
        ids["token"])
    sql(db, f"UPDATE game_options SET options = {not_utf8} WHERE game_id = ?", ids["options"])
    sql(db, f"UPDATE games SET outcome = {not_utf8} WHERE id = ?", ids["outcome"])
    caplog.set_level(logging.ERROR, logger="scotlandyard.server")
    with app(db, lobby_rows_per_client=10) as c:  # five games of one address listed  # the server starts: these games were played a moment ago (resumed)
        assert move_x(c, healthy)["version"] == 1
        for name, g in bad.items():
            r = c.get(f"/api/games/{g['game_id']}/state", params={"token": g["tokens"]["X"]})
            assert r.status_code == 409, (name, r.text)
            assert "not valid UTF-8" in r.json()["detail"], name
            with c.websocket_connect(ws_url(g, "X")) as ws:
                err = ws.receive_json()
                assert err["type"] == "error" and err["code"] == "damaged", name
        r = c.get(f"/api/games/{ids['token']}/state",  # the damaged token itself: 409, not 500
                  params={"token": bad["token"]["tokens"]["spectator"]})
        assert r.status_code == 409 and "not valid UTF-8" in r.json()["detail"]
        lobby = c.get("/api/lobby")
        assert lobby.status_code == 200
        assert healthy["game_id"] in {g["game_id"] for g in lobby.json()["games"]}
    lines = [r.getMessage() for r in caplog.records if "quarantined" in r.getMessage()]
    assert len(lines) == 4 and all("not valid UTF-8" in line for line in lines), lines
    assert not [r for r in caplog.records if r.exc_info]
    assert not [r for r in caplog.records if "\ufffd" in r.getMessage()]  # no bad bytes quoted


@pytest.mark.parametrize("change, why", [
    ("UPDATE commitments SET hash = '00' WHERE game_id = ? AND slot = 1",
     "the commitment of log slot 1 was changed"),
    ("UPDATE commitments SET hash = '00' WHERE game_id = ? AND slot = 0",
     "the commitment of log slot 0 was changed"),
    ("UPDATE commitments SET station = station % 199 + 1 WHERE game_id = ? AND slot = 0",
     "the seal of Mr X's start does not match his start"),
    ("DELETE FROM commitments WHERE game_id = ? AND slot = 1",
     "commitments do not match Mr X's log"),
    ("DELETE FROM commitments WHERE game_id = ? AND slot = 0", None),  # a game from before seals
], ids=["slot1_hash", "start_hash", "start_station", "slot1_gone", "start_never_sealed"])
def test_a_changed_commitment_is_detected_at_load(tmp_path, change, why):
    db = tmp_path / "g.sqlite3"
    with app(db) as c:
        g = create(c, detectives=2)
        move_x(c, g)
    sql(db, change, g["game_id"])
    with app(db) as c:
        r = c.get(f"/api/games/{g['game_id']}/state", params={"token": g["tokens"]["D1"]})
        if why is None:  # games created before Mr X's start was sealed (slot 0) still load
            assert r.status_code == 200 and [x["slot"] for x in r.json()["commitments"]] == [1]
        else:
            assert r.status_code == 409
            assert why in r.json()["detail"], r.json()


# ---- 4. the database off the event loop -----------------------------------------------------------
def ping_seconds(ws, i: int) -> float:
    """Seconds from sending ping ``i`` on ``ws`` to its pong (frames before it are skipped)."""
    t0 = time.perf_counter()
    ws.send_json({"type": "ping", "id": i})
    while (msg := ws.receive_json())["type"] != "pong":
        pass
    assert msg == {"type": "pong", "id": i}
    return time.perf_counter() - t0


class HeldLock:
    """Another process's write lock (here: another connection, as the sqlite3 shell takes it)."""

    def __init__(self, db: Path) -> None:
        self.con = sqlite3.connect(db, isolation_level=None, check_same_thread=False)
        self.con.execute("BEGIN IMMEDIATE")

    def release(self) -> None:
        self.con.execute("ROLLBACK")
        self.con.close()


def test_a_held_write_lock_stalls_no_other_game(tmp_path):
    db = tmp_path / "g.sqlite3"
    with app(db, db_wait=10.0) as c:
        a, b = create(c, detectives=1), create(c, detectives=1)
        with c.websocket_connect(ws_url(a, "X")) as wa, c.websocket_connect(ws_url(b, "D1")) as wb:
            sa = first_state(wa)
            first_state(wb)
            lock = HeldLock(db)
            try:
                wa.send_json({"type": "move", "move": sa["view"]["legal_moves"][0], "id": "m"})
                time.sleep(0.3)  # the move now waits for the lock in the write thread
                took = sorted(ping_seconds(wb, i) for i in range(5))
                print(f"pings while a write waits for the lock: {[round(t * 1000) for t in took]} ms")
                # the bound, < 100 ms, on the median; every ping under 0.5 s: a stalled
                # loop answers only once the write gives up (db_wait, 10 s), and one ping late
                # by a busy CI machine's scheduling is not a stall
                assert took[2] < 0.1 and took[-1] < 0.5, f"pings took {took} s"
                r = c.get(f"/api/games/{b['game_id']}/state", params={"token": b["tokens"]["X"]})
                assert r.status_code == 200  # reads go on too
            finally:
                threading.Timer(0.2, lock.release).start()
            while (msg := wa.receive_json())["type"] != "ack":
                assert msg["type"] != "error", msg
            assert msg["version"] == 1


def test_a_held_write_lock_stalls_no_ping_or_lobby_while_chat_and_options_wait(tmp_path):
    """Chat, the chat-record agreement (game options) and the lobby's reads run off the event
    loop too: while another process holds the write lock and a chat message and an option
    change of one game wait for it, a ping in another game and GET /api/lobby are answered
    in < 100 ms (the median; each in < 0.5 s, where a stalled loop takes 10 s); once the lock
    goes, both writes are made and delivered."""
    db = tmp_path / "g.sqlite3"
    with app(db, db_wait=10.0) as c:
        a = create(c, detectives=1)
        b = create(c, detectives=1, public=True, play_as="X")
        with c.websocket_connect(ws_url(a, "X")) as wa, c.websocket_connect(ws_url(b, "X")) as wb:
            first_state(wa)
            first_state(wb)
            lock = HeldLock(db)
            try:
                wa.send_json({"type": "chat", "channel": "table", "text": "hello", "id": "c"})
                wa.send_json({"type": "chat_record", "agree": True, "id": "r"})
                time.sleep(0.3)  # both now wait for the lock in the write thread
                took = []
                for i in range(5):
                    took.append(ping_seconds(wb, i))
                    t0 = time.perf_counter()
                    r = c.get("/api/lobby")
                    assert r.status_code == 200
                    assert [e["game_id"] for e in r.json()["games"]] == [b["game_id"]]
                    took.append(time.perf_counter() - t0)
                took.sort()
                print(f"pings and lobby reads while writes wait: {[round(t * 1000) for t in took]} ms")
                assert took[len(took) // 2] < 0.1 and took[-1] < 0.5, f"took {took} s"
            finally:
                threading.Timer(0.2, lock.release).start()
            while (msg := wa.receive_json())["type"] != "chat":
                assert msg["type"] != "error", msg
            assert msg["message"]["text"] == "hello"
            while not ((msg := wa.receive_json())["type"] == "state"
                       and msg["chat_record"] == {"mr_x": True, "detectives": False}):
                assert msg["type"] != "error", msg
    con = sqlite3.connect(db)
    assert con.execute("SELECT text FROM chat").fetchall() == [("hello",)]
    con.close()


def test_a_refused_chat_write_is_not_saved_and_nobody_gets_it(tmp_path):
    db = tmp_path / "g.sqlite3"
    with app(db, db_wait=0.2) as c:
        g = create(c, detectives=1)
        with c.websocket_connect(ws_url(g, "X")) as wx, c.websocket_connect(ws_url(g, "D1")) as wd:
            first_state(wx)
            first_state(wd)
            lock = HeldLock(db)
            wx.send_json({"type": "chat", "channel": "table", "text": "lost?", "id": "c1"})
            while (err := wx.receive_json())["type"] not in ("error", "chat"):
                pass
            lock.release()
            assert err["type"] == "error" and err["code"] == "not_saved" and err["id"] == "c1"
            assert "not saved" in err["message"] and "locked" in err["message"]
            wx.send_json({"type": "chat", "channel": "table", "text": "again", "id": "c2"})
            while (msg := wd.receive_json())["type"] != "chat":
                pass
            assert msg["message"]["text"] == "again"  # the refused one never reached D1
        with c.websocket_connect(ws_url(g, "D1")) as wd:
            assert wd.receive_json()["type"] == "welcome"
            while (hist := wd.receive_json())["type"] != "chat_history":
                pass
            assert [m["text"] for m in hist["messages"]] == ["again"]


def test_a_refused_write_is_a_clear_error_and_nothing_is_lost(tmp_path):
    db = tmp_path / "g.sqlite3"
    with app(db, db_wait=0.2) as c:
        g = create(c, detectives=1)
        with c.websocket_connect(ws_url(g, "X")) as ws:
            st = first_state(ws)
            move = st["view"]["legal_moves"][0]
            lock = HeldLock(db)
            ws.send_json({"type": "move", "move": move, "id": "m1"})
            while (err := ws.receive_json())["type"] not in ("error", "ack"):
                pass
            lock.release()
            assert err["type"] == "error" and err["code"] == "not_saved" and err["id"] == "m1"
            assert "not saved" in err["message"] and "locked" in err["message"]
            ws.send_json({"type": "sync"})
            while (msg := ws.receive_json())["type"] != "state":
                pass
            assert msg["version"] == 0  # the game did not move
            ws.send_json({"type": "move", "move": move, "id": "m2"})  # the socket still works
            while (msg := ws.receive_json())["type"] != "ack":
                pass
            assert msg == {"type": "ack", "id": "m2", "version": 1}
    con = sqlite3.connect(db)
    assert con.execute("SELECT count(*) FROM moves WHERE game_id = ?",
                       (g["game_id"],)).fetchone()[0] == 1
    con.close()


def test_a_refused_takeback_is_not_saved_and_changes_nothing(tmp_path):
    db = tmp_path / "g.sqlite3"
    with app(db, db_wait=0.2) as c:
        for _ in range(30):  # a game where D1 has a move that tells them nothing (undoable)
            g = create(c, detectives=2, play_as="detectives",
                       seats={"X": {"kind": "ai", "agent": "random"}})
            with c.websocket_connect(ws_url(g, "detectives")) as wd:
                while not ((st := wd.receive_json())["type"] == "state" and st["version"] == 1):
                    pass  # Mr X (the AI) moved
            quiet = [m for m in st["view"]["legal_moves"]
                     if int(m.lstrip("TBU")) not in st["view"]["possible"]]
            if quiet:
                break
        with c.websocket_connect(ws_url(g, "detectives")) as wd:
            while (st := wd.receive_json())["type"] != "state":
                pass
            wd.send_json({"type": "move", "move": quiet[0], "id": 1})
            while not ((msg := wd.receive_json())["type"] == "state" and msg["version"] == 2):
                pass
            seals = msg["commitments"]
            lock = HeldLock(db)
            wd.send_json({"type": "takeback", "id": "t1"})
            while (err := wd.receive_json())["type"] not in ("error", "state"):
                pass
            lock.release()
            assert err["type"] == "error" and err["code"] == "not_saved" and err["id"] == "t1"
            assert "takeback was not saved" in err["message"]
            wd.send_json({"type": "sync"})
            while (msg := wd.receive_json())["type"] != "state":
                pass
            assert msg["version"] == 2 and msg["commitments"] == seals  # nothing taken back
            assert msg["takeback"] is None
            wd.send_json({"type": "takeback", "id": "t2"})  # and it works once the lock goes
            while not ((msg := wd.receive_json())["type"] == "state" and msg["version"] == 1):
                assert msg["type"] != "error", msg
    con = sqlite3.connect(db)
    assert con.execute("SELECT count(*) FROM moves WHERE game_id = ?",
                       (g["game_id"],)).fetchone()[0] == 1
    assert "takebacks" in con.execute("SELECT options FROM game_options WHERE game_id = ?",
                                      (g["game_id"],)).fetchone()[0]
    con.close()


def test_a_second_server_on_the_same_database_refuses_to_start(tmp_path):
    db = tmp_path / "g.sqlite3"
    first = Store(db, exclusive=True)
    try:
        with pytest.raises(StoreLocked, match=r"another scotlandyard server \(pid \d+\) is using"):
            Store(db, exclusive=True)
        with pytest.raises(StoreLocked, match="give this one another --db"):
            with app(db):
                pass
    finally:
        first.close()
    Store(db, exclusive=True).close()  # free again once the first one stops


def _game(store: Store, gid: str) -> None:
    from scotlandyard.server.store import StoredSeat

    store.create_game(gid, preset="classic", rules={}, start={"X": 1, "D1": 2}, seed=None,
                      hotseat=False, seats=[StoredSeat("X", "human", None, None)],
                      token_hashes={"X": gid + "-hash"})


def test_queued_writes_commit_as_one_group_and_a_conflict_fails_alone(tmp_path):
    """Writes that queue up behind a slow one are committed together (one transaction, each
    in a savepoint): each caller gets its own result, a move at a ply already taken fails
    alone (MoveConflict) and the others are stored; nothing is answered before the commit."""
    import asyncio

    from scotlandyard.server.store import AsyncStore, MoveConflict

    store = Store(tmp_path / "g.sqlite3")
    _game(store, "a")
    _game(store, "b")
    store.add_move("b", 1, "X", "T2")
    db = AsyncStore(store)
    gate = threading.Event()
    groups: list[int] = []
    real_group = store.group

    def counting_group() -> Any:
        groups.append(1)
        return real_group()

    store.group = counting_group  # type: ignore[method-assign]  # count the transactions

    async def run() -> list[Any]:
        slow = asyncio.ensure_future(db.write(gate.wait, 10))  # holds the thread meanwhile
        await asyncio.sleep(0.05)
        writes = [asyncio.ensure_future(db.write(store.add_move, "a", ply, "X", f"T{ply}"))
                  for ply in (1, 2, 3)]
        writes.append(asyncio.ensure_future(db.write(store.add_move, "b", 1, "X", "T9")))
        await asyncio.sleep(0.05)
        assert not any(w.done() for w in writes)  # queued behind the slow one
        gate.set()
        await slow
        return await asyncio.gather(*writes, return_exceptions=True)

    results = asyncio.run(run())
    db.shutdown()
    assert results[:3] == [None, None, None]
    assert isinstance(results[3], MoveConflict)
    assert groups == [1]  # the four queued writes: one transaction
    con = sqlite3.connect(tmp_path / "g.sqlite3")
    assert con.execute("SELECT ply, move FROM moves WHERE game_id = 'a' ORDER BY ply"
                       ).fetchall() == [(1, "T1"), (2, "T2"), (3, "T3")]
    assert con.execute("SELECT move FROM moves WHERE game_id = 'b'").fetchall() == [("T2",)]
    con.close()
    store.close()


def test_a_refused_group_commit_stores_none_of_its_writes(tmp_path):
    """Another process holds the write lock while writes are queued: the group's transaction
    is refused, every write of it fails with the database's error, and none is stored."""
    import asyncio

    from scotlandyard.server.store import UNAVAILABLE, AsyncStore

    path = tmp_path / "g.sqlite3"
    store = Store(path, busy_timeout=0.2)
    _game(store, "a")
    db = AsyncStore(store)
    gate = threading.Event()
    other = sqlite3.connect(path, isolation_level=None)

    async def run() -> list[Any]:
        slow = asyncio.ensure_future(db.write(gate.wait, 10))
        await asyncio.sleep(0.05)
        writes = [asyncio.ensure_future(db.write(store.add_move, "a", ply, "X", f"T{ply}"))
                  for ply in (1, 2)]
        await asyncio.sleep(0.05)
        other.execute("BEGIN IMMEDIATE")  # e.g. a backup, or the sqlite3 shell
        gate.set()
        await slow
        out = await asyncio.gather(*writes, return_exceptions=True)
        other.execute("ROLLBACK")
        return out

    results = asyncio.run(run())
    db.shutdown()
    assert all(isinstance(r, UNAVAILABLE) for r in results), results
    assert sqlite3.connect(path).execute("SELECT COUNT(*) FROM moves").fetchone() == (0,)
    other.close()
    store.close()
