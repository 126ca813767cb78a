"""AI speed: playouts per second (core engine baseline, pure-Python kernel, numba kernel) and MCTS
iterations per second, on one core.

    python benchmarks/ai.py            # about a minute
    python benchmarks/ai.py --quick    # a few seconds a row

"wall" is elapsed time; "cpu" is this process's CPU time (what one core delivers when the
machine is shared). The numba kernel is compiled (or loaded from its cache) before timing.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable

from scotlandyard import Game, Rules
from scotlandyard.ai import Budget, make_agent
from scotlandyard.ai.mcts import MCTSOptions, MCTSSearch
from scotlandyard.kernel import fast as F


def timed(fn: Callable[[int], int], seconds: float, start: int = 1) -> tuple[float, float]:
    """Call ``fn(n)`` (which does n units and returns n) with growing n until ``seconds`` pass;
    return (units per wall second, units per CPU second)."""
    n = start
    while True:
        w0, c0 = time.perf_counter(), time.process_time()
        done = fn(n)
        w, c = time.perf_counter() - w0, time.process_time() - c0
        if w >= seconds or n > 10**8:
            return done / w, done / max(c, 1e-9)
        n = max(n * 2, int(n * seconds / max(w, 1e-6) * 1.1))


def engine_random_playouts(game: Game, seed: int) -> Callable[[int], int]:
    """Baseline: uniformly random playouts through ``Game.legal_moves``/``Game.push``."""
    rng = random.Random(seed)

    def run(n: int) -> int:
        for _ in range(n):
            g = game.copy()
            while not g.is_over():
                moves = g.legal_moves()
                g.push(moves[rng.randrange(len(moves))])
        return n

    return run


def kernel_playouts(game: Game, fast: bool, policy: F.PlayoutPolicy) -> Callable[[int], int]:
    """Playouts inside the kernel (one call runs n of them)."""
    def run(n: int) -> int:
        F.playouts_per_run(game, n, seed=n, fast=fast, policy=policy)
        return n

    return run


def search_iterations(game: Game, piece: str, fast: bool) -> Callable[[int], int]:
    """MCTS iterations (default options) from ``piece``'s view."""
    view = game.view(piece)

    def run(n: int) -> int:
        s = MCTSSearch(view, MCTSOptions(fast=fast), seed=n)
        s.run(n)
        return n

    return run


def positions() -> tuple[Game, Game]:
    """A classic start (Mr X to move) and a round-4 position with D1 to move."""
    start = Game.new(Rules.classic(), seed=1)
    mid = Game.new(Rules.classic(), seed=1)
    rng = random.Random(1)
    x = make_agent("mcd", side="mr_x")
    d = make_agent("mtd", side="detectives")
    while mid.round < 4 or mid.to_move != "D1":
        v = mid.view(mid.to_move)
        agent = x if v.side == "mr_x" else d
        mid.push(agent.choose(v, v.legal_moves, rng, Budget()))
    return start, mid


def main(argv: list[str] | None = None) -> int:
    """Print the table."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="about 1 s a row instead of 3")
    ap.add_argument("--levels", action="store_true", help="also time one move of each level")
    args = ap.parse_args(argv)
    secs = 1.0 if args.quick else 3.0
    start, mid = positions()
    have_numba = F.numba_available()
    if have_numba:
        t0 = time.perf_counter()
        F.playouts_per_run(start, 2, seed=0, fast=True)
        MCTSSearch(mid.view("D1"), MCTSOptions(fast=True), seed=0).run(2)
        print(f"numba kernel ready in {time.perf_counter() - t0:.1f} s (compile or cache load)\n")
    else:
        print("numba is not installed: fast rows skipped\n")

    rows: list[tuple[str, str, float, float]] = []

    def row(what: str, path: str, fn: Callable[[int], int], unit_start: int = 1) -> None:
        wall, cpu = timed(fn, secs, unit_start)
        rows.append((what, path, wall, cpu))
        print(f"  {what:<44} {path:<22} {wall:>12,.0f} {cpu:>12,.0f}", flush=True)

    print(f"  {'measure (classic rules, 5 detectives)':<44} {'path':<22} {'per s wall':>12} "
          f"{'per s cpu':>12}")
    print("  " + "-" * 92)
    row("random playouts from the start", "core Game.push (base)", engine_random_playouts(start, 1))
    random_policy = F.PlayoutPolicy(1.0, 1.0)
    row("random playouts from the start", "kernel, pure Python", kernel_playouts(start, False, random_policy))
    if have_numba:
        row("random playouts from the start", "kernel, numba", kernel_playouts(start, True, random_policy), 100)
    policy = F.PlayoutPolicy()
    row("e-greedy playouts (MCD/CAL) from the start", "kernel, pure Python", kernel_playouts(start, False, policy))
    if have_numba:
        row("e-greedy playouts (MCD/CAL) from the start", "kernel, numba", kernel_playouts(start, True, policy), 100)
    row("e-greedy playouts from round 4", "kernel, pure Python", kernel_playouts(mid, False, policy))
    if have_numba:
        row("e-greedy playouts from round 4", "kernel, numba", kernel_playouts(mid, True, policy), 100)
    row("MCTS iterations, Mr X (start)", "kernel, pure Python", search_iterations(start, "X", False), 20)
    if have_numba:
        row("MCTS iterations, Mr X (start)", "kernel, numba", search_iterations(start, "X", True), 200)
    row("MCTS iterations, D1 (round 4)", "kernel, pure Python", search_iterations(mid, "D1", False), 20)
    if have_numba:
        row("MCTS iterations, D1 (round 4)", "kernel, numba", search_iterations(mid, "D1", True), 200)

    if args.levels:
        print("\n  seconds for one move of each level (wall)")
        for level in ("easy", "medium", "hard"):
            agent = make_agent(level)
            for game, piece in ((start, "X"), (mid, "D1")):
                view = game.view(piece)
                t0 = time.perf_counter()
                agent.choose(view, view.legal_moves, random.Random(0), Budget())
                print(f"  {level:<8} {view.side:<11} {time.perf_counter() - t0:8.3f}", flush=True)

    target = 10_000
    best = max((cpu for what, path, _, cpu in rows if "e-greedy" in what and "numba" in path),
               default=0.0)
    print(f"\n  issue target: >= {target:,} playouts/s on one core with the fast path; "
          f"measured (e-greedy, cpu): {best:,.0f} -> {'met' if best >= target else 'NOT met'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
