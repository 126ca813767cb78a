"""Stable-Baselines3 end to end (torch CPU): ``make_vec_env`` on both Gymnasium ids, a few
``MaskablePPO`` updates, and the trained model playing through ``PolicyAgent``. Kept tiny."""

from __future__ import annotations

import random

import numpy as np
import pytest

# the rl extra is part of the test command's install: a missing package fails, never skips
from sb3_contrib import MaskablePPO  # noqa: E402
from sb3_contrib.common.maskable.utils import get_action_masks  # noqa: E402
from stable_baselines3.common.env_util import make_vec_env  # noqa: E402

import scotlandyard.env as sye  # noqa: E402
from scotlandyard import Game, Rules  # noqa: E402
from scotlandyard.ai import Budget  # noqa: E402
from scotlandyard.env import PolicyAgent  # noqa: E402


@pytest.mark.parametrize("env_id", sye.GYM_IDS)
def test_make_vec_env_and_maskable_ppo_steps(env_id: str) -> None:
    venv = make_vec_env(env_id, n_envs=2, seed=0, env_kwargs={"rules": "classic"})
    venv.reset()
    masks = get_action_masks(venv)
    assert masks.shape == (2, sye.N_ACTIONS) and masks.any(axis=1).all()
    model = MaskablePPO("MlpPolicy", venv, n_steps=16, batch_size=16, n_epochs=1, seed=0,
                        policy_kwargs={"net_arch": [16]}, device="cpu")
    model.learn(total_timesteps=32)
    assert model.num_timesteps >= 32
    # the trained model plays a whole game as a package agent (masks respected)
    agent = PolicyAgent(model)
    g = Game.new(Rules.classic(), seed=1)
    side = "mr_x" if env_id.endswith("MrX-v0") else "detectives"
    rng = random.Random(1)
    while not g.is_over():
        legal = g.legal_moves()
        if g.side_to_move == side:
            move = agent.choose(g.view(g.to_move), legal, rng, Budget())
        else:
            move = legal[rng.randrange(len(legal))]
        assert move in legal
        g.push(move)
    obs = venv.reset()
    action, _ = model.predict(obs, action_masks=get_action_masks(venv))
    assert np.asarray(action).shape == (2,)


def test_ppo_baseline_script_pairs_its_games(tmp_path) -> None:  # noqa: ANN001
    """examples/ppo_baseline.py on the tiny board: the three Mr X policies play the same seeded
    games, the rows carry Wilson intervals, and the McNemar test is exact."""
    import importlib.util
    import json
    from pathlib import Path

    path = Path(__file__).resolve().parent.parent / "examples" / "ppo_baseline.py"
    spec = importlib.util.spec_from_file_location("ppo_baseline", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    rows = mod.main(["--steps", "64", "--eval", "6", "--rules", "tiny", "--opponents", "random",
                     "--n-steps", "32", "--envs", "2", "--out", str(tmp_path)])
    assert [r["policy"] for r in rows] == ["uniform random", "MaskablePPO untrained",
                                           "MaskablePPO 64 steps"]
    for r in rows:
        lo, hi = r["wilson95"]
        assert r["games"] == 6 and lo <= r["rate"] <= hi
    assert json.loads((tmp_path / "ppo_baseline.json").read_text())["rows"] == rows
    assert (tmp_path / "mr_x_vs_random.zip").exists()
    # the same seeds give the same games: a policy's results are reproducible
    first = mod.play(mod.uniform_policy(0), "random", "tiny", 6)
    assert first == mod.play(mod.uniform_policy(0), "random", "tiny", 6)
    assert mod.mcnemar([True] * 6, [False] * 6) == 2 / 64
    assert mod.mcnemar([True, False], [True, False]) == 1.0
