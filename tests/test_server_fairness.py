"""Fair AI scheduling (issue 28, finding 3 and the takeback-spam half of finding 1): the heavy
lane serves games with a human seat first and keeps slots for them, owners (by /24 or /64) in
turn; games the computer plays alone are capped per owner; an unwatched game's AI stops
thinking and starts again when someone connects; a cancelled search really stops."""

from __future__ import annotations

import asyncio
import os
import random
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from scotlandyard import Game, Rules
from scotlandyard.ai.interface import stop_requested
from scotlandyard.server.app import create_app
from scotlandyard.server.limits import Limits
from scotlandyard.server.rooms import Seat
from scotlandyard.server.thinker import FairLane, Thinker, owner_key

pytestmark = pytest.mark.timeout(120)


def app(db: Path, **limits: Any) -> TestClient:
    return TestClient(create_app(db, ai_delay=0.0, limits=Limits(**limits), pace_mr_x=False))


def post_from(c: TestClient, address: str, body: dict) -> httpx.Response:
    async def go() -> httpx.Response:
        transport = httpx.ASGITransport(app=c.app, client=(address, 4000))
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as h:
            return await h.post("/api/games", json=body)

    return c.portal.call(go)


def until(pred, seconds: float = 20.0) -> None:
    """Wait for ``pred()`` (a condition, not a time: fails only if it never comes)."""
    deadline = time.monotonic() + seconds
    while not pred():
        assert time.monotonic() < deadline, "the condition never came"
        time.sleep(0.02)


# ---- the lane's order ----------------------------------------------------------------------------
def test_owner_key_groups_an_ipv4_24_and_an_ipv6_64():
    assert owner_key("10.0.0.1") == owner_key("10.0.0.200") == "10.0.0.0/24"
    assert owner_key("10.0.1.1") != owner_key("10.0.0.1")
    assert owner_key("2001:db8:1:2::1") == owner_key("2001:db8:1:2:ffff::9") == "2001:db8:1:2::/64"
    assert owner_key("::ffff:10.0.0.7") == "10.0.0.0/24"
    assert owner_key("game-id") == "game-id"  # a game loaded from the database: its own owner


def test_the_lane_serves_human_seat_games_first_owners_in_turn():
    """One slot; while it is held, computer-only games of a and b and human-seat games of c
    (three) and d (one) queue. Every human-seat game goes before every computer-only one, c
    and d in turn; the computer-only ones after, a and b in turn."""

    async def go() -> list[str]:
        lane, order = FairLane(1), []

        async def job(owner: str, tag: str, human: bool) -> None:
            async with lane.hold(owner, human=human):
                order.append(tag)
                await asyncio.sleep(0.01)

        first = asyncio.create_task(job("z", "z0", True))
        await asyncio.sleep(0)
        tasks = [asyncio.create_task(job("a", f"a{i}", False)) for i in range(2)]
        tasks += [asyncio.create_task(job("b", "b0", False))]
        tasks += [asyncio.create_task(job("c", f"c{i}", True)) for i in range(3)]
        tasks += [asyncio.create_task(job("d", "d0", True))]
        await asyncio.gather(first, *tasks)
        assert (lane.busy, lane.computer_busy, lane.waiting) == (0, 0, 0)
        return order

    assert asyncio.run(go()) == ["z0", "c0", "d0", "c1", "c2", "a0", "b0", "a1"]


def test_computer_only_games_hold_at_most_half_the_slots():
    """Two slots, four computer-only games waiting: one holds a slot at a time, and a
    human-seat game that comes meanwhile gets the other at once."""

    async def go() -> None:
        lane = FairLane(2)
        holding, most = 0, 0
        release = asyncio.Event()

        async def computer(owner: str) -> None:
            nonlocal holding, most
            async with lane.hold(owner, human=False):
                holding += 1
                most = max(most, holding)
                await release.wait()
                holding -= 1

        tasks = [asyncio.create_task(computer(o)) for o in "abcd"]
        await asyncio.sleep(0.01)
        assert (lane.busy, lane.computer_busy, lane.waiting) == (1, 1, 3)
        got = asyncio.Event()

        async def human() -> None:
            async with lane.hold("h", human=True):
                got.set()

        h = asyncio.create_task(human())
        await asyncio.wait_for(got.wait(), 0.5)  # no wait behind the computer-only games
        await h
        release.set()
        await asyncio.gather(*tasks)
        assert most == 1
        assert (lane.busy, lane.computer_busy, lane.waiting) == (0, 0, 0)

    asyncio.run(go())


def test_one_owner_never_holds_every_slot():
    """Two slots; owner a's three human-seat games want them: one holds a slot at a time, and
    another owner's move that comes meanwhile gets the other at once (before: a's two first
    held both, and the other waited for one of them to end: a `max` Mr X holds his for 20 s)."""

    async def go() -> None:
        lane = FairLane(2)
        holding, most = 0, 0
        release = asyncio.Event()

        async def a_game() -> None:
            nonlocal holding, most
            async with lane.hold("a", human=True):
                holding += 1
                most = max(most, holding)
                await release.wait()
                holding -= 1

        tasks = [asyncio.create_task(a_game()) for _ in range(3)]
        await asyncio.sleep(0.01)
        assert (lane.busy, lane.waiting) == (1, 2)
        got = asyncio.Event()

        async def other() -> None:
            async with lane.hold("b", human=True):
                got.set()

        b = asyncio.create_task(other())
        await asyncio.wait_for(got.wait(), 0.5)
        await b
        release.set()
        await asyncio.gather(*tasks)
        assert most == 1
        assert (lane.busy, lane.waiting, lane.by_owner) == (0, 0, {})

    asyncio.run(go())


