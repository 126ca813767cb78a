"""Train a tiny Mr X against random detectives and watch him learn.

A linear softmax policy scores each legal move from a few features of where it ends (how
far the nearest detective is, how many detectives are one move away, how many ways out
there are, which ticket it spends, whether it is a double move). It is trained with
REINFORCE (win +1, loss -1, the batch mean as baseline) on whole games played by the numpy
:class:`~scotlandyard.env.BatchSim`, 1,024 games at a time. The policy starts uniform (the
weights are zero), which is the random Mr X; the curve shows his win rate rising.

Usage: python examples/train_mr_x.py [--iterations 40] [--games 1024] [--seed 0]
       (about 20 seconds on one core; --iterations 3 --games 64 is a smoke test)
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass, field

import numpy as np

from scotlandyard import Rules, london
from scotlandyard.env import BatchSim, MoveBatch
from scotlandyard.env.batch import BatchObservation

FEATURES = ("near_1", "near_2", "near_3", "hunters_at_1", "ways_out", "taxi", "bus",
            "underground", "black", "double")


def distance_table(board_name: str = "classic") -> np.ndarray:
    """``[200, 200]`` fewest moves on land between stations (row/column 0 unused)."""
    board = london(board_name)  # type: ignore[arg-type]
    table = np.zeros((200, 200), np.int16)
    for s in range(1, 200):
        table[s] = np.frombuffer(board.distance_row(s), np.uint8)[:200]
    return table


@dataclass
class Policy:
    """A linear softmax policy over move features; remembers its gradient per game."""

    n_games: int
    rules: Rules
    seed: int = 0
    theta: np.ndarray = field(default_factory=lambda: np.zeros(len(FEATURES)))

    def __post_init__(self) -> None:
        board = london(self.rules.board)
        self.dist = distance_table(self.rules.board)
        self.degree = np.array([0] + [len(board.any_neighbours(s, ferry=False)) for s in range(1, 200)])
        self.rng = np.random.default_rng(self.seed)
        self.grad = np.zeros((self.n_games, len(FEATURES)))
        self.greedy = False

    def features(self, obs: BatchObservation, moves: MoveBatch) -> np.ndarray:
        """``[candidates, features]`` for Mr X's candidate moves."""
        dest = moves.destination.astype(np.int64)
        hunters = obs.stations[moves.game_index, 1:].astype(np.int64)
        d = self.dist[dest[:, None], hunters]  # [M, hunters]
        near = d.min(1)
        f = np.zeros((len(dest), len(FEATURES)))
        f[:, 0] = near <= 1
        f[:, 1] = near == 2
        f[:, 2] = near == 3
        f[:, 3] = (d <= 1).sum(1) / hunters.shape[1]
        f[:, 4] = np.log1p(self.degree[dest]) / 2.0
        f[np.arange(len(dest)), 5 + moves.ticket.astype(np.int64)] = 1.0
        f[:, 9] = moves.ticket2 >= 0
        return f

    def __call__(self, obs: BatchObservation, moves: MoveBatch) -> np.ndarray:
        """Choose Mr X's move in every game (sampled, or the best with ``greedy``)."""
        f = self.features(obs, moves)
        logits = f @ self.theta
        if self.greedy:
            return moves.argmax(logits)
        chosen = moves.sample(logits, self.rng)
        p = moves.softmax(logits)
        mean_f = np.add.reduceat(p[:, None] * f, moves.offsets[:-1], axis=0)
        self.grad[moves.games] += f[chosen] - mean_f  # d log pi(chosen) / d theta
        return chosen


def train(iterations: int = 40, games: int = 1024, seed: int = 0, lr: float = 0.5,
          out=sys.stdout) -> dict:  # noqa: ANN001
    """Train; print the learning curve. Returns ``curve`` (Mr X's win rate per iteration),
    ``random`` and ``trained`` (win rates of random and trained Mr X on the same new games)
    and ``theta`` (the weights)."""
    rules = Rules.classic(detectives=5)
    policy = Policy(games, rules, seed)
    curve = []
    print(f"{'iter':>4} {'Mr X wins':>9}  {'caught':>6}  win rate", file=out)
    start = time.perf_counter()
    for it in range(iterations):
        sim = BatchSim(games, rules, seed=seed * 100_003 + it, record=False, track_possible=False)
        policy.grad[:] = 0.0
        sim.run(mr_x=policy)
        reward = np.where(sim.winner == 0, 1.0, -1.0)
        adv = reward - reward.mean()
        policy.theta += lr * (adv[:, None] * policy.grad).mean(0)
        stats = sim.stats()
        curve.append(stats["mr_x"])
        bar = "#" * int(round(stats["mr_x"] * 40))
        print(f"{it:>4} {stats['mr_x']:>9.3f}  {stats['caught']:>6.3f}  {bar}", file=out)
    took = time.perf_counter() - start
    print(f"trained on {iterations * games} games in {took:.1f}s", file=out)
    print("weights: " + ", ".join(f"{n}={w:+.2f}" for n, w in zip(FEATURES, policy.theta, strict=True)),
          file=out)
    # the same games (same seeds) with the untrained random Mr X and with the trained one
    base = BatchSim(games, rules, seed=seed + 7, record=False, track_possible=False)
    base.run()
    policy.greedy = True
    trained = BatchSim(games, rules, seed=seed + 7, record=False, track_possible=False)
    trained.run(mr_x=policy)
    print(f"random Mr X wins {base.stats()['mr_x']:.3f}; trained Mr X (greedy) wins "
          f"{trained.stats()['mr_x']:.3f} of {games} new games", file=out)
    return {"curve": curve, "random": base.stats()["mr_x"], "trained": trained.stats()["mr_x"],
            "theta": policy.theta.copy()}


def main(argv: list[str] | None = None) -> dict:
    """Command line entry point."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--iterations", type=int, default=40)
    ap.add_argument("--games", type=int, default=1024)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--lr", type=float, default=0.5)
    args = ap.parse_args(argv)
    return train(args.iterations, args.games, args.seed, args.lr)


if __name__ == "__main__":
    main()
