"""Nijssen & Winands (2012) re-run: the paper's main MCTS comparisons, at a budget this machine
can afford.

J. A. M. Nijssen and M. H. M. Winands, "Monte Carlo Tree Search for the Hide-and-Seek Game
Scotland Yard", IEEE Transactions on Computational Intelligence and AI in Games 4(4):282-294,
2012. Classic rules, five detectives. Each comparison changes one switch of one side's MCTS
agent; the other side plays the baseline MCTS; the table gives the changed side's win rate
(Wilson 95% interval) with the switch on and off, and the two-sided Fisher's exact test of the
difference (with Holm's correction over the comparisons in the summary):

1. epsilon-greedy vs random playouts, for Mr X and for the detectives;
2. determinization in a single tree vs separate trees, 20 trees with the iterations split
   among them (detectives);
3. location categorization on vs off (detectives);
4. coalition reduction on vs off (detectives).

The paper reports (abstract): a single tree beats separate trees; location categorization and
coalition reduction each make the detectives significantly stronger; epsilon-greedy playouts
add domain knowledge that helps.

Every run goes through the arena (``scotlandyard.ai.arena``), one folder per distinct
configuration under ``--out``: an interrupted experiment resumes where it stopped, and arms
that are the same configuration (the baseline is the "on" arm of every detectives'
comparison) are played once.

    python benchmarks/nijssen_winands.py --quick    # smoke run: 20 games/arm, 200 playouts/move
    python benchmarks/nijssen_winands.py --games 400 --budget 1000 --workers 2 --write
    python benchmarks/nijssen_winands.py --workers 16 --write     # 500 games/arm, 2000 playouts

Our agents against the frozen baseline (``--versus``): ``mcts`` against ``nw`` at equal
iterations on both sides (paired starts: every arm plays the same start positions), the
roles swapped, and each side's budget curve against ``nw`` at the curve's first budget::

    python benchmarks/nijssen_winands.py --versus --games 400 --budgets 1000,4000 \
        --curve 1000,4000,16000 --curve-fixed 4000 --curve-agents mcts \
        --workers 16 --write      # the issue's protocol (10 runs; docs/experiments.md)
    python benchmarks/nijssen_winands.py --versus --games 16 --budgets 1000 \
        --curve 1000,4000 --curve-sides mr_x --curve-agents mcts --workers 2 --write

On a small machine, ``--round-size 50`` plays every arm to 50 games, then every arm to 100,
and so on, so that a run stopped by time (``timeout``) leaves arms of equal size; the run
folders resume, and ``--max-new-games 0 --write`` only tabulates what they hold.

The thesis's Table 7.10 (``--table-7-10``): ``nw`` against ``nw``, the same playouts a move for
both sides (default 1,000 and 2,500), on each independent start sample of ``--samples``
(arena seeds, default 11 and 2012), each sample's and the pooled detectives' win rate against
the thesis's 43.0 +/- 3.1 and 59.7 +/- 3.0, "within" when the difference is at most the two
95% half-widths combined (sqrt(ours^2 + thesis^2)). One worker by default; the run folders
(``<out>/table-7-10/nw-<fingerprint>-<playouts>-seed<seed>``) resume, and a changed ``nw``
starts new ones::

    python benchmarks/nijssen_winands.py --table-7-10 --games 200 --round-size 10 \
        --workers 1 --out runs/nw-thesis          # 200 games a sample, 400 a point
    python benchmarks/nijssen_winands.py --table-7-10 --games 200 --max-new-games 0 \
        --out runs/nw-thesis                      # only tabulate what the folders hold

The levels (``--levels``): each level of ``scotlandyard.ai.agents.LEVELS`` on each side
against ``nw``, Mr X's levels against ``nw`` detectives at ``--levels-mr-x-opponent``
iterations (default 4,000: at 1,000 every MCTS Mr X wins about 80%, a ceiling), the
detectives' against ``nw`` Mr X at ``--levels-detectives-opponent`` (default 1,000), each
level compared with the next weaker one (Fisher p), with the mean and slowest time a move::

    python benchmarks/nijssen_winands.py --levels --games 100 --workers 1 --out runs/levels2
    python benchmarks/nijssen_winands.py --levels --games 100 --max-new-games 0 \
        --out runs/levels2                      # only tabulate what the folders hold

A level's run folder (``<level>-<side>-vs-nw<iterations>``) is keyed by the level's name, not
its settings: after a change of the level table, use a new ``--out``.

``--quick`` takes 2 to 3 minutes on 2 busy cores (6 configurations x 20 games); at 200
playouts per move Mr X wins nearly every game, so it shows the pipeline, not the paper's
effects. At 1000 playouts per move a game takes 1.2 to 1.6 s of agent time on one core
(separate trees the slowest); the second line (6 x 400 games) took 28 minutes on this
machine's 2 shared cores and wrote the table in docs/experiments.md. The default (500
games, 2000 playouts per move) needs a many-core machine or Ray (``--backend ray``).

The MCTS agent's option names live in ``SWITCHES`` below and nowhere else (see docs/ai.md).
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import math
import os
import sys
import time
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

from scotlandyard import Rules
from scotlandyard.ai import agent_names
from scotlandyard.ai.arena import ArenaConfig, ArenaError, ArenaResult, run_arena
from scotlandyard.ai.mcts import BEST_SETTINGS, NW_OFF, NW_SETTINGS
from scotlandyard.ai.stats import difference_interval

AGENT = "mcts"

# The MCTS agent's switches (scotlandyard/ai/mcts.py, MCTSOptions; docs/ai.md): the options
# each switch sets when on and when off. The one place that names them. "on" values are the
# paper's (and the agent's defaults), written out so that a run does not depend on defaults.
SWITCHES: dict[str, dict[str, Any]] = {
    # epsilon-greedy playouts: Mr X plays MCD, the detectives CAL, except with probability
    # epsilon a random move; epsilon = 1 is plain random playouts (for both sides inside
    # the search of the agent that has the switch)
    "playouts": {"on": {"epsilon_mr_x": 0.1, "epsilon_detectives": 0.2},
                 "off": {"epsilon_mr_x": 1.0, "epsilon_detectives": 1.0},
                 "label": ("epsilon-greedy playouts", "random playouts")},
    # determinization in one tree for all of Mr X's possible stations (a fresh draw every
    # iteration), or one tree per determinization: K stations drawn up front, the iterations
    # split evenly among the K trees, the move with the most visits summed over them
    "trees": {"on": {"determinization": "single"},
              "off": {"determinization": "separate", "determinizations": 20, "vote": "visits"},
              "label": ("single tree", "separate trees (20)")},
    "categorization": {"on": {"categorization": True}, "off": {"categorization": False},
                       "label": ("location categorization", "uniform over possible stations")},
    "coalition": {"on": {"coalition_reduction": 0.1}, "off": {"coalition_reduction": 0.0},
                  "label": ("coalition reduction r=0.1", "no coalition reduction")},
}

# The switches each side's baseline agent has on (the paper's final players).
BASELINE: dict[str, tuple[str, ...]] = {
    "mr_x": ("playouts",),
    "detectives": ("playouts", "trees", "categorization", "coalition"),
}


@dataclass(frozen=True)
class Comparison:
    """One of the paper's comparisons: ``switch`` on and off for ``side``."""

    side: str
    switch: str
    paper: str


