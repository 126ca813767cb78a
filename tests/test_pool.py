"""benchmarks/pool.py: pooling real arena run folders over start samples, and its refusals."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scotlandyard import Rules
from scotlandyard.ai.arena import ArenaConfig, run_arena
from tests.conftest import load_benchmark

pool = load_benchmark("pool")


def _run(tmp: Path, name: str, seed: int, games: int, detectives: str) -> Path:
    out = tmp / f"{name}-{seed}"
    run_arena(ArenaConfig(mr_x="random", detectives=detectives, games=games,
                          rules=Rules.classic(detectives=5), seed=seed, workers=1),
              out, progress=False)
    return out


def test_pool_prints_each_sample_pooled_and_the_paired_comparison(tmp_path, capsys):
    folders = {(a, s): _run(tmp_path, a, s, 6, det)
               for a, det in (("cal", "cal"), ("random", "random")) for s in (1, 2)}
    wins = {k: json.loads((f / "results.json").read_text())["win_rate"]["detectives"]["wins"]
            for k, f in folders.items()}
    assert pool.main(["--side", "detectives", "--against", "random", "--aim", "10",
                      "--arm", f"cal={folders['cal', 1]},{folders['cal', 2]}",
                      "--arm", f"random={folders['random', 1]},{folders['random', 2]}"]) == 0
    out = capsys.readouterr().out
    rows = {line.split(" | ")[0].strip("| "): line for line in out.splitlines()[2:]}
    cal = rows["cal"].split(" | ")
    assert cal[1] == f"{wins['cal', 1]}/6" and cal[2] == f"{wins['cal', 2]}/6"
    total = wins["cal", 1] + wins["cal", 2]
    assert cal[3].startswith(f"{total}/12 ")
    diff = (total - wins["random", 1] - wins["random", 2]) / 12 * 100
    assert cal[6] == f"{diff:+.1f}"
    assert cal[-1].strip(" |") in ("met", "not met")


def test_pool_refuses_unpaired_arms_and_folders_that_are_not_runs(tmp_path):
    a = _run(tmp_path, "a", 1, 4, "cal")
    b = _run(tmp_path, "b", 1, 3, "cal")
    with pytest.raises(SystemExit, match="not the same starts"):
        pool.main(["--side", "detectives", "--against", "b", "--arm", f"a={a}",
                   "--arm", f"b={b}"])
    with pytest.raises(SystemExit, match="same seed"):
        pool.main(["--side", "mr_x", "--arm", f"a={a},{b}"])
    with pytest.raises(SystemExit, match="no results.json"):
        pool.main(["--side", "mr_x", "--arm", f"a={tmp_path}"])
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "results.json").write_text("{\"win_rate\": 3}")
    with pytest.raises(SystemExit, match="not an arena results file"):
        pool.main(["--side", "mr_x", "--arm", f"a={tmp_path / 'bad'}"])


def test_pool_first_n_games_pairs_a_longer_run_of_the_same_seed(tmp_path, capsys):
    long = _run(tmp_path, "long", 3, 6, "cal")
    short = _run(tmp_path, "short", 3, 4, "cal")
    with pytest.raises(SystemExit, match="not the same starts"):
        pool.main(["--side", "detectives", "--against", "short", "--arm", f"long={long}",
                   "--arm", f"short={short}"])
    assert pool.main(["--side", "detectives", "--against", "short", "--first", "4",
                      "--arm", f"long={long}", "--arm", f"short={short}"]) == 0
    rows = {line.split(" | ")[0].strip("| "): line.split(" | ")
            for line in capsys.readouterr().out.splitlines()[2:]}
    short_wins = json.loads((short / "results.json").read_text())["win_rate"]["detectives"]["wins"]
    assert rows["short"][1] == f"{short_wins}/4"
    assert rows["long"][1] == f"{short_wins}/4"  # game i of a seed is the same game
    assert rows["long"][5] == "+0.0"
    with pytest.raises(SystemExit, match="needs games 0-6 decided; 1 are not"):
        pool.main(["--side", "detectives", "--first", "7", "--arm", f"long={long}"])
    (tmp_path / "torn").mkdir()
    (tmp_path / "torn" / "results.json").write_text((short / "results.json").read_text())
    first_line = (short / "manifest.jsonl").read_text().splitlines()[0]
    (tmp_path / "torn" / "manifest.jsonl").write_text(first_line + "\nnot json\n")
    with pytest.raises(SystemExit, match="line 2 is not an arena manifest line"):
        pool.main(["--side", "detectives", "--first", "1", "--arm", f"a={tmp_path / 'torn'}"])
