"""Finding, starting and finishing games on the server (docs/protocol.md "Lobby" .. "Takeback"):
tokens only for the seats people use, the public lobby and joining, absent seats handed to the
AI by either side, chat routing and limits, clocks, rematch, takeback, and old database files."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from scotlandyard.record import Record
from scotlandyard.server.app import create_app
from scotlandyard.server.lobby import join_name, open_seats, token_plan
from scotlandyard.server.store import SCHEMA_VERSION, Store

from .test_server_ws import Sockets, ask, create, recv, rest_state, send, until

pytestmark = pytest.mark.timeout(90)
AI = {"kind": "ai", "agent": "random"}
PIECES = ("X", "D1", "D2", "D3")


@pytest.fixture
def client(tmp_path: Path):
    with TestClient(create_app(tmp_path / "games.sqlite3", ai_delay=0, absent_timeout=0.3)) as c:
        yield c


def later(ws: Any, seen: dict, pred: Any) -> dict:
    """``seen`` if it is already the state wanted, else the next state frame that is."""
    if seen.get("type") == "state" and pred(seen):
        return seen
    return until(ws, lambda m: m["type"] == "state" and pred(m))


# ---- tokens --------------------------------------------------------------------------------------
def test_token_plan_issues_only_seats_people_use():
    everyone = set(PIECES)
    assert token_plan(PIECES, everyone, hotseat=False, play_as=None, public=False) == [
        "X", "detectives", "D1", "D2", "D3", "spectator"]
    # against an AI Mr X: no Mr X token at all
    assert token_plan(PIECES, {"D1", "D2", "D3"}, hotseat=False, play_as="detectives",
                      public=False) == ["detectives", "spectator"]
    # the creator plays the detectives against a human Mr X: his link is issued to be passed on
    assert token_plan(PIECES, everyone, hotseat=False, play_as="detectives", public=False) == [
        "detectives", "X", "spectator"]
    # a public game: only the creator's seat; the others are open
    plan = token_plan(PIECES, everyone, hotseat=False, play_as="X", public=True)
    assert plan == ["X", "spectator"]
    assert open_seats(PIECES, everyone, plan) == ["D1", "D2", "D3"]
    assert join_name(PIECES, everyone, plan, None, "detectives") == "detectives"
    assert join_name(PIECES, everyone, [*plan, "D2"], None, "detectives") == "D1"


def test_quick_play_gets_one_token_and_no_mr_x_link(client):
    presets = client.get("/api/presets").json()
    assert presets["default_level"] in presets["agents"] and presets["default_level"] != "max"
    g = create(client, detectives=2, play_as="detectives", seats={"X": {"kind": "ai", "agent": "easy"}})
    assert set(g["tokens"]) == {"detectives", "spectator"} and g["you"] == "detectives"
    assert "X" not in g["links"]
    g = create(client, detectives=2, play_as="X", seats={"D1": AI, "D2": AI})
    assert set(g["tokens"]) == {"X", "spectator"}
    for body, needle in [({"play_as": "X", "seats": {"X": AI}}, "X is an AI seat"),
                         ({"play_as": "D7"}, "string_pattern_mismatch"),
                         ({"play_as": "all"}, "hot-seat"),
                         ({"public": True, "hotseat": True}, "hot-seat"),
                         ({"clock": {}}, "per_move or initial"),
                         ({"clock": {"per_move": 0.5}}, "greater than or equal to 1"),
                         ({"clock": {"per_move": 30, "increment": 2}}, "initial too")]:
        r = client.post("/api/games", json=body)
        assert r.status_code == 422 and needle in r.text, (body, r.text)


# ---- lobby and join ---------------------------------------------------------------------------------
def test_lobby_lists_public_open_games_and_join_takes_a_seat(client):
    private = create(client, detectives=2)
    g = create(client, detectives=2, public=True, play_as="X", seed=5)
    full = create(client, detectives=1, public=True, play_as="X", seats={"D1": AI})
    assert set(g["tokens"]) == {"X", "spectator"} and g["open"] == ["D1", "D2"]
    lobby = client.get("/api/lobby").json()["games"]
    assert [e["game_id"] for e in lobby] == [g["game_id"]]  # not private, not full
    entry = lobby[0]
    assert entry["open"] == ["D1", "D2"] and entry["open_sides"] == ["detectives"]
    assert entry["preset"] == "classic" and entry["detectives"] == 2 and not entry["started"]
    text = client.get("/api/lobby").text
    for tok in g["tokens"].values():
        assert tok not in text
    assert "\"start\"" not in text and "station" not in text
    gid = g["game_id"]
    r = client.post(f"/api/games/{gid}/join", json={"seat": "D2"})
    assert r.status_code == 201
    body = r.json()
    assert body["token_name"] == "D2" and body["link"] == f"/game/{gid}#t={body['token']}"
    st = client.get(f"/api/games/{gid}/state", params={"token": body["token"]}).json()
    assert st["role"] == "detectives" and st["pieces"] == ["D2"]
    # taken, closed, private, unknown, malformed: clear errors, nothing changed
    for path, js, code, needle in [
            (gid, {"seat": "D2"}, 409, "D2 is taken"),
            (gid, {"side": "mr_x"}, 409, "Mr X's seat is taken"),
            (gid, {"seat": "D5"}, 422, "no seat D5"),
            (gid, {}, 422, "either seat"),
            (gid, {"seat": "D1", "side": "detectives"}, 422, "either seat"),
            (private["game_id"], {"seat": "D1"}, 403, "private"),
            (full["game_id"], {"side": "detectives"}, 409, "played by the AI"),
            ("nope", {"seat": "D1"}, 404, "no game")]:
        r = client.post(f"/api/games/{path}/join", json=js)
        assert r.status_code == code and needle in r.json()["detail"], (js, r.text)
    assert client.get("/api/lobby").json()["games"][0]["open"] == ["D1"]
    r = client.post(f"/api/games/{gid}/join", json={"side": "detectives"})
    assert r.status_code == 201 and r.json()["token_name"] == "D1" and r.json()["open"] == []
    assert client.get("/api/lobby").json()["games"] == []  # full: no longer listed


def test_the_lobby_is_limited_per_client_with_429_and_retry_after(tmp_path):
    from scotlandyard.server.limits import Limits

    lim = Limits(lobby_per_minute=6, lobby_burst=3)
    with TestClient(create_app(tmp_path / "g.sqlite3", ai_delay=0, limits=lim)) as c:
        assert [c.get("/api/lobby").status_code for _ in range(3)] == [200, 200, 200]
        r = c.get("/api/lobby")
        assert r.status_code == 429
        assert "too many lobby requests from this address" in r.json()["detail"]
        assert 1 <= int(r.headers["Retry-After"]) <= 10
        assert c.post("/api/games", json={}).status_code == 201  # other requests go on


def test_one_address_cannot_take_every_open_seat(tmp_path):
    """Joins are limited per client address (default 30 a minute, bursts of 10: 429 with
    Retry-After); before, one client took all 20 open seats of four public games at once,
    and another address found none."""
    import httpx

    with TestClient(create_app(tmp_path / "g.sqlite3", ai_delay=0)) as c:
        games = [create(c, detectives=5, public=True, play_as="X")["game_id"]
                 for _ in range(4)]
        taken, refused = 0, None
        for gid in games:
            for i in range(1, 6):
                r = c.post(f"/api/games/{gid}/join", json={"seat": f"D{i}"})
                if r.status_code == 429:
                    refused = r
                    break
                assert r.status_code == 201, r.text
                taken += 1
            if refused is not None:
                break
        assert refused is not None, f"one address took all {taken} open seats"
        assert 10 <= taken <= 12, taken  # the burst, and a refill or two on a slow machine
        assert "too many seats taken from this address (at most 30 a minute)" in \
            refused.json()["detail"]
        assert 1 <= int(refused.headers["Retry-After"]) <= 3

        async def join_from(address: str, gid: str) -> int:
            transport = httpx.ASGITransport(app=c.app, client=(address, 4000))
            async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as h:
                r = await h.post(f"/api/games/{gid}/join", json={"seat": "D5"})
                return r.status_code

        assert c.portal.call(join_from, "10.0.0.2", games[-1]) == 201  # others still join
        assert c.get("/api/lobby").status_code == 200  # and other requests go on


def test_the_lobby_loads_no_game_to_list_it(tmp_path, monkeypatch):
    """Games not in memory are listed from a few indexed queries, without loading any (no
    moves, no start); a game in memory adds who is connected."""
    db = tmp_path / "g.sqlite3"
    with TestClient(create_app(db, ai_delay=0)) as c:
        games = [create(c, detectives=2, public=True, play_as="X") for _ in range(3)]
        started = games[0]
        with c.websocket_connect(f"/ws/{started['game_id']}?token={started['tokens']['X']}") as ws:
            st = until(ws, lambda m: m["type"] == "state")
            send(ws, type="move", move=st["view"]["legal_moves"][0], id=1)
            until(ws, lambda m: m["type"] == "ack")
    loads: list[str] = []
    real = Store.load_game
    monkeypatch.setattr(Store, "load_game", lambda self, gid: loads.append(gid) or real(self, gid))
    with TestClient(create_app(db, ai_delay=0)) as c:
        loads.clear()  # the restart resumes recent games: that is not the lobby's doing
        server = c.app.state.games
        for room in list(server.rooms.values()):
            server.evict(room)
        lobby = c.get("/api/lobby").json()["games"]
        assert loads == []
        assert [e["game_id"] for e in lobby] == [g["game_id"] for g in reversed(games)]
        by_id = {e["game_id"]: e for e in lobby}
        assert by_id[started["game_id"]]["started"] and not by_id[games[1]["game_id"]]["started"]
        assert all(e["open"] == ["D1", "D2"] and e["seats"]["X"]["kind"] == "human"
                   for e in lobby)


# ---- absent seats -------------------------------------------------------------------------------------
def test_absent_seats_may_be_handed_to_the_ai_by_the_other_side_both_ways(client, socks):
    # (on_absent "wait": nobody is handed over on their own; tests/test_server_absent.py has
    # the computer taking over)
    g = create(client, detectives=1, on_absent="wait")
    wx, _, sx = socks.open(g, "X")
    wd, _, _ = socks.open(g, "detectives")
    # the detectives leave: Mr X is no longer stuck
    socks.close(wd)
    until(wx, lambda m: m["type"] == "state" and not m["seats"]["D1"]["connected"])
    early = ask(wx, type="takeover", piece="D1", agent="random")
    assert early["code"] == "not_allowed" and "0.3 s" in early["message"]
    st = until(wx, lambda m: m["type"] == "state" and (m["seats"]["D1"]["away"] or 0) >= 0.3)
    st = ask(wx, type="takeover", piece="D1", agent="random")
    assert st["seats"]["D1"]["kind"] == "ai"
    send(wx, type="move", move=sx["view"]["legal_moves"][0], id=1)
    st = until(wx, lambda m: m["type"] == "state" and m["version"] == 2)  # the AI answered
    assert st["view"]["history"][1]["piece"] == "D1"
    # and the other way: Mr X leaves, a detective hands his seat to the AI
    g = create(client, detectives=1, on_absent="wait")
    wx, _, _ = socks.open(g, "X")
    wd, _, _ = socks.open(g, "D1")
    socks.close(wx)
    until(wd, lambda m: m["type"] == "state" and (m["seats"]["X"]["away"] or 0) >= 0.3)
    st = ask(wd, type="takeover", piece="X", agent="random")
    assert st["seats"]["X"]["kind"] == "ai"
    st = later(wd, st, lambda m: m["version"] >= 1)
    assert st["view"]["history"][0]["piece"] == "X"
    spectator = socks.open(g, "spectator")[0]
    assert ask(spectator, type="takeover", piece="D1", agent="random")["code"] == "not_allowed"


# ---- chat -------------------------------------------------------------------------------------------------
def test_team_chat_reaches_detectives_only_and_table_chat_everyone(client, socks):
    g = create(client, detectives=2)
    opened = {n: socks.open(g, n)[0] for n in ("X", "D1", "D2", "spectator")}
    send(opened["D1"], type="chat", channel="team", text="  he took the <b>bus</b>\n ", id="t")
    for n in ("D1", "D2"):
        msg = until(opened[n], lambda m: m["type"] == "chat")["message"]
        assert msg["text"] == "he took the <b>bus</b>" and msg["channel"] == "team"
        assert msg["from"] == "D1"
    send(opened["X"], type="chat", channel="table", text="catch me", id="x")
    for n, ws in opened.items():
        msg = until(ws, lambda m: m["type"] == "chat")["message"]
        assert msg["text"] == "catch me" and msg["from"] == "X", n  # X and spectator: no team
    # refusals: clear errors, nothing stored
    for who, js, code in [("X", {"channel": "team", "text": "hi"}, "not_allowed"),
                          ("spectator", {"channel": "table", "text": "hi"}, "not_allowed"),
                          ("D1", {"channel": "table", "text": "\u200b \n"}, "bad_message"),
                          ("D1", {"channel": "table", "text": "x" * 301}, "bad_message"),
                          ("D1", {"channel": "radio", "text": "hi"}, "bad_message")]:
        err = ask(opened[who], type="chat", **js)
        assert err["type"] == "error" and err["code"] == code, (who, js, err)
    codes = [ask(opened["D2"], type="chat", channel="team", text=f"m{i}").get("code")
             for i in range(7)]
    assert "rate_limited" in codes  # five at once, then one every two seconds
    # the history sent right after welcome is filtered by role too
    hist = {}
    for name in ("X", "spectator", "D2"):
        with client.websocket_connect(f"/ws/{g['game_id']}?token={g['tokens'][name]}") as ws:
            recv(ws)
            history = recv(ws)
            assert history["type"] == "chat_history"
            hist[name] = [m["channel"] for m in history["messages"]]
    assert set(hist["X"]) == set(hist["spectator"]) == {"table"}
    assert "team" in hist["D2"]


def test_each_chat_channel_is_numbered_on_its_own(client, socks):
    """Mr X cannot count the detectives' team messages (issue 28 §5): the bytes he receives,
    live and in the history sent on connect, number the table chat 1, 2, 3 whatever the team
    wrote in between; the detectives see each channel numbered on its own too."""
    import json

    g = create(client, detectives=2)
    wx = socks.open(g, "X")[0]
    wd = socks.open(g, "D1")[0]
    said: list[tuple[Any, str]] = [(wd, "team"), (wd, "team"), (wx, "table"), (wd, "team"),
                                   (wd, "table"), (wx, "table")]
    raw: list[str] = []  # every frame Mr X's socket got, as text
    for i, (ws, channel) in enumerate(said):
        send(ws, type="chat", channel=channel, text=f"m{i}")
        until(wd, lambda m: m["type"] == "chat")  # D1 gets both channels
    send(wx, type="ping", id="done")
    while True:
        text = wx.receive_text()
        raw.append(text)
        if json.loads(text)["type"] == "pong":
            break
    table = [json.loads(t)["message"] for t in raw if json.loads(t)["type"] == "chat"]
    assert [(m["n"], m["text"]) for m in table] == [(1, "m2"), (2, "m4"), (3, "m5")]
    assert not any("team" in t or '"n":4' in t or '"n": 4' in t for t in raw)
    with client.websocket_connect(f"/ws/{g['game_id']}?token={g['tokens']['X']}") as ws:
        recv(ws)
        text = ws.receive_text()
        history = json.loads(text)["messages"]
        assert [m["n"] for m in history] == [1, 2, 3] and "team" not in text
    with client.websocket_connect(f"/ws/{g['game_id']}?token={g['tokens']['D2']}") as ws:
        recv(ws)
        history = recv(ws)["messages"]
        assert [(m["channel"], m["n"]) for m in history] == [
            ("team", 1), ("team", 2), ("table", 1), ("team", 3), ("table", 2), ("table", 3)]


def test_table_chat_goes_into_the_record_only_when_both_sides_agree(client, socks):
    g = create(client, detectives=1)
    wx, _, _ = socks.open(g, "X")
    wd, _, _ = socks.open(g, "D1")
    ask(wd, type="chat", channel="team", text="secret plan")
    ask(wx, type="chat", channel="table", text='good "luck"')

    def record() -> Record:
        r = client.get(f"/api/games/{g['game_id']}/record", params={"token": g["tokens"]["X"]})
        return Record.parse(r.text)

    assert not any(k.startswith("Chat") for k in record().tags)
    st = ask(wx, type="chat_record", agree=True)
    assert st["chat_record"] == {"mr_x": True, "detectives": False}
    assert not any(k.startswith("Chat") for k in record().tags)
    ask(wd, type="chat_record", agree=True)
    tags = record().tags
    assert tags["Chat1"] == "X: good 'luck'" and "secret" not in str(tags)


# ---- clocks -----------------------------------------------------------------------------------------------
def test_per_move_clock_runs_out_and_the_ai_moves_for_the_seat(client, socks, tmp_path):
    g = create(client, detectives=1, seats={"D1": AI}, clock={"per_move": 2})
    wx, _, st = socks.open(g, "X")
    clock = st["clock"]
    assert clock["turn"] == "mr_x" and clock["running"] and 0 <= clock["move_left"] <= 2
    notice = until(wx, lambda m: m["type"] == "notice")
    assert notice == {"type": "notice", "code": "timeout_ai", "piece": "X", "side": "mr_x"}
    st = until(wx, lambda m: m["type"] == "state" and m["version"] >= 1)
    assert st["view"]["history"][0]["piece"] == "X" and st["seats"]["X"]["kind"] == "human"
    assert st["clock"]["timeouts"]["mr_x"] == 1


def test_fischer_clock_survives_a_restart_and_lose_on_time_ends_the_game(tmp_path):
    db = tmp_path / "clock.sqlite3"
    with TestClient(create_app(db, ai_delay=0)) as client:
        g = create(client, detectives=1, clock={"initial": 30, "increment": 5})
        s = Sockets(client)
        wx, _, st = s.open(g, "X")
        clock = st["clock"]
        s.close_all()
        assert clock["running"] and clock["turn"] == "mr_x"
        assert 29 < clock["remaining"]["mr_x"] <= 30 and clock["remaining"]["detectives"] == 30
    # each move charges the time it took and adds the increment; the clock is stored per move
    with TestClient(create_app(db, ai_delay=0)) as client:
        s = Sockets(client)
        wx, _, st = s.open(g, "X")
        send(wx, type="move", move=st["view"]["legal_moves"][0], id=1)
        st = until(wx, lambda m: m["type"] == "state" and m["version"] == 1)
        left = st["clock"]["remaining"]["mr_x"]
        s.close_all()
        assert 30 < left <= 35
    with TestClient(create_app(db, ai_delay=0)) as client:
        st = client.get(f"/api/games/{g['game_id']}/state", params={"token": g["tokens"]["D1"]}).json()
        assert st["clock"]["remaining"]["mr_x"] == left and st["clock"]["turn"] == "detectives"
        g2 = create(client, detectives=1, seats={"D1": AI},
                    clock={"per_move": 1, "on_timeout": "lose"})
        s = Sockets(client)
        wx, _, _ = s.open(g2, "X")
        notice = until(wx, lambda m: m["type"] == "notice")
        assert notice["code"] == "timeout_lost" and notice["side"] == "mr_x"
        st = until(wx, lambda m: m["type"] == "state" and m["adjudication"] is not None)
        assert st["adjudication"]["winner"] == "detectives"
        assert [(o["slot"], o["station"]) for o in st["openings"]] == [(0, st["view"]["start"]["X"])]
        assert ask(wx, type="move", move=st["view"]["legal_moves"][0])["code"] == "game_over"
        s.close_all()
        rec = client.get(f"/api/games/{g2['game_id']}/record",
                         params={"token": g2["tokens"]["spectator"]}).text
        assert "ran out of time" in rec and not Record.parse(rec).hidden


# ---- rematch and takeback -----------------------------------------------------------------------------
def test_rematch_with_swapped_sides_sends_each_player_a_new_link(client, socks):
    client.app.state.games.pace_mr_x = False  # as create_app(pace_mr_x=False): a fast AI game
    g = create(client, detectives=1, seats={"D1": AI})
    wx, _, _ = socks.open(g, "X")
    assert ask(wx, type="rematch", swap=True)["code"] == "not_allowed"  # not over yet
    st = ask(wx, type="takeover", piece="X", agent="random")
    later(wx, st, lambda m: m["view"]["outcome"] is not None)
    send(wx, type="rematch", swap=True)
    ready = until(wx, lambda m: m["type"] == "rematch_ready")
    assert ready["token_name"] == "detectives"
    new = ready["game_id"]
    token = ready["link"].split("#t=")[1]
    st = client.get(f"/api/games/{new}/state", params={"token": token}).json()
    # Mr X's player plays the detectives now, against the AI that played them
    assert st["role"] == "detectives" and st["seats"]["D1"]["kind"] == "human"
    assert st["seats"]["X"] == {**st["seats"]["X"], "kind": "ai", "agent": "random"}
    assert st["view"]["mr_x_station"] is None and st["version"] <= 1  # the AI may have moved


def test_a_rematch_counts_against_the_creators_game_limit(tmp_path):
    """A rematch is a new game: it takes from the game-creation bucket of the address that
    created the game (Room.owner), or, for a game loaded from the database, of the player
    whose acceptance starts it. Over the limit: ``rate_limited``, no game, the acceptances
    stand (accepting again retries). Before, a bot holding every seat could loop capture ->
    rematch past the per-address limit."""
    from scotlandyard.server.limits import Limits

    lim = Limits(games_per_minute=0.01, games_burst=1)  # one game, then none for ~100 min
    with TestClient(create_app(tmp_path / "g.sqlite3", ai_delay=0, limits=lim,
                               pace_mr_x=False)) as c:  # whole AI games: fast (test-only)
        socks = Sockets(c)
        try:
            g = create(c, detectives=1, seats={"D1": AI})
            assert c.post("/api/games", json={}).status_code == 429  # the bucket is empty
            wx, _, _ = socks.open(g, "X")
            st = ask(wx, type="takeover", piece="X", agent="random")
            later(wx, st, lambda m: m["view"]["outcome"] is not None)
            err = ask(wx, type="rematch", swap=False)
            assert err["type"] == "error" and err["code"] == "rate_limited", err
            assert "too many new games from the address that created this game" in err["message"]
            st = rest_state(c, g)
            assert st["rematch"] == {"by": "X", "swap": False, "accepted": ["X"], "needed": ["X"]}
            c.app.state.games.clients._create.clear()  # the bucket refills (time passes)
            send(wx, type="rematch", swap=False)
            ready = until(wx, lambda m: m["type"] == "rematch_ready")
            assert ready["token_name"] == "X"
            # a game loaded from the database: its creator is not known; the player who starts
            # the rematch (this test's one address, whose bucket the rematch above emptied) pays
            second = {"game_id": ready["game_id"], "tokens": {"X": ready["link"].split("#t=")[1]}}
            wx2, _, _ = socks.open(second, "X")
            st = ask(wx2, type="takeover", piece="X", agent="random")
            later(wx2, st, lambda m: m["view"]["outcome"] is not None)
            socks.close_all()  # a finished game without sockets leaves memory at once
            assert second["game_id"] not in c.app.state.games.rooms
            wx2, _, _ = socks.open(second, "X")
            assert c.app.state.games.rooms[second["game_id"]].owner == second["game_id"]
            err = ask(wx2, type="rematch", swap=False)
            assert err["type"] == "error" and err["code"] == "rate_limited", err
        finally:
            socks.close_all()


def test_takeback_against_the_ai_and_by_agreement(client, socks):
    g = create(client, detectives=1, seats={"D1": AI})
    wx, _, st = socks.open(g, "X")
    start_seal = st["commitments"]
    assert [c["slot"] for c in start_seal] == [0]
    send(wx, type="move", move=st["view"]["legal_moves"][0], id=1)
    until(wx, lambda m: m["type"] == "state" and m["version"] == 2)
    # the AI detective has moved since: Mr X's move is no longer his to take back (issue 28)
    err = ask(wx, type="takeback")
    assert err["code"] == "not_allowed" and "the detectives moved after your last move" in \
        err["message"]
    for _ in range(30):  # until D1 has a move that tells them nothing of him (may be undone)
        g = create(client, detectives=2, play_as="detectives", seats={"X": AI})
        wd, _, st = socks.open(g, "detectives")
        st = later(wd, st, lambda m: m["version"] == 1)  # the AI Mr X moved
        quiet = [m for m in st["view"]["legal_moves"]
                 if int(m.lstrip("TBU")) not in st["view"]["possible"]]
        if quiet:
            break
        socks.close(wd)
    start_seal = st["commitments"]
    assert ask(wd, type="takeback")["code"] == "not_allowed"  # they have not moved yet
    assert ask(wd, type="move", move=quiet[0])["version"] == 2
    st = ask(wd, type="takeback")  # their own move since his: at once
    # the seals stay as they were (no slot of his undone)
    assert st["version"] == 1 and st["commitments"] == start_seal and st["view"]["to_move"] == "D1"
    assert client.get(f"/api/games/{g['game_id']}/state",
                      params={"token": g["tokens"]["detectives"]}).json()["version"] == 1
    g = create(client, detectives=1)
    wx, _, st = socks.open(g, "X")
    wd, _, _ = socks.open(g, "D1")
    assert ask(wx, type="takeback")["code"] == "not_allowed"  # nothing to take back
    send(wx, type="move", move=st["view"]["legal_moves"][0], id=1)
    until(wx, lambda m: m["type"] == "state" and m["version"] == 1)
    st = ask(wx, type="takeback")
    assert st["takeback"] == {"by": "X", "side": "mr_x", "to_ply": 1, "opponent": True,
                              "mates": []} and st["version"] == 1
    assert ask(wx, type="takeback", accept=True)["code"] == "not_allowed"  # not his own
    st = ask(wd, type="takeback", accept=True)
    assert st["version"] == 0 and st["takeback"] is None
    assert [c["slot"] for c in st["commitments"]] == [0]  # slot 1's seal is gone with his move


# ---- database files of the first release ----------------------------------------------------------------------
def test_a_database_of_the_first_release_opens_and_plays(tmp_path):
    db = tmp_path / "old.sqlite3"
    Store(db).close()
    con = sqlite3.connect(db)
    con.executescript("DROP TABLE game_options; DROP TABLE clocks; DROP TABLE chat; "
                      "UPDATE meta SET value = '1' WHERE key = 'schema_version';")
    con.close()
    store = Store(db)
    assert store.schema_version == SCHEMA_VERSION
    tables = {r[0] for r in store._db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert {"game_options", "clocks", "chat"} <= tables
    assert store.options("missing") == (False, {})
    store.close()
    with TestClient(create_app(db, ai_delay=0)) as client:
        g = create(client, detectives=1)
        assert client.get(f"/api/games/{g['game_id']}/state",
                          params={"token": g["tokens"]["X"]}).status_code == 200


# ---- my games -----------------------------------------------------------------------------------------
def test_rest_state_says_when_the_last_move_was_made(client, socks):
    import time

    g = create(client, detectives=1)
    assert rest_state(client, g, "X")["last_move_at"] is None  # no move yet
    wx, _, sx = socks.open(g, "X")
    before = time.time()
    send(wx, type="move", move=sx["view"]["legal_moves"][0], id=1)
    until(wx, lambda m: m["type"] == "ack")
    at = rest_state(client, g, "detectives")["last_move_at"]
    assert before - 1 <= at <= time.time() + 1
