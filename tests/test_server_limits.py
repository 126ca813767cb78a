"""What one client, game or socket may use (issue 10, findings 2 and 7): a fair AI queue with a
server-wide cap on the strongest levels, AI Mr X's reply time independent of his position,
eviction of sockets that do not read, idle games archived out of memory and loaded on demand."""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from scotlandyard.server import thinker
from scotlandyard.server.app import create_app
from scotlandyard.server.connections import Connection
from scotlandyard.server.limits import Limits

pytestmark = pytest.mark.timeout(120)


def app(db: Path, ai_delay: float = 0.0, pace_mr_x: bool = True, **limits: Any) -> TestClient:
    return TestClient(create_app(db, ai_delay=ai_delay, limits=Limits(**limits),
                                 pace_mr_x=pace_mr_x))


def create(c: TestClient, **body: Any) -> dict:
    r = c.post("/api/games", json=body)
    assert r.status_code == 201, r.text
    return r.json()


def spearman(xs: list[float], ys: list[float]) -> float:
    def ranks(v: list[float]) -> list[float]:
        order = sorted(range(len(v)), key=v.__getitem__)
        out = [0.0] * len(v)
        i = 0
        while i < len(v):
            j = i
            while j + 1 < len(v) and v[order[j + 1]] == v[order[i]]:
                j += 1
            for k in range(i, j + 1):
                out[order[k]] = (i + j) / 2
            i = j + 1
        return out
    rx, ry = ranks(xs), ranks(ys)
    mx, my = sum(rx) / len(rx), sum(ry) / len(ry)
    cov = sum((a - mx) * (b - my) for a, b in zip(rx, ry, strict=True))
    var = (sum((a - mx) ** 2 for a in rx) * sum((b - my) ** 2 for b in ry)) ** 0.5
    return cov / var if var else 0.0


# ---- the AI queue -----------------------------------------------------------------------------
class _Blocking:
    """A 'max' level that thinks for ``seconds`` and counts how many think at once."""

    name = "max"
    lock = threading.Lock()
    now = 0
    most = 0
    seconds = 1.5

    def choose(self, view, legal, rng, budget):
        with _Blocking.lock:
            _Blocking.now += 1
            _Blocking.most = max(_Blocking.most, _Blocking.now)
        time.sleep(_Blocking.seconds)
        with _Blocking.lock:
            _Blocking.now -= 1
        return legal[0]


def test_a_cheap_level_never_waits_behind_the_strongest_and_they_are_capped(tmp_path, monkeypatch):
    from scotlandyard.ai import agent_names, base

    agent_names()  # the built-in levels are registered first, then 'max' is replaced
    monkeypatch.setitem(base._REGISTRY, "max", lambda **_: _Blocking())
    _Blocking.now = _Blocking.most = 0
    with app(tmp_path / "g.sqlite3", heavy_ai=1, pace_mr_x=False) as c:
        for _ in range(10):  # ten games whose AI Mr X plays 'max': more than the old thread pool
            create(c, detectives=1, seats={"X": {"kind": "ai", "agent": "max"}})
        time.sleep(0.3)
        g = create(c, detectives=1, seats={"X": {"kind": "ai", "agent": "random"}})
        t0 = time.perf_counter()
        with c.websocket_connect(f"/ws/{g['game_id']}?token={g['tokens']['D1']}") as ws:
            while True:
                msg = ws.receive_json()
                if msg["type"] == "state" and msg["version"] >= 1:
                    break
        waited = time.perf_counter() - t0
        assert waited < 1.0, f"the random Mr X waited {waited:.2f} s behind the 'max' games"
        time.sleep(_Blocking.seconds * 1.5)
        assert _Blocking.most == 1  # the server-wide cap on the strongest level


class _Busy:
    """A 'max' level that thinks for 0.25 s (either side)."""

    name = "max"

    def choose(self, view, legal, rng, budget):
        time.sleep(0.25)
        return legal[rng.randrange(len(legal))]


