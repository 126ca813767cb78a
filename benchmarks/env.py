"""Research API speed: the AEC env, the Gymnasium envs and the numpy batch simulator.

Usage: python benchmarks/env.py [--games 40] [--batch 10000] [--repeat 3] [--only aec,gym,batch]

Classic rules, 5 detectives, uniformly random legal actions, one core. Prints a table; each
figure is the best of ``--repeat`` runs, counted per second of the process's CPU time (on a
busy shared machine the wall clock mostly measures the other processes; the title gives the
load average and the last column the wall-clock figure). The baseline in the same run is the raw engine loop
(``game.legal_moves()`` + a random choice + ``game.push``) on the same kind of games.

- *env steps* are ``env.step`` calls (a double move is two, a free-order defer one);
  *engine moves* are moves pushed to the ``Game`` (what the baseline counts).
- AEC: ``env.step`` plus ``env.last()`` (the next agent's observation and mask) each step.
- Gymnasium: the learner's steps; the opponent's moves (``random`` agent, which builds a
  ``game.view`` per move) are in the engine moves.
- Batch: engine moves per second over all games; ``record`` keeps every move list for export,
  ``possible`` tracks Mr X's possible locations.
- *vs baseline*: env steps per second over the baseline's moves per second in the same run
  (steadier than either figure on a shared machine: both slow down together).

There is no parallel-API row: the game is turn-based (one agent acts per step), so the envs
are AEC (PettingZoo, ``is_parallelizable`` False) and single-agent Gymnasium.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import gymnasium  # noqa: E402
import numpy as np  # noqa: E402
from rich.console import Console  # noqa: E402
from rich.table import Table  # noqa: E402

import scotlandyard.env as sye  # noqa: E402
from scotlandyard import Game, Rules  # noqa: E402


def best(fn: Callable[[], tuple[int, int]], repeat: int) -> tuple[float, float, int, int]:
    """Best CPU time of ``repeat`` calls of ``fn``, its wall time, and the counts returned."""
    out = None
    for _ in range(repeat):
        w, c = time.perf_counter(), time.process_time()
        counts = fn()
        cpu, wall = time.process_time() - c, time.perf_counter() - w
        if out is None or cpu < out[0]:
            out = (cpu, wall, *counts)
    return out  # type: ignore[return-value]


def engine_loop(rules: Rules, games: int) -> tuple[int, int]:
    """Baseline: random games with ``legal_moves()`` + ``push``; (moves, moves)."""
    moves = 0
    for seed in range(games):
        g = Game.new(rules, seed=seed)
        rng = random.Random(seed)
        while not g.is_over():
            ms = g.legal_moves()
            g.push(ms[rng.randrange(len(ms))])
            moves += 1
    return moves, moves


def aec_loop(rules: Rules, games: int, **options: bool) -> tuple[int, int]:
    """Random masked actions through the AEC env (``options``: the observation's optional
    segments); (env steps, engine moves)."""
    env = sye.aec_env(rules, **options)
    steps = moves = 0
    for seed in range(games):
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        for _agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[rng.integers(len(legal))]))
            steps += 1
        moves += env.match.game.ply
    return steps, moves


def gym_loop(env_id: str, rules: Rules, games: int) -> tuple[int, int]:
    """Random masked actions through a Gymnasium env; (learner steps, engine moves)."""
    env = gymnasium.make(env_id, rules=rules, opponent="random")
    steps = moves = 0
    for seed in range(games):
        _, info = env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        while True:
            legal = np.flatnonzero(info["action_mask"])
            _, _, term, _, info = env.step(int(legal[rng.integers(len(legal))]))
            steps += 1
            if term:
                break
        moves += env.unwrapped.match.game.ply
    return steps, moves


def batch_run(rules: Rules, n: int, record: bool, possible: bool) -> tuple[int, int]:
    """All ``n`` games of a batch to the end; (engine moves, engine moves)."""
    sim = sye.BatchSim(n, rules, seed=1, record=record, track_possible=possible)
    moves = sim.run()
    return moves, moves


def main() -> None:
    """Print the table."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=40, help="games per env run")
    ap.add_argument("--batch", type=int, default=10_000, help="games per batch run")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--only", default="aec,gym,batch",
                    help="comma-separated row groups to run besides the baseline: aec, gym, batch")
    args = ap.parse_args()
    groups = set(args.only.split(","))
    rules = Rules.classic(detectives=5)
    console = Console(width=120)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    table = Table(title=f"scotlandyard research API — classic, 5 detectives, one core, "
                        f"Python {platform.python_version()}, numpy {np.__version__}, "
                        f"load average {load:.1f} on {os.cpu_count()} CPUs")
    for col, just in (("what", "left"), ("env steps/s", "right"), ("engine moves/s", "right"),
                      ("vs baseline", "right"), ("aim", "right"), ("moves/s (wall)", "right")):
        table.add_column(col, justify=just)  # type: ignore[arg-type]
    base_rate = [0.0]

    def row(label: str, fn: Callable[[], tuple[int, int]], aim: str = "", env: bool = True) -> None:
        cpu, wall, steps, moves = best(fn, args.repeat)
        if not base_rate[0]:
            base_rate[0] = moves / cpu
        ratio = f"{steps / cpu / base_rate[0]:.1%}" if env else ""
        table.add_row(label, f"{steps / cpu:,.0f}" if env else "", f"{moves / cpu:,.0f}", ratio,
                      aim, f"{moves / wall:,.0f}")

    row("baseline: game.legal_moves() + push loop", lambda: engine_loop(rules, args.games),
        env=False)
    if "aec" in groups:
        row("PettingZoo AEC env (step + last)", lambda: aec_loop(rules, args.games),
            "≥ 10,000 steps")
        row("  + board_features=True", lambda: aec_loop(rules, args.games, board_features=True))
        row("  + probability=True, board_features=True",
            lambda: aec_loop(rules, max(args.games // 4, 1), probability=True, board_features=True))
    if "gym" in groups:
        for env_id in sye.GYM_IDS:
            row(f"Gymnasium {env_id.split('/')[1]} vs random",
                lambda e=env_id: gym_loop(e, rules, args.games))
    if "batch" in groups:
        for record, possible in ((True, True), (False, False)):
            row(f"BatchSim, {args.batch:,} games, record={record}, possible={possible}",
                lambda r=record, p=possible: batch_run(rules, args.batch, r, p),
                "≥ 1,000,000" if record else "", env=False)
    console.print(table)


if __name__ == "__main__":
    main()
