"""The computer analysis on the server: asked for by a player of a finished game, run in a
low-priority process of its own, kept with the game, refused for unfinished games and wrong
tokens."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from scotlandyard.server.app import create_app

pytestmark = pytest.mark.timeout(240)

AI = {"kind": "ai", "agent": "random"}


def _finish(c: TestClient) -> dict:
    g = c.post("/api/games", json={"preset": "classic", "detectives": 2,
                                   "seats": {"X": AI, "D1": AI, "D2": AI}}).json()
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        st = c.get(f"/api/games/{g['game_id']}/state",
                   params={"token": g["tokens"]["spectator"]}).json()
        if st["view"]["outcome"]:
            return g
        time.sleep(0.1)
    raise AssertionError("the AI game did not end")


def test_a_finished_game_is_analysed_once_and_kept(tmp_path: Path) -> None:
    db = tmp_path / "g.sqlite3"
    with TestClient(create_app(db, ai_delay=0, pace_mr_x=False)) as c:
        g = _finish(c)
        gid, tok = g["game_id"], g["tokens"]["spectator"]
        assert c.get(f"/api/games/{gid}/analysis", params={"token": tok}).json() == {
            "status": "none"}
        r = c.post(f"/api/games/{gid}/analysis", params={"token": tok})
        assert r.status_code == 202 and r.json()["status"] in ("queued", "running")
        niceness = set()
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            body = c.get(f"/api/games/{gid}/analysis", params={"token": tok}).json()
            if body["status"] in ("done", "failed"):
                break
            assert 0 <= body["done"] <= body["total"]
            proc = c.app.state.analysis._proc
            if proc is not None and proc.pid and body["done"] > 0:
                stat = Path(f"/proc/{proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
                niceness.add(int(stat[16]))  # field 19 of /proc/PID/stat
            time.sleep(0.2)
        assert body["status"] == "done", body
        assert niceness == {19}, "the analysis runs at the lowest CPU priority"
        result = body["result"]
        state = c.get(f"/api/games/{gid}/state", params={"token": tok}).json()
        n = len(state["view"]["history"])
        assert len(result["plies"]) == n and len(result["mr_x"]) == n + 1
        assert [p["move"] for p in result["plies"]] == [
            m["move"] for m in state["view"]["history"]]
        # asked again: the kept result at once, no second job
        again = c.post(f"/api/games/{gid}/analysis", params={"token": tok})
        assert again.status_code == 200 and again.json()["result"] == result
    # kept with the game: a new server process finds it
    with TestClient(create_app(db, ai_delay=0)) as c:
        body = c.get(f"/api/games/{gid}/analysis", params={"token": tok}).json()
        assert body["status"] == "done" and body["result"] == result


def test_an_unfinished_game_and_a_wrong_token_are_refused(tmp_path: Path) -> None:
    with TestClient(create_app(tmp_path / "g.sqlite3", ai_delay=0)) as c:
        g = c.post("/api/games", json={"preset": "classic", "detectives": 1,
                                       "seats": {"X": {"kind": "human"},
                                                 "D1": {"kind": "human"}}}).json()
        gid = g["game_id"]
        r = c.post(f"/api/games/{gid}/analysis", params={"token": g["tokens"]["spectator"]})
        assert r.status_code == 409 and "not over" in r.json()["detail"]
        r = c.post(f"/api/games/{gid}/analysis", params={"token": "x" * 30})
        assert r.status_code == 401
