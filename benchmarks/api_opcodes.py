"""The public API against the naive loop, counted in executed Python bytecodes (no clock).

Usage: python benchmarks/api_opcodes.py [--games 30] [--seed 1] [--naive PATH] [--top 12]

The same loop as ``benchmarks/engine.py`` (classic rules, 5 detectives, uniformly random full
games, possible locations tracked): ``game.push(rng.choice(game.legal_moves()))`` until
``game.is_over()``, beside the naive loop of ``../shared/bench/py_naive.py`` imported in this
process. ``sys.settrace`` with opcode events counts every bytecode either loop executes per
game (both sides' ``rng.choice`` included), and where. Unlike a timing this figure does not
move with the machine's load, so it shows what a change did on a machine shared with other
work; it is not a speed: bytecodes differ in cost (a big-int shift costs more than a local
load), and ``engine.py``'s clock decides the ``x naive`` figure.
"""

from __future__ import annotations

import argparse
import collections
import random
import sys
from pathlib import Path
from types import FrameType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rich.console import Console  # noqa: E402
from rich.table import Table  # noqa: E402

from scotlandyard import Game, Rules  # noqa: E402

sys.path.insert(0, str(ROOT / "benchmarks"))
from naive_loop import find_naive, load_naive  # noqa: E402


def count(play: Any, games: int, seed: int) -> tuple[collections.Counter[str], int]:
    """(bytecodes per function name, moves) of ``games`` games of ``play(rng)``."""
    counts: collections.Counter[str] = collections.Counter()

    def local(frame: FrameType, event: str, arg: object) -> Any:
        if event == "opcode":
            counts[frame.f_code.co_qualname] += 1
        return local

    def tracer(frame: FrameType, event: str, arg: object) -> Any:
        frame.f_trace_opcodes = True
        frame.f_trace_lines = False
        return local

    rng = random.Random(seed)
    moves = 0
    sys.settrace(tracer)
    try:
        for _ in range(games):
            moves += play(rng)
    finally:
        sys.settrace(None)
    return counts, moves


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=30)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--naive", default=None)
    ap.add_argument("--top", type=int, default=12, help="functions listed per side")
    args = ap.parse_args()
    rules = Rules.classic(detectives=5)
    naive = load_naive(find_naive(args.naive))
    board = naive.Board()

    def play_naive(rng: random.Random) -> int:
        g = naive.NaiveGame(board, rng, True)
        n = 0
        while not g.is_over():
            g.push(rng.choice(g.legal_moves()))
            n += 1
        return n

    def play_api(rng: random.Random) -> int:
        g = Game.new(rules, seed=rng.randrange(1 << 30))
        n = 0
        while not g.is_over():
            g.push(rng.choice(g.legal_moves()))
            n += 1
        return n

    warm = Game.new(rules, seed=0)  # build the move tables outside the count
    warm.push(warm.legal_moves()[-1])
    results = {name: count(play, args.games, args.seed)
               for name, play in (("naive", play_naive), ("api", play_api))}
    per_game = {name: sum(c.values()) / args.games for name, (c, _m) in results.items()}
    table = Table(title=f"bytecodes executed per uniform random full game (classic, 5 detectives, "
                        f"{args.games} games, Python {sys.version.split()[0]})")
    for col in ("what", "bytecodes/game", "bytecodes/move", "moves/game", "naive / this"):
        table.add_column(col, justify="left" if col == "what" else "right")
    for name, label in (("naive", "baseline: py_naive.py"),
                        ("api", "public API: legal_moves() + push()")):
        c, moves = results[name]
        table.add_row(label, f"{per_game[name]:,.0f}", f"{sum(c.values()) / moves:.0f}",
                      f"{moves / args.games:.1f}", f"{per_game['naive'] / per_game[name]:.2f}")
    console = Console(width=120)
    console.print(table)
    for name, (c, _m) in results.items():
        top = ", ".join(f"{fn} {n / args.games:,.0f}" for fn, n in c.most_common(args.top))
        console.print(f"[bold]{name}[/] per game: {top}", highlight=False)


if __name__ == "__main__":
    main()
