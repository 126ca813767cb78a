"""One-switch ablations of ``nw`` against ``nw``: which of the thesis's switches moves the
seekers' win rate, and by how much (issue 24, item 1).

Each arm is ``nw`` on both sides with one side's settings changed (``side:key=value``, JSON
values), on the same seeded starts as ``--table-7-10`` (game i's start derives from the start
sample's seed and i: each game is the arena's, ``scotlandyard.ai.arena.play.play_game``).
Results go to ``<out>/nw-<fingerprint>/<arm>-<playouts>-seed<seed>.jsonl`` (the fingerprint is
:func:`scotlandyard.ai.mcts.nw_fingerprint`, so games of two versions of ``nw`` never mix), a
line a game, so a stopped run resumes; the table prints the seekers' wins of each arm on
each start sample, pooled, and the difference against the base arm (``nw`` unchanged) on the
same games, with Fisher's exact test::

    python benchmarks/nw_ablation.py --playouts 1000 --games 100 --samples 11 \\
        --arm base --arm "detectives:categorization=false" --workers 2 --out runs/ablate

An arm is ``base`` or one or more ``side:key=value`` changes joined by ``+`` (side ``mr_x``,
``detectives`` or ``both``).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import sys
from pathlib import Path
from typing import Any

from scotlandyard import Rules
from scotlandyard.ai.arena.config import ArenaConfig
from scotlandyard.ai.arena.play import play_game
from scotlandyard.ai.mcts import NW_OFF, NW_SETTINGS, nw_fingerprint
from scotlandyard.ai.stats import wilson_interval

sys.path.insert(0, str(Path(__file__).resolve().parent))
from nijssen_winands import fisher_exact  # noqa: E402

#: ``--decks separate``: Mr X's start from 13 cards of his own, the detectives' from 18,
#: instead of the classic book's one deck of 18 for everyone: a reading of the thesis's start
#: positions. Mr X's are the 2014 edition's X tiles (the board's data); the detectives' are
#: the classic deck without those, with the 2014 edition's D tiles (123 for 132): the lists
#: of many computer versions.
_CLASSIC, _NEW = Rules.classic(), Rules.new_edition()
MR_X_CARDS = tuple(_NEW.start_deck_mr_x)
DETECTIVE_CARDS = tuple(sorted((set(_CLASSIC.start_deck_detectives) - set(MR_X_CARDS))
                               | set(_NEW.start_deck_detectives)))


def parse_arm(arm: str) -> dict[str, dict[str, Any]]:
    """``"detectives:coalition=\\"piece\\"+mr_x:horizon=0"`` -> the options changed per side."""
    changes: dict[str, dict[str, Any]] = {"mr_x": {}, "detectives": {}}
    if arm == "base":
        return changes
    for part in arm.split("+"):
        side, _, rest = part.partition(":")
        key, _, value = rest.partition("=")
        if side not in ("mr_x", "detectives", "both") or not key or not value:
            raise SystemExit(f"an arm part is side:key=value, not {part!r}")
        try:
            parsed = json.loads(value)
        except json.JSONDecodeError:
            parsed = value
        for s in (("mr_x", "detectives") if side == "both" else (side,)):
            changes[s][key] = parsed
    return changes


def arm_config(arm: str, playouts: int, seed: int, decks: str = "shared") -> ArenaConfig:
    """One game's arena configuration: ``nw``'s settings on both sides (through the ``mcts``
    agent, which takes them as options), the arm's changes on top, start sample ``seed``."""
    changes = parse_arm(arm)

    def opts(side: str) -> dict[str, Any]:
        return {**NW_SETTINGS, **NW_OFF, "playouts": playouts, **changes[side]}

    rules = Rules.classic(detectives=5)
    if decks == "separate":
        rules = rules.replace(start_deck_mr_x=MR_X_CARDS, start_deck_detectives=DETECTIVE_CARDS,
                              shared_start_deck=False)
    return ArenaConfig(mr_x="mcts", detectives="mcts", games=1,
                       rules=rules, mr_x_options=opts("mr_x"),
                       detectives_options=opts("detectives"), seed=seed)


def play(job: tuple[str, int, int, int, str]) -> dict[str, Any]:
    """Play game ``index`` of start sample ``seed`` (the arena's game: the same start and
    random streams as every arena run of that seed)."""
    arm, playouts, seed, index, decks = job
    result, _, _ = play_game(arm_config(arm, playouts, seed, decks), index)
    if result.error:
        raise RuntimeError(result.error)
    return {"arm": arm, "playouts": playouts, "seed": seed, "index": index,
            "winner": result.winner, "reason": result.reason, "round": result.round,
            "seconds": round(sum(result.think.values()), 3)}


