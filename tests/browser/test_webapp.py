"""The web app in real Chromium against the real server: board drawing, whole games from
both sides, hot-seat, two browsers online, rejoin, languages, keyboard play, sealed log."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

import httpx
import pytest

from .helpers import (
    GAME,
    create_game,
    log_stations,
    mr_x_on_board,
    play_away,
    play_first_legal,
    targets,
    version,
    wait_turn_or_over,
    wait_version_change,
)

pytestmark = pytest.mark.browser

STATIC = Path(__file__).resolve().parents[2] / "scotlandyard" / "server" / "static"
AI = {"kind": "ai", "agent": "random"}
REVEALS = {3, 8, 13, 18, 24}


def strings(lang: str) -> dict[str, str]:
    return json.loads((STATIC / "i18n" / f"{lang}.json").read_text(encoding="utf-8"))


def open_game(new_page: Any, base: str, link: str, **ctx: Any) -> Any:
    page = new_page(**ctx)
    page.goto(base + link)
    page.wait_for_selector(f"{GAME}[data-version]")
    return page


def assert_mr_x_hidden(page: Any) -> None:
    """A detectives' page shows Mr X's pawn only at a reveal, and log stations only at reveals."""
    log = log_stations(page)
    for slot, shown in log.items():
        if slot in REVEALS:
            assert shown.isdigit(), f"reveal slot {slot} shows {shown!r}"
        else:
            assert shown == "?", f"hidden slot {slot} shows {shown!r}"
    x = mr_x_on_board(page)
    if x is not None:
        last = max(log)
        assert last in REVEALS and int(log[last]) == x
        assert "ghost" in (page.get_attribute(".piece-X", "class") or "")


def test_board_drawn_from_api_board_with_pan_and_zoom(server: str, new_page: Any, artifacts: Path) -> None:
    board = httpx.get(f"{server}/api/board?board=classic").json()
    game = create_game(server, preset="classic", detectives=5, seed=11)
    page = open_game(new_page, server, game["links"]["spectator"])
    page.wait_for_selector(".station")
    assert page.locator(".station").count() == board["stations"] == 199
    for kind in ("taxi", "bus", "underground", "ferry"):
        assert page.locator(f".lines-{kind} line.ln-{kind}").count() == len(board["edges"][kind])
    under = [s for s, t in board["stop_types"].items() if "underground" in t]
    ferry = [s for s, t in board["stop_types"].items() if "ferry" in t]
    assert page.locator(".station .st-underground").count() == len(under) == 14
    assert page.locator(".station .st-ferry").count() == len(ferry) == 4
    assert page.locator(".station .st-bus").count() == len([t for t in board["stop_types"].values() if "bus" in t])
    # station 74 is drawn at its position, with its number
    node = page.locator(".station[data-station='74']")
    x, y = map(float, re.findall(r"[-\d.]+", node.get_attribute("transform")))
    assert (x, y) == tuple(board["positions"]["74"])
    assert node.locator("text").text_content() == "74"
    # the spectator sees five detectives in the box colours and no Mr X
    fills = {p: page.locator(f".piece-{p} path").get_attribute("fill") for p in ("D1", "D2", "D3", "D4", "D5")}
    assert len(set(fills.values())) == 5
    assert mr_x_on_board(page) is None
    assert page.locator("#play").is_hidden()  # spectators do not play
    # zoom with the button and the wheel, pan by dragging
    svg = page.locator(".board-svg")
    z0 = float(svg.get_attribute("data-zoom"))
    page.click(".board-controls .zoom-in")
    z1 = float(svg.get_attribute("data-zoom"))
    assert z1 > z0
    box = svg.bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.wheel(0, -300)
    page.wait_for_function("z => Number(document.querySelector('.board-svg').dataset.zoom) > z", arg=z1)
    before = svg.get_attribute("viewBox")
    page.mouse.down()
    page.mouse.move(box["x"] + box["width"] / 2 + 120, box["y"] + box["height"] / 2 + 60, steps=5)
    page.mouse.up()
    after = svg.get_attribute("viewBox")
    bx, by = map(float, before.split()[:2])
    ax, ay = map(float, after.split()[:2])
    assert ax < bx and ay < by  # dragging right/down shows what lies left/up
    page.click(".board-controls .zoom-fit")
    assert float(svg.get_attribute("data-zoom")) < z1
    page.screenshot(path=str(artifacts / "board.png"))


def test_full_game_as_detectives_against_ai_mr_x(server: str, new_page: Any, artifacts: Path) -> None:
    game = create_game(server, preset="classic", detectives=1, seed=3, seats={"X": AI})
    page = open_game(new_page, server, game["links"]["detectives"])
    assert page.inner_text("#role") == strings("en")["role.detectives"]
    moves = 0
    while wait_turn_or_over(page) == "mine":
        assert_mr_x_hidden(page)
        legal = targets(page)
        assert legal or page.locator("#btn-pass").is_visible()
        play_first_legal(page)
        moves += 1
        assert moves < 40
    assert moves >= 1
    outcome = page.locator("#outcome")
    assert outcome.is_visible()
    winner = outcome.get_attribute("data-winner")
    assert page.inner_text("#outcome-title") == strings("en")[f"outcome.{winner}"]
    # at the end everything is shown, the seals are checked, Mr X's path is drawn
    page.wait_for_selector("#verify[data-result='honest']")
    log = log_stations(page)
    assert log and all(v.isdigit() for v in log.values())
    assert page.locator(".mrx-path").count() == 1
    assert mr_x_on_board(page) == int(log[max(log)])
    page.screenshot(path=str(artifacts / "game-over-detectives.png"))
    # the record download link works and is the full record
    href = page.get_attribute("#download-text", "href")
    assert "token" not in href  # the token goes in a header (tests/browser/test_security.py)
    bearer = {"Authorization": f"Bearer {game['tokens']['detectives']}"}
    rec = httpx.get(server + href, headers=bearer)
    assert rec.status_code == 200 and len(rec.text) > 20
    # replay: back to the start, Mr X stands on his start station, then step forward
    record = httpx.get(server + page.get_attribute("#download-json", "href"), headers=bearer).json()
    page.click("#replay-first")
    assert page.get_attribute(GAME, "data-replay-step") == "0"
    start_x = mr_x_on_board(page)
    assert start_x == record["start"]["X"]
    page.click("#replay-next")
    assert page.get_attribute(GAME, "data-replay-step") == "1"
    first = page.locator("#history li").first.inner_text()
    dest = int(re.findall(r"(\d+)\s*$", first)[0])
    assert mr_x_on_board(page) == dest
    assert page.locator(".mrx-path-label").count() == len(re.findall(r"\d+", first.split("X", 1)[1]))
    assert page.locator("#history li.current").count() == 1
    page.fill("#replay-range", "0")
    page.dispatch_event("#replay-range", "input")
    assert mr_x_on_board(page) == start_x


def test_full_game_as_mr_x_against_ai_detectives(server: str, new_page: Any) -> None:
    game = create_game(server, preset="classic", detectives=1, seed=5, seats={"D1": AI})
    page = open_game(new_page, server, game["links"]["X"])
    assert wait_turn_or_over(page) == "mine"
    # Mr X sees himself; the black-ticket toggle changes the destinations
    x = mr_x_on_board(page)
    assert x is not None and "ghost" not in page.get_attribute(".piece-X", "class")
    plain = targets(page)
    page.check("#tg-black")
    black = targets(page)
    assert black and set(black) >= set(plain)
    page.uncheck("#tg-black")
    # a double move: first step, then the second step's destinations, then play
    page.check("#tg-double")
    first = targets(page)
    page.locator(".station.target").first.click()
    if page.locator("#popup").is_visible():
        page.locator("#popup .ticket-btn").first.click()
    assert page.locator(".station.chosen").get_attribute("data-station") == str(first[0])
    assert page.locator(".station.target-second").count() >= 1
    assert page.is_visible("#btn-cancel")
    old = version(page)
    page.locator(".station.target").first.click()
    if page.locator("#popup").is_visible():
        page.locator("#popup .ticket-btn").first.click()
    wait_version_change(page, old)
    assert page.locator("#travel-log li.double").count() == 2
    assert page.locator("#players tr[data-piece='X'] td.tk-double").inner_text() == "1"
    moves = 1
    while wait_turn_or_over(page) == "mine":
        play_first_legal(page)
        moves += 1
        assert moves < 40
    page.wait_for_selector("#verify[data-result='honest']")
    assert page.locator("#outcome").get_attribute("data-winner") in ("mr_x", "detectives")


def test_hotseat_pass_the_device_screen_hides_mr_x(server: str, new_page: Any) -> None:
    game = create_game(server, preset="classic", detectives=1, seed=8, hotseat=True)
    assert "all" in game["links"]
    page = open_game(new_page, server, game["links"]["all"])
    cover = page.locator("#cover")
    seen_x_cover = seen_d_cover = 0
    moves = 0
    while True:
        page.wait_for_selector(f"#cover:not([hidden]), {GAME}[data-my-turn='1'], {GAME}[data-over='1']")
        if page.get_attribute(GAME, "data-over") == "1":
            break
        if cover.is_visible():
            side = cover.get_attribute("data-side")
            # behind the cover nothing shows where Mr X is (unless at a reveal)
            assert mr_x_on_board(page) is None or "ghost" in page.get_attribute(".piece-X", "class")
            assert all(v == "?" or int(k) in REVEALS for k, v in log_stations(page).items())
            assert page.locator(".mrx-path").count() == 0
            if side == "mr_x":
                seen_x_cover += 1
            else:
                seen_d_cover += 1
            page.click("#cover-ok")
            continue
        if page.get_attribute(GAME, "data-side") == "mr_x":
            assert mr_x_on_board(page) is not None  # Mr X, holding the device, sees himself
        else:
            assert_mr_x_hidden(page)
        play_first_legal(page)
        moves += 1
        assert moves < 80
    assert seen_x_cover >= 2 and seen_d_cover >= 2
    assert cover.is_hidden()
    assert page.locator("#outcome").is_visible()


def test_online_game_between_two_browsers(server: str, new_page: Any) -> None:
    game = create_game(server, preset="classic", detectives=1, seed=21)
    mr_x = open_game(new_page, server, game["links"]["X"])
    det = open_game(new_page, server, game["links"]["detectives"])
    watcher = open_game(new_page, server, game["links"]["spectator"])
    assert mr_x.inner_text("#role") == strings("en")["role.mr_x"]
    assert det.locator("#players tr[data-piece='X'] .seat.online").count() == 1
    moves = 0
    while True:
        if wait_turn_or_over(mr_x) == "over":
            break
        true_x = None
        play_first_legal(mr_x)
        true_x = mr_x_on_board(mr_x)
        moves += 1
        if wait_turn_or_over(det) == "over":
            break
        assert det.get_attribute(GAME, "data-version") == mr_x.get_attribute(GAME, "data-version")
        assert_mr_x_hidden(det)
        if max(log_stations(det)) not in REVEALS:
            assert det.locator(f"#travel-log li:not(.reveal-slot)[data-station='{true_x}']").count() == 0
            assert det.locator(f".piece[data-station='{true_x}']").count() == 0
            assert mr_x_on_board(det) is None
        play_first_legal(det)
        moves += 1
        assert moves < 60
    det.wait_for_selector(f"{GAME}[data-over='1']")
    watcher.wait_for_selector(f"{GAME}[data-over='1']")
    winner = mr_x.get_attribute("#outcome", "data-winner")
    assert det.get_attribute("#outcome", "data-winner") == winner
    assert watcher.get_attribute("#outcome", "data-winner") == winner
    for page in (mr_x, det, watcher):
        page.wait_for_selector("#verify[data-result='honest']")


def test_rejoin_after_reload_and_without_the_fragment(server: str, new_page: Any) -> None:
    game = create_game(server, preset="new_edition", detectives=2, seed=4,
                       seats={"D1": AI, "D2": AI, "P1": AI, "P2": AI})
    page = open_game(new_page, server, game["links"]["X"])
    for _ in range(2):  # away from the detectives: a capture would end the game
        assert wait_turn_or_over(page) == "mine"
        play_away(page, server, game, "X")
    wait_turn_or_over(page)
    before = (version(page), log_stations(page), page.inner_text("#round"))
    page.reload()
    page.wait_for_selector(f"{GAME}[data-version='{before[0]}']")
    assert (version(page), log_stations(page), page.inner_text("#round")) == before
    assert mr_x_on_board(page) is not None
    # the same browser finds its token again without the #t= fragment
    page.goto(f"{server}/game/{game['game_id']}")
    page.wait_for_selector(f"{GAME}[data-version='{before[0]}']")
    assert page.inner_text("#role") == strings("en")["role.mr_x"]
    assert wait_turn_or_over(page) == "mine"
    play_away(page, server, game, "X")
    assert int(version(page)) > int(before[0])
    # a stranger's wrong token is refused
    other = new_page()
    other.goto(f"{server}/game/{game['game_id']}#t=not-a-real-token")
    other.wait_for_selector("#conn[data-status='rejected']")
    assert other.locator("#fatal").is_visible()


def test_language_switch_in_all_four_languages(server: str, new_page: Any) -> None:
    page = new_page()
    page.goto(server + "/")
    page.wait_for_selector(".lobby[data-ready='1']")
    for lang in ("it", "pl", "ru", "en"):
        s = strings(lang)
        page.select_option("#lang-picker", lang)
        page.wait_for_function("l => document.documentElement.lang === l", arg=lang)
        assert page.inner_text("#create") == s["lobby.create"]
        assert page.inner_text(".topnav a[href='/rules']") == s["nav.rules"]
        assert page.locator("#preset option[value='classic']").inner_text() == s["preset.classic"]
    # remembered across pages and reloads
    page.select_option("#lang-picker", "ru")
    page.goto(server + "/rules")
    page.wait_for_selector(".rules-page")
    assert page.inner_text(".rules-page h1") == strings("ru")["rules.title"]
    assert page.evaluate("document.documentElement.lang") == "ru"
    # the browser's language is the default in a fresh profile
    for locale, lang in (("pl-PL", "pl"), ("it-IT", "it"), ("de-DE", "en")):
        fresh = new_page(locale=locale)
        fresh.goto(server + "/rules")
        fresh.wait_for_selector(".rules-page")
        assert fresh.inner_text(".rules-page h1") == strings(lang)["rules.title"]
    # the game page in Polish: turn line, log title, outcome words come from pl.json
    game = create_game(server, preset="classic", detectives=1, seed=3, seats={"X": AI})
    pl = new_page(locale="pl-PL")
    pl.goto(server + game["links"]["detectives"])
    wait_turn_or_over(pl)
    assert pl.inner_text("#play h2") == strings("pl")["play.title"]
    assert pl.inner_text("#role") == strings("pl")["role.detectives"]


def test_keyboard_only_play(server: str, new_page: Any) -> None:
    game = create_game(server, preset="classic", detectives=2, seed=9, seats={"X": AI})
    page = open_game(new_page, server, game["links"]["detectives"])
    assert wait_turn_or_over(page) == "mine"
    legal = targets(page)
    # Tab from the top of the page reaches the highlighted stations
    page.locator("body").focus()
    page.evaluate("document.activeElement.blur()")
    for _ in range(15):
        page.keyboard.press("Tab")
        if page.evaluate("!!document.activeElement.closest('.station')"):
            break
    focused = int(page.evaluate("document.activeElement.dataset.station"))
    assert focused in legal
    ring = page.evaluate("getComputedStyle(document.activeElement.querySelector('.st-target-ring')).strokeWidth")
    assert ring == "4px"  # visible focus
    # the arrow keys go to the nearest station in that direction on the map (any station)
    board = httpx.get(f"{server}/api/board?board=classic").json()["positions"]
    page.keyboard.press("ArrowRight")
    nxt = int(page.evaluate("document.activeElement.dataset.station"))
    assert nxt != focused and board[str(nxt)][0] > board[str(focused)][0]
    page.keyboard.press("ArrowUp")
    up = int(page.evaluate("document.activeElement.dataset.station"))
    assert board[str(up)][1] < board[str(nxt)][1]
    if up not in legal:  # Enter on a station that cannot be played says why
        page.keyboard.press("Enter")
        page.wait_for_selector(".board-note:not([hidden])")
    page.keyboard.press("g")  # back to the board's first target
    assert int(page.evaluate("document.activeElement.dataset.station")) == legal[0]
    old = version(page)
    page.keyboard.press("Enter")
    if page.locator("#popup").is_visible():
        assert page.evaluate("document.activeElement.classList.contains('ticket-btn')")
        page.keyboard.press("Enter")
    wait_version_change(page, old)
    # after the move the focus is back on the board
    page.wait_for_function("() => !!document.activeElement.closest('.board-svg')")
    # now type a move: the box suggests the legal moves and Enter plays the chosen one
    assert wait_turn_or_over(page) == "mine"
    page.focus("#move-input")
    page.keyboard.type("t")
    options = page.locator("#move-list li")
    assert page.is_visible("#move-list") and options.count() >= 1
    texts = [o.inner_text() for o in options.all()]
    assert all(t.upper().startswith("T") for t in texts)
    page.keyboard.press("ArrowDown")
    assert options.first.get_attribute("aria-selected") == "true"
    old = version(page)
    page.keyboard.press("Enter")
    wait_version_change(page, old)
    history = page.locator("#history li").all_inner_texts()
    assert any(texts[0] in h for h in history)
    # a wrong move typed is refused on the page, without a round trip
    assert wait_turn_or_over(page) == "mine"
    page.fill("#move-input", "U999")
    page.keyboard.press("Enter")
    page.wait_for_selector(".toast-item.error")
    assert "U999" in page.inner_text(".toast")


def test_lobby_creates_game_and_shows_invite_links(server: str, new_page: Any) -> None:
    page = new_page()
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=server)
    page.goto(server + "/")
    page.wait_for_selector(".lobby[data-ready='1']")
    page.select_option("#preset", "new_edition")
    page.select_option("#detectives", "2")
    pieces = [s.get_attribute("data-piece") for s in page.locator("#seats select").all()]
    assert pieces == ["X", "D1", "D2", "P1", "P2"]
    page.select_option("#preset", "classic")
    page.select_option("#detectives", "1")
    page.select_option("#seat-X", "ai:random")
    page.click("#create")
    page.wait_for_selector("#links:not([hidden])")
    for name in ("detectives", "spectator"):
        value = page.input_value(f"#link-{name}")
        assert re.fullmatch(rf"{re.escape(server)}/game/[\w-]+#t=[\w-]+", value)
    assert page.locator("#link-X").count() == 0  # the AI plays Mr X: there is no link to him
    page.click(".link-row[data-link='detectives'] button")
    page.wait_for_selector(".link-row[data-link='detectives'] .copy-status:text('Copied.')")
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied == page.input_value("#link-detectives")
    page.click(".link-row[data-link='detectives'] a")
    page.wait_for_selector(f"{GAME}[data-version]")
    assert page.locator("#players tr[data-piece='X'] .seat-ai").count() == 1


def test_seal_check_uses_sha256_like_python(server: str, new_page: Any) -> None:
    page = new_page()
    page.goto(server + "/rules")
    page.wait_for_selector(".rules-page")
    samples = ["", "abc", "Ab3:1:132:00ff", "x" * 200, "Лондон:24:199:salt"]
    got = page.evaluate(
        """async (samples) => {
            const v = await import('/static/js/verify.js');
            const out = [];
            for (const s of samples) {
              const fb = Array.from(v.sha256Fallback(new TextEncoder().encode(s)))
                .map((b) => b.toString(16).padStart(2, '0')).join('');
              out.push([await v.sha256Hex(s), fb]);
            }
            return out;
        }""", samples)
    for text, (web, fallback) in zip(samples, got, strict=True):
        want = hashlib.sha256(text.encode()).hexdigest()
        assert web == fallback == want
    # a changed station is caught, and so is a start (slot 0) never sealed
    result = page.evaluate(
        """async () => {
            const v = await import('/static/js/verify.js');
            const h = await v.sha256Hex('G:1:50:aa');
            const seals = [{slot: 0, hash: await v.sha256Hex('G:0:13:bb')}, {slot: 1, hash: h}];
            const start = {slot: 0, station: 13, salt: 'bb'};
            const good = await v.verifyOpenings('G', seals, [start, {slot: 1, station: 50, salt: 'aa'}], [{slot: 1, station: 50}]);
            const bad = await v.verifyOpenings('G', seals, [start, {slot: 1, station: 51, salt: 'aa'}], [{slot: 1, station: 51}]);
            const unsealed = await v.verifyOpenings('G', [{slot: 1, hash: h}], [{slot: 1, station: 50, salt: 'aa'}], [{slot: 1, station: 50}]);
            return [good.ok, bad.ok, bad.problems, unsealed.ok, unsealed.problems];
        }""")
    assert result == [True, False, [{"slot": 1, "why": "hash"}],
                      False, [{"slot": 0, "why": "missing"}]]


def test_move_picker_offers_exactly_the_core_legal_moves(server: str, new_page: Any) -> None:
    """The page's click-to-move grouping (notation.js) against the engine's legal moves."""
    from scotlandyard import Game, Rules, Ticket

    page = new_page()
    page.goto(server + "/rules")
    page.wait_for_selector(".rules-page")
    game = Game.new(Rules.classic(detectives=2), seed=1)
    legal = game.legal_moves()
    got = page.evaluate(
        """async (legal) => {
            const { MovePicker } = await import('/static/js/notation.js');
            const p = new MovePicker(legal, ['X'], 'X');
            const out = {plain: Object.fromEntries(p.options())};
            p.black = true;
            out.black = Object.fromEntries(p.options());
            p.black = false;
            p.double = true;
            out.firsts = p.destinations();
            out.played = [];
            for (const black1 of [false, true]) {
              p.black = black1;
              for (const a of p.destinations()) {
                for (const t1 of p.options().get(a)) {
                  p.black = black1;
                  p.choose(a, t1);
                  for (const black2 of [false, true]) {
                    p.black = black2;
                    for (const b of p.destinations()) {
                      for (const t2 of p.options().get(b)) out.played.push(p.choose(b, t2).move);
                    }
                  }
                  p.back();
                  p.black = black1;
                }
              }
            }
            return out;
        }""", [m.notation() for m in legal])
    names = {Ticket.TAXI: "taxi", Ticket.BUS: "bus", Ticket.UNDERGROUND: "underground", Ticket.BLACK: "black"}
    singles: dict[int, set[str]] = {}
    for m in legal:
        if not m.is_double:
            singles.setdefault(m.to, set()).add(names[m.ticket])
    plain = {str(s): sorted(t - {"black"} or t) for s, t in singles.items()}
    black = {str(s): ["black"] for s, t in singles.items() if "black" in t}
    assert {k: sorted(v) for k, v in got["plain"].items()} == plain
    assert got["black"] == black
    assert got["firsts"] == sorted({m.to for m in legal if m.is_double})
    # every double move can be made by clicks (black toggled per step), and nothing else
    assert sorted(set(got["played"])) == sorted(m.notation() for m in legal if m.is_double)
    # free order: the pieces that can move, and only the pieces this player owns
    game = Game.new(Rules.new_edition(detectives=2), seed=2)
    game.push(game.legal_moves()[0])
    hunters = [m.notation() for m in game.legal_moves()]
    pieces = page.evaluate(
        """async (legal) => {
            const { MovePicker } = await import('/static/js/notation.js');
            const all = new MovePicker(legal, ['D1', 'D2', 'P1', 'P2'], null);
            const mine = new MovePicker(legal, ['D2'], null);
            return [all.pieces(), mine.pieces(), mine.destinations().length > 0, all.freeOrder];
        }""", hunters)
    assert set(pieces[0]) == {h.split(":")[0] for h in hunters}
    assert pieces[1] == ["D2"] and pieces[2] and pieces[3]


def test_heat_map_and_replay_shading_draw_the_server_fields(server: str, new_page: Any) -> None:
    """The server's `probability` and `possible_history` state fields: the page draws exactly
    what it is sent. A WebSocket route passes the real frames through unchanged and keeps the
    newest state, to compare the drawing with it."""
    game = create_game(server, preset="classic", detectives=1, seed=13, seats={"X": AI})
    page = new_page()
    sent: dict[str, Any] = {}

    def keep(text: str | bytes) -> str | bytes:
        msg = json.loads(text)
        if msg.get("type") == "state":
            sent.update(msg)
        return text

    def route(ws: Any) -> None:
        upstream = ws.connect_to_server()
        upstream.on_message(lambda m: ws.send(keep(m)))
        ws.on_message(lambda m: upstream.send(m))

    page.route_web_socket(re.compile(r".*/ws/.*"), route)
    page.goto(server + game["links"]["detectives"])
    assert wait_turn_or_over(page) == "mine"
    assert page.is_enabled("#tg-heat") and page.is_hidden("#heat-missing")
    prob = {int(k): v for k, v in sent["probability"].items()}
    assert set(prob) == set(sent["view"]["possible"]) and abs(sum(prob.values()) - 1) < 1e-4
    page.check("#tg-heat")
    heat = page.locator(".layer-underlay .heat")
    radii = {int(c.get_attribute("data-station")): float(c.get_attribute("r")) for c in heat.all()}
    assert sorted(radii) == sorted(prob)
    assert len(radii) == int(page.inner_text("#possible-count"))
    assert radii[max(prob, key=prob.get)] == max(radii.values())
    page.uncheck("#tg-heat")
    assert heat.count() == 0
    while wait_turn_or_over(page) == "mine":
        play_first_legal(page)
    page.wait_for_function("() => document.querySelector('#replay-first') !== null")
    history = sent["possible_history"]
    assert history and [h["slot"] for h in history] == [e["slot"] for e in sent["view"]["log"]]
    page.click("#replay-first")
    for step in range(5):
        if step:
            page.click("#replay-next")
        slots = page.locator(".mrx-path-label").count()  # Mr X's log slots filled so far
        stations = [int(c.get_attribute("data-station")) for c in page.locator(".layer-underlay .possible").all()]
        assert sorted(stations) == (sorted(history[slots - 1]["possible"]) if slots else [])
