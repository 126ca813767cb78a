"""The game server as a real uvicorn process on 127.0.0.1: hidden information never leaks to
detective or spectator sockets nor to the logs, a SIGKILLed server resumes every game exactly,
the example bot plays, and frame limits hold on the wire."""

from __future__ import annotations

import asyncio
import json
import random
import re
import subprocess
import sys
import time

import httpx
import pytest
import websockets
from websockets.exceptions import ConnectionClosed

from scotlandyard.record import Record
from scotlandyard.server.audit import audit_frame, walk
from scotlandyard.server.client_example import BotError, play
from tests.live_server import LiveServer, free_port

pytestmark = pytest.mark.timeout(300)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    work = tmp_path_factory.mktemp("live")
    # AI seats think in a worker process here (the restart test uses threads)
    # and AI Mr X is unpaced (test-only): the leak test plays many whole AI games at once
    srv = LiveServer(work, work / "games.sqlite3", 0, "--ai-workers", "1", unpaced=True)
    srv.db = work / "games.sqlite3"
    yield srv
    srv.stop()


# ---- the leak test ---------------------------------------------------------------------------------
GAMES = [
    {"preset": "classic", "detectives": 5}, {"preset": "classic", "detectives": 5},
    {"preset": "classic", "detectives": 3}, {"preset": "classic", "detectives": 1},
    {"preset": "classic_2p"}, {"preset": "classic", "detectives": 4, "extra_reveal": True},
    {"preset": "classic", "detectives": 2, "extra_reveal": True},
    {"preset": "new_edition", "detectives": 4}, {"preset": "new_edition", "detectives": 4},
    {"preset": "new_edition", "detectives": 3}, {"preset": "new_edition", "detectives": 2},
    {"preset": "new_edition", "detectives": 1}, {"preset": "new_edition_2p"},
    {"preset": "new_edition", "detectives": 3, "extra_reveal": True},
]


async def _watch_ai_game(server: LiveServer, g: dict) -> dict[str, list[str]]:
    """Connect the detectives', one detective's, the spectator's and Mr X's sockets, hand every
    seat to the random AI, and collect every frame until the game ends."""
    watchers = ["detectives", "D1", "spectator"]
    frames: dict[str, list[str]] = {n: [] for n in [*watchers, "X"]}
    socks = {n: await websockets.connect(server.url(g, n), max_size=2**23) for n in frames}

    async def read(name: str) -> None:
        async for text in socks[name]:
            frames[name].append(text)
            msg = json.loads(text)
            if msg["type"] == "state" and msg["view"]["outcome"] is not None:
                return

    readers = [asyncio.create_task(read(n)) for n in frames]
    for piece in g["pieces"][1:]:
        await socks["detectives"].send(json.dumps({"type": "takeover", "piece": piece,
                                                   "agent": "random"}))
    # a detective tries a few things meanwhile: errors only, whatever the state
    await socks["D1"].send(json.dumps({"type": "move", "move": "T1", "id": "probe"}))
    await socks["D1"].send("{nope")
    # chat: the detectives' team channel and the table
    await socks["D1"].send(json.dumps({"type": "chat", "channel": "team",
                                       "text": f"team-secret-{g['game_id']}"}))
    await socks["detectives"].send(json.dumps({"type": "chat", "channel": "team",
                                               "text": "team-secret-2"}))
    await socks["X"].send(json.dumps({"type": "chat", "channel": "table", "text": "table-hello"}))
    await socks["X"].send(json.dumps({"type": "chat", "channel": "team", "text": "x-tries"}))
    await socks["X"].send(json.dumps({"type": "takeover", "piece": "X", "agent": "random"}))
    await asyncio.wait_for(asyncio.gather(*readers), 120)
    for s in socks.values():
        await s.close()
    return frames


def _check_no_leak(text: str, who: str, truth_log: list, game_id: str) -> None:
    """One frame sent to a detective or spectator socket: Mr X's station only at reveals
    (``scotlandyard.server.audit``), and Mr X's attempt at the team channel never shown."""
    msg = json.loads(text)
    audit_frame(text, who, truth_log, game_id)
    if msg["type"] in ("chat", "chat_history"):
        entries = [msg["message"]] if msg["type"] == "chat" else msg["messages"]
        assert not any("x-tries" in e["text"] for e in entries), text


