"""The ``scotlandyard`` command: play in the terminal, replay and check game records, show
the rule presets.

    scotlandyard play --mr-x random --seed 7 --save game.sy
    scotlandyard replay game.sy --step
    scotlandyard check game.sy
    scotlandyard rules new_edition --detectives 3
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape

from . import cli_render as render
from .cli_play import HUMAN, TerminalGame, check_controller
from .game import Game
from .record import Record, RecordError, printable
from .rules import Rules, RulesError, preset_info
from .view import PlayerView

app = typer.Typer(
    name="scotlandyard",
    help="Scotland Yard: play in the terminal or the browser (serve), replay and check game records, run AI arenas, show the rules.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _preset_name(value: str | None) -> str | None:
    """Check a ``--preset`` value against the preset table (names and aliases)."""
    if value is None:
        return None
    try:
        return preset_info(value).name
    except RulesError:
        raise typer.BadParameter(f"{value!r} is not a preset (one of "
                                 f"{', '.join(Rules.PRESETS)})") from None


_PRESET_HELP = "Rule preset: " + ", ".join(Rules.PRESETS) + " (scotlandyard rules lists them)."


def _console() -> Console:
    return Console(highlight=False)


def _fail(message: str) -> None:
    """Print ``message`` to stderr and exit with status 1."""
    text = escape(printable(message, newlines=True))  # no control characters from a file
    Console(stderr=True, highlight=False).print(f"[red]error:[/] {text}", soft_wrap=True)
    raise typer.Exit(1)


def make_rules(preset: str, detectives: int | None = None, extra_reveal: bool = False) -> Rules:
    """The rules of a preset with the command line's changes (raises ``RulesError``)."""
    if detectives is not None and preset_info(preset).fixed:
        raise RulesError(f"the {preset} preset fixes the number of detectives; leave out "
                         "--detectives")
    rules = Rules.preset(preset, detectives)
    return rules.replace(extra_reveal=True) if extra_reveal else rules


@app.command()
def play(
    preset: Annotated[str, typer.Option(help=_PRESET_HELP, callback=_preset_name)] = "classic",
    detectives: Annotated[int | None, typer.Option(
        min=1, max=5, help="Number of detectives (classic: 5, new_edition: 4 by default).")] = None,
    mr_x: Annotated[str, typer.Option(
        "--mr-x", help="Who plays Mr X: human or an AI agent name (e.g. random).")] = HUMAN,
    detectives_ai: Annotated[str, typer.Option(
        "--detectives-ai", help="Who plays the detectives: human or an AI agent name.")] = HUMAN,
    seed: Annotated[int | None, typer.Option(
        help="Seed for the start cards and the AI (same seed, same game).")] = None,
    save: Annotated[Path | None, typer.Option(
        help="Write the game record here at the end (.json for JSON, text otherwise).")] = None,
    extra_reveal: Annotated[bool, typer.Option(
        "--extra-reveal", help="House rule R-VAR-EXTRA-REVEAL: Mr X may reveal himself "
        "voluntarily (T92!) and then takes a ticket from every detective.")] = False,
    ai_seconds: Annotated[float | None, typer.Option(
        min=0.01, help="Thinking time per AI move in seconds (default: the agent's own).")] = None,
) -> None:
    """Play a game in the terminal: hot-seat for two humans, or against an AI."""
    try:
        rules = make_rules(preset, detectives, extra_reveal)
        check_controller(mr_x)
        check_controller(detectives_ai)
    except (RulesError, ValueError) as exc:
        _fail(str(exc))
    from .ai import Budget

    game = Game.new(rules, seed=seed)
    session = TerminalGame(game, mr_x=mr_x, detectives=detectives_ai, out=_console(),
                           seed=None if seed is None else seed + 1,
                           budget=Budget(seconds=ai_seconds))
    session.run()
    if save is not None:
        record = Record.from_game(game, players=session.players())
        try:
            record.save(save)
        except OSError as exc:
            _fail(f"cannot write {save}: {exc.strerror or exc}")
        session.out.print(f"Record saved to {escape(str(save))}.", soft_wrap=True)


