"""The arena: many games between two agents, on a local process pool or on Ray.

Every game of a run is a pure function of the run's configuration and the game's index: game
``i`` draws its start stations and each side's random generator from seeds derived from
``(config.seed, i)``, so a seeded run gives the same games on one worker, on eight, or on Ray,
in any order (budgets in seconds excepted: they depend on the machine's speed).

A run writes into one folder::

    runs/NAME/
      config.json        what decides the games (and its hash)
      manifest.jsonl     one line per finished game: index, config hash, outcome, timings
      games/000000.json  every game's record
      results.json       win rates (Wilson 95% interval), outcome reasons, length, time per move
      results.txt        the same as readable tables
      winrates.png       with ``plot=True`` / ``--plot``

Running again with the same configuration resumes: games already in the manifest are not
played again. A different configuration in the same folder is refused (:class:`ArenaError`).

>>> from scotlandyard.ai.arena import ArenaConfig, run_arena
>>> import tempfile
>>> result = run_arena(ArenaConfig(games=4, seed=1), tempfile.mkdtemp(), progress=False)
>>> result.recorded
4
"""

from .config import (
    ARENA_SCHEME,
    SIDE_NAMES,
    SIDES,
    ArenaConfig,
    ArenaError,
    Backend,
    as_backend,
    game_seed,
)
from .play import GameResult, play_game
from .results import ArenaResult, plot_results
from .run import parse_options, run_arena

__all__ = [
    "ARENA_SCHEME", "SIDES", "SIDE_NAMES", "ArenaConfig", "ArenaError", "ArenaResult", "Backend",
    "as_backend", "GameResult", "game_seed", "parse_options", "play_game", "plot_results", "run_arena",
]
