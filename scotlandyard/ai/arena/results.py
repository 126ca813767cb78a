"""Arena results: win rates, reasons, lengths, timings; tables and the plot."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..stats import WinRate, describe_numbers
from .config import (
    SIDE_NAMES,
    SIDES,
    ArenaConfig,
    ArenaError,
)
from .folder import _write_atomic
from .play import GameResult


# ---- results -------------------------------------------------------------------------------------
@dataclass
class ArenaResult:
    """The games of a run recorded so far (index < ``config.games``) and their statistics."""

    config: ArenaConfig
    out: Path
    games: list[GameResult]
    played: int = 0

    @property
    def config_hash(self) -> str:
        """The run's :attr:`ArenaConfig.config_hash`."""
        return self.config.config_hash

    @property
    def recorded(self) -> int:
        """Games recorded (errors included)."""
        return len(self.games)

    @property
    def complete(self) -> bool:
        """True when every planned game is recorded."""
        return self.recorded == self.config.games

    @property
    def decided(self) -> list[GameResult]:
        """Games that ended by the rules (no agent error)."""
        return [g for g in self.games if g.error is None and g.winner is not None]

    @property
    def errors(self) -> list[GameResult]:
        """Games stopped by an agent error (an exception or an illegal move)."""
        return [g for g in self.games if g.error is not None]

    def win_rate(self, side: str) -> WinRate:
        """``side``'s wins over the decided games, with its Wilson 95% interval."""
        if side not in SIDES:
            raise ValueError(f"side is 'mr_x' or 'detectives', not {side!r}")
        decided = self.decided
        return WinRate(sum(1 for g in decided if g.winner == side), len(decided))

    def reasons(self) -> dict[str, dict[str, int]]:
        """Decided games per winner and reason."""
        out: dict[str, dict[str, int]] = {s: {} for s in SIDES}
        for (winner, reason), n in sorted(Counter((g.winner or "", g.reason or "")
                                                  for g in self.decided).items()):
            out[winner][reason] = n
        return out

    def rounds(self) -> dict[str, Any]:
        """Game length in rounds (decided games): overall and per winner."""
        decided = self.decided
        return {**describe_numbers([g.round for g in decided]),
                "by_winner": {s: describe_numbers([g.round for g in decided if g.winner == s])
                              for s in SIDES}}

    def time_per_move(self) -> dict[str, dict[str, float | int | None]]:
        """Thinking time per move per side over every recorded game: moves, mean and max (s)."""
        out: dict[str, dict[str, float | int | None]] = {}
        for side in SIDES:
            n = sum(g.moves.get(side, 0) for g in self.games)
            total = sum(g.think.get(side, 0.0) for g in self.games)
            worst = max((g.think_max.get(side, 0.0) for g in self.games), default=0.0)
            out[side] = {"moves": n, "mean_s": total / n if n else None,
                         "max_s": worst if n else None}
        return out

    def to_dict(self) -> dict[str, Any]:
        """What ``results.json`` holds."""
        return {
            "description": self.config.describe(),
            "config": self.config.to_dict(),
            "config_hash": self.config_hash,
            "games_planned": self.config.games,
            "games_recorded": self.recorded,
            "games_decided": len(self.decided),
            "complete": self.complete,
            "win_rate": {s: self.win_rate(s).to_dict() for s in SIDES},
            "reasons": self.reasons(),
            "rounds": self.rounds(),
            "time_per_move": self.time_per_move(),
            "errors": [{"index": g.index, "error": g.error, "record": g.record}
                       for g in self.errors],
        }

    def table(self) -> str:
        """The results as readable tables (plain text)."""
        from io import StringIO

        from rich import box
        from rich.console import Console
        from rich.table import Table

        buf = StringIO()
        con = Console(file=buf, width=120, no_color=True, force_terminal=False,
                      force_interactive=False)
        con.print(f"Arena {self.config_hash}: {self.config.describe()}", soft_wrap=True)
        for side in SIDES:
            con.print(f"  {SIDE_NAMES[side]}: {self.config.agent_label(side)}", soft_wrap=True)
        con.print(f"{self.recorded}/{self.config.games} games recorded, {len(self.decided)} "
                  f"decided, {len(self.errors)} agent errors")
        times = self.time_per_move()
        t = Table(title="Win rate per side (95% Wilson interval)", box=box.SIMPLE_HEAD,
                  title_justify="left")
        for col in ("side", "wins", "games", "win rate", "95% CI", "moves", "time/move",
                    "max time/move"):
            t.add_column(col, justify="left" if col == "side" else "right", no_wrap=True)
        for side in SIDES:
            wr = self.win_rate(side)
            lo, hi = wr.interval
            tm = times[side]
            t.add_row(SIDE_NAMES[side], str(wr.wins),
                      str(wr.games), f"{wr.rate:.1%}", f"{lo:.1%} - {hi:.1%}", str(tm["moves"]),
                      _secs(tm["mean_s"]), _secs(tm["max_s"]))
        con.print(t)
        r = Table(title="Outcome reasons", box=box.SIMPLE_HEAD, title_justify="left")
        for col in ("winner", "reason", "games", "share"):
            r.add_column(col, justify="left" if col in ("winner", "reason") else "right")
        n = len(self.decided)
        for side, reasons in self.reasons().items():
            for reason, k in reasons.items():
                r.add_row(SIDE_NAMES[side], reason, str(k), f"{k / n:.1%}")
        con.print(r)
        g = Table(title="Game length (rounds)", box=box.SIMPLE_HEAD, title_justify="left")
        for col in ("games won by", "games", "mean", "median", "min", "max"):
            g.add_column(col, justify="left" if col == "games won by" else "right")
        rounds = self.rounds()
        for label, d in (("either side", rounds), *((SIDE_NAMES[s], rounds["by_winner"][s])
                                                    for s in SIDES)):
            g.add_row(label, str(d["count"]), _num(d["mean"]), _num(d["median"]),
                      _num(d["min"]), _num(d["max"]))
        con.print(g)
        for e in self.errors[:20]:
            con.print(f"error in game {e.index} ({e.record}): {e.error}", soft_wrap=True)
        if len(self.errors) > 20:
            con.print(f"... and {len(self.errors) - 20} more errors (results.json lists all)")
        return "\n".join(line.rstrip() for line in buf.getvalue().splitlines()) + "\n"

    def write(self) -> None:
        """Write ``results.json`` and ``results.txt`` into the run folder."""
        _write_atomic(self.out / "results.json", json.dumps(self.to_dict(), indent=2) + "\n")
        _write_atomic(self.out / "results.txt", self.table())


