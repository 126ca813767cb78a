"""Small boards (``scotlandyard.small_boards``): sub-graphs of the classic board selectable in
``Rules``, the envs and OpenSpiel, and exact CFR exploitability falling on the tiniest one."""

from __future__ import annotations

import random

import numpy as np
import pyspiel
import pytest
from pettingzoo.test import api_test

import scotlandyard.env.openspiel  # noqa: F401  (registers the game)
from scotlandyard import Game, Rules
from scotlandyard.board import london
from scotlandyard.env import BatchSim, Encoder, aec_env, encode_view
from scotlandyard.rules import RulesError
from scotlandyard.small_boards import SMALL_PRESETS, SUB_BOARDS, preset_rules, small_rules

from .test_env_encoding import engine_actions, walk


@pytest.mark.parametrize("name", sorted(SUB_BOARDS))
def test_a_small_board_is_the_classic_links_between_its_stations(name: str) -> None:
    keep = set(SUB_BOARDS[name])
    small, classic = london(name), london("classic")  # type: ignore[arg-type]
    for t, links in small.edges.items():
        assert set(links) == {e for e in classic.edges[t] if set(e) <= keep}
    linked = {s for s in small.all_stations if small.any_neighbours(s)}
    assert linked == keep  # every station of the board has a link, nothing else has one
    for a in keep:  # connected, and the distances are the small board's own
        assert all(small.distance(a, b) < 255 for b in keep)
        assert all(small.distance(a, b) >= classic.distance(a, b) for b in keep)


def test_small_presets_are_rules_with_their_board() -> None:
    for name in SMALL_PRESETS:
        rules = small_rules(name)
        assert rules.board == name and rules.variant == name
        assert Rules.from_dict(rules.to_dict()) == rules
        assert set(rules.start_deck_mr_x) | set(rules.start_deck_detectives) <= set(SUB_BOARDS[name])
        assert preset_rules(name) == rules
    assert preset_rules("classic") == Rules.classic()
    assert small_rules("tiny", last_round=2).last_round == 2
    with pytest.raises(RulesError, match="tiny"):
        Rules.classic(board="glasses")  # the message lists the boards
    with pytest.raises(ValueError, match="unknown small preset"):
        small_rules("glasses")


@pytest.mark.parametrize("name", sorted(SMALL_PRESETS))
def test_masks_and_observations_on_small_boards(name: str) -> None:
    rules = small_rules(name)
    enc = Encoder(rules, board_features=True)
    low, high = enc.layout.bounds()
    keep = set(SUB_BOARDS[name])
    for seed in range(6):
        for m in walk(rules, seed):
            g = m.game
            assert set(g.stations.values()) <= keep
            if m.selected is None:
                break
            assert set(m.legal_actions()) == engine_actions(m)
            for viewer in ("X", "D1"):
                pending = m.pending if viewer == "X" else None
                fast = enc.encode(g, viewer, selected=m.selected, pending=pending)
                ref = encode_view(g.view(viewer), selected=m.selected, pending=pending,
                                  layout=enc.layout)
                assert np.array_equal(fast, ref)
                assert (fast >= low).all() and (fast <= high).all()


def test_envs_and_batch_sim_take_a_small_preset_by_name() -> None:
    api_test(aec_env("tiny"), num_cycles=60)
    sim = BatchSim(200, small_rules("corner"), seed=3)
    sim.run()
    assert sim.stats()["games"] == 200
    g = Game.new(small_rules("small"), seed=4)
    assert g.stations["D1"] in (19, 33)


def test_openspiel_random_start_is_a_chance_node_over_mr_x_starts() -> None:
    game = pyspiel.load_game("python_scotland_yard", {"preset": "tiny", "random_start": True})
    pyspiel.random_sim_test(game, num_sims=5, serialize=True, verbose=False)
    root = game.new_initial_state()
    assert root.is_chance_node()
    assert root.chance_outcomes() == [(1, 1 / 3), (18, 1 / 3), (20, 1 / 3)]
    states = [root.child(s) for s in (1, 18, 20)]
    assert {s.match.game.station("X") for s in states} == {1, 18, 20}
    # the detectives cannot tell the starts apart; Mr X can
    assert len({s.information_state_string(1) for s in states}) == 1
    assert len({s.information_state_string(0) for s in states}) == 3
    s = states[1]
    rng = random.Random(1)
    while not s.is_terminal() and s.current_player() != 1:
        s.apply_action(rng.choice(s.legal_actions()))
    back = game.deserialize_state(s.serialize())
    assert back.history() == s.history() and str(back) == str(s)
    r = s.resample_from_infostate(1, lambda: 0.7)
    assert r.information_state_string(1) == s.information_state_string(1)
    assert r.history()[0] in (1, 18, 20)


def test_cfr_exploitability_falls_on_the_tiny_board() -> None:
    """OpenSpiel's CFR on ``tiny`` (Mr X's start by chance): exact exploitability of the
    average policy falls from the uniform policy's, iteration after iteration."""
    from open_spiel.python import policy as os_policy
    from open_spiel.python.algorithms import cfr, exploitability

    game = pyspiel.load_game("python_scotland_yard", {"preset": "tiny", "random_start": True})
    uniform = exploitability.exploitability(game, os_policy.UniformRandomPolicy(game))
    solver = cfr.CFRSolver(game)
    seen = []
    for it in range(1, 9):
        solver.evaluate_and_update_policy()
        if it in (2, 4, 8):
            seen.append(exploitability.exploitability(game, solver.average_policy()))
    assert uniform > 0.2
    assert uniform > seen[0] > seen[1] > seen[2]
    assert seen[2] < uniform / 2
