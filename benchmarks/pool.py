"""Pool arena runs over independent start samples and compare arms (issue 24, item 2).

Every strength claim is pooled over at least two independent start samples (arena seeds),
each sample printed too. An arm is a name and the arena run folders of its samples (one folder
a seed: ``scotlandyard arena ... --seed S -o FOLDER``); the table prints each sample's wins
of ``--side``, the pooled rate with its Wilson 95% interval, the games that ended "detectives
stuck", and, against the ``--against`` arm (the same seeds and the same games: paired
starts), the difference with Newcombe's 95% interval and Fisher's exact test, and whether it
reaches ``--aim`` (in points)::

    python benchmarks/pool.py --side detectives --against nw --aim 10 \\
        --arm mcts=runs/d4000/mcts-seed11,runs/d4000/mcts-seed2012 \\
        --arm nw=runs/d4000/nw-seed11,runs/d4000/nw-seed2012

A folder's games are those its ``results.json`` counts (the arena writes it after every
game); arms compared on different seeds or game counts are refused, not misreported. With
``--first N`` only games 0 to N-1 of each folder count (read from its ``manifest.jsonl``), so
a longer run of the same seed pools with 100-game runs: the arena plays game ``i`` of a seed
the same way whatever the run's length. A folder with fewer than N of them decided is refused.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path

from scotlandyard.ai.arena import GameResult
from scotlandyard.ai.stats import difference_interval, wilson_interval

sys.path.insert(0, str(Path(__file__).resolve().parent))
from nijssen_winands import fisher_exact  # noqa: E402

SIDES = ("mr_x", "detectives")


@dataclass(frozen=True)
class Sample:
    """One arena run folder: its seed, its decided games and the side's wins."""

    folder: Path
    seed: int
    games: int
    wins: int
    stuck: int
    label: str


def read_sample(folder: Path, side: str) -> Sample:
    """The tallies of one run folder (its ``results.json``); a clear error if it has none."""
    path = folder / "results.json"
    try:
        data = json.loads(path.read_text())
        wr = data["win_rate"][side]
        return Sample(folder, int(data["config"]["seed"]), int(wr["games"]), int(wr["wins"]),
                      int(data["reasons"].get("mr_x", {}).get("detectives_stuck", 0)),
                      str(data.get("description", "")))
    except FileNotFoundError:
        raise SystemExit(f"{folder}: no results.json (not an arena run folder, or no game yet)") from None
    except (KeyError, TypeError, ValueError, json.JSONDecodeError) as exc:
        raise SystemExit(f"{path}: not an arena results file ({type(exc).__name__}: {exc})") from None


def first_games(sample: Sample, side: str, first: int) -> Sample:
    """``sample`` counted over its games 0 to ``first - 1`` only (from the folder's
    ``manifest.jsonl``, one :class:`GameResult` a line); a clear error if any of them is
    missing or undecided."""
    path = sample.folder / "manifest.jsonl"
    games: dict[int, GameResult] = {}
    n = 0
    try:
        for line in path.read_text().splitlines():
            n += 1
            if line.strip():
                result = GameResult.from_dict(json.loads(line)["game"])
                games[result.index] = result
    except FileNotFoundError:
        raise SystemExit(f"{sample.folder}: no manifest.jsonl, so --first cannot pick games") from None
    except (KeyError, TypeError, ValueError) as exc:
        raise SystemExit(f"{path}: line {n} is not an arena manifest line "
                         f"({type(exc).__name__}: {exc})") from None
    picked = [games.get(i) for i in range(first)]
    decided = [g for g in picked if g is not None and g.winner in SIDES]
    if len(decided) < first:
        missing = next(i for i, g in enumerate(picked) if g is None or g.winner not in SIDES)
        raise SystemExit(f"{sample.folder}: --first {first} needs games 0-{first - 1} decided; "
                         f"{first - len(decided)} are not (the first: game {missing})")
    return Sample(sample.folder, sample.seed, first, sum(g.winner == side for g in decided),
                  sum(g.reason == "detectives_stuck" for g in decided), sample.label)


