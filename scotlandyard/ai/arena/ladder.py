"""The ladder: a fixed, versioned reference pool rated by Bradley–Terry, per side.

**scotlandyard-ladder v1** (see ``docs/benchmark.md`` for the protocol). Every ordered pair
of distinct members (A as Mr X, B as the detectives) plays ``pairs`` games of one preset;
game ``i`` of every pairing starts from the same seeded start stations (arena seeds derive
from ``(seed, i)``), so A–B and B–A are role-swapped games on paired seeds. Each member gets
two ratings, one per side, from the model

    P(Mr X agent a beats detectives agent d) = 1 / (1 + exp(-(x_a - d_d)))

fitted by maximum likelihood with a weak Gaussian prior (ridge 0.01, so that a member that
always wins has a finite rating); ratings are shown on the Elo scale (400 / ln 10 per unit),
anchored so that ``random``'s two ratings average 0. Intervals: 95% percentile bootstrap
over paired units (a pairing's game ``i`` and its role-swapped twin resampled together).
A member's overall rating is the mean of its two.

Every pairing is an arena run in ``OUT/matches/<mr_x>__<detectives>/`` (records, manifest,
resumable: running again plays only what is missing); ``OUT/ladder.json``, ``ladder.txt``
and, with ``plot=True``, ``ladder.png`` hold the ratings.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ...rules import Rules
from .config import ArenaConfig, ArenaError, Backend
from .folder import _write_atomic
from .run import run_arena

LADDER_VERSION = "scotlandyard-ladder v1"
ELO = 400.0 / math.log(10.0)
RIDGE = 0.01


@dataclass(frozen=True)
class Member:
    """A pool member: a label, an agent name of ``make_agent`` and its options (fixed)."""

    label: str
    agent: str
    options: dict[str, Any] = field(default_factory=dict)
    note: str = ""


POOL_V1: tuple[Member, ...] = (
    Member("random", "random", note="uniform over the legal moves"),
    Member("heuristic", "heuristic", note="Mr X mcd (farthest from the nearest hunter), detectives mtd"),
    Member("lookahead", "lookahead", note="Mr X paranoid alpha-beta, detectives expectimax"),
    Member("easy", "easy", note="level easy (mcd / cal with random moves)"),
    Member("medium", "medium", note="level medium (scotlandyard.ai LEVELS: MCTS, best settings)"),
    Member("hard", "hard", note="level hard (scotlandyard.ai LEVELS; time-capped, so machine-dependent)"),
    Member("nw-200", "nw", {"playouts": 200},
           note="the frozen Nijssen-Winands baseline (the paper's settings), 200 iterations a move"),
    Member("nw-2000", "nw", {"playouts": 2000},
           note="the frozen Nijssen-Winands baseline (the paper's settings), 2,000 iterations a move"),
)
"""The v1 pool: ``nw`` is the frozen Nijssen-Winands agent (``scotlandyard.ai``), at two
fixed iteration budgets; the levels are pinned by name."""


@dataclass(frozen=True)
class LadderConfig:
    """One ladder run: the preset, games per pairing, seed, the members (default: the whole
    v1 pool) and an optional new agent (``module:attribute`` or an agent name) to rate."""

    preset: str = "classic"
    pairs: int = 10
    seed: int = 0
    members: tuple[str, ...] = ()
    agent: str | None = None
    workers: int = 1
    backend: Backend = "local"
    bootstrap: int = 200

    def pool(self) -> list[Member]:
        """The members that play (the pool subset, then the new agent)."""
        by_label = {m.label: m for m in POOL_V1}
        labels = self.members or tuple(by_label)
        unknown = [x for x in labels if x not in by_label]
        if unknown:
            raise ArenaError(f"no pool member {', '.join(unknown)} in {LADDER_VERSION} "
                             f"(members: {', '.join(by_label)})")
        out = [by_label[x] for x in labels]
        if self.agent:
            out.append(Member(self.agent, self.agent, note="the agent rated against the pool"))
        if len(out) < 2:
            raise ArenaError("a ladder needs at least two members")
        return out

    def rules(self) -> Rules:
        """The preset's rules."""
        return Rules.preset(self.preset)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON values."""
        return {"version": LADDER_VERSION, "preset": self.preset, "pairs": self.pairs,
                "seed": self.seed, "members": [m.label for m in self.pool()],
                "full_pool": not self.members, "agent": self.agent,
                "bootstrap": self.bootstrap}


@dataclass
class LadderResult:
    """Ratings (Elo scale) per member and side, with 95% bootstrap intervals."""

    config: LadderConfig
    members: list[Member]
    ratings: dict[str, dict[str, float]]
    intervals: dict[str, dict[str, tuple[float, float]]]
    games: int
    errors: int
    pairwise: dict[str, dict[str, float]]

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON values (``ladder.json``)."""
        return {"config": self.config.to_dict(), "games": self.games, "errors": self.errors,
                "members": {m.label: {"agent": m.agent, "options": m.options, "note": m.note,
                                      **{k: round(v, 1) for k, v in self.ratings[m.label].items()},
                                      "interval": {k: [round(a, 1), round(b, 1)]
                                                   for k, (a, b) in self.intervals[m.label].items()}}
                            for m in self.members},
                "mr_x_win_rate": self.pairwise}

    def table(self) -> str:
        """The ratings as a Markdown table, strongest overall first."""
        c = self.config
        lines = [f"{LADDER_VERSION}, preset {c.preset}, {c.pairs} paired seeds per pairing, "
                 f"seed {c.seed}, {self.games} games ({self.errors} agent errors)", "",
                 "| member | overall | as Mr X | as detectives |", "|---|---|---|---|"]
        order = sorted(self.members, key=lambda m: -self.ratings[m.label]["overall"])
        for m in order:
            r, iv = self.ratings[m.label], self.intervals[m.label]
            cells = [f"{round(r[k])} [{round(iv[k][0])}, {round(iv[k][1])}]"
                     for k in ("overall", "mr_x", "detectives")]
            lines.append(f"| {m.label} | " + " | ".join(cells) + " |")
        return "\n".join(lines) + "\n"