def arm_file(out: Path, arm: str, playouts: int, seed: int) -> Path:
    """The JSONL file of one arm on one start sample."""
    safe = "".join(ch if ch.isalnum() or ch in "-_.=" else "_" for ch in arm)
    return out / f"{safe}-{playouts}-seed{seed}.jsonl"


def load(path: Path) -> dict[int, dict[str, Any]]:
    """The games recorded in one arm file, by index."""
    if not path.exists():
        return {}
    games = {}
    for line in path.read_text().splitlines():
        if line.strip():
            row = json.loads(line)
            games[int(row["index"])] = row
    return games


def main() -> None:
    """Run the arms' missing games (round-robin over the arms), then print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--arm", action="append", default=[], help="repeatable; 'base' first")
    parser.add_argument("--playouts", type=int, default=1000)
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--samples", default="11", help="start samples' seeds, comma-separated")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--out", default="runs/ablate")
    parser.add_argument("--table-only", action="store_true")
    parser.add_argument("--decks", choices=("shared", "separate"), default="shared",
                        help="start cards: the classic book's one deck of 18 (default), or "
                             "13 cards of Mr X's own and 18 for the detectives")
    args = parser.parse_args()
    # a changed nw starts new files; so do the separate decks
    out = Path(args.out) / (f"nw-{nw_fingerprint()}"
                            + ("-separate-decks" if args.decks == "separate" else ""))
    out.mkdir(parents=True, exist_ok=True)
    arms = args.arm or ["base"]
    seeds = [int(s) for s in args.samples.split(",")]
    for arm in arms:
        parse_arm(arm)
    jobs = []
    if not args.table_only:
        for index in range(args.games):
            for arm in arms:
                for seed in seeds:
                    if index not in load(arm_file(out, arm, args.playouts, seed)):
                        jobs.append((arm, args.playouts, seed, index, args.decks))
    if jobs:
        with mp.get_context("spawn").Pool(args.workers) as pool:
            for n, row in enumerate(pool.imap_unordered(play, jobs), 1):
                with arm_file(out, row["arm"], row["playouts"], row["seed"]).open("a") as fh:
                    fh.write(json.dumps(row) + "\n")
                print(f"\r{n}/{len(jobs)} games", end="", file=sys.stderr, flush=True)
        print(file=sys.stderr)
    print(f"nw against nw at {args.playouts} playouts a move, one side changed; "
          f"seekers' wins (games 0-{args.games - 1} of each start sample)\n")
    print("| arm | " + " | ".join(f"sample {s}" for s in seeds)
          + " | pooled | 95% CI | vs base | p | stuck | s/game |")
    print("|---|" + "---|" * (len(seeds) + 6))
    base: dict[tuple[int, int], bool] = {}
    for arm in arms:
        cells, wins, total, stuck, secs, pairs = [], 0, 0, 0, 0.0, []
        for seed in seeds:
            games = {i: g for i, g in load(arm_file(out, arm, args.playouts, seed)).items()
                     if i < args.games}
            w = sum(g["winner"] == "detectives" for g in games.values())
            cells.append(f"{w}/{len(games)}")
            wins += w
            total += len(games)
            stuck += sum(g["reason"] == "detectives_stuck" for g in games.values())
            secs += sum(g["seconds"] for g in games.values())
            for i, g in games.items():
                won = g["winner"] == "detectives"
                if arm == arms[0]:
                    base[(seed, i)] = won
                elif (seed, i) in base:
                    pairs.append((base[(seed, i)], won))
        if not total:
            print(f"| {arm} | " + " | ".join(cells) + " | - | | | | | |")
            continue
        lo, hi = wilson_interval(wins, total)
        diff = p = ""
        if pairs:
            bw, aw = sum(a for a, _ in pairs), sum(b for _, b in pairs)
            n = len(pairs)
            diff = f"{100 * (aw - bw) / n:+.1f} ({n} games)"
            p = f"{fisher_exact(aw, n, bw, n):.3g}"
        print(f"| {arm} | " + " | ".join(cells) + f" | {100 * wins / total:.1f}% | "
              f"{100 * lo:.1f}-{100 * hi:.1f} | {diff} | {p} | {stuck} | {secs / total:.1f} |")


if __name__ == "__main__":
    main()
