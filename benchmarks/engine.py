"""Engine speed: random full games per second, move generation and possible-location updates.

Usage: python benchmarks/engine.py [--games 2000] [--repeat 3]

Classic rules, 5 detectives, full rules (double moves, black tickets, ticket hand-over),
uniformly random legal moves, one core. Prints a table; each figure is the best of
``--repeat`` runs. The baseline rows in the same run are the naive ways to do the same work
(a set-based possible-location update, ``copy()`` instead of ``push``/``pop``), so the table
says what the engine's design buys on this machine today.
"""

from __future__ import annotations

import argparse
import platform
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rich.console import Console  # noqa: E402
from rich.table import Table  # noqa: E402

from scotlandyard import Game, Rules, london  # noqa: E402


def best(fn, repeat: int) -> float:
    """Best wall time of ``repeat`` calls of ``fn``."""
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def random_games(rules: Rules, n: int, checked: bool = True) -> tuple[int, int]:
    """Play ``n`` uniformly random games; return (games, moves)."""
    moves = 0
    for seed in range(n):
        g = Game.new(rules, seed=seed)
        rng = random.Random(seed)
        push = g.push if checked else g._push
        while not g.is_over():
            ms = g.legal_moves()
            push(ms[rng.randrange(len(ms))])
            moves += 1
    return n, moves


def random_games_copy(rules: Rules, n: int) -> None:
    """Baseline: the same games, but every move made on a fresh copy (no make/unmake)."""
    for seed in range(n):
        g = Game.new(rules, seed=seed)
        rng = random.Random(seed)
        while not g.is_over():
            ms = g.legal_moves()
            g = g.copy()
            g.push(ms[rng.randrange(len(ms))])


def collect_positions(rules: Rules, n: int) -> list[Game]:
    """Positions met in random games, for the per-call timings."""
    out = []
    for seed in range(n):
        g = Game.new(rules, seed=seed)
        rng = random.Random(seed)
        while not g.is_over():
            out.append(g.copy())
            ms = g.legal_moves()
            g.push(ms[rng.randrange(len(ms))])
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=2000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    rules = Rules.classic(detectives=5)
    board = london("classic")
    console = Console()
    table = Table(title=f"scotlandyard engine — classic, 5 detectives, one core, Python {platform.python_version()}")
    table.add_column("what")
    table.add_column("figure", justify="right")
    table.add_column("unit")
    table.add_column("aim", justify="right")

    _, moves = random_games(rules, args.games)
    t = best(lambda: random_games(rules, args.games), args.repeat)
    table.add_row("random full games, game.push (validated)", f"{args.games / t:,.0f}", "games/s", "≥ 2,000")
    table.add_row("  moves per game (mean)", f"{moves / args.games:.1f}", "moves", "")
    t2 = best(lambda: random_games(rules, args.games, checked=False), args.repeat)
    table.add_row("random full games, unchecked _push", f"{args.games / t2:,.0f}", "games/s", "")
    nb = max(50, args.games // 10)
    t3 = best(lambda: random_games_copy(rules, nb), args.repeat)
    table.add_row("  baseline: copy() per move instead of push/pop", f"{nb / t3:,.0f}", "games/s", "")

    positions = collect_positions(rules, 200)
    xs = [g for g in positions if g.to_move == "X"]
    hs = [g for g in positions if g.to_move != "X"]

    def gen(gs: list[Game]) -> None:
        for g in gs:
            g.legal_moves()

    tx = best(lambda: gen(xs), args.repeat)
    th = best(lambda: gen(hs), args.repeat)
    table.add_row("legal_moves(), Mr X (doubles + black incl.)", f"{tx / len(xs) * 1e6:.2f}", "µs", "")
    table.add_row("legal_moves(), detective", f"{th / len(hs) * 1e6:.2f}", "µs", "")

    def push_pop(gs: list[Game]) -> None:
        for g in gs:
            m = g.legal_moves()[0]
            g.push(m)
            g.pop()

    tp = best(lambda: push_pop(hs[:5000]), args.repeat) - best(lambda: gen(hs[:5000]), args.repeat)
    table.add_row("push + pop (validated), detective move", f"{tp / min(5000, len(hs)) * 1e6:.2f}", "µs", "")

    # possible-location update: the belief sets met in play, one step per ticket kind
    beliefs = [g.possible_bits for g in positions]
    steps = [(b, t) for b in beliefs for t in (0, 1, 2, 4)]

    def update_bits() -> None:
        expand = board.expand
        occ = 0b1011 << 40
        for b, t in steps:
            expand(b, t) & ~occ

    def update_sets() -> None:
        nbrs = [[set(board.neighbours[t][s]) for s in range(200)] for t in range(4)]
        anyn = [set().union(*(nbrs[t][s] for t in range(4))) for s in range(200)]
        sets = [(set(_bits(b)), t) for b, t in steps]
        occ = {40, 41, 43}
        t0 = time.perf_counter()
        for s, t in sets:
            out: set[int] = set()
            for u in s:
                out |= anyn[u] if t == 4 else nbrs[t][u]
            out -= occ
        return time.perf_counter() - t0  # type: ignore[return-value]

    tb = best(update_bits, args.repeat)
    ts = min(update_sets() for _ in range(args.repeat))
    mean_size = sum(bin(b).count("1") for b in beliefs) / len(beliefs)
    table.add_row("possible-location update (bitset, byte tables)", f"{tb / len(steps) * 1e6:.2f}", "µs", "≤ 5")
    table.add_row("  baseline: python set union per station", f"{ts / len(steps) * 1e6:.2f}", "µs", "")
    table.add_row("  mean possible-set size in these games", f"{mean_size:.1f}", "stations", "")
    console.print(table)


def _bits(b: int) -> list[int]:
    out = []
    while b:
        low = b & -b
        out.append(low.bit_length() - 1)
        b ^= low
    return out


if __name__ == "__main__":
    main()
