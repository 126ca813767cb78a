"""The computer analysis's speed: a whole 22-round game (Mr X free to the end, the longest game)
analysed with the web page's settings, against the post-game possible-set analysis (the
baseline: ``scotlandyard.analysis.analyse``) of the same game, in the same run.

    python benchmarks/review.py              # two games, about two minutes
    python benchmarks/review.py --games 1

"wall" is elapsed time, "cpu" this process's CPU time (what one core gives when the machine is
shared); the load average is printed beside. The numba kernel is compiled (or loaded from its
cache) before timing.
"""

from __future__ import annotations

import argparse
import os
import random
import time

from scotlandyard import Game, Rules
from scotlandyard.ai import Budget, make_agent
from scotlandyard.ai.review import review
from scotlandyard.analysis import analyse
from scotlandyard.kernel.fast import playouts_per_run
from scotlandyard.move import MR_X


def long_game(seed: int) -> Game:
    """A classic game (5 detectives) that Mr X survives to the end: the longest to analyse."""
    for s in range(seed, seed + 500):
        game = Game.new(Rules.classic(detectives=5), seed=s)
        rng = random.Random(s)
        ax, ad = make_agent("heuristic", side="mr_x"), make_agent("random", side="detectives")
        while not game.is_over():
            v = game.view(game.to_move)
            agent = ax if game.to_move == MR_X else ad
            game.push(agent.choose(v, v.legal_moves, rng, Budget(playouts=50)))
        out = game.outcome()
        if out is not None and out.reason == "survived":
            return game
    raise RuntimeError("no game went to the end")


def timed(fn: object) -> tuple[float, float]:
    w, c = time.perf_counter(), time.process_time()
    fn()  # type: ignore[operator]
    return time.perf_counter() - w, time.process_time() - c


def main() -> None:
    """Print the table."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=2)
    ap.add_argument("--playouts", type=int, default=400)
    args = ap.parse_args()
    warm = Game.new(Rules.classic(), seed=1)
    playouts_per_run(warm, 10, 1)  # compile / load the kernel
    print(f"{'game':>5} {'moves':>6} {'what':<34} {'wall s':>8} {'cpu s':>8} {'load':>5}")
    for i in range(args.games):
        game = long_game(1000 * (i + 1))
        rows = [("possible-set analysis (baseline)", lambda g=game: analyse(g)),
                (f"computer analysis, {args.playouts} playouts",
                 lambda g=game: review(g, playouts=args.playouts))]
        for what, fn in rows:
            w, c = timed(fn)
            print(f"{i + 1:>5} {len(game.moves):>6} {what:<34} {w:>8.1f} {c:>8.1f} "
                  f"{os.getloadavg()[0]:>5.1f}")


if __name__ == "__main__":
    main()
