"""The speed benchmarks' shared loops: the naive baseline, ``../shared/bench/py_naive.py``
(found, loaded and played), the same random game through the public API, and a git
revision's package tree for the A/B scripts.

It imports nothing of ``scotlandyard`` (the API loop is given the ``Game`` class), so a process
that runs only the naive loop (as ``api_compare.py``'s does) holds only that loop.
"""

from __future__ import annotations

import importlib.util
import random
import subprocess
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def find_naive(given: str | None) -> Path:
    """The baseline script: --naive, or ../shared/bench/py_naive.py beside the checkout."""
    cands = [Path(given)] if given else [ROOT.parent / "shared" / "bench" / "py_naive.py",
                                         ROOT / "shared" / "bench" / "py_naive.py",
                                         Path("/work/shared/bench/py_naive.py")]
    for c in cands:
        if c.exists():
            return c
    raise SystemExit("py_naive.py not found: give --naive PATH (../shared/bench/py_naive.py)")


def load_naive(path: str | Path) -> ModuleType:
    """``py_naive.py`` as a module (imported from its file, not copied): its ``Board`` and
    ``NaiveGame`` are run in this process."""
    spec = importlib.util.spec_from_file_location("py_naive", path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"cannot load {path}")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def play_naive(mod: ModuleType, board: object, games: int, rng: random.Random) -> None:
    """Play ``games`` uniformly random full games of the naive loop on ``board`` (``mod``'s
    ``Board()``), as the engine benchmark plays the public API:
    ``g.push(rng.choice(g.legal_moves()))`` until ``g.is_over()``."""
    for _ in range(games):
        g = mod.NaiveGame(board, rng, True)
        while not g.is_over():
            g.push(rng.choice(g.legal_moves()))


def play_api(game_cls: Any, rules: object, games: int, rng: random.Random) -> int:
    """Play ``games`` uniformly random full games through the public API of ``game_cls``
    (``scotlandyard.Game``, of whichever tree): ``Game.new(rules, seed=...)``, then
    ``g.push(rng.choice(g.legal_moves()))`` until ``g.is_over()``. Returns the moves made (read
    once a game, as py_naive reads its ``moves_played``)."""
    moves = 0
    for _ in range(games):
        g = game_cls.new(rules, seed=rng.randrange(1 << 30))
        while not g.is_over():
            g.push(rng.choice(g.legal_moves()))
        moves += g.ply
    return moves


def export_package(rev: str, dest: str | Path) -> Path:
    """The ``scotlandyard`` package of git revision ``rev`` of this checkout, exported with
    ``git archive`` into the folder ``dest``; returns the package's folder."""
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev, "scotlandyard"],
                             capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive, check=True)
    return Path(dest) / "scotlandyard"