def parse_arm(text: str, side: str, first: int | None = None) -> tuple[str, list[Sample]]:
    """``NAME=FOLDER,FOLDER,...`` -> the arm's name and samples (distinct seeds); with
    ``first``, each sample counted over its games 0 to ``first - 1``."""
    name, sep, rest = text.partition("=")
    if not sep or not name or not rest:
        raise SystemExit(f"an arm is NAME=FOLDER[,FOLDER...], not {text!r}")
    samples = [read_sample(Path(f), side) for f in rest.split(",") if f]
    if first is not None:
        samples = [first_games(s, side, first) for s in samples]
    seeds = [s.seed for s in samples]
    if len(set(seeds)) != len(seeds):
        raise SystemExit(f"arm {name}: two folders of the same seed {seeds}: not independent")
    return name, samples


def table(arms: dict[str, list[Sample]], side: str, against: str | None,
          aim: float | None) -> str:
    """The Markdown table of the arms (each sample, pooled, and the comparison)."""
    seeds = sorted({s.seed for samples in arms.values() for s in samples})
    head = ["arm", *(f"sample {s}" for s in seeds), "pooled", "95% CI", "stuck"]
    if against:
        head += [f"vs {against}", "95% CI of the difference", "Fisher p"]
        if aim is not None:
            head.append(f"aim +{aim:g}")
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    ref = arms.get(against) if against else None
    if against and ref is None:
        raise SystemExit(f"--against {against}: no such arm (arms: {', '.join(arms)})")
    for name, samples in arms.items():
        by_seed = {s.seed: s for s in samples}
        wins = sum(s.wins for s in samples)
        games = sum(s.games for s in samples)
        lo, hi = wilson_interval(wins, games) if games else (0.0, 0.0)
        row = [name, *(f"{by_seed[s].wins}/{by_seed[s].games}" if s in by_seed else ""
                       for s in seeds),
               f"{wins}/{games} ({wins / games:.1%})" if games else "no games",
               f"{lo:.1%} - {hi:.1%}", str(sum(s.stuck for s in samples))]
        if ref is not None and name != against and games:
            ref_seeds = {s.seed: s.games for s in ref}
            mine = {s.seed: s.games for s in samples}
            if ref_seeds != mine:
                raise SystemExit(f"arm {name} has games {mine} by seed, {against} has "
                                 f"{ref_seeds}: not the same starts, so not compared")
            rw = sum(s.wins for s in ref)
            d = (wins - rw) / games
            dlo, dhi = difference_interval(wins, games, rw, games)
            p = fisher_exact(wins, games, rw, games)
            row += [f"{d * 100:+.1f}", f"{dlo * 100:+.1f} to {dhi * 100:+.1f}", f"{p:.2g}"]
            if aim is not None:  # "met" as the versus protocol's aim_verdict says it
                row.append("met" if d * 100 >= aim and p < 0.05 else "not met")
        elif ref is not None:
            row += [""] * (3 + (aim is not None))
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Print the pooled table."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--side", choices=SIDES, required=True, help="whose wins are counted")
    ap.add_argument("--arm", action="append", required=True, metavar="NAME=FOLDER,...")
    ap.add_argument("--against", default=None, help="the arm the others are compared with")
    ap.add_argument("--aim", type=float, default=None, help="the aim, points over --against")
    ap.add_argument("--first", type=int, default=None, metavar="N",
                    help="count only games 0 to N-1 of each folder")
    args = ap.parse_args(argv)
    if args.first is not None and args.first < 1:
        ap.error(f"--first must be at least 1, not {args.first}")
    arms: dict[str, list[Sample]] = {}
    for text in args.arm:
        name, samples = parse_arm(text, args.side, args.first)
        if name in arms:
            ap.error(f"two arms named {name}")
        arms[name] = samples
    for name, samples in arms.items():
        for s in samples:
            print(f"{name}, seed {s.seed}: {s.label} ({s.folder})", file=sys.stderr)
    print(table(arms, args.side, args.against, args.aim), end="")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
