"""Several server processes ("workers") on one PostgreSQL database, as docs/deploy.md runs
them: real ``python -m scotlandyard.server`` processes on loopback ports, real WebSockets.

A game created on one worker is played through another and watched on the first; two workers
take the same ply at once and exactly one move wins; a worker killed with SIGKILL loses no
acknowledged move and its clients carry on on the other; an AI seat whose worker is killed is
taken over by another within seconds; SIGTERM drains a worker (its sockets are closed with
1012, its AI games are given back at once)."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from tests.live_server import free_port, server_argv, wait_until_up
from tests.pg_fixture import PgServer, fresh_database

pytestmark = pytest.mark.timeout(180)
ROOT = Path(__file__).resolve().parent.parent


class Worker:
    """One server process on ``url``'s database."""

    def __init__(self, url: str, name: str, ai_delay: float = 0.0, *extra: str) -> None:
        self.name = name
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        env = {**os.environ, "PYTHONPATH": str(ROOT), "SCOTLANDYARD_WORKER": name}
        self.proc = subprocess.Popen(
            [*server_argv(), "--port", str(self.port), "--db", url, "--ai-delay", str(ai_delay),
             *extra],
            env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.output: list[str] = []
        self.sockets = ExitStack()  # the clients' connections, closed when the cluster stops
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        wait_until_up(self.proc, self.base + "/api/health", 60,
                      lambda: f"worker {name}: {''.join(self.output)}")

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.output.append(line)

    def health(self) -> dict[str, Any]:
        return httpx.get(self.base + "/api/health", timeout=5).json()  # type: ignore[no-any-return]

    def create(self, **body: Any) -> dict[str, Any]:
        r = httpx.post(self.base + "/api/games", json=body, timeout=10)
        assert r.status_code == 201, r.text
        return r.json()  # type: ignore[no-any-return]

    def state(self, game: dict[str, Any], name: str) -> dict[str, Any]:
        r = httpx.get(f"{self.base}/api/games/{game['game_id']}/state",
                      params={"token": game["tokens"][name]}, timeout=10)
        assert r.status_code == 200, r.text
        return r.json()  # type: ignore[no-any-return]

    def ws(self, game: dict[str, Any], name: str) -> Sock:
        url = f"ws://127.0.0.1:{self.port}/ws/{game['game_id']}?token={game['tokens'][name]}"
        return Sock(self.sockets.enter_context(connect(url, open_timeout=10)))

    def kill(self, sig: int = signal.SIGKILL) -> None:
        if self.proc.poll() is None:
            os.kill(self.proc.pid, sig)
        self.proc.wait(timeout=30)


class Sock:
    """A WebSocket client that remembers the last state it was sent."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.last: dict[str, Any] | None = None

    def recv(self, timeout: float = 10) -> dict[str, Any]:
        msg: dict[str, Any] = json.loads(self.ws.recv(timeout=timeout))
        if msg["type"] == "state":
            self.last = msg
        return msg

    def until(self, pred: Callable[[dict[str, Any]], bool], timeout: float = 15) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError("the expected frame never came")
            msg = self.recv(timeout=left)
            if pred(msg):
                return msg

    def version(self, v: int, timeout: float = 15) -> dict[str, Any]:
        """Wait for a state at version ``v`` (or later)."""
        if self.last is not None and self.last["version"] >= v:
            return self.last
        return self.until(lambda m: m["type"] == "state" and m["version"] >= v, timeout)

    def move(self, move: str, cid: str = "m") -> dict[str, Any]:
        """Send a move; the server's answer to it (``ack`` or ``error``)."""
        self.ws.send(json.dumps({"type": "move", "move": move, "id": cid}))
        return self.until(lambda m: m["type"] in ("ack", "error") and m.get("id") == cid)

    def close(self) -> None:
        self.ws.close()


class Cluster:
    """Workers on one database, started on first use and started again if a test killed one
    (a worker costs seconds to start: the tests of this module share them)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.running: dict[str, Worker] = {}
        self.started: list[Worker] = []

    def __call__(self, name: str, ai_delay: float = 0.0, *extra: str) -> Worker:
        w = self.running.get(name)
        if w is None or w.proc.poll() is not None:
            w = self.running[name] = Worker(self.url, name, ai_delay, *extra)
            self.started.append(w)
        return w

    def only(self, *names: str) -> None:
        """Kill the running workers not named: a test that counts on which worker's sweep takes
        an orphaned AI seat must not share the database with another worker's sweep (under
        ``pytest -n`` a module's tests run in any grouping, so a worker an earlier test left
        running, one with a 60 s AI delay among them, could take the seat and stall it)."""
        for name, w in self.running.items():
            if name not in names:
                w.kill()

    def stop(self) -> None:
        for w in self.started:
            w.kill()
            w.sockets.close()


@pytest.fixture(scope="module")
def workers(pg_server: PgServer) -> Iterator[Cluster]:
    with fresh_database(pg_server) as url:
        cluster = Cluster(url)
        try:
            yield cluster
        finally:
            cluster.stop()


def first_legal(sock: Sock) -> str:
    assert sock.last is not None
    moves: list[str] = sock.last["view"]["legal_moves"]
    assert moves
    return moves[0]


def test_created_on_a_played_through_b_watched_on_a(workers) -> None:
    a, b = workers("A"), workers("B")
    g = a.create(preset="classic", detectives=2, seed=7)
    watcher = a.ws(g, "spectator")
    x, dets = b.ws(g, "X"), b.ws(g, "detectives")
    for s in (watcher, x, dets):
        s.version(0)
    true_x = b.state(g, "X")["view"]["mr_x_station"]
    for ply in range(1, 9):  # two rounds: X, then the detectives one by one
        mover = x if x.last["view"]["legal_moves"] else dets  # type: ignore[index]
        mover.version(ply - 1)
        answer = mover.move(first_legal(mover), cid=f"p{ply}")
        assert answer["type"] == "ack" and answer["version"] == ply, answer
        seen = watcher.version(ply)  # the spectator on A follows the game played on B
        assert seen["version"] == ply
        for s in (x, dets):
            s.version(ply)
        if mover is x:
            true_x = x.last["view"]["mr_x_station"]  # type: ignore[index]
        # the hidden station never reaches the spectator (outside reveal rounds)
        if seen["view"]["log"] and not seen["view"]["log"][-1].get("station"):
            assert seen["view"]["mr_x_station"] != true_x or seen["view"]["mr_x_station"] is None
    # presence: every seat's player is connected (through B), as the spectator on A sees it
    assert all(seat["connected"] for p, seat in watcher.last["seats"].items()), watcher.last["seats"]  # type: ignore[index]
    dets.close()
    gone = watcher.until(lambda m: m["type"] == "state" and not m["seats"]["D1"]["connected"])
    assert gone["seats"]["X"]["connected"] and not gone["seats"]["D2"]["connected"]
    # chat crosses workers too, each channel only to its readers
    dets_a, dets_b = a.ws(g, "detectives"), b.ws(g, "detectives")
    dets_a.until(lambda m: m["type"] == "chat_history")
    dets_b.until(lambda m: m["type"] == "chat_history")
    dets_b.ws.send(json.dumps({"type": "chat", "channel": "team", "text": "plan", "id": "c1"}))
    assert dets_a.until(lambda m: m["type"] == "chat")["message"]["text"] == "plan"
    x.ws.send(json.dumps({"type": "chat", "channel": "table", "text": "hello", "id": "c2"}))
    heard = watcher.until(lambda m: m["type"] == "chat")  # the first chat A's spectator gets
    assert heard["message"]["text"] == "hello" and heard["message"]["channel"] == "table"
    assert a.state(g, "spectator")["version"] == 8 == b.state(g, "spectator")["version"]
    assert a.state(g, "X")["view"] == b.state(g, "X")["view"]
    assert a.health()["notifications"] >= 8  # A heard every move B stored


def test_the_same_ply_from_two_workers_exactly_one_wins(workers) -> None:
    a, b = workers("A"), workers("B")
    wins: dict[str, int] = {"a": 0, "b": 0}
    codes: set[str] = set()
    for seed in range(6):
        g = a.create(preset="classic", detectives=1, seed=seed)
        xa, xb = a.ws(g, "X"), b.ws(g, "X")
        xa.version(0)
        xb.version(0)
        moves = xa.last["view"]["legal_moves"]  # type: ignore[index]
        barrier = threading.Barrier(2)
        answers: dict[str, dict[str, Any]] = {}

        def go(name: str, sock: Sock, move: str, barrier: threading.Barrier = barrier,
               answers: dict[str, dict[str, Any]] = answers) -> None:
            barrier.wait()
            answers[name] = sock.move(move, cid=name)

        ts = [threading.Thread(target=go, args=("a", xa, moves[0])),
              threading.Thread(target=go, args=("b", xb, moves[-1]))]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        kinds = sorted(m["type"] for m in answers.values())
        assert kinds == ["ack", "error"], answers
        winner = "a" if answers["a"]["type"] == "ack" else "b"
        loser = answers["b" if winner == "a" else "a"]
        codes.add(loser["code"])
        assert loser["code"] in ("not_taken", "not_your_turn"), loser
        wins[winner] += 1
        # both workers, and both sockets, agree on the one move that was taken
        sa, sb = xa.version(1), xb.version(1)
        assert sa["view"] == sb["view"] and sa["version"] == sb["version"] == 1
        assert a.state(g, "X")["view"] == b.state(g, "X")["view"] == sa["view"]
        won = moves[0] if winner == "a" else moves[-1]
        assert sa["view"]["mr_x_station"] == int(re.findall(r"\d+", won)[-1])
        xa.close()
        xb.close()
    assert sum(wins.values()) == 6


def _bot(sock: Sock, stop_at: int, seed: int, errors: list[dict[str, Any]],
         refused: list[dict[str, Any]]) -> None:
    """Move at once on every state that offers this socket a move (the stress benchmark's
    bot), one move at a time, until the game reaches ``stop_at`` plies or ends."""
    import random

    rng, acted, waiting = random.Random(seed), -1, False
    while True:
        msg = sock.recv(timeout=20)
        if msg["type"] == "ack":
            waiting = False
        elif msg["type"] == "error":
            (refused if msg["code"] == "not_taken" else errors).append(msg)
            waiting, acted = False, -1
            sock.ws.send(json.dumps({"type": "sync"}))
        elif msg["type"] == "state":
            if msg["view"]["outcome"] is not None or msg["version"] >= stop_at:
                return
            if not waiting and msg["view"]["legal_moves"] and msg["version"] != acted:
                acted, waiting = msg["version"], True
                sock.ws.send(json.dumps({"type": "move", "id": acted,
                                         "move": rng.choice(msg["view"]["legal_moves"])}))


def test_a_burst_of_moves_alternating_between_workers_ends_with_every_client_on_one_view(
        workers) -> None:
    """Mr X plays through A, the detectives through B, spectators watch on both, and the bots
    move the instant they are sent a state: every move of A reaches B's sockets through a
    notification and a reload, and back. No move is refused, and every client ends on the
    same, latest view."""
    a, b = workers("A"), workers("B")
    for seed in (1, 2):
        g = a.create(preset="classic", detectives=3, seed=seed)
        x, dets = a.ws(g, "X"), b.ws(g, "detectives")
        spect_a, spect_b = a.ws(g, "spectator"), b.ws(g, "spectator")
        errors: list[dict[str, Any]] = []
        refused: list[dict[str, Any]] = []
        bots = [threading.Thread(target=_bot, args=(s, 40, seed * 10 + i, errors, refused))
                for i, s in enumerate((x, dets))]
        for t in bots:
            t.start()
        for t in bots:
            t.join(timeout=120)
        assert not any(t.is_alive() for t in bots)
        assert errors == [] and refused == []  # nobody raced: one mover per piece
        final = b.state(g, "spectator")["version"]
        assert final >= 40 or b.state(g, "spectator")["view"]["outcome"] is not None
        views = [s.version(final) for s in (x, dets, spect_a, spect_b)]
        assert {v["version"] for v in views} == {final}
        assert views[2]["view"] == views[3]["view"] == a.state(g, "spectator")["view"]
        assert views[0]["view"] == b.state(g, "X")["view"]
        assert views[1]["view"] == a.state(g, "detectives")["view"]
        assert views[2]["commitments"] == views[3]["commitments"] == views[0]["commitments"]
        for s in (x, dets, spect_a, spect_b):
            s.close()


def test_kill_9_a_worker_its_clients_continue_on_the_other_with_every_acked_move(workers) -> None:
    a, b = workers("A"), workers("B")
    g = a.create(preset="classic", detectives=2, seed=11)
    x, dets = a.ws(g, "X"), a.ws(g, "detectives")
    x.version(0)
    dets.version(0)
    acked = 0
    for ply in range(1, 7):
        mover = x if x.last["view"]["legal_moves"] else dets  # type: ignore[index]
        mover.version(ply - 1)
        assert mover.move(first_legal(mover), cid=f"p{ply}")["type"] == "ack"
        acked = ply
        for s in (x, dets):
            s.version(ply)
    before = x.last["view"]  # type: ignore[index]
    watcher = b.ws(g, "spectator")
    watcher.version(acked)
    # X's socket is on A: B asks who is connected when it loads the game, and A answers
    watcher.until(lambda m: m["type"] == "state" and m["seats"]["X"]["connected"])
    a.kill(signal.SIGKILL)
    # B notices A is gone (its database connections vanished): X shows as away
    assert not watcher.until(lambda m: m["type"] == "state"
                             and not m["seats"]["X"]["connected"])["seats"]["X"]["connected"]
    with pytest.raises((ConnectionClosed, TimeoutError, OSError)):
        for _ in range(20):
            x.recv(timeout=5)
    # the clients reconnect, to B, with the same tokens
    x2, dets2 = b.ws(g, "X"), b.ws(g, "detectives")
    st = x2.version(acked)
    assert st["version"] == acked and st["view"] == before
    dets2.version(acked)
    mover = x2 if st["view"]["legal_moves"] else dets2
    assert mover.move(first_legal(mover), cid="after")["type"] == "ack"
    assert b.state(g, "spectator")["version"] == acked + 1


def test_an_ai_seat_whose_worker_dies_is_taken_over_within_seconds(workers) -> None:
    workers.only("C", "B")
    c = workers("C", ai_delay=60.0)  # C plays the AI seat, but waits long before each move
    g = c.create(preset="classic", detectives=1, seed=3,
                 seats={"X": {"kind": "ai", "agent": "random"}})
    b = workers("B")
    dets = b.ws(g, "detectives")
    dets.version(0)
    assert c.health()["ai_games"] == 1
    c.kill(signal.SIGKILL)
    t0 = time.monotonic()
    dets.version(1, timeout=15)  # B's sweep found the orphaned seat and played it
    assert time.monotonic() - t0 < 10
    # and B plays it from now on: the AI answers the detective's move
    assert dets.move(first_legal(dets), cid="d1")["type"] == "ack"
    dets.version(3, timeout=15)


def _lock_holder(url: str, game_id: str) -> str | None:
    """The id of the worker holding ``game_id``'s advisory lock (``store/postgres.py``), or None."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as db:
        row = db.execute(
            "SELECT a.application_name FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid "
            "WHERE l.locktype = 'advisory' AND l.granted AND l.classid = %s "
            "AND l.objid = hashtext(%s)::oid", (0x5C07, game_id)).fetchone()
    return None if row is None else str(row[0]).removeprefix("scotlandyard-")


