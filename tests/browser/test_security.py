"""Browser hygiene in real Chromium (issue 10, finding 9): the pages run under the server's
Content-Security-Policy without a single violation, and the record download sends the token in a
header, never in a URL."""

from __future__ import annotations

from typing import Any

import pytest

from .helpers import GAME, create_game, wait_turn_or_over

pytestmark = pytest.mark.browser

_WATCH = """window.__csp = []; document.addEventListener('securitypolicyviolation',
  (e) => window.__csp.push(e.violatedDirective + ' ' + e.blockedURI));"""


def test_pages_run_under_the_csp_and_records_download_without_token_in_url(
        server: str, new_page: Any) -> None:
    page = new_page()
    console: list[str] = []
    page.on("console", lambda m: console.append(m.text))
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    page.add_init_script(_WATCH)
    for path in ("/", "/rules"):
        res = page.goto(server + path)
        assert "script-src 'self'" in res.headers["content-security-policy"]
        page.wait_for_selector("#app > *")
        assert page.evaluate("window.__csp") == [], path
    game = create_game(server, preset="classic", detectives=1,
                       seats={"X": {"kind": "ai", "agent": "random"},
                              "D1": {"kind": "ai", "agent": "random"}})
    page.goto(server + game["links"]["spectator"])
    page.wait_for_selector(f"{GAME}[data-version]")   # the WebSocket connected under the CSP
    assert wait_turn_or_over(page) == "over"
    page.wait_for_selector("#verify[data-result='honest']")
    assert page.evaluate("window.__csp") == []
    assert not [m for m in console if "Content Security Policy" in m]
    with page.expect_download() as info:
        page.click("#download-text")
    text = open(info.value.path(), encoding="utf-8").read()
    assert "Scotland Yard" in text or "[" in text
    assert info.value.suggested_filename == f"scotlandyard-{game['game_id']}.txt"
    record_calls = [u for u in requests if "/record" in u]
    assert record_calls and not [u for u in record_calls if "token" in u]


def test_the_page_checks_mr_x_journey_not_only_the_hashes(server: str, new_page: Any) -> None:
    import httpx

    from scotlandyard.board import Transport, london

    board = london("classic")
    page = new_page()
    # random players: a game whose first step can be made from another start than the sealed
    # one (rarely his first station is reached from his start only; then the next game)
    for _ in range(6):
        game = create_game(server, preset="classic", detectives=1,
                           seats={"X": {"kind": "ai", "agent": "random"},
                                  "D1": {"kind": "ai", "agent": "random"}})
        page.goto(server + game["links"]["spectator"])
        assert wait_turn_or_over(page) == "over"
        page.wait_for_selector("#verify[data-result='honest']")  # the journey check passed
        state = httpx.get(f"{server}/api/games/{game['game_id']}/state",
                          params={"token": game["tokens"]["spectator"]}).json()
        first = next(o["station"] for o in state["openings"] if o["slot"] == 1)
        ticket = next(e["ticket"] for e in state["view"]["log"] if e["slot"] == 1)
        by = [t for t in Transport if ticket in ("black", t.label)]
        sealed = state["view"]["start"]["X"]
        others = [s for t in by for s in board.neighbours_of(first, t)
                  if s != sealed and s not in state["view"]["start"].values()]
        if others:
            break
    assert others, "six games in a row with no other start for Mr X's first step"
    hidden = next(e for e in state["view"]["log"] if not e["reveal"])
    path = {o["station"] for o in state["openings"]} | set(state["view"]["start"].values())
    # a station next to none of his (or anyone's start) stations: no ticket makes that step legal
    fake = next(s for s in sorted(board.all_stations) if s not in path
                and not any(s in board.any_neighbours(p) for p in path))
    forged = [dict(o, station=fake) if o["slot"] == hidden["slot"] else o
              for o in state["openings"]]
    # the journey as opened, but from another start than the one shown at the end
    moved = dict(state["view"], start=dict(state["view"]["start"], X=next(
        s for s in sorted(board.all_stations) if s not in path
        and first not in board.any_neighbours(s))))
    # ... and from another start from which his first step is legal too: only the seal of his
    # start (slot 0, published before the first move) tells this one
    plausible = dict(state["view"], start=dict(state["view"]["start"], X=others[0]))
    result = page.evaluate(
        """async ([view, openings, forged, moved, plausible]) => {
            const v = await import('/static/js/verify.js');
            const board = await (await fetch('/api/board?board=classic')).json();
            return [v.verifyJourney(board, view, openings), v.verifyJourney(board, view, forged),
                    v.verifyJourney(board, moved, openings),
                    v.verifyJourney(board, plausible, openings)];
        }""", [state["view"], state["openings"], forged, moved, plausible])
    assert result[0] == {"ok": True, "problems": []}
    assert result[1]["ok"] is False and result[1]["problems"][0]["why"] == "journey"
    assert result[2]["ok"] is False
    assert [p["slot"] for p in result[2]["problems"]] == [0, 1], result[2]
    assert all(p["text"].startswith("Mr X's start as shown") for p in result[2]["problems"])
    assert result[3]["ok"] is False
    assert [p["text"] for p in result[3]["problems"]] == [
        f"Mr X's start as shown, {plausible['start']['X']}, is not the one sealed at the start, "
        f"{sealed}"], result[3]