def test_one_client_with_many_heavy_ai_games_does_not_starve_another(tmp_path, monkeypatch):
    """One address opens eight games where the strongest level plays both sides (each always
    wants the heavy lane; D2 is a human seat nobody took); another address's first heavy AI
    move waits for at most one of theirs, not for all eight (the lane serves addresses, by
    /24, in turn, then each one's games in order)."""
    import httpx

    from scotlandyard.ai import agent_names, base

    agent_names()
    monkeypatch.setitem(base._REGISTRY, "max", lambda **_: _Busy())
    heavy = {"kind": "ai", "agent": "max"}
    with app(tmp_path / "g.sqlite3", heavy_ai=1, pace_mr_x=False) as c:

        async def post_from(address: str, body: dict) -> dict:
            transport = httpx.ASGITransport(app=c.app, client=(address, 4000))
            async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as h:
                r = await h.post("/api/games", json=body)
                assert r.status_code == 201, r.text
                return r.json()

        for _ in range(8):  # (a human seat each: these are not served after the other's)
            c.portal.call(post_from, "10.0.1.1", {"detectives": 2, "seats": {"X": heavy,
                                                                             "D1": heavy}})
        time.sleep(0.6)  # the eight games are under way, each with a move waiting in the lane
        g = c.portal.call(post_from, "10.0.2.1", {"detectives": 1, "seats": {"X": heavy}})
        t0 = time.perf_counter()
        with c.websocket_connect(f"/ws/{g['game_id']}?token={g['tokens']['D1']}") as ws:
            while (msg := ws.receive_json())["type"] != "state" or msg["version"] < 1:
                pass
        waited = time.perf_counter() - t0
    assert waited < 1.0, f"the other address's Mr X waited {waited:.2f} s behind eight games"


def test_the_fair_lane_serves_owners_in_turn_and_loses_no_slot_to_cancelled_waiters():
    from scotlandyard.server.thinker import FairLane

    async def go() -> None:
        lane, order = FairLane(1), []

        async def job(owner: str, tag: str) -> None:
            async with lane.hold(owner):
                order.append(tag)
                await asyncio.sleep(0.01)

        tasks = [asyncio.create_task(job("a", f"a{i}")) for i in range(4)]
        await asyncio.sleep(0)
        tasks += [asyncio.create_task(job(o, f"{o}1")) for o in ("b", "c")]
        await asyncio.sleep(0)
        tasks[-1].cancel()                      # c's move is dropped while it waits
        await asyncio.gather(*tasks, return_exceptions=True)
        assert order == ["a0", "a1", "b1", "a2", "a3"]
        assert (lane.busy, lane.waiting) == (0, 0)

        await lane._acquire("a")
        x = asyncio.create_task(lane._acquire("x"))
        y = asyncio.create_task(lane._acquire("y"))
        await asyncio.sleep(0)
        lane._release("a")                      # the slot is handed to x ...
        x.cancel()                              # ... which is cancelled before it runs
        await asyncio.gather(x, return_exceptions=True)
        await asyncio.wait_for(y, 1.0)          # the slot went on to y
        assert (lane.busy, lane.waiting) == (1, 0)

    asyncio.run(go())


# ---- 7. AI Mr X's think time does not show ---------------------------------------------------------
class _Leaky:
    """A Mr X whose think time grows with his number of legal moves (a hidden fact)."""

    name = "leaky"
    legal_counts: list[int] = []

    def choose(self, view, legal, rng, budget):
        _Leaky.legal_counts.append(len(legal))
        time.sleep(min(0.3, 0.004 * len(legal)))
        return legal[rng.randrange(len(legal))]


def _reply_times(c: TestClient, samples: int) -> tuple[list[float], list[int]]:
    """Seconds from 'Mr X to move' to his move arriving, as a spectator sees them, each with
    the number of legal moves Mr X had for that move."""
    times: list[float] = []
    turns: list[int] = []  # which of the agent's calls each time belongs to
    while len(times) < samples:
        first_call = len(_Leaky.legal_counts)
        g = create(c, detectives=1, seats={"X": {"kind": "ai", "agent": "leaky"},
                                           "D1": {"kind": "ai", "agent": "random"}})
        with c.websocket_connect(f"/ws/{g['game_id']}?token={g['tokens']['spectator']}") as ws:
            since = None
            snapshot = True  # the first frame is the state on connecting, not a move's news
            x_turns = 0
            while True:
                msg = ws.receive_json()
                if msg["type"] != "state":
                    continue
                now = time.perf_counter()
                if since is not None:
                    times.append(now - since)
                    since = None
                view = msg["view"]
                if view["outcome"] is not None or len(times) >= samples:
                    break
                if view["to_move"] == "X":
                    # Mr X's pace starts when his turn does, on the server: if the snapshot finds
                    # him to move, part of it has already passed (0.035 s seen in a CI run), so
                    # only turns that begin while watching are timed.
                    if not snapshot:
                        since = now
                        turns.append(first_call + x_turns)
                    x_turns += 1
                snapshot = False
    return times, [_Leaky.legal_counts[i] for i in turns[: len(times)]]


