"""What the page says, in real Chromium at 390x844 (touch) and 1280x800: Mr X warned before
a reveal move and told where the detectives now see him, the belief panel named for what the
detectives know; plural forms in every language; the language's ticket letters in prose; a
mistyped address answers a page. Screenshots go to test-artifacts/."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from .helpers import GAME, create_game, log_stations, play_first_legal, wait_turn_or_over

pytestmark = pytest.mark.browser

SIZES = {
    "phone": {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True},
    "laptop": {"viewport": {"width": 1280, "height": 800}},
}
AI = {"kind": "ai", "agent": "random"}


def in_viewport(page: Any, selector: str) -> None:
    b = page.evaluate("s => document.querySelector(s).getBoundingClientRect().toJSON()", selector)
    vp = page.viewport_size
    assert b["width"] > 0 and b["left"] >= 0 and b["top"] >= 0 and b["right"] <= vp["width"] \
        and b["bottom"] <= vp["height"], (selector, b)


@pytest.mark.parametrize("size", list(SIZES))
def test_mr_x_is_warned_before_a_reveal_and_told_after_it(
        server: str, new_page: Any, artifacts: Path, size: str) -> None:
    game = create_game(server, preset="classic", detectives=1, seed=5, seats={"D1": AI})
    page = new_page(**SIZES[size])
    page.goto(server + game["links"]["X"])
    page.wait_for_selector(f"{GAME}[data-version]")
    note = page.locator("#reveal-note")
    # what Mr X sees of the belief tools is what the detectives can know
    assert page.locator("#tools-title").text_content() == "What the detectives know"
    for _slot in (1, 2):  # no reveal yet: no warning
        assert wait_turn_or_over(page) == "mine"
        assert note.is_hidden()
        play_first_legal(page)
    assert wait_turn_or_over(page) == "mine"  # slot 3 is a reveal
    assert note.inner_text() == \
        "Careful: your next move will be shown to the detectives (log slot 3 is a reveal)."
    in_viewport(page, "#reveal-note")
    page.screenshot(path=str(artifacts / f"reveal-warning-{size}.png"))
    play_first_legal(page)
    station = log_stations(page)[3]
    page.wait_for_selector(".board-note[data-kind=reveal]")
    assert page.locator(".board-note").inner_text() == f"The detectives now see you at {station}."
    assert wait_turn_or_over(page) == "mine"  # until his next move
    assert note.inner_text() == f"The detectives now see you at {station}."
    in_viewport(page, "#reveal-note")
    page.screenshot(path=str(artifacts / f"reveal-shown-{size}.png"))
    play_first_legal(page)
    assert wait_turn_or_over(page) == "mine"
    assert note.is_hidden()


def test_the_detectives_get_no_mr_x_warning(server: str, new_page: Any) -> None:
    game = create_game(server, preset="classic", detectives=1, seed=5, seats={"X": AI})
    page = new_page(**SIZES["laptop"])
    page.goto(server + game["links"]["detectives"])
    page.wait_for_selector(f"{GAME}[data-version]")
    assert page.locator("#tools-title").text_content() == "Where is Mr X?"
    for _ in range(3):
        assert wait_turn_or_over(page) == "mine"
        assert page.locator("#reveal-note").is_hidden()
        play_first_legal(page)
