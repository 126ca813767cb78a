"""Hostile record files (issue 10, finding 8): deep nesting, endless numbers, stations off the
board, huge files. ``scotlandyard check`` answers each with a clear error, no traceback, under a
memory limit."""

from __future__ import annotations

import json
import re
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from scotlandyard import Game, Rules
from scotlandyard.record import MAX_RECORD_BYTES, Record, RecordError

pytestmark = pytest.mark.timeout(120)
MEMORY = 1 << 30  # 1 GiB of address space for the checking process


def _limit() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))


def check(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "scotlandyard", "check", str(path)],
                          capture_output=True, text=True, timeout=100, preexec_fn=_limit)


def public_record() -> dict:
    game = Game.new(Rules.classic(2), seed=1)
    return json.loads(Record.from_game(game).public().to_json())


@pytest.fixture(scope="module")
def bombs(tmp_path_factory) -> dict[str, tuple[Path, str]]:
    d = tmp_path_factory.mktemp("bombs")
    out: dict[str, tuple[Path, str]] = {}

    def put(name: str, text: str, why: str) -> None:
        (d / name).write_text(text)
        out[name] = (d / name, why)

    put("deep.json", '{"format": ' + "[" * 100_000 + "]" * 100_000 + "}", "nested")
    put("digits.json", json.dumps(public_record()).replace('"seed": null', '"seed": ' + "9" * 5000),
        "5,000 digits")
    for name, st in (("huge_start.json", 8_000_000_000), ("negative_start.json", -3)):
        rec = public_record()
        rec["start"]["D1"] = st
        put(name, json.dumps(rec), "not a station of the board")
    with open(d / "big.json", "w") as f:
        f.write('{"format": "' + "a" * (100 << 20) + '"}')
    out["big.json"] = (d / "big.json", "a record file is at most")
    return out


@pytest.mark.parametrize("name", ["deep.json", "digits.json", "huge_start.json",
                                  "negative_start.json", "big.json"])
def test_hostile_record_files_get_a_clear_error(bombs, name):
    path, why = bombs[name]
    out = check(path)
    assert out.returncode == 1, out.stderr[-2000:]
    assert "Traceback" not in out.stderr + out.stdout
    assert why in out.stderr + out.stdout


def test_the_limits_at_the_loading_entry():
    with pytest.raises(RecordError, match="nested 9 deep"):
        Record.parse('{"a": ' + "[" * 9 + "]" * 9 + "}")
    with pytest.raises(RecordError, match="digits"):
        Record.parse("[Seed " + "1" * 30 + "]\n")
    with pytest.raises(RecordError, match="characters long"):
        Record.parse(" " * (MAX_RECORD_BYTES + 1))
    rec = public_record()   # a normal record still reads, strings with brackets included
    rec["event"] = "[[[[[[[[[[{{{{{{{{ not nesting ]]]"
    assert Record.parse(json.dumps(rec)).event == rec["event"]


def _huge_lines(d: Path) -> dict[str, Path]:
    """One file for each place a record error quotes its input, each with 500,000 characters
    there (a line of ``[``, a token, a header value, a JSON field name, a piece, a hidden
    move)."""
    big = 500_000
    rec = public_record()
    files = {
        "brackets.sy": "[" * big + "\n",
        "token.sy": "1. " + "Q" * big + "\n",
        "setting.sy": '[Setting reveal_slots "' + "x" * big + '"]\n',
        "seed.sy": '[Seed "' + "s" * big + '"]\n',
        "visibility.sy": '[Visibility "' + "v" * big + '"]\n',
        "hidden.sy": '[Rules "classic"]\n1. X: T?' + "+T?" * (big // 3) + "\n",
        "field.json": json.dumps({**rec, "f" * big: 1}),
        "piece.json": json.dumps({**rec, "moves": [{"round": 1, "piece": "P" * big,
                                                     "move": "T1"}]}),
        "event.json": json.dumps({**rec, "event": ["e" * big]}),
        "settings.json": json.dumps({**rec, "rules": {f"r{i}" + "r" * 5000: 1
                                                      for i in range(90)}}),
    }
    out = {}
    for name, text in files.items():
        (d / name).write_text(text)
        out[name] = d / name
    return out


def test_an_error_quotes_at_most_80_characters_of_a_huge_line(tmp_path):
    """A record error names the bad input by its first 80 characters and '...' (before, a
    500 KB line of '[' came back whole in the error)."""
    quote = 80  # scotlandyard.record.QUOTE_LIMIT
    for name, path in _huge_lines(tmp_path).items():
        out = check(path)
        said = out.stderr + out.stdout
        assert out.returncode == 1 and "Traceback" not in said, (name, said[-500:])
        assert said.startswith("error: "), (name, said[:200])
        assert len(said) < 700, (name, len(said), said[:300])
        longest = max(len(run) for run in re.findall(r"(.)\1*", said))  # one character repeated
        assert longest <= quote, (name, longest, said)
    out = check(tmp_path / "brackets.sy")
    assert out.stderr.strip() == ("error: line 1: cannot read header '" + "[" * quote
                                  + "'... (write [Key \"value\"] or [Setting name \"value\"])")