@pytest.mark.parametrize("paced", [False, True], ids=["unpaced", "paced"])
def test_ai_mr_x_reply_time_does_not_follow_his_legal_moves(tmp_path, monkeypatch, paced):
    from scotlandyard.ai import base

    monkeypatch.setitem(base._REGISTRY, "leaky", lambda **_: _Leaky())
    _Leaky.legal_counts = []
    with app(tmp_path / "g.sqlite3", ai_delay=0.0, pace_mr_x=paced) as c:
        c.app.state.games.mr_x_pace["leaky"] = 0.4
        times, counts = _reply_times(c, 30)
    rho = spearman([float(n) for n in counts], times)
    print(f"paced={paced}: Spearman(reply time, Mr X's legal moves) = {rho:.2f} "
          f"over {len(times)} moves; replies {min(times):.3f}..{max(times):.3f} s")
    if paced:
        # Every reply comes at the pace (0.4 s), whatever the think took (0.02..0.3 s here): what
        # is left is the event loop's scheduling jitter, a few ms on a quiet machine, far below
        # the think-time range an observer could rank. (A rank correlation over that jitter is
        # noise-dominated at 30 samples, so the bound is on the spread itself.) The lower
        # bound allows 50 ms for the "X to move" frame reaching this client later than the
        # server sent it (seen at load 3 on 2 cores: 0.373 s); unpaced replies start at 0.01 s.
        # The spread's bound, 0.15 s, is half the think times' own spread (0.02..0.3 s, which an
        # unpaced server shows whole) and leaves room for a busy machine's scheduling (a bound
        # of 0.08 s failed now and then with the whole suite and other jobs on 2 cores).
        assert min(times) >= 0.35 and max(times) - min(times) < 0.15, (min(times), max(times))
    else:  # the leak this guards against, measured on the same server with pacing off
        assert rho > 0.6


@pytest.mark.parametrize("fast", [True, False], ids=["compiled", "pure_python"])
def test_every_level_replies_at_one_pace_whatever_mr_x_thinks(fast):
    """A level's Mr X thinks for no time at all (one legal move: a hidden fact), for his time
    budget (a time-bound search runs to its end), or half as long again (the second search of
    a double move, also hidden): each must come back at the same single pace, on the kernel
    that runs his search. With ``max`` paced at 10 s, a 10 s search always overran to 20 s
    and one legal move showed as 10 s; with ``medium`` at 1 s without numba (its search hits
    its 2 s cap there, 3 s with a double move), its reply time followed hidden facts again."""
    from scotlandyard.ai.agents import LEVELS

    paces = thinker.mr_x_paces(fast)
    for name, level in LEVELS.items():
        seconds = level.mr_x[2].seconds
        if seconds is None or (fast and name in thinker.PLAYOUT_BOUND_PACE):
            continue  # easy: no search; medium with numba: 1,000 iterations in 0.05 s
        pace = paces[name]
        longest = 1.5 * seconds + 0.5  # the double move's second search, the replay, the view
        for think in (0.0, seconds + 0.05, longest):
            assert think + thinker.paced_wait(think, pace) == pytest.approx(pace), (name, think)
    assert set(thinker.HEAVY_LEVELS) <= set(paces)


@pytest.mark.parametrize("numba", [True, False], ids=["compiled", "pure_python"])
def test_medium_mr_x_is_paced_for_the_kernel_that_runs_it(tmp_path, monkeypatch, numba):
    """The server paces an AI Mr X for the kernel its search runs on: ``medium`` at 1 s with
    numba (1,000 iterations in a few hundredths of a second), at 4 s without it (the search
    runs into its 2 s cap, 3 s with a double move: before, his replies came at 1 s or 2 s or
    3 s as his think took). The pure-Python path is forced as the agents find it: numba
    missing."""
    from scotlandyard.kernel import fast as kernel_fast

    if numba and not kernel_fast.numba_available():
        pytest.skip("numba is not installed")
    monkeypatch.setattr(kernel_fast, "numba_available", lambda: numba)
    if numba:
        from scotlandyard.warmup import AI_STEPS, warm_up

        warm_up(AI_STEPS)  # as `scotlandyard serve` does at start: compiled, not compiling
    pace = 1.0 if numba else 4.0
    with app(tmp_path / "g.sqlite3") as c:
        server = c.app.state.games
        assert server.fast_kernel is numba and server.mr_x_pace["medium"] == pace
        g = create(c, detectives=1, seats={"X": {"kind": "ai", "agent": "medium"}})
        t0 = time.perf_counter()
        with c.websocket_connect(f"/ws/{g['game_id']}?token={g['tokens']['D1']}") as ws:
            while (msg := ws.receive_json())["type"] != "state" or msg["version"] < 1:
                pass
        reply = time.perf_counter() - t0
    assert pace - 0.4 < reply < pace + 0.8, (pace, reply)