def test_first_seen_commitments_survive_a_reload(server: str, new_page: Any) -> None:
    page = new_page()
    page.goto(server + "/rules")
    page.wait_for_selector(".rules-page")
    call = """async (commitments) => {
        const v = await import('/static/js/verify.js');
        return [...v.firstSeen('G1', commitments)];
    }"""
    assert page.evaluate(call, [{"slot": 1, "hash": "aa"}]) == [[1, "aa"]]
    page.reload()
    page.wait_for_selector(".rules-page")
    # after the reload a server sends another hash for slot 1: the first one seen is kept
    assert page.evaluate(call, [{"slot": 1, "hash": "bb"}, {"slot": 2, "hash": "cc"}]) == [
        [1, "aa"], [2, "cc"]]


def test_a_fake_takeback_cannot_reset_the_first_seen_seals(server: str, new_page: Any) -> None:
    """A cheating server sends the page a takeback notice that undid nothing, then a state
    without slot 1's seal, then (at the end) a new seal for slot 1 with an opening that
    matches it (same station, another salt: a changed past would pass the journey check
    too). Before, the page forgot slot 1's first-seen seal on the notice (it kept only the
    slots the next state listed), took the new one as first seen and called the log honest;
    now a slot still in the log keeps its seal, and the changed seal fails the check."""
    import hashlib
    import json
    import re
    import time

    from websockets.sync.client import connect

    # D1 waits for a person, so the game is in progress when the page watches it; the AI
    # takes D1 over once the forgery has begun, and plays the game to its end
    game = create_game(server, preset="classic", detectives=1,
                       seats={"X": {"kind": "ai", "agent": "random"}})
    gid = game["game_id"]
    forged = {"injected": False, "final": False}

    def route(ws: Any) -> None:
        real = ws.connect_to_server()
        ws.on_message(lambda m: real.send(m))

        def from_server(text: Any) -> None:
            msg = json.loads(text)
            if msg.get("type") != "state":
                ws.send(text)
                return
            slots = {c["slot"] for c in msg["commitments"]}
            if not forged["injected"]:
                ws.send(text)
                if 1 in slots and not msg["view"]["outcome"]:
                    forged["injected"] = True
                    ws.send(json.dumps({"type": "notice", "code": "takeback",
                                        "ply": msg["version"]}))
                    ws.send(json.dumps({**msg, "commitments": [
                        c for c in msg["commitments"] if c["slot"] != 1]}))
                return
            commitments = [c for c in msg["commitments"] if c["slot"] != 1]
            if msg.get("openings"):  # the end: a new seal for slot 1 and its opening
                first = next(o for o in msg["openings"] if o["slot"] == 1)
                salt = "0" * len(first["salt"])
                digest = hashlib.sha256(f"{gid}:1:{first['station']}:{salt}".encode()).hexdigest()
                commitments.append({"slot": 1, "hash": digest})
                msg["openings"] = [dict(o, salt=salt) if o["slot"] == 1 else o
                                   for o in msg["openings"]]
                forged["final"] = True
            ws.send(json.dumps({**msg, "commitments": commitments}))

        real.on_message(from_server)

    page = new_page()
    page.route_web_socket(re.compile(r"/ws/"), route)
    page.goto(server + game["links"]["spectator"])
    deadline = time.monotonic() + 30
    while not forged["injected"]:  # Mr X has moved (slot 1 sealed) and the forgery began
        assert time.monotonic() < deadline, "Mr X's first move never came"
        page.wait_for_timeout(50)
    ws_url = server.replace("http://", "ws://") + f"/ws/{gid}?token={game['tokens']['D1']}"
    with connect(ws_url) as d1:
        d1.send(json.dumps({"type": "takeover", "piece": "D1", "agent": "random"}))
        while (m := json.loads(d1.recv(timeout=30))).get("type") != "state" \
                or m["seats"]["D1"]["kind"] != "ai":
            pass
    assert wait_turn_or_over(page) == "over"
    page.wait_for_selector("#verify[data-result='honest'], #verify[data-result='dishonest']")
    assert forged["final"]
    assert page.get_attribute("#verify", "data-result") == "dishonest"
    assert "1" in page.inner_text("#verify").split("slots", 1)[1]
    # the functions themselves: a takeback drops only the slots beyond the new log
    result = page.evaluate("""async () => {
        const v = await import('/static/js/verify.js');
        const mem = new Map(); const storage = {getItem: (k) => mem.get(k) ?? null,
                                               setItem: (k, x) => mem.set(k, x)};
        const seen = v.firstSeen('G2', [{slot: 1, hash: 'a'}, {slot: 2, hash: 'b'},
                                        {slot: 3, hash: 'c'}], storage);
        const dropped = v.forgetUndone('G2', [{slot: 1}, {slot: 2}], seen, storage);
        const again = v.firstSeen('G2', [{slot: 1, hash: 'x'}, {slot: 3, hash: 'd'}], storage);
        return [dropped, [...seen.keys()], [...again],
                v.changedSeals(again, [{slot: 1, hash: 'x'}, {slot: 2, hash: 'e'},
                                       {slot: 3, hash: 'd'}])];
    }""")
    assert result == [[3], [1, 2], [[1, "a"], [2, "b"], [3, "d"]], [1, 2]]


