"""The public API of this checkout against an earlier revision's, and the naive loop, in one run.

Usage: python benchmarks/api_compare.py [--base main] [--rounds 10] [--games 300] [--naive PATH]

For a change to ``Game``'s speed: the loop of ``benchmarks/engine.py``
(``game.push(rng.choice(game.legal_moves()))`` until ``game.is_over()``; classic rules,
5 detectives, possible locations tracked) run from two package trees, this checkout's
``scotlandyard`` and ``--base``'s (a git revision, exported with ``git archive`` to a temporary
folder), beside the naive loop of ``../shared/bench/py_naive.py``. Each run is a fresh
interpreter that plays 100 games to make the move tables, then ``--games`` games three times and
reports the least CPU time (``time.process_time``); the three loops take turns, the order
reversed every round, so that other work on the machine slows them alike. Prints each loop's
best (median) CPU seconds, each API's ratio to the naive loop, and this checkout against the
base (the ratio of the bests and the median of the per-round ratios).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _loop(which: str, games: int, seed: int, naive_path: str) -> float:
    """Least CPU seconds of three runs of ``games`` games of ``which`` (``api`` or ``naive``)."""
    run: Callable[[int, int], None]
    if which == "naive":
        from naive_loop import load_naive, play_naive  # imports nothing of scotlandyard

        mod = load_naive(naive_path)
        board = mod.Board()

        def run(k: int, s: int) -> None:
            play_naive(mod, board, k, random.Random(s))
    else:
        from naive_loop import play_api

        from scotlandyard import Game, Rules  # the tree on PYTHONPATH

        rules = Rules.classic(detectives=5)

        def run(k: int, s: int) -> None:
            play_api(Game, rules, k, random.Random(s))
    run(100, 12345)  # the API's move tables are made on first use
    best = float("inf")
    for rep in range(3):
        c0 = time.process_time()
        run(games, seed + rep)
        best = min(best, time.process_time() - c0)
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--base", default="main", help="the git revision to compare against")
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--games", type=int, default=300)
    ap.add_argument("--naive", default=None)
    ap.add_argument("--loop", nargs=3, metavar=("WHICH", "GAMES", "SEED"),
                    help="(internal) one timed run in this interpreter")
    args = ap.parse_args()
    if args.loop:  # (imports nothing else: the naive loop's process holds only that loop)
        print(_loop(args.loop[0], int(args.loop[1]), int(args.loop[2]), args.naive))
        return
    from naive_loop import export_package, find_naive

    naive_path = str(find_naive(args.naive))
    with tempfile.TemporaryDirectory() as tmp:
        export_package(args.base, tmp)
        trees = {"naive": ("naive", str(ROOT)), f"base ({args.base})": ("api", tmp),
                 "this checkout": ("api", str(ROOT))}
        times: dict[str, list[float]] = {k: [] for k in trees}
        order = list(trees)
        load0 = os.getloadavg()[0]
        for r in range(args.rounds):
            for name in order if r % 2 == 0 else order[::-1]:
                which, tree = trees[name]
                out = subprocess.run(
                    [sys.executable, __file__, "--loop", which, str(args.games), str(r),
                     "--naive", naive_path],
                    capture_output=True, text=True, check=True,
                    env={**os.environ, "PYTHONPATH": tree}).stdout
                times[name].append(float(out.split()[-1]))
        load1 = os.getloadavg()[0]
    nv = times["naive"]
    print(f"CPU seconds per {args.games} games, best (median) of {args.rounds} rounds; "
          f"load average {load0:.2f} before, {load1:.2f} after")
    for name, ts in times.items():
        print(f"  {name:22s} {min(ts):.4f} ({statistics.median(ts):.4f})   × naive "
              f"{min(nv) / min(ts):.3f} ({statistics.median(nv) / statistics.median(ts):.3f})")
    base, this = times[f"base ({args.base})"], times["this checkout"]
    per_round = statistics.median(b / t for b, t in zip(base, this, strict=True))
    print(f"this checkout against {args.base}: {min(base) / min(this):.3f}× (bests), "
          f"{per_round:.3f}× (median of the per-round ratios)")


if __name__ == "__main__":
    main()