def test_every_ai_mr_x_is_paced_even_at_ai_delay_0(tmp_path):
    """``easy`` (one-move heuristics: a think of milliseconds that still follows his legal
    moves) replies at its 0.5 s pace at ``ai_delay`` 0; before, it replied at once (about
    0.01 s). Every agent this server knows has a pace of at least 0.5 s, one it does not know
    4 s."""
    from scotlandyard.ai import agent_names

    with app(tmp_path / "g.sqlite3", ai_delay=0.0) as c:
        server = c.app.state.games
        replies = []
        for agent in ("easy", "random"):
            g = create(c, detectives=1, seats={"X": {"kind": "ai", "agent": agent}})
            t0 = time.perf_counter()
            with c.websocket_connect(f"/ws/{g['game_id']}?token={g['tokens']['D1']}") as ws:
                while (msg := ws.receive_json())["type"] != "state" or msg["version"] < 1:
                    pass
            replies.append(time.perf_counter() - t0)
        assert all(0.35 < r < 1.0 for r in replies), replies
        paces = {name: thinker.mr_x_pace(server.mr_x_pace, name) for name in agent_names()}
    assert paces["easy"] == paces["random"] == 0.5 and min(paces.values()) >= 0.5, paces
    assert thinker.mr_x_pace(server.mr_x_pace, "some.module:policy") == thinker.DEFAULT_PACE == 4


class _Queued:
    """A 'max' AI whose Mr X thinks take the seconds in ``plan`` and detective thinks those in
    ``det_plan``, in order, noting when they began in ``began`` and ``det_began`` (once a
    plan is done: no time, not noted)."""

    name = "max"
    plan: list[float] = []
    began: list[float] = []
    det_plan: list[float] = []
    det_began: list[float] = []

    def choose(self, view, legal, rng, budget):
        if view.side == "mr_x" and _Queued.plan:
            _Queued.began.append(time.perf_counter())
            time.sleep(_Queued.plan.pop(0))
        elif view.side == "detectives" and _Queued.det_plan:
            _Queued.det_began.append(time.perf_counter())
            time.sleep(_Queued.det_plan.pop(0))
        return legal[0]


def _until(pred, seconds: float = 30.0) -> None:
    """Wait for ``pred()`` (a condition, not a time: fails only if it never comes)."""
    deadline = time.monotonic() + seconds
    while not pred():
        assert time.monotonic() < deadline, "the condition never came"
        time.sleep(0.02)


def test_time_in_the_heavy_queue_does_not_mix_with_mr_x_think_time(tmp_path, monkeypatch):
    """Game B's AI Mr X waits about 0.7 s in the heavy lane behind game A's detective (whose
    think, on public facts, hands the slot on when it ends), then thinks 0.05 s or 0.45 s (a
    hidden fact). Paced from when he was asked (the queue included) his reply came at 1 s or
    2 s; paced from when his think began it comes at 0.7 + 1 s either way."""
    from scotlandyard.ai import agent_names, base

    agent_names()
    monkeypatch.setitem(base._REGISTRY, "max", lambda **_: _Queued())
    replies = []
    with app(tmp_path / "g.sqlite3", heavy_ai=1) as c:
        c.app.state.games.mr_x_pace["max"] = 1.0
        for think in (0.05, 0.45):
            _Queued.plan, _Queued.began = [think], []
            _Queued.det_plan, _Queued.det_began = [0.7], []
            create(c, detectives=1, seats={"X": {"kind": "ai", "agent": "random"},
                                           "D1": {"kind": "ai", "agent": "max"}})
            _until(lambda: _Queued.det_began)              # A's detective holds the lane
            b = create(c, detectives=1, seats={"X": {"kind": "ai", "agent": "max"}})
            t0 = time.perf_counter()
            with c.websocket_connect(f"/ws/{b['game_id']}?token={b['tokens']['D1']}") as ws:
                while (msg := ws.receive_json())["type"] != "state" or msg["version"] < 1:
                    pass
            replies.append(time.perf_counter() - t0)
    assert abs(replies[0] - replies[1]) < 0.3, replies
    assert all(1.4 < r < 2.0 for r in replies), replies


