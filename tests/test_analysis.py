"""The post-game analysis (scotlandyard.analysis) and ``scotlandyard replay --plot``."""

from __future__ import annotations

import random
from pathlib import Path

from typer.testing import CliRunner

from scotlandyard import Game, Record, Rules
from scotlandyard.analysis import analyse
from scotlandyard.belief import possible_history
from scotlandyard.cli import app


def finished(seed: int) -> Game:
    game = Game.new(Rules.preset("classic"), seed=seed)
    rng = random.Random(seed)
    while not game.is_over():
        game.push(rng.choice(game.legal_moves()))
    return game


def test_analysis_matches_the_belief_and_the_true_path() -> None:
    game = finished(3)
    data = analyse(game)
    log = game.log
    assert [s["slot"] for s in data["slots"]] == [e.slot for e in log]
    counts = {slot: len(p) for slot, _r, p in possible_history(game.view("spectator"))}
    assert all(s["possible"] == counts[s["slot"]] for s in data["slots"])
    for s, e in zip(data["slots"], log, strict=True):
        if s["p_true"] is not None:
            assert 0 < s["p_true"] <= 1  # his true station is always possible
        if e.reveal and s["p_true"] is not None:
            assert s["p_true"] == 1.0 and s["possible"] == 1
        # the first step of a double move has no map of its own
        first_of_double = e.double and any(f.round == e.round and f.slot == e.slot + 1 for f in log)
        assert (s["p_true"] is None) == first_of_double
    assert data["black"] == [e.slot for e in log if e.ticket.name == "BLACK"]
    assert data["doubles"] == sorted({e.round for e in log if e.double})
    # the closest moments are the rounds of least distance to the nearest detective
    smallest = sorted(r["distance"] for r in data["rounds"])[:3]
    assert sorted(c["distance"] for c in data["closest"]) == smallest
    assert [c["round"] for c in data["closest"]] == sorted(c["round"] for c in data["closest"])
    outcome = game.outcome() if callable(game.outcome) else game.outcome
    if outcome.reason == "caught":
        assert data["rounds"][-1]["distance"] == 0


def test_replay_plot_writes_a_png_and_refuses_a_public_record(tmp_path: Path) -> None:
    record = Record.from_game(finished(4))
    full = record.save(tmp_path / "game.sy")
    out = tmp_path / "chart.png"
    res = CliRunner().invoke(app, ["replay", str(full), "--plot", str(out)])
    assert res.exit_code == 0, res.output
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and out.stat().st_size > 10_000
    assert "Closest to capture" in res.output
    public = record.public(reveal_finished=False).save(tmp_path / "public.sy")
    res = CliRunner().invoke(app, ["replay", str(public), "--plot", str(tmp_path / "p.png")])
    assert res.exit_code != 0 and "public record" in res.output
    assert not (tmp_path / "p.png").exists()
