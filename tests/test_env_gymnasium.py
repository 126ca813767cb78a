"""The Gymnasium environments: one side against the package's agents."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import scotlandyard.env as sye
from scotlandyard import Rules
from scotlandyard.ai import RandomAgent
from scotlandyard.env import DEFER, DOUBLE_FIRST, PASS, InvalidAction, encode_view, piece_of
from scotlandyard.env.gymnasium import DetectivesEnv, MrXEnv


def run_episode(env, seed: int) -> tuple[float, int, dict]:
    """Random legal actions until the end; returns (total reward, steps, last info)."""
    rng = np.random.default_rng(seed)
    obs, info = env.reset(seed=seed)
    total, steps = 0.0, 0
    while True:
        assert env.observation_space.contains(obs)
        legal = np.flatnonzero(info["action_mask"])
        assert legal.size, "the mask is never empty while the learner is to act"
        obs, reward, terminated, truncated, info = env.step(int(rng.choice(legal)))
        total += reward
        steps += 1
        assert not truncated
        if terminated:
            return total, steps, info


def test_ids_are_registered_on_import() -> None:
    assert set(sye.GYM_IDS) <= set(gymnasium.registry)
    env = gymnasium.make("scotlandyard/MrX-v0", opponent="random", rules="classic")
    assert isinstance(env.unwrapped, MrXEnv)
    env = gymnasium.make("scotlandyard/Detectives-v0", rules=Rules.new_edition(detectives=3))
    assert isinstance(env.unwrapped, DetectivesEnv)


@pytest.mark.parametrize("env_id", sye.GYM_IDS)
@pytest.mark.parametrize("rules", ["classic", "new_edition_2p"])
def test_gymnasium_check_env_passes(env_id: str, rules: str) -> None:
    # check_env samples actions without the mask; each invalid-action mode must pass it
    check_env(gymnasium.make(env_id, rules=rules).unwrapped)
    check_env(gymnasium.make(env_id, rules=rules, invalid_action="penalty").unwrapped)


def test_mr_x_env_plays_whole_games_with_win_or_loss_rewards() -> None:
    env = gymnasium.make("scotlandyard/MrX-v0", opponent="random")
    outcomes = set()
    for seed in range(6):
        total, steps, info = run_episode(env, seed)
        winner = info["winner"]
        outcomes.add(winner)
        assert total == (1.0 if winner == "mr_x" else -1.0)
        assert 1 <= steps <= 24 + 2  # one step per Mr X move, two for a double move
    assert np.flatnonzero(info["action_mask"]).tolist() == [PASS]  # never empty, for autoreset
    assert set(info) == set(sye.INFO_KEYS)


def test_detectives_env_takes_one_action_per_hunter_move() -> None:
    env = gymnasium.make("scotlandyard/Detectives-v0", rules=Rules.new_edition(detectives=2),
                         loss_reward=0.0)
    obs, info = env.reset(seed=3)
    game = env.unwrapped.match.game
    assert game.side_to_move == "detectives" and game.ply == 1  # Mr X (the opponent) moved
    rng = np.random.default_rng(3)
    acted = []
    while True:
        sel = piece_of(info["selected"])
        assert sel != "X"
        parts = env.unwrapped.layout.split(obs)
        assert parts["selected"][env.unwrapped.rules.pieces.index(sel)] == 1
        legal = np.flatnonzero(info["action_mask"])
        a = int(rng.choice(legal))
        plies = game.ply
        obs, reward, terminated, _, info = env.step(a)
        acted.append(a)
        if a != DEFER:
            assert game.moves[plies][0] == sel  # the selected hunter made the move
        if terminated:
            assert reward == (1.0 if game.outcome().winner == "detectives" else 0.0)
            break
    assert DEFER in acted and all(a < DOUBLE_FIRST or a in (PASS, DEFER) for a in acted)


def test_invalid_actions_lose_raise_or_pay_a_penalty() -> None:
    env = gymnasium.make("scotlandyard/MrX-v0")
    env.reset(seed=1)
    with pytest.warns(UserWarning, match="not legal for X"):
        _, reward, terminated, _, info = env.step(PASS)
    assert terminated and reward == -1.0 and info["invalid_action"]
    assert (info["winner"], info["reason"], info["piece"]) == ("detectives", "invalid_action", "X")
    assert env.unwrapped.match.game.ply == 0
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)
    env = gymnasium.make("scotlandyard/MrX-v0", invalid_action="raise")
    env.reset(seed=1)
    with pytest.raises(InvalidAction, match="not legal for X"):
        env.step(PASS)
    env = gymnasium.make("scotlandyard/MrX-v0", invalid_action="penalty", invalid_penalty=-0.25)
    obs, _ = env.reset(seed=1)
    obs2, reward, terminated, _, info = env.step(PASS)
    assert reward == -0.25 and not terminated and info["invalid_action"]
    assert np.array_equal(obs, obs2) and env.unwrapped.match.game.ply == 0
    with pytest.raises(ValueError, match="invalid_action"):
        gymnasium.make("scotlandyard/MrX-v0", invalid_action="ignore")
    with pytest.raises(ValueError, match="unknown agent"):
        gymnasium.make("scotlandyard/MrX-v0", opponent="nobody")


def test_seeding_is_reproducible() -> None:
    runs = []
    for _ in range(2):
        env = gymnasium.make("scotlandyard/Detectives-v0", rules="classic")
        total, steps, _ = run_episode(env, 21)
        runs.append((total, steps, tuple(env.unwrapped.match.game.moves)))
    assert runs[0] == runs[1]


def test_opponent_agent_sees_only_its_view() -> None:
    seen = []

    class Spy(RandomAgent):
        """A random detective that records what it was given."""

        def choose(self, view, legal, rng, budget):  # noqa: ANN001, ANN201
            seen.append(view)
            return super().choose(view, legal, rng, budget)

    env = MrXEnv("classic", opponent=Spy())
    run_episode(env, 4)
    assert seen and all(v.side == "detectives" for v in seen)
    assert all(v.mr_x_station is None or (v.log and v.log[-1].reveal) for v in seen)


def test_mr_x_double_move_waits_for_the_second_step() -> None:
    env = MrXEnv("classic")
    obs, info = env.reset(seed=8)
    first = int(next(a for a in np.flatnonzero(info["action_mask"]) if a >= DOUBLE_FIRST))
    obs, reward, terminated, _, info = env.step(first)
    assert env.match.game.ply == 0 and env.match.pending is not None and reward == 0.0
    second = np.flatnonzero(info["action_mask"])
    assert (second < DOUBLE_FIRST).all()
    env.step(int(second[0]))
    g = env.match.game
    assert g.moves[0][1].is_double and (g.is_over() or g.to_move == "X")


def test_detectives_env_observation_is_the_selected_hunters_view() -> None:
    env = DetectivesEnv(Rules.new_edition(detectives=3), opponent="random")
    obs, info = env.reset(seed=12)
    rng = np.random.default_rng(12)
    while True:
        game = env.match.game
        sel = piece_of(info["selected"])
        assert np.array_equal(obs, encode_view(game.view(sel), selected=sel))
        obs, _, terminated, _, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
        if terminated:
            break
