"""Loose input (issue 25, item 8): a value of the wrong type or range gets a clear TypeError or
ValueError naming what is expected, and a preset name works wherever a ``Rules`` value does."""

from __future__ import annotations

import numpy as np
import pytest

from scotlandyard import Game, GameError, Move, Rules
from scotlandyard.env import BatchSim
from scotlandyard.rules import RulesError, as_rules


@pytest.mark.parametrize("seed", ["7", 7.5, True, b"7", [7]])
def test_a_seed_of_another_type_is_refused(seed: object) -> None:
    with pytest.raises(TypeError, match=r"seed is a whole number >= 0 or None, not "):
        Game.new(seed=seed)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"seed is a whole number"):
        Game.draw_start(Rules.classic(), seed)  # type: ignore[arg-type]


def test_a_negative_seed_is_refused_and_numpy_integers_are_seeds() -> None:
    with pytest.raises(ValueError, match=r"seed is a whole number >= 0 or None, not -1"):
        Game.new(seed=-1)
    assert Game.new(seed=np.int64(7)).stations == Game.new(seed=7).stations  # type: ignore[arg-type]
    assert Game.new(seed=np.int64(7)).seed == 7  # type: ignore[arg-type]


def test_a_preset_name_is_rules_everywhere() -> None:
    assert Game.new("classic", seed=7).stations == Game.new(Rules.classic(), seed=7).stations
    assert Game.new("tiny", seed=1).rules == Rules.preset("tiny")
    assert Game("new_edition", Game.new("new_edition", seed=3).stations).rules == \
        Rules.new_edition()
    assert BatchSim(4, "tiny", seed=1).rules == Rules.preset("tiny")
    assert BatchSim(4, rules="classic", seed=1).rules == Rules.classic()
    with pytest.raises(RulesError, match="unknown preset 'moon'"):
        Game.new("moon")
    for bad in (5, Rules.classic().to_dict()):
        with pytest.raises(TypeError, match=r"Game.new's rules is a Rules value or a preset "
                                            r"name \(classic, new_edition, .*\), not "):
            Game.new(bad)  # type: ignore[arg-type]
        with pytest.raises(TypeError, match="BatchSim's rules is a Rules value or a preset"):
            BatchSim(4, bad)  # type: ignore[arg-type]
    assert as_rules(None) == Rules.classic()


def test_push_and_why_illegal_take_the_same_moves() -> None:
    game = Game.new(Rules.classic(), seed=7)
    for bad in (92, None, ("T", 92)):
        with pytest.raises(TypeError, match=r"push takes a Move or its notation \(a str such "
                                            r"as 'T92'\), not "):
            game.push(bad)  # type: ignore[arg-type]
        assert "not a move" in (game.why_illegal(bad) or "")  # type: ignore[arg-type]
    assert game.ply == 0
    illegal = Move.parse("T92")
    assert game.why_illegal("T92") == game.why_illegal(illegal) == \
        "R-BOARD: no taxi line from 155 to 92"
    legal = game.legal_moves()[0]
    assert game.why_illegal(legal.notation()) is None
    assert game.why_illegal("T 9 2 x") is not None and \
        game.why_illegal("zz").startswith("not a move: cannot read 'zz'")  # type: ignore[union-attr]


def test_view_defaults_to_the_piece_to_move() -> None:
    game = Game.new(Rules.classic(), seed=7)
    assert game.view() == game.view(game.to_move) == game.view("X")
    game.push(game.legal_moves()[0])
    assert game.view().viewer == "D1" and game.view(None) == game.view("D1")
    finished = Game.new("tiny", seed=1)
    while not finished.is_over():
        finished.push(finished.legal_moves()[0])
    assert finished.to_move is None
    with pytest.raises(GameError, match="the game is over: no piece is to move; name the piece"):
        finished.view()
    assert finished.view("D1").is_over
