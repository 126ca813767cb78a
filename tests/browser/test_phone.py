"""The phone layout (390x844, touch) and the laptop sizes (1280x800, 1024x768), in real
Chromium: the board, whose turn, your tickets and Mr X's last log slots in view without
scrolling, a bottom sheet with tabs, every legal target of the piece to move inside the
board's box, station numbers of at least 12 px, taps that land on highlighted stations (also
a little beside them: the nearest target), a legible end screen; five detectives' rows at
1280x800. Screenshots go to test-artifacts/."""

from __future__ import annotations

import math
import random
from pathlib import Path
from typing import Any

import pytest

from .helpers import (
    GAME,
    create_game,
    seat_view,
    targets,
    version,
    wait_turn_or_over,
    wait_version_change,
    wait_version_or_popup,
)

pytestmark = pytest.mark.browser

PHONE = {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True}
AI_X = {"X": {"kind": "ai", "agent": "random"}}
SEED_D1_ON_13 = 51  # the detectives' first card (rooms.draw_server_start): D1 starts on 13

LABEL_PX = """() => { const t = document.querySelector('.st-num');
    return parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a; }"""


def box(page: Any, selector: str) -> dict[str, float]:
    """The element's bounding box on screen (viewport coordinates)."""
    b = page.evaluate("s => document.querySelector(s).getBoundingClientRect().toJSON()", selector)
    assert b["width"] > 0 and b["height"] > 0, (selector, b)
    return b


def in_viewport(page: Any, selector: str) -> None:
    vp = page.viewport_size
    b = box(page, selector)
    assert b["left"] >= 0 and b["top"] >= 0 and b["right"] <= vp["width"] and b["bottom"] <= vp["height"], \
        (selector, b, vp)


def centres(page: Any) -> dict[int, tuple[float, float]]:
    """Every station's centre on screen."""
    raw = page.evaluate("""() => Object.fromEntries([...document.querySelectorAll('.station')].map(g => {
        const r = g.querySelector('.st-target-ring').getBoundingClientRect();
        return [g.dataset.station, [r.x + r.width / 2, r.y + r.height / 2]]; }))""")
    return {int(k): (v[0], v[1]) for k, v in raw.items()}


def targets_outside_board(page: Any) -> list[int]:
    b = box(page, ".board-svg")
    pts = centres(page)
    return [s for s in targets(page)
            if not (b["left"] <= pts[s][0] <= b["right"] and b["top"] <= pts[s][1] <= b["bottom"])]


def beside(page: Any, station: int, px: float = 13) -> tuple[float, float]:
    """A point `px` from the station's centre whose nearest station is that one."""
    pts = centres(page)
    cx, cy = pts[station]
    for k in range(16):
        a = k * math.pi / 8
        x, y = cx + px * math.cos(a), cy + px * math.sin(a)
        if min(pts, key=lambda s: math.hypot(pts[s][0] - x, pts[s][1] - y)) == station:
            return x, y
    return cx, cy