def test_a_clock_whose_worker_dies_is_judged_by_another(workers) -> None:
    """The worker holding a game (its AI seat) judges its clock; killed before Mr X's time
    runs out, the other worker, where Mr X's player sits, judges the time-out itself (its
    ``timeout_lost`` notice goes only to the judging worker's sockets). Its clock counts the
    move's time from when it loaded the game (the time spent before is not stored)."""
    workers.only("C", "B")  # the game's holder is one of these two
    pair = [workers("C", 60.0), workers("B")]
    created = time.monotonic()
    g = pair[0].create(preset="classic", detectives=1, seed=4,
                       seats={"D1": {"kind": "ai", "agent": "random"}},
                       clock={"per_move": 15, "on_timeout": "lose"})
    ids = {w.health()["worker"]: w for w in pair}
    deadline = time.monotonic() + 10
    while (holder_id := _lock_holder(workers.url, g["game_id"])) is None:
        assert time.monotonic() < deadline  # a sweep takes the game (its AI seat waits)
        time.sleep(0.1)
    holder = ids[holder_id]
    other = pair[1] if holder is pair[0] else pair[0]
    x = other.ws(g, "X")  # Mr X's player, on the other worker, does not move
    assert x.version(0)["clock"]["turn"] == "mr_x"
    holder.kill(signal.SIGKILL)
    assert time.monotonic() - created < 14  # killed before the time ran out
    notice = x.until(lambda m: m["type"] == "notice", timeout=30)
    assert notice["code"] == "timeout_lost" and notice["side"] == "mr_x"
    st = x.until(lambda m: m["type"] == "state" and m["adjudication"] is not None)
    assert st["adjudication"]["winner"] == "detectives" and st["adjudication"]["reason"] == "time"
    assert other.state(g, "spectator")["adjudication"] == st["adjudication"]
    x.close()


