"""The ``scotlandyard arena`` command (registered by the main CLI with
``app.command("arena")(arena)``)."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from ..rules import Rules, RulesError, preset_info
from .arena import ArenaConfig, ArenaError, as_backend, parse_options, plot_results, run_arena

__all__ = ["arena", "build_config"]


def _default_workers() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def build_config(
    *, mr_x: str = "random", detectives: str = "random", games: int = 100,
    preset: str = "classic", num_detectives: int | None = None, rule: list[str] | None = None,
    mr_x_opt: list[str] | None = None, detectives_opt: list[str] | None = None,
    budget: int | None = None, seconds: float | None = None, seed: int = 0, workers: int = 1,
    backend: str = "local", ray_address: str | None = None,
) -> ArenaConfig:
    """An :class:`ArenaConfig` from command-line style values (``key=value`` texts);
    raises :class:`ArenaError` saying which value is wrong."""
    try:
        info = preset_info(preset)
    except RulesError:
        raise ArenaError(f"--preset {preset!r} is not a preset (one of {', '.join(Rules.PRESETS)})") \
            from None
    if num_detectives is not None and info.fixed:
        raise ArenaError(f"--preset {preset} fixes the number of detectives; leave out "
                         "--num-detectives")
    try:
        rules = Rules.preset(preset, num_detectives)
        changes: dict[str, Any] = {
            k: tuple(v) if isinstance(v, list) else v
            for k, v in parse_options(rule or [], "--rule").items()
        }
        if changes:
            rules = rules.replace(**changes)
    except RulesError as exc:
        raise ArenaError(f"bad rules: {exc}") from None
    return ArenaConfig(
        mr_x=mr_x, detectives=detectives, games=games, rules=rules,
        mr_x_options=parse_options(mr_x_opt or [], "--mr-x-opt"),
        detectives_options=parse_options(detectives_opt or [], "--detectives-opt"),
        budget=budget, seconds=seconds, seed=seed, workers=workers,
        backend=as_backend(backend),
        ray_address=ray_address,
    )


def arena(
    mr_x: Annotated[str, typer.Option("--mr-x", help="Mr X's agent (a registered name).")] = "random",
    detectives: Annotated[str, typer.Option(help="The detectives' agent (plays every detective "
                                                 "and police piece).")] = "random",
    games: Annotated[int, typer.Option("--games", "-g", min=1, help="Games to play.")] = 100,
    preset: Annotated[str, typer.Option("--preset", "--edition", help="Rules preset: classic, "
                                        "new_edition, classic_2p, new_edition_2p.")] = "classic",
    num_detectives: Annotated[int | None, typer.Option(
        "--num-detectives", "-n", min=1, max=5,
        help="Detectives (default: 5 classic, 4 new edition).")] = None,
    rule: Annotated[list[str] | None, typer.Option(
        "--rule", help="Change a rule setting, key=value (repeatable), e.g. last_round=10.",
        metavar="KEY=VALUE")] = None,
    mr_x_opt: Annotated[list[str] | None, typer.Option(
        "--mr-x-opt", help="Option for Mr X's agent, key=value (repeatable).",
        metavar="KEY=VALUE")] = None,
    detectives_opt: Annotated[list[str] | None, typer.Option(
        "--detectives-opt", help="Option for the detectives' agent, key=value (repeatable).",
        metavar="KEY=VALUE")] = None,
    budget: Annotated[int | None, typer.Option(min=1, help="Playouts per move.")] = None,
    seconds: Annotated[float | None, typer.Option(
        help="Seconds per move (instead of, or with, --budget).")] = None,
    seed: Annotated[int, typer.Option(help="Run seed: game i's start and dice derive from "
                                           "(seed, i).")] = 0,
    workers: Annotated[int | None, typer.Option(
        "--workers", "-j", min=1, help="Parallel games (default: the CPUs).")] = None,
    backend: Annotated[str, typer.Option(help="local (process pool) or ray.")] = "local",
    ray_address: Annotated[str | None, typer.Option(
        help="Ray cluster to join (default: start a local Ray).")] = None,
    out: Annotated[Path | None, typer.Option(
        "--out", "-o", help="Output folder (default runs/MRX-vs-DETECTIVES-HASH); a run "
                            "there with the same settings is resumed.")] = None,
    plot: Annotated[bool, typer.Option("--plot", help="Draw win rates into winrates.png.")] = False,
    max_new_games: Annotated[int | None, typer.Option(
        min=0, help="Play at most this many new games now (the rest on a later run).")] = None,
    progress: Annotated[bool, typer.Option("--progress/--no-progress",
                                           help="Show a progress bar.")] = True,
) -> None:
    """Play many games between two agents and report win rates with 95% intervals.

    Every game's record and a results table go into the output folder; running the same
    command again resumes an interrupted run.
    """
    from rich.console import Console

    err = Console(stderr=True)
    folder = out
    try:
        config = build_config(
            mr_x=mr_x, detectives=detectives, games=games, preset=preset,
            num_detectives=num_detectives, rule=rule, mr_x_opt=mr_x_opt,
            detectives_opt=detectives_opt, budget=budget, seconds=seconds, seed=seed,
            workers=workers if workers is not None else _default_workers(), backend=backend,
            ray_address=ray_address,
        )
        folder = out if out is not None else Path("runs") / re.sub(
            r"[^A-Za-z0-9_.-]", "_", f"{config.mr_x}-vs-{config.detectives}-{config.config_hash[:8]}")
        result = run_arena(config, folder, progress=progress, max_games=max_new_games)
        png = plot_results(result) if plot else None
    except ArenaError as exc:
        err.print(f"[red]error:[/] {exc}", highlight=False, soft_wrap=True)
        raise typer.Exit(2) from None
    except KeyboardInterrupt:
        err.print(f"\ninterrupted: the games played so far are kept in {folder}; run the same "
                  "command again to resume")
        raise typer.Exit(130) from None
    sys.stdout.write(result.table())
    typer.echo(f"records and results in {folder}/ (results.json, results.txt"
               f"{', winrates.png' if png else ''})")
    if not result.complete:
        typer.echo(f"{config.games - result.recorded} games still to play: run the same command "
                   "again to resume")
    if result.errors:
        err.print(f"[red]{len(result.errors)} games stopped on an agent error[/] (see results.txt)")
        raise typer.Exit(1)
