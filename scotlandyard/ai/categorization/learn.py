"""Learning the location-categorization table from self-play (``python -m
scotlandyard.ai.categorization``): games of MCTS against MCTS, each detectives' decision
counting the categories of Mr X's possible stations and of his true one. Apart from the table
(``scotlandyard.ai.categorization``), which the MCTS reads: this module plays the MCTS, so the
table's module imports nothing of it."""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ...board import london
from ...game import Game
from ...move import MR_X
from ...rules import Rules
from ..base import Budget
from ..mcts import NW_SETTINGS, MCTSAgent
from . import CATEGORIES, ESTIMATES, CategoryWeights, category


def learn_categorization(games: int, *, rules: Rules | None = None, seed: int = 0,
                         mr_x_playouts: int = 300, detective_playouts: int = 150,
                         fast: bool = True, estimate: str = "ratio", agent: str = "mcts",
                         progress: Callable[[int, CategoryWeights], None] | None = None
                         ) -> CategoryWeights:
    """Learn the general table from ``games`` self-play games (MCTS against MCTS).

    Mr X plays MCTS with ``mr_x_playouts`` iterations a move; the detectives play MCTS with
    ``detective_playouts`` and a uniform determinization (no table yet). At every detectives'
    decision with more than one possible location, each possible location counts as available
    in its category, each category that holds one counts as present, and Mr X's true station as
    a hit in its own. The trainer reads the truth
    from the ``Game``; the agents see only their views.

    ``estimate`` says how the weights come from the counts (:meth:`CategoryWeights.from_counts`).
    ``agent="nw"`` plays the thesis's agents (:data:`.mcts.NW_SETTINGS`; its detectives with a
    uniform determinization) instead of the MCTS defaults: how the ``nw`` table is learned.
    """
    if not isinstance(games, int) or games < 1:
        raise ValueError(f"games is a whole number >= 1, not {games!r}")
    rules = rules or Rules.classic()
    board = london(rules.board)
    rng = random.Random(seed)
    if agent not in ("mcts", "nw"):
        raise ValueError(f"agent is 'mcts' or 'nw', not {agent!r}")
    base = dict(NW_SETTINGS) if agent == "nw" else {}
    x_agent = MCTSAgent(fast=fast, **base)
    d_agent = MCTSAgent(fast=fast, **{**base, "categorization": False})
    hits = [0] * len(CATEGORIES)
    avail = [0] * len(CATEGORIES)
    present = [0] * len(CATEGORIES)
    bx = Budget(playouts=mr_x_playouts)
    bd = Budget(playouts=detective_playouts)
    for n in range(games):
        game = Game.new(rules, seed=rng.getrandbits(32))
        while (piece := game.to_move) is not None:  # (None once the game is over)
            view = game.view(piece)
            if view.side == "detectives" and len(view.possible) > 1:
                hunters = [s for p, s in view.stations.items() if p != MR_X]
                cats = [category(s, hunters, board) for s in view.possible]
                for c in cats:
                    avail[c] += 1
                for c in set(cats):
                    present[c] += 1
                hits[category(game.station(MR_X), hunters, board)] += 1
            mover, budget = (x_agent, bx) if view.side == "mr_x" else (d_agent, bd)
            game.push(mover.choose(view, view.legal_moves, rng, budget))
        if progress is not None:
            progress(n + 1, CategoryWeights.from_counts(hits, avail, n + 1, estimate=estimate,
                                                        present=present))
    meta: dict[str, Any] = {
        "rules": rules.edition, "detectives": rules.detectives, "seed": seed,
        "mr_x_playouts": mr_x_playouts, "detective_playouts": detective_playouts}
    if agent != "mcts":
        meta["agent"] = agent
    return CategoryWeights.from_counts(hits, avail, games, meta, estimate=estimate,
                                       present=present)


def main(argv: list[str] | None = None) -> int:
    """``python -m scotlandyard.ai.categorization --games N --out FILE``."""
    ap = argparse.ArgumentParser(
        prog="python -m scotlandyard.ai.categorization",
        description="Learn the location-categorization table from self-play (MCTS vs MCTS).")
    ap.add_argument("--games", type=int, required=True, help="self-play games")
    ap.add_argument("--out", type=Path, required=True, help="JSON file to write")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--edition", choices=("classic", "new_edition"), default="classic")
    ap.add_argument("--detectives", type=int, default=None)
    ap.add_argument("--mr-x-playouts", type=int, default=300)
    ap.add_argument("--detective-playouts", type=int, default=150)
    ap.add_argument("--pure", action="store_true", help="no numba (slow)")
    ap.add_argument("--estimate", choices=ESTIMATES, default="ratio",
                    help="ratio (this package's first table), frequency or presence")
    ap.add_argument("--agent", choices=("mcts", "nw"), default="mcts",
                    help="the self-play agents: MCTS defaults, or the thesis's (nw)")
    args = ap.parse_args(argv)
    if args.games < 1:
        ap.error("--games must be at least 1")
    rules = Rules.preset(args.edition, args.detectives)
    start = time.perf_counter()

    def progress(n: int, table: CategoryWeights) -> None:
        w = " ".join(f"{c}:{x:.4f}" for c, x in zip(CATEGORIES, table.weights, strict=True))
        print(f"game {n}/{args.games} ({time.perf_counter() - start:.0f}s)  {w}", file=sys.stderr)
        table.save(args.out)  # the counts so far: a run stopped early still leaves its table

    table = learn_categorization(args.games, rules=rules, seed=args.seed,
                                 mr_x_playouts=args.mr_x_playouts,
                                 detective_playouts=args.detective_playouts,
                                 fast=not args.pure, estimate=args.estimate,
                                 agent=args.agent, progress=progress)
    table.save(args.out)
    print(json.dumps(table.to_dict(), indent=2))
    return 0