COMPARISONS = (
    Comparison("mr_x", "playouts", "epsilon-greedy playouts help Mr X"),
    Comparison("detectives", "playouts", "epsilon-greedy playouts help the detectives"),
    Comparison("detectives", "trees", "a single tree beats separate trees"),
    Comparison("detectives", "categorization", "significantly stronger detectives"),
    Comparison("detectives", "coalition", "significantly stronger detectives"),
)

SIDE_NAMES = {"mr_x": "Mr X", "detectives": "detectives"}


def options(side: str, changed: str | None = None, on: bool = True) -> dict[str, Any]:
    """The MCTS options of ``side``'s baseline, with ``changed`` switched ``on`` or off."""
    # the paper's player, every setting written out: NW_SETTINGS and the later switches that
    # nw keeps off (without NW_OFF the mcts agent's own defaults, its ticket reserve among
    # them, would fill those in: a base arm that is not nw)
    out: dict[str, Any] = {**NW_SETTINGS, **NW_OFF}
    for name in BASELINE[side]:
        out.update(SWITCHES[name]["on"])
    if changed is not None:
        out.update(SWITCHES[changed]["on" if on else "off"])
    return out


def arm_config(cmp: Comparison, on: bool, args: argparse.Namespace) -> ArenaConfig:
    """The arena configuration of one arm of a comparison."""
    opts = {side: options(side) for side in ("mr_x", "detectives")}
    opts[cmp.side] = options(cmp.side, cmp.switch, on)
    return ArenaConfig(
        mr_x=AGENT, detectives=AGENT, games=args.games, rules=Rules.classic(detectives=5),
        mr_x_options=opts["mr_x"], detectives_options=opts["detectives"], budget=args.budget,
        seconds=args.seconds, seed=args.seed, workers=args.workers, backend=args.backend,
    )


def fisher_exact(a: int, n_a: int, b: int, n_b: int) -> float:
    """Two-sided Fisher's exact test of ``a`` wins in ``n_a`` games against ``b`` in ``n_b``:
    the probability, with both margins fixed, of a table at most as likely as the one seen
    (exact integer arithmetic)."""
    if not (0 <= a <= n_a and 0 <= b <= n_b):
        raise ValueError(f"need 0 <= wins <= games, got {a}/{n_a} and {b}/{n_b}")
    k = a + b
    lo, hi = max(0, k - n_b), min(k, n_a)
    weight = [math.comb(n_a, x) * math.comb(n_b, k - x) for x in range(lo, hi + 1)]
    seen = weight[a - lo]
    return float(Fraction(sum(w for w in weight if w <= seen), sum(weight)))


