"""``scotlandyard ladder``: rate the reference pool (and a new agent) per side."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from .config import ArenaError, as_backend
from .ladder import LADDER_VERSION, POOL_V1, LadderConfig, parse_members, run_ladder


def ladder(
    out: Annotated[Path, typer.Option(help="Folder of the run (resumed if it exists).")] = Path("runs/ladder"),
    preset: Annotated[str, typer.Option(help="Rule preset the ladder is played on.")] = "classic",
    pairs: Annotated[int, typer.Option(min=1, help="Paired seeds per pairing (games per ordered "
                                                   "pair of members).")] = 10,
    seed: Annotated[int, typer.Option(help="Seed of the start stations (shared by every pairing).")] = 0,
    members: Annotated[str | None, typer.Option(
        help=f"Comma-separated subset of the pool (default: all of {LADDER_VERSION}: "
             f"{', '.join(m.label for m in POOL_V1)}).")] = None,
    agent: Annotated[str | None, typer.Option(
        help="A new agent to rate against the pool: module:attribute (a policy obs, mask -> "
             "action, an SB3 model, an agent) or an agent name.")] = None,
    workers: Annotated[int, typer.Option(min=1, help="Local worker processes.")] = 1,
    backend: Annotated[str, typer.Option(help="local or ray.")] = "local",
    bootstrap: Annotated[int, typer.Option(min=0, help="Bootstrap resamples for the intervals.")] = 200,
    plot: Annotated[bool, typer.Option("--plot", help="Also write ladder.png.")] = False,
    json_out: Annotated[bool, typer.Option("--json", help="Print ladder.json instead of the table.")] = False,
) -> None:
    """Rate agents on scotlandyard-ladder v1: role-swapped paired seeds, Bradley-Terry per side
    with bootstrap intervals (docs/benchmark.md). Resumable; --backend ray for many cores."""
    if backend not in ("local", "ray"):
        typer.echo(f"error: --backend is local or ray, not {backend!r}", err=True)
        raise typer.Exit(2)
    try:
        config = LadderConfig(preset=preset, pairs=pairs, seed=seed, members=parse_members(members),
                              agent=agent, workers=workers, backend=as_backend(backend),
                              bootstrap=bootstrap)
        config.pool()
        config.rules()
        result = run_ladder(config, out, plot=plot, progress=not json_out)
    except (ArenaError, ValueError) as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    if json_out:
        typer.echo((out / "ladder.json").read_text())
    else:
        typer.echo(result.table())
        typer.echo(f"written: {out / 'ladder.json'}, {out / 'ladder.txt'}"
                   + (f", {out / 'ladder.png'}" if plot else ""))
