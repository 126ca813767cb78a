"""``scotlandyard warm-up`` and the background compile: nobody waits for numba. While the
kernel compiles in the background, every other thread searches on the pure-Python kernel at a
budget that answers in the level's usual time; the command compiles each part once."""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from scotlandyard import Game, Rules
from scotlandyard.ai import Budget, make_agent
from scotlandyard.ai.mcts import WHILE_COMPILING_SECONDS, while_compiling
from scotlandyard.cli import app as cli_app
from scotlandyard.kernel import fast as F
from scotlandyard.server.app import create_app
from scotlandyard.server.limits import Limits

pytestmark = [pytest.mark.timeout(120),
              pytest.mark.skipif(not F.numba_available(), reason="numba is not installed")]


@pytest.fixture
def compiling() -> Iterator[list[bool]]:
    """A background compile that lasts until the test ends (its thread records which kernel
    it got)."""
    release = threading.Event()
    seen: list[bool] = []

    def work() -> None:
        seen.append(F.kernel(True).fast)
        release.wait(60)

    thread = F.compile_in_background(work)
    try:
        yield seen
    finally:
        release.set()
        thread.join(10)
    assert not F.compiling()


def test_while_compiling_other_threads_get_the_pure_python_kernel(compiling):
    assert F.compiling()
    assert F.kernel(True).fast is False  # this thread: pure Python, no wait
    for _ in range(100):
        if compiling:
            break
        time.sleep(0.01)
    assert compiling == [True]  # the compiling thread itself: the compiled kernel


def test_the_kernel_is_compiled_again_once_the_compile_ends():
    thread = F.compile_in_background(lambda: None)
    thread.join(10)
    assert not F.compiling() and F.kernel(True).fast is True


def test_a_playout_bound_budget_is_capped_while_compiling():
    medium = Budget(playouts=1000, seconds=2.0)
    assert while_compiling(medium, 1000) == Budget(playouts=1000,
                                                   seconds=WHILE_COMPILING_SECONDS)
    assert while_compiling(Budget(), 1000) == Budget(playouts=1000,
                                                     seconds=WHILE_COMPILING_SECONDS)
    assert while_compiling(Budget(seconds=10.0), 1000) == Budget(seconds=10.0)  # max


@pytest.mark.parametrize("side,piece", [("mr_x", "X"), ("detectives", "D1")])
def test_medium_moves_in_its_usual_time_while_the_kernel_compiles(compiling, side, piece):
    """``medium`` answers within its 1 s pace on the compiled kernel; on the pure-Python one
    its 1,000 iterations take up to its 2 s cap (3 s with a double move) under load: while
    compiling it searches there, capped at 0.4 s a search."""
    game = Game.new(Rules.classic(), seed=5)
    if side == "detectives":
        game.push(game.legal_moves()[0])
    agent = make_agent("medium", side)
    t0 = time.perf_counter()
    move = agent.choose(game.view(piece), game.legal_moves(), random.Random(1), Budget())
    took = time.perf_counter() - t0
    assert move in game.legal_moves()
    search = agent.agents[side].last_search  # type: ignore[attr-defined]
    assert search is not None and search.kern.fast is False  # pure Python, not waiting
    assert took < 1.5, took  # the 0.4 s cap and the search's set-up, on a busy machine


def test_the_first_computer_move_of_a_server_while_its_kernel_compiles(tmp_path: Path,
                                                                        compiling):
    """A web game's first AI move (Mr X, medium, paced at 1 s) while the compile runs: it
    comes at the first pace, not after the compiler (45.6 s after a fresh install)."""
    with TestClient(create_app(tmp_path / "g.sqlite3", ai_delay=0.0, limits=Limits())) as c:
        r = c.post("/api/games", json={"detectives": 1,
                                       "seats": {"X": {"kind": "ai", "agent": "medium"}}})
        assert r.status_code == 201, r.text
        g = r.json()
        t0 = time.perf_counter()
        with c.websocket_connect(f"/ws/{g['game_id']}?token={g['tokens']['D1']}") as ws:
            while (msg := ws.receive_json())["type"] != "state" or msg["version"] < 1:
                pass
        reply = time.perf_counter() - t0
    assert F.compiling()  # still compiling: the move did not wait for it
    assert reply < 1.8, reply  # medium's pace (1 s), not the next multiple of it


@pytest.mark.timeout(600)  # with an empty numba cache it compiles for real (a minute or more)
def test_the_warm_up_command_compiles_each_step_and_says_how_long():
    runner = CliRunner()
    res = runner.invoke(cli_app, ["warm-up", "--what", "ai"])
    assert res.exit_code == 0, res.output
    assert "playouts" in res.output and "mcts" in res.output
    assert "position" not in res.output  # only the AI's steps
    assert "warm-up done in" in res.output
    res = runner.invoke(cli_app, ["warm-up", "--step", "position"])
    assert res.exit_code == 0 and "position" in res.output and "mcts" not in res.output


def test_the_warm_up_command_refuses_an_unknown_step():
    res = CliRunner().invoke(cli_app, ["warm-up", "--step", "bogus"])
    assert res.exit_code == 1
    assert "unknown warm-up step(s) bogus" in res.output and "batch" in res.output
    res = CliRunner().invoke(cli_app, ["warm-up", "--what", "some"])
    assert res.exit_code == 1 and "--what is all or ai" in res.output


def test_a_second_background_warm_up_in_a_process_compiles_nothing(monkeypatch):
    from scotlandyard import warmup

    ran: list[list[str]] = []
    monkeypatch.setattr(warmup, "_warmed", set())
    monkeypatch.setattr(warmup, "warm_up", lambda names: ran.append(list(names)) or [])
    for _ in range(2):
        thread = warmup.warm_up_in_background()
        thread.join(10)  # type: ignore[attr-defined]
    assert ran == [["playouts", "mcts"], []]