def test_a_paced_mr_x_holds_his_heavy_slot_until_his_pace_ends(tmp_path, monkeypatch):
    """Game A's AI Mr X (a heavy level paced at 1 s) thinks 0.05 s or 0.45 s (a hidden fact);
    game B's heavy think waits for the one slot. B's think begins when A's pace ends, 1 s after
    A's began either way; before, it began when A's think ended (0.05 s or 0.45 s after), so
    B's wait told A's think time."""
    from scotlandyard.ai import agent_names, base

    agent_names()
    monkeypatch.setitem(base._REGISTRY, "max", lambda **_: _Queued())
    seats = {"X": {"kind": "ai", "agent": "max"}}
    gaps = []
    with app(tmp_path / "g.sqlite3", heavy_ai=1) as c:
        c.app.state.games.mr_x_pace["max"] = 1.0
        for think in (0.05, 0.45):
            _Queued.plan, _Queued.began = [think, 0.0], []
            create(c, detectives=1, seats=seats)           # A: takes the slot
            create(c, detectives=1, seats=seats)           # B: waits for it
            _until(lambda: len(_Queued.began) >= 2)
            gaps.append(_Queued.began[1] - _Queued.began[0])
    assert abs(gaps[0] - gaps[1]) < 0.25, gaps
    assert all(0.95 < g < 1.4 for g in gaps), gaps


def test_the_ai_standing_in_for_mr_x_on_time_is_paced_too(tmp_path, monkeypatch):
    """A human Mr X runs out of his 1 s per move and the clock's AI (here a 'max' that thinks
    0.05 s or 0.45 s, a hidden fact) makes his move: it comes at the level's pace after its
    think began, not when the think ends (before: 0.05 s and 0.45 s)."""
    from scotlandyard.ai import agent_names, base

    agent_names()
    monkeypatch.setitem(base._REGISTRY, "max", lambda **_: _Queued())
    replies = []
    with app(tmp_path / "g.sqlite3") as c:
        c.app.state.games.mr_x_pace["max"] = 1.0
        for think in (0.05, 0.45):
            _Queued.plan, _Queued.began = [think], []
            g = create(c, detectives=1, clock={"per_move": 1, "on_timeout": "ai",
                                               "agent": "max"})
            with c.websocket_connect(f"/ws/{g['game_id']}?token={g['tokens']['D1']}") as ws:
                while (msg := ws.receive_json())["type"] != "state" or msg["version"] < 1:
                    pass
            replies.append(time.perf_counter() - _Queued.began[0])
    assert abs(replies[0] - replies[1]) < 0.25, replies
    assert all(0.9 < r < 1.4 for r in replies), replies


def test_paced_wait_rounds_up_to_whole_multiples():
    assert thinker.paced_wait(0.1, 1.0) == pytest.approx(0.9)
    assert thinker.paced_wait(1.0, 1.0) == pytest.approx(0.0)
    assert thinker.paced_wait(1.2, 1.0) == pytest.approx(0.8)   # an overrun shows as 2 s
    assert thinker.paced_wait(0.3, 0.0) == 0.0


# ---- sockets that do not read -------------------------------------------------------------------
def test_a_socket_that_does_not_read_is_evicted():
    async def go() -> tuple[list[int], str | None, bool]:
        closed: list[int] = []
        stuck = asyncio.Event()

        async def send_text(text: str) -> None:
            await stuck.wait()  # the client never reads: the send never completes

        async def close(code: int) -> None:
            closed.append(code)

        evicted = []
        conn = Connection(send_text, close, "spectator", "spectator", (), send_timeout=0.2)
        conn.on_evict = lambda: evicted.append(True)
        conn.send("x" * 100)
        await asyncio.sleep(0.05)
        assert not conn.check(time.monotonic())       # not yet
        await asyncio.sleep(0.25)
        assert conn.check(time.monotonic())           # one frame stuck for 0.2 s: out
        await asyncio.sleep(0.05)
        conn.send("more")                             # nothing more is queued
        return closed, conn.evicted, bool(evicted)

    closed, why, stopped = asyncio.run(go())
    assert closed == [1013] and stopped and "no frame could be sent for 0.2 s" in why