def test_the_page_counts_mr_x_tickets(server: str, new_page: Any) -> None:
    """The page's journey check counts Mr X's tickets as `scotlandyard verify` does: a journey
    along real lines that spends more black tickets or double moves than he held, or a taxi,
    bus or underground ticket he never had, is rejected; honest games (one where he takes
    detectives' tickets, R-VAR-EXTRA-REVEAL, included) pass."""
    import copy

    from scotlandyard.rules import preset_info

    from ..seal_games import finished_state, spent

    classic = preset_info("classic").rules(2)
    state = finished_state(classic, seed=3)
    takes = finished_state(classic.replace(extra_reveal=True), seed=3)
    used = spent(state["view"])
    assert used["black"] >= 1 and used["double"] >= 1 and used["plain"] >= 1
    assert any(h["move"].startswith("take:") for h in takes["view"]["history"])
    forged = []
    for change in ({"black_tickets": used["black"] - 1}, {"double_moves": used["double"] - 1},
                   {"mr_x_tickets": [0, 0, 0], "ticket_handover": False}):
        view = copy.deepcopy(state["view"])
        view["rules"].update(change)
        forged.append(view)
    page = new_page()
    page.goto(server + "/rules")
    page.wait_for_selector(".rules-page")
    result = page.evaluate(
        """async ([views, openings, takes]) => {
            const v = await import('/static/js/verify.js');
            const board = await (await fetch('/api/board?board=classic')).json();
            return [v.verifyJourney(board, takes.view, takes.openings),
                    ...views.map((view) => v.verifyJourney(board, view, openings))];
        }""", [[state["view"], *forged], state["openings"], takes])
    extra, honest, fewer_black, fewer_double, no_plain = result
    assert honest == {"ok": True, "problems": []}
    assert extra == {"ok": True, "problems": []}
    for report, ticket in ((fewer_black, "black"), (fewer_double, "double")):
        assert report["ok"] is False, ticket
        assert [p["text"] for p in report["problems"]] == [f"Mr X had no {ticket} ticket left"]
    assert no_plain["ok"] is False
    assert all(p["why"] == "journey" and "ticket left" in p["text"] for p in no_plain["problems"])


# A stand-in for Swagger UI's bundle (the CDN is out of reach here): what the docs page's
# inline script calls, which fetches the API description as Swagger UI does, and tries an
# eval (which the policy must block: no unsafe-eval).
_SWAGGER_STANDIN = """
window.SwaggerUIBundle = function (cfg) {
  window.__swagger = {url: cfg.url, dom: cfg.dom_id};
  try { eval("1"); window.__eval = "ran"; } catch (e) { window.__eval = "blocked"; }
  fetch(cfg.url).then((r) => r.json()).then((spec) => {
    document.querySelector(cfg.dom_id).textContent = Object.keys(spec.paths).join(" ");
  });
  return {};
};
window.SwaggerUIBundle.presets = {apis: {}};
window.SwaggerUIBundle.SwaggerUIStandalonePreset = {};
"""


