"""Ticket management of the ``mcts`` detectives (issue 24, item 3): ``mcts`` detectives
without ticket management (``base``), with session 8's ``ticket_reserve`` (``reserve``) and
with today's ``ticket_plan="late"`` (``plan``, ``mcts`` as it is) against ``nw``'s Mr X, the
same playouts a move for both sides, on the same seeded starts in every arm.

Classic rules give a detective 10 taxi, 8 bus and 4 underground tickets for 22 rounds: one
that spends its taxis early can only move at bus and underground stations, and when no
detective can use what it holds Mr X wins ("detectives stuck"). The table gives, per start
sample (arena seed) and pooled: games, the detectives' wins and the "detectives stuck"
endings of each arm, and Fisher's exact test of the stuck endings and of the wins between the
arms; a second table what the records show about the tickets (when a detective's taxis ran
out, passes, in which round the stuck endings came, what the stuck detectives held)::

    python benchmarks/tickets.py --games 100 --round-size 25 --out runs/tickets
    python benchmarks/tickets.py --games 100 --max-new-games 0 --out runs/tickets  # table only
    python benchmarks/tickets.py --arms base,reserve,plan --reserve 0.4 --out runs/tickets

Every arm after the first is compared with the first.

Each arm and sample is an arena run folder (``<out>/<arm>-<playouts>-seed<seed>``): a stopped
run resumes. ``--round-size n`` plays every folder to n games, then to 2n, ..., so that a run
stopped by time leaves arms of equal size.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from scotlandyard import Rules
from scotlandyard.ai.arena.config import ArenaConfig
from scotlandyard.ai.arena.run import run_arena

sys.path.insert(0, str(Path(__file__).resolve().parent))
from nijssen_winands import fisher_exact  # noqa: E402

#: The arms: today's ``mcts`` detectives without ticket management, with the ticket reserve
#: instead of the plan, and as they are (the plan).
ARMS: dict[str, dict[str, Any]] = {
    "base": {"ticket_reserve": 0.0, "ticket_plan": "off"},
    "reserve": {"ticket_plan": "off"},
    "plan": {"ticket_reserve": 0.0, "ticket_plan": "late"},
}
TICKET_LETTERS = {"T": 0, "B": 1, "U": 2}


def config(arm: str, reserve: float, playouts: int, seed: int, games: int) -> ArenaConfig:
    """The arena run of ``arm`` (``base``, ``reserve`` or ``plan``) on start sample ``seed``."""
    # written out: ``mcts``'s defaults changed since this benchmark began
    opts: dict[str, Any] = dict(ARMS[arm])
    if arm == "reserve":
        opts["ticket_reserve"] = reserve
    return ArenaConfig(mr_x="nw", detectives="mcts", games=games,
                       rules=Rules.classic(detectives=5), detectives_options=opts,
                       budget=playouts, seed=seed)


def folder(out: Path, arm: str, reserve: float, playouts: int, seed: int) -> Path:
    """The run folder of one arm and sample."""
    name = f"reserve{reserve:g}" if arm == "reserve" else arm
    return out / f"{name}-{playouts}-seed{seed}"


def ticket_story(record: dict[str, Any]) -> dict[str, Any]:
    """What one game record shows about the detectives' tickets: for every detective the
    round its taxis ran out (None: never), its passes, and at a "detectives stuck" ending the
    tickets the detectives still held."""
    rules = record["rules"]
    start = rules["detective_tickets"]
    pieces = [f"D{i}" for i in range(1, rules["detectives"] + 1)]
    held = {p: list(start) for p in pieces}
    taxi_out: dict[str, int | None] = dict.fromkeys(pieces)
    passes = Counter[str]()
    for m in record["moves"]:
        p = m["piece"]
        if p not in held:
            continue
        text = m["move"].split(":")[-1]
        if text == "pass":
            passes[p] += 1
            continue
        held[p][TICKET_LETTERS[text[0]]] -= 1
        if held[p][0] == 0 and taxi_out[p] is None:
            taxi_out[p] = m["round"]
    res = record["result"]
    stuck = res["reason"] == "detectives_stuck"
    kinds = []
    if stuck:
        for p in pieces:
            t, b, u = held[p]
            kinds.append("".join(k * n for k, n in zip("TBU", (t, b, u), strict=True)) or "-")
    return {"taxi_out": taxi_out, "passes": sum(passes.values()), "stuck": stuck,
            "round": res["round"], "held": kinds}


def records(path: Path, games: int) -> list[dict[str, Any]]:
    """The game records of a run folder (its first ``games`` games)."""
    out = []
    for f in sorted((path / "games").glob("*.json"))[:games]:
        out.append(json.loads(f.read_text()))
    return out


def story_row(arm: str, recs: list[dict[str, Any]]) -> str:
    """One row of the tickets table for ``arm``'s records."""
    stories = [ticket_story(r) for r in recs]
    outs = [r for s in stories for r in s["taxi_out"].values()]
    ran = [r for r in outs if r is not None]
    stuck_rounds = Counter(s["round"] for s in stories if s["stuck"])
    held = Counter(h for s in stories if s["stuck"] for h in s["held"])
    n = len(stories) or 1
    rounds = ", ".join(f"r{k}: {v}" for k, v in sorted(stuck_rounds.items())) or "-"
    kinds = ", ".join(f"{k} x{v}" for k, v in held.most_common(4)) or "-"
    return (f"| {arm} | {len(stories)} | {len(ran)}/{len(outs)} | "
            f"{statistics.median(ran) if ran else '-'} | "
            f"{sum(s['passes'] for s in stories) / n:.2f} | {rounds} | {kinds} |")


