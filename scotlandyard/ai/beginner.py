"""Human-like beginner players, one for each side: the opponents that the ``easy`` level is
tuned against (docs/ai.md, "Levels", "The beginner policies").

They model how a person who has just learnt the rules plays Scotland Yard, not good play:

- :class:`BeginnerDetectives`: every detective heads for the **last station where Mr X was
  seen** (before his first reveal: the middle of the board), judging distance by hops; taxi
  first, the bus when it is as good, the underground only for a long way; once there, it
  looks around within as many hops as Mr X has moved since; and now and then (``epsilon``) a
  move on a whim. It never works out the possible-locations set (``view.possible``): a
  beginner does not.
- :class:`BeginnerMrX`: keeps off the stations a detective could step onto next; when a
  detective stands next to him he runs (a double move if he has one, else a black ticket,
  else the single move farthest away); otherwise a random safe single move by taxi, bus or
  underground (his black tickets and double moves kept for emergencies).

Distances are fewest moves on the detectives' network (taxi, bus, underground), as a person
counts hops on the map. Both see only the :class:`~scotlandyard.view.PlayerView`.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Sequence

from ..board import BoardName, london
from ..move import MR_X, Move, SingleMove, Ticket
from ..view import PlayerView
from .base import Budget
from .heuristics import best_by, check_epsilon, check_side, detective_shortcut, mr_x_candidates

#: how a beginner ranks equally good detective moves: the cheapest, most plentiful ticket first
TICKET_RANK = {Ticket.TAXI: 0, Ticket.BUS: 1, Ticket.UNDERGROUND: 2, Ticket.BLACK: 3}


@functools.cache
def board_middle(board_name: BoardName) -> int:
    """The station with the fewest hops, in total, to every other station: "the middle of the
    board" where a beginner's detectives gather before Mr X first shows himself (67 on both
    London boards)."""
    board = london(board_name)
    stations = sorted(board.playable)
    return min(stations, key=lambda s: (sum(board.distance_row(s)[t] for t in stations), s))


def last_seen(view: PlayerView) -> tuple[int | None, int]:
    """Where Mr X was last seen (the newest revealed log slot, ``None`` before any) and how
    many log slots (his steps) he has filled since."""
    for k in range(len(view.log) - 1, -1, -1):
        entry = view.log[k]
        if entry.reveal and entry.station is not None:
            return entry.station, len(view.log) - 1 - k
    return None, len(view.log)


class BeginnerDetectives:
    """Detectives as a beginner plays them: chase the last sighting of Mr X by hops.

    For each move the target is Mr X's last revealed station (before the first reveal:
    :func:`board_middle`). A detective more than one hop from it steps to the neighbour
    closest to it by hops (ties: taxi, then bus, then underground; the underground only while
    the target is ``underground_from`` hops away or more, else only when nothing else gets as
    close). A detective within one hop of it "looks around": a random move among those that
    stay within ``k`` hops of the sighting, ``k`` the steps Mr X has made since (at least 1).
    In free order the piece whose move ends closest to the target moves first. With
    probability ``epsilon`` a uniformly random legal move instead (a whim, a misread map).
    """

    name = "beginner"

    def __init__(self, side: str | None = None, epsilon: float = 0.25,
                 underground_from: int = 4) -> None:
        check_side(self.name, side, "detectives")
        self.epsilon = check_epsilon(epsilon)
        if isinstance(underground_from, bool) or not isinstance(underground_from, int) \
                or underground_from < 1:
            raise ValueError(f"underground_from is a number of hops >= 1, not "
                             f"{underground_from!r}")
        self.underground_from = underground_from

    def choose(self, view: PlayerView, legal: Sequence[Move], rng: random.Random,
               budget: Budget) -> Move:
        """The beginner's move."""
        view, quick = detective_shortcut(view, legal, rng, self.epsilon)
        if quick is not None:
            return quick
        board = london(view.rules.board)
        seen, since = last_seen(view)
        target = board_middle(view.rules.board) if seen is None else seen
        row = board.distance_row(target)
        radius = max(1, since)
        stations = dict(view.stations)
        default = view.to_move
        moves = [m for m in legal if isinstance(m, SingleMove)]
        if not moves:  # only passes
            return legal[rng.randrange(len(legal))]

        def here(m: SingleMove) -> int:
            return stations[m.piece or default or ""]

        # looking around the sighting (once he has moved on from it): every piece is already
        # within a hop of it
        if seen is not None and since > 0 and all(row[here(m)] <= 1 for m in moves):
            near = [m for m in moves if row[m.to] <= radius]
            pool = near or moves
            return pool[rng.randrange(len(pool))]
        chasing = [m for m in moves if row[here(m)] > 1 or seen is None or since == 0]

        def left(m: SingleMove) -> int:
            count = view.tickets[m.piece or default or ""].get(m.ticket.name.lower())
            return 99 if count is None else count

        def score(m: SingleMove) -> tuple[int, int, int, int]:
            far = row[here(m)] >= self.underground_from
            tube_penalty = 1 if m.ticket == Ticket.UNDERGROUND and not far else 0
            return (row[m.to] + tube_penalty, -left(m), TICKET_RANK[m.ticket],
                    row[m.to] - row[here(m)])

        return best_by(chasing, [score(m) for m in chasing], rng, highest=False)


class BeginnerMrX:
    """Mr X as a beginner plays him: keep out of the detectives' next step, run when one is
    next to him.

    A station is *safe* when no detective or police piece is within one hop of it. When a
    hunter stands within one hop of him, he runs: a double move if he has one (to the
    station farthest from the nearest hunter), else a black ticket to the farthest station
    if he has one, else the farthest single move. Otherwise he picks uniformly among his
    safe single moves by taxi, bus or underground (with ``epsilon``: any single move of
    those, safe or not); with no safe one, the single move farthest from the nearest hunter.
    He never reveals himself voluntarily (new edition) while another move is left.
    """

    name = "beginner"

    def __init__(self, side: str | None = None, epsilon: float = 0.0) -> None:
        check_side(self.name, side, "mr_x")
        self.epsilon = check_epsilon(epsilon)

    def choose(self, view: PlayerView, legal: Sequence[Move], rng: random.Random,
               budget: Budget) -> Move:
        """The beginner's move."""
        view, cands = mr_x_candidates(view, legal, move_filter=False)
        if len(cands) == 1 or cands[0].is_take:  # a take after a reveal: any ticket will do
            return cands[rng.randrange(len(cands))]
        board = london(view.rules.board)
        rows = [board.distance_row(s) for p, s in view.stations.items() if p != MR_X]
        here = view.mr_x_station
        if here is None:
            raise ValueError("Mr X's view has no station for him")

        def gap(station: int) -> int:
            return min((row[station] for row in rows), default=99)

        singles = [m for m in cands if not m.is_double]
        plain = [m for m in singles if m.ticket != Ticket.BLACK]
        if gap(here) <= 1:  # a hunter next to him: run
            doubles = [m for m in cands if m.is_double]
            black = [m for m in singles if m.ticket == Ticket.BLACK]
            pool = doubles or black or singles or cands
            return best_by(pool, [gap(m.destination or here) for m in pool], rng, highest=True)
        if plain and rng.random() < self.epsilon:
            return plain[rng.randrange(len(plain))]
        safe = [m for m in plain if gap(m.to or here) >= 2]
        if safe:
            return safe[rng.randrange(len(safe))]
        pool = singles or cands
        return best_by(pool, [gap(m.destination or here) for m in pool], rng, highest=True)
