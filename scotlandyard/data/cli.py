"""``scotlandyard dataset``: generate games of strong agents (JSON records) and summarize."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from . import STRONGEST, generate, summary, write_parquet


def dataset(
    out: Annotated[Path, typer.Option(help="Dataset folder (resumed if it exists).")] = Path("runs/games"),
    games: Annotated[int, typer.Option(min=1, help="Games to generate.")] = 10_000,
    mr_x: Annotated[str, typer.Option("--mr-x", help="Mr X's agent (default: the package's MCTS, "
                                                     "2,000 iterations a move).")] = STRONGEST[0],
    detectives: Annotated[str, typer.Option(help="The detectives' agent (default as Mr X).")] = STRONGEST[0],
    preset: Annotated[str, typer.Option(help="Rule preset.")] = "classic",
    seed: Annotated[int, typer.Option(help="Seed of the games.")] = 0,
    workers: Annotated[int, typer.Option(min=1, help="Local worker processes.")] = 1,
    backend: Annotated[str, typer.Option(help="local or ray.")] = "local",
    summary_only: Annotated[bool, typer.Option("--summary", help="Only print the summary of "
                                                                 "an existing dataset.")] = False,
    parquet: Annotated[bool, typer.Option(
        "--parquet", help="Also write each side's decisions as Parquet (OUT/mr_x.parquet, "
                          "OUT/detectives.parquet; pip install 'scotlandyard[parquet]'; "
                          "schema in docs/env.md).")] = False,
) -> None:
    """Generate a dataset of games (records in the package's JSON format, docs/env.md) and
    print its summary statistics as JSON. Load it with scotlandyard.data.games/arrays."""
    try:
        if not summary_only:
            generate(out, games, mr_x=mr_x, detectives=detectives, preset=preset, seed=seed,
                     workers=workers, backend=backend)
        if parquet:
            for side in ("mr_x", "detectives"):
                rows = write_parquet(out, out / f"{side}.parquet", side)
                typer.echo(f"{out / f'{side}.parquet'}: {rows} decisions", err=True)
        typer.echo(json.dumps(summary(out), indent=2))
    except (ValueError, FileNotFoundError, ImportError) as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
