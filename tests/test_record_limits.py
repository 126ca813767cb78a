"""Hostile record files (issue 10, finding 8): deep nesting, endless numbers, stations off the
board, huge files. ``scotlandyard check`` answers each with a clear error, no traceback, under a
memory limit."""

from __future__ import annotations

import json
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
