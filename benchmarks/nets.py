"""The learned belief against the default at equal iterations: our detectives (``mcts``) with
``belief="learned"`` (scotlandyard.ai.nets) and with the default ``belief="policy"`` (the MCD
softmax), each against ``nw`` Mr X, in the same seeded starts (paired arms).

    python benchmarks/nets.py --games 100 --budget 1000 --seed 8 --out runs/nets

Each arm is an arena run folder (``OUT/<arm>-vs-nw<budget>``) that resumes; ``--max-new-games
0`` only prints the table of what is recorded. The table gives the detectives' wins with Wilson
95% intervals, Fisher's exact p of each arm against the default, and the detectives' mean and
worst seconds per move (the time the belief costs is in them: equal iterations, time reported).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from nijssen_winands import fisher_exact  # noqa: E402

from scotlandyard.ai.arena import ArenaConfig, run_arena  # noqa: E402
from scotlandyard.ai.stats import wilson_interval  # noqa: E402

ARMS = {"policy": {}, "learned": {"belief": "learned"}}


def arm_config(arm: str, args: argparse.Namespace) -> ArenaConfig:
    """The arena configuration of one arm."""
    return ArenaConfig(mr_x="nw", detectives="mcts", games=args.games, seed=args.seed,
                       mr_x_options={"playouts": args.mr_x_budget or args.budget},
                       detectives_options={"playouts": args.budget, **ARMS[arm]},
                       workers=args.workers)


def main(argv: list[str] | None = None) -> int:
    """Run (or resume) both arms and print the table."""
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=100)
    ap.add_argument("--budget", type=int, default=1000, help="the detectives' iterations")
    ap.add_argument("--mr-x-budget", type=int, default=None, help="nw Mr X's (default: same)")
    ap.add_argument("--seed", type=int, default=8)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--max-new-games", type=int, default=None)
    ap.add_argument("--arms", default="policy,learned")
    ap.add_argument("--out", type=Path, default=Path("runs/nets"))
    args = ap.parse_args(argv)
    rows: list[dict[str, Any]] = []
    for arm in args.arms.split(","):
        cfg = arm_config(arm, args)
        folder = args.out / f"{arm}-vs-nw{cfg.mr_x_options['playouts']}"
        res = run_arena(cfg, folder, progress=sys.stderr.isatty(), max_games=args.max_new_games)
        wins = sum(1 for g in res.decided if g.winner == "detectives")
        n = len(res.decided)
        t = res.time_per_move()["detectives"]
        rows.append({"arm": arm, "wins": wins, "n": n, "mean": t.get("mean_s"),
                     "max": t.get("max_s")})
    base = rows[0]
    print(f"detectives (mcts, {args.budget} iterations) against nw Mr X, seed {args.seed}")
    print("| belief | detectives' wins | rate [Wilson 95%] | Fisher p vs "
          f"{base['arm']} | s/move mean | s/move max |")
    print("|---|---:|---|---:|---:|---:|")
    for r in rows:
        lo, hi = wilson_interval(r["wins"], r["n"]) if r["n"] else (0.0, 0.0)
        rate = 100 * r["wins"] / r["n"] if r["n"] else 0.0
        p = fisher_exact(r["wins"], r["n"], base["wins"], base["n"]) if r["n"] and base["n"] \
            else float("nan")
        mean = f"{r['mean']:.3f}" if r["mean"] is not None else "-"
        worst = f"{r['max']:.2f}" if r["max"] is not None else "-"
        print(f"| {r['arm']} | {r['wins']}/{r['n']} | {rate:.1f}% [{100 * lo:.1f}, "
              f"{100 * hi:.1f}] | {p:.3f} | {mean} | {worst} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
