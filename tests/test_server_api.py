"""The web server's REST API and pages (FastAPI TestClient, in-process)."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from scotlandyard import Rules, london
from scotlandyard.ai import agent_names
from scotlandyard.board import Transport
from scotlandyard.server.app import STATIC_DIR, create_app
from scotlandyard.server.store import SCHEMA_VERSION, Store, StoreError

pytestmark = pytest.mark.timeout(90)


@pytest.fixture
def client(tmp_path: Path):
    with TestClient(create_app(tmp_path / "games.sqlite3", ai_delay=0)) as c:
        yield c


def create(client: TestClient, **body) -> dict:
    r = client.post("/api/games", json=body)
    assert r.status_code == 201, r.text
    return r.json()


# ---- board and presets ----------------------------------------------------------------------------
def test_board_classic_matches_core_board_r_board(client):
    r = client.get("/api/board")
    assert r.status_code == 200
    data = r.json()
    board = london("classic")
    assert data["stations"] == 199 and data["width"] == board.width and data["height"] == board.height
    assert set(data["positions"]) == {str(s) for s in range(1, 200)}
    assert data["positions"]["74"] == list(board.positions[74])
    for t in Transport:
        assert sorted(map(tuple, data["edges"][t.label])) == sorted(board.edges[t])
    # R-BOARD printed examples: taxi 74 -> 92, 73, 58, 75; bus 74 -> 58, 94; underground 74 -> 46
    taxi = {frozenset(e) for e in data["edges"]["taxi"]}
    assert {frozenset((74, d)) for d in (92, 73, 58, 75)} <= taxi
    assert frozenset((74, 46)) in {frozenset(e) for e in data["edges"]["underground"]}
    assert len(data["edges"]["ferry"]) == 3
    assert data["stop_types"]["74"] == ["taxi", "bus", "underground"]
    assert data["stop_types"]["1"] == ["taxi", "bus", "underground"]
    assert "ferry" in data["stop_types"]["157"]


def test_board_2014_lacks_taxi_13_14_and_bad_board_is_422(client):
    classic = {frozenset(e) for e in client.get("/api/board?board=classic").json()["edges"]["taxi"]}
    new = {frozenset(e) for e in client.get("/api/board?board=2014").json()["edges"]["taxi"]}
    assert frozenset((13, 14)) in classic and frozenset((13, 14)) not in new
    r = client.get("/api/board?board=moon")
    assert r.status_code == 422 and "board" in r.json()["detail"]


def test_presets_are_the_core_presets_and_agents(client):
    data = client.get("/api/presets").json()
    assert list(data["presets"]) == list(Rules.BOOK_PRESETS)  # the small boards: research only
    for name in Rules.BOOK_PRESETS:
        assert data["presets"][name] == Rules.preset(name).to_dict()
    assert data["levels"][0] == "random" and "medium" in data["levels"]
    assert data["agents"] == agent_names()
    for level in data["levels"]:
        assert (level in data["fallback"]) == (level not in agent_names())
    assert data["detectives"]["classic_2p"] == {"min": 4, "max": 4, "default": 4}


# ---- creating games ---------------------------------------------------------------------------------
def test_create_default_game_gives_a_token_per_seat_spectator_and_links(client):
    out = create(client)
    assert out["pieces"] == list(Rules.classic().pieces)
    names = {"X", "detectives", "D1", "D2", "D3", "D4", "D5", "spectator"}
    assert set(out["tokens"]) == names and set(out["links"]) == names
    tokens = list(out["tokens"].values())
    assert len(set(tokens)) == len(tokens) and all(len(t) >= 32 for t in tokens)
    gid = out["game_id"]
    for name, tok in out["tokens"].items():
        assert out["links"][name] == f"/game/{gid}#t={tok}"
    assert all(s == {"kind": "human", "agent": None, "connected": False, "note": None,
                     "open": False, "away": s["away"]} and 0 <= s["away"] < 60
               for s in out["seats"].values())
    assert client.post("/api/games", json={}).json()["game_id"] != gid


def test_create_hotseat_new_edition_with_police_and_ai_seats(client):
    out = create(client, preset="new_edition", detectives=2, hotseat=True,
                 seats={"X": {"kind": "ai", "agent": "random"}, "P2": {"kind": "ai"}})
    assert out["pieces"] == ["X", "D1", "D2", "P1", "P2"]
    assert "all" in out["tokens"] and "P1" in out["tokens"]
    assert out["seats"]["X"]["kind"] == "ai" and out["seats"]["X"]["agent"] == "random"
    assert out["seats"]["P2"]["agent"] == "medium"  # the default level
    if "medium" not in agent_names():
        assert "random plays instead" in out["seats"]["P2"]["note"]
    else:
        assert out["seats"]["P2"]["note"] is None


def test_create_classic_2p_and_extra_reveal_rules(client):
    out = create(client, preset="classic_2p", extra_reveal=True)
    state = client.get(f"/api/games/{out['game_id']}/state",
                       params={"token": out["tokens"]["spectator"]}).json()
    rules = state["view"]["rules"]
    assert rules == Rules.classic_two_players().replace(extra_reveal=True).to_dict()


@pytest.mark.parametrize("body, needle", [
    ({"seats": {"P1": {"kind": "human"}}}, "no seat P1"),
    ({"seats": {"Q7": {}}}, "no seat Q7"),
    ({"seats": {"X": {"kind": "ai", "agent": "deep-blue"}}}, "unknown agent 'deep-blue'"),
    ({"seats": {"X": {"kind": "robot"}}}, "seats.X.kind"),
    ({"preset": "chess"}, "preset"),
    ({"detectives": 0}, "detectives"),
    ({"detectives": 6}, "detectives"),
    ({"detectives": "5"}, "detectives"),
    ({"preset": "classic_2p", "detectives": 3}, "classic_2p preset has 4 detectives"),
    ({"preset": "new_edition_2p", "detectives": 4}, "new_edition_2p preset has 2 detectives"),
    ({"seed": -1}, "seed"),
    ({"colour": "red"}, "colour"),
])
def test_create_bad_bodies_are_422_with_a_message(client, body, needle):
    r = client.post("/api/games", json=body)
    assert r.status_code == 422
    assert needle in r.json()["detail"]


def test_create_is_not_json_is_422(client):
    r = client.post("/api/games", content=b"{oops", headers={"content-type": "application/json"})
    assert r.status_code == 422 and isinstance(r.json()["detail"], str)


def test_seeded_game_fixes_the_detectives_start_only(client):
    # on the server a seed fixes public facts only (docs/webapp.md, Security): see
    # tests/test_server_security.py for Mr X's start
    seen = []
    for _ in range(2):
        out = create(client, preset="classic", detectives=3, seed=42)
        state = client.get(f"/api/games/{out['game_id']}/state",
                           headers={"Authorization": f"Bearer {out['tokens']['X']}"}).json()
        seen.append({p: s for p, s in state["view"]["start"].items() if p != "X"})
    assert seen[0] == seen[1] and sorted(seen[0]) == ["D1", "D2", "D3"]


# ---- tokens and auth ------------------------------------------------------------------------------
def test_only_token_hashes_are_stored(client, tmp_path):
    out = create(client, hotseat=True)
    db = sqlite3.connect(tmp_path / "games.sqlite3")
    rows = dict(db.execute("SELECT name, hash FROM tokens WHERE game_id = ?", (out["game_id"],)))
    db.close()
    assert rows == {n: hashlib.sha256(t.encode()).hexdigest() for n, t in out["tokens"].items()}
    raw = b"".join(p.read_bytes() for p in tmp_path.glob("games.sqlite3*"))
    assert not any(t.encode() in raw for t in out["tokens"].values())


def test_state_needs_a_token_of_that_game(client):
    a, b = create(client), create(client)
    url = f"/api/games/{a['game_id']}/state"
    assert client.get(url).status_code == 401
    assert client.get(url, params={"token": "nope"}).status_code == 401
    assert client.get(url, params={"token": b["tokens"]["X"]}).status_code == 401
    assert client.get(url, headers={"Authorization": "Bearer " + b["tokens"]["X"]}).status_code == 401
    assert client.get("/api/games/nosuchgame/state",
                      params={"token": a["tokens"]["X"]}).status_code == 404
    r = client.get(url, headers={"Authorization": "Bearer " + a["tokens"]["D2"]})
    assert r.status_code == 200 and r.headers["cache-control"] == "no-store"
    body = r.json()
    assert body["role"] == "detectives" and body["pieces"] == ["D2"] and body["view"]["viewer"] == "D2"
    assert body["version"] == 0 and body["openings"] is None
    assert [c["slot"] for c in body["commitments"]] == [0]  # the seal of Mr X's start


def test_state_views_per_token_hide_mr_x(client):
    out = create(client, detectives=4)
    get = lambda name: client.get(f"/api/games/{out['game_id']}/state",  # noqa: E731
                                  params={"token": out["tokens"][name]}).json()
    x, det, spec = get("X"), get("detectives"), get("spectator")
    assert x["view"]["side"] == "mr_x" and x["view"]["mr_x_station"] == x["view"]["start"]["X"]
    assert x["view"]["legal_moves"]
    assert det["view"]["viewer"] == "D1" and det["view"]["mr_x_station"] is None
    assert "X" not in det["view"]["start"] and det["view"]["legal_moves"] == []
    assert spec["view"]["side"] == "spectator" and spec["role"] == "spectator"
    assert "X" not in spec["view"]["start"] and spec["pieces"] == []


def test_record_is_public_for_detectives_and_full_for_mr_x(client):
    from scotlandyard.record import Record

    out = create(client, detectives=2, seed=5)
    url = f"/api/games/{out['game_id']}/record"
    full = client.get(url, params={"token": out["tokens"]["X"], "format": "json"})
    assert full.status_code == 200 and full.headers["content-type"].startswith("application/json")
    assert "attachment" in full.headers["content-disposition"]
    rec = Record.parse(full.text)
    x_view = client.get(f"/api/games/{out['game_id']}/state",
                        params={"token": out["tokens"]["X"]}).json()["view"]
    assert not rec.hidden and rec.start["X"] == x_view["start"]["X"] and rec.seed is None
    for name in ("detectives", "D1", "spectator"):
        pub = client.get(url, headers={"Authorization": "Bearer " + out["tokens"][name]})
        assert pub.status_code == 200 and pub.headers["content-type"].startswith("text/plain")
        prec = Record.parse(pub.text)
        assert prec.hidden and "X" not in prec.start and prec.seed is None
    assert client.get(url).status_code == 401
    assert client.get(url, params={"token": out["tokens"]["X"], "format": "pgn"}).status_code == 422


# ---- pages ------------------------------------------------------------------------------------------
def test_pages_serve_the_single_page_app(client):
    index = STATIC_DIR / "index.html"
    for path in ("/", "/game/abc123", "/rules"):
        r = client.get(path)
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
        if index.is_file():
            assert r.content == index.read_bytes()
        else:
            assert "Scotland Yard" in r.text
        assert r.headers["referrer-policy"] == "no-referrer"
    assert client.get("/static/no/such/file.js").status_code == 404


def test_a_mistyped_page_answers_the_app_page_with_404_and_the_api_json(client):
    for path in ("/gmae/abc", "/nope", "/game/abc/extra"):
        r = client.get(path)
        assert r.status_code == 404 and r.headers["content-type"].startswith("text/html"), path
        assert "tpl-missing" in r.text and r.headers["content-security-policy"]
    for path in ("/api/nope", "/api/games/nope/state", "/static/no/such/file.js"):
        r = client.get(path)
        assert r.status_code == 404 and r.headers["content-type"] == "application/json", path
        assert "detail" in r.json()


def test_missing_static_folder_gives_placeholder_and_404(tmp_path):
    app = create_app(tmp_path / "g.sqlite3", ai_delay=0, static_dir=tmp_path / "nothing")
    with TestClient(app) as c:
        assert "web app's files are not installed" in c.get("/").text
        assert c.get("/static/app.js").status_code == 404


# ---- the store ----------------------------------------------------------------------------------------
def test_store_is_wal_versioned_and_refuses_newer_schema(tmp_path):
    path = tmp_path / "s.sqlite3"
    store = Store(path)
    assert store.schema_version == SCHEMA_VERSION
    store.close()
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    db.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", (str(SCHEMA_VERSION + 1),))
    db.commit()
    db.close()
    with pytest.raises(StoreError, match="schema version"):
        Store(path)
