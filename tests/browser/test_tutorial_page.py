"""The tutorial page in real Chromium, on a phone (390x844, touch) and a laptop (1280x800):
each lesson completed by choosing tickets and tapping stations, a refused move showing the
engine's rule and its translated reason, a legal but different move hinted; one lesson in
Polish; the lobby's first card and the top bar lead there in one click."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from scotlandyard.tutorial import LESSONS

pytestmark = [pytest.mark.browser, pytest.mark.timeout(240)]

PHONE = {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True,
         "device_scale_factor": 2}
LAPTOP = {"viewport": {"width": 1280, "height": 800}}
SIZES = {"390x844": PHONE, "1280x800": LAPTOP}
TICKET = {"T": "taxi", "B": "bus", "U": "underground", "K": "black"}
# a refused try for each lesson's expect steps (the engine refuses it with the step's rule)
TRIES = {("detective", 1): "U67", ("detective", 2): "B13", ("detective", 4): "B23",
         ("mr_x", 1): "T15"}


def in_viewport(page: Any, selector: str) -> None:
    box = page.locator(selector).bounding_box()
    vw, vh = page.viewport_size["width"], page.viewport_size["height"]
    assert box is not None, selector
    assert box["x"] >= 0 and box["y"] >= 0, (selector, box)
    assert box["x"] + box["width"] <= vw + 1 and box["y"] + box["height"] <= vh + 1, (selector, box)


def font_px(page: Any, selector: str) -> float:
    return float(page.eval_on_selector(selector, "e => parseFloat(getComputedStyle(e).fontSize)"))


def tap_station(page: Any, station: int, touch: bool) -> None:
    """Tap (or click) the station where it is drawn, inside the board's visible box."""
    b = page.locator(f".tutorial-board .station[data-station='{station}']").bounding_box()
    board = page.locator(".tutorial-board .board-svg").bounding_box()
    cx, cy = b["x"] + b["width"] / 2, b["y"] + b["height"] / 2
    assert board["x"] <= cx <= board["x"] + board["width"], f"{station} is off the board"
    assert board["y"] <= cy <= board["y"] + board["height"], f"{station} is off the board"
    if touch:
        page.touchscreen.tap(cx, cy)
    else:
        page.mouse.click(cx, cy)


def play_step(page: Any, text: str, touch: bool) -> None:
    """Choose each step's ticket and tap its station; a double move presses Double move."""
    parts = text.split("+")
    if len(parts) == 2:
        page.locator(".tutorial-tickets button[data-ticket='double']").click()
    for part in parts:
        page.locator(f".tutorial-tickets button[data-ticket='{TICKET[part[0]]}']").click()
        tap_station(page, int(part[1:]), touch)


def wait_verdict(page: Any, step: str, kind: str) -> None:
    page.wait_for_function(
        "([s, k]) => { const p = document.querySelector('.tutorial-page');"
        " return p && !p.dataset.busy && p.dataset.verdict === k && p.dataset.step === s; }",
        arg=[step, kind])


def complete(page: Any, lesson_id: str, touch: bool, size: str, artifacts: Path) -> None:
    les = next(x for x in LESSONS if x.id == lesson_id)
    page.wait_for_selector(f".tutorial-page[data-lesson='{lesson_id}'][data-step='0'] #tutorial-task")
    for i, st in enumerate(les.steps):
        for sel in (".tutorial-board .board-svg", "#tutorial-task", ".tutorial-tickets"):
            in_viewport(page, sel)
        assert font_px(page, "#tutorial-task") >= 14
        move = st.solution or TRIES[(lesson_id, i)]
        play_step(page, move, touch)
        if i + 1 < len(les.steps):
            wait_verdict(page, str(i + 1), "ok")
        else:
            page.wait_for_selector(".tutorial-page[data-state='done']")
        if st.expect:  # the refusal the step asked for: the rule and its reason, translated
            assert st.expect in page.inner_text("#tutorial-feedback")
        if lesson_id == "team" and i + 1 < len(les.steps) and les.steps[i + 1].key == "shade":
            # the possible-stations map after his taxi from 74: 75 and 92 shaded, and said
            shaded = page.eval_on_selector_all(
                ".tutorial-board circle.possible", "cs => cs.map(c => Number(c.dataset.station))")
            assert sorted(shaded) == [75, 92]
            in_viewport(page, ".tutorial-possible")
            for s in shaded:
                tap_box = page.locator(f".tutorial-board .station[data-station='{s}']").bounding_box()
                board = page.locator(".tutorial-board .board-svg").bounding_box()
                assert board["y"] <= tap_box["y"] and tap_box["y"] + tap_box["height"] <= board["y"] + board["height"]
            page.screenshot(path=str(artifacts / f"tutorial-team-shaded-{size}.png"))
    in_viewport(page, "#tutorial-task")
    page.screenshot(path=str(artifacts / f"tutorial-{lesson_id}-done-{size}.png"))


