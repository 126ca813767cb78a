"""The game WebSocket (docs/protocol.md) through FastAPI's TestClient: messages, roles and views,
bad input, takeover/reclaim, hotseat, AI seats, commitments, records and restarts."""

from __future__ import annotations

import hashlib
import json
import random
import re
import time
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from scotlandyard import Game, Move, PlayerView, Rules
from scotlandyard.ai import agent_names
from scotlandyard.record import Record
from scotlandyard.server import games, rooms, seats
from scotlandyard.server.app import create_app
from scotlandyard.server.protocol import (
    AckMessage,
    ChatFrame,
    ChatHistoryFrame,
    ErrorMessage,
    NoticeFrame,
    PongMessage,
    RematchReadyFrame,
    StateMessage,
    WelcomeMessage,
)

pytestmark = pytest.mark.timeout(90)  # a protocol bug shows as a wait: fail, do not hang


@pytest.fixture
def client(tmp_path: Path):
    with TestClient(create_app(tmp_path / "games.sqlite3", ai_delay=0)) as c:
        yield c


@pytest.fixture
def unpaced(tmp_path: Path):
    """A server whose AI Mr X replies as soon as he has thought (``create_app(pace_mr_x=False)``,
    test-only), for tests that play whole AI games and do not test the pace (0.5 s a move
    for ``random``)."""
    with TestClient(create_app(tmp_path / "games.sqlite3", ai_delay=0, pace_mr_x=False)) as c:
        yield c


def create(client: TestClient, **body: Any) -> dict:
    r = client.post("/api/games", json=body)
    assert r.status_code == 201, r.text
    return r.json()


def connect(client: TestClient, game: dict, name: str):
    return client.websocket_connect(f"/ws/{game['game_id']}?token={game['tokens'][name]}")


def recv(ws) -> dict:
    """One frame, checked against its documented schema."""
    msg = ws.receive_json()
    model = {"welcome": WelcomeMessage, "state": StateMessage, "ack": AckMessage,
             "pong": PongMessage, "error": ErrorMessage, "chat": ChatFrame,
             "chat_history": ChatHistoryFrame, "notice": NoticeFrame,
             "rematch_ready": RematchReadyFrame}[msg["type"]]
    model.model_validate(msg)
    return msg


def until(ws, pred, limit: int = 5000) -> dict:
    for _ in range(limit):
        msg = recv(ws)
        if pred(msg):
            return msg
    raise AssertionError("expected frame never came")


def state_of(ws) -> dict:
    return until(ws, lambda m: m["type"] == "state")


class Sockets:
    """Open sockets of a test, each closed properly (its app task ends) at the latest when the
    test ends."""

    def __init__(self, client: TestClient) -> None:
        self.client = client
        self.live: list[Any] = []

    def open(self, game: dict, name: str) -> tuple[Any, dict, dict]:
        """Connect with ``name``'s token: (socket, welcome, first state)."""
        ws = connect(self.client, game, name).__enter__()
        self.live.append(ws)
        welcome = recv(ws)
        assert welcome["type"] == "welcome"
        return ws, welcome, state_of(ws)

    def close(self, ws: Any) -> None:
        """Leave (the server sees the socket close)."""
        self.live.remove(ws)
        ws.__exit__(None, None, None)

    def close_all(self) -> None:
        for ws in list(self.live):
            self.close(ws)


def rest_state(client, game, name="X") -> dict:
    r = client.get(f"/api/games/{game['game_id']}/state", params={"token": game["tokens"][name]})
    assert r.status_code == 200
    body = r.json()
    for s in body["seats"].values():
        s.pop("connected")
        s.pop("away")
    body["absent"].pop("seats")  # who is away now: live, like "connected"
    return body


def numbers(message: str, quoted: str) -> set[int]:
    """The whole numbers in an error message, leaving out the client's own move text."""
    return {int(n) for n in re.findall(r"\d+", message.replace(quoted, " "))}


def send(ws, **msg) -> None:
    ws.send_text(json.dumps(msg))


def ask(ws, **msg) -> dict:
    """The answer to ``msg``: its error, else the newest state sent before a ping that follows
    it (a seat-change broadcast from another socket may come in between; frames are answered
    in order, so the state the request caused is the last one before the pong)."""
    send(ws, type="ping", id="settle")  # read what is queued so far
    until(ws, lambda m: m["type"] == "pong")
    send(ws, **msg, id="req")
    send(ws, type="ping", id="after")
    frames = []
    while (m := recv(ws))["type"] != "pong":
        frames.append(m)
    errors = [f for f in frames if f["type"] == "error" and f.get("id") == "req"]
    if errors:
        return errors[0]
    states = [f for f in frames if f["type"] == "state"]
    return states[-1] if states else {"type": "none", "frames": frames}


