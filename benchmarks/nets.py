"""The learned belief against the default at equal iterations: our detectives (``mcts``) with
``belief="learned"`` (scotlandyard.ai.nets) and with the default ``belief="policy"`` (the MCD
softmax), each against ``nw`` Mr X (or ``--mr-x NAME``), in the same seeded starts (paired
arms).

    python benchmarks/nets.py --games 100 --budget 1000 --seed 8 --out runs/nets

Each arm is an arena run folder (``OUT/<arm>-vs-<mr x><budget>``) that resumes; ``--max-new-games
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
from scotlandyard.ai.stats import difference_interval, wilson_interval  # noqa: E402

ARMS = {"policy": {}, "learned": {"belief": "learned"}}


def arm_config(arm: str, args: argparse.Namespace) -> ArenaConfig:
    """The arena configuration of one arm."""
    return ArenaConfig(mr_x=args.mr_x, detectives="mcts", games=args.games, seed=args.seed,
                       mr_x_options={"playouts": args.mr_x_budget or args.budget},
                       detectives_options={"playouts": args.budget, **ARMS[arm]},
                       workers=args.workers)


def time_moves(folder: Path, positions: int, budget: int, seed: int) -> dict[str, float]:
    """Mean seconds per detectives' move of each arm's agent on the same positions (the
    detectives' views of the recorded games in ``folder``, every fifth one, at most
    ``positions``), the arms in turns at each position, so that the machine's load falls
    on both alike (which goes first alternates; one untimed warm-up move). Each agent is
    fresh per game, as in the arena."""
    import random
    import time

    from scotlandyard.ai import Budget, make_agent
    from scotlandyard.record import Record

    total = {arm: 0.0 for arm in ARMS}
    n = 0
    for path in sorted((folder / "games").glob("*.json")):
        game = Record.load(path).replay()
        views = []
        while game.ply > 0:
            game.pop()
            if game.to_move not in (None, "X"):
                views.append(game.view(game.to_move))
        agents = {arm: make_agent("mcts", side="detectives", playouts=budget, **opts)
                  for arm, opts in ARMS.items()}
        for k, view in enumerate(reversed(views)):
            if k % 5 or len(view.legal_moves) < 2:
                continue
            if n == 0:  # warm up (numba, caches) untimed
                for agent in agents.values():
                    agent.choose(view, view.legal_moves, random.Random(0), Budget(playouts=budget))
            order = list(agents.items())
            for arm, agent in order if n % 2 else order[::-1]:
                t = time.perf_counter()
                agent.choose(view, view.legal_moves, random.Random(seed + k), Budget(playouts=budget))
                total[arm] += time.perf_counter() - t
            n += 1
            if n >= positions:
                return {arm: x / n for arm, x in total.items()} | {"positions": n}
    return {arm: x / max(n, 1) for arm, x in total.items()} | {"positions": n}


def main(argv: list[str] | None = None) -> int:
    """Run (or resume) both arms and print the table."""
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=100)
    ap.add_argument("--budget", type=int, default=1000, help="the detectives' iterations")
    ap.add_argument("--mr-x", default="nw", help="Mr X's agent (default: the baseline nw)")
    ap.add_argument("--mr-x-budget", type=int, default=None, help="Mr X's (default: same)")
    ap.add_argument("--seed", type=int, default=8)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--max-new-games", type=int, default=None)
    ap.add_argument("--arms", default="policy,learned")
    ap.add_argument("--out", type=Path, default=Path("runs/nets"))
    ap.add_argument("--time-positions", type=int, default=0, metavar="N",
                    help="instead: time both arms' agents on N positions of the first arm's games")
    args = ap.parse_args(argv)
    if args.time_positions:
        cfg = arm_config(args.arms.split(",")[0], args)
        folder = args.out / f"{args.arms.split(',')[0]}-vs-{args.mr_x}{cfg.mr_x_options['playouts']}"
        t = time_moves(folder, args.time_positions, args.budget, args.seed)
        print(f"seconds per detectives' move at {args.budget} iterations, the same "
              f"{t['positions']:.0f} positions, in turns: " + ", ".join(
                  f"{arm} {t[arm]:.4f}" for arm in ARMS))
        return 0
    rows: list[dict[str, Any]] = []
    for arm in args.arms.split(","):
        cfg = arm_config(arm, args)
        folder = args.out / f"{arm}-vs-{args.mr_x}{cfg.mr_x_options['playouts']}"
        res = run_arena(cfg, folder, progress=sys.stderr.isatty(), max_games=args.max_new_games)
        wins = sum(1 for g in res.decided if g.winner == "detectives")
        n = len(res.decided)
        t = res.time_per_move()["detectives"]
        rows.append({"arm": arm, "wins": wins, "n": n, "mean": t.get("mean_s"),
                     "max": t.get("max_s")})
    base = rows[0]
    print(f"detectives (mcts, {args.budget} iterations) against {args.mr_x} Mr X at "
          f"{args.mr_x_budget or args.budget}, seed {args.seed}")
    print("| belief | detectives' wins | rate [Wilson 95%] | difference [95%] | Fisher p vs "
          f"{base['arm']} | s/move mean | s/move max |")
    print("|---|---:|---|---|---:|---:|---:|")
    for r in rows:
        lo, hi = wilson_interval(r["wins"], r["n"]) if r["n"] else (0.0, 0.0)
        rate = 100 * r["wins"] / r["n"] if r["n"] else 0.0
        p = fisher_exact(r["wins"], r["n"], base["wins"], base["n"]) if r["n"] and base["n"] \
            else float("nan")
        dlo, dhi = difference_interval(r["wins"], r["n"], base["wins"], base["n"])
        diff = (f"{rate - 100 * base['wins'] / base['n']:+.1f} [{100 * dlo:+.1f}, "
                f"{100 * dhi:+.1f}]") if r["n"] and base["n"] else "-"
        mean = f"{r['mean']:.3f}" if r["mean"] is not None else "-"
        worst = f"{r['max']:.2f}" if r["max"] is not None else "-"
        print(f"| {r['arm']} | {r['wins']}/{r['n']} | {rate:.1f}% [{100 * lo:.1f}, "
              f"{100 * hi:.1f}] | {diff} | {p:.3g} | {mean} | {worst} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