def test_no_hidden_station_reaches_detective_or_spectator_sockets_or_logs(server):
    games = [server.create(**body) for body in GAMES]

    async def run_all():
        return await asyncio.gather(*(_watch_ai_game(server, g) for g in games))

    all_frames = asyncio.run(run_all())
    checked = 0
    hidden_seen = 0
    x_saw_hidden = 0
    x_moves: set[str] = set()
    for g, frames in zip(games, all_frames, strict=True):
        r = httpx.get(f"{server.base}/api/games/{g['game_id']}/record",
                      params={"token": g["tokens"]["X"], "format": "json"}, timeout=10)
        record = Record.parse(r.text)
        game = record.replay()  # the full record: every move legal in the core
        assert game.is_over()
        truth_log = list(game.log)
        hidden_seen += sum(not e.reveal for e in truth_log)
        x_moves.update(m.notation() for p, m in game.moves if p == "X" and not m.is_take)
        for who in ("detectives", "D1", "spectator"):
            assert frames[who], who
            for text in frames[who]:
                _check_no_leak(text, who, truth_log, g["game_id"])
                checked += 1
        # team messages: the detectives' sockets got them, Mr X's and the spectator's never
        for who in ("X", "spectator"):
            assert not any("team-secret" in t or '"channel":"team"' in t for t in frames[who]), who
        for who in ("detectives", "D1"):
            assert any(f"team-secret-{g['game_id']}" in t for t in frames[who]), who
        assert any("table-hello" in t for t in frames["spectator"])
        final_x = json.loads(frames["X"][-1])
        assert final_x["view"]["log"] == json.loads(frames["spectator"][-1])["view"]["log"]
        # Mr X's socket did see his hidden stations while the game went on (so the check
        # above is not vacuous): every hidden slot but the last (his last move may end the
        # game: every detective stuck). A game may have none: with extra_reveal the random
        # Mr X may reveal himself on every move before he is caught.
        x_states = [json.loads(t) for t in frames["X"] if '"type":"state"' in t]
        x_saw = {e["slot"] for s in x_states if s["view"]["outcome"] is None
                 for e in s["view"]["log"] if e["station"] is not None and not e["reveal"]}
        hidden_slots = [e.slot for e in truth_log if not e.reveal]
        assert set(hidden_slots[:-1]) <= x_saw, (g["game_id"], hidden_slots, sorted(x_saw))
        x_saw_hidden += len(x_saw)
    assert checked > 1000 and hidden_seen > 100 and x_saw_hidden > 100
    # the server's own output: no token, no move of Mr X (no move at all is logged)
    text = server.log.read_text()
    assert "token=REDACTED" in text  # uvicorn did log the socket URLs, redacted
    for g in games:
        for tok in g["tokens"].values():
            assert tok not in text
        text = text.replace(g["game_id"], "GAME")
    words = set(re.findall(r"[A-Za-z0-9+!:]+", text))
    assert not x_moves & words
    assert "team-secret" not in text and "table-hello" not in text  # no chat text is logged


def test_lobby_lists_no_token_or_hidden_fact(server):
    """The lobby while public games run: rules, seats and who waits; no token, no station."""
    games = [server.create(preset=p, public=True, play_as="X") for p in ("classic", "new_edition")]

    async def x_moves() -> list[int]:
        stations = []
        for g in games:
            async with websockets.connect(server.url(g, "X")) as ws:
                while True:
                    msg = json.loads(await ws.recv())
                    if msg["type"] == "state":
                        break
                stations.append(msg["view"]["mr_x_station"])
                await ws.send(json.dumps({"type": "move", "move": msg["view"]["legal_moves"][0]}))
                while json.loads(await ws.recv())["type"] != "ack":
                    pass
        return stations

    asyncio.run(x_moves())
    body = httpx.get(f"{server.base}/api/lobby", timeout=10)
    text = body.text
    listed = {e["game_id"]: e for e in body.json()["games"]}
    for g in games:
        entry = listed[g["game_id"]]
        assert entry["started"] and entry["open"] == list(g["pieces"][1:])
        for tok in g["tokens"].values():
            assert tok not in text
    keys = {k for _, k, _ in walk(body.json())}
    assert not keys & {"station", "mr_x_station", "start", "log", "history", "moves", "token",
                       "tokens", "link", "links", "view", "salt"}


# ---- restart after SIGKILL ----------------------------------------------------------------------------
async def _play_moves(url: str, moves: int, rng: random.Random, pieces_filter=None) -> list[tuple[int, str]]:
    """Make up to ``moves`` random legal moves from one socket; return (acked version, move)."""
    done: list[tuple[int, str]] = []
    async with websockets.connect(url, max_size=2**23) as ws:
        await ws.recv()  # welcome
        while len(done) < moves:
            msg = json.loads(await ws.recv())
            if msg["type"] != "state" or msg["view"]["outcome"] is not None:
                if msg["type"] == "state":
                    break
                continue
            legal = [m for m in msg["view"]["legal_moves"]
                     if pieces_filter is None or pieces_filter(m)]
            if not legal:
                continue
            move = rng.choice(legal)
            await ws.send(json.dumps({"type": "move", "move": move, "id": len(done)}))
            while True:
                reply = json.loads(await ws.recv())
                if reply["type"] in ("ack", "error"):
                    break
            assert reply["type"] == "ack", reply
            done.append((reply["version"], move))
    return done