def test_the_api_docs_run_under_their_own_csp(server: str, new_page: Any) -> None:
    """/api/docs under its own policy in real Chromium: the bundle and style sheet from the
    CDN (routed to a stand-in: this machine cannot reach it) load, the page's inline script
    (admitted by its hash) runs and calls the bundle, which reads the API description from
    this server (connect-src 'self'); an eval is still blocked, and it is the one violation."""
    page = new_page()
    served: list[str] = []

    def standin(route: Any) -> None:
        name = route.request.url.rsplit("/", 1)[1]
        served.append(name)
        route.fulfill(status=200, body="" if name.endswith(".css") else _SWAGGER_STANDIN,
                      content_type="text/css" if name.endswith(".css") else "text/javascript")

    page.route("https://cdn.jsdelivr.net/**", standin)
    page.add_init_script(_WATCH)
    res = page.goto(server + "/api/docs")
    policy = res.headers["content-security-policy"]
    assert "cdn.jsdelivr.net" in policy and "unsafe" not in policy
    # (a locator, not wait_for_function: that polls with an eval, which this policy blocks)
    page.locator("#swagger-ui", has_text="/api/presets").wait_for()
    assert page.evaluate("window.__swagger.url").endswith("openapi.json")
    assert sorted(served) == ["swagger-ui-bundle.js", "swagger-ui.css"]
    assert page.evaluate("window.__eval") == "blocked"
    violations = page.evaluate("window.__csp")
    assert len(violations) == 1 and violations[0].startswith("script-src"), violations
    page.goto(server + "/rules")  # the pages keep their strict policy
    page.wait_for_selector(".rules-page")
    assert page.evaluate("window.__csp") == []


def test_the_page_saves_the_seals_seen_and_verify_checks_the_end_against_them(
        server: str, new_page: Any, tmp_path: Any) -> None:
    """"Save the seals seen" in the sealed log (issue 28 §5) downloads the seals this page has
    seen so far; at the end ``scotlandyard verify STATE --seen FILE`` checks the openings
    against them."""
    import json
    import subprocess
    import sys
    import time

    import httpx
    from websockets.sync.client import connect

    from .helpers import play_away

    game = create_game(server, preset="classic", detectives=1,
                       seats={"D1": {"kind": "ai", "agent": "random"}})
    page = new_page(viewport={"width": 1280, "height": 800})
    page.goto(server + game["links"]["X"])
    for _ in range(2):  # away from the detective: a capture would end the game
        page.wait_for_selector(f"{GAME}[data-my-turn='1']")
        play_away(page, server, game, "X")
    page.click(".commitments summary")
    button = page.locator("#save-seals")
    button.scroll_into_view_if_needed()
    assert button.is_visible() and button.inner_text() == "Save the seals seen"
    box = button.bounding_box()
    assert box and 0 <= box["y"] and box["y"] + box["height"] <= 800 and box["height"] >= 20
    page.locator(".commitments").screenshot(path=str(tmp_path / "save-seals.png"))
    with page.expect_download() as info:
        button.click()
    assert info.value.suggested_filename == f"scotlandyard-seals-{game['game_id']}.json"
    saved = json.loads(open(info.value.path(), encoding="utf-8").read())
    token = {"token": game["tokens"]["X"]}
    now = httpx.get(f"{server}/api/games/{game['game_id']}/state", params=token).json()
    assert saved["format"] == "scotlandyard-seals" and saved["game_id"] == game["game_id"]
    assert saved["seals"] == {str(c["slot"]): c["hash"] for c in now["commitments"]}
    assert "0" in saved["seals"] and len(saved["seals"]) >= 3  # his start and two slots
    ws_url = server.replace("http", "ws") + f"/ws/{game['game_id']}?token={token['token']}"
    with connect(ws_url, origin=server) as ws:  # the computer finishes his game
        ws.send(json.dumps({"type": "takeover", "piece": "X", "agent": "random"}))
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            st = httpx.get(f"{server}/api/games/{game['game_id']}/state", params=token).json()
            if st["view"]["outcome"]:
                break
            time.sleep(0.2)
    seen = tmp_path / "seen.json"
    seen.write_text(json.dumps(saved))
    state = tmp_path / "state.json"
    state.write_text(json.dumps(st))
    out = subprocess.run([sys.executable, "-m", "scotlandyard", "verify", str(state), "--seen",
                          str(seen)], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stdout + out.stderr
    assert f"each is the seal seen during the game ({len(saved['seals'])} in" in \
        " ".join(out.stdout.split())
