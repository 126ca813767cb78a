"""The ladder: Bradley–Terry per side recovers known ratings; a tiny pool runs, resumes,
rates a new agent, and writes table, JSON and plot."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from scotlandyard.ai.arena.ladder import (
    ELO,
    LADDER_VERSION,
    POOL_V1,
    LadderConfig,
    fit_ratings,
    run_ladder,
)


def test_bradley_terry_per_side_recovers_known_ratings() -> None:
    rng = np.random.default_rng(0)
    true = np.array([[0.0, 1.0, 2.0], [-0.5, 0.5, 1.5]])  # Mr X, detectives; member 0 anchored
    true -= true[:, 0].mean()
    x = rng.integers(0, 3, 20_000)
    d = (x + rng.integers(1, 3, 20_000)) % 3
    p = 1 / (1 + np.exp(-(true[0, x] - true[1, d])))
    y = (rng.random(20_000) < p).astype(float)
    r = fit_ratings(x, d, y, 3, anchor=0)
    assert np.allclose(r, true, atol=0.15)  # about 3 standard errors at 20,000 games
    assert np.isclose(r[:, 0].mean(), 0.0)


def test_a_member_that_always_wins_gets_a_finite_rating() -> None:
    x = np.array([0, 1] * 20)
    d = np.array([1, 0] * 20)
    y = np.array([1.0, 0.0] * 20)  # member 0 wins both roles every time
    r = fit_ratings(x, d, y, 2, anchor=1)
    assert np.isfinite(r).all() and r[0, 0] > r[0, 1] and r[1, 0] > r[1, 1]


def test_tiny_ladder_runs_resumes_and_rates_a_new_agent(tmp_path: Path) -> None:
    cfg = LadderConfig(preset="classic", pairs=2, seed=1, members=("random", "heuristic"),
                       agent="tests.policy_fixtures:first_legal", bootstrap=20)
    res = run_ladder(cfg, tmp_path, progress=False, plot=True)
    assert res.games + res.errors == 3 * 2 * 2  # 6 ordered pairs, 2 paired seeds each
    assert set(res.ratings) == {"random", "heuristic", "tests.policy_fixtures:first_legal"}
    r = res.ratings["random"]
    assert abs(r["mr_x"] + r["detectives"]) < 1e-6  # the anchor
    for lab, iv in res.intervals.items():
        for side in ("mr_x", "detectives", "overall"):
            assert iv[side][0] <= res.ratings[lab][side] + 1e-6 <= iv[side][1] + 2e-6, (lab, side)
    data = json.loads((tmp_path / "ladder.json").read_text())
    assert data["config"]["version"] == LADDER_VERSION and data["config"]["full_pool"] is False
    assert (tmp_path / "ladder.png").stat().st_size > 1000
    assert "| heuristic |" in (tmp_path / "ladder.txt").read_text()
    # paired seeds: game i of A-B and of B-A start from the same stations
    a = json.loads((tmp_path / "matches/random__heuristic/games/000001.json").read_text())
    b = json.loads((tmp_path / "matches/heuristic__random/games/000001.json").read_text())
    assert a["start"] == b["start"]
    # resumable: a second run plays nothing new and gives the same ratings
    manifest = (tmp_path / "matches/random__heuristic/manifest.jsonl").read_text()
    again = run_ladder(cfg, tmp_path, progress=False)
    assert (tmp_path / "matches/random__heuristic/manifest.jsonl").read_text() == manifest
    assert again.ratings == res.ratings


def test_ladder_command_and_bad_members(tmp_path: Path) -> None:
    from scotlandyard.cli import app

    runner = CliRunner()
    res = runner.invoke(app, ["ladder", "--out", str(tmp_path), "--members", "random,nobody"])
    assert res.exit_code == 2 and "no pool member nobody" in res.output
    res = runner.invoke(app, ["ladder", "--out", str(tmp_path), "--members", "random,heuristic",
                              "--pairs", "1", "--bootstrap", "5", "--json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.output)["games"] == 2


def test_the_v1_pool_is_fixed() -> None:
    """Changing the pool is a new ladder version: this list is the definition of v1."""
    assert [(m.label, m.agent, m.options) for m in POOL_V1] == [
        ("random", "random", {}), ("heuristic", "heuristic", {}), ("lookahead", "lookahead", {}),
        ("easy", "easy", {}), ("medium", "medium", {}), ("hard", "hard", {}),
        ("nw-200", "nw", {"playouts": 200}), ("nw-2000", "nw", {"playouts": 2000})]
    assert ELO == pytest.approx(173.7178, abs=1e-3)