# ---- roles and views ----------------------------------------------------------------------------------
def test_welcome_roles_pieces_and_views_per_token(client):
    g = create(client, detectives=3, hotseat=True)
    expect = {"X": ("mr_x", ["X"], "X"), "detectives": ("detectives", ["D1", "D2", "D3"], "D1"),
              "D2": ("detectives", ["D2"], "D2"), "spectator": ("spectator", [], "spectator"),
              "all": ("hotseat", ["X", "D1", "D2", "D3"], "X")}
    for name, (role, pieces, viewer) in expect.items():
        with connect(client, g, name) as ws:
            welcome = recv(ws)
            assert welcome == {"type": "welcome", "game_id": g["game_id"], "pieces": pieces,
                               "role": role, "token_name": name, "absent_timeout": 60.0}
            st = state_of(ws)
            assert st["view"]["viewer"] == viewer and st["version"] == 0
            assert st["seats"][pieces[0] if pieces else "X"]["connected"] is bool(pieces)
            if viewer == "X":
                assert st["view"]["mr_x_station"] is not None and st["view"]["legal_moves"]
            else:
                assert st["view"]["mr_x_station"] is None and st["view"]["legal_moves"] == []
                assert "X" not in st["view"]["start"]


def test_move_is_acked_then_broadcast_to_every_connection(client, socks):
    g = create(client, detectives=2)
    wx, _, sx = socks.open(g, "X")
    wd, _, sd = socks.open(g, "detectives")
    ws_, _, _ = socks.open(g, "spectator")
    state_of(wx)  # the seat change when the detectives connected
    move = next(m for m in sx["view"]["legal_moves"] if "+" not in m and "K" not in m)
    send(wx, type="move", move=move, id="c1")
    assert recv(wx) == {"type": "ack", "id": "c1", "version": 1}
    after_x = state_of(wx)
    assert after_x["version"] == 1 and after_x["view"]["mr_x_station"] == int(move[1:])
    for ws in (wd, ws_):
        st = until(ws, lambda m: m["type"] == "state" and m["version"] == 1)
        assert st["view"]["log"][0]["station"] is None and st["view"]["log"][0]["ticket"] in (
            "taxi", "bus", "underground")
        assert st["view"]["history"] == [{"piece": "X", "round": 1, "move": f"{move[0]}?"}]
        assert st["view"]["mr_x_station"] is None
        assert [c["slot"] for c in st["commitments"]] == [0, 1] and st["openings"] is None


def test_rejoin_with_same_token_gets_same_seat_and_fresh_state(client):
    g = create(client, detectives=1)
    with connect(client, g, "X") as ws:
        recv(ws)
        st = state_of(ws)
        send(ws, type="move", move=st["view"]["legal_moves"][0], id=1)
        until(ws, lambda m: m["type"] == "ack")
    with connect(client, g, "X") as ws:
        welcome = recv(ws)
        st = state_of(ws)
        assert welcome["pieces"] == ["X"] and st["version"] == 1 and st["view"]["viewer"] == "X"
        assert st["seats"]["X"]["connected"] is True
        assert [c["slot"] for c in st["commitments"]] == [0, 1]


