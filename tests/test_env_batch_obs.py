"""BatchSim's observations and action ids equal the envs' (so policies move between them)."""

from __future__ import annotations

import numpy as np
import pytest

from scotlandyard.env import DEFER, BatchSim, Encoder, Match
from scotlandyard.env.batch_obs import batch_action_ids, batch_observations, selected_seats

from .conftest import ALL_RULES


def env_state(sim: BatchSim, g: int, rules) -> Match:  # noqa: ANN001
    """A ``Match`` on game ``g`` of ``sim`` replayed through the engine up to now."""
    m = Match(rules)
    m._game = sim.game(g)
    m._after_push()
    return m


@pytest.mark.parametrize(("name", "board_features"), [
    ("classic5", False), ("classic5", True), ("classic1", False), ("new4", False),
    ("new2", True), ("new_2p", False)])
def test_batch_observations_and_action_ids_equal_the_envs(name: str, board_features: bool) -> None:
    rules = ALL_RULES[name]()
    sim = BatchSim(6, rules, seed=3)
    enc = Encoder(rules, board_features=board_features)
    steps = 0
    while not sim.done.all() and steps < 40:
        games = np.flatnonzero(~sim.done)
        obs = batch_observations(sim, board_features=board_features)
        moves = sim.candidates()
        first, second = batch_action_ids(moves)
        seats = selected_seats(sim, games)
        for k, g in enumerate(games[:3]):
            m = env_state(sim, int(g), rules)
            piece = m.selected
            assert piece == rules.pieces[seats[k]]
            want = enc.encode(m.game, piece, selected=piece)
            assert np.array_equal(obs[k], want), (name, steps, int(g))
            own = moves.game_index == k
            if rules.free_order and sim.phase:
                own &= moves.piece == seats[k]
            env_first = set(m.legal_actions()) - {DEFER}
            assert set(first[own].tolist()) == env_first
            for a, b in zip(first[own].tolist(), second[own].tolist(), strict=True):
                if b >= 0:  # the second step is legal after the first, in the env
                    m2 = env_state(sim, int(g), rules)
                    m2.apply(a)
                    assert b in m2.legal_actions()
        sim.step()
        steps += 1
    assert steps > 10


def test_batch_observations_need_the_history() -> None:
    sim = BatchSim(2, ALL_RULES["classic5"](), seed=1, record=False)
    with pytest.raises(ValueError, match="record=True"):
        batch_observations(sim)
    with pytest.raises(ValueError, match="probability"):
        batch_observations(BatchSim(2, seed=1), probability=True)
