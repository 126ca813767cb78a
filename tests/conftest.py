"""Shared test helpers."""

from __future__ import annotations

import importlib.util
import random
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from scotlandyard import Game, Rules

ROOT = Path(__file__).resolve().parent.parent

pytest_plugins = ["tests.pg_fixture"]  # the throwaway PostgreSQL server (pg_server, pg_url)


def load_benchmark(name: str) -> ModuleType:
    """``benchmarks/NAME.py`` imported as the module ``NAME_bench`` (the benchmarks are
    scripts, not a package)."""
    spec = importlib.util.spec_from_file_location(f"{name}_bench",
                                                  ROOT / "benchmarks" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # dataclasses look their module up while building
    spec.loader.exec_module(mod)
    return mod


def shared_dir() -> Path:
    """The project's shared folder (rules, board facts): beside the checkout, as in CI."""
    for cand in (ROOT.parent / "shared", ROOT / "shared", Path("/work/shared")):
        if (cand / "board" / "london.json").exists():
            return cand
    raise FileNotFoundError("shared/board/london.json not found beside the checkout")


ALL_RULES = {
    "classic5": lambda: Rules.classic(detectives=5),
    "classic3": lambda: Rules.classic(detectives=3),
    "classic1": lambda: Rules.classic(detectives=1),
    "classic_2p": Rules.classic_two_players,
    "new4": lambda: Rules.new_edition(detectives=4),
    "new3": lambda: Rules.new_edition(detectives=3),
    "new2": lambda: Rules.new_edition(detectives=2),
    "new_2p": Rules.new_edition_two_players,
    # few tickets: detectives get stuck while the police could move (R-END (3), R-ORDER-FREE)
    "new2_scarce": lambda: Rules.new_edition(detectives=2, detective_tickets=(5, 3, 1)),
    "classic_extra_reveal": lambda: Rules.classic(detectives=4, extra_reveal=True),
}


def random_game(rules: Rules, seed: int, max_plies: int | None = None) -> Game:
    """A game played with uniformly random legal moves."""
    g = Game.new(rules, seed=seed)
    rng = random.Random(seed)
    while not g.is_over() and (max_plies is None or g.ply < max_plies):
        ms = g.legal_moves()
        g.push(ms[rng.randrange(len(ms))])
    return g


def snapshot(g: Game) -> tuple:
    """Every observable fact of a game, for exact comparisons."""
    return (
        tuple(sorted(g.stations.items())),
        tuple((p, tuple(sorted(g.tickets(p).items()))) for p in g.pieces),
        g.round, g.to_move, g.pieces_to_move, g.log, g.possible_bits, g.outcome(),
        tuple(sorted(m.notation() for m in g.legal_moves())), tuple(g.moves),
    )


@pytest.fixture
def classic5() -> Rules:
    return Rules.classic(detectives=5)


@pytest.fixture
def socks(client: Any) -> Iterator[Any]:
    """The WebSocket tests' sockets on the module's ``client`` (``tests/test_server_ws.py``'s
    ``Sockets``), each closed properly when the test ends."""
    from tests.test_server_ws import Sockets

    s = Sockets(client)
    yield s
    s.close_all()