async def _alternate(server: LiveServer, g: dict, names: list[str], plies: int, seed: int) -> None:
    """Play ``plies`` moves of a human game, the sides' sockets taking turns."""
    rng = random.Random(seed)
    for _ in range(plies):
        st = server.state(g, names[0])
        if st["view"]["outcome"] is not None:
            return
        for name in names:
            if server.state(g, name)["view"]["legal_moves"]:
                await _play_moves(server.url(g, name), 1, rng)
                break


async def _race(server: LiveServer, g: dict, acked: list[tuple[int, str]], stop: asyncio.Event) -> None:
    """Two bots (Mr X and the detectives) playing as fast as they can until stopped."""
    async def bot(name: str, rng: random.Random) -> None:
        async with websockets.connect(server.url(g, name), max_size=2**23) as ws:
            await ws.recv()
            pending = None
            async for text in ws:
                msg = json.loads(text)
                if msg["type"] == "ack":
                    acked.append((msg["version"], pending))
                    pending = None
                elif msg["type"] == "state" and pending is None and not stop.is_set():
                    if msg["view"]["outcome"] is not None:
                        return
                    if msg["view"]["legal_moves"]:
                        pending = rng.choice(msg["view"]["legal_moves"])
                        await ws.send(json.dumps({"type": "move", "move": pending}))
    await asyncio.gather(bot("X", random.Random(1)), bot("detectives", random.Random(2)))


def test_sigkilled_server_resumes_every_game_exactly(tmp_path):
    db = tmp_path / "games.sqlite3"
    a = LiveServer(tmp_path, db, ai_delay=30)  # AI seats wait: nothing moves behind our back
    try:
        g1 = a.create(preset="classic", detectives=2)
        g2 = a.create(preset="new_edition", detectives=2)
        g3 = a.create(preset="classic", detectives=1, seats={"X": {"kind": "ai", "agent": "random"}})
        g4 = a.create(preset="classic", detectives=3)
        asyncio.run(_alternate(a, g1, ["X", "detectives"], 9, seed=1))
        asyncio.run(_alternate(a, g2, ["X", "detectives"], 9, seed=2))
        snaps = {gid: {n: a.state(g, n) for n in g["tokens"]}
                 for gid, g in (("g1", g1), ("g2", g2), ("g3", g3))}
        for gid in ("g1", "g2"):  # 9 plies, unless the random moves ended the game sooner (a
            st = snaps[gid]["X"]  # capture in the first 8 plies: 2-4 % of such random games)
            assert st["version"] == 9 or (st["view"]["outcome"] is not None
                                          and 1 <= st["version"] < 9), (gid, st["version"])
        assert snaps["g3"]["D1"]["version"] == 0 and "X" not in g3["tokens"]

        acked: list[tuple[int, str]] = []

        async def race_then_kill():
            stop = asyncio.Event()
            task = asyncio.create_task(_race(a, g4, acked, stop))
            deadline = time.monotonic() + 60
            while len(acked) < 25 and time.monotonic() < deadline and not task.done():
                await asyncio.sleep(0.005)
            a.kill()  # mid-game, moves in flight
            try:
                await asyncio.wait_for(task, 10)
            except (ConnectionClosed, OSError, TimeoutError):
                pass
        asyncio.run(race_then_kill())
    finally:
        a.stop()
    assert acked, "no move of the race was acknowledged before the kill"
    last_acked = max(v for v, _ in acked)

    b = LiveServer(tmp_path, db, ai_delay=0)
    try:
        for gid, g in (("g1", g1), ("g2", g2)):
            for name in g["tokens"]:
                assert b.state(g, name) == snaps[gid][name], (gid, name)
        # every acknowledged move survived the kill; at most the one in flight was added
        s4 = b.state(g4, "X")
        # the race ran 25 acknowledged moves, or to the game's end (a random capture)
        assert len(acked) >= 10 or s4["view"]["outcome"] is not None, len(acked)
        assert last_acked <= s4["version"] <= last_acked + 1
        history = [h["move"] for h in s4["view"]["history"]]
        assert history[:last_acked] == [m for _, m in sorted(acked)][:last_acked]
        assert [c["slot"] for c in s4["commitments"]] == [0] + [e["slot"] for e in s4["view"]["log"]]
        # the AI seat thinks again after the restart: Mr X of g3 moves by itself
        deadline = time.monotonic() + 30
        while b.state(g3, "D1")["version"] == 0 and time.monotonic() < deadline:
            time.sleep(0.05)
        s3 = b.state(g3, "D1")
        assert s3["version"] == 1 and s3["view"]["to_move"] == "D1"
        assert s3["seats"] == snaps["g3"]["D1"]["seats"]
        assert [c["slot"] for c in s3["commitments"]] == [0] + [e["slot"] for e in s3["view"]["log"]]
        assert len(s3["commitments"]) in (2, 3)  # his start, and a single or a double move
        # and every game goes on
        for g, names in ((g1, ["X", "detectives"]), (g2, ["X", "detectives"]),
                         (g4, ["X", "detectives"]), (g3, ["D1"])):
            before = b.state(g, "spectator")["version"]
            if b.state(g, "spectator")["view"]["outcome"] is not None:
                continue
            asyncio.run(_alternate(b, g, names, 1, seed=5))
            assert b.state(g, "spectator")["version"] > before
    finally:
        b.stop()