def test_sigterm_drains_closes_sockets_1012_and_gives_ai_games_back(workers) -> None:
    workers.only("D", "B")  # B, not a slow C left by another test, takes the AI seat back
    a = workers("D", 60.0, "--log-format", "json")
    g = a.create(preset="classic", detectives=1, seed=5,
                 seats={"X": {"kind": "ai", "agent": "random"}})
    b = workers("B")
    sock = a.ws(g, "spectator")
    sock.version(0)
    a.kill(signal.SIGTERM)
    with pytest.raises(ConnectionClosed) as closed:
        for _ in range(20):  # frames sent before the drain come first
            sock.recv(timeout=10)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1012
    assert a.proc.returncode in (0, -signal.SIGTERM)  # uvicorn re-raises the signal it drained on
    assert any("scotlandyard server stopped" in line for line in a.output)
    watcher = b.ws(g, "spectator")
    try:
        watcher.version(1, timeout=15)
    except TimeoutError:  # show what B was doing
        pytest.fail(f"worker B did not play the AI seat within 15 s; its health: {b.health()}; "
                    f"its log's tail:\n{''.join(b.output[-40:])}")
    # its log: one JSON object a line, no tokens (the sockets' URLs carried them)
    lines = [json.loads(line) for line in a.output]
    assert any(r["logger"] == "uvicorn.access" and r["path"] == "/api/health" for r in lines)
    assert any("/ws/" in r["msg"] and "token=REDACTED" in r["msg"] for r in lines)
    assert {r["worker"] for r in lines} == {"D"} and not any(r["level"] == "ERROR" for r in lines)
    assert not any(t in line for line in a.output for t in g["tokens"].values())


