"""benchmarks/nw_ablation.py: the arms it parses and the starts it deals (issue 24, item 1)."""

from __future__ import annotations

from pathlib import Path

import pytest

from scotlandyard import Game
from scotlandyard.ai.arena.config import game_seed
from scotlandyard.ai.mcts import NW_OFF, NW_SETTINGS
from tests.conftest import load_benchmark

ab = load_benchmark("nw_ablation")


def test_an_arm_changes_the_sides_it_names_and_nothing_else() -> None:
    assert ab.parse_arm("base") == {"mr_x": {}, "detectives": {}}
    assert ab.parse_arm('detectives:keep_tree=true+both:c=0.2+mr_x:coalition="piece"') == {
        "mr_x": {"c": 0.2, "coalition": "piece"},
        "detectives": {"keep_tree": True, "c": 0.2}}
    with pytest.raises(SystemExit, match="side:key=value"):
        ab.parse_arm("seekers:c=0.2")
    cfg = ab.arm_config("detectives:keep_tree=true", 1000, 11)
    assert cfg.mr_x_options == {**NW_SETTINGS, **NW_OFF, "playouts": 1000}
    assert cfg.detectives_options == {**NW_SETTINGS, **NW_OFF, "playouts": 1000,
                                      "keep_tree": True}


def test_separate_decks_deal_mr_x_from_his_own_cards_and_shared_from_one_deck() -> None:
    shared = ab.arm_config("base", 1000, 11).rules
    separate = ab.arm_config("base", 1000, 11, decks="separate").rules
    assert set(ab.MR_X_CARDS).isdisjoint(ab.DETECTIVE_CARDS)
    assert len(ab.MR_X_CARDS) == 13 and len(ab.DETECTIVE_CARDS) == 18
    x_starts, d_starts, shared_x = set(), set(), set()
    for index in range(40):
        seed = game_seed(11, index, "start")
        game = Game.new(separate, seed=seed)
        start = game.start
        x_starts.add(start["X"])
        d_starts |= {s for piece, s in start.items() if piece != "X"}
        assert len(set(start.values())) == 6
        shared_x.add(Game.new(shared, seed=seed).start["X"])
    assert x_starts <= set(ab.MR_X_CARDS) and len(x_starts) > 5
    assert d_starts <= set(ab.DETECTIVE_CARDS) and len(d_starts) > 10
    # the classic book's one deck: Mr X also draws the detectives' cards
    assert shared_x & set(ab.DETECTIVE_CARDS)


def test_arm_files_are_named_by_arm_playouts_and_sample(tmp_path: Path) -> None:
    path = ab.arm_file(tmp_path, 'detectives:mr_x_nodes="seen"', 1000, 2012)
    assert path.name == "detectives_mr_x_nodes=_seen_-1000-seed2012.jsonl"
    assert ab.load(path) == {}
