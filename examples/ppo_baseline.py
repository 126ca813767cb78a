"""A MaskablePPO baseline table for Mr X: trained against random and heuristic detectives,
compared with the untrained policy and a uniform random Mr X on the same games.

    pip install torch==2.13.0 'scotlandyard[rl]'
    nice -n 10 python examples/ppo_baseline.py --steps 20000 --eval 200

For each opponent (``--opponents``, default ``random,heuristic``: the package agents playing
the detectives' side), one ``MaskablePPO("MlpPolicy")`` (sb3-contrib, CPU, one torch thread)
is made with ``--seed`` and, **before any training**, evaluated on ``--eval`` games; it is then
trained for ``--steps`` env steps on ``make_vec_env("scotlandyard/MrX-v0", n_envs=--envs)``
against that opponent and evaluated again on the **same** games (the same reset seeds, so the
start stations and the opponent's first random draws are the same). A uniform random Mr X
plays the same games too. The PPO policies act deterministically (``predict(...,
deterministic=True)`` with the action mask). Each row: Mr X's wins, win rate and Wilson 95%
interval; the last column is the exact McNemar test of trained against untrained on the
paired games (two-sided, the games only one of them won). Models and a JSON of the results
go to ``--out``.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import gymnasium  # noqa: E402
import numpy as np  # noqa: E402
import torch  # noqa: E402
from sb3_contrib import MaskablePPO  # noqa: E402
from stable_baselines3.common.env_util import make_vec_env  # noqa: E402

import scotlandyard.env  # noqa: E402,F401  (registers the Gymnasium ids)
from scotlandyard import Rules  # noqa: E402
from scotlandyard.ai.stats import wilson_interval  # noqa: E402
from scotlandyard.small_boards import preset_rules  # noqa: E402

Policy = Callable[[np.ndarray, np.ndarray], int]
EVAL_SEED = 1_000_000  # evaluation games use reset seeds EVAL_SEED + k (never a training seed)


def play(policy: Policy, opponent: str, rules: Rules | str, games: int) -> list[bool]:
    """Mr X's result (won?) in each of ``games`` seeded games against ``opponent``."""
    env = gymnasium.make("scotlandyard/MrX-v0", rules=rules, opponent=opponent)
    out = []
    for k in range(games):
        obs, info = env.reset(seed=EVAL_SEED + k)
        while True:
            obs, _, term, trunc, info = env.step(policy(obs, info["action_mask"]))
            if term or trunc:
                break
        out.append(info["winner"] == "mr_x")
    env.close()
    return out


def model_policy(model: MaskablePPO) -> Policy:
    """The model's deterministic masked action."""
    def act(obs: np.ndarray, mask: np.ndarray) -> int:
        action, _ = model.predict(obs, action_masks=mask.astype(bool), deterministic=True)
        return int(action)
    return act


def uniform_policy(seed: int) -> Policy:
    """A uniform random legal action."""
    rng = np.random.default_rng(seed)

    def act(obs: np.ndarray, mask: np.ndarray) -> int:
        legal = np.flatnonzero(mask)
        return int(legal[rng.integers(len(legal))])
    return act


def mcnemar(a: list[bool], b: list[bool]) -> float:
    """Two-sided exact McNemar p-value of paired results ``a`` vs ``b``."""
    only_a = sum(x and not y for x, y in zip(a, b, strict=True))
    only_b = sum(y and not x for x, y in zip(a, b, strict=True))
    n = only_a + only_b
    if n == 0:
        return 1.0
    k = min(only_a, only_b)
    tail = sum(math.comb(n, i) for i in range(k + 1)) / 2**n
    return min(1.0, 2 * tail)


def row(label: str, wins: list[bool]) -> dict[str, Any]:
    """One table row's numbers."""
    w, n = sum(wins), len(wins)
    lo, hi = wilson_interval(w, n)
    return {"policy": label, "wins": w, "games": n, "rate": w / n, "wilson95": [lo, hi]}


def run(args: argparse.Namespace) -> list[dict[str, Any]]:
    """Train and evaluate for every opponent; print the table; return its rows."""
    torch.set_num_threads(args.threads)
    rules = preset_rules(args.rules, args.detectives)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    rows: list[dict[str, Any]] = []
    print(f"Mr X, preset {args.rules} ({rules.detectives} detectives), {args.steps:,} PPO steps per opponent, {args.eval} "
          f"evaluation games (the same games for every policy), seed {args.seed}")
    print(f"{'opponent':<10} {'Mr X policy':<24} {'wins':>9} {'win rate':>8}  {'Wilson 95%':<15} "
          f"{'vs untrained':>12}")
    for opponent in args.opponents.split(","):
        venv = make_vec_env("scotlandyard/MrX-v0", n_envs=args.envs, seed=args.seed,
                            env_kwargs={"rules": rules, "opponent": opponent,
                                        "shaping": args.shaping})
        model = MaskablePPO("MlpPolicy", venv, n_steps=args.n_steps, batch_size=args.n_steps,
                            n_epochs=4, learning_rate=3e-4, gamma=0.99, seed=args.seed,
                            policy_kwargs={"net_arch": [128, 128]}, device="cpu", verbose=0)
        uniform = play(uniform_policy(args.seed), opponent, rules, args.eval)
        before = play(model_policy(model), opponent, rules, args.eval)
        t0 = time.perf_counter()
        model.learn(total_timesteps=args.steps)
        took = time.perf_counter() - t0
        model.save(out / f"mr_x_vs_{opponent}.zip")
        after = play(model_policy(model), opponent, rules, args.eval)
        p = mcnemar(after, before)
        for label, wins, extra in (("uniform random", uniform, ""),
                                   ("MaskablePPO untrained", before, ""),
                                   (f"MaskablePPO {args.steps:,} steps", after, f"p = {p:.2g}")):
            r = {"opponent": opponent, **row(label, wins), "train_seconds": round(took, 1)}
            if extra:
                r["mcnemar_p"] = p
            rows.append(r)
            lo, hi = r["wilson95"]
            print(f"{opponent:<10} {label:<24} {r['wins']:>4}/{r['games']:<4} {r['rate']:>8.3f}  "
                  f"[{lo:.3f}, {hi:.3f}]  {extra:>12}", flush=True)
        venv.close()
    (out / "ppo_baseline.json").write_text(json.dumps(
        {"config": vars(args), "rows": rows}, indent=1))
    return rows


def main(argv: list[str] | None = None) -> list[dict[str, Any]]:
    """Command line entry point."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--steps", type=int, default=20_000, help="PPO env steps per opponent")
    ap.add_argument("--eval", type=int, default=200, help="evaluation games per policy")
    ap.add_argument("--opponents", default="random,heuristic")
    ap.add_argument("--rules", default="classic", help="a preset name (small boards too)")
    ap.add_argument("--detectives", type=int, default=None, help="default: the preset's")
    ap.add_argument("--envs", type=int, default=4)
    ap.add_argument("--n-steps", type=int, default=256, help="rollout length per env")
    ap.add_argument("--shaping", type=float, default=0.2)
    ap.add_argument("--threads", type=int, default=1, help="torch threads")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default="runs/ppo_baseline")
    return run(ap.parse_args(argv))


if __name__ == "__main__":
    main()
