"""Engine speed against the naive baseline, in the same run.

Usage: python benchmarks/engine.py [--seconds 3] [--repeat 3] [--kernel-games 50000]
                                   [--batch-games 20000] [--threads N] [--naive PATH]
                                   [--rounds 40] [--batch 40]

Classic rules, 5 detectives, uniformly random legal moves (each move of ``legal_moves()``
equally likely), Mr X's possible locations tracked, full games from start cards drawn from the
deck. Rows, each the best of ``--repeat`` runs, taken in turn so that a noisy machine hits them
alike:

- the baseline: ``../shared/bench/py_naive.py`` (a plain Python loop of the same rules, run as
  a subprocess exactly as its README says; its RESULT line is read);
- the public API measured the same way: ``game.push(rng.choice(game.legal_moves()))`` until
  ``game.is_over()``, in a fresh interpreter of its own (this file with ``--api-loop``) for the
  same seconds, right after each naive run (the order swapped every repeat); its move tables,
  made on first use, are made before the clock by 20 games, as py_naive loads its board before
  its clock;
- the same baseline and the public API in turns in this process (py_naive's ``NaiveGame``
  imported from that file, not copied): ``--rounds`` rounds of ``--batch`` games each, the
  order swapped every round, so that a machine shared with other work slows both alike (the
  ratio of the two loops' times is the steadier figure there);
- the kernel (numba, one core): ``scotlandyard.kernel.random_games``;
- BatchSim (``scotlandyard.env.BatchSim``, uniform random, moves and possible locations kept;
  on the same kernel, its games spread over the cores).

Wall-clock figures (as py_naive reports them) and the process's CPU time per game are both
printed: on a machine shared with other work, CPU time is the steadier of the two. Each row
shows the best and the median of the repeats; the load average (``os.getloadavg``) before and
after the run is printed with the table, and below it the public API's ratio to the naive loop
as the median of the pairs run back to back (each repeat's two subprocesses, each round's two
loops), the figure that moves least with other work. BatchSim runs its games over every numba thread
(``numba.prange``; ``--threads`` sets how many) and a second BatchSim row with one thread shows
the scaling; its CPU figure is CPU time over all threads.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rich.console import Console  # noqa: E402
from rich.table import Table  # noqa: E402

from scotlandyard import Game, Rules  # noqa: E402

sys.path.insert(0, str(ROOT / "benchmarks"))
from naive_loop import find_naive, load_naive, play_api, play_naive  # noqa: E402


def naive(path: Path, seconds: float) -> tuple[float, float]:
    """(games/s wall, moves per game) of the naive loop, from its RESULT line."""
    out = subprocess.run([sys.executable, str(path), "-s", str(seconds), "--seed", "1"],
                         capture_output=True, text=True, check=True).stdout
    line = next(x for x in out.splitlines() if x.startswith("RESULT"))
    fields = dict(re.findall(r"(\w+)=([\d.]+)", line))
    return float(fields["games_per_s"]), float(fields["avg_moves"])


def public_api(rules: Rules, seconds: float, seed: int) -> tuple[float, float, float]:
    """(games/s wall, games/s CPU, moves per game) of the public API loop."""
    play_api(Game, rules, 20, random.Random(-1))  # the move tables are made on first use:
    rng = random.Random(seed)                      # before the clock
    games = moves = 0
    w0, c0 = time.perf_counter(), time.process_time()
    while time.perf_counter() - w0 < seconds:
        moves += play_api(Game, rules, 1, rng)
        games += 1
    w, c = time.perf_counter() - w0, time.process_time() - c0
    return games / w, games / c, moves / games


def api_subprocess(seconds: float, seed: int) -> tuple[float, float, float]:
    """:func:`public_api` in a fresh interpreter (``--api-loop``), as the naive loop is run."""
    out = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--api-loop",
                          str(seconds), "--seed", str(seed)],
                         capture_output=True, text=True, check=True).stdout
    line = next(x for x in out.splitlines() if x.startswith("RESULT"))
    fields = dict(re.findall(r"(\w+)=([\d.]+)", line))
    return float(fields["games_per_s"]), float(fields["cpu_games_per_s"]), float(fields["avg_moves"])


def interleaved(path: Path, rules: Rules, rounds: int, batch: int
                ) -> tuple[list[float], list[float]]:
    """Seconds per ``batch`` games of the naive loop and of the public API loop, taken in turns
    in this process (``rounds`` of each; who goes first alternates)."""
    mod = load_naive(path)
    board = mod.Board()

    def run_naive(seed: int) -> float:
        rng = random.Random(seed)
        t0 = time.perf_counter()
        play_naive(mod, board, batch, rng)
        return time.perf_counter() - t0

    def run_api(seed: int) -> float:
        rng = random.Random(seed)
        t0 = time.perf_counter()
        play_api(Game, rules, batch, rng)
        return time.perf_counter() - t0

    run_naive(10_000)  # warm both (the API's lazily made move rows included)
    run_api(10_000)
    tn: list[float] = []
    ta: list[float] = []
    for r in range(rounds):
        if r % 2:
            tn.append(run_naive(r))
            ta.append(run_api(r))
        else:
            ta.append(run_api(r))
            tn.append(run_naive(r))
    return tn, ta


def kernel(rules: Rules, n: int, seed: int) -> tuple[float, float, float]:
    """(games/s wall, games/s CPU, moves per game) of the kernel's random games."""
    from scotlandyard.kernel import random_games

    w0, c0 = time.perf_counter(), time.process_time()
    _, moves = random_games(rules, n, seed)
    w, c = time.perf_counter() - w0, time.process_time() - c0
    return n / w, n / c, moves / n


