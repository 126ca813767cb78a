"""The computer analysis (``scotlandyard.ai.review``, ``scotlandyard analyse``)."""

from __future__ import annotations

import json
import random

import pytest
from typer.testing import CliRunner

from scotlandyard import Game, Record, Rules
from scotlandyard.ai import Budget, make_agent
from scotlandyard.ai.review import THRESHOLDS, label_for, review
from scotlandyard.cli import app
from scotlandyard.move import MR_X

pytestmark = pytest.mark.timeout(300)


def _game(seed: int, detectives: int = 3) -> Game:
    game = Game.new(Rules.classic(detectives=detectives), seed=seed)
    rng = random.Random(seed)
    ax, ad = make_agent("heuristic", side="mr_x"), make_agent("random", side="detectives")
    while not game.is_over():
        v = game.view(game.to_move)
        game.push((ax if game.to_move == MR_X else ad).choose(v, v.legal_moves, rng,
                                                              Budget(playouts=50)))
    return game


def _missed_capture() -> tuple[Game, int]:
    """A game cut right after a detective walked away from a capture he had: Mr X was seen,
    he could only be on one station, the detective could step onto it and did not."""
    for seed in range(200):
        game = Game.new(Rules.classic(detectives=3), seed=seed)
        rng = random.Random(seed)
        ax, ad = make_agent("random", side="mr_x"), make_agent("heuristic", side="detectives")
        while not game.is_over():
            piece = game.to_move
            v = game.view(piece)
            if piece != MR_X and len(v.possible) == 1:
                (x,) = v.possible
                moves = v.legal_moves
                if any(m.to == x for m in moves):
                    away = [m for m in moves if m.to != x]
                    if away:
                        game.push(away[0])
                        return game, x
            game.push((ax if piece == MR_X else ad).choose(v, v.legal_moves, rng,
                                                           Budget(playouts=50)))
    raise AssertionError("no missed capture found")


def test_labels_follow_the_documented_thresholds() -> None:
    assert [n for n, _ in THRESHOLDS] == ["blunder", "mistake", "inaccuracy"]
    assert label_for(0.05) is None and label_for(0.1) == "inaccuracy"
    assert label_for(0.25) == "mistake" and label_for(0.31) == "blunder"


def test_the_estimates_cover_every_position_and_end_at_the_result() -> None:
    game = _game(4)
    r = review(game, playouts=60)
    assert len(r.mr_x) == len(r.detectives) == len(game.moves) + 1 == len(r.plies) + 1
    assert all(0.0 <= v <= 1.0 for v in r.mr_x + r.detectives)
    won = 1.0 if game.outcome().winner == "mr_x" else 0.0
    assert r.mr_x[-1] == r.detectives[-1] == won
    assert [p.ply for p in r.plies] == list(range(1, len(game.moves) + 1))
    d = r.to_dict()
    assert json.loads(json.dumps(d))["thresholds"]["blunder"] == 0.30
    # the moments are the labelled moves, the costliest first
    losses = [r.plies[m - 1].loss for m in r.moments]
    assert losses == sorted(losses, reverse=True)
    assert all(r.plies[m - 1].label for m in r.moments)


def test_a_missed_capture_is_a_blunder_with_the_capture_as_the_computers_move() -> None:
    game, x = _missed_capture()
    r = review(game, playouts=100)
    last = r.plies[-1]
    assert last.label == "blunder", last
    assert last.best_to == x and last.best_estimate == 0.0
    assert r.moments[0] == last.ply


def test_the_command_prints_the_labelled_moves_and_refuses_a_public_record(tmp_path) -> None:  # type: ignore[no-untyped-def]
    game, x = _missed_capture()
    path = tmp_path / "g.sy"
    Record.from_game(game).save(path)
    runner = CliRunner()
    res = runner.invoke(app, ["analyse", str(path), "--playouts", "100"])
    assert res.exit_code == 0, res.output
    assert "blunder" in res.output and f"{x} (0%)" in res.output
    res = runner.invoke(app, ["analyse", str(path), "--playouts", "100", "--json"])
    body = json.loads(res.output)
    assert body["plies"][-1]["label"] == "blunder" and body["playouts"] == 100
    pub = tmp_path / "p.sy"
    Record.from_game(game).public().save(pub)
    res = runner.invoke(app, ["analyse", str(pub)])
    assert res.exit_code == 1 and "public record" in res.output