def test_a_move_another_worker_stored_first_is_not_taken_and_the_room_catches_up(
        pg_url: str) -> None:
    """In process: the other worker is played by raw SQL that sends no notification, so this
    worker's room is stale when its player moves; the (game, ply) key refuses the move."""
    import psycopg
    from fastapi.testclient import TestClient

    from scotlandyard.server.app import create_app
    from scotlandyard.server.tokens import commitment_hash

    with TestClient(create_app(pg_url, ai_delay=0)) as client:
        g = client.post("/api/games", json={"preset": "classic", "detectives": 1}).json()
        gid = g["game_id"]
        with client.websocket_connect(f"/ws/{gid}?token={g['tokens']['X']}") as ws:
            assert ws.receive_json()["type"] == "welcome"
            while (state := ws.receive_json())["type"] != "state":
                pass  # chat_history comes first
            legal = [m for m in state["view"]["legal_moves"] if "+" not in m]
            theirs, mine = legal[-1], legal[0]
            dest = int(re.findall(r"\d+", theirs)[-1])
            with psycopg.connect(pg_url, autocommit=True) as db:
                db.execute("INSERT INTO moves VALUES (%s, 1, 'X', %s, 0)", (gid, theirs))
                db.execute("INSERT INTO commitments VALUES (%s, 1, %s, 's', %s)",
                           (gid, dest, commitment_hash(gid, 1, dest, "s")))
            ws.send_json({"type": "move", "move": mine, "id": "mine"})
            fresh = ws.receive_json()
            assert fresh["type"] == "state" and fresh["version"] == 1
            assert fresh["view"]["mr_x_station"] == dest  # the other worker's move stands
            err = ws.receive_json()
            assert err["type"] == "error" and err["code"] == "not_taken" and err["id"] == "mine"
            assert "version 1" in err["message"]
        st = client.get(f"/api/games/{gid}/state", params={"token": g["tokens"]["X"]}).json()
        assert st["version"] == 1 and st["view"]["mr_x_station"] == dest


