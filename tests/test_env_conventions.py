"""Ecosystem conventions of the research API: render modes, numpy actions, masks through
wrappers and at the end of an episode, the same info keys everywhere, the decision loop,
the adjacency export."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest

import scotlandyard.env as sye
from scotlandyard import Rules
from scotlandyard.env import (
    DEFER,
    DOUBLE_FIRST,
    INFO_KEYS,
    PASS,
    REVEAL,
    InvalidAction,
    adjacency,
    aec_env,
    decisions,
)


@pytest.mark.parametrize("env_id", sye.GYM_IDS)
def test_render_modes_rgb_array_ansi_and_human(env_id: str, capsys: pytest.CaptureFixture[str]) -> None:
    env = gymnasium.make(env_id, render_mode="rgb_array")
    env.reset(seed=1)
    img = env.render()
    assert isinstance(img, np.ndarray) and img.dtype == np.uint8 and img.ndim == 3
    assert img.shape[2] == 3 and img.shape[1] == 640 and img.std() > 10  # a drawn board
    info = env.reset(seed=1)[1]
    env.step(int(np.flatnonzero(info["action_mask"])[0]))
    assert not np.array_equal(env.render(), img) or env_id.endswith("MrX-v0")
    text = gymnasium.make(env_id, render_mode="ansi")
    text.reset(seed=1)
    assert "round 1" in text.render()
    human = gymnasium.make(env_id, render_mode="human")
    human.reset(seed=1)
    assert human.render() is None and "round" in capsys.readouterr().out
    with pytest.raises(ValueError, match="render_mode"):
        gymnasium.make(env_id, render_mode="video")


def test_aec_env_draws_an_rgb_array() -> None:
    env = aec_env("new_edition", render_mode="rgb_array")
    env.reset(seed=2)
    img = env.render()
    assert img.shape[2] == 3 and img.dtype == np.uint8


@pytest.mark.parametrize("kind", ["numpy_int", "zero_d", "python"])
def test_numpy_integer_and_zero_d_array_actions(kind: str) -> None:
    env = gymnasium.make("scotlandyard/MrX-v0", invalid_action="raise")
    _, info = env.reset(seed=5)
    a = int(np.flatnonzero(info["action_mask"])[0])
    action = {"numpy_int": np.int64(a), "zero_d": np.array(a), "python": a}[kind]
    env.step(action)
    assert env.unwrapped.match.game.ply >= 1 or env.unwrapped.match.pending is not None
    aec = aec_env("classic", invalid_action="raise")
    aec.reset(seed=5)
    mask = aec.last()[0]["action_mask"]
    b = int(np.flatnonzero(mask)[0])
    aec.step({"numpy_int": np.int32(b), "zero_d": np.array(b, np.int16), "python": b}[kind])
    assert aec.match.game.ply == 1 or aec.match.pending is not None


def test_non_integer_actions_are_refused_with_a_clear_error() -> None:
    env = gymnasium.make("scotlandyard/MrX-v0", invalid_action="raise")
    env.reset(seed=5)
    for bad in (np.array([3]), np.array(3.0), True, "3", 2.0):
        with pytest.raises(InvalidAction, match="an action is an integer"):
            env.step(bad)


@pytest.mark.parametrize("env_id", sye.GYM_IDS)
def test_action_masks_reachable_through_gymnasium_make_wrappers(env_id: str) -> None:
    env = gymnasium.make(env_id)
    _, info = env.reset(seed=3)
    masks = env.get_wrapper_attr("action_masks")()
    assert np.array_equal(masks, info["action_mask"]) and masks.any()


def test_vector_env_autoreset_never_sees_an_empty_mask() -> None:
    """A masked random sampler over a Gymnasium vector env: at every step the masks of every
    sub-env are non-empty, including the step that ends an episode."""
    envs = gymnasium.vector.SyncVectorEnv(
        [lambda: gymnasium.make("scotlandyard/MrX-v0") for _ in range(3)])
    _, infos = envs.reset(seed=0)
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(120):
        masks = infos["action_mask"]
        assert masks.shape == (3, sye.N_ACTIONS) and (masks.sum(axis=1) > 0).all()
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        _, _, term, _, infos = envs.step(acts)
        ended += int(term.sum())
    assert ended >= 3


def test_info_has_the_same_keys_in_aec_and_gymnasium() -> None:
    g = gymnasium.make("scotlandyard/Detectives-v0", rules="new_edition")
    _, info = g.reset(seed=4)
    keys = {frozenset(info)}
    aec = aec_env("new_edition")
    aec.reset(seed=4)
    rng = np.random.default_rng(4)
    while True:
        _, _, term, _, ainfo = aec.last()
        keys.add(frozenset(ainfo))
        assert all(frozenset(aec.infos[a]) == frozenset(INFO_KEYS) for a in aec.agents)
        if term:
            break
        aec.step(int(rng.choice(np.flatnonzero(ainfo["action_mask"]))))
        _, _, gterm, _, info = g.step(int(rng.choice(np.flatnonzero(info["action_mask"])))) \
            if not g.unwrapped.over else (None, 0, True, False, info)
        keys.add(frozenset(info))
    assert keys == {frozenset(INFO_KEYS)}
    assert ainfo["winner"] in ("mr_x", "detectives") and ainfo["selected"] is None


@pytest.mark.parametrize("rules", ["classic", "new_edition_2p"])
def test_decisions_yields_every_decision_with_its_mask(rules: str) -> None:
    """One decision per engine move, plus one per double move's first step and per defer."""
    env = aec_env(rules)
    env.reset(seed=7)
    rng = np.random.default_rng(7)
    n = extra = 0
    for _agent, obs, mask in decisions(env):
        assert obs.shape == (env.layout.size,) and mask.any()
        a = int(rng.choice(np.flatnonzero(mask)))
        extra += a == DEFER or DOUBLE_FIRST <= a < REVEAL
        env.step(a)
        n += 1
    assert env.unwrapped.over and not env.agents
    assert n == env.match.game.ply + extra
    env.reset(seed=7)
    with pytest.raises(RuntimeError, match="once per decision"):
        for _ in decisions(env):
            pass


def test_adjacency_export_matches_the_board() -> None:
    from scotlandyard import london

    g = adjacency("classic")
    b = london("classic")
    ei, et, mat = g["edge_index"], g["edge_type"], g["matrix"]
    assert ei.shape[1] == et.shape[0] == 2 * sum(len(v) for v in b.edges.values())
    assert mat.shape == (4, 199, 199) and (mat == mat.transpose(0, 2, 1)).all()
    for t in range(3):
        for s in (1, 67, 199):
            assert set(np.flatnonzero(mat[t, s - 1]) + 1) == set(b.neighbours_of(s, t))
    assert ((g["positions"] >= 0) & (g["positions"] <= 1)).all()


def test_gymnasium_end_mask_is_pass_and_episode_end_refuses_steps() -> None:
    env = gymnasium.make("scotlandyard/MrX-v0", rules=Rules.classic(detectives=5))
    _, info = env.reset(seed=9)
    rng = np.random.default_rng(9)
    while True:
        _, _, term, _, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
        if term:
            break
    assert np.flatnonzero(env.get_wrapper_attr("action_masks")()).tolist() == [PASS]
