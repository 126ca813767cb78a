"""Server hardening (issue 10): seeds that hide nothing, limits with 413/429 answers, origins,
hosts and the Content-Security-Policy, frames that are not text. See docs/webapp.md, Security."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.testclient import WebSocketDenialResponse

from scotlandyard import Game, Rules
from scotlandyard.server.app import create_app
from scotlandyard.server.limits import Limits

pytestmark = pytest.mark.timeout(90)


def app_client(tmp_path: Path, **limits: Any) -> TestClient:
    return TestClient(create_app(tmp_path / "g.sqlite3", ai_delay=0, limits=Limits(**limits)))


@pytest.fixture
def client(tmp_path: Path):
    with app_client(tmp_path) as c:
        yield c


def create(client: TestClient, **body: Any) -> dict:
    r = client.post("/api/games", json=body)
    assert r.status_code == 201, r.text
    return r.json()


def starts(client: TestClient, game: dict) -> dict[str, int]:
    r = client.get(f"/api/games/{game['game_id']}/state", params={"token": game["tokens"]["X"]})
    return r.json()["view"]["start"]


# ---- 1. a seed never determines a hidden fact ---------------------------------------------------
def test_a_server_seed_fixes_the_detectives_but_never_mr_x(client):
    games = [create(client, preset="classic", detectives=5, seed=31337) for _ in range(8)]
    seen = [starts(client, g) for g in games]
    hunters = {tuple(sorted((p, s) for p, s in st.items() if p != "X")) for st in seen}
    assert len(hunters) == 1                       # the seed still fixes the public cards
    xs = [st["X"] for st in seen]
    assert len(set(xs)) > 1                        # but not Mr X's: 13 cards are left for him
    deck = Rules.classic(5).start_deck_detectives  # shared deck: Mr X draws from what is left
    detectives = {s for p, s in seen[0].items() if p != "X"}
    assert all(x in deck and x not in detectives for x in xs)
    # the creator's search: the core game with that seed does not tell Mr X's start
    assert any(x != Game.new(Rules.classic(5), seed=31337).start["X"] for x in xs)


def test_unseeded_and_2014_games_draw_mr_x_from_his_own_deck(client):
    rules = Rules.new_edition(3)
    for _ in range(4):
        st = starts(client, create(client, preset="new_edition", detectives=3, seed=7))
        assert st["X"] in rules.start_deck_mr_x
        assert len(set(st.values())) == len(st)    # distinct stations (R-SETUP)


# ---- 2. limits: body size, game creation, sockets -----------------------------------------------
def test_request_bodies_over_the_limit_are_413(tmp_path):
    with app_client(tmp_path, body_bytes=2048) as c:
        big = b'{"preset": "classic", "x": "' + b"a" * 5000 + b'"}'
        r = c.post("/api/games", content=big, headers={"content-type": "application/json"})
        assert r.status_code == 413 and "2048 bytes" in r.json()["detail"]

        def chunks():  # no Content-Length: counted while read
            yield b'{"preset": "classic", "x": "'
            for _ in range(10):
                yield b"a" * 1000
            yield b'"}'

        r = c.post("/api/games", content=chunks(), headers={"content-type": "application/json"})
        assert r.status_code == 413
        assert create(c, preset="classic")["game_id"]  # the server still serves


def test_game_creation_is_limited_per_client_with_429_and_retry_after(tmp_path):
    with app_client(tmp_path, games_per_minute=1, games_burst=3) as c:
        for _ in range(3):
            create(c)
        r = c.post("/api/games", json={})
        assert r.status_code == 429 and int(r.headers["retry-after"]) >= 1
        assert "too many new games" in r.json()["detail"]


def test_sockets_are_capped_per_token_and_per_client(tmp_path):
    with app_client(tmp_path, sockets_per_token=2, sockets_per_client=3) as c:
        g = create(c)
        url = f"/ws/{g['game_id']}?token="
        with c.websocket_connect(url + g["tokens"]["spectator"]) as a, \
                c.websocket_connect(url + g["tokens"]["spectator"]) as b:
            assert a.receive_json()["type"] == b.receive_json()["type"] == "welcome"
            with pytest.raises(WebSocketDenialResponse) as refused:
                with c.websocket_connect(url + g["tokens"]["spectator"]):
                    pass
            assert refused.value.status_code == 429
            assert "for this token" in refused.value.json()["detail"]
            with c.websocket_connect(url + g["tokens"]["X"]) as x:
                assert x.receive_json()["type"] == "welcome"
                with pytest.raises(WebSocketDenialResponse) as refused:
                    with c.websocket_connect(url + g["tokens"]["D1"]):
                        pass
                assert refused.value.status_code == 429
                assert "from this address" in refused.value.json()["detail"]
        with c.websocket_connect(url + g["tokens"]["spectator"]) as a:  # closed ones are freed
            assert a.receive_json()["type"] == "welcome"


# ---- 6. frames that are not text --------------------------------------------------------------
def test_lone_surrogate_is_a_clear_error_and_the_socket_stays_usable(client):
    g = create(client)
    with client.websocket_connect(f"/ws/{g['game_id']}?token={g['tokens']['X']}") as ws:
        assert ws.receive_json()["type"] == "welcome"

        def answer() -> dict:  # the next error or pong (state and chat frames come between)
            while (msg := ws.receive_json())["type"] not in ("error", "pong"):
                pass
            return msg

        for frame in ('{"type":"ping","id":"\\ud800"}', '{"type":"move","move":"T\\udfff"}',
                      '{"type":"ping","id":"ok","x":"\\udbff"}'):
            ws.send_text(frame)
            err = answer()
            assert err["type"] == "error" and err["code"] == "bad_message"
            assert "lone surrogate" in err["message"] and err["id"] is None
        ws.send_text('{"type":"ping","id":"\\ud83d\\ude00"}')   # a pair is text: 😀
        assert answer() == {"type": "pong", "id": "\U0001F600"}


# ---- 9. origins, hosts, content security policy -------------------------------------------------
def test_foreign_origin_sockets_are_refused_own_origin_and_bots_accepted(client):
    g = create(client)
    url = f"/ws/{g['game_id']}?token={g['tokens']['X']}"
    with pytest.raises(WebSocketDenialResponse) as refused:
        with client.websocket_connect(url, headers={"origin": "https://evil.example"}):
            pass
    assert refused.value.status_code == 403 and "own pages" in refused.value.json()["detail"]
    for headers in ({"origin": "http://testserver"}, {}):   # the page's own origin; a bot
        with client.websocket_connect(url, headers=headers) as ws:
            assert ws.receive_json()["type"] == "welcome"


def test_listed_origins_may_open_sockets(tmp_path):
    with app_client(tmp_path, allowed_origins=("https://play.example.org",)) as c:
        g = create(c)
        with c.websocket_connect(f"/ws/{g['game_id']}?token={g['tokens']['X']}",
                                 headers={"origin": "https://play.example.org"}) as ws:
            assert ws.receive_json()["type"] == "welcome"


def test_host_allow_list(tmp_path):
    with app_client(tmp_path, allowed_hosts=("sy.example.org",)) as c:
        assert c.get("/api/presets").status_code == 400
        assert c.get("/api/presets", headers={"host": "sy.example.org"}).status_code == 200


def test_pages_carry_a_content_security_policy(client):
    csp = client.get("/").headers["content-security-policy"]
    assert "script-src 'self'" in csp and "style-src 'self'" in csp
    assert "unsafe-inline" not in csp and "frame-ancestors 'none'" in csp


def _csp(header: str) -> dict[str, list[str]]:
    return {d.split()[0]: d.split()[1:] for d in (p.strip() for p in header.split(";")) if d}


def test_the_api_docs_page_has_a_csp_of_its_own_and_the_others_keep_theirs(client):
    """/api/docs (Swagger UI: its script and style sheet from FastAPI's CDN, one inline
    script) gets a policy that admits exactly those two files and that script, by its hash;
    before, it got the strict policy of the pages, which blocked all three (a blank page).
    Every other response keeps the strict policy, unchanged."""
    import base64
    import hashlib
    import re

    from scotlandyard.server.app import CONTENT_SECURITY_POLICY

    cdn = "https://cdn.jsdelivr.net/npm/swagger-ui-dist@5/"  # FastAPI's, as docs_page uses
    docs_js, docs_css = cdn + "swagger-ui-bundle.js", cdn + "swagger-ui.css"
    r = client.get("/api/docs")
    assert r.status_code == 200 and "SwaggerUIBundle" in r.text
    csp = _csp(r.headers["content-security-policy"])
    inline = re.findall(r"<script>(.*?)</script>", r.text, re.DOTALL)
    assert len(inline) == 1
    digest = base64.b64encode(hashlib.sha256(inline[0].encode()).digest()).decode()
    assert re.findall(r'<script src="([^"]+)"', r.text) == [docs_js]
    assert re.findall(r'<link type="text/css" rel="stylesheet" href="([^"]+)"', r.text) == [
        docs_css]
    assert csp == {
        "default-src": ["'none'"], "script-src": [docs_js, f"'sha256-{digest}'"],
        "style-src": [docs_css], "img-src": ["'self'", "data:"], "connect-src": ["'self'"],
        "object-src": ["'none'"], "base-uri": ["'none'"], "form-action": ["'none'"],
        "frame-ancestors": ["'none'"]}
    assert re.findall(r'href="([^"]+)"', r.text) == [docs_css, "/static/img/favicon.svg"]
    assert "/api/openapi.json" in inline[0] and client.get("/api/openapi.json").status_code == 200
    for path in ("/", "/game/abc", "/rules", "/api/presets", "/api/openapi.json",
                 "/api/lobby", "/static/img/favicon.svg", "/static/nothing.js", "/api/docs/x"):
        got = client.get(path).headers["content-security-policy"]
        assert got == CONTENT_SECURITY_POLICY, (path, got)


def test_the_page_downloads_records_without_a_token_in_the_url():
    from scotlandyard.server.app import STATIC_DIR

    js = (STATIC_DIR / "js" / "api.js").read_text() + (STATIC_DIR / "js" / "game.js").read_text()
    assert "record?format=${format}&token" not in js and "bindRecordDownload" in js
