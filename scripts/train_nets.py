"""Train the detectives' learned model of Mr X (scotlandyard.ai.nets) on Mr X's real moves.

The data are game records with full visibility (``scotlandyard-record`` JSON or text, as the
arena writes them under ``RUN/games/``). Either read existing records::

    python scripts/train_nets.py --records 'runs/**/games/*.json' --out scotlandyard/data/mr_x_policy.npz

or let the script play its own self-play games first, through the arena (the same agents the
detectives meet: ``nw`` and ``mcts`` Mr X), and train on those::

    python scripts/train_nets.py --self-play 200 --games-dir runs/nets-selfplay --out model.npz

The games are split by game into a training part and a held-out part (``--holdout``); the
script prints the mean log-likelihood per step of Mr X's moves under the uniform model, the
MCD softmax and the fitted model on both parts (also stored in the file's ``meta``), and with
``--belief N`` the mean log-probability of Mr X's true station under each belief on N
held-out games. numpy only: no torch.
"""

from __future__ import annotations

import argparse
import glob
import json
import math
import sys
import time
import zlib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from scotlandyard.ai import nets
from scotlandyard.ai.arena import ArenaConfig, run_arena
from scotlandyard.ai.belief_search import policy_weights
from scotlandyard.game import Game
from scotlandyard.record import Record, RecordError
from scotlandyard.view import PlayerView


def load_games(paths: Sequence[str]) -> tuple[list[Game], list[str]]:
    """The finished games of the record files (records that cannot be replayed, e.g. public
    ones, are skipped and named on stderr)."""
    games: list[Game] = []
    used: list[str] = []
    for p in paths:
        try:
            games.append(Record.load(p).replay())
            used.append(p)
        except (RecordError, OSError, ValueError) as exc:
            print(f"skipped {p}: {exc}", file=sys.stderr)
    return games, used


def held_out(path: str, share: float, seed: int = 0) -> bool:
    """Whether the record at ``path`` is in the held-out part: decided by a hash of its last
    three path parts (run folder, ``games``, file), so a game keeps its part when records are
    added to the set."""
    key = "/".join(Path(path).parts[-3:])
    return zlib.crc32(f"{seed}:{key}".encode()) / 2**32 < share


def self_play(games: int, out: Path, *, mr_x: Sequence[str], detectives: str,
              playouts: int, detective_playouts: int, seed: int) -> list[str]:
    """Play ``games`` arena games per Mr X agent into ``out/<agent>`` and return the record
    paths (a folder that holds them already resumes)."""
    paths: list[str] = []
    for name in mr_x:
        folder = out / f"{name}-mr_x"
        cfg = ArenaConfig(mr_x=name, detectives=detectives, games=games, seed=seed,
                          mr_x_options={"playouts": playouts},
                          detectives_options={"playouts": detective_playouts})
        run_arena(cfg, folder, progress=sys.stderr.isatty())
        paths += sorted(str(p) for p in (folder / "games").glob("*.json"))
    return paths


def belief_table(games: Sequence[Game], beliefs: dict[str, Callable[[PlayerView], dict[int, float]]]
                 ) -> dict[str, dict[str, float]]:
    """Mean log-probability (floored at 1e-9) and mean probability of Mr X's true station under
    each belief, over every position of ``games`` where the first detective is to move after
    Mr X and more than one station is possible; how often the truth is the heaviest station
    (``top1``) or among the five heaviest (``top5``, as many as there are detectives); and the
    mean milliseconds per call."""
    sums = {k: [0.0, 0.0, 0.0, 0.0, 0.0] for k in beliefs}
    n = 0
    for game in games:
        g = game.copy()
        while g.ply > 0:
            g.pop()
            first = g.rules.hunters[0]
            if g.to_move != first or g.is_over():
                continue
            view = g.view(first)
            if len(view.possible) < 2:
                continue
            truth = g.station("X")
            n += 1
            for k, fn in beliefs.items():
                t = time.perf_counter()
                w = fn(view)
                sums[k][2] += time.perf_counter() - t
                p = w.get(truth, 0.0)
                sums[k][0] += math.log(max(p, 1e-9))
                sums[k][1] += p
                rank = sorted(w, key=lambda s: (-w[s], s))  # ties: the lower station first
                sums[k][3] += rank[0] == truth
                sums[k][4] += truth in rank[:5]
    m = max(n, 1)
    return {k: {"log_p": s[0] / m, "p": s[1] / m, "top1": s[3] / m, "top5": s[4] / m,
                "ms": 1000 * s[2] / m, "positions": n} for k, s in sums.items()}


