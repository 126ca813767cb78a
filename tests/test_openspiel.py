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
    game = pyspiel.load_game("python_scotland_yard", {"preset": "new_edition", "detectives": 3,
                                                      "random_start": False})
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
    rng = np.random.default_rng(1)
    while not s.is_terminal():
        if s.is_chance_node():  # the deal
            stations, probs = zip(*s.chance_outcomes(), strict=True)
            s.apply_action(int(rng.choice(stations, p=probs)))
            continue
        s.apply_action(bots[s.current_player()].step(s))
    assert sorted(s.returns()) == [-1.0, 1.0]


def _deal(state, rng):  # type: ignore[no-untyped-def]
    """Play the chance nodes (the deal) with ``rng``; the state after them."""
    while state.is_chance_node():
        stations, probs = zip(*state.chance_outcomes(), strict=True)
        state.apply_action(int(rng.choice(stations, p=probs)))
    return state


def test_the_default_game_deals_every_start_at_chance_nodes() -> None:
    """Before, every ``new_initial_state()`` of the default game was the same start (seed 0),
    and with ``random_start`` the detectives' stations stayed fixed by ``seed``."""
    game = pyspiel.load_game("python_scotland_yard")
    rng = np.random.default_rng(0)
    root = game.new_initial_state()
    assert root.is_chance_node() and len(root.chance_outcomes()) == 18  # D1's card: 18 left
    starts = {tuple(sorted(_deal(game.new_initial_state(), rng).match.game.start.items()))
              for _ in range(12)}
    assert len(starts) == 12  # fresh deals
    detectives = {tuple(v for k, v in s if k != "X") for s in starts}
    assert len(detectives) == 12  # the hunters' stations too, not only Mr X's
    for start in starts:
        st = dict(start)
        assert len(set(st.values())) == len(st)  # distinct stations (R-SETUP)
        assert st["X"] in game.rules.start_deck_mr_x
        assert all(v in game.rules.start_deck_detectives for k, v in st.items() if k != "X")
    seeded = [pyspiel.load_game("python_scotland_yard", {"random_start": True, "seed": k})
              for k in (0, 5)]
    assert seeded[0].new_initial_state().chance_outcomes() == \
        seeded[1].new_initial_state().chance_outcomes()  # the seed no longer fixes them


def test_the_deal_is_r_setup_s_distribution() -> None:
    """``small``: the detective from his two cards, then Mr X from his four: 8 deals, each
    1/8, the detectives' side seeing the detective's card and not Mr X's."""
    game = pyspiel.load_game("python_scotland_yard", {"preset": "small"})
    deals: dict[tuple[int, ...], float] = {}

    def walk(state, p: float) -> None:  # type: ignore[no-untyped-def]
        if not state.is_chance_node():
            g = state.match.game
            deals[tuple(g.start[piece] for piece in g.pieces)] = p
            return
        for a, q in state.chance_outcomes():
            walk(state.child(a), p * q)

    walk(game.new_initial_state(), 1.0)
    assert len(deals) == 8 and all(abs(p - 1 / 8) < 1e-12 for p in deals.values())
    assert {d[0] for d in deals} == set(game.rules.start_deck_mr_x)  # Mr X (X first)
    a, b = (_deal(game.new_initial_state(), np.random.default_rng(k)) for k in range(2))
    same_hunters = a.match.game.start["D1"] == b.match.game.start["D1"]
    assert (a.information_state_string(1) == b.information_state_string(1)) == same_hunters


def test_random_sim_test_with_the_deal_and_serialize_round_trips() -> None:
    game = pyspiel.load_game("python_scotland_yard", {"preset": "new_edition_2p"})
    pyspiel.random_sim_test(game, num_sims=1, serialize=True, verbose=False)
    s = _deal(game.new_initial_state(), np.random.default_rng(3))
    rng = np.random.default_rng(4)
    for _ in range(6):
        s.apply_action(int(rng.choice(s.legal_actions())))
    back = game.deserialize_state(s.serialize())
    assert back.history() == s.history() and str(back) == str(s)
    assert back.match.game.start == s.match.game.start
