"""Is ``easy`` a fair game for a beginner? (issue 24, item 3.) The levels against the
human-like ``beginner`` policies (scotlandyard/ai/beginner.py; docs/ai.md, "Levels").

Arms, for each level (``easy``, ``medium`` by default):

- ``L Mr X``: the level's Mr X against ``beginner`` detectives (a person who has just learnt
  the game, playing the detectives against the computer's Mr X);
- ``L detectives``: ``beginner`` Mr X against the level's detectives.

Each arm is played on ``--samples`` independent start samples, arena seeds ``--seed``,
``--seed`` + 1, ... (``--games`` games each; ``--medium-games`` for the slower MCTS levels),
through the arena, so the games are seeded and a stopped run resumes from its folders under
``--out``. The table prints the level's side's wins on each sample, pooled, with the Wilson
95% interval, and for ``easy`` whether the aim holds: Mr X wins 30-50% against beginner
detectives, and the detectives catch a beginner Mr X 30-50% of the time (so he wins 50-70%).
The last column compares each level with ``easy`` on the same side (Fisher's exact test,
two-sided): easy must stay clearly weaker than medium.

    python benchmarks/beginner.py --games 200 --samples 2 --out runs/beginner
    python benchmarks/beginner.py --games 20 --medium-games 5 --samples 2 --out /tmp/b  # smoke

Exits 1 when an aim is missed.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from scotlandyard import Rules
from scotlandyard.ai.agents import LEVELS
from scotlandyard.ai.arena import ArenaConfig, run_arena
from scotlandyard.ai.stats import wilson_interval

sys.path.insert(0, str(Path(__file__).resolve().parent))
from nijssen_winands import fisher_exact  # noqa: E402

BEGINNER = "beginner"
#: the aim for ``easy``: the level's side wins this share of the games (issue 24, item 3)
AIM = (0.30, 0.50)
AIM_LEVEL = "easy"
PRESETS = {"classic": Rules.classic, "new_edition": Rules.new_edition}


@dataclass
class Arm:
    """One level in one seat against the beginner of the other side."""

    level: str
    side: str  # the level's side: "mr_x" or "detectives"
    samples: list[tuple[int, int, int]]  # (seed, the level's side's wins, decided games)
    errors: int = 0
    seconds: float = 0.0

    @property
    def wins(self) -> int:
        """The level's side's wins over every sample."""
        return sum(w for _, w, _ in self.samples)

    @property
    def games(self) -> int:
        """Decided games over every sample."""
        return sum(n for _, _, n in self.samples)

    def label(self) -> str:
        """``easy Mr X vs beginner detectives`` and the like."""
        if self.side == "mr_x":
            return f"{self.level} Mr X vs {BEGINNER} detectives"
        return f"{BEGINNER} Mr X vs {self.level} detectives"


def play(level: str, side: str, games: int, seeds: list[int], preset: str, workers: int,
         out: Path) -> Arm:
    """Play one arm on every sample (resuming each sample's folder) and count its wins."""
    arm = Arm(level, side, [])
    for seed in seeds:
        mr_x, detectives = (level, BEGINNER) if side == "mr_x" else (BEGINNER, level)
        cfg = ArenaConfig(mr_x=mr_x, detectives=detectives, games=games, seed=seed,
                          rules=PRESETS[preset](), workers=workers)
        folder = out / f"{preset}-{level}-{side}-seed{seed}"
        t0 = time.perf_counter()
        result = run_arena(cfg, folder, progress=False)
        arm.seconds += time.perf_counter() - t0
        rate = result.win_rate(side)
        arm.samples.append((seed, rate.wins, rate.games))
        arm.errors += len(result.errors)
        print(f"  {arm.label()}, seed {seed}: {rate.wins}/{rate.games} "
              f"({time.perf_counter() - t0:.0f} s; {folder})", flush=True)
    return arm


def table(arms: list[Arm], preset: str) -> tuple[str, bool]:
    """The Markdown table of the arms and whether every aim holds."""
    side_name = {"mr_x": "Mr X", "detectives": "detectives"}
    seeds = sorted({s for a in arms for s, _, _ in a.samples})
    head = ("| arm | the level's side | " + " | ".join(f"seed {s}" for s in seeds)
            + " | pooled | Wilson 95% | aim 30-50% | against easy (Fisher p) |")
    lines = [f"Rules: {preset}. Wins of the level's side (decided games).", "", head,
             "|" + "---|" * (head.count("|") - 1)]
    ok = True
    base = {a.side: a for a in arms if a.level == AIM_LEVEL}
    for a in arms:
        by_seed = {s: f"{w}/{n}" for s, w, n in a.samples}
        lo, hi = wilson_interval(a.wins, a.games)
        rate = a.wins / a.games if a.games else 0.0
        if a.level == AIM_LEVEL:
            met = AIM[0] <= rate <= AIM[1]
            ok &= met
            aim = "**met**" if met else "**missed**"
        else:
            aim = ""
        ref = base.get(a.side)
        versus = "" if ref is None or ref is a else (
            f"{'+' if rate >= ref.wins / ref.games else ''}"
            f"{100 * (rate - ref.wins / ref.games):.1f} points, "
            f"p = {fisher_exact(a.wins, a.games, ref.wins, ref.games):.2g}")
        lines.append(f"| {a.label()} | {side_name[a.side]} | "
                     + " | ".join(by_seed.get(s, "") for s in seeds)
                     + f" | {a.wins}/{a.games} = {100 * rate:.1f}% | "
                     f"{100 * lo:.1f}-{100 * hi:.1f}% | {aim} | {versus} |")
    return "\n".join(lines), ok


def main(argv: list[str] | None = None) -> int:
    """Play the arms and print the table; exit status 1 when an aim is missed."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=200, help="games a sample, easy (200)")
    ap.add_argument("--medium-games", type=int, default=100,
                    help="games a sample for the MCTS levels (100)")
    ap.add_argument("--samples", type=int, default=2, help="independent start samples (2)")
    ap.add_argument("--seed", type=int, default=1, help="the first sample's arena seed (1)")
    ap.add_argument("--levels", default="easy,medium", help="levels, comma-separated")
    ap.add_argument("--preset", choices=sorted(PRESETS), default="classic")
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--out", type=Path, default=Path("runs/beginner"))
    args = ap.parse_args(argv)
    levels = [lv for lv in args.levels.split(",") if lv]
    unknown = [lv for lv in levels if lv not in LEVELS]
    if unknown or not levels:
        ap.error(f"unknown level(s) {', '.join(unknown)} (levels: {', '.join(LEVELS)})")
    if args.games < 1 or args.medium_games < 1 or args.samples < 1:
        ap.error("--games, --medium-games and --samples are at least 1")
    seeds = [args.seed + k for k in range(args.samples)]
    arms = []
    for level in levels:
        games = args.games if LEVELS[level].mr_x[0] != "mcts" else args.medium_games
        for side in ("mr_x", "detectives"):
            arms.append(play(level, side, games, seeds, args.preset, args.workers, args.out))
    text, ok = table(arms, args.preset)
    print()
    print(text)
    errors = sum(a.errors for a in arms)
    if errors:
        print(f"\n{errors} game(s) stopped on an agent error (not counted): see results.json")
    if AIM_LEVEL in levels:
        print(f"\n{AIM_LEVEL}: every aim {'met' if ok else 'NOT met'}.")
    return 0 if ok and not errors else 1


if __name__ == "__main__":
    raise SystemExit(main())
