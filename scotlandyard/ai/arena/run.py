"""Running an arena: the folder, the backend, progress."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Generator, Iterable
from pathlib import Path
from typing import Any

from ..stats import WinRate
from .backends import _Played, _run_games
from .config import (
    ArenaConfig,
    ArenaError,
)
from .folder import _RunFolder
from .play import GameResult
from .results import ArenaResult, plot_results


# ---- the run ------------------------------------------------------------------------------------
def run_arena(config: ArenaConfig, out: Path | str, progress: bool = True, *,
              max_games: int | None = None, plot: bool = False) -> ArenaResult:
    """Play ``config``'s games that ``out`` does not hold yet, record them, and return the
    statistics of every recorded game (also written to ``results.json``/``results.txt``).

    ``max_games`` plays at most that many new games in this call (a run can be done in
    parts); ``plot`` also draws ``winrates.png``. A ``KeyboardInterrupt`` keeps every game
    already recorded (and writes the results so far) before it propagates.
    """
    out = Path(out)
    if max_games is not None and (not isinstance(max_games, int) or max_games < 0):
        raise ArenaError(f"max_games is a whole number >= 0, not {max_games!r}")
    config.make_agents()  # unknown agents and refused options fail here, before any work
    folder = _RunFolder(out, config)
    folder.open()
    todo = [i for i in range(config.games) if i not in folder.done]
    if max_games is not None:
        todo = todo[:max_games]
    played = 0

    def result_now() -> ArenaResult:
        games = sorted((g for i, g in folder.done.items() if i < config.games),
                       key=lambda g: g.index)
        return ArenaResult(config, out, games, played)

    done_now = [g for i, g in folder.done.items() if i < config.games]
    bar = _Progress(config, done_now) if progress and todo else None
    games: Generator[_Played | None, None, None] = _run_games(config, todo)
    try:
        if bar:
            bar.start()
        for played_game in games:
            assert played_game is not None
            result, text, suffix = played_game
            folder.add(result, text, suffix)
            played += 1
            if bar:
                bar.advance(result)
    finally:
        games.close()  # stops the workers now, also on Ctrl-C
        if bar:
            bar.stop()
        final = result_now()
        final.write()
    if plot:
        plot_results(final)
    return final


class _Progress:
    """A rich progress bar with the running win rate of Mr X."""

    def __init__(self, config: ArenaConfig, done: Iterable[GameResult]) -> None:
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        self.counts: Counter[str] = Counter()
        n = 0
        for g in done:
            self._count(g)
            n += 1
        self.progress = Progress(
            TextColumn("[bold]arena"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
            TimeRemainingColumn(), TextColumn("{task.fields[score]}"),
            console=Console(stderr=True), transient=False,
        )
        self.task = self.progress.add_task("games", total=config.games, completed=n,
                                           score=self._score())

    def _count(self, g: GameResult) -> None:
        self.counts["error" if g.error is not None else str(g.winner)] += 1

    def _score(self) -> str:
        mx = WinRate(self.counts["mr_x"], self.counts["mr_x"] + self.counts["detectives"])
        text = f"Mr X wins {mx}" if mx.games else ""
        errors = self.counts["error"]
        return text + (f"  [red]{errors} agent errors[/]" if errors else "")

    def start(self) -> None:
        self.progress.start()

    def advance(self, result: GameResult) -> None:
        self._count(result)
        self.progress.update(self.task, advance=1, score=self._score())

    def stop(self) -> None:
        self.progress.stop()


def parse_options(pairs: Iterable[str], flag: str = "option") -> dict[str, Any]:
    """Parse ``key=value`` texts (from ``flag``, for messages) into a mapping. Values are read
    as JSON where they can be (``3``, ``0.5``, ``true``, ``null``, ``[1,2]``), else kept as text.
    """
    out: dict[str, Any] = {}
    for pair in pairs:
        if not isinstance(pair, str) or "=" not in pair:
            raise ArenaError(f"{flag} {pair!r} is not key=value (e.g. {flag} c=0.7)")
        key, _, raw = pair.partition("=")
        key = key.strip()
        if not key.isidentifier():
            raise ArenaError(f"{flag} {pair!r}: {key!r} is not a valid name (letters, digits, _)")
        if key in out:
            raise ArenaError(f"{flag} {key!r} is given twice")
        raw = raw.strip()
        try:
            value = json.loads(raw)
        except ValueError:
            value = raw
        out[key] = value
    return out