# ---- bad input ------------------------------------------------------------------------------------------
def test_bad_frames_get_clear_errors_and_change_nothing(client, socks):
    g = create(client, detectives=2)
    wx, _, sx = socks.open(g, "X")
    wd, _, _ = socks.open(g, "D1")
    wsp, _, _ = socks.open(g, "spectator")
    before = rest_state(client, g)
    cases = [
        (wx, "{not json", "bad_json"),
        (wx, "[1, 2]", "bad_message"),
        (wx, json.dumps({"move": "T1"}), "bad_message"),
        (wx, json.dumps({"type": "dance", "id": "z"}), "unknown_type"),
        (wx, json.dumps({"type": "move", "id": "a"}), "bad_message"),
        (wx, json.dumps({"type": "move", "move": 92}), "bad_message"),
        (wx, json.dumps({"type": "move", "move": "T92", "extra": 1}), "bad_message"),
        (wx, json.dumps({"type": "takeover", "piece": "Z9", "agent": "random"}), "bad_message"),
        (wx, json.dumps({"type": "move", "move": "hello"}), "illegal_move"),
        (wx, json.dumps({"type": "move", "move": "T?"}), "illegal_move"),
        (wx, json.dumps({"type": "move", "move": "pass", "id": 7}), "illegal_move"),
        (wx, json.dumps({"type": "move", "move": "U199"}), "illegal_move"),
        (wx, json.dumps({"type": "move", "move": "D1:T1"}), "not_your_turn"),
        (wd, json.dumps({"type": "move", "move": sx["view"]["legal_moves"][0]}), "not_your_turn"),
        (wd, json.dumps({"type": "move", "move": "pass"}), "not_your_turn"),
        (wsp, json.dumps({"type": "move", "move": "T1"}), "not_your_turn"),
        (wx, json.dumps({"type": "move", "move": "T1", "pad": "x" * 5000}), "too_large"),
        (wx, "€" * 1400, "too_large"),  # 4200 bytes though 1400 characters
    ]
    for ws, frame, code in cases:
        ws.send_text(frame)
        err = until(ws, lambda m: m["type"] == "error")
        assert err["code"] == code, (frame[:60], err)
        assert err["message"]
    wx.send_bytes(b'{"type": "ping"}')
    assert until(wx, lambda m: m["type"] == "error")["code"] == "bad_message"
    send(wx, type="move", move="pass", id="keep-me")
    err = until(wx, lambda m: m["type"] == "error")
    assert err["id"] == "keep-me" and "R-MOVE-2" in err["message"]
    assert rest_state(client, g) == before


def test_detective_errors_never_depend_on_mr_x_station(client, socks):
    g = create(client, detectives=1, seed=3)
    wx, _, sx = socks.open(g, "X")
    x_at = sx["view"]["mr_x_station"]
    wd, _, sd = socks.open(g, "D1")
    # moves aimed at Mr X's true station while he is to move: refused, his station not named
    for text in (f"T{x_at}", f"B{x_at}", f"U{x_at}", f"K{x_at}", f"X:T{x_at}"):
        send(wd, type="move", move=text)
        err = until(wd, lambda m: m["type"] == "error")
        assert err["code"] == "not_your_turn" and x_at not in numbers(err["message"], text)
    move = sx["view"]["legal_moves"][0]
    send(wx, type="move", move=move, id=1)
    until(wx, lambda m: m["type"] == "ack")
    x_now = Move.parse(move).destination
    st = until(wd, lambda m: m["type"] == "state" and m["version"] == 1)
    # the same refusals with Mr X put on another possible station: word for word the same
    truth = Record.parse(client.get(f"/api/games/{g['game_id']}/record",
                                    params={"token": g["tokens"]["X"]}).text).replay()
    view = truth.view("D1")
    other = Game.from_view(view, mr_x=next(s for s in sorted(view.possible) if s != x_now))
    for text in (f"T{x_now}", f"B{x_now}", f"U{x_now}", f"K{x_now}", f"T{x_now}+T1", "pass"):
        if text in st["view"]["legal_moves"]:
            continue  # a detective may move there (and would catch him): not an error
        send(wd, type="move", move=text)
        err = until(wd, lambda m: m["type"] == "error")
        assert err["code"] == "illegal_move"
        assert err["message"] == other.why_illegal(Move.parse(text)), err


@pytest.mark.parametrize("query", ["", "?token=", "?token=wrong", "?token=OTHER"])
def test_bad_token_is_refused_and_closed_4401(client, query):
    g, other = create(client), create(client)
    query = query.replace("OTHER", other["tokens"]["X"])
    with client.websocket_connect(f"/ws/{g['game_id']}{query}") as ws:
        err = recv(ws)
        assert err["type"] == "error" and err["code"] == "bad_token"
        with pytest.raises(WebSocketDisconnect) as exc:
            ws.receive_json()
        assert exc.value.code == 4401


def test_unknown_game_is_bad_token(client):
    g = create(client)
    with client.websocket_connect(f"/ws/nosuchgame?token={g['tokens']['X']}") as ws:
        err = recv(ws)
        assert err["code"] == "bad_token" and "no game" in err["message"]
        with pytest.raises(WebSocketDisconnect):
            ws.receive_json()


def test_rate_limit_drops_floods_then_disconnects(client):
    g = create(client, detectives=1)
    with connect(client, g, "spectator") as ws:
        recv(ws)
        state_of(ws)
        for i in range(100):
            send(ws, type="ping", id=i)
        time.sleep(1.0)  # the bucket refills at 20 messages a second
        send(ws, type="sync", id="last")
        frames = []
        while not frames or frames[-1]["type"] != "state":
            frames.append(recv(ws))
        pongs = [f for f in frames if f["type"] == "pong"]
        limited = [f for f in frames if f["type"] == "error"]
        assert limited and all(f["code"] == "rate_limited" for f in limited)
        assert 40 <= len(pongs) < 100
    with connect(client, g, "spectator") as ws:
        recv(ws)
        state_of(ws)
        with pytest.raises(WebSocketDisconnect) as exc:
            for i in range(1000):
                send(ws, type="ping", id=i)
            while True:
                ws.receive_json()
        assert exc.value.code == 1008