# ---- the example bot -------------------------------------------------------------------------------
def test_example_bot_plays_mr_x_against_ai_detectives(server):
    g = server.create(preset="classic", detectives=2,
                      seats={"D1": {"kind": "ai", "agent": "random"},
                             "D2": {"kind": "ai", "agent": "random"}})
    link = server.base + g["links"]["X"]
    result = asyncio.run(play(link, max_moves=6, seed=3))
    st = server.state(g, "X")
    x_moves = [h["move"] for h in st["view"]["history"] if h["piece"] == "X"]
    if result.outcome is None:
        assert len(result.moves) == 6
    assert x_moves[:len(result.moves)] == result.moves and result.moves
    assert st["version"] >= 3 * len(result.moves) - 2


def test_example_bot_command_line_and_refusals(server):
    g = server.create(preset="new_edition", detectives=4,
                      seats={p: {"kind": "ai", "agent": "random"} for p in ("D1", "D2", "D3", "D4")})
    out = subprocess.run([sys.executable, "-m", "scotlandyard.server.client_example",
                          server.base + g["links"]["X"], "--max-moves", "2", "--seed", "1"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.count("round ") == 2
    with pytest.raises(BotError, match="bad_token|refused"):
        asyncio.run(play(f"{server.ws}/ws/{g['game_id']}?token=wrong", max_moves=1))
    with pytest.raises(BotError, match="invite link"):
        asyncio.run(play("http://127.0.0.1/lobby", max_moves=1))


# ---- limits on the wire -------------------------------------------------------------------------------
def test_frame_limits_and_bad_token_close_codes_on_the_wire(server):
    g = server.create(preset="classic", detectives=1)

    async def go():
        async with websockets.connect(server.url(g, "D1"), max_size=2**23) as ws:
            for _ in range(3):  # welcome, chat_history, state
                await ws.recv()
            await ws.send(json.dumps({"type": "ping", "pad": "x" * 5000}))
            err = json.loads(await ws.recv())
            assert err["code"] == "too_large"
            await ws.send("y" * 70_000)  # far over: the connection is closed (1009)
            with pytest.raises(ConnectionClosed) as exc:
                await ws.recv()
            assert exc.value.rcvd.code == 1009
        async with websockets.connect(f"{server.ws}/ws/{g['game_id']}?token=nope") as ws:
            err = json.loads(await ws.recv())
            assert err["code"] == "bad_token"
            with pytest.raises(ConnectionClosed) as exc:
                await ws.recv()
            assert exc.value.rcvd.code == 4401

    asyncio.run(go())
    assert server.state(g, "X")["version"] == 0


def test_invalid_utf8_and_lone_surrogates_get_errors_and_the_socket_lives(server):
    g = server.create(preset="classic", detectives=1)

    async def go():
        async with websockets.connect(server.url(g, "D1")) as ws:
            while json.loads(await ws.recv())["type"] != "state":
                pass
            for _ in range(3):
                await ws.send(b'{"type":"ping","id":"\xff\xfe"}', text=True)  # not UTF-8
                err = json.loads(await ws.recv())
                assert err["code"] == "bad_message" and "not valid UTF-8" in err["message"]
            await ws.send('{"type":"ping","id":"\\ud800"}')
            err = json.loads(await ws.recv())
            assert err["code"] == "bad_message" and "lone surrogate" in err["message"]
            await ws.send('{"type":"ping","id":"after"}')
            assert json.loads(await ws.recv()) == {"type": "pong", "id": "after"}

    asyncio.run(go())
    log = server.log.read_text(errors="replace")
    assert "Traceback" not in log and "Invalid UTF-8" not in log


def test_a_second_server_on_the_same_database_refuses_to_start_and_says_why(server):
    out = subprocess.run(
        [sys.executable, "-m", "scotlandyard.server", "--port", str(free_port()), "--db",
         str(server.db)], capture_output=True, text=True, timeout=60)
    assert out.returncode == 1
    assert f"another scotlandyard server (pid {server.proc.pid}) is using" in out.stderr
    assert "Traceback" not in out.stderr + out.stdout
    assert httpx.get(server.base + "/api/presets", timeout=5).status_code == 200  # unharmed
