"""Players who leave (docs/protocol.md "Absent players"): everyone is told who left and when
the computer takes over; at zero the computer plays the seat at the game's level and everyone
gets a notice; the returning player sees from which ply the computer played for him and takes
the seat back; with ``on_absent: "wait"`` nobody is handed over on their own."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from scotlandyard.server.app import create_app

from .test_server_ws import Sockets, ask, create, send, until

pytestmark = pytest.mark.timeout(90)
TIMEOUT = 0.4


@pytest.fixture
def client(tmp_path: Path):
    with TestClient(create_app(tmp_path / "games.sqlite3", ai_delay=0,
                               absent_timeout=TIMEOUT)) as c:
        yield c


def test_a_player_leaves_everyone_is_told_and_the_computer_takes_over(client, socks):
    g = create(client, detectives=1, absent_agent="random")
    wx, _, sx = socks.open(g, "X")
    wd, _, st = socks.open(g, "D1")
    assert st["absent"] == {"on": "ai", "agent": "random", "timeout": TIMEOUT, "seats": {},
                            "handed": {}}
    send(wx, type="move", move=sx["view"]["legal_moves"][0], id=1)
    until(wd, lambda m: m["type"] == "state" and m["version"] == 1)
    socks.close(wd)
    # Mr X is told at once, with the time left before the computer plays D1
    left = until(wx, lambda m: m["type"] == "state" and "D1" in m["absent"]["seats"])
    info = left["absent"]["seats"]["D1"]
    assert 0 < info["takeover_in"] <= TIMEOUT and info["away"] < TIMEOUT
    assert left["seats"]["D1"]["kind"] == "human"
    notice = until(wx, lambda m: m["type"] == "notice")
    assert notice == {"type": "notice", "code": "absent_ai", "piece": "D1", "agent": "random"}
    st = until(wx, lambda m: m["type"] == "state" and m["version"] == 2)  # the computer moved
    assert st["seats"]["D1"]["kind"] == "ai" and st["seats"]["D1"]["agent"] == "random"
    assert st["absent"]["handed"] == {"D1": 1} and st["absent"]["seats"] == {}
    assert st["view"]["history"][1]["piece"] == "D1"
    # D1 comes back: the handed ply says what was played for him; one reclaim takes it back
    wd, _, back = socks.open(g, "D1")
    assert back["absent"]["handed"] == {"D1": 1}
    assert back["seats"]["D1"]["kind"] == "ai"
    st = ask(wd, type="reclaim", piece="D1")
    assert st["seats"]["D1"]["kind"] == "human" and st["absent"]["handed"] == {}


def test_the_computer_plays_at_the_game_level(client, socks):
    presets = client.get("/api/presets").json()
    g = create(client, detectives=2, seats={"D2": {"kind": "ai", "agent": "easy"}})
    assert socks.open(g, "X")[2]["absent"]["agent"] == "easy"
    g = create(client, detectives=1, clock={"per_move": 60, "agent": "hard"})
    assert socks.open(g, "X")[2]["absent"]["agent"] == "hard"
    g = create(client, detectives=1)
    assert socks.open(g, "X")[2]["absent"]["agent"] == presets["default_level"]
    # the manual hand-over by a team mate is remembered for the returning player too
    g = create(client, detectives=2, on_absent="wait")
    w1, _, _ = socks.open(g, "D1")
    w2, _, _ = socks.open(g, "D2")
    socks.close(w2)
    st = ask(w1, type="takeover", piece="D2", agent="random")
    assert st["seats"]["D2"]["kind"] == "ai" and st["absent"]["handed"] == {"D2": 0}


def test_wait_means_nobody_is_handed_over_and_the_choice_is_stored(client, socks, tmp_path):
    g = create(client, detectives=1, on_absent="wait")
    wx, _, _ = socks.open(g, "X")
    wd, _, _ = socks.open(g, "D1")
    socks.close(wd)
    st = until(wx, lambda m: m["type"] == "state" and "D1" in m["absent"]["seats"])
    assert st["absent"]["on"] == "wait" and st["absent"]["seats"]["D1"]["takeover_in"] is None
    # past the timeout: a fresh state says so; the seat stays human
    st = until(wx, lambda m: m["type"] == "state" and m["seats"]["D1"]["away"] >= TIMEOUT)
    assert st["seats"]["D1"]["kind"] == "human"
    st = ask(wx, type="sync")
    assert st["seats"]["D1"]["kind"] == "human" and st["absent"]["handed"] == {}
    body = client.get(f"/api/games/{g['game_id']}/state",
                      params={"token": g["tokens"]["X"]}).json()
    assert body["absent"]["on"] == "wait"


def test_nobody_is_handed_over_while_nobody_waits_for_him(client, socks):
    g = create(client, detectives=1, absent_agent="random")
    wx, _, _ = socks.open(g, "X")
    wd, _, _ = socks.open(g, "D1")
    socks.close(wx)  # Mr X leaves first, then the detective: nobody is at the table
    until(wd, lambda m: m["type"] == "state" and "X" in m["absent"]["seats"])
    socks.close(wd)
    time.sleep(TIMEOUT * 3)
    wd, _, st = socks.open(g, "D1")  # the detective is back: Mr X's time ran out long ago
    assert st["seats"]["X"]["kind"] == "human"
    notice = until(wd, lambda m: m["type"] == "notice")
    assert notice["code"] == "absent_ai" and notice["piece"] == "X"
    st = until(wd, lambda m: m["type"] == "state" and m["seats"]["X"]["kind"] == "ai")
    assert st["absent"]["handed"] == {"X": 0}


@pytest.mark.parametrize(("body", "needle"), [
    ({"on_absent": "maybe"}, "on_absent"),
    ({"absent_agent": "grandmaster"}, "unknown agent 'grandmaster'"),
])
def test_bad_absent_options_are_refused_clearly(client, body, needle):
    r = client.post("/api/games", json={"detectives": 1, **body})
    assert r.status_code == 422 and needle in r.text, r.text


def test_spectators_see_who_left_and_nothing_else(client, socks):
    g = create(client, detectives=1, absent_agent="random", on_absent="wait")
    spec, _, _ = socks.open(g, "spectator")
    wx, _, _ = socks.open(g, "X")
    socks.close(wx)
    st = until(spec, lambda m: m["type"] == "state" and "X" in m["absent"]["seats"])
    assert set(st["absent"]["seats"]["X"]) == {"away", "takeover_in"}


def test_the_creators_choice_and_the_hand_over_survive_a_restart(tmp_path: Path):
    db = tmp_path / "restart.sqlite3"
    with TestClient(create_app(db, ai_delay=0, absent_timeout=TIMEOUT)) as c:
        g = create(c, detectives=1, on_absent="wait", absent_agent="easy")
        s = Sockets(c)
        w1, _, _ = s.open(g, "X")
        wd, _, _ = s.open(g, "D1")
        s.close(wd)
        until(w1, lambda m: m["type"] == "state" and (m["seats"]["D1"]["away"] or 0) >= TIMEOUT)
        assert ask(w1, type="takeover", piece="D1", agent="easy")["absent"]["handed"] == {"D1": 0}
        s.close_all()
    with TestClient(create_app(db, ai_delay=0, absent_timeout=TIMEOUT)) as c:
        body = c.get(f"/api/games/{g['game_id']}/state", params={"token": g["tokens"]["D1"]}).json()
        assert body["absent"]["on"] == "wait" and body["absent"]["agent"] == "easy"
        assert body["absent"]["handed"] == {"D1": 0} and body["seats"]["D1"]["kind"] == "ai"