def test_game_over_refuses_moves(unpaced):
    client = unpaced
    g = create(client, detectives=2, seats={p: {"kind": "ai", "agent": "random"}
                                           for p in ("X", "D1", "D2")})
    assert set(g["tokens"]) == {"spectator"}  # nobody plays: no seat token is issued
    with connect(client, g, "spectator") as ws:
        recv(ws)
        final = until(ws, lambda m: m["type"] == "state" and m["view"]["outcome"] is not None)
        assert final["view"]["all_shown"] is True and final["openings"] is not None
        send(ws, type="move", move="T1", id="late")
        err = until(ws, lambda m: m["type"] == "error")
        assert err["code"] == "game_over" and err["id"] == "late"


# ---- seats ------------------------------------------------------------------------------------------------
def test_takeover_and_reclaim_rules(client, monkeypatch, socks):
    g = create(client, detectives=2)
    wd1, _, _ = socks.open(g, "D1")
    wd2, _, _ = socks.open(g, "D2")
    wx, _, sx = socks.open(g, "X")
    wsp, _, _ = socks.open(g, "spectator")

    assert ask(wd2, type="takeover", piece="D1", agent="random")["code"] == "not_allowed"  # D1 here
    assert ask(wx, type="takeover", piece="D1", agent="random")["code"] == "not_allowed"   # other side
    assert ask(wsp, type="takeover", piece="D1", agent="random")["code"] == "not_allowed"
    assert ask(wd2, type="takeover", piece="X", agent="random")["code"] == "not_allowed"   # X < 60 s away
    assert ask(wd2, type="takeover", piece="D2", agent="nonsense")["code"] == "bad_message"
    assert ask(wd2, type="reclaim", piece="D2")["code"] == "not_allowed"  # already human
    assert ask(wd2, type="reclaim", piece="D1")["code"] == "not_allowed"  # not its seat
    socks.close(wd1)
    st = until(wd2, lambda m: m["type"] == "state" and not m["seats"]["D1"]["connected"])
    assert st["seats"]["D1"]["kind"] == "human"
    st = ask(wd2, type="takeover", piece="D1", agent="random")
    assert st["seats"]["D1"] == {"kind": "ai", "agent": "random", "connected": False,
                                 "note": "taken over by the AI", "open": False, "away": None}
    # Mr X moves; the AI now plays D1 at once, then it is D2's (human) turn
    send(wx, type="move", move=sx["view"]["legal_moves"][0], id=1)
    st = until(wd2, lambda m: m["type"] == "state" and m["version"] == 2)
    assert st["view"]["to_move"] == "D2" and st["view"]["history"][1]["piece"] == "D1"
    # the D1 token takes its seat back
    wd1, _, _ = socks.open(g, "D1")
    st = ask(wd1, type="reclaim", piece="D1")
    assert st["seats"]["D1"]["kind"] == "human" and st["seats"]["D1"]["connected"]
    # Mr X leaves; after --absent-timeout (60 s; here: 0) a detective may give his seat to the AI
    socks.close(wx)
    st = ask(wd2, type="takeover", piece="X", agent="random")
    assert st["code"] == "not_allowed" and "60 s" in st["message"]
    client.app.state.games.absent_timeout = 0.0
    st = ask(wd2, type="takeover", piece="X", agent="random")
    assert st["type"] == "state" and st["seats"]["X"]["kind"] == "ai"
    assert rest_state(client, g, "D1")["seats"]["X"]["kind"] == "ai"  # stored


def test_ai_seat_takes_over_a_human_seat_moving_now(client):
    g = create(client, detectives=1)
    with connect(client, g, "X") as ws:
        recv(ws)
        state_of(ws)
        send(ws, type="takeover", piece="X", agent="random")
        st = until(ws, lambda m: m["type"] == "state" and m["version"] >= 1)
        assert st["seats"]["X"]["kind"] == "ai" and st["view"]["history"][0]["piece"] == "X"
        send(ws, type="move", move="T1")
        err = until(ws, lambda m: m["type"] == "error")
        assert err["code"] in ("not_your_turn", "game_over")


