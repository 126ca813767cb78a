"""The translation files of the web app: same keys in all four languages, no empty values,
the same {placeholders}, and every key the pages use exists (and none is dead)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from scotlandyard import Rules
from scotlandyard.game import Reason, Winner

STATIC = Path(__file__).resolve().parents[2] / "scotlandyard" / "server" / "static"
LANGS = ("en", "it", "pl", "ru")

# Keys built at run time from values (see the JS): the families and their members.
ERROR_CODES = ("bad_json", "bad_message", "unknown_type", "illegal_move", "not_your_turn",
               "not_allowed", "bad_token", "too_large", "game_over", "rate_limited", "unknown")
DYNAMIC = {
    "error": ERROR_CODES,
    "outcome.reason": tuple(r.value for r in Reason),
    "outcome": tuple(w.value for w in Winner),
    "preset": Rules.BOOK_PRESETS,
    "preset_info": Rules.BOOK_PRESETS,
    "role": ("mr_x", "detectives", "spectator", "hotseat"),
    "conn": ("connecting", "open", "closed", "rejected"),
    "ticket": ("taxi", "bus", "underground", "black", "double", "ferry"),
    "ticket_short": ("taxi", "bus", "underground", "black", "double"),
    "hotseat": ("pass_mr_x", "pass_detectives", "ready_mr_x", "ready_detectives"),
    "level": ("random", "easy", "medium", "hard", "max"),
    "quick.hint": ("random", "easy", "medium", "hard", "max"),  # lobby.js quickHint
    "link": ("all", "X", "detectives", "spectator", "piece"),
}


def load(lang: str) -> dict[str, str]:
    return json.loads((STATIC / "i18n" / f"{lang}.json").read_text(encoding="utf-8"))


def sources() -> str:
    parts = [(STATIC / "index.html").read_text(encoding="utf-8")]
    parts += [p.read_text(encoding="utf-8") for p in sorted((STATIC / "js").glob("*.js"))]
    return "\n".join(parts)


@pytest.mark.parametrize("lang", LANGS[1:])
def test_translation_has_exactly_the_english_keys(lang: str) -> None:
    en, other = load("en"), load(lang)
    assert sorted(set(en) - set(other)) == [], f"{lang} lacks keys"
    assert sorted(set(other) - set(en)) == [], f"{lang} has extra keys"


@pytest.mark.parametrize("lang", LANGS)
def test_translation_has_no_empty_values(lang: str) -> None:
    strings = load(lang)
    empty = [k for k, v in strings.items() if not isinstance(v, str) or not v.strip()]
    assert empty == []


@pytest.mark.parametrize("lang", LANGS[1:])
def test_translation_keeps_the_placeholders(lang: str) -> None:
    en, other = load("en"), load(lang)
    wrong = {k: (sorted(set(re.findall(r"\{(\w+)\}", en[k]))), sorted(set(re.findall(r"\{(\w+)\}", v))))
             for k, v in other.items()
             if set(re.findall(r"\{(\w+)\}", en[k])) != set(re.findall(r"\{(\w+)\}", v))}
    assert wrong == {}


def test_every_key_the_pages_use_is_translated() -> None:
    en = load("en")
    text = sources()
    literal = set(re.findall(r"\bt\(\s*\"([a-z_]+(?:\.[a-z_]+)+)\"", text))
    literal |= set(re.findall(r"data-i18n(?:-[a-z]+)?=\"([^\"]+)\"", text))
    literal |= set(re.findall(r"\"((?:board|play|seat|replay)\.[a-z_]+)\"", text))
    assert literal, "no keys found: the scan is broken"
    assert sorted(literal - set(en)) == []
    dynamic = {f"{family}.{member}" for family, members in DYNAMIC.items() for member in members}
    assert sorted(dynamic - set(en)) == []
    # counted words (js/plural.js tp): one key per plural category, ".other" always there
    counted = set(re.findall(r"\btp\(\s*\"([a-z_]+(?:\.[a-z_]+)+)\"", text))
    assert sorted(f"{k}.other" for k in counted if f"{k}.other" not in en) == []
    dynamic |= {k for k in en if k.rsplit(".", 1)[0] in counted
                and k.rsplit(".", 1)[1] in ("zero", "one", "two", "few", "many", "other")}
    dead = sorted(set(en) - literal - dynamic)
    assert dead == [], "keys no page uses"


def test_rules_page_exists_in_every_language() -> None:
    html = (STATIC / "index.html").read_text(encoding="utf-8")
    rules_keys = set(re.findall(r"data-i18n=\"(rules\.[a-z_]+)\"", html))
    assert len(rules_keys) >= 10
    for lang in LANGS:
        strings = load(lang)
        assert all(len(strings[k]) > 3 for k in rules_keys)


# Values that may equal the English one: names and symbols the rule books print the same way.
SAME_AS_ENGLISH = {
    "app.title": LANGS[1:],            # the game's name
    "outcome.format_json": LANGS[1:],  # a file format
    "ticket.taxi": ("it",),            # "Taxi" in both Italian books
    "piece.detective": ("it",),        # "Detective" in both Italian books
    "ticket_short.taxi": ("it", "pl"),  # T for taxi / taksówka
    "ticket_short.double": ("it",),    # the 2× card (the Polish book prints 2x, the Russian 2х)
}


@pytest.mark.parametrize("lang", LANGS[1:])
def test_no_value_is_left_in_english(lang: str) -> None:
    en, other = load("en"), load(lang)
    same = sorted(k for k, v in other.items() if v == en[k] and lang not in SAME_AS_ENGLISH.get(k, ()))
    assert same == [], f"{lang}: still English"


# The terms of the printed rule books (/work/shared/seeds; see the glossary in docs/webapp.md).
BOOK_TERMS = {
    "it": {"piece.mr_x": "Mister X", "play.reveal": "Mostrati", "ticket.black": "Biglietto nero",
           "ticket.double": "Mossa doppia", "ticket.underground": "Metropolitana", "ticket.bus": "Autobus",
           "ticket.ferry": "Traghetto", "status.round": "Turno"},
    "pl": {"piece.mr_x": "Mister X", "ticket.black": "Czarny bilet", "ticket.double": "Podwójny ruch",
           "ticket.taxi": "Taksówka", "ticket.ferry": "Łódź", "status.round": "Runda"},
    "ru": {"piece.mr_x": "Мистер Х", "ticket.black": "Черный билет", "ticket.double": "Двойной ход",
           "ticket.ferry": "Лодка"},
}
LOG_NAME = {"it": "tabella itinerario", "pl": "tablica ruchów", "ru": "путевой лист"}
# words the books do not use (or use for something else) and that must not creep back
NOT_BOOK = {
    "it": ("diario", "battell", "vaporett", "mostrami", "black ticket"),
    "pl": ("pan x", "pana x", "panu x", "prom", "statk", "dziennik"),
    "ru": ("икс", "mister", "паром", "катер", "журнал", "чёрн", "раунд"),
}


@pytest.mark.parametrize("lang", LANGS[1:])
def test_translation_uses_the_rule_books_terms(lang: str) -> None:
    strings = load(lang)
    assert {k: strings[k] for k in BOOK_TERMS[lang]} == BOOK_TERMS[lang]
    assert LOG_NAME[lang] in strings["log.title"].lower()
    assert LOG_NAME[lang] in strings["verify.title"].lower()
    found = sorted((k, w) for k, v in strings.items() for w in NOT_BOOK[lang] if w in v.lower())
    assert found == []
    # Russian: Mr X's letter is the Cyrillic Х, as printed
    if lang == "ru":
        assert all("Мистер X" not in v for v in strings.values())
