"""Helpers for driving the game page in the browser tests."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest

from scotlandyard.board import london

GAME = ".game-page"


def create_game(base: str, **body: Any) -> dict[str, Any]:
    """POST /api/games and return the answer (asserting 201)."""
    res = httpx.post(f"{base}/api/games", json=body, timeout=10)
    assert res.status_code == 201, res.text
    return res.json()


def version(page: Any) -> str | None:
    """The ply of the state the page shows (data-version)."""
    return page.get_attribute(GAME, "data-version")


def wait_turn_or_over(page: Any) -> str:
    """Wait until it is this page's turn ("mine") or the game is over ("over")."""
    page.wait_for_selector(f"{GAME}[data-my-turn='1'], {GAME}[data-over='1']")
    return "over" if page.get_attribute(GAME, "data-over") == "1" else "mine"


def wait_version_change(page: Any, old: str | None) -> None:
    """Wait until the page shows a newer state than ``old``."""
    page.wait_for_function(
        "v => { const g = document.querySelector('.game-page'); return g && g.dataset.version !== v; }",
        arg=old)


def wait_version_or_popup(page: Any, old: str | None) -> bool:
    """After a tap on a station: wait until the page shows a newer state than ``old`` or
    asks which ticket (the popup; a touch's click may come after the tap returns). True when
    it asks."""
    page.wait_for_function(
        """v => { const g = document.querySelector('.game-page');
                  const p = document.querySelector('#popup');
                  return (g && g.dataset.version !== v) || (p && !p.hidden); }""",
        arg=old)
    return page.locator("#popup").is_visible()


def targets(page: Any) -> list[int]:
    """The highlighted (legal) destinations on the board."""
    text = page.get_attribute(".board-svg", "data-targets") or ""
    return [int(s) for s in text.split()]


def play_first_legal(page: Any) -> None:
    """Play by clicking: the first highlighted station (and the first ticket offered), else
    the pass button, else the first 'take' button. Waits for the new state."""
    old = version(page)
    stations = page.locator(".station.target")
    if stations.count():
        stations.first.click()
        first_ticket(page)
        if page.locator(".station.target-second").count():  # second step of a double move
            page.locator(".station.target").first.click()
            first_ticket(page)
    elif page.locator("#btn-pass").is_visible():
        page.click("#btn-pass")
    else:
        page.locator("#take-buttons button").first.click()
    wait_version_change(page, old)


def first_ticket(page: Any) -> None:
    """Where a clicked station offers a choice of tickets, take the first one offered."""
    popup = page.locator("#popup")
    if popup.is_visible():
        popup.locator(".ticket-btn").first.click()


def seat_view(base: str, game: dict[str, Any], token: str) -> dict[str, Any]:
    """What the server shows the seat ``token`` (a key of the game's tokens) of the game now."""
    res = httpx.get(f"{base}/api/games/{game['game_id']}/state",
                    params={"token": game["tokens"][token]}, timeout=10)
    view: dict[str, Any] = res.json()["view"]
    return view


class NoSafeMove(Exception):
    """Every highlighted station may hold Mr X: a click could end the game by a capture."""


def play_safe(page: Any, base: str, game: dict[str, Any], token: str) -> None:
    """Move the detective to move by clicking a station where, by what this seat sees, Mr X
    cannot be (so the game goes on); waits for the new state. Mr X's start and a computer
    Mr X's moves are the server's secret, so a test cannot choose them: where every target
    may hold him this raises NoSafeMove (see retry_without_safe_move)."""
    old = version(page)
    possible = set(seat_view(base, game, token)["possible"])
    safe = [s for s in targets(page) if s not in possible]
    if not safe:
        raise NoSafeMove(f"all of {targets(page)} may hold Mr X")
    page.locator(f".station.target[data-station='{safe[0]}']").click()
    first_ticket(page)
    wait_version_change(page, old)


def retry_without_safe_move(one_game: Callable[[], None], tries: int = 6) -> None:
    """Run ``one_game`` (which starts a game of its own) until it ends without NoSafeMove, at
    most ``tries`` times; fail the test when every try met a position without a safe move."""
    for _ in range(tries):
        try:
            one_game()
            return
        except NoSafeMove:
            continue
    pytest.fail(f"{tries} games in a row left the detectives no move where Mr X cannot be")


def play_away(page: Any, base: str, game: dict[str, Any], token: str) -> None:
    """Play Mr X by clicking, as play_first_legal does, but the first highlighted station that
    no detective stands on or next to (any transport), where there is one: a computer
    detective (secretly seeded on the server) then cannot end the game by a capture on its
    next move. Waits for the new state."""
    if not page.locator(".station.target").count():  # no move to choose: pass or take
        play_first_legal(page)
        return
    board = london()
    hunters = {int(s) for p, s in seat_view(base, game, token)["stations"].items() if p != "X"}
    near = hunters.union(*(board.any_neighbours(h) for h in hunters))

    def click_away() -> None:
        options = [int(e.get_attribute("data-station"))
                   for e in page.locator(".station.target").all()]
        pick = next((t for t in options if t not in near), options[0])
        page.locator(f".station.target[data-station='{pick}']").click()
        first_ticket(page)

    old = version(page)
    click_away()
    if page.locator(".station.target-second").count():  # second step of a double move
        click_away()
    wait_version_change(page, old)


def mr_x_on_board(page: Any) -> int | None:
    """The station of Mr X's pawn on the board, or None when not drawn."""
    piece = page.locator(".piece-X")
    if not piece.count():
        return None
    return int(piece.first.get_attribute("data-station"))


def log_stations(page: Any) -> dict[int, str]:
    """Mr X's travel log as shown: filled slot -> shown station text ('?' when hidden)."""
    out = {}
    for li in page.locator("#travel-log li.filled").all():
        out[int(li.get_attribute("data-slot"))] = li.locator(".slot-st").inner_text()
    return out