def fit_ratings(x: np.ndarray, d: np.ndarray, y: np.ndarray, k: int,
                anchor: int | None = 0) -> np.ndarray:
    """Bradley–Terry per side: ``[2, k]`` ratings (natural units; row 0 Mr X, row 1
    detectives) maximizing the likelihood of ``y`` (1: the Mr X agent ``x`` beat the
    detectives agent ``d``) with a ridge prior; shifted so that member ``anchor``'s two
    ratings average 0 (``None``: the mean of all)."""
    theta = np.zeros(2 * k)
    rows = np.arange(len(y))
    a = np.zeros((len(y), 2 * k))
    a[rows, x] = 1.0
    a[rows, k + d] = -1.0
    for _ in range(50):
        p = 1.0 / (1.0 + np.exp(-(a @ theta)))
        grad = a.T @ (y - p) - RIDGE * theta
        hess = (a * (p * (1 - p))[:, None]).T @ a + RIDGE * np.eye(2 * k)
        step = np.linalg.solve(hess, grad)
        theta += step
        if np.abs(step).max() < 1e-9:
            break
    r = theta.reshape(2, k)
    shift = r[:, anchor].mean() if anchor is not None else r.mean()
    return np.asarray(r - shift)


def _match_folder(out: Path, mx: Member, det: Member) -> Path:
    safe = {ord(c): "_" for c in ":/\\ ."}
    return out / "matches" / f"{mx.label.translate(safe)}__{det.label.translate(safe)}"


