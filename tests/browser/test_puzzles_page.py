"""The puzzle page in real Chromium, on a phone (390x844, touch) and a laptop (1280x800): a
puzzle solved by tapping the stations, a puzzle failed, a 2-round puzzle finished after Mr X's
reply; what the player reads is in the viewport and legible."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from scotlandyard.move import Move
from scotlandyard.puzzles import cover, load_puzzles, reply_for

pytestmark = [pytest.mark.browser, pytest.mark.timeout(240)]

PHONE = {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True,
         "device_scale_factor": 2}
LAPTOP = {"viewport": {"width": 1280, "height": 800}}
SIZES = {"390x844": PHONE, "1280x800": LAPTOP}


def in_viewport(page: Any, selector: str) -> dict[str, float]:
    box = page.locator(selector).bounding_box()
    vw, vh = page.viewport_size["width"], page.viewport_size["height"]
    assert box is not None, selector
    assert box["x"] >= 0 and box["y"] >= 0, (selector, box)
    assert box["x"] + box["width"] <= vw + 1 and box["y"] + box["height"] <= vh + 1, (selector, box)
    return box


def font_px(page: Any, selector: str) -> float:
    return float(page.eval_on_selector(selector, "e => parseFloat(getComputedStyle(e).fontSize)"))


def play(page: Any, moves: list[str], touch: bool) -> None:
    """Choose each detective's move by tapping its station on the board (inside the board's
    visible box) and, where several tickets reach it, the ticket's button."""
    letters = {"T": "taxi", "B": "bus", "U": "underground"}
    for text in moves:
        mv = Move.parse(text)
        piece = page.get_attribute(".puzzle-page", "data-to-move")
        assert piece == mv.piece
        node = page.locator(f".station.target[data-station='{mv.to}']")
        assert node.count() == 1, f"{mv.to} is not a target for {piece}"
        b = node.bounding_box()
        board = page.locator(".puzzle-board .board-svg").bounding_box()
        cx, cy = b["x"] + b["width"] / 2, b["y"] + b["height"] / 2
        assert board["x"] <= cx <= board["x"] + board["width"]
        assert board["y"] <= cy <= board["y"] + board["height"], "the target is off the board"
        if touch:
            page.touchscreen.tap(cx, cy)
        else:
            page.mouse.click(cx, cy)
        ticket = page.locator(f".puzzle-tickets button[data-ticket='{letters[mv.ticket.letter]}']")
        if ticket.count():
            ticket.click()
        page.wait_for_function("p => document.querySelector('.puzzle-page').dataset.toMove !== p",
                               arg=piece)


def open_puzzle(new_page: Any, server: str, pid: str, size: str) -> Any:
    page = new_page(**SIZES[size])
    page.goto(f"{server}/puzzles/{pid}")
    page.wait_for_selector(".puzzle-page[data-state='playing'] .puzzle-task")
    return page


@pytest.mark.parametrize("size", list(SIZES))
def test_a_puzzle_is_solved_by_tapping_and_the_result_is_in_view(
        server: str, new_page: Any, artifacts: Path, size: str) -> None:
    p = next(q for q in load_puzzles() if q.rounds == 1 and len(q.solution) >= 3)
    page = open_puzzle(new_page, server, p.id, size)
    assert page.evaluate("document.documentElement.scrollWidth") <= SIZES[size]["viewport"]["width"]
    # the board, the task, every detective's move and Check: in view without scrolling
    for sel in (".puzzle-board .board-svg", ".puzzle-task", ".puzzle-moves", "#puzzle-check"):
        in_viewport(page, sel)
    assert font_px(page, ".puzzle-task") >= 14 and font_px(page, ".puzzle-move") >= 12
    play(page, list(p.solution), touch=size == "390x844")
    page.locator("#puzzle-check").click()
    page.wait_for_selector("#puzzle-result.ok")
    page.locator("#puzzle-result").scroll_into_view_if_needed()
    in_viewport(page, "#puzzle-result")
    assert font_px(page, "#puzzle-result") >= 14
    assert "Solved" in page.inner_text("#puzzle-result")
    assert "Your rating" in page.inner_text("#puzzle-result")
    page.screenshot(path=str(artifacts / f"puzzle-solved-{size}.png"))
    # the next puzzle is another one
    page.locator("#puzzle-next").click()
    page.wait_for_function("id => document.querySelector('#app').dataset.puzzle !== id", arg=p.id)


def test_a_wrong_answer_shows_the_stations_left_open(server: str, new_page: Any,
                                                      artifacts: Path) -> None:
    p = next(q for q in load_puzzles() if q.rounds == 1 and len(q.solution) >= 3)
    game = p.game()
    possible = game.possible_locations()
    moves = list(p.solution)
    g = game.copy()
    for i, text in enumerate(moves):  # one detective goes elsewhere
        alt = [m for m in g.legal_moves() if m.to not in possible
               and m.to not in {Move.parse(x).to for x in moves}]
        if Move.parse(text).to in possible and alt:
            moves[i] = f"{g.to_move}:{alt[0]}"
            break
        g.push(text)
    page = open_puzzle(new_page, server, p.id, "390x844")
    play(page, moves, touch=True)
    page.locator("#puzzle-check").click()
    page.wait_for_selector("#puzzle-result.bad")
    text = page.inner_text("#puzzle-result")
    assert "where no detective lands" in text and "One solution" in text
    page.locator("#puzzle-result").scroll_into_view_if_needed()
    in_viewport(page, "#puzzle-result")
    page.screenshot(path=str(artifacts / "puzzle-failed-390x844.png"))


def test_a_two_round_puzzle_meets_mr_x_reply_and_is_finished(server: str, new_page: Any,
                                                              artifacts: Path) -> None:
    p = next(q for q in load_puzzles() if q.rounds == 2 and len(q.solution) == 5)
    after = reply_for(p.game(), list(p.solution))
    assert after is not None
    finish = cover(after)
    assert finish is not None
    page = open_puzzle(new_page, server, p.id, "1280x800")
    play(page, list(p.solution), touch=False)
    page.locator("#puzzle-check").click()
    page.wait_for_selector(".puzzle-reply")
    in_viewport(page, ".puzzle-reply")
    assert "Mr X answered" in page.inner_text(".puzzle-reply")
    play(page, [str(m) for m in finish], touch=False)
    page.locator("#puzzle-check").click()
    page.wait_for_selector("#puzzle-result.ok")
    page.screenshot(path=str(artifacts / "puzzle-two-rounds-1280x800.png"))


@pytest.mark.parametrize("lang,one,two,five", [
    ("en-US", "1 station.", "2 stations.", "5 stations."),
    ("pl-PL", "1 stacji.", "2 stacjach.", "5 stacjach."),
    ("ru-RU", "1 станции.", "2 станциях.", "5 станциях."),
    ("it-IT", "1 stazione.", "2 stazioni.", "5 stazioni."),
])
def test_the_count_of_stations_uses_the_language_plural(server: str, new_page: Any, lang: str,
                                                        one: str, two: str, five: str) -> None:
    by_count: dict[int, str] = {}
    for q in load_puzzles():
        n = len(q.game().possible_locations())
        by_count.setdefault(n, q.id)
        if {1, 2, 5} <= set(by_count):
            break
    assert {1, 2, 5} <= set(by_count)
    for n, want in ((1, one), (2, two), (5, five)):
        page = new_page(locale=lang, **LAPTOP)
        page.goto(f"{server}/puzzles/{by_count[n]}")
        page.wait_for_selector(".puzzle-possible")
        assert page.inner_text(".puzzle-possible").endswith(want)