def test_unregistered_level_falls_back_to_random_with_note(client, monkeypatch):
    for module in (games, seats):  # a server without levels (the catalogue, the seats)
        monkeypatch.setattr(module, "agent_names", lambda: ["random"])
    assert client.get("/api/presets").json()["fallback"] == {
        lvl: "random" for lvl in ("easy", "medium", "hard", "max")}
    g = create(client, detectives=1, seats={"D1": {"kind": "ai", "agent": "hard"}})
    assert g["seats"]["D1"] == {"kind": "ai", "agent": "hard", "connected": False,
                                "note": "hard is not available on this server; random plays instead",
                                "open": False, "away": None}
    r = client.post("/api/games", json={"seats": {"D1": {"kind": "ai", "agent": "mcts"}}})
    assert r.status_code == 422 and "unknown agent 'mcts'" in r.json()["detail"]
    with connect(client, g, "X") as ws:  # the stand-in plays, legally
        recv(ws)
        st = state_of(ws)
        send(ws, type="move", move=st["view"]["legal_moves"][0], id=1)
        st = until(ws, lambda m: m["type"] == "state" and m["version"] == 2)
        assert st["view"]["history"][1]["piece"] == "D1"
        assert st["seats"]["D1"]["note"].startswith("hard is not available")


def test_every_registered_level_can_take_either_side(tmp_path):
    # AI seats wait 60 s here: this checks that each level is built for each side, not its play
    with TestClient(create_app(tmp_path / "levels.sqlite3", ai_delay=60)) as client:
        _levels_take_seats(client)


def _levels_take_seats(client: TestClient) -> None:
    for level in [lvl for lvl in rooms.LEVELS if lvl in agent_names()]:
        g = create(client, preset="new_edition", detectives=3,
            seats={"X": {"kind": "human"}, "D1": {"kind": "ai", "agent": level},
                   "P1": {"kind": "ai", "agent": level}})
        assert g["seats"]["D1"]["note"] is None and g["seats"]["P1"]["note"] is None, level
        g = create(client, detectives=1, seats={"X": {"kind": "ai", "agent": level}})
        assert g["seats"]["X"]["note"] is None, level


# ---- editions and hotseat ----------------------------------------------------------------------------
def test_free_order_moves_name_their_piece_r_order_free(client, socks):
    g = create(client, preset="new_edition", detectives=3, seed=11)
    wx, _, sx = socks.open(g, "X")
    wd, _, _ = socks.open(g, "detectives")
    wd1, _, _ = socks.open(g, "D1")
    send(wx, type="move", move=sx["view"]["legal_moves"][0], id=1)
    st = until(wd, lambda m: m["type"] == "state" and m["version"] == 1)
    assert st["view"]["pieces_to_move"] == ["D1", "D2", "D3", "P1"]
    d3 = next(m for m in st["view"]["legal_moves"] if m.startswith("D3:"))
    d2 = next(m for m in st["view"]["legal_moves"] if m.startswith("D2:"))
    send(wd1, type="move", move=d2, id="x")  # a D1 token does not play D2
    assert until(wd1, lambda m: m["type"] == "error")["code"] == "not_your_turn"
    send(wd, type="move", move=d3, id="y")  # D3 before D1: allowed in the new edition
    assert until(wd, lambda m: m["type"] in ("ack", "error")) == {"type": "ack", "id": "y", "version": 2}
    st = until(wd1, lambda m: m["type"] == "state" and m["version"] == 2)
    assert st["view"]["pieces_to_move"] == ["D1", "D2", "P1"]


def test_hotseat_token_shows_mr_x_only_on_his_turn(client):
    g = create(client, detectives=1, hotseat=True, seed=9)
    with connect(client, g, "all") as ws:
        assert recv(ws)["role"] == "hotseat"
        st = state_of(ws)
        assert st["view"]["viewer"] == "X" and st["view"]["mr_x_station"] is not None
        send(ws, type="move", move=st["view"]["legal_moves"][0], id=1)
        until(ws, lambda m: m["type"] == "ack")
        st = state_of(ws)
        assert st["view"]["viewer"] == "D1" and st["view"]["side"] == "detectives"
        if not st["view"]["log"][0]["reveal"]:
            assert st["view"]["mr_x_station"] is None and st["view"]["log"][0]["station"] is None
        send(ws, type="move", move=st["view"]["legal_moves"][0], id=2)
        until(ws, lambda m: m["type"] == "ack")
        st = state_of(ws)
        assert st["view"]["viewer"] == "X" or st["view"]["outcome"] is not None