def run_ladder(config: LadderConfig, out: Path | str, *, progress: bool = True,
               plot: bool = False) -> LadderResult:
    """Play every missing game of the ladder into ``out`` and rate the members."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    members = config.pool()
    rules = config.rules()
    labels = [m.label for m in members]
    xs: list[int] = []
    ds: list[int] = []
    ys: list[float] = []
    unit: list[int] = []
    errors = 0
    pairwise: dict[str, dict[str, float]] = {}
    pairs = [(i, j) for i in range(len(members)) for j in range(len(members)) if i != j]
    for n, (i, j) in enumerate(pairs, 1):
        mx, det = members[i], members[j]
        if progress:
            print(f"[{n}/{len(pairs)}] {mx.label} (Mr X) vs {det.label} (detectives)", flush=True)
        cfg = ArenaConfig(mr_x=mx.agent, detectives=det.agent, mr_x_options=mx.options,
                          detectives_options=det.options, games=config.pairs, rules=rules,
                          seed=config.seed, workers=config.workers, backend=config.backend)
        res = run_arena(cfg, _match_folder(out, mx, det), progress=False)
        wins = 0
        decided = 0
        for g in res.games:
            if g.error is not None or g.winner is None:
                errors += 1
                continue
            xs.append(i)
            ds.append(j)
            won = g.winner == "mr_x"
            ys.append(float(won))
            lo, hi = min(i, j), max(i, j)
            unit.append((lo * len(members) + hi) * config.pairs + g.index)
            wins += won
            decided += 1
        pairwise.setdefault(mx.label, {})[det.label] = round(wins / decided, 3) if decided else float("nan")
    x, d, y = np.array(xs), np.array(ds), np.array(ys)
    anchor = labels.index("random") if "random" in labels else None
    k = len(members)
    r = fit_ratings(x, d, y, k, anchor) * ELO
    boots = []
    units = np.array(unit)
    keys = np.unique(units)
    rng = np.random.default_rng(config.seed)
    for _ in range(config.bootstrap):
        pick = rng.choice(keys, size=len(keys), replace=True)
        idx = np.concatenate([np.flatnonzero(units == u) for u in pick])
        boots.append(fit_ratings(x[idx], d[idx], y[idx], k, anchor) * ELO)
    ratings: dict[str, dict[str, float]] = {}
    intervals: dict[str, dict[str, tuple[float, float]]] = {}
    bs = np.array(boots) if boots else np.array([r])
    for m, lab in enumerate(labels):
        ratings[lab] = {"overall": float(r[:, m].mean()), "mr_x": float(r[0, m]),
                        "detectives": float(r[1, m])}
        series = {"overall": bs[:, :, m].mean(axis=1), "mr_x": bs[:, 0, m], "detectives": bs[:, 1, m]}
        intervals[lab] = {s: (float(np.percentile(v, 2.5)), float(np.percentile(v, 97.5)))
                          for s, v in series.items()}
    result = LadderResult(config, members, ratings, intervals, len(y), errors, pairwise)
    _write_atomic(out / "ladder.json", json.dumps(result.to_dict(), indent=2) + "\n")
    _write_atomic(out / "ladder.txt", result.table())
    if plot:
        plot_ladder(result, out / "ladder.png")
    return result


def plot_ladder(result: LadderResult, path: Path) -> Path:
    """Ratings per side with their intervals, one row per member (matplotlib, Agg)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    order = sorted(result.members, key=lambda m: result.ratings[m.label]["overall"])
    fig = Figure(figsize=(7, 0.5 * len(order) + 1.5))
    FigureCanvasAgg(fig)
    ax = fig.add_subplot(1, 1, 1)
    for off, side, colour in ((-0.15, "mr_x", "#444444"), (0.15, "detectives", "#1f77b4")):
        ys = [k + off for k in range(len(order))]
        vals = [result.ratings[m.label][side] for m in order]
        lo = [vals[k] - result.intervals[m.label][side][0] for k, m in enumerate(order)]
        hi = [result.intervals[m.label][side][1] - vals[k] for k, m in enumerate(order)]
        ax.errorbar(vals, ys, xerr=[lo, hi], fmt="o", color=colour,
                    label="as Mr X" if side == "mr_x" else "as detectives")
    ax.set_yticks(range(len(order)), [m.label for m in order])
    ax.set_xlabel("rating (Elo scale; random's two ratings average 0)")
    ax.set_title(f"{LADDER_VERSION}, {result.config.preset}")
    ax.legend(loc="lower right")
    fig.tight_layout()
    fig.savefig(path)
    return path


def parse_members(text: str | None) -> tuple[str, ...]:
    """``"random,easy"`` -> ``("random", "easy")`` (empty: the whole pool)."""
    if not text:
        return ()
    return tuple(x.strip() for x in text.split(",") if x.strip())


__all__ = ["LADDER_VERSION", "POOL_V1", "LadderConfig", "LadderResult", "Member", "fit_ratings",
           "parse_members", "plot_ladder", "run_ladder"]