@app.command()
def replay(
    file: Annotated[Path, typer.Argument(help="A game record (text or JSON).")],
    step: Annotated[bool, typer.Option(
        "--step", help="Show the full board after each move and wait for Enter.")] = False,
    plot: Annotated[Path | None, typer.Option(
        "--plot", help="Write the post-game analysis chart to this PNG (needs matplotlib) and stop.",
        dir_okay=False)] = None,
) -> None:
    """Print a recorded game move by move. A public record keeps Mr X's hidden moves hidden."""
    out = _console()
    try:
        record = Record.load(file)
        game = record.reconstruct(random.Random(0))
    except RecordError as exc:
        _fail(str(exc))
    if plot is not None:
        _plot_record(record, game, plot, out)
        return
    public = record.hidden
    moves = game.moves
    while game.ply:
        game.pop()
    viewer = "spectator" if public else "X"

    def view_now() -> PlayerView:
        v = game.view(viewer)
        return v.public() if public else v

    def text(value: str) -> str:  # a record's text, shown as text (no control characters)
        return escape(printable(value))

    out.print(f"[bold]{text(record.event or 'Game')}[/] — {text(record.preset)} rules"
              f"{', ' + text(record.date) if record.date else ''}"
              f"{' (public record: Mr X hidden)' if public else ''}")
    if record.players:
        out.print("Players: " + ", ".join(f"{render.piece_name(p)} {text(n)}"
                                          for p, n in record.players.items()))
    start = ", ".join(f"{render.piece_name(p)} {s}" for p, s in game.start.items()
                      if not (public and p == "X"))
    out.print(f"Start: {start}" + (", Mr X ?" if public else ""))
    for i, ((_piece, move), rm) in enumerate(zip(moves, record.moves, strict=True), 1):
        game.push(move)
        view = view_now()
        line = f"{i:>3}. r{rm.round:<2} {render.piece_name(rm.piece):<4} {rm.move}"
        if step:
            out.print(line, soft_wrap=True)
            out.print(render.status(view, show_moves=False, to_player=False))
            if i < len(moves):
                try:
                    answer = input("Enter: next move, q: stop > ")
                except EOFError:
                    answer = "q"
                if answer.strip().lower() in ("q", "quit"):
                    return
        else:
            x = view.mr_x_station
            stations = " ".join(f"{p} {s}" for p, s in view.stations.items())
            where = f"X {x if x is not None else '?'}"
            poss = f"  ({len(view.possible)} possible)" if public else ""
            out.print(f"{line:<24} {where}  {stations}{poss}", soft_wrap=True)
    final = view_now()
    if not step:
        out.print(render.status(final, show_moves=False, to_player=False))
    if record.result is not None:
        out.print(f"[bold]Result:[/] {escape(record.result.describe())}")
    else:
        out.print("[bold]Result:[/] unfinished")
    out.print(f"Mr X's path: {render.mr_x_path(final)}")


def _plot_record(record: Record, game: Game, path: Path, out: Console) -> None:
    """``replay --plot``: the analysis chart of a full record (Mr X's path known)."""
    if record.hidden:
        _fail("this is a public record (Mr X's stations hidden): the analysis needs the full record")
    try:
        from .analysis import analyse
        from .analysis import plot as draw
    except ImportError as exc:  # pragma: no cover - matplotlib is in the plot extra
        _fail(f"--plot needs matplotlib (pip install 'scotlandyard[plot]'): {exc}")
    data = analyse(game)
    try:
        draw(data, str(path), title=record.event or "Scotland Yard")
    except ImportError as exc:
        _fail(f"--plot needs matplotlib (pip install 'scotlandyard[plot]'): {exc}")
    except OSError as exc:
        _fail(f"cannot write {path}: {exc.strerror or exc}")
    close = ", ".join(f"round {r['round']} ({r['piece']}, {r['distance']} moves)" for r in data["closest"])
    out.print(f"Analysis chart written to {escape(str(path))}. Closest to capture: {close or '–'}; "
              f"black tickets in slots {data['black'] or '–'}; double moves in rounds {data['doubles'] or '–'}.",
              soft_wrap=True)