def test_extra_reveal_take_moves_work_over_the_socket_r_var_extra_reveal(client, socks):
    g = create(client, detectives=2, extra_reveal=True, seed=4)
    wx, _, sx = socks.open(g, "X")
    wd, _, _ = socks.open(g, "detectives")
    reveal = next(m for m in sx["view"]["legal_moves"] if m.endswith("!"))
    send(wx, type="move", move=reveal, id="r")
    until(wx, lambda m: m["type"] == "ack")
    st = state_of(wx)
    assert st["view"]["pending_take"] == "D1"
    dst = until(wd, lambda m: m["type"] == "state" and m["version"] == 1)
    assert dst["view"]["mr_x_station"] == int(reveal[1:-1])  # he showed himself
    send(wx, type="move", move="take:D1:B", id="t1")
    until(wx, lambda m: m["type"] == "ack")
    st = state_of(wx)
    assert st["view"]["pending_take"] == "D2" and st["view"]["tickets"]["D1"]["bus"] == 7
    socks.close(wx)


# ---- commitments, records, AI games ------------------------------------------------------------------
def _play_out(client, socks, g, names) -> tuple[list[dict], dict]:
    """Play a game with random legal moves from the sockets of ``names``; return every state
    frame the first socket saw and the final state."""
    rng = random.Random(1)
    opened = {n: socks.open(g, n)[0] for n in names}
    seen: list[dict] = []
    watcher = opened[names[0]]
    st = rest_state(client, g, names[0])
    while st["view"]["outcome"] is None:
        for name, ws in opened.items():
            view = rest_state(client, g, name)["view"]
            if view["legal_moves"]:
                send(ws, type="move", move=rng.choice(view["legal_moves"]), id=name)
                assert until(ws, lambda m: m["type"] in ("ack", "error"))["type"] == "ack"
                break
        st = until(watcher, lambda m: m["type"] == "state" and m["version"] == len(seen) + 1)
        seen.append(st)
    return seen, st


def test_commitments_match_openings_and_the_true_log(client, socks):
    g = create(client, detectives=2, seed=21)
    states, final = _play_out(client, socks, g, ["detectives", "X"])
    published: dict[int, str] = {}
    for st in states:
        for c in st["commitments"]:
            assert published.setdefault(c["slot"], c["hash"]) == c["hash"]  # never changes
        if st["view"]["outcome"] is None:
            assert st["openings"] is None
            assert [c["slot"] for c in st["commitments"]] == [0] + [e["slot"] for e in st["view"]["log"]]
    openings = final["openings"]
    assert [o["slot"] for o in openings] == sorted(published)
    replayed = Record.parse(client.get(f"/api/games/{g['game_id']}/record",
                                       params={"token": g["tokens"]["D1"]}).text).replay()
    assert [(0, replayed.start["X"])] + [(e.slot, e.station) for e in replayed.log] == [
        (o["slot"], o["station"]) for o in openings]
    for o in openings:
        digest = hashlib.sha256(f"{g['game_id']}:{o['slot']}:{o['station']}:{o['salt']}".encode())
        assert digest.hexdigest() == published[o["slot"]]
        assert len(o["salt"]) == 32
    assert len({o["salt"] for o in openings}) == len(openings)


def test_record_after_the_end_is_full_for_everyone(unpaced):
    client = unpaced
    g = create(client, detectives=1, seats={"D1": {"kind": "ai", "agent": "random"}})
    assert set(g["tokens"]) == {"X", "spectator"}  # no token for the AI's seat
    with connect(client, g, "X") as ws:
        recv(ws)
        send(ws, type="takeover", piece="X", agent="random")
        until(ws, lambda m: m["type"] == "state" and m["view"]["outcome"] is not None)
    texts = {n: client.get(f"/api/games/{g['game_id']}/record",
                           params={"token": g["tokens"][n], "format": "json"}).text
             for n in ("X", "spectator")}
    recs = {n: Record.parse(t) for n, t in texts.items()}
    assert all(not r.hidden for r in recs.values())
    game = recs["spectator"].replay()
    assert game.is_over() and recs["X"].moves == recs["spectator"].moves
    assert recs["X"].players == {"X": "AI (random)", "D1": "AI (random)"}


