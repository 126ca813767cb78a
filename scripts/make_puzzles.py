"""Generate the package's puzzles from computer-against-computer games.

Usage: python scripts/make_puzzles.py [--games 1000] [--seed 1] [--records GAME.sy ...]
                                     [--out scotlandyard/data/puzzles.json]

Plays classic games (5 detectives) between the quick agents (``heuristic``, ``lookahead``,
``random`` in turns, so that the positions differ), and at the start of every detectives' part
of every detective's turn from round 2 asks the exact search (``scotlandyard.puzzles.solve``) whether the
detectives force the capture this round or the next wherever Mr X is. Each found position is
a puzzle: the game's start and moves up to it, and the proved answer. Every answer is checked
again with ``puzzles.check`` (the engine) before it is written; a 1-round puzzle needs at least
two stations to cover (one is too easy), and a game gives at most one puzzle a round.
``--records`` adds the positions of played games from their full record files (finished games
whose records are public: ``GET /api/games/ID/record`` after the end, or ``scotlandyard play
--save``); only classic games with 5 detectives are read.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
import time
from pathlib import Path

from scotlandyard import Game, Record, Rules
from scotlandyard.ai import Budget, make_agent
from scotlandyard.move import MR_X
from scotlandyard.puzzles import PUZZLES_FILE, Puzzle, check, solve

PAIRS = [("heuristic", "heuristic"), ("lookahead", "heuristic"), ("heuristic", "lookahead"),
         ("random", "heuristic"), ("lookahead", "lookahead")]


def _found(game: Game, rounds: int, answer: list[str], source: str, key: object) -> Puzzle:
    moves = [str(m) for _, m in game.moves]
    digest = hashlib.sha256(json.dumps([key, len(moves)]).encode()).hexdigest()
    return Puzzle(id=digest[:8], rounds=rounds, preset="classic", detectives=5,
                  start=dict(game.start), moves=tuple(moves), solution=tuple(answer),
                  source=f"{source}, round {game.round}",
                  themes=(f"capture_in_{rounds}", f"possible_{len(game.possible_locations())}"))


def _worth(game: Game, rounds_done: set[int]) -> tuple[int, list[str]] | None:
    """The proved capture of a detective's turn (from round 2, one a round), if it is a puzzle."""
    if game.to_move not in game.rules.hunters or game.round < 2 or game.round in rounds_done:
        return None
    res = solve(game)
    if res is None:
        return None
    rounds, joint = res
    answer = [str(m) for m in joint]
    if (rounds == 2 or len(game.possible_locations()) >= 2) and check(game, rounds,
                                                                      answer).solved:
        rounds_done.add(game.round)
        return rounds, answer
    return None


def puzzles_of_record(path: Path) -> list[Puzzle]:
    """The puzzles in a played game's full record (a classic game with 5 detectives)."""
    record = Record.load(path)
    full = record.replay()
    if full.rules != Rules.classic(detectives=5):
        return []
    game = Game.new(full.rules, start=dict(full.start))
    found: list[Puzzle] = []
    done: set[int] = set()
    moves = [m for _, m in full.moves]
    for i in range(len(moves) + 1):
        if not game.is_over():
            hit = _worth(game, done)
            if hit is not None:
                found.append(_found(game, *hit, f"played game {path.name}", path.name))
        if i < len(moves):
            game.push(moves[i])
    return found


def puzzles_of_game(seed: int) -> list[Puzzle]:
    """The puzzles found in the game of ``seed`` (its agents chosen by the seed)."""
    rules = Rules.classic(detectives=5)
    game = Game.new(rules, seed=seed)
    rng = random.Random(seed)
    mr_x_name, det_name = PAIRS[seed % len(PAIRS)]
    agents = {"mr_x": make_agent(mr_x_name, side="mr_x"),
              "detectives": make_agent(det_name, side="detectives")}
    budget = Budget(playouts=200)
    found: list[Puzzle] = []
    rounds_done: set[int] = set()
    while not game.is_over():
        hit = _worth(game, rounds_done)
        if hit is not None:
            found.append(_found(game, *hit, f"computer game: {mr_x_name} (Mr X) against "
                                f"{det_name} (detectives), seed {seed}", seed))
        piece = game.to_move
        assert piece is not None
        view = game.view(piece)
        agent = agents["mr_x" if piece == MR_X else "detectives"]
        game.push(agent.choose(view, view.legal_moves, rng, budget))
    return found


def main(argv: list[str] | None = None) -> int:
    """Write the puzzle file; print how many of each kind."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1, help="the first game's seed")
    ap.add_argument("--out", type=Path, default=PUZZLES_FILE)
    ap.add_argument("--records", type=Path, nargs="*", default=[],
                    help="full record files of played games to take positions from too")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    puzzles: list[Puzzle] = []
    seen: set[str] = set()
    for path in args.records:
        for p in puzzles_of_record(path):
            if p.id not in seen:
                seen.add(p.id)
                puzzles.append(p)
    for seed in range(args.seed, args.seed + args.games):
        for p in puzzles_of_game(seed):
            if p.id not in seen:
                seen.add(p.id)
                puzzles.append(p)
        if (seed - args.seed) % 50 == 49:
            print(f"{seed - args.seed + 1} games, {len(puzzles)} puzzles, "
                  f"{time.perf_counter() - t0:.0f} s", file=sys.stderr)
    by = {r: sum(1 for p in puzzles if p.rounds == r) for r in (1, 2)}
    args.out.write_text(json.dumps({"generator": "scripts/make_puzzles.py",
                                    "games": args.games, "first_seed": args.seed,
                                    "records": [p.name for p in args.records],
                                    "puzzles": [p.to_dict() for p in puzzles]},
                                   separators=(",", ":")) + "\n", encoding="utf-8")
    print(f"{len(puzzles)} puzzles ({by[1]} capture in 1, {by[2]} capture in 2) from "
          f"{args.games} games in {time.perf_counter() - t0:.0f} s -> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
