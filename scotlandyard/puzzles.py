"""Puzzles: detectives' positions from real games with a capture the exact search proves.

A puzzle is a position on a detective's turn (classic fixed order: the detectives from the one
to move to the last still move this round), told as what the detectives know: their stations and tickets, Mr X's tickets
and travel log, and so the set of stations he may be on (R-BELIEF). Two kinds:

* ``capture`` in ``rounds`` = 1: a joint move of the detectives to move (one each, in order) that
  lands a detective on *every* station Mr X may be on, so he is caught wherever he is;
* ``capture`` in ``rounds`` = 2: a joint move after which, *whatever* Mr X answers (from any
  station he may be on, any ticket, a double move, a black ticket; the detectives then see
  the ticket and any reveal), the detectives have a joint move that catches him for sure.

Both are proved by the rules engine itself: every station Mr X may be on is played out with
:meth:`Game.from_view`, every reply of his through :meth:`Game.legal_moves`, and every catch
checked with :meth:`Game.outcome`. :func:`check` judges a player's answer the same way (any
answer that proves the capture is right, not only the stored one) and says why one fails.

A covering joint move is found as a bipartite matching of detectives to the stations to
cover (each detective on one station of his reach, every station matched), then played
through the engine; where the matching's move order is refused the other orders are tried.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .board import iter_bits
from .game import Game, IllegalMove
from .move import MR_X, Move, SingleMove, Ticket
from .rules import Rules

__all__ = ["Attempt", "Puzzle", "PuzzleError", "check", "cover", "find_capture", "load_puzzles",
           "position", "reach", "reply_for", "solve"]

#: the puzzles shipped with the package (``scripts/make_puzzles.py`` writes them)
PUZZLES_FILE = Path(__file__).with_name("data") / "puzzles.json"

#: a joint move: one move for each detective to move this round, in order
JointMove = tuple[Move, ...]


class PuzzleError(ValueError):
    """A puzzle or an answer that cannot be read (the message says what is wrong)."""


@dataclass(frozen=True)
class Puzzle:
    """One puzzle: the game it comes from (rules, start, the moves up to the position), the
    kind, and one answer the engine proved (``solution``, the detectives' moves in order)."""

    id: str
    rounds: int
    preset: str
    detectives: int
    start: dict[str, int]
    moves: tuple[str, ...]
    solution: tuple[str, ...]
    source: str = ""
    themes: tuple[str, ...] = field(default_factory=tuple)

    def game(self) -> Game:
        """The position (every move pushed through the rules engine)."""
        return position(self.preset, self.detectives, self.start, self.moves)

    def to_dict(self) -> dict[str, Any]:
        """The puzzle as JSON (what ``data/puzzles.json`` holds a row of)."""
        return {"id": self.id, "rounds": self.rounds, "preset": self.preset,
                "detectives": self.detectives, "start": dict(self.start),
                "moves": list(self.moves), "solution": list(self.solution),
                "source": self.source, "themes": list(self.themes)}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Puzzle:
        """A puzzle from its JSON; :class:`PuzzleError` names a missing or wrong field."""
        try:
            p = cls(id=str(d["id"]), rounds=int(d["rounds"]), preset=str(d["preset"]),
                    detectives=int(d["detectives"]),
                    start={str(k): int(v) for k, v in d["start"].items()},
                    moves=tuple(str(m) for m in d["moves"]),
                    solution=tuple(str(m) for m in d["solution"]),
                    source=str(d.get("source", "")),
                    themes=tuple(str(t) for t in d.get("themes", ())))
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise PuzzleError(f"a puzzle needs id, rounds, preset, detectives, start, moves "
                              f"and solution ({exc!r})") from exc
        if p.rounds not in (1, 2):
            raise PuzzleError(f"puzzle {p.id}: rounds is 1 or 2, not {p.rounds}")
        return p


def position(preset: str, detectives: int, start: dict[str, int], moves: Sequence[str]) -> Game:
    """The game after ``moves`` from ``start`` under the preset's rules."""
    game = Game.new(Rules.preset(preset, detectives=detectives), start=dict(start))
    for i, m in enumerate(moves):
        try:
            game.push(m)
        except IllegalMove as exc:
            raise PuzzleError(f"move {i + 1} ({m}): {exc}") from exc
    return game


def _detective_view(game: Game) -> Any:
    return game.view(game.rules.hunters[0])


def _at_puzzle_start(game: Game) -> tuple[str, ...]:
    """The detectives still to move this round (a puzzle starts on a detective's turn)."""
    hunters = game.rules.hunters
    if game.is_over():
        raise PuzzleError("the game is over")
    if game.rules.free_order:
        raise PuzzleError("puzzles are for the fixed order of the classic game")
    if game.to_move not in hunters:
        raise PuzzleError(f"a puzzle starts on a detective's turn, not {game.to_move}'s")
    return hunters[hunters.index(game.to_move):]


def _worlds(game: Game) -> list[Game]:
    """One game for every station Mr X may be on (the detectives' knowledge, played out)."""
    view = _detective_view(game)
    return [Game.from_view(view, mr_x=s) for s in sorted(view.possible)]


def _play(world: Game, joint: Sequence[Move]) -> str | None:
    """Play ``joint`` in ``world`` (a copy); ``None`` if legal, else why not. Stops at the end."""
    for m in joint:
        if world.is_over():
            break
        why = world.why_illegal(m)
        if why is not None:
            return f"{m}: {why}"
        world.push(m)
    return None


def _joint_illegal(game: Game, joint: Sequence[Move]) -> str | None:
    """Why ``joint`` is not a legal sequence of moves for the detectives to move, played in
    full (also the moves after a capture, which no world plays: an answer is one plan, not one
    per station of Mr X), or ``None``. Each piece in order: its own move, a ticket it holds on
    a line from where it stands to a station no other detective holds then, or a pass only
    when it has no move."""
    hunters = _at_puzzle_start(game)
    if len(joint) != len(hunters):
        return f"{len(hunters)} moves are needed, not {len(joint)}"
    at = {p: game.station(p) for p in game.rules.hunters}
    board = game.board
    for piece, m in zip(hunters, joint, strict=True):
        if m.piece not in (None, piece):
            return f"{m}: {piece} moves now, not {m.piece}"
        held = {s for p, s in at.items() if p != piece}
        tickets = game.tickets(piece)
        can = [(t, s) for t in (Ticket.TAXI, Ticket.BUS, Ticket.UNDERGROUND)
               if (tickets.get(t) is None or (tickets.get(t) or 0) > 0)
               for s in board.neighbours_of(at[piece], t) if s not in held]
        if isinstance(m, SingleMove):
            if (m.ticket, m.to) not in can:
                if m.to in held:
                    return f"{piece}:{m.ticket.letter}{m.to}: R-MOVE: {m.to} is held by another detective"
                return (f"{piece}:{m.ticket.letter}{m.to}: R-TICKETS/R-BOARD: no "
                        f"{m.ticket.label} line from {at[piece]} to {m.to} with a ticket left")
            at[piece] = m.to
        elif m.is_pass:
            if can:
                return f"{piece}: R-MOVE-2: a detective who can move must move"
        else:
            return f"{m}: a detective makes a single move"
    return None


def _caught(world: Game) -> bool:
    out = world.outcome()
    return out is not None and out.winner == "detectives"


def reach(game: Game, piece: str, *, held: bool = True) -> dict[int, list[Ticket]]:
    """The stations ``piece`` may move to now, each with the tickets that take it there;
    ``held``: without the stations other detectives hold now (the engine checks the order of
    the moves; the page, which lets a detective follow one who moved away, passes False)."""
    out: dict[int, list[Ticket]] = {}
    board = game.board
    tickets = game.tickets(piece)
    here = game.station(piece)
    taken = {s for p, s in game.stations.items() if p not in (MR_X, piece)} if held else set()
    for t in (Ticket.TAXI, Ticket.BUS, Ticket.UNDERGROUND):
        n = tickets.get(t)
        if n is not None and n <= 0:
            continue
        for s in board.neighbours_of(here, t):
            if s not in taken:
                out.setdefault(s, []).append(t)
    return out


def _reach(game: Game, piece: str) -> dict[int, Move]:
    """:func:`reach` with one move for each station (its first ticket)."""
    return {s: Move.single(ts[0], s, piece=piece) for s, ts in reach(game, piece).items()}


def _matchings(need: Sequence[int], reach: list[dict[int, Move]]) -> Iterator[dict[int, int]]:
    """Every assignment of distinct detectives (indices into ``reach``) to the stations of
    ``need``, each station one detective that can reach it (a matching saturating ``need``)."""
    if len(need) > len(reach):
        return
    order = sorted(need, key=lambda s: sum(1 for r in reach if s in r))

    def rec(i: int, used: dict[int, int]) -> Iterator[dict[int, int]]:
        if i == len(order):
            yield dict(used)
            return
        s = order[i]
        for d, r in enumerate(reach):
            if s in r and d not in used.values():
                used[s] = d
                yield from rec(i + 1, used)
                del used[s]

    yield from rec(0, {})


def cover(game: Game, limit: int = 200) -> JointMove | None:
    """A joint move of the detectives to move (``D1`` first) that catches Mr X on every station
    he may be on this round, proved by the engine; ``None`` if there is none (exact: every way
    to put distinct detectives on all his stations is tried; up to ``limit`` of them)."""
    hunters = _at_puzzle_start(game)
    need = sorted(_detective_view(game).possible)
    reach = [_reach(game, p) for p in hunters]
    if len(need) > len(hunters):
        return None
    worlds = _worlds(game)
    tried = 0
    for match in _matchings(need, reach):
        tried += 1
        if tried > limit:
            break
        assigned = {d: s for s, d in match.items()}
        # the other detectives: any legal move (the engine says which); try a few
        free = [d for d in range(len(hunters)) if d not in assigned]
        options: list[list[Move]] = []
        for d in range(len(hunters)):
            if d in assigned:
                options.append([reach[d][assigned[d]]])
            else:
                moves = list(reach[d].values())
                options.append(moves[:6] or [Move.pass_(piece=hunters[d])])
        for joint in itertools.islice(itertools.product(*options), 64 if free else 1):
            if _joint_illegal(game, joint) is None and all(
                    _play(w.copy(), joint) is None and _caught(_after(w, joint)) for w in worlds):
                return tuple(joint)
    return None


def _after(world: Game, joint: Sequence[Move]) -> Game:
    w = world.copy()
    _play(w, joint)
    return w


def _replies(after: Game) -> Iterator[tuple[Game, int]]:
    """Mr X's every legal reply in ``after`` (a game with him to move): the game after it and
    the detectives' possible set then (what they know once the ticket is on the log)."""
    for m in after.legal_moves():
        g = after.copy()
        g.push(m)
        yield g, g.possible_bits


def _forces(game: Game, joint: Sequence[Move]) -> tuple[bool, str]:
    """Whether ``joint`` (this round's detective moves) wins by next round whatever Mr X does;
    the reason if not."""
    worlds = _worlds(game)
    covers: dict[int, JointMove | None] = {}
    for w in worlds:
        w = w.copy()
        why = _play(w, joint)
        if why is not None:
            return False, why
        if _caught(w):
            continue
        if w.is_over():
            return False, "the game ends with Mr X free"
        for g, bits in _replies(w):
            if g.is_over():
                if _caught(g):
                    continue
                return False, "Mr X wins with that reply"
            if bits not in covers:
                covers[bits] = cover(g)
            c = covers[bits]
            if c is None or not _caught(_after(g, c)):
                last = g.log[-1]
                return False, (f"Mr X can answer with {last.ticket.label} and then "
                               f"stand on one of {len(list(iter_bits(bits)))} stations the "
                               f"detectives cannot all reach")
    return True, ""


def find_capture(game: Game, rounds: int, limit: int = 4000) -> JointMove | None:
    """A joint move this round that catches Mr X within ``rounds`` (1 or 2) rounds wherever he
    is and whatever he does, proved by the engine; ``None`` if none was found (for 2 rounds the
    search tries the joint moves of detectives near his possible stations, up to ``limit``)."""
    if rounds == 1:
        return cover(game)
    if rounds != 2:
        raise ValueError(f"rounds is 1 or 2, not {rounds!r}")
    hunters = _at_puzzle_start(game)
    possible = sorted(_detective_view(game).possible)
    if len(possible) > len(hunters) + 1:
        return None
    board = game.board
    options: list[list[Move]] = []
    for p in hunters:
        moves = list(_reach(game, p).values()) or [Move.pass_(piece=p)]
        near = [m for m in moves if m.to is not None and
                min(board.distance(m.to, s, ferry=False) for s in possible) <= 2]
        options.append(near or moves[:1])
    for n, joint in enumerate(itertools.product(*options)):
        if n >= limit:
            break
        if _joint_illegal(game, joint) is not None:
            continue
        ok, _ = _forces(game, joint)
        if ok:
            return tuple(joint)
    return None


def solve(game: Game) -> tuple[int, JointMove] | None:
    """The fewest rounds (1 or 2) in which the detectives force the capture, with a joint move
    that does it; ``None`` when neither is proved."""
    for rounds in (1, 2):
        j = find_capture(game, rounds)
        if j is not None:
            return rounds, j
    return None


@dataclass(frozen=True)
class Attempt:
    """The judgement of an answer: ``solved``; else ``reason`` says why it fails."""

    solved: bool
    reason: str = ""
    open: tuple[int, ...] = ()  # a 1-round answer's stations where no detective lands


def _parse_joint(game: Game, answer: Sequence[str | Move]) -> JointMove:
    hunters = _at_puzzle_start(game)
    if isinstance(answer, str) or not isinstance(answer, Sequence):
        raise PuzzleError("an answer is a list of moves, one for each detective in order")
    if len(answer) != len(hunters):
        raise PuzzleError(f"an answer has {len(hunters)} moves (one for each of "
                          f"{', '.join(hunters)}), not {len(answer)}")
    out: list[Move] = []
    for piece, m in zip(hunters, answer, strict=True):
        if isinstance(m, str):
            text = m.strip()
            if ":" not in text:
                text = f"{piece}:{text}"
            try:
                mv = Move.parse(text)
            except ValueError as exc:
                raise PuzzleError(f"{m!r} is not a move ({exc})") from exc
        elif isinstance(m, Move):
            mv = m
        else:
            raise PuzzleError(f"{m!r} is not a move")
        if mv.piece not in (None, piece):
            raise PuzzleError(f"the moves go in order {', '.join(hunters)}: {mv} is not {piece}'s")
        if isinstance(mv, SingleMove) and mv.piece is None:
            mv = Move.single(mv.ticket, mv.to, piece=piece)
        out.append(mv)
    return tuple(out)


def check(game: Game, rounds: int, answer: Sequence[str | Move]) -> Attempt:
    """Judge an answer (this round's detective moves, in order) to a puzzle of ``rounds``: is
    Mr X caught wherever he is (1) or whatever he then does (2)? Any proving answer counts.
    :class:`PuzzleError` for an answer that is not a list of moves for the detectives."""
    joint = _parse_joint(game, answer)
    why = _joint_illegal(game, joint)
    if why is not None:
        return Attempt(False, f"illegal: {why}")
    worlds = _worlds(game)
    for w in worlds:
        why = _play(w.copy(), joint)
        if why is not None:
            return Attempt(False, f"illegal: {why}")
    if rounds == 1:
        free = [w.station(MR_X) for w in worlds if not _caught(_after(w, joint))]
        if free:
            return Attempt(False, f"Mr X may be on {', '.join(map(str, free))}, where no "
                                  f"detective lands", tuple(free))
        return Attempt(True)
    ok, why = _forces(game, joint)
    return Attempt(ok, why)


def reply_for(game: Game, joint: Sequence[str | Move], mr_x: int | None = None) -> Game | None:
    """After a proving first round of a 2-round puzzle: the position the player meets next,
    Mr X's hardest reply (the one leaving the most stations to cover), played from ``mr_x``
    (default: the first station where he is not caught); ``None`` if he is caught already."""
    moves = _parse_joint(game, list(joint))
    best: tuple[int, Game] | None = None
    for w in _worlds(game):
        if mr_x is not None and w.station(MR_X) != mr_x:
            continue
        w = _after(w, moves)
        if w.is_over():
            continue
        for g, bits in _replies(w):
            if g.is_over():
                continue
            k = bits.bit_count()
            if best is None or k > best[0]:
                best = (k, g)
    return None if best is None else best[1]


def load_puzzles(path: str | Path | None = None) -> list[Puzzle]:
    """The puzzles in ``path`` (default: the package's); :class:`PuzzleError` on a broken file."""
    p = Path(path) if path is not None else PUZZLES_FILE
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise PuzzleError(f"{p}: not a puzzle file ({exc})") from exc
    rows = data.get("puzzles") if isinstance(data, dict) else None
    if not isinstance(rows, list):
        raise PuzzleError(f"{p}: a puzzle file is {{\"puzzles\": [...]}}")
    return [Puzzle.from_dict(r) for r in rows]