def test_restart_on_same_database_continues_identically(tmp_path):
    db = tmp_path / "r.sqlite3"
    with TestClient(create_app(db, ai_delay=0)) as c:
        g = create(c, preset="new_edition", detectives=2, seed=8,
                   seats={"P1": {"kind": "ai", "agent": "random"}})
        rng = random.Random(2)
        socks = Sockets(c)
        wx, _, _ = socks.open(g, "X")
        wd, _, _ = socks.open(g, "detectives")
        for _ in range(300):  # play until Mr X (human) is to move after 9+ moves: the AI rests
            sx = rest_state(c, g, "X")
            if sx["view"]["outcome"] is not None or (sx["view"]["legal_moves"] and sx["version"] >= 9):
                break
            if sx["view"]["legal_moves"]:
                send(wx, type="move", move=rng.choice(sx["view"]["legal_moves"]), id=1)
                assert until(wx, lambda m: m["type"] in ("ack", "error"))["type"] == "ack"
                continue
            mine = [m for m in rest_state(c, g, "detectives")["view"]["legal_moves"]
                    if not m.startswith("P1:")]
            if mine:
                send(wd, type="move", move=rng.choice(mine), id=2)
                assert until(wd, lambda m: m["type"] in ("ack", "error"))["type"] == "ack"
            else:  # only the AI's P1 is left to move
                until(wd, lambda m, v=sx["version"]: m["type"] == "state" and m["version"] > v)
        socks.close_all()
        before = {n: rest_state(c, g, n) for n in g["tokens"]}
    assert before["X"]["version"] >= 9 or before["X"]["view"]["outcome"] is not None
    with TestClient(create_app(db, ai_delay=0)) as c:
        after = {n: rest_state(c, g, n) for n in g["tokens"]}
        assert after == before
        if after["X"]["view"]["outcome"] is None:
            name = "X" if after["X"]["view"]["legal_moves"] else "detectives"
            with connect(c, g, name) as ws:
                recv(ws)
                st = state_of(ws)
                send(ws, type="move", move=st["view"]["legal_moves"][0], id="next")
                assert until(ws, lambda m: m["type"] in ("ack", "error"))["type"] == "ack"


# ---- what AI seats see -------------------------------------------------------------------------------
class _SpyAgent:
    """Plays the first legal move and keeps what it was shown."""

    name = "spy"
    seen: list = []

    def choose(self, view, legal, rng, budget):
        _SpyAgent.seen.append((view, list(legal)))
        return legal[0]


@pytest.fixture
def spy(monkeypatch):
    from scotlandyard.ai import base

    monkeypatch.setitem(base._REGISTRY, "spy", lambda **_: _SpyAgent())
    _SpyAgent.seen = []
    return _SpyAgent


def _assert_detective_view_only(view, piece: str) -> None:
    assert isinstance(view, PlayerView) and view.viewer == piece and view.side == "detectives"
    assert view.mr_x_station is None and "X" not in view.start
    assert all(e.station is None for e in view.log if not e.reveal)


def test_ai_seat_in_a_thread_sees_only_its_view(client, socks, spy):
    g = create(client, detectives=2, seed=12, seats={"D2": {"kind": "ai", "agent": "spy"}})
    wx, _, sx = socks.open(g, "X")
    wd, _, _ = socks.open(g, "D1")
    move = next(m for m in sx["view"]["legal_moves"] if "+" not in m)
    send(wx, type="move", move=move, id=1)
    st = until(wd, lambda m: m["type"] == "state" and m["version"] == 1)
    send(wd, type="move", move=st["view"]["legal_moves"][0], id=2)
    st = until(wd, lambda m: m["type"] == "state" and m["version"] == 3)  # D2, the spy, moved
    assert len(spy.seen) == 1
    view, legal = spy.seen[0]
    _assert_detective_view_only(view, "D2")
    assert st["view"]["history"][2] == {"piece": "D2", "round": 1, "move": legal[0].notation()}


def test_ai_worker_replays_the_game_and_shows_the_agent_only_its_view(spy):
    from scotlandyard.server.thinker import ThinkJob, think

    game = Game.new(Rules.new_edition(2), seed=6)
    rng = random.Random(6)
    while game.to_move == "X" or game.ply < 4:
        game.push(rng.choice(game.legal_moves()))
    legal = [m for m in game.legal_moves() if m.piece == "P1"]
    job = ThinkJob("g-test", game.rules.to_dict(), game.start,
                   tuple(m.notation() for _, m in game.moves), "P1",
                   tuple(m.notation() for m in legal), "spy", "detectives", 5)
    assert think(job) == legal[0].notation()
    view, got = spy.seen[-1]
    _assert_detective_view_only(view, "P1")
    assert got == legal and view.to_dict() == game.view("P1").to_dict()
    # the next call reuses the worker's copy of the game, moved on by the new moves only
    game.push(legal[0])
    legal = [m for m in game.legal_moves() if (m.piece or game.to_move) != "P1"]
    job2 = ThinkJob("g-test", job.rules, job.start, tuple(m.notation() for _, m in game.moves),
                    legal[0].piece or game.to_move, tuple(m.notation() for m in legal), "spy",
                    "detectives", 6)
    assert think(job2) == legal[0].notation()
    assert spy.seen[-1][0].to_dict() == game.view(job2.piece).to_dict()


