"""The computer analysis on the game page in real Chromium: asked for with one click after the
end, its progress shown, then the chart of both estimates, the labelled moves, a click that
goes to the move in the replay with the played and the computer's move drawn as arrows; at
1280x800 and on a phone (390x844, in the bottom sheet)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.browser.helpers import create_game

pytestmark = [pytest.mark.browser, pytest.mark.timeout(400)]

AI = {"kind": "ai", "agent": "random"}
SIZES = {"1280x800": {"viewport": {"width": 1280, "height": 800}},
         "390x844": {"viewport": {"width": 390, "height": 844}, "has_touch": True,
                     "is_mobile": True}}


def finished_game(server: str) -> dict[str, Any]:
    """An all-computer game played to its end (random agents, 5 detectives: many moves)."""
    game = create_game(server, preset="classic", detectives=5,
                       seats={p: AI for p in ("X", "D1", "D2", "D3", "D4", "D5")})
    tok = game["tokens"]["spectator"]
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        st = httpx.get(f"{server}/api/games/{game['game_id']}/state", params={"token": tok},
                       timeout=10).json()
        if st["view"]["outcome"]:
            return game
        time.sleep(0.2)
    raise AssertionError("the AI game did not end")


def in_viewport(page: Any, selector: str) -> None:
    box = page.locator(selector).first.bounding_box()
    vw, vh = page.viewport_size["width"], page.viewport_size["height"]
    assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= vh + 1, (selector, box)
    assert box["x"] >= 0 and box["x"] + box["width"] <= vw + 1, (selector, box)


@pytest.mark.parametrize("size", list(SIZES))
def test_a_computer_analysis_is_requested_shown_and_walked(
        server: str, new_page: Any, artifacts: Path, size: str) -> None:
    game = finished_game(server)
    page = new_page(**SIZES[size])
    page.goto(server + game["links"]["spectator"])
    page.wait_for_selector(".game-page[data-over='1']")
    if size == "390x844":
        page.locator("#tab-move").tap()
    button = page.locator("#review-request")
    button.wait_for()
    button.scroll_into_view_if_needed()
    in_viewport(page, "#review-request")
    button.click()
    # its progress, then the chart (the job runs in its own process at low priority)
    page.wait_for_selector("#review progress, #review .review-chart", timeout=30_000)
    page.wait_for_selector("#review .review-chart", timeout=240_000)
    n = len(httpx.get(f"{server}/api/games/{game['game_id']}/state",
                      params={"token": game["tokens"]["spectator"]}).json()["view"]["history"])
    assert page.locator("#review .ply-band").count() == n
    assert page.locator("#review .est-line").count() == 2
    page.locator("#review").scroll_into_view_if_needed()
    in_viewport(page, "#review .review-chart")
    font = page.eval_on_selector("#review .review-counts", "e => parseFloat(getComputedStyle(e).fontSize)")
    assert font >= 12
    page.screenshot(path=str(artifacts / f"review-{size}.png"))
    result = httpx.get(f"{server}/api/games/{game['game_id']}/analysis",
                       params={"token": game["tokens"]["spectator"]}).json()["result"]
    assert result["plies"] and len(result["mr_x"]) == n + 1
    moments = result["moments"]
    if moments:  # the costliest move: listed; a click shows it in the replay with two arrows
        first = page.locator("#review-moments li").first
        assert first.get_attribute("data-ply") == str(moments[0])
        first.locator("button").click()
        ply = moments[0]
        page.wait_for_function("s => document.querySelector('.game-page').dataset.replayStep === s",
                               arg=str(ply - 1))
        p = result["plies"][ply - 1]
        kinds = sorted(page.locator(".layer-arrows .arrow").evaluate_all(
            "els => els.map(e => e.dataset.kind)"))
        # an arrow for each move that leaves its station (a double move back home draws none)
        want = sorted(k for k, to in (("played", p["to"]), ("best", p["best_to"]))
                      if to is not None and to != p["start"])
        assert kinds == want
        if "best" in want:
            best = page.locator(".arrow-best")
            assert best.get_attribute("data-to") == str(p["best_to"])
            assert best.get_attribute("data-from") == str(p["start"])
        page.screenshot(path=str(artifacts / f"review-arrows-{size}.png"))
    # a click on the chart goes to that move
    band = page.locator("#review .ply-band[data-ply='3']")
    band.dispatch_event("click")
    page.wait_for_function("() => document.querySelector('.game-page').dataset.replayStep === '2'")
    # a reload finds the kept analysis at once (no button)
    page.reload()
    page.wait_for_selector(".game-page[data-over='1']")
    page.wait_for_selector("#review .review-chart")
    assert page.locator("#review-request").count() == 0