# ---- in process: two workers' apps on one database, the notify -> reload path made to lag ----
def _state(ws: Any) -> dict[str, Any]:
    """The next ``state`` frame of a TestClient socket (chat history and notices skipped)."""
    while (msg := ws.receive_json())["type"] != "state":
        pass
    return msg  # type: ignore[no-any-return]


def _answer(ws: Any, cid: str) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The frames before the answer (``ack`` or ``error``) to ``cid``, and the answer."""
    before = []
    while True:
        msg = ws.receive_json()
        if msg["type"] in ("ack", "error") and msg.get("id") == cid:
            return before, msg
        before.append(msg)


def test_a_notification_heard_while_this_worker_commits_its_own_move_is_harmless(
        pg_url: str) -> None:
    """The race behind the two-worker stress errors: another worker's (late) notification of
    this game is acted on while this worker's own move is being committed. The reload must
    not take that move in a second time: the move is acknowledged, the game and its
    commitments hold it once."""
    import psycopg
    from fastapi.testclient import TestClient

    from scotlandyard.server.app import create_app

    with TestClient(create_app(pg_url, ai_delay=0)) as client:
        server, cluster = client.app.state.games, client.app.state.cluster  # type: ignore[attr-defined]
        store = server.store
        g = client.post("/api/games", json={"preset": "classic", "detectives": 1}).json()
        gid = g["game_id"]
        real_add_move = store.add_move

        def add_move_then_hear_a_late_notification(*args: Any, **kwargs: Any) -> None:
            real_add_move(*args, **kwargs)  # committed
            heard = cluster.notified
            with psycopg.connect(pg_url, autocommit=True) as other:  # "another worker"
                other.execute("SELECT pg_notify('scotlandyard_games', %s)", (f"{gid} other",))
            deadline = time.monotonic() + 10  # until this worker's event loop has acted on it
            while cluster.notified == heard and time.monotonic() < deadline:
                time.sleep(0.01)
            assert cluster.notified > heard

        store.add_move = add_move_then_hear_a_late_notification
        with client.websocket_connect(f"/ws/{gid}?token={g['tokens']['X']}") as ws:
            st = _state(ws)
            move = next(m for m in st["view"]["legal_moves"] if "+" not in m)
            ws.send_json({"type": "move", "move": move, "id": "m1"})
            _, answer = _answer(ws, "m1")
            assert answer == {"type": "ack", "id": "m1", "version": 1}
            assert _state(ws)["version"] == 1
        room = server.rooms.get(gid)
        assert room is None or (room.game.ply == 1 and [c.slot for c in room.commitments] == [0, 1])
        st = client.get(f"/api/games/{gid}/state", params={"token": g["tokens"]["X"]}).json()
        assert st["version"] == 1 and [c["slot"] for c in st["commitments"]] == [0, 1]


def test_a_worker_that_has_not_heard_yet_validates_against_the_database(pg_url: str) -> None:
    """B has not yet acted on A's notification (held back here) when a client on B moves from
    the position A's move made: B finds the newer ply in the database, reloads and takes the
    move instead of answering ``not_your_turn``; a client on B that moves from the old
    position is told ``not_taken`` after the current state, never ``illegal_move``."""
    from fastapi.testclient import TestClient

    from scotlandyard.server.app import create_app

    with TestClient(create_app(pg_url, ai_delay=0)) as a, \
            TestClient(create_app(pg_url, ai_delay=0)) as b:
        held: list[tuple[Any, ...]] = []
        b.app.state.cluster.changed = lambda *note: held.append(note)  # type: ignore[attr-defined]
        g = a.post("/api/games", json={"preset": "classic", "detectives": 2}).json()
        gid, tok = g["game_id"], g["tokens"]
        with a.websocket_connect(f"/ws/{gid}?token={tok['X']}") as xa, \
                a.websocket_connect(f"/ws/{gid}?token={tok['detectives']}") as da, \
                b.websocket_connect(f"/ws/{gid}?token={tok['X']}") as xb, \
                b.websocket_connect(f"/ws/{gid}?token={tok['detectives']}") as db:
            legal = [m for m in _state(xa)["view"]["legal_moves"] if "+" not in m]
            for ws in (da, xb, db):
                _state(ws)
            xa.send_json({"type": "move", "move": legal[0], "id": "x1"})
            assert _answer(xa, "x1")[1]["type"] == "ack"
            assert held  # B has not heard of it
            # X's other socket, on B, still shows version 0 and moves from it: B's copy of the
            # game takes the move, the database refuses it (ply 1 is taken)
            xb.send_json({"type": "move", "move": legal[-1], "id": "x2"})
            before, answer = _answer(xb, "x2")
            assert answer["type"] == "error" and answer["code"] == "not_taken", answer
            assert "version 1" in answer["message"]
            states = [m for m in before if m["type"] == "state"]
            assert states and states[-1]["version"] == 1  # here is the current state
            # D1 moves through A; B does not hear of it either
            while (st := _state(da))["version"] < 1:
                pass
            da.send_json({"type": "move", "move": st["view"]["legal_moves"][0], "id": "d1"})
            assert _answer(da, "d1")[1] == {"type": "ack", "id": "d1", "version": 2}
            # D2's move from the position A shows (its REST state), sent through B: B finds
            # the newer ply in the database, catches up and takes it
            fresh = a.get(f"/api/games/{gid}/state", params={"token": tok["detectives"]}).json()
            assert fresh["version"] == 2 and fresh["view"]["legal_moves"]
            db.send_json({"type": "move", "move": fresh["view"]["legal_moves"][0], "id": "d2"})
            before, answer = _answer(db, "d2")
            assert answer == {"type": "ack", "id": "d2", "version": 3}, (before, answer)
            assert [m["version"] for m in before if m["type"] == "state"][-1] == 2
        for client in (a, b):
            st = client.get(f"/api/games/{gid}/state", params={"token": tok["X"]}).json()
            assert st["version"] == 3


def test_chat_posted_through_two_workers_at_once_is_numbered_once(pg_url: str) -> None:
    """Mr X chats through A while the detectives chat through B, at the same moments: every
    message gets its own number, and both sockets are sent all of them, each once."""
    from fastapi.testclient import TestClient

    from scotlandyard.server.app import create_app

    with TestClient(create_app(pg_url, ai_delay=0)) as a, \
            TestClient(create_app(pg_url, ai_delay=0)) as b:
        g = a.post("/api/games", json={"preset": "classic", "detectives": 1}).json()
        gid, tok = g["game_id"], g["tokens"]
        with a.websocket_connect(f"/ws/{gid}?token={tok['X']}") as xa, \
                b.websocket_connect(f"/ws/{gid}?token={tok['detectives']}") as db:
            _state(xa)
            _state(db)
            barrier = threading.Barrier(2)

            def post(ws: Any, who: str) -> None:
                barrier.wait()
                for i in range(5):  # the chat's burst: no rate limit
                    ws.send_json({"type": "chat", "channel": "table", "text": f"{who}{i}",
                                  "id": f"{who}{i}"})

            ts = [threading.Thread(target=post, args=(ws, who)) for ws, who in ((xa, "x"), (db, "d"))]
            for t in ts:
                t.start()
            for t in ts:
                t.join()
            for ws in (xa, db):
                heard: dict[int, str] = {}
                while len(heard) < 10:
                    msg = ws.receive_json()
                    assert msg["type"] != "error", msg
                    if msg["type"] == "chat":
                        n = msg["message"]["n"]
                        assert n not in heard, (n, msg, heard)  # each message once
                        heard[n] = msg["message"]["text"]
                assert sorted(heard) == list(range(1, 11))
                assert sorted(heard.values()) == sorted(f"{w}{i}" for w in "xd" for i in range(5))


def test_a_listener_that_lost_its_connection_catches_up_on_every_game(pg_url: str) -> None:
    """A move stored while this worker's listening connection is down (here: without any
    notification) reaches its sockets once the listener has connected again."""
    import psycopg
    from fastapi.testclient import TestClient

    from scotlandyard.server.app import create_app
    from scotlandyard.server.tokens import commitment_hash

    with TestClient(create_app(pg_url, ai_delay=0)) as client:
        worker = client.app.state.games.store.worker_id  # type: ignore[attr-defined]
        g = client.post("/api/games", json={"preset": "classic", "detectives": 1}).json()
        gid = g["game_id"]
        with client.websocket_connect(f"/ws/{gid}?token={g['tokens']['spectator']}") as ws:
            _state(ws)
            x = client.get(f"/api/games/{gid}/state", params={"token": g["tokens"]["X"]}).json()
            theirs = next(m for m in x["view"]["legal_moves"] if "+" not in m)
            dest = int(re.findall(r"\d+", theirs)[-1])
            with psycopg.connect(pg_url, autocommit=True) as db:
                db.execute("INSERT INTO moves VALUES (%s, 1, 'X', %s, 0)", (gid, theirs))
                db.execute("INSERT INTO commitments VALUES (%s, 1, %s, 's', %s)",
                           (gid, dest, commitment_hash(gid, 1, dest, "s")))
                gone = db.execute(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE "
                    "application_name = %s AND query LIKE 'LISTEN%%'",
                    (f"scotlandyard-{worker}",)).fetchall()
                assert gone == [(True,)]
            st = _state(ws)  # the catch-up after the listener's reconnection
            assert st["version"] == 1 and st["view"]["log"][0]["ticket"]


def test_a_reload_after_a_takeback_on_another_worker_reads_nothing_on_the_event_loop(
        pg_url: str) -> None:
    """Moves taken back through A: B, which shows the game, replays it from the rows it read
    in its database thread; no store read runs on B's event loop (a slow database would
    stall every game of B), and B's socket ends on the position after the takeback."""
    import asyncio

    from fastapi.testclient import TestClient

    from scotlandyard.server.app import create_app

    with TestClient(create_app(pg_url, ai_delay=0)) as a, \
            TestClient(create_app(pg_url, ai_delay=0)) as b:
        g = a.post("/api/games", json={"preset": "classic", "detectives": 1}).json()
        gid, tok = g["game_id"], g["tokens"]
        b_store = b.app.state.games.store  # type: ignore[attr-defined]
        on_loop: list[str] = []

        def watched(name: str) -> Callable[..., Any]:
            real = getattr(b_store, name)

            def call(*args: Any, **kwargs: Any) -> Any:
                try:
                    asyncio.get_running_loop()
                    on_loop.append(name)  # called on the event loop's thread
                except RuntimeError:
                    pass
                return real(*args, **kwargs)
            return call

        with a.websocket_connect(f"/ws/{gid}?token={tok['X']}") as xa, \
                a.websocket_connect(f"/ws/{gid}?token={tok['detectives']}") as da, \
                b.websocket_connect(f"/ws/{gid}?token={tok['spectator']}") as sb:
            st = _state(xa)
            _state(da)
            _state(sb)
            xa.send_json({"type": "move", "move": next(m for m in st["view"]["legal_moves"]
                                                       if "+" not in m), "id": "x1"})
            assert _answer(xa, "x1")[1]["type"] == "ack"
            while (st := _state(da))["version"] < 1:
                pass
            da.send_json({"type": "move", "move": st["view"]["legal_moves"][0], "id": "d1"})
            assert _answer(da, "d1")[1]["type"] == "ack"
            while _state(sb)["version"] < 2:
                pass
            for name in ("load_game", "options", "token_names", "clock", "adjudication", "chat"):
                setattr(b_store, name, watched(name))
            # the takeback as A's room makes it (both sides agreed): D1's move undone
            a.app.state.games.store.undo_moves(gid, 2, 1)  # type: ignore[attr-defined]
            while (seen := _state(sb))["version"] != 1:
                pass
        assert seen["view"]["round"] == 1 and [c["slot"] for c in seen["commitments"]] == [0, 1]
        assert not on_loop, on_loop
