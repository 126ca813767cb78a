"""This checkout's kernel or public API against a git revision's, both in this one process.

Usage: python benchmarks/inprocess_compare.py [--what kernel|api] [--base main] [--rounds 10]
                                              [--games N] [--naive PATH]

For a speed change on a machine shared with other work: the revision ``--base`` is exported
with ``git archive`` to a temporary folder and imported beside this checkout's
``scotlandyard`` under another package name, so that the two run in turns in one interpreter,
the order swapped every round; other work then slows both alike, and the median of the
per-round ratios is the steady figure.

- ``--what kernel``: ``scotlandyard.kernel.random_games`` (numba; classic rules, 5 detectives,
  uniform random full games, possible locations tracked), ``--games`` games a call (default
  30,000); both are compiled before the clock (the base's numba cache lives in the temporary
  folder, so its first compile takes a while). The two must play the same games: their
  (Mr X's wins, moves) are printed and compared.
- ``--what api``: the loop of ``benchmarks/engine.py``
  (``game.push(rng.choice(game.legal_moves()))`` until ``game.is_over()``), ``--games`` games a
  call (default 100), and the naive loop of ``../shared/bench/py_naive.py`` in the same turns.

CPU time (``time.process_time``) of each call; prints games/s best (median) and the ratios.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from naive_loop import export_package, find_naive, load_naive, play_api, play_naive  # noqa: E402

import scotlandyard  # noqa: E402


def load_package(name: str, folder: Path) -> ModuleType:
    """The package in ``folder`` imported as ``name`` (its relative imports stay inside it)."""
    spec = importlib.util.spec_from_file_location(name, folder / "__init__.py",
                                                  submodule_search_locations=[str(folder)])
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def kernel_run(pkg: ModuleType) -> Callable[[int, int], tuple[float, tuple[int, int]]]:
    """A timed call of ``pkg``'s kernel random games: (CPU seconds, (wins, moves))."""
    kern = importlib.import_module(pkg.__name__ + ".kernel")
    rules = pkg.Rules.classic(detectives=5)

    def run(n: int, seed: int) -> tuple[float, tuple[int, int]]:
        c0 = time.process_time()
        got = kern.random_games(rules, n, seed)
        return time.process_time() - c0, got
    return run


def api_run(pkg: ModuleType) -> Callable[[int, int], tuple[float, tuple[int, int]]]:
    """A timed call of ``n`` random games through ``pkg``'s public API."""
    game_cls, rules = pkg.Game, pkg.Rules.classic(detectives=5)

    def run(n: int, seed: int) -> tuple[float, tuple[int, int]]:
        rng = random.Random(seed)
        c0 = time.process_time()
        moves = play_api(game_cls, rules, n, rng)
        return time.process_time() - c0, (0, moves)
    return run


def naive_run(path: Path) -> Callable[[int, int], tuple[float, tuple[int, int]]]:
    """A timed call of ``n`` games of the naive loop."""
    mod = load_naive(path)
    board = mod.Board()

    def run(n: int, seed: int) -> tuple[float, tuple[int, int]]:
        rng = random.Random(seed)
        c0 = time.process_time()
        play_naive(mod, board, n, rng)
        return time.process_time() - c0, (0, 0)
    return run


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--what", choices=("kernel", "api"), default="kernel")
    ap.add_argument("--base", default="main", help="the git revision to compare against")
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--games", type=int, default=None)
    ap.add_argument("--naive", default=None)
    args = ap.parse_args()
    games = args.games or (30_000 if args.what == "kernel" else 100)
    with tempfile.TemporaryDirectory() as tmp:
        base = load_package("_scotlandyard_base", export_package(args.base, tmp))
        make = kernel_run if args.what == "kernel" else api_run
        runs = {f"base ({args.base})": make(base), "this checkout": make(scotlandyard)}
        if args.what == "api":
            runs = {"naive": naive_run(find_naive(args.naive)), **runs}
        warm = {name: run(200 if args.what == "kernel" else 30, 12345)[1]
                for name, run in runs.items()}  # compile / make the move tables
        if args.what == "kernel":
            same = len({v for v in warm.values()}) == 1
            print(f"the same games (wins, moves of 200): {same} {list(warm.values())}")
        times: dict[str, list[float]] = {k: [] for k in runs}
        order = list(runs)
        load0 = os.getloadavg()[0]
        for r in range(args.rounds):
            for name in order if r % 2 == 0 else order[::-1]:
                times[name].append(runs[name](games, r + 1)[0])
        load1 = os.getloadavg()[0]
    print(f"{args.what}: games/s (CPU), best (median) of {args.rounds} rounds of {games:,} "
          f"games; load average {load0:.2f} before, {load1:.2f} after")
    for name, ts in times.items():
        print(f"  {name:22s} {games / min(ts):10,.0f} ({games / statistics.median(ts):,.0f})")
    b, t = times[f"base ({args.base})"], times["this checkout"]
    print(f"this checkout against {args.base}: {min(b) / min(t):.3f}x (bests), "
          f"{statistics.median(x / y for x, y in zip(b, t, strict=True)):.3f}x "
          "(median of the per-round ratios)")
    if "naive" in times:
        nv = times["naive"]
        for name in (f"base ({args.base})", "this checkout"):
            ts = times[name]
            print(f"{name} against the naive loop: {min(nv) / min(ts):.3f}x (bests), "
                  f"{statistics.median(x / y for x, y in zip(nv, ts, strict=True)):.3f}x "
                  "(median of the per-round ratios)")


if __name__ == "__main__":
    main()