@app.command("analyse")
def analyse_command(
    file: Annotated[Path, typer.Argument(help="A full game record (Mr X's moves in it).")],
    playouts: Annotated[int, typer.Option(min=10, help="Playouts per estimate.")] = 400,
    every: Annotated[bool, typer.Option("--all", help="A row for every move, not only the "
                                        "labelled ones.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the analysis as JSON.")] = False,
    seed: Annotated[int, typer.Option(help="The playouts' random seed.")] = 1,
) -> None:
    """Computer analysis: Mr X's chance to stay free at every move (his estimate from the truth,
    the detectives' from their view), and each inaccuracy, mistake and blunder with the
    computer's move (the same numbers as the web page's analysis)."""
    from rich.progress import Progress

    from .ai.review import THRESHOLDS, review

    try:
        record = Record.load(file)
        if record.hidden:
            _fail("this is a public record (Mr X's stations hidden): the analysis needs the "
                  "full record")
        game = record.replay()
    except RecordError as exc:
        _fail(str(exc))
    with Progress(console=Console(stderr=True), transient=True,
                  disable=as_json) as bar:
        task = bar.add_task("analysing", total=None)

        def step(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        result = review(game, playouts=playouts, seed=seed, progress=step)
    if as_json:
        typer.echo(json.dumps(result.to_dict()))
        return
    out = _console()
    from rich.table import Table

    table = Table(title=f"{len(result.plies)} moves, {playouts} playouts an estimate, "
                        f"{result.seconds:.0f} s", title_justify="left")
    for col in ("ply", "round", "piece", "move", "Mr X", "detectives", "", "computer"):
        table.add_column(col, justify="right" if col in ("ply", "round", "Mr X", "detectives")
                         else "left")
    for p in result.plies:
        if not (every or p.label):
            continue
        table.add_row(str(p.ply), str(p.round), p.piece, p.move, f"{p.mr_x_after:.0%}",
                      f"{p.detectives_after:.0%}", p.label or "",
                      f"{p.best} ({p.best_estimate:.0%})" if p.label and p.best else "")
    out.print(table)
    for side, pieces in (("Mr X", {"X"}), ("detectives", None)):
        mine = [p for p in result.plies if (p.piece in pieces if pieces else p.piece != "X")]
        many = {"inaccuracy": "inaccuracies", "mistake": "mistakes", "blunder": "blunders"}
        parts = [f"{sum(1 for p in mine if p.label == n)} {many[n]}" for n, _ in reversed(THRESHOLDS)]
        out.print(f"{side}: {', '.join(parts)}")
    out.print(f"Mr X's chance to stay free: {result.mr_x[0]:.0%} at the start (his estimate), "
              f"{result.detectives[0]:.0%} (the detectives')")


@app.command()
def check(
    file: Annotated[Path, typer.Argument(help="A game record (text or JSON).")],
) -> None:
    """Validate a game record: exit 0 with a summary, or 1 with what is wrong."""
    try:
        summary = Record.load(file).check()
    except RecordError as exc:
        _fail(str(exc))
    _console().print(f"OK: {escape(printable(summary))}", soft_wrap=True)


@app.command()
def verify(
    file: Annotated[Path, typer.Argument(help="The state of a finished web game, as JSON "
                                              "(GET /api/games/ID/state after the end).")],
    seen: Annotated[Path | None, typer.Option(
        "--seen", help="The seals seen during the game (the file the game page saves with "
                       "\"Save the seals seen\"): the openings are checked against those.",
        dir_okay=False)] = None,
) -> None:
    """Check Mr X's sealed log offline: every opening matches its commitment (and, with
    --seen, the commitment seen during the game), his start is the one sealed before the first
    move, the start decks are the preset's, and his opened journey is legal from his start with
    the tickets shown. Exit 0 if honest, 1 with what is wrong."""
    from .server.seal import read_seen, verify_seal

    def load(path: Path, what: str) -> Any:
        try:
            if path.stat().st_size > 1 << 20:
                _fail(f"{path} is over 1 MiB; {what} is a few KB")
            return json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:
            _fail(f"cannot read {path}: {exc}")

    data = load(file, "a game's state")
    if not isinstance(data, dict):
        _fail(f"{file} is not a game state (a JSON object)")
    seals: dict[int, str] | None = None
    seen_game = None
    if seen is not None:
        try:
            seen_game, seals = read_seen(load(seen, "a file of seals"))
        except ValueError as exc:
            _fail(f"{seen}: {exc}")
    report = verify_seal(data, seals, seen_game)
    if not report.ok:
        _fail("Mr X's log is NOT honest:\n" + "\n".join(f"- {p}" for p in report.problems))
    against = (f"; each is the seal seen during the game ({report.seen} in {seen})"
               if seen is not None else "")
    _console().print(f"OK: {report.checked} seals open correctly (Mr X's start, sealed before "
                     f"the first move, and {report.checked - 1} log slots){against} and his "
                     f"journey is legal from that start, {report.sealed_start}", soft_wrap=True)
    if seen is None:
        Console(stderr=True, highlight=False).print(
            "note: without --seen this checks the final state only against itself: a server "
            "could have sealed a forged path afresh. Pass the seals the game page saved "
            "(\"Save the seals seen\") to check the openings against those.", soft_wrap=True)


@app.command("rules")
def rules_cmd(
    preset: Annotated[str | None, typer.Argument(help="One preset (default: all).",
                                                 callback=_preset_name)] = None,
    detectives: Annotated[int | None, typer.Option(
        min=1, max=5, help="Number of detectives for classic / new_edition.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")] = False,
) -> None:
    """Show the rule presets and every setting."""
    try:
        if preset is None:
            presets = {name: make_rules(name, None if preset_info(name).fixed else detectives)
                       for name in Rules.PRESETS}
        else:
            presets = {preset: make_rules(preset, detectives)}
    except RulesError as exc:
        _fail(str(exc))
    if as_json:
        data = {n: r.to_dict() for n, r in presets.items()}
        typer.echo(json.dumps(data if preset is None else data[preset], indent=2))
        return
    console = Console(highlight=False, width=max(120, Console().width))
    console.print(render.presets_table([preset_info(n) for n in presets]))
    console.print(render.rules_table(presets))


@app.command("warm-up")
def warm_up_cmd(
    what: Annotated[str, typer.Option(
        help="all: every part (the AI, kernel.Position, random_games, BatchSim); ai: what a "
             "server's AI seats need (scripts/serve.sh).")] = "all",
    step: Annotated[list[str] | None, typer.Option(
        "--step", help="Only this step (repeatable): playouts, mcts, position, "
                       "random-games, batch.")] = None,
) -> None:
    """Compile the numba kernel once, for every part that uses it, into numba's on-disk cache
    (minutes after a fresh install, seconds when the cache is warm), so no first use waits."""
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    from .kernel.fast import numba_available
    from .warmup import AI_STEPS, Step, steps_named, warm_up

    if what not in ("all", "ai"):
        _fail(f"--what is all or ai, not {what!r}")
    try:
        steps = steps_named(step if step else (AI_STEPS if what == "ai" else None))
    except ValueError as exc:
        _fail(str(exc))
    console = _console()
    if not numba_available():
        console.print("numba is not installed: nothing to compile (pip install "
                      "'scotlandyard[fast]' for the compiled kernel)")
        return
    with Progress(TextColumn("{task.description:<50}"), BarColumn(), TextColumn(
            "{task.completed}/{task.total}"), TimeElapsedColumn(), console=console) as bar:
        task = bar.add_task("compiling", total=len(steps))

        def on_step(done: Step, seconds: float | None) -> None:
            if seconds is None:
                bar.update(task, description=f"compiling {done.description}")
            else:
                bar.advance(task)
                bar.console.print(f"{done.name:<14} {seconds:7.1f} s  {done.description}")

        times = warm_up([s.name for s in steps], on_step=on_step)
        bar.update(task, description="compiled")
    console.print(f"warm-up done in {sum(t for _, t in times):.1f} s (numba's cache is warm)")


# ---- the web app and the arena live in their own rings; their commands are registered here ----
from .ai.arena.cli import ladder  # noqa: E402
from .ai.cli import arena  # noqa: E402
from .data.cli import dataset  # noqa: E402
from .server.cli import serve  # noqa: E402

app.command("serve")(serve)
app.command("arena")(arena)
app.command("ladder")(ladder)
app.command("dataset")(dataset)


def main() -> None:
    """Entry point for ``python -m scotlandyard.cli``."""
    app()


if __name__ == "__main__":
    main()