# ---- the cap on computer-only games --------------------------------------------------------------
def test_games_the_computer_plays_alone_are_capped_per_owner(tmp_path):
    alone = {"detectives": 1, "seats": {"X": {"kind": "ai", "agent": "random"},
                                        "D1": {"kind": "ai", "agent": "random"}}}
    with app(tmp_path / "g.sqlite3", computer_games=2, unwatched_seconds=0.2) as c:
        for _ in range(2):
            assert post_from(c, "10.0.5.1", alone).status_code == 201
        r = post_from(c, "10.0.5.77", alone)  # the same /24: the same owner
        assert r.status_code == 422
        assert "at most 2" in r.json()["detail"] and "computer plays alone" in r.json()["detail"]
        assert post_from(c, "10.0.6.1", alone).status_code == 201  # another owner
        with_human = {"detectives": 1, "seats": {"X": {"kind": "ai", "agent": "random"}}}
        assert post_from(c, "10.0.5.1", with_human).status_code == 201


# ---- nobody connected: the AI stops; someone connects: it thinks again ----------------------------
class _Searching:
    """A 'max' level that searches until asked to stop (or 30 s), counting starts and stops."""

    name = "max"
    started = 0
    stopped = 0

    def choose(self, view, legal, rng, budget):
        _Searching.started += 1
        end = time.monotonic() + 30
        while time.monotonic() < end:
            if stop_requested():
                _Searching.stopped += 1
                return legal[0]
            time.sleep(0.005)
        return legal[0]


def test_an_unwatched_games_ai_stops_and_starts_again_when_someone_connects(tmp_path, monkeypatch):
    from scotlandyard.ai import agent_names, base

    agent_names()
    monkeypatch.setitem(base._REGISTRY, "max", lambda **_: _Searching())
    _Searching.started = _Searching.stopped = 0
    with app(tmp_path / "g.sqlite3", unwatched_seconds=0.3) as c:
        r = post_from(c, "10.0.7.1", {"detectives": 1, "seats": {"X": {"kind": "ai",
                                                                       "agent": "max"}}})
        g = r.json()
        room = c.app.state.games.rooms[g["game_id"]]
        until(lambda: _Searching.started == 1)      # created: it thinks for the grace ...
        until(lambda: _Searching.stopped == 1, 3)   # ... then nobody is there: it stops
        time.sleep(0.3)
        assert _Searching.started == 1 and not room.ai_busy()
        with c.websocket_connect(f"/ws/{g['game_id']}?token={g['tokens']['spectator']}"):
            until(lambda: _Searching.started == 2, 3)  # someone watches: it thinks again
            time.sleep(0.5)
            assert _Searching.stopped == 1             # and goes on while they watch
        until(lambda: _Searching.stopped == 2, 3)      # the socket closed: it stops again


# ---- a cancelled search stops using the CPU -------------------------------------------------------
def _process_cpu(pids: list[int]) -> float:
    """CPU seconds used so far by processes ``pids`` (Linux /proc)."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for pid in pids:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        total += (int(fields[11]) + int(fields[12])) / tick
    return total


@pytest.mark.parametrize("workers", [0, 1])
def test_a_cancelled_max_search_stops_using_the_cpu(workers):
    """A real 'max' search (10 s a move) is cancelled 0.5 s after it began; in the next second
    its thread or worker process uses a small part of the CPU it used while searching
    (before: it ran out its 10 s as fast as before the cancel), and the thinker holds no think
    of that game any more."""
    game = Game.new(Rules.classic(), seed=3)
    seat = Seat("X", "ai", "max")
    seat.build_agent()
    seat.rng = random.Random(1)
    room = SimpleNamespace(id="g1", game=game, owner="10.0.0.1", humans=lambda: {"D1"})

    def cpu(thinker: Thinker) -> float:
        if workers:
            assert thinker._pool is not None
            return _process_cpu(list(thinker._pool._processes))  # type: ignore[attr-defined]
        return time.process_time()

    async def go() -> tuple[float, float, int]:
        thinker = Thinker(workers=workers, heavy=2)
        try:
            # a 'medium' move first: the thread or worker loads the search's compiled kernel
            # (not measured, and not something a stop flag can cut short)
            warm = Seat("X", "ai", "medium")
            warm.build_agent()
            await thinker.choose(room, warm, "X", game.legal_moves())
            task = asyncio.create_task(thinker.choose(room, seat, "X", game.legal_moves()))
            await asyncio.sleep(0.5)
            assert thinker.thinks_of("g1") == 1 and not task.done()
            c0, t0 = cpu(thinker), time.monotonic()
            await asyncio.sleep(0.3)
            busy = (cpu(thinker) - c0) / (time.monotonic() - t0)  # searching: about 1 core
            task.cancel()
            await asyncio.sleep(0.2)  # (the search ends at its next check, ~20 ms)
            c1, t1 = cpu(thinker), time.monotonic()
            await asyncio.sleep(1.0)
            idle = (cpu(thinker) - c1) / (time.monotonic() - t1)
            return busy, idle, thinker.thinks_of("g1")
        finally:
            thinker.shutdown()

    busy, idle, left = asyncio.run(go())
    # (shares of a core: on a loaded machine the search gets less than one while it runs)
    assert busy > 0.05, f"the search did not run ({busy:.2f} of a core)"
    assert idle < busy / 4, f"the cancelled search still used {idle:.2f} of a core ({busy:.2f} before)"
    assert left == 0
