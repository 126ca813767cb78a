"""MaskablePPO baselines for both sides with Stable-Baselines3 — plain Gymnasium vector envs,
no Supersuit.

    pip install torch==2.13.0 'scotlandyard[rl]'
    python examples/train_sb3.py --steps 20000 --out runs/sb3

For each side, ``make_vec_env("scotlandyard/MrX-v0")`` (or ``Detectives-v0``) with
``--envs`` copies against the ``--opponent`` agent, ``MaskablePPO("MlpPolicy")`` for
``--steps`` env steps, saved as ``OUT/mr_x.zip`` and ``OUT/detectives.zip``; then both are
evaluated as package agents (``PolicyAgent``) against the opponent over ``--eval`` new games
and compared with a uniformly random player of the same side in the same games. The models
are then usable by name: ``examples.sb3_policy:policy`` (ladder, arena, server, terminal).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sb3_contrib import MaskablePPO  # noqa: E402
from stable_baselines3.common.env_util import make_vec_env  # noqa: E402

from scotlandyard import Game, Rules  # noqa: E402
from scotlandyard.ai import Agent, Budget, RandomAgent, make_agent  # noqa: E402
from scotlandyard.env import PolicyAgent  # noqa: E402

ENV_IDS = {"mr_x": "scotlandyard/MrX-v0", "detectives": "scotlandyard/Detectives-v0"}


def train(side: str, args: argparse.Namespace) -> MaskablePPO:
    """One side's model, trained and saved."""
    venv = make_vec_env(ENV_IDS[side], n_envs=args.envs, seed=args.seed,
                        env_kwargs={"rules": args.rules, "opponent": args.opponent,
                                    "shaping": args.shaping})
    model = MaskablePPO("MlpPolicy", venv, n_steps=args.n_steps, batch_size=args.n_steps,
                        n_epochs=4, learning_rate=3e-4, gamma=0.99, seed=args.seed,
                        policy_kwargs={"net_arch": [128, 128]}, device="cpu", verbose=0)
    t0 = time.perf_counter()
    model.learn(total_timesteps=args.steps)
    path = Path(args.out) / f"{side}.zip"
    path.parent.mkdir(parents=True, exist_ok=True)
    model.save(path)
    print(f"{side}: {args.steps} steps in {time.perf_counter() - t0:.0f} s -> {path}")
    return model


def win_rate(side: str, player: Agent, args: argparse.Namespace) -> float:
    """``player``'s win rate on ``side`` against the opponent over ``--eval`` seeded games."""
    rules = Rules.preset(args.rules)
    other = "detectives" if side == "mr_x" else "mr_x"
    opponent = make_agent(args.opponent, other)
    wins = 0
    for k in range(args.eval):
        g = Game.new(rules, seed=10_000 + k)
        rng = random.Random(k)
        while not g.is_over():
            agent = player if g.side_to_move == side else opponent
            g.push(agent.choose(g.view(g.to_move), g.legal_moves(), rng, Budget()))
        wins += g.outcome().winner == side  # type: ignore[union-attr]
    return wins / args.eval


def main() -> None:
    """Train and evaluate."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--steps", type=int, default=20_000, help="env steps per side")
    ap.add_argument("--envs", type=int, default=4)
    ap.add_argument("--n-steps", type=int, default=256, help="rollout length per env")
    ap.add_argument("--rules", default="classic")
    ap.add_argument("--opponent", default="random")
    ap.add_argument("--shaping", type=float, default=0.2)
    ap.add_argument("--eval", type=int, default=200, help="evaluation games per side")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default="runs/sb3")
    ap.add_argument("--side", choices=["mr_x", "detectives", "both"], default="both")
    args = ap.parse_args()
    sides = ["mr_x", "detectives"] if args.side == "both" else [args.side]
    print(f"side        random  MaskablePPO   (win rate vs {args.opponent}, {args.eval} games, {args.rules})")
    for side in sides:
        model = train(side, args)
        base = win_rate(side, RandomAgent(), args)
        ppo = win_rate(side, PolicyAgent(model, name=f"ppo-{side}"), args)
        print(f"{side:<11} {base:6.3f}  {ppo:11.3f}")


if __name__ == "__main__":
    main()