@pytest.mark.parametrize("size", list(SIZES))
def test_the_detective_lesson_is_completed_with_refusals_and_a_hint(
        server: str, new_page: Any, artifacts: Path, size: str) -> None:
    touch = size == "390x844"
    page = new_page(**SIZES[size])
    page.goto(f"{server}/")
    page.wait_for_selector("#quick-learn")
    in_viewport(page, "#quick-learn")  # in the lobby's first card, in view
    page.locator("#quick-learn").click()
    page.wait_for_selector(".tutorial-page[data-lesson='detective'] #tutorial-task")
    assert page.evaluate("document.documentElement.scrollWidth") <= SIZES[size]["viewport"]["width"]
    assert "13" in page.inner_text("#tutorial-task")
    # a legal move that is not the one asked: a hint, the step stays
    play_step(page, "B23", touch)
    wait_verdict(page, "0", "hint")
    assert "legal" in page.inner_text("#tutorial-feedback")
    # a move the engine refuses: the rule id and the reason in words
    play_step(page, "U23", touch)
    wait_verdict(page, "0", "refused")
    assert "R-BOARD" in page.inner_text("#tutorial-feedback")
    assert "There is no Underground line from 13 to 23." in page.inner_text("#tutorial-feedback")
    page.screenshot(path=str(artifacts / f"tutorial-hint-{size}.png"))
    complete(page, "detective", touch, size, artifacts)


def test_a_refused_move_shows_the_translated_reason(server: str, new_page: Any,
                                                    artifacts: Path) -> None:
    page = new_page(**PHONE)
    page.goto(f"{server}/tutorial/detective")
    page.wait_for_selector(".tutorial-page[data-step='0'] #tutorial-task")
    play_step(page, "B24", True)  # 13 has no bus to 24 (only the taxi)
    wait_verdict(page, "0", "refused")
    text = page.inner_text("#tutorial-feedback")
    assert "R-BOARD" in text and "There is no Bus line from 13 to 24." in text
    in_viewport(page, "#tutorial-feedback")
    assert font_px(page, ".tutorial-why") >= 14
    page.screenshot(path=str(artifacts / "tutorial-refused-390x844.png"))


@pytest.mark.parametrize("lesson_id,size", [("mr_x", "390x844"), ("mr_x", "1280x800"),
                                            ("team", "390x844"), ("team", "1280x800")])
def test_the_mr_x_and_team_lessons_are_completed(server: str, new_page: Any, artifacts: Path,
                                                 lesson_id: str, size: str) -> None:
    page = new_page(**SIZES[size])
    page.goto(f"{server}/tutorial/{lesson_id}")
    complete(page, lesson_id, size == "390x844", size, artifacts)
    if lesson_id == "team":
        assert "Caught" in page.inner_text("#tutorial-task")
    else:  # Mr X's log: six entries, the reveal's station shown, the double move's two
        assert page.locator(".tutorial-log li").count() == 6
        assert page.locator(".tutorial-log li.reveal").count() == 1


@pytest.mark.parametrize("locale,task,why,caught", [
    ("pl-PL", "Wybierz Taksówka", "Nie ma linii (Autobus) z 13 do 24.", "Złapany"),
    ("ru-RU", "Выберите Такси", "Нет линии (Автобус) от 13 до 24.", "Пойман"),
])
def test_a_lesson_in_another_language_from_the_top_bar(server: str, new_page: Any, artifacts: Path,
                                                       locale: str, task: str, why: str,
                                                       caught: str) -> None:
    page = new_page(locale=locale, **PHONE)
    page.goto(f"{server}/rules")
    page.locator(".topnav a[href='/tutorial']").click()
    page.wait_for_selector(".tutorial-page[data-lesson='detective'] #tutorial-task")
    assert task in page.inner_text("#tutorial-task")
    play_step(page, "B24", True)
    wait_verdict(page, "0", "refused")
    assert why in page.inner_text("#tutorial-feedback")
    page.locator("button[data-lesson='team']").click()
    complete(page, "team", True, f"390x844-{locale}", artifacts)
    assert caught in page.inner_text("#tutorial-task")
