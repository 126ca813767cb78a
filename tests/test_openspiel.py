"""OpenSpiel: the registered Python game passes random_sim_test, OpenSpiel's ISMCTS bot plays
a whole game, infostate resampling keeps the detectives' information, serialize round-trips."""

from __future__ import annotations

import numpy as np

# the openspiel extra is part of the test command's install: a missing package fails, never skips
import pyspiel  # noqa: E402
import pytest

import scotlandyard.env.openspiel  # noqa: E402,F401  (registers the game)
from scotlandyard.env import ObservationLayout  # noqa: E402


@pytest.mark.parametrize("preset", ["classic", "new_edition_2p"])
def test_random_sim_test_passes(preset: str) -> None:
    game = pyspiel.load_game("python_scotland_yard", {"preset": preset, "seed": 2})
    pyspiel.random_sim_test(game, num_sims=2, serialize=False, verbose=False)


def test_tensors_strings_and_players() -> None:
    game = pyspiel.load_game("python_scotland_yard", {"preset": "new_edition", "detectives": 3})
    s = game.new_initial_state()
    assert game.num_players() == 2 and game.num_distinct_actions() == 2393
    assert s.current_player() == 0
    t0, t1 = np.array(s.information_state_tensor(0)), np.array(s.information_state_tensor(1))
    lay = ObservationLayout.make()
    assert t0.shape == (lay.size,) and lay.split(t0)["stations"][0].any()  # Mr X sees himself
    assert not lay.split(t1)["stations"][0].any()  # the detectives do not
    assert '"side": "detectives"' in s.information_state_string(1)


def test_resample_keeps_the_detectives_information_and_serialize_round_trips() -> None:
    game = pyspiel.load_game("python_scotland_yard", {"preset": "classic", "seed": 5})
    s = game.new_initial_state()
    rng = np.random.default_rng(5)
    while s.match.game.round < 5 or s.current_player() != 1 or len(s.match.game.possible_locations()) < 4:
        s.apply_action(int(rng.choice(s.legal_actions())))
        assert not s.is_terminal()
    moved = 0
    for k in range(6):
        r = s.resample_from_infostate(1, lambda k=k: (k + 0.5) / 6)
        assert r.information_state_string(1) == s.information_state_string(1)
        assert r.legal_actions() == s.legal_actions()
        moved += r.match.game.station("X") != s.match.game.station("X")
    assert moved  # the hidden station is resampled, not copied
    assert s.resample_from_infostate(0, lambda: 0.3).information_state_string(0) == \
        s.information_state_string(0)
    back = game.deserialize_state(s.serialize())
    assert back.history() == s.history() and str(back) == str(s)


def test_ismcts_bot_plays_a_full_game() -> None:
    from open_spiel.python.algorithms import ismcts, mcts

    game = pyspiel.load_game("python_scotland_yard", {"preset": "classic", "detectives": 3, "seed": 1})
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=np.random.RandomState(1))
    bots = [ismcts.ISMCTSBot(game, evaluator, uct_c=2.0, max_simulations=4,
                             random_state=np.random.RandomState(p)) for p in range(2)]
    s = game.new_initial_state()
    while not s.is_terminal():
        s.apply_action(bots[s.current_player()].step(s))
    assert sorted(s.returns()) == [-1.0, 1.0]
