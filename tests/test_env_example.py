"""The training example (examples/train_mr_x.py) runs and its Mr X learns."""

from __future__ import annotations

import importlib.util
import io
import sys
from pathlib import Path

import numpy as np

from scotlandyard import Rules
from scotlandyard.env import BatchSim

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "train_mr_x.py"


def load_example():  # noqa: ANN201
    """Import the example script as a module."""
    spec = importlib.util.spec_from_file_location("train_mr_x", EXAMPLE)
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    sys.modules["train_mr_x"] = module
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def test_tiny_training_run_prints_a_learning_curve() -> None:
    ex = load_example()
    out = io.StringIO()
    curve = ex.train(iterations=3, games=64, seed=0, out=out)["curve"]
    text = out.getvalue()
    assert len(curve) == 3 and all(0.0 <= c <= 1.0 for c in curve)
    assert text.count("\n") >= 6 and "trained on 192 games" in text and "greedy" in text


def test_mr_x_learns_to_beat_random_detectives_more_often() -> None:
    ex = load_example()
    out = io.StringIO()
    result = ex.train(iterations=8, games=256, seed=1, out=out)
    curve = result["curve"]
    assert np.mean(curve[-3:]) > curve[0] + 0.08
    assert result["trained"] > result["random"] + 0.1
    assert result["theta"][ex.FEATURES.index("near_1")] < 0  # he learned to keep away


def test_policy_features_see_only_mr_x_side_facts() -> None:
    ex = load_example()
    rules = Rules.classic()
    policy = ex.Policy(16, rules, seed=0)
    sim = BatchSim(16, rules, seed=3)
    seen = []

    def spy(obs, moves):  # noqa: ANN001, ANN202
        seen.append(obs.side)
        return policy(obs, moves)

    sim.run(mr_x=spy)
    assert seen and set(seen) == {"mr_x"}
    assert np.abs(policy.grad).sum() > 0
    for g in range(16):
        assert sim.game(g).outcome() == sim.outcome(g)