def main(argv: list[str] | None = None) -> int:
    """The command line (see the module doc)."""
    ap = argparse.ArgumentParser(prog="python scripts/train_nets.py", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--records", action="append", default=[],
                    help="a glob of record files (repeatable; ** searches folders)")
    ap.add_argument("--self-play", type=int, default=0, metavar="N",
                    help="first play N arena games per Mr X agent and train on them too")
    ap.add_argument("--games-dir", type=Path, default=Path("runs/nets-selfplay"))
    ap.add_argument("--mr-x", default="nw,mcts", help="Mr X agents of the self-play")
    ap.add_argument("--detectives", default="mcts", help="the detectives of the self-play")
    ap.add_argument("--playouts", type=int, default=1000, help="Mr X's iterations a move")
    ap.add_argument("--detective-playouts", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=0, help="self-play seed and the split's seed")
    ap.add_argument("--holdout", type=float, default=0.2, help="share of games held out")
    ap.add_argument("--hidden", type=int, default=8, help="hidden units (0: linear)")
    ap.add_argument("--steps", type=int, default=400, help="Adam steps")
    ap.add_argument("--l2", type=float, default=1e-3)
    ap.add_argument("--belief", type=int, default=0, metavar="N",
                    help="also compare the beliefs on N held-out games")
    ap.add_argument("--out", type=Path, required=True, help=".npz file to write")
    ap.add_argument("--evaluate", action="store_true",
                    help="fit nothing: read --out and print its figures on these records")
    args = ap.parse_args(argv)
    if args.self_play < 0 or args.hidden < 0 or args.steps < 1 or not 0 <= args.holdout < 1:
        ap.error("--self-play, --hidden >= 0, --steps >= 1, 0 <= --holdout < 1")
    paths = sorted({p for g in args.records for p in glob.glob(g, recursive=True)})
    if args.self_play:
        paths += self_play(args.self_play, args.games_dir,
                           mr_x=[s for s in args.mr_x.split(",") if s],
                           detectives=args.detectives, playouts=args.playouts,
                           detective_playouts=args.detective_playouts, seed=args.seed)
    if not paths:
        ap.error("no records: give --records GLOB and/or --self-play N")
    games, used = load_games(paths)
    if len(games) < 2:
        ap.error(f"{len(games)} usable game record(s); at least 2 are needed")
    test_ids = {i for i, p in enumerate(used) if held_out(p, args.holdout, args.seed)}
    if args.holdout > 0 and not test_ids:
        test_ids = {len(used) - 1}
    train_ids = [i for i in range(len(games)) if i not in test_ids]
    if not train_ids:
        ap.error("every game is held out: lower --holdout")
    t0 = time.perf_counter()
    data = nets.extract_steps(g.view("X") for g in games)
    train, test = data.subset(train_ids), data.subset(test_ids)
    uniform = nets.MrXPolicy.uniform()
    report: dict[str, Any] = {
        "games": len(games), "train_games": len(train_ids), "test_games": len(test_ids),
        "train_steps": train.steps, "test_steps": test.steps,
        "hidden": args.hidden, "steps": args.steps, "l2": args.l2, "seed": args.seed,
        "records": sorted({Path(p).parent.parent.name for p in used}),
    }
    if args.evaluate:
        model = nets.MrXPolicy.load(args.out)
        report["hidden"] = model.hidden
    else:
        model = nets.fit(train, args.hidden, l2=args.l2, steps=args.steps, seed=args.seed)
    for name, part in (("train", train), ("test", test)):
        if part.steps:
            report[f"{name}_log_likelihood"] = {
                "uniform": nets.log_likelihood(uniform, part),
                "mcd_softmax": nets.mcd_softmax_log_likelihood(part),
                "model": nets.log_likelihood(model, part)}
    report["fit_seconds"] = round(time.perf_counter() - t0, 1)
    if args.belief and test_ids:
        held = [games[i] for i in sorted(test_ids)[:args.belief]]
        report["belief"] = belief_table(held, {
            "uniform": lambda v: {s: 1.0 / len(v.possible) for s in v.possible},
            "mcd_softmax": policy_weights,
            "learned": lambda v: nets.learned_weights(v, model)})
    report["probe"] = nets.probe(model)
    if not args.evaluate:
        model = nets.MrXPolicy(model.w, model.w1, model.b1, model.v, meta=report)
        model.save(args.out)
        print(f"wrote {args.out}", file=sys.stderr)
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