def run(args: argparse.Namespace) -> list[dict[str, Any]]:
    """Play every arm (each distinct configuration once) and return the table's rows."""
    if AGENT not in agent_names():
        raise SystemExit(f"this experiment needs the {AGENT!r} agent (registered: "
                         f"{', '.join(agent_names())}); see scotlandyard/ai/mcts.py")
    arms = [(cmp, on) for cmp in COMPARISONS for on in (True, False)]
    configs: dict[str, ArenaConfig] = {}
    for cmp, on in arms:
        cfg = arm_config(cmp, on, args)
        configs.setdefault(cfg.config_hash, cfg)
    missing: dict[str, str] = {}  # config hash -> why the agent refuses it
    for h, cfg in configs.items():
        try:
            cfg.make_agents()
        except ArenaError as exc:
            missing[h] = str(exc)
    playable = {h: c for h, c in configs.items() if h not in missing}
    print(f"{len(arms)} arms, {len(playable)} distinct configurations to play x {args.games} "
          f"games, budget {args.budget} playouts{f' / {args.seconds} s' if args.seconds else ''}"
          f" per move, {args.workers} workers", file=sys.stderr)
    results: dict[str, ArenaResult] = {}
    t0 = time.perf_counter()
    for k, (h, cfg) in enumerate(playable.items(), 1):
        print(f"[{k}/{len(playable)}] {cfg.describe()}", file=sys.stderr)
        results[h] = run_arena(cfg, Path(args.out) / h, progress=not args.no_progress)
    print(f"played in {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    rows = []
    for cmp, on in arms:
        h = arm_config(cmp, on, args).config_hash
        row: dict[str, Any] = {
            "comparison": cmp.switch, "variant": SWITCHES[cmp.switch]["label"][0 if on else 1],
            "side": SIDE_NAMES[cmp.side], "paper": cmp.paper if on else "", "hash": h,
        }
        if h in missing:
            row["missing"] = missing[h]
            print(f"not available: {row['variant']} ({missing[h]})", file=sys.stderr)
        else:
            res = results[h]
            wr = res.win_rate(cmp.side)
            row.update(wins=wr.wins, games=wr.games, rate=wr.rate, ci=wr.interval,
                       errors=len(res.errors))
        rows.append(row)
    for on_row, off_row in zip(rows[::2], rows[1::2], strict=True):
        if "missing" not in on_row and "missing" not in off_row:
            off_row["p"] = fisher_exact(on_row["wins"], on_row["games"], off_row["wins"],
                                        off_row["games"])
            off_row["diff"] = on_row["rate"] - off_row["rate"]
    return rows


def _cells(r: dict[str, Any]) -> tuple[str, str, str]:
    """The games (with agent errors), difference and Fisher p cells of a row."""
    games = f"{r['games']} ({r['errors']} agent errors)" if r["errors"] else str(r["games"])
    diff = f"{r['diff'] * 100:+.1f} points" if "diff" in r else ""
    pval = f"{r['p']:.3g}" if "p" in r else ""
    return games, diff, pval


def table(rows: list[dict[str, Any]]) -> str:
    """The rows as a Markdown table (readable as plain text too)."""
    head = ("| comparison | variant | side | win rate | 95% CI | games | on - off | Fisher p | "
            "paper |\n|---|---|---|---:|---:|---:|---:|---:|---|\n")
    body = []
    for r in rows:
        if "missing" in r:
            body.append(f"| {r['comparison']} | {r['variant']} | {r['side']} | n/a | n/a | "
                        f"0 (the agent has no such option) | | | {r['paper']} |\n")
            continue
        games, diff, pval = _cells(r)
        body.append(f"| {r['comparison']} | {r['variant']} | {r['side']} | {r['rate']:.1%} | "
                    f"{r['ci'][0]:.1%} - {r['ci'][1]:.1%} | {games} | {diff} | {pval} | "
                    f"{r['paper']} |\n")
    return head + "".join(body)


def summary(rows: list[dict[str, Any]], alpha: float = 0.05) -> str:
    """One line per comparison: the difference, Fisher's p, whether it is significant at
    ``alpha`` alone and after Holm's correction over the comparisons, and its direction
    against the paper's (the paper finds every switch's "on" the stronger)."""
    pairs = [(on, off) for on, off in zip(rows[::2], rows[1::2], strict=True) if "p" in off]
    order = sorted(range(len(pairs)), key=lambda i: pairs[i][1]["p"])
    holm = [False] * len(pairs)
    for rank, i in enumerate(order):
        if pairs[i][1]["p"] > alpha / (len(pairs) - rank):
            break
        holm[i] = True
    lines = []
    for i, (on, off) in enumerate(pairs):
        diff, pval = off["diff"], off["p"]
        if pval >= alpha:
            verdict = "not significant"
        else:
            verdict = ("significant, also after Holm's correction" if holm[i]
                       else "significant alone, not after Holm's correction")
        direction = ("the paper's direction" if diff > 0 else
                     "against the paper's direction" if diff < 0 else "no difference")
        lines.append(f"- {on['comparison']} ({on['side']}): {on['variant']} {on['rate']:.1%} "
                     f"({on['wins']}/{on['games']}) against {off['variant']} {off['rate']:.1%} "
                     f"({off['wins']}/{off['games']}): {diff * 100:+.1f} points, p = {pval:.3g}, "
                     f"{verdict}; {direction}.")
    return "\n".join(lines)


def write_doc(path: Path, text: str, args: argparse.Namespace,
              rows: list[dict[str, Any]]) -> None:
    """Write ``docs/experiments.md``: how the table was made, the table and its tests."""
    cmd = "python benchmarks/nijssen_winands.py " + " ".join(sys.argv[1:])
    def shown(opts: dict[str, Any]) -> str:
        return ", ".join(f"`{k}={v!r}`" for k, v in opts.items()) or "the agent's default"

    switches = "\n".join(f"- {name}: on = {shown(sw['on'])}; off = {shown(sw['off'])}"
                         for name, sw in SWITCHES.items())
    baseline = "; ".join(f"{SIDE_NAMES[side]}: {', '.join(SWITCHES[n]['label'][0] for n in names)}"
                         for side, names in BASELINE.items())
    budget = f"{args.budget} playouts per move" + (f", at most {args.seconds} s" if args.seconds
                                                   else "")
    doc = (
        f"{PAPER_HEADING}\n\n"
        "J. A. M. Nijssen and M. H. M. Winands, *Monte Carlo Tree Search for the Hide-and-Seek "
        "Game Scotland Yard*, IEEE TCIAIG 4(4):282-294, 2012.\n\n"
        f"Classic rules, five detectives; both sides play the `{AGENT}` agent with every "
        "setting of the paper's player (`nw`, `NW_SETTINGS`) written out. Each comparison "
        "changes one switch of one side; the other side plays the baseline "
        f"({baseline}). The win rate is the changed side's, with its Wilson 95% interval. Every "
        "arm plays the same start positions and random streams (game i's seeds derive from the "
        "run seed and i), so the arms differ only by the switch. \"on - off\" is the changed "
        "side's win rate with the switch on minus off, \"Fisher p\" the two-sided Fisher's "
        "exact test of the two arms. The \"paper\" column is what the paper reports "
        "(qualitatively), not a number of ours.\n\n"
        f"Made on {datetime.date.today().isoformat()} with `{cmd}`: {args.games} games per "
        f"arm, {budget}, run seed {args.seed}. With few games and small budgets the "
        "intervals are wide: read them before the rates. A comparison whose option the agent "
        "does not have is shown as n/a.\n\n"
        + ("This is the `--quick` smoke run: at so small a budget Mr X wins almost every game, "
           "so it shows that the pipeline works, not the paper's effects. For those, run the "
           "default (500 games per arm, 2000 playouts per move) on a many-core machine or on "
           "Ray (`--backend ray`).\n\n" if args.quick else "")
        + f"{text}\n"
        + (f"Tests (alpha = 0.05; Holm's correction over the {len(COMPARISONS)} "
           f"comparisons):\n\n{summary(rows)}\n\n" if any("p" in r for r in rows) else "")
        + f"Switches (options of the `{AGENT}` agent):\n\n{switches}\n"
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(replace_section(path.read_text() if path.exists() else "# Experiments\n",
                                    PAPER_HEADING, doc))


#: The heading of the section ``--write`` owns in docs/experiments.md.
PAPER_HEADING = "## Nijssen & Winands (2012), re-run"


def replace_section(old: str, heading: str, section: str) -> str:
    """``old`` with the section under ``heading`` (up to the next heading of its level or a
    marker comment such as :data:`VERSUS_BEGIN`, its subsections included) replaced by
    ``section``, or ``section`` appended when ``old`` has no such heading; every other section
    is kept as it was."""
    section = section.rstrip("\n") + "\n"
    lines = old.splitlines(keepends=True)
    start = next((i for i, line in enumerate(lines) if line.rstrip("\n") == heading), None)
    if start is None:
        return old.rstrip("\n") + "\n\n" + section
    end = next((i for i in range(start + 1, len(lines))
                if lines[i].startswith(("## ", "# ", "<!-- "))), len(lines))
    after = "".join(lines[end:])
    return "".join(lines[:start]) + section + ("\n" + after if after else "")


# ---- our agents against the frozen baseline ---------------------------------------------------
BASELINE_AGENT = "nw"
BEST_AGENT = "mcts"
VERSUS_BEGIN = "<!-- versus: written by benchmarks/nijssen_winands.py --versus -->"
VERSUS_END = "<!-- /versus -->"


@dataclass(frozen=True)
class Arm:
    """One arena run of the versus protocol: each side's agent and iterations per move."""

    label: str
    mr_x: str
    detectives: str
    mr_x_playouts: int
    detectives_playouts: int


def versus_arms(budgets: list[int], curve: list[int],
                curve_sides: tuple[str, ...] = ("mr_x", "detectives"),
                curve_agents: tuple[str, ...] = (BEST_AGENT, BASELINE_AGENT),
                curve_fixed: int | None = None,
                equal_sides: tuple[str, ...] = ("mr_x", "detectives"),
                ) -> list[tuple[str, Arm, Arm | None]]:
    """(section, arm, the arm it is compared with) of the protocol:

    - at each budget in ``budgets`` (both sides the same iterations): our Mr X against ``nw``
      detectives compared with ``nw`` Mr X against them, and the roles swapped (our
      detectives against ``nw`` Mr X compared with ``nw`` detectives against him);
    - the budget curve: each side's agent (ours and ``nw``) at every budget of ``curve``
      against the other side's ``nw`` at ``curve_fixed`` iterations (default: the first
      budget of ``curve``), each point compared with the point before it, and with three
      points or more a last row that compares the last point with the first. A fixed
      opponent that loses nearly every game hides the curve (a ceiling): give it more
      iterations.

    Arms that are the same run (the equal-budget arm at ``curve_fixed`` is a point of each
    curve) are equal :class:`Arm` values, so the caller plays them once.
    """
    out: list[tuple[str, Arm, Arm | None]] = []
    for b in budgets:
        base = Arm(f"nw vs nw, {b}", BASELINE_AGENT, BASELINE_AGENT, b, b)
        if "mr_x" in equal_sides:
            out.append((f"equal budget {b}: mcts as Mr X",
                        Arm(f"mcts Mr X vs nw, {b}", BEST_AGENT, BASELINE_AGENT, b, b), base))
        if "detectives" in equal_sides:
            out.append((f"equal budget {b}: mcts as detectives (roles swapped)",
                        Arm(f"nw Mr X vs mcts, {b}", BASELINE_AGENT, BEST_AGENT, b, b), base))
    if curve:
        fixed = curve[0] if curve_fixed is None else curve_fixed
        for side in curve_sides:
            for agent in curve_agents:
                prev: Arm | None = None
                first: Arm | None = None
                section = f"budget curve: {agent} {SIDE_NAMES[side]}"
                for b in curve:
                    if side == "mr_x":
                        arm = Arm(f"{agent} Mr X at {b} vs nw at {fixed}", agent,
                                  BASELINE_AGENT, b, fixed)
                    else:
                        arm = Arm(f"nw Mr X at {fixed} vs {agent} at {b}", BASELINE_AGENT,
                                  agent, fixed, b)
                    out.append((section, arm, prev))
                    prev = arm
                    first = first or arm
                if len(curve) > 2 and prev is not None:
                    out.append((f"{section}: {curve[-1]} over {curve[0]}", prev, first))
    return out


def versus_config(arm: Arm, args: argparse.Namespace) -> ArenaConfig:
    """The arena configuration of one arm: the budget of each side is its agent's
    ``playouts`` option (the arena passes ``Budget()``), the same seeds in every arm. Our
    agent's options are written out in full (:data:`BEST_SETTINGS`, then ``--best-opt``), so
    that a run folder, keyed by the options, never mixes games of two versions of the
    ``mcts`` defaults."""
    extra = {**BEST_SETTINGS, **dict(getattr(args, "best_opt", None) or {})}

    def opts(agent: str, playouts: int) -> dict[str, Any]:
        return {"playouts": playouts, **(extra if agent == BEST_AGENT else {})}

    return ArenaConfig(
        mr_x=arm.mr_x, detectives=arm.detectives, games=args.games,
        rules=Rules.classic(detectives=5), mr_x_options=opts(arm.mr_x, arm.mr_x_playouts),
        detectives_options=opts(arm.detectives, arm.detectives_playouts), budget=None,
        seconds=args.seconds, seed=args.seed, workers=args.workers, backend=args.backend)


def run_versus(args: argparse.Namespace) -> list[dict[str, Any]]:
    """Play every arm of the versus protocol (each distinct one once); the table's rows."""
    plan = versus_arms(args.budgets, args.curve, tuple(args.curve_sides),
                       tuple(args.curve_agents), args.curve_fixed, tuple(args.equal_sides))
    configs: dict[str, ArenaConfig] = {}
    for _, arm, ref in plan:
        for a in (arm, ref) if ref is not None else (arm,):
            cfg = versus_config(a, args)
            configs.setdefault(cfg.config_hash, cfg)
    step = getattr(args, "round_size", None) or args.games
    targets = list(range(step, args.games, step)) + [args.games]
    print(f"{len(plan)} rows, {len(configs)} distinct runs x {args.games} games"
          f"{f' in rounds of {step}' if len(targets) > 1 else ''}, {args.workers} workers",
          file=sys.stderr)
    results: dict[str, ArenaResult] = {}
    t0 = time.perf_counter()
    for target in targets:  # every run reaches a round's games before any goes on
        for k, (h, cfg) in enumerate(configs.items(), 1):
            print(f"[{k}/{len(configs)}] {min(target, args.games)} games: {cfg.describe()}",
                  file=sys.stderr)
            results[h] = run_arena(dataclasses.replace(cfg, games=target),
                                   Path(args.out) / "versus" / h,
                                   progress=not args.no_progress, max_games=args.max_new_games)
    print(f"played in {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    rows = []
    for section, arm, ref in plan:
        side = "detectives" if "detectives" in section else "mr_x"
        res = results[versus_config(arm, args).config_hash]
        wr = res.win_rate(side)
        row: dict[str, Any] = {"section": section, "label": arm.label, "side": side,
                               "wins": wr.wins, "games": wr.games, "rate": wr.rate,
                               "ci": wr.interval, "errors": len(res.errors),
                               "seconds": _mean_move_seconds(res, side)}
        if ref is not None:
            rr = results[versus_config(ref, args).config_hash].win_rate(side)
            row["ref"] = ref.label
        if ref is not None and wr.games and rr.games:
            row.update(diff=wr.rate - rr.rate,
                       p=fisher_exact(wr.wins, wr.games, rr.wins, rr.games),
                       dci=difference_interval(wr.wins, wr.games, rr.wins, rr.games))
            if section.startswith("equal budget"):
                row["aim"] = AIMS[side]
            elif section.startswith(f"budget curve: {BEST_AGENT} "):
                row["aim"] = 0.0  # rising with the budget
        rows.append(row)
    return rows


# The issue's aims at equal budget: our side's win rate over nw's, in points of win rate.
AIMS = {"mr_x": 0.10, "detectives": 0.05}


def aim_verdict(row: dict[str, Any], alpha: float = 0.05) -> str:
    """Whether a row meets its aim: at equal budget a difference of at least ``AIMS[side]``
    over ``nw``, on a curve of ours a rise over the budget before (aim 0). "met" needs the
    difference at or over the aim and significant (Fisher p < ``alpha``); "met, interval
    above" says the difference's whole 95% interval lies above the aim; "not shown" is a
    difference at or over the aim that this sample cannot tell from none; "not met, interval
    below" says the whole interval lies below the aim."""
    if "aim" not in row:
        return ""
    aim, diff, p = row["aim"], row["diff"], row["p"]
    lo, hi = row["dci"]
    want = f"+{aim * 100:.0f}" if aim else "rising"
    if lo >= aim and p < alpha:
        return f"{want}: met, interval above"
    if diff >= aim and diff > 0 and p < alpha:
        return f"{want}: met"
    if diff >= aim and diff > 0:
        return f"{want}: not shown (p >= {alpha:g})"
    if hi < aim:
        return f"{want}: not met, interval below"
    return f"{want}: not met"


def _mean_move_seconds(res: ArenaResult, side: str) -> float | None:
    """Mean seconds a move of ``side``'s agent took in the run (None if not recorded)."""
    t = res.time_per_move().get(side, {})
    v = t.get("mean_s")
    return float(v) if isinstance(v, int | float) else None


def versus_table(rows: list[dict[str, Any]]) -> str:
    """The versus rows as a Markdown table."""
    head = ("| comparison | arm | side's win rate | 95% CI | games | s/move | against | "
            "difference | difference 95% CI | Fisher p | aim |\n"
            "|---|---|---:|---:|---:|---:|---|---:|---:|---:|---|\n")
    body = []
    for r in rows:
        games, diff, pval = _cells(r)
        sec = f"{r['seconds']:.3f}" if r["seconds"] is not None else ""
        dci = (f"{r['dci'][0] * 100:+.1f} to {r['dci'][1] * 100:+.1f}" if "dci" in r else "")
        rate = (f"{r['rate']:.1%} | {r['ci'][0]:.1%} - {r['ci'][1]:.1%}" if r["games"]
                else "no games yet | ")
        body.append(f"| {r['section']} | {r['label']} | {rate} | {games} | {sec} | "
                    f"{r.get('ref', '')} | {diff} | "
                    f"{dci} | {pval} | {aim_verdict(r)} |\n")
    return head + "".join(body)


def write_versus(path: Path, text: str, args: argparse.Namespace) -> None:
    """Put the versus table into ``path`` between its markers (the rest is kept)."""
    cmd = "python benchmarks/nijssen_winands.py " + " ".join(sys.argv[1:])
    now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    load = " ".join(f"{x:.2f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "?"
    block = (f"{VERSUS_BEGIN}\n## Our agents against the frozen baseline `nw`\n\n"
             f"Tabulated {now} (load {load}) with `{cmd}`: up to {args.games} "
             "games per arm (the games column: what each arm has recorded), classic rules, "
             f"five detectives, run seed {args.seed}; every arm plays the same start positions "
             "(game i's start derives from the run seed and i). "
             "\"side's win rate\" is the win rate of the side named in the comparison; the "
             "difference and the two-sided Fisher's exact test are against the arm in "
             "\"against\" (at equal budget: the same side played by `nw`; on the budget curve: "
             "the budget before; the last row of a curve: its last point against its first). "
             "\"difference 95% CI\" is Newcombe's hybrid score interval of the difference, in "
             "points. \"aim\" is the issue's: at equal budget +10 points for our Mr X and +5 for "
             "our detectives over `nw`, on our curves a rise with the budget; \"met\" needs the "
             "difference at or over the aim and p < 0.05, \"interval above\" (or below) says "
             "the difference's whole interval lies above (below) the aim. s/move is that side's "
             "mean agent time per move on the machine of the run (a busy one makes it long)."
             f"\n\n{text}\n{VERSUS_END}\n")
    old = path.read_text() if path.exists() else "# Experiments\n\n"
    if VERSUS_BEGIN in old and VERSUS_END in old:
        a = old.index(VERSUS_BEGIN)
        b = old.index(VERSUS_END) + len(VERSUS_END) + 1
        new = old[:a] + block + old[b:]
    else:
        head, sep, rest = old.partition("\n## ")
        new = head.rstrip("\n") + "\n\n" + block + ("\n## " + rest if sep else "")
    path.write_text(new)


# ---- Table 7.10 of Nijssen's thesis: nw against nw ----------------------------------------------
#: Nijssen's thesis, Table 7.10 (MCTS seekers with location categorization, r = 0.1, against
#: the MCTS hider): the seekers' win rate (%) and its +/- at each number of playouts a move.
THESIS_7_10: dict[int, tuple[float, float]] = {1000: (43.0, 3.1), 2500: (59.7, 3.0)}


def table_7_10_config(playouts: int, seed: int, args: argparse.Namespace) -> ArenaConfig:
    """``nw`` against ``nw`` at ``playouts`` a move on both sides, start sample ``seed``."""
    opts = {"playouts": playouts}
    return ArenaConfig(
        mr_x=BASELINE_AGENT, detectives=BASELINE_AGENT, games=args.games,
        rules=Rules.classic(detectives=5), mr_x_options=opts, detectives_options=opts,
        budget=None, seconds=None, seed=seed, workers=args.workers, backend=args.backend)


def run_table_7_10(args: argparse.Namespace) -> list[dict[str, Any]]:
    """Play (or, with ``--max-new-games 0``, only read) nw against nw at each budget of
    ``args.budgets`` and each start sample of ``args.samples``, in rounds of
    ``args.round_size`` games; the rows of :func:`table_7_10_text`. The run folders are named
    by :func:`scotlandyard.ai.mcts.nw_fingerprint`: a changed ``nw`` starts new ones."""
    from scotlandyard.ai.mcts import nw_fingerprint

    fp = nw_fingerprint()
    step = args.round_size or args.games
    targets = list(range(step, args.games, step)) + [args.games]
    results: dict[tuple[int, int], ArenaResult] = {}
    for target in targets:
        for b in args.budgets:
            for seed in args.samples:
                cfg = table_7_10_config(b, seed, args)
                print(f"{target} games: nw{b} vs nw{b}, seed {seed}", file=sys.stderr)
                results[b, seed] = run_arena(
                    dataclasses.replace(cfg, games=target),
                    Path(args.out) / "table-7-10" / f"nw-{fp}-{b}-seed{seed}",
                    progress=not args.no_progress, max_games=args.max_new_games)
    rows = []
    for b in args.budgets:
        wins = games = 0
        for seed in args.samples:
            wr = results[b, seed].win_rate("detectives")
            rows.append({"budget": b, "sample": str(seed), "wins": wr.wins, "games": wr.games})
            wins += wr.wins
            games += wr.games
        rows.append({"budget": b, "sample": "pooled", "wins": wins, "games": games})
    return rows


def table_7_10_text(rows: list[dict[str, Any]]) -> str:
    """The comparison with the thesis as a Markdown table: each sample's and the pooled
    detectives' win rate with a 95% normal interval, the thesis's figure, the difference and
    whether it lies within the two intervals combined (sqrt(ours^2 + thesis^2))."""
    head = ("| playouts a move | start sample | detectives' wins | win rate | 95% CI (ours) | "
            "thesis | ours - thesis | combined 95% half-width | within |\n"
            "|---:|---|---:|---:|---:|---:|---:|---:|---|\n")
    body = []
    for r in rows:
        n, k = r["games"], r["wins"]
        ref = THESIS_7_10.get(r["budget"])
        if not n:
            body.append(f"| {r['budget']:,} | {r['sample']} | 0/0 | | | | | | |\n")
            continue
        p = k / n
        half = 1.96 * math.sqrt(p * (1 - p) / n) * 100
        cells = [f"{r['budget']:,}", r["sample"], f"{k}/{n}", f"{p:.1%}",
                 f"{max(0.0, p * 100 - half):.1f} - {min(100.0, p * 100 + half):.1f}"]
        if ref is None:
            cells += ["", "", "", ""]
        else:
            diff = p * 100 - ref[0]
            comb = math.sqrt(half ** 2 + ref[1] ** 2)
            cells += [f"{ref[0]:.1f} +/- {ref[1]:.1f}", f"{diff:+.1f}", f"{comb:.1f}",
                      "yes" if abs(diff) <= comb else "**no**"]
        body.append("| " + " | ".join(cells) + " |\n")
    return head + "".join(body)


# ---- the levels against the frozen baseline ----------------------------------------------------
def levels_config(level: str, side: str, opponent: int, args: argparse.Namespace) -> ArenaConfig:
    """The arena configuration of ``level`` playing ``side`` against ``nw`` at ``opponent``
    iterations a move (the level's own budget: the arena passes ``Budget()``)."""
    nw = {"playouts": opponent}
    return ArenaConfig(
        mr_x=level if side == "mr_x" else BASELINE_AGENT,
        detectives=level if side == "detectives" else BASELINE_AGENT, games=args.games,
        rules=Rules.classic(detectives=5), mr_x_options={} if side == "mr_x" else nw,
        detectives_options=nw if side == "mr_x" else {}, budget=None, seconds=None,
        seed=args.seed, workers=args.workers, backend=args.backend)


def run_levels(args: argparse.Namespace) -> list[dict[str, Any]]:
    """Play (or, with ``--max-new-games 0``, only read) every level on every side of
    ``args.levels_sides``; the rows of :func:`levels_table`, weakest level first per side."""
    from scotlandyard.ai.agents import LEVELS

    names = args.levels_names or list(LEVELS)
    unknown = [n for n in names if n not in LEVELS]
    if unknown:
        raise SystemExit(f"unknown level(s) {', '.join(unknown)} (levels: {', '.join(LEVELS)})")
    rows: list[dict[str, Any]] = []
    for side in args.levels_sides:
        opponent = (args.levels_mr_x_opponent if side == "mr_x"
                    else args.levels_detectives_opponent)
        prev: dict[str, Any] | None = None
        for level in names:
            cfg = levels_config(level, side, opponent, args)
            print(f"{cfg.describe()}", file=sys.stderr)
            res = run_arena(cfg, Path(args.out) / f"{level}-{side}-vs-nw{opponent}",
                            progress=not args.no_progress, max_games=args.max_new_games)
            wr = res.win_rate(side)
            t = res.time_per_move().get(side, {})
            row: dict[str, Any] = {
                "level": level, "side": side, "opponent": opponent, "wins": wr.wins,
                "games": wr.games, "rate": wr.rate, "ci": wr.interval,
                "errors": len(res.errors), "mean_s": t.get("mean_s"), "max_s": t.get("max_s")}
            if prev is not None and prev["games"] and wr.games:
                row.update(ref=prev["level"], diff=wr.rate - prev["rate"],
                           p=fisher_exact(wr.wins, wr.games, prev["wins"], prev["games"]))
            rows.append(row)
            prev = row
    return rows


def levels_table(rows: list[dict[str, Any]]) -> str:
    """The level rows as a Markdown table."""
    head = ("| side | level | against | side's wins | win rate | 95% CI | s/move (mean, max) | "
            "over the level before | Fisher p |\n|---|---|---|---:|---:|---:|---:|---:|---:|\n")
    body = []
    for r in rows:
        games, diff, pval = _cells(r)
        secs = (f"{r['mean_s']:.3f}, {r['max_s']:.2f}"
                if isinstance(r["mean_s"], int | float) and isinstance(r["max_s"], int | float)
                else "")
        rate = f"{r['rate']:.1%} | {r['ci'][0]:.1%} - {r['ci'][1]:.1%}" if r["games"] else "|"
        body.append(f"| {SIDE_NAMES[r['side']]} | {r['level']} | nw at {r['opponent']} | "
                    f"{r['wins']}/{games} | {rate} | {secs} | {diff} | {pval} |\n")
    return head + "".join(body)


def _option(text: str) -> tuple[str, Any]:
    """KEY=VALUE, the value read as a number or true/false where it is one."""
    key, sep, raw = text.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"an option is KEY=VALUE, not {text!r}")
    value: Any = raw
    low = raw.lower()
    if low in ("true", "false"):
        value = low == "true"
    else:
        for kind in (int, float):
            try:
                value = kind(raw)
                break
            except ValueError:
                pass
    return key, value


def _ints(text: str) -> list[int]:
    return [int(x) for x in text.split(",") if x.strip()]


def main(argv: list[str] | None = None) -> None:
    """Parse the command line, run the experiment, print (and optionally write) the table."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true",
                   help="a smoke run: few games at a small budget (about 3 minutes)")
    p.add_argument("--games", type=int, default=None, help="games per arm (default 500; quick 20; levels 100)")
    p.add_argument("--budget", type=int, default=None,
                   help="MCTS playouts per move (default 2000; quick 200)")
    p.add_argument("--seconds", type=float, default=None, help="also a time limit per move")
    p.add_argument("--seed", type=int, default=2012)
    p.add_argument("--workers", type=int, default=None, help="parallel games (default: the CPUs)")
    p.add_argument("--backend", choices=("local", "ray"), default="local")
    p.add_argument("--out", default="runs/nijssen-winands", help="arena run folders go here")
    p.add_argument("--write", action="store_true",
                   help="write the table to its section of docs/experiments.md (the rest is kept)")
    p.add_argument("--doc", default=str(Path(__file__).resolve().parent.parent / "docs" /
                                        "experiments.md"), help=argparse.SUPPRESS)
    p.add_argument("--no-progress", action="store_true", help="no progress bars")
    p.add_argument("--versus", action="store_true",
                   help="our mcts against the frozen nw baseline (both sides, equal budgets, "
                        "and each side's budget curve) instead of the paper's switches")
    p.add_argument("--budgets", type=_ints, default=[1000, 4000],
                   help="versus: equal budgets, comma-separated (default 1000,4000)")
    p.add_argument("--curve", type=_ints, default=[1000, 4000, 16000],
                   help="versus: the budget curve, comma-separated (default 1000,4000,16000; "
                        "empty: none)")
    p.add_argument("--max-new-games", type=int, default=None,
                   help="versus: play at most this many new games per run in this call (0: "
                        "only tabulate the games already recorded; the games column shows "
                        "how many each arm has)")
    p.add_argument("--round-size", type=int, default=None, metavar="N",
                   help="versus: play in rounds of N games per run, every run reaching a "
                        "round's games before any goes on (so that a run stopped by time "
                        "leaves arms of equal size); default: one round")
    p.add_argument("--curve-sides", type=lambda t: [x for x in t.split(",") if x],
                   default=["mr_x", "detectives"],
                   help="versus: the sides of the budget curve (default mr_x,detectives)")
    p.add_argument("--curve-agents", type=lambda t: [x for x in t.split(",") if x],
                   default=[BEST_AGENT, BASELINE_AGENT],
                   help="versus: the agents of the budget curve (default mcts,nw)")
    p.add_argument("--equal-sides", type=lambda t: [x for x in t.split(",") if x],
                   default=["mr_x", "detectives"],
                   help="versus: the sides of the equal-budget comparisons (default "
                        "mr_x,detectives)")
    p.add_argument("--curve-fixed", type=int, default=None,
                   help="versus: the iterations of the curve's fixed nw opponent (default: the "
                        "curve's first budget)")
    p.add_argument("--best-opt", type=_option, action="append", default=[],
                   metavar="KEY=VALUE",
                   help="versus: an option of our mcts agent in every arm it plays "
                        "(repeatable), e.g. mr_x_model=hypothesis")
    p.add_argument("--table-7-10", action="store_true", dest="table_7_10",
                   help="nw against nw at --budgets (default 1000,2500) on each start sample "
                        "of --samples, against the thesis's Table 7.10")
    p.add_argument("--samples", type=_ints, default=[11, 2012],
                   help="table-7-10: the arena seeds of the independent start samples "
                        "(default 11,2012)")
    p.add_argument("--levels", action="store_true",
                   help="each level of the level table against nw on each side (and each "
                        "level against the next weaker one)")
    p.add_argument("--levels-sides", type=lambda t: [x for x in t.split(",") if x],
                   default=["mr_x", "detectives"],
                   help="levels: the sides (default mr_x,detectives)")
    p.add_argument("--levels-names", type=lambda t: [x for x in t.split(",") if x],
                   default=None, help="levels: the levels, weakest first (default: all)")
    p.add_argument("--levels-mr-x-opponent", type=int, default=4000,
                   help="levels: the iterations of the nw detectives that Mr X's levels play "
                        "(default 4000)")
    p.add_argument("--levels-detectives-opponent", type=int, default=1000,
                   help="levels: the iterations of the nw Mr X that the detectives' levels "
                        "play (default 1000)")
    args = p.parse_args(argv)
    args.best_opt = dict(args.best_opt)
    if args.table_7_10:
        if "--budgets" not in " ".join(argv if argv is not None else sys.argv):
            args.budgets = [1000, 2500]
        if args.games is None:
            args.games = 200
        if args.workers is None:
            args.workers = 1
        if args.round_size is not None and args.round_size < 1:
            p.error(f"--round-size is a whole number >= 1, not {args.round_size}")
        try:
            ttext = table_7_10_text(run_table_7_10(args))
        except ArenaError as exc:
            raise SystemExit(f"error: {exc}") from None
        print(ttext)
        return
    if args.levels:
        bad = [x for x in args.levels_sides if x not in SIDE_NAMES]
        if bad:
            p.error(f"unknown side for the levels: {', '.join(bad)}")
    if args.versus:
        bad = [x for x in args.curve_sides + args.equal_sides if x not in SIDE_NAMES]
        bad += [x for x in args.curve_agents if x not in (BEST_AGENT, BASELINE_AGENT)]
        if bad:
            p.error(f"unknown side or agent for the curve: {', '.join(bad)}")
    if args.round_size is not None and args.round_size < 1:
        p.error(f"--round-size is a whole number >= 1, not {args.round_size}")
    if args.games is None:
        args.games = 100 if args.levels else 20 if args.quick else 500
    if args.budget is None:
        args.budget = 200 if args.quick else 2000
    if args.workers is None:
        try:
            args.workers = len(os.sched_getaffinity(0))
        except AttributeError:
            args.workers = os.cpu_count() or 1
    if args.levels:
        try:
            text = levels_table(run_levels(args))
        except ArenaError as exc:
            raise SystemExit(f"error: {exc}") from None
        print(text)
        return
    try:
        vrows = run_versus(args) if args.versus else None
        rows = run(args) if vrows is None else []
    except ArenaError as exc:
        raise SystemExit(f"error: {exc}") from None
    if vrows is not None:
        vtext = versus_table(vrows)
        print(vtext)
        if args.write:
            write_versus(Path(args.doc), vtext, args)
            print(f"written to {args.doc}", file=sys.stderr)
        return
    text = table(rows)
    print(text)
    print(summary(rows))
    if args.write:
        write_doc(Path(args.doc), text, args, rows)
        print(f"written to {args.doc}", file=sys.stderr)


if __name__ == "__main__":
    main()