def batch(rules: Rules, n: int, seed: int, threads: int | None = None
          ) -> tuple[float, float, float]:
    """(moves/s wall, moves/s CPU of all threads, moves per game) of BatchSim, uniform random,
    recording every move and Mr X's possible locations (set-up included)."""
    import numba

    from scotlandyard.env import BatchSim

    before = numba.get_num_threads()
    numba.set_num_threads(threads or before)
    try:
        w0, c0 = time.perf_counter(), time.process_time()
        sim = BatchSim(n, rules, seed=seed)
        moves = sim.run()
        w, c = time.perf_counter() - w0, time.process_time() - c0
    finally:
        numba.set_num_threads(before)
    return moves / w, moves / c, moves / n


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--kernel-games", type=int, default=50_000)
    ap.add_argument("--batch-games", type=int, default=20_000)
    ap.add_argument("--threads", type=int, default=None,
                    help="numba threads for BatchSim (default: numba's, one per core)")
    ap.add_argument("--naive", default=None)
    ap.add_argument("--rounds", type=int, default=40,
                    help="rounds of the in-process comparison (0: skip it)")
    ap.add_argument("--batch", type=int, default=40, help="games per loop and round")
    ap.add_argument("--api-loop", type=float, default=0.0, metavar="SECONDS",
                    help="(internal) run only the public API loop and print its RESULT line")
    ap.add_argument("--seed", type=int, default=0, help="(with --api-loop)")
    args = ap.parse_args()
    if args.api_loop:
        wall, cpu, per = public_api(Rules.classic(detectives=5), args.api_loop, args.seed)
        print(f"RESULT impl=public_api games_per_s={wall:.1f} cpu_games_per_s={cpu:.1f} "
              f"avg_moves={per:.4f}")
        return
    import numba

    rules = Rules.classic(detectives=5)
    path = find_naive(args.naive)
    load0 = os.getloadavg()
    kernel(rules, 100, 0)  # compile (or load numba's cache) before timing
    batch(rules, 100, 0)
    threads = args.threads or numba.get_num_threads()
    runs: dict[str, list[tuple[float, ...]]] = {}

    def keep(name: str, values: tuple[float, ...]) -> None:
        runs.setdefault(name, []).append(values)

    for r in range(args.repeat):
        if r % 2:  # the two subprocesses in turns, who goes first swapped each repeat
            keep("api", api_subprocess(args.seconds, seed=r))
            keep("naive", naive(path, args.seconds))
        else:
            keep("naive", naive(path, args.seconds))
            keep("api", api_subprocess(args.seconds, seed=r))
        keep("kernel", kernel(rules, args.kernel_games, seed=r + 1))
        keep("batch", batch(rules, args.batch_games, seed=r, threads=threads))
        keep("batch1", batch(rules, args.batch_games, seed=r, threads=1))
    tn, ta = interleaved(path, rules, args.rounds, args.batch) if args.rounds > 0 else ([], [])
    load1 = os.getloadavg()

    def best(name: str) -> tuple[float, ...]:
        return max(runs[name])

    def med(name: str, k: int = 0) -> float:
        return statistics.median(v[k] for v in runs[name])

    nv = best("naive")[0]
    table = Table(title=f"scotlandyard engine — classic, 5 detectives, uniform random full games, "
                        f"possible locations tracked, Python {platform.python_version()}, "
                        f"{os.cpu_count()} CPUs, best (median) of {args.repeat}; load average "
                        f"{load0[0]:.2f} before, {load1[0]:.2f} after")
    for col in ("what", "wall /s", "CPU /s", "moves/game", "× naive (wall)", "aim"):
        table.add_column(col, justify="left" if col == "what" else "right")

    def fig(name: str, k: int) -> str:
        return f"{best(name)[k]:,.0f} ({med(name, k):,.0f})"

    table.add_row(f"baseline: {path.name} (plain Python loop, subprocess), games",
                  fig("naive", 0), "",
                  f"{best('naive')[1]:.1f}", "1.00", "")
    api = best("api")
    table.add_row("public API: legal_moves() + push() (subprocess), games", fig("api", 0),
                  fig("api", 1),
                  f"{api[2]:.1f}", f"{api[0] / nv:.2f} ({med('api') / med('naive'):.2f})",
                  "≥ 1.5× naive")
    if tn:
        n_best, a_best = min(tn), min(ta)
        n_med, a_med = statistics.median(tn), statistics.median(ta)
        table.add_row(f"the two in turns in this process, {args.rounds} × {args.batch} games: "
                      "naive", f"{args.batch / n_best:,.0f} ({args.batch / n_med:,.0f})", "", "",
                      "1.00", "")
        table.add_row("  … public API", f"{args.batch / a_best:,.0f} ({args.batch / a_med:,.0f})",
                      "", "", f"{n_best / a_best:.2f} ({n_med / a_med:.2f})", "≥ 1.5× naive")
    kern = best("kernel")
    table.add_row(f"kernel: random_games (numba, one core), {args.kernel_games:,} games",
                  fig("kernel", 0), fig("kernel", 1), f"{kern[2]:.1f}", f"{kern[0] / nv:.0f}",
                  "≥ 80,000 games/s")
    table.add_row(f"BatchSim, {args.batch_games:,} games, {threads} threads: moves",
                  fig("batch", 0), fig("batch", 1), f"{best('batch')[2]:.1f}", "",
                  "≥ 5,000,000 moves/s")
    table.add_row(f"BatchSim, {args.batch_games:,} games, 1 thread: moves", fig("batch1", 0),
                  fig("batch1", 1), f"{best('batch1')[2]:.1f}", "", "")
    console = Console(width=160)
    console.print(table)
    # each repeat's (round's) two runs are back to back: the ratio within a pair moves less
    # with the machine's other work than best against best, taken at different moments
    paired = [a[0] / n[0] for n, a in zip(runs["naive"], runs["api"], strict=True)]
    line = (f"public API × naive, median of the {len(paired)} back-to-back pairs: subprocesses "
            f"{statistics.median(paired):.2f} (each: {', '.join(f'{x:.2f}' for x in paired)})")
    if tn:
        line += (f"; in this process {statistics.median(n / a for n, a in zip(tn, ta, strict=True)):.2f}"
                 f" (of {len(tn)} rounds)")
    console.print(line)


if __name__ == "__main__":
    main()