def test_a_socket_too_far_behind_is_evicted():
    async def go() -> str | None:
        async def send_text(text: str) -> None:
            await asyncio.sleep(10)

        async def close(code: int) -> None:
            pass

        conn = Connection(send_text, close, "X", "mr_x", ("X",), max_bytes=10_000)
        for _ in range(20):
            conn.send("y" * 1000)
        await asyncio.sleep(0)
        return conn.evicted

    assert asyncio.run(go()) == "too far behind"


def test_the_server_evicts_a_stalled_socket_and_serves_the_others(tmp_path):
    with app(tmp_path / "g.sqlite3", send_timeout=0.3) as c:
        g = create(c, detectives=1)
        server = c.app.state.games
        with c.websocket_connect(f"/ws/{g['game_id']}?token={g['tokens']['X']}") as ws:
            while ws.receive_json()["type"] != "state":
                pass
            room = c.portal.call(server.room, g["game_id"])
            (conn,) = room.connections
            conn._sending_since = time.monotonic() - 1.0  # as if a send had hung for 1 s
            deadline = time.monotonic() + 5
            while room.connections and time.monotonic() < deadline:
                time.sleep(0.05)
            assert not room.connections and conn.evicted
        with c.websocket_connect(f"/ws/{g['game_id']}?token={g['tokens']['X']}") as ws:
            assert ws.receive_json()["type"] == "welcome"


# ---- idle games leave memory and come back on demand ---------------------------------------------
def test_idle_and_finished_games_leave_memory_and_load_on_demand(tmp_path):
    db = tmp_path / "g.sqlite3"
    with app(db, idle_seconds=0.3, pace_mr_x=False) as c:  # a whole AI game: fast
        server = c.app.state.games
        g = create(c, detectives=1)
        over = create(c, detectives=1, seats={"X": {"kind": "ai", "agent": "random"},
                                              "D1": {"kind": "ai", "agent": "random"}})
        deadline = time.monotonic() + 20
        while (g["game_id"] in server.rooms or over["game_id"] in server.rooms) \
                and time.monotonic() < deadline:
            time.sleep(0.1)
        assert g["game_id"] not in server.rooms and over["game_id"] not in server.rooms
        st = c.get(f"/api/games/{g['game_id']}/state", params={"token": g["tokens"]["X"]})
        assert st.status_code == 200 and st.json()["version"] == 0   # loaded again
        with c.websocket_connect(f"/ws/{g['game_id']}?token={g['tokens']['X']}") as ws:
            while (msg := ws.receive_json())["type"] != "state":
                pass
            move = msg["view"]["legal_moves"][0]
            ws.send_json({"type": "move", "move": move, "id": 1})
            while ws.receive_json()["type"] != "ack":
                pass
    time.sleep(0.4)
    with app(db, idle_seconds=0.3) as c:  # a restart after the idle time loads nothing
        assert c.app.state.games.rooms == {}
        st = c.get(f"/api/games/{g['game_id']}/state", params={"token": g["tokens"]["X"]})
        assert st.json()["version"] == 1


def test_a_game_lost_on_time_leaves_memory_at_once(tmp_path):
    """A game that ends on time (the clock's ``lose``) with no socket open is finished: it
    leaves memory at the next sweep, as a game that ends on the board does, not after
    ``idle_seconds``."""
    with app(tmp_path / "g.sqlite3") as c:
        server = c.app.state.games
        g = create(c, detectives=1, clock={"per_move": 1, "on_timeout": "lose"})
        deadline = time.monotonic() + 10
        while g["game_id"] in server.rooms and time.monotonic() < deadline:
            time.sleep(0.1)
        assert g["game_id"] not in server.rooms
        st = c.get(f"/api/games/{g['game_id']}/state", params={"token": g["tokens"]["X"]})
        assert st.json()["adjudication"]["winner"] == "detectives"   # stored, loads again


def test_resume_loads_only_recent_games(tmp_path):
    db = tmp_path / "g.sqlite3"
    with app(db) as c:
        old, new = create(c, detectives=1), create(c, detectives=1)
    import sqlite3

    con = sqlite3.connect(db)
    con.execute("UPDATE games SET updated = updated - 86400 WHERE id = ?", (old["game_id"],))
    con.commit()
    con.close()
    with app(db) as c:
        assert set(c.app.state.games.rooms) == {new["game_id"]}
        r = c.get(f"/api/games/{old['game_id']}/state", params={"token": old["tokens"]["X"]})
        assert r.status_code == 200 and old["game_id"] in c.app.state.games.rooms  # on demand
