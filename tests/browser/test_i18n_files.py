"""The translation files of the web app: same keys in all four languages, no empty values,
the same {placeholders}, and every key the pages use exists (and none is dead)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import get_args

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
    "outcome.reason": get_args(Reason),
    "outcome": get_args(Winner),
    "preset": Rules.PRESETS,
    "preset_info": Rules.PRESETS,
    "role": ("mr_x", "detectives", "spectator", "hotseat"),
    "conn": ("connecting", "open", "closed", "rejected"),
    "ticket": ("taxi", "bus", "underground", "black", "double", "ferry"),
    "ticket_short": ("taxi", "bus", "underground", "black", "double"),
    "hotseat": ("pass_mr_x", "pass_detectives", "ready_mr_x", "ready_detectives"),
    "level": ("random", "easy", "medium", "hard", "max"),
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
    dead = sorted(set(en) - literal - dynamic)
    assert dead == [], "keys no page uses"


def test_rules_page_exists_in_every_language() -> None:
    html = (STATIC / "index.html").read_text(encoding="utf-8")
    rules_keys = set(re.findall(r"data-i18n=\"(rules\.[a-z_]+)\"", html))
    assert len(rules_keys) >= 10
    for lang in LANGS:
        strings = load(lang)
        assert all(len(strings[k]) > 3 for k in rules_keys)
