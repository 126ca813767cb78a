"""The table around the move box in real Chromium, at 390x844 (touch) and 1280x800: a player
who leaves (everyone sees who left and a live countdown, the computer takes over at the game's
level, the player coming back sees what was played for him and takes his seat back), the
confirmation before handing someone else's seat to the computer, offers next to the move box,
the chat panel, and "My games". Screenshots go to test-artifacts/table-*.png."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from .conftest import running_server
from .helpers import GAME, create_game, play_first_legal

pytestmark = pytest.mark.browser
ABSENT_TIMEOUT = 4
SIZES = {
    "phone": {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True},
    "laptop": {"viewport": {"width": 1280, "height": 800}},
}


@pytest.fixture(scope="module")
def table_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server whose absent players are replaced after a few seconds (stopped by pid)."""
    with running_server(tmp_path_factory.mktemp("table-server"), "--absent-timeout",
                        str(ABSENT_TIMEOUT), unpaced=True) as base:
        yield base


def open_game(page: Any, url: str) -> Any:
    page.goto(url)
    page.wait_for_selector(f"{GAME}[data-version]")
    return page


def in_view(page: Any, selector: str, min_font: float = 12.0) -> dict[str, float]:
    """Assert that ``selector`` is inside the viewport, with legible text; its box."""
    box = page.locator(selector).first.bounding_box()
    vp = page.viewport_size
    assert box is not None, selector
    assert box["x"] >= 0 and box["y"] >= 0, (selector, box)
    assert box["x"] + box["width"] <= vp["width"] + 0.5, (selector, box, vp)
    assert box["y"] + box["height"] <= vp["height"] + 0.5, (selector, box, vp)
    size = page.eval_on_selector(selector, "e => parseFloat(getComputedStyle(e).fontSize)")
    assert size >= min_font, (selector, size)
    return box


@pytest.mark.parametrize("size", list(SIZES))
def test_a_player_leaves_the_computer_takes_over_and_he_takes_his_seat_back(
        table_server: str, new_page: Any, artifacts: Path, size: str) -> None:
    # Mr X (A) and Detective 1 (B) are people; Detective 2 is the computer at "easy": the
    # computer plays an absent seat at that level, not at a fixed "medium"
    g = create_game(table_server, detectives=2, seats={"D2": {"kind": "ai", "agent": "easy"}})
    a = open_game(new_page(**SIZES[size]), table_server + g["links"]["X"])
    b = open_game(new_page(**SIZES[size]), table_server + g["links"]["D1"])
    # no "let the AI play" on one's own seat, nor on a seat whose player is here
    assert a.locator("[data-action='takeover']").count() == 0
    assert b.locator("[data-action='takeover']").count() == 0
    play_first_legal(a)  # Mr X moves; it is Detective 1's turn
    b.wait_for_selector(f"{GAME}[data-my-turn='1']")
    context = b.context
    b.close()  # B closes the tab
    seat = a.locator("#absent .absent-seat[data-piece='D1']")
    seat.wait_for(timeout=5000)
    text = seat.inner_text()
    assert text.startswith("Detective 1 left") and "the computer takes over in 0:0" in text, text
    in_view(a, "#absent .absent-seat[data-piece='D1']")
    first = int(seat.get_attribute("data-left"))
    assert 0 < first <= ABSENT_TIMEOUT
    a.wait_for_function("n => Number(document.querySelector(\"#absent .absent-seat[data-piece='D1']\")"
                        "?.dataset.left) < n", arg=first, timeout=3000)  # it counts down, live
    a.screenshot(path=str(artifacts / f"table-absent-countdown-{size}.png"))
    # at zero the computer plays D1 at the game's level; everyone is told
    a.wait_for_selector("#players tr[data-piece='D1'] .seat-ai", timeout=(ABSENT_TIMEOUT + 10) * 1000)
    assert "The computer now plays Detective 1 (level: easy)" in a.inner_text("#toast")
    assert a.locator("#absent").is_hidden()
    a.wait_for_selector(f"{GAME}[data-my-turn='1']", timeout=30_000)  # it moved for D1 (and D2)
    # B comes back (same browser): what was played for him, and one click to take it back
    b = open_game(context.new_page(), table_server + g["links"]["D1"])
    back = b.locator("#absent-back")
    back.wait_for()
    assert "While you were away the computer played for you (Detective 1, level: easy)" \
        in back.inner_text()
    state = httpx.get(f"{table_server}/api/games/{g['game_id']}/state",
                      params={"token": g["tokens"]["D1"]}).json()
    since = state["absent"]["handed"]["D1"]
    played = [m["move"] for m in state["view"]["history"][since:] if m["piece"] == "D1"]
    assert played and back.locator(".absent-back-moves").inner_text() == \
        "Its moves: " + ", ".join(played)
    in_view(b, "#absent-back .absent-back-text")
    in_view(b, "#absent-reclaim")
    b.screenshot(path=str(artifacts / f"table-absent-back-{size}.png"))
    b.locator("#absent-reclaim").click()
    b.wait_for_selector("#players tr[data-piece='D1'] .seat-human")
    assert back.is_hidden()
    a.wait_for_selector("#players tr[data-piece='D1'] .seat-human")


def test_handing_someone_elses_seat_over_asks_first(table_server: str, new_page: Any,
                                                     artifacts: Path) -> None:
    """With "wait", nobody is handed over on their own; after the timeout the others may let
    the computer play the seat, at the game's level, once they confirm."""
    g = create_game(table_server, detectives=1, on_absent="wait",
                    clock={"per_move": 600, "agent": "easy"})
    a = open_game(new_page(**SIZES["laptop"]), table_server + g["links"]["X"])
    b = open_game(new_page(**SIZES["laptop"]), table_server + g["links"]["D1"])
    b.close()
    seat = a.locator("#absent .absent-seat[data-piece='D1']")
    seat.wait_for()
    assert "left" in seat.inner_text() and "waiting for them to come back" in seat.inner_text()
    button = seat.locator("[data-action='absent-takeover']")
    button.wait_for(timeout=(ABSENT_TIMEOUT + 5) * 1000)  # after the timeout: the button
    assert a.locator("#players tr[data-piece='D1'] .seat-human").count() == 1  # nobody took it
    button.click()
    question = a.locator("#absent-ask .absent-question")
    assert question.inner_text() == ("Let the computer play Detective 1 (level: easy) until "
                                     "its player comes back?")
    in_view(a, "#absent-yes")
    a.screenshot(path=str(artifacts / "table-absent-confirm-laptop.png"))
    a.locator("#absent-no").click()  # not now: nothing changes
    assert a.locator("#absent-ask").is_hidden()
    assert a.locator("#players tr[data-piece='D1'] .seat-human").count() == 1
    a.locator("#players tr[data-piece='D1'] [data-action='takeover']").click()  # the table's link
    a.locator("#absent-yes").click()
    a.wait_for_selector("#players tr[data-piece='D1'] .seat-ai")
    assert "level: easy" in a.inner_text("#toast")