@pytest.mark.parametrize("preset", ["classic", "new_edition"])
def test_state_probability_and_possible_history_are_the_public_beliefs(client, socks, preset):
    """Every state's `probability` equals `probability_map` of the spectator's view of the same
    game (the server reuses the map when a move cannot change it), and at the end
    `possible_history` is `belief.possible_history` of it."""

    checked = 0
    for seed in range(5, 10):  # Mr X's start is secret on the server: play until 20 states
        checked += _check_beliefs(client, socks, preset, seed)
        if checked > 20:
            break
    assert checked > 20


def test_analysis_reuses_the_maps_sent_and_equals_a_fresh_one_after_a_takeback():
    """The room keeps the probability of Mr X's true station from each map it sent (so the
    post-game analysis does not compute them again); after a takeback of his move and
    another move instead, the analysis is still exactly `analyse` of the game."""
    import asyncio

    from scotlandyard.analysis import analyse
    from scotlandyard.server.connections import Connection
    from scotlandyard.server.store import Store

    async def noop(*_: Any) -> None:
        return None

    async def play(server: games.GameServer, seed: int) -> bool:
        rules = Rules.preset("classic", 2)
        out = await server.open_game(rules, "classic",
                                     {p: rooms.Seat(p, "human") for p in rules.pieces},
                                     ["X", "spectator"], hotseat=False, seed=seed, public=False,
                                     options={}, you=None)
        room = server.rooms[out["game_id"]]
        room.join(Connection(noop, noop, "spectator", "spectator", ()))
        rng = random.Random(seed)
        taken_back = False
        while not room.game.is_over():
            game = room.game
            await room.apply(rng.choice(game.legal_moves()))
            room.after_move()
            if not taken_back and game.moves[-1][0] == "X" and len(game.log) == 4:
                assert 4 in room._p_true
                await room.take_back(game.ply)  # Mr X's 4th slot is undone: its map is dropped
                assert 4 not in room._p_true
                taken_back = True
        if not taken_back or len(room.game.log) < 6:
            return False  # caught early (Mr X's start is secret, so games differ): again
        fresh = Game.new(rules, start=dict(room.game.start))
        after_x = set()
        for piece, move in room.game.moves:
            fresh.push(move)
            if piece == "X":
                after_x.add(len(fresh.log))
        assert set(room._p_true) == after_x  # one for each of his moves, none stale
        assert room.analysis() == analyse(fresh)
        return True

    async def go() -> None:
        server = games.GameServer(Store(":memory:"), ai_delay=0)
        played = False
        for seed in range(40):
            played = await play(server, seed)
            if played:
                break
        assert played
        server.shutdown()

    asyncio.run(go())


def _check_beliefs(client, socks, preset: str, seed: int) -> int:
    from scotlandyard import probability_map
    from scotlandyard.belief import possible_history

    g = create(client, preset=preset, detectives=2, seed=seed)
    wx, _, sx = socks.open(g, "X")
    wd, _, _ = socks.open(g, "detectives")
    rules = Rules.preset(preset, 2)
    mirror = Game.new(rules, start={**{p: s for p, s in sx["view"]["stations"].items()},
                                    "X": sx["view"]["mr_x_station"]})
    rng = random.Random(seed)
    checked = 0
    state = sx
    while True:
        want = {str(s): round(p, 6) for s, p in probability_map(mirror.view("spectator")).items()}
        assert state["probability"] == want
        checked += 1
        if state["view"]["outcome"]:
            hist = [{"slot": a, "round": b, "possible": sorted(c)}
                    for a, b, c in possible_history(mirror.view("spectator"))]
            assert state["possible_history"] == hist and hist
            # the post-game analysis (Mr X's true path) comes only now, the same for everyone
            from scotlandyard.analysis import analyse
            assert state["analysis"] == json.loads(json.dumps(analyse(mirror)))
            det = until(wd, lambda m, v=mirror.ply: m["type"] == "state" and m["version"] == v)
            assert det["analysis"] == state["analysis"]
            return checked
        assert state["possible_history"] is None
        assert state["analysis"] is None  # nothing of Mr X's path before the end
        ws = wx if mirror.to_move == "X" else wd
        move = rng.choice(mirror.legal_moves())
        mirror.push(move)
        send(ws, type="move", move=move.notation(), id="m")
        state = until(wx, lambda m, v=mirror.ply: m["type"] == "state" and m["version"] == v)
