"""Finding and loading the naive baseline, ``../shared/bench/py_naive.py``, for the benchmarks.

It imports nothing of ``scotlandyard``, so a process that runs only the naive loop (as
``api_compare.py``'s does) holds only that loop.
"""

from __future__ import annotations

import importlib.util
import random
from pathlib import Path
from types import ModuleType

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