def main() -> None:
    """Play (or only tabulate) both arms on every start sample and print the tables."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=100, help="games per arm and sample")
    parser.add_argument("--playouts", type=int, default=1000, help="both sides, a move")
    parser.add_argument("--samples", default="11,2012", help="arena seeds, comma-separated")
    parser.add_argument("--reserve", type=float, default=0.3, help="the ticket_reserve arm's value")
    parser.add_argument("--arms", default="base,plan",
                        help="arms to play, comma-separated (base, reserve, plan)")
    parser.add_argument("--round-size", type=int, default=0)
    parser.add_argument("--max-new-games", type=int, default=None,
                        help="new games per folder and round (0: only tabulate)")
    parser.add_argument("--out", default="runs/tickets")
    args = parser.parse_args()
    samples = [int(s) for s in args.samples.split(",") if s]
    arms = [a for a in args.arms.split(",") if a]
    for a in arms:
        if a not in ARMS:
            raise SystemExit(f"an arm is base, reserve or plan, not {a!r}")
    out = Path(args.out)
    step = args.round_size or args.games
    targets = list(range(step, args.games, step)) + [args.games]
    result: dict[tuple[str, int], Any] = {}
    for target in targets:
        for seed in samples:
            for arm in arms:
                cfg = config(arm, args.reserve, args.playouts, seed, target)
                print(f"{target} games: {arm}, seed {seed}", file=sys.stderr, flush=True)
                result[arm, seed] = run_arena(
                    cfg, folder(out, arm, args.reserve, args.playouts, seed), progress=False,
                    max_games=args.max_new_games)
    label = {"base": "mcts without ticket management",
             "reserve": f"mcts, ticket_reserve={args.reserve:g}",
             "plan": 'mcts (ticket_plan="late")'}
    print(f"mcts detectives against nw's Mr X, {args.playouts:,} playouts a move for both; "
          f"the same starts in every arm\n")
    print("| sample | arm | games | detectives' wins | win rate | detectives stuck | "
          "detectives' ms a move |")
    print("|---|---|---:|---:|---:|---:|---:|")
    pooled: dict[str, list[float]] = {a: [0, 0, 0, 0, 0.0] for a in arms}
    for sample in [*samples, None]:
        for arm in arms:
            if sample is None:
                n, w, s, moves, think = pooled[arm]
            else:
                r = result[arm, sample]
                n = len(r.decided)
                w = r.win_rate("detectives").wins
                s = r.reasons().get("mr_x", {}).get("detectives_stuck", 0)
                moves = sum(g.moves.get("detectives", 0) for g in r.games)
                think = sum(g.think.get("detectives", 0.0) for g in r.games)
                for k, v in enumerate((n, w, s, moves, think)):
                    pooled[arm][k] += v
            rate = f"{w / n:.1%}" if n else "-"
            ms = f"{think / moves * 1000:.1f}" if moves else "-"
            print(f"| {sample if sample is not None else 'pooled'} | {label[arm]} | {n:.0f} | "
                  f"{w:.0f} | {rate} | {s:.0f} | {ms} |")
    n0, w0, s0 = (int(v) for v in pooled[arms[0]][:3])
    for other in arms[1:]:
        n1, w1, s1 = (int(v) for v in pooled[other][:3])
        if n0 and n1:
            print(f"\nPooled, {label[other]} against {label[arms[0]]}: detectives stuck "
                  f"{s1}/{n1} against {s0}/{n0} (ratio {s1 / n1 / max(s0 / n0, 1e-9):.2f}, "
                  f"Fisher p = {fisher_exact(s1, n1, s0, n0):.3g}); wins {w1}/{n1} against "
                  f"{w0}/{n0} ({(w1 / n1 - w0 / n0) * 100:+.1f} points, "
                  f"Fisher p = {fisher_exact(w1, n1, w0, n0):.3g})")
    print("\nThe detectives' tickets in the records (pooled over the samples)\n")
    print("| arm | games | detectives whose taxis ran out | median round of it | "
          "passes a game | stuck endings by round | tickets held at a stuck ending |")
    print("|---|---:|---:|---:|---:|---|---|")
    for arm in arms:
        recs: list[dict[str, Any]] = []
        for seed in samples:
            r = result[arm, seed]
            recs += records(folder(out, arm, args.reserve, args.playouts, seed),
                            r.config.games)
        print(story_row(label[arm], recs))


if __name__ == "__main__":
    main()
