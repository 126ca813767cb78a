"""``benchmarks/server_attack.py`` at a small size, so its three attacks keep working: a few
whole AI games audited frame by frame, 250 malformed messages of every kind each answered by
an error with the games unchanged, and two SIGKILLs with every acknowledged move found."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import load_benchmark

pytestmark = pytest.mark.timeout(300)


def test_the_three_attacks_at_a_small_size_find_nothing(tmp_path: Path) -> None:
    attack = load_benchmark("server_attack")
    leaks = attack.run_leaks(tmp_path, games=4, parallel=4)
    assert leaks.failures == [] and leaks.counts["games"] == 4
    assert leaks.counts["frames"] > 200 and leaks.counts["hidden slots"] > 10
    fuzz = attack.run_fuzz(tmp_path, total=250, seed=3)
    assert fuzz.failures == [] and fuzz.counts["messages"] >= 250
    assert fuzz.counts["kinds"] >= 20 and "bad_message" in fuzz.counts["answers"]
    kills = attack.run_kills(tmp_path, kills=2, seed=3)
    assert kills.failures == [] and kills.counts["kills"] == 2
    assert kills.counts["acknowledged moves (each found after the restart)"] > 0


def test_the_takeback_attack_finds_nothing(tmp_path: Path) -> None:
    """Issue 28 §1 at a small size: two games against a computer Mr X, a takeback at his
    reveal refused each time, no move of his undone, no station lost."""
    attack = load_benchmark("server_attack")
    v = attack.run_takeback(tmp_path, games=2, level="random")
    assert v.failures == [], v.failures
    assert v.counts["reveal: asked"] == v.counts["reveal: refused"] == 2
    assert v.counts["stations lost"] == 0 and v.counts["Mr X moves undone"] == 0