def test_phone_layout_targets_taps_and_end_screen(server: str, new_page: Any, artifacts: Path) -> None:
    game = create_game(server, preset="classic", detectives=1, seed=SEED_D1_ON_13, seats=AI_X)
    page = new_page(**PHONE)
    page.goto(server + game["links"]["detectives"])
    page.wait_for_selector(f"{GAME}[data-version]")
    assert wait_turn_or_over(page) == "mine"
    page.wait_for_timeout(300)
    assert page.locator(".piece-D1").get_attribute("data-station") == "13"
    # the case: from 13 the underground reaches 46 and 89, far apart; all are in view
    assert {46, 89} <= set(targets(page))
    assert targets_outside_board(page) == []
    assert page.evaluate(LABEL_PX) >= 12
    # board, whose turn, your tickets and Mr X's last log slots: on screen, nothing scrolls
    for sel in (".board-svg", "#turn", "#glance-tickets", "#glance-log", ".sheet-tabs", "#play"):
        in_viewport(page, sel)
    assert page.evaluate("document.documentElement.scrollHeight") <= 844
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    assert page.locator("#glance-tickets [data-ticket=taxi]").inner_text() == "T 10"
    page.screenshot(path=str(artifacts / "phone-13-390x844.png"))
    # the bottom sheet's tabs: log, players, back to the move
    page.locator("#tab-log").tap()
    in_viewport(page, "#travel-log")
    assert not page.locator("#play").is_visible()
    page.locator("#tab-players").tap()
    in_viewport(page, "#players tbody tr:last-child")
    page.screenshot(path=str(artifacts / "phone-players-390x844.png"))
    page.locator("#tab-chat").tap()
    in_viewport(page, "#chat")
    page.locator("#tab-move").tap()
    in_viewport(page, "#move-input")
    # a whole game by touch: every turn, all targets in view and legible; a tap beside a
    # highlighted station (not on its ring) plays it
    rng = random.Random(5)
    moves = 0
    while wait_turn_or_over(page) == "mine":
        page.wait_for_timeout(150)
        legal = targets(page)
        if not legal:
            old = version(page)
            page.locator("#btn-pass").tap()
            wait_version_change(page, old)
            continue
        assert targets_outside_board(page) == [], (moves, legal)
        assert page.evaluate(LABEL_PX) >= 12
        # the first two moves where Mr X cannot be (his start is the server's secret: a
        # capture on the first move would end the game before the test has two)
        possible = set(seat_view(server, game, "detectives")["possible"])
        safe = [s for s in legal if s not in possible]
        dest = rng.choice(safe if moves < 2 and safe else legal)
        old = version(page)
        page.touchscreen.tap(*beside(page, dest))
        if wait_version_or_popup(page, old):
            page.locator("#popup .ticket-btn").first.tap()
            wait_version_change(page, old)
        assert page.locator(".piece-D1").get_attribute("data-station") == str(dest), (moves, dest)
        moves += 1
        assert moves < 40
    assert moves >= 2
    # the end screen: the result in view, at a legible zoom
    page.wait_for_timeout(300)
    in_viewport(page, "#outcome-title")
    assert page.evaluate(LABEL_PX) >= 12
    assert page.evaluate("document.documentElement.scrollHeight") <= 844
    page.screenshot(path=str(artifacts / "phone-end-390x844.png"))


@pytest.mark.parametrize("size", [(1280, 800), (1024, 768)])
def test_laptop_numbers_legible_and_five_detectives_fit(
        server: str, new_page: Any, artifacts: Path, size: tuple[int, int]) -> None:
    w, hgt = size
    game = create_game(server, preset="classic", detectives=5, seed=SEED_D1_ON_13, seats=AI_X)
    page = new_page(viewport={"width": w, "height": hgt})
    page.goto(server + game["links"]["detectives"])
    page.wait_for_selector(f"{GAME}[data-version]")
    assert wait_turn_or_over(page) == "mine"
    # the whole board, station numbers of at least 12 px
    assert float(page.get_attribute(".board-svg", "data-zoom")) < 1.01
    assert page.evaluate(LABEL_PX) >= 12
    assert targets_outside_board(page) == []
    for sel in ("#turn", "#play", "#travel-log"):
        in_viewport(page, sel)
    if w == 1280:  # Detective 5's row is not cut off
        in_viewport(page, "#players tbody tr[data-piece=D5]")
    # the sound button stays on the round's line, round 22 too
    page.evaluate("document.querySelector('#round').textContent = '22'")
    sound, rnd = box(page, "#tg-sound"), box(page, ".round")
    assert abs((sound["top"] + sound["bottom"]) / 2 - (rnd["top"] + rnd["bottom"]) / 2) < 6, (sound, rnd)
    page.screenshot(path=str(artifacts / f"laptop-{w}x{hgt}.png"))
