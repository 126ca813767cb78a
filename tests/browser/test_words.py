"""What the page says, in real Chromium at 390x844 (touch) and 1280x800: Mr X warned before
a reveal move and told where the detectives now see him, the belief panel named for what the
detectives know; plural forms in every language; the language's ticket letters in prose; a
mistyped address answers a page. Screenshots go to test-artifacts/."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import httpx
import pytest

from .helpers import (
    GAME,
    create_game,
    log_stations,
    play_away,
    play_first_legal,
    play_safe,
    retry_without_safe_move,
    wait_turn_or_over,
)

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
        play_away(page, server, game, "X")
    assert wait_turn_or_over(page) == "mine"  # slot 3 is a reveal
    assert note.inner_text() == \
        "Careful: your next move will be shown to the detectives (log slot 3 is a reveal)."
    in_viewport(page, "#reveal-note")
    page.screenshot(path=str(artifacts / f"reveal-warning-{size}.png"))
    play_away(page, server, game, "X")
    station = log_stations(page)[3]
    page.wait_for_selector(".board-note[data-kind=reveal]")
    assert page.locator(".board-note").inner_text() == f"The detectives now see you at {station}."
    assert wait_turn_or_over(page) == "mine"  # until his next move
    assert note.inner_text() == f"The detectives now see you at {station}."
    in_viewport(page, "#reveal-note")
    page.screenshot(path=str(artifacts / f"reveal-shown-{size}.png"))
    play_away(page, server, game, "X")
    assert wait_turn_or_over(page) == "mine"
    assert note.is_hidden()


def test_the_detectives_get_no_mr_x_warning(server: str, new_page: Any) -> None:
    """The detectives' page has no reveal warning over their first three turns (slot 3 is a
    reveal). They move where Mr X cannot be; where every station the detective can reach may
    hold the (random, secretly seeded) computer Mr X, a fresh game is played."""
    def one_game() -> None:
        game = create_game(server, preset="classic", detectives=1, seed=5, seats={"X": AI})
        page = new_page(**SIZES["laptop"])
        page.goto(server + game["links"]["detectives"])
        page.wait_for_selector(f"{GAME}[data-version]")
        assert page.locator("#tools-title").text_content() == "Where is Mr X?"
        for _ in range(3):
            assert wait_turn_or_over(page) == "mine"
            assert page.locator("#reveal-note").is_hidden()
            play_safe(page, server, game, "detectives")

    retry_without_safe_move(one_game)


COUNTED = """async () => {
    const i18n = await import('/static/js/i18n.js'); const { tp } = await import('/static/js/plural.js');
    const { proseMove } = await import('/static/js/notation.js');
    const out = {};
    for (const lang of ['en', 'it', 'pl', 'ru']) {
      await i18n.setLanguage(lang, false);
      out[lang] = {
        log: [0, 1, 2, 5].map((n) => i18n.t('end.log', { slots: tp('end.slots', n), reveals: tp('end.reveals', n) })),
        away: [0, 1, 2, 5].map((n) => tp('analysis.close_item', n, { round: 4, piece: 'D1' })),
        seals: [1, 2, 5].map((n) => tp('verify.honest', n)),
        move: [proseMove('B82'), proseMove('U13+K74'), proseMove('D2:T92'), proseMove('pass')],
      };
    }
    return out; }"""


def test_counted_words_take_each_language_s_plural_forms(server: str, new_page: Any) -> None:
    page = new_page()
    page.goto(server + "/")
    page.wait_for_selector(".lobby[data-ready='1']")
    got = page.evaluate(COUNTED)
    assert got["en"]["log"] == [
        "Mr X filled 0 slots of his travel log and showed himself 0 times.",
        "Mr X filled 1 slot of his travel log and showed himself 1 time.",
        "Mr X filled 2 slots of his travel log and showed himself 2 times.",
        "Mr X filled 5 slots of his travel log and showed himself 5 times."]
    assert got["en"]["away"] == ["round 4: D1, 0 moves away", "round 4: D1, 1 move away",
                                 "round 4: D1, 2 moves away", "round 4: D1, 5 moves away"]
    assert got["en"]["seals"][0] == "Mr X's log was honest: its 1 seal matches."
    assert got["en"]["seals"][2] == "Mr X's log was honest: all 5 seals match."
    assert [s.split(" e si è mostrato ")[1] for s in got["it"]["log"]] == \
        ["0 volte.", "1 volta.", "2 volte.", "5 volte."]
    assert got["it"]["log"][1].startswith("Mister X ha riempito 1 casella ")
    assert got["it"]["away"][1] == "turno 4: D1 a 1 mossa"
    assert [s.split("wypełnił ")[1].split(" tablicy")[0] for s in got["pl"]["log"]] == \
        ["0 pól", "1 pole", "2 pola", "5 pól"]
    assert [s.split("pokazał się ")[1] for s in got["pl"]["log"]] == ["0 razy.", "1 raz.", "2 razy.", "5 razy."]
    assert got["pl"]["away"] == ["runda 4: D1, 0 ruchów od niego", "runda 4: D1, 1 ruch od niego",
                                 "runda 4: D1, 2 ruchy od niego", "runda 4: D1, 5 ruchów od niego"]
    assert [s.split("заполнил ")[1].split(" путевого")[0] for s in got["ru"]["log"]] == \
        ["0 клеток", "1 клетку", "2 клетки", "5 клеток"]
    assert [s.split("показался ")[1] for s in got["ru"]["log"]] == ["0 раз.", "1 раз.", "2 раза.", "5 раз."]
    assert got["ru"]["seals"] == ["Путевой лист Мистера Х был честным: 1 печать совпадает.",
                                  "Путевой лист Мистера Х был честным: все 2 печати совпадают.",
                                  "Путевой лист Мистера Х был честным: все 5 печатей совпадают."]
    # prose writes moves with the language's ticket letters, as the chips do
    assert got["en"]["move"] == ["B82", "U13+K74", "D2:T92", "pass"]
    assert got["ru"]["move"] == ["А82", "М13+Ч74", "D2:Т92", "pass"]
    assert got["it"]["move"] == ["A82", "M13+N74", "D2:T92", "pass"]
    assert got["pl"]["move"] == ["A82", "M13+C74", "D2:T92", "pass"]


def ru_times(n: int) -> str:
    """Russian 'раз' after n (CLDR: one 1, 21...; few 2-4, 22-24...; many the rest)."""
    return "раза" if n % 10 in (2, 3, 4) and n % 100 not in (12, 13, 14) else "раз"


@pytest.mark.parametrize("size", list(SIZES))
def test_end_screen_in_russian_says_each_thing_once(
        server: str, new_page: Any, artifacts: Path, size: str) -> None:
    game = create_game(server, preset="classic", detectives=1, seed=7, seats={"X": AI})
    page = new_page(**SIZES[size], locale="ru-RU")
    page.goto(server + game["links"]["detectives"])
    page.wait_for_selector(f"{GAME}[data-version]")
    moves = 0
    while wait_turn_or_over(page) == "mine":
        play_first_legal(page)
        moves += 1
        assert moves < 40
    page.wait_for_selector("#end-explain p")
    lines = [page.inner_text("#outcome-reason"), *page.locator("#end-explain p").all_inner_texts()]
    assert len(lines) == len(set(lines)), lines  # no sentence twice
    text = "\n".join(lines)
    assert re.search(r"\b[TBUK]\d", text) is None, text  # no Latin ticket letters in the prose
    assert re.search(r"[ТАМЧ]\d", text), text  # the last move, in the chips' letters
    m = re.search(r"заполнил (\d+) (клетку|клетки|клеток) путевого листа и показался (\d+) (раза|раз)\.", text)
    assert m, text
    slots, reveals = int(m.group(1)), int(m.group(3))
    assert m.group(4) == ru_times(reveals)
    assert m.group(2) == ("клетку" if slots % 10 == 1 and slots % 100 != 11 else "клетки"
                          if slots % 10 in (2, 3, 4) and slots % 100 not in (12, 13, 14) else "клеток")
    in_viewport(page, "#outcome-title")
    page.screenshot(path=str(artifacts / f"end-ru-{size}.png"))


@pytest.mark.parametrize("size", list(SIZES))
def test_a_mistyped_address_answers_a_page(server: str, new_page: Any, artifacts: Path, size: str) -> None:
    page = new_page(**SIZES[size])
    res = page.goto(server + "/gmae/abc")
    assert res.status == 404 and res.headers["content-type"].startswith("text/html")
    page.wait_for_selector("body[data-ready='1']")
    assert page.inner_text("h1") == "Page not found"
    assert page.inner_text("#missing-path") == "/gmae/abc"
    for sel in ("h1", "#missing-path", "#app a.btn-primary"):
        in_viewport(page, sel)
    page.screenshot(path=str(artifacts / f"missing-{size}.png"))
    api = httpx.get(server + "/api/nope", timeout=10)  # the API keeps answering JSON
    assert api.status_code == 404 and api.json() == {"detail": "Not Found"}
