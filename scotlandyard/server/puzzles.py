"""The puzzle page's server side: the package's puzzles, their positions as the detectives see
them, answers judged by the engine (``scotlandyard.puzzles.check``), Glicko-2 ratings.

A player is a random token (``POST /api/puzzles/players``; the database keeps its SHA-256).
Only his first attempt at a puzzle is rated: the player and the puzzle each play one Glicko-2
game against the other's rating (the ``glicko2`` package), solved a win for the player. A
puzzle starts at a rating from its kind (capture in 1 about 1300 + 100 per station to cover,
in 2 about 1600 + 100 per station beyond the first), deviation 350.

What leaves here is a detective's view of the position (``Game.view``): the puzzles come from
finished computer games, and even so no Mr X station is sent except where the log revealed it.
"""

from __future__ import annotations

import asyncio
import hashlib
import random
import secrets
from typing import Any

import glicko2

from ..game import Game
from ..puzzles import Puzzle, PuzzleError, check, load_puzzles, reach, reply_for

__all__ = ["PuzzleBook", "glicko_update", "initial_rating"]

Rating = tuple[float, float, float]
NEW_PLAYER: Rating = (1500.0, 350.0, 0.06)


def initial_rating(puzzle: Puzzle, possible: int) -> Rating:
    """A puzzle's starting Glicko-2 rating from its kind and how many stations Mr X may be on."""
    base = 1300.0 + 100.0 * possible if puzzle.rounds == 1 else 1600.0 + 100.0 * (possible - 1)
    return (min(base, 2300.0), 350.0, 0.06)


def glicko_update(own: Rating, other: Rating, score: float) -> Rating:
    """One Glicko-2 rating period of one game (``score`` 1 won, 0 lost) against ``other``."""
    p = glicko2.Player(rating=own[0], rd=own[1], vol=own[2])
    p.update_player([other[0]], [other[1]], [score])
    return (float(p.rating), float(p.rd), float(p.vol))


def token_hash(token: str) -> str:
    """What the database keeps of a player's token."""
    return hashlib.sha256(token.encode()).hexdigest()


class PuzzleBook:
    """The package's puzzles, their positions (made once each) and the judging of answers.
    Judging runs in a thread, one at a time (the search is short, but never on the loop)."""

    def __init__(self, puzzles: list[Puzzle] | None = None) -> None:
        self.puzzles = puzzles if puzzles is not None else load_puzzles()
        self.by_id = {p.id: p for p in self.puzzles}
        self._games: dict[str, Game] = {}
        self._judge = asyncio.Semaphore(1)

    def game(self, puzzle_id: str) -> Game:
        """The position of a puzzle (a copy the caller may change)."""
        g = self._games.get(puzzle_id)
        if g is None:
            g = self._games[puzzle_id] = self.by_id[puzzle_id].game()
        return g.copy()

    def initial(self, puzzle_id: str) -> Rating:
        """A puzzle's starting rating."""
        return initial_rating(self.by_id[puzzle_id], len(self.game(puzzle_id).possible_locations()))

    def payload(self, puzzle_id: str, rating: tuple[float, ...] | None = None,
                game: Game | None = None) -> dict[str, Any]:
        """A puzzle as the page gets it: the first detective's view of the position, the
        detectives to move, each one's reach (station -> tickets), and the puzzle's rating."""
        p = self.by_id[puzzle_id]
        g = game if game is not None else self.game(puzzle_id)
        hunters = g.rules.hunters
        to_move = list(hunters[hunters.index(g.to_move):]) if g.to_move in hunters else []
        reaches = {piece: {str(s): [tk.letter for tk in ts]
                           for s, ts in reach(g, piece, held=False).items()}
                   for piece in to_move}
        r = rating if rating is not None else self.initial(puzzle_id)
        view = g.view(hunters[0]).to_dict()  # Mr X's pawn only where his last move revealed it
        return {"id": p.id, "rounds": p.rounds, "source": p.source, "themes": list(p.themes),
                "to_move": to_move, "reach": reaches, "view": view,
                "rating": round(float(r[0])), "possible": sorted(g.possible_locations())}

    def pick(self, rating: float, tried: set[str], ratings: dict[str, tuple[float, ...]],
             rng: random.Random | None = None) -> str | None:
        """An untried puzzle near ``rating`` (one of the ten nearest, at random)."""
        rng = rng or random.Random(secrets.randbits(64))
        pool = [p.id for p in self.puzzles if p.id not in tried]
        if not pool:
            return None

        def current(pid: str) -> float:
            r = ratings.get(pid)
            return float(r[0]) if r is not None else self._first_guess(pid)

        pool.sort(key=lambda pid: abs(current(pid) - rating))
        return rng.choice(pool[:10])

    def _first_guess(self, pid: str) -> float:
        p = self.by_id[pid]
        n = next((int(t.split("_")[1]) for t in p.themes if t.startswith("possible_")), 2)
        return initial_rating(p, n)[0]

    async def judge(self, puzzle_id: str, moves: list[str],
                    then: list[str] | None) -> dict[str, Any]:
        """Judge an answer: ``moves`` this round; for a 2-round puzzle, ``then`` the next round
        after Mr X's reply (omitted: the reply is returned to answer). :class:`PuzzleError`
        for an answer that is not a list of moves."""
        async with self._judge:
            return await asyncio.to_thread(self._judge_now, puzzle_id, moves, then)

    def _judge_now(self, puzzle_id: str, moves: list[str],
                   then: list[str] | None) -> dict[str, Any]:
        p = self.by_id[puzzle_id]
        game = self.game(puzzle_id)
        first = check(game, p.rounds, moves)
        if not first.solved:
            return {"solved": False, "final": True, "reason": first.reason,
                    "open": list(first.open), "solution": list(p.solution)}
        if p.rounds == 1:
            return {"solved": True, "final": True, "reason": "", "solution": list(p.solution)}
        reply = reply_for(game, moves)
        if reply is None:  # caught already this round
            return {"solved": True, "final": True, "reason": "", "solution": list(p.solution)}
        if then is None:
            last = reply.log[-1]
            return {"solved": None, "final": False, "reply": {
                "ticket": last.ticket.label, "double": bool(last.double),
                "puzzle": self.payload(puzzle_id, game=reply)}}
        second = check(reply, 1, then)
        return {"solved": second.solved, "final": True, "reason": second.reason,
                "open": list(second.open), "solution": list(p.solution)}


def parse_moves(value: Any, what: str) -> list[str]:
    """A list of move texts from JSON, or :class:`PuzzleError` naming ``what``."""
    if not isinstance(value, list) or not all(isinstance(m, str) and len(m) <= 20 for m in value):
        raise PuzzleError(f"{what} is a list of moves in notation (e.g. [\"T92\", \"B58\"])")
    if len(value) > 10:
        raise PuzzleError(f"{what} has at most one move for each detective")
    return value