def _secs(v: float | int | None) -> str:
    if v is None:
        return "-"
    if v < 0.001:
        return f"{v * 1e6:.0f} us"
    return f"{v * 1000:.1f} ms" if v < 1 else f"{v:.2f} s"


def _num(v: float | int | None) -> str:
    if v is None:
        return "-"
    return f"{v:g}" if isinstance(v, int) or float(v).is_integer() else f"{v:.2f}"


def plot_results(result: ArenaResult, path: Path | str | None = None) -> Path:
    """Draw the win rate of each side with its 95% interval, and the outcome reasons, into a
    PNG (default ``winrates.png`` in the run folder). Needs matplotlib."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise ArenaError("--plot needs matplotlib: pip install 'scotlandyard[plot]'") from None
    path = Path(path) if path is not None else result.out / "winrates.png"
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 4.2), gridspec_kw={"width_ratios": [2, 3]})
    labels, rates, lows, highs = [], [], [], []
    for side in SIDES:
        wr = result.win_rate(side)
        lo, hi = wr.interval
        labels.append(f"{SIDE_NAMES[side]}\n{result.config.agent_label(side)}")
        rates.append(wr.rate)
        lows.append(wr.rate - lo)
        highs.append(hi - wr.rate)
    colours = ["#b03a2e", "#2e86c1"]
    ax1.bar(labels, rates, yerr=[lows, highs], capsize=8, color=colours)
    ax1.set_ylim(0, 1)
    ax1.set_ylabel("win rate (95% Wilson interval)")
    ax1.set_title(f"{len(result.decided)} decided games")
    for x, r in enumerate(rates):
        ax1.text(x + 0.08, r, f"{r:.1%}", ha="left", va="bottom")
    names, counts, cols = [], [], []
    for k, (side, reasons) in enumerate(result.reasons().items()):
        for reason, n in reasons.items():
            names.append(f"{reason}\n({SIDE_NAMES[side]})")
            counts.append(n)
            cols.append(colours[k])
    ax2.bar(names, counts, color=cols)
    ax2.set_ylabel("games")
    ax2.yaxis.get_major_locator().set_params(integer=True)
    ax2.set_title("outcome reasons")
    fig.suptitle(result.config.describe(), fontsize=8, wrap=True)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path
