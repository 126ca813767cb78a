"""``Match``: one game and the env's turn bookkeeping, shared by the PettingZoo and Gymnasium
environments.

The engine moves one piece per move; the envs' fixed action space (see
:mod:`scotlandyard.env.actions`) needs two decisions for two things:

- a double move is a first step (its own action range) then a second step, both by Mr X;
  the engine's double move is pushed once both are chosen (R-MRX-DOUBLE);
- in free order (R-ORDER-FREE) the *selected* hunter either moves or defers to the next
  unmoved hunter in seat order. After every hunter move the lowest unmoved hunter is
  selected again. Any order of the pieces can be played. The last unmoved hunter defers
  only when it is stuck while another may still move (the choice goes back to the first);
  after that only hunters without a move may defer, so a round cannot loop.

The action mask is read off ``game.legal_moves()``: the rules live in the engine only, and
tests check the mask against the engine's moves in every state they visit.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..game import Game
from ..move import MR_X, Move, TakeMove, Ticket
from ..rules import Rules
from .actions import (
    DEFER,
    DOUBLE_FIRST,
    N_ACTIONS,
    PASS,
    REVEAL,
    SINGLE,
    STATIONS,
    TAKE,
    InvalidAction,
    describe_action,
    move_actions,
    split_step,
)


def as_action(action: object) -> int | None:
    """``action`` as a Python int if it is an integer action (``int``, a numpy integer, or a
    0-d integer array, as ``model.predict`` returns), else ``None``. Booleans are refused."""
    if type(action) is int:
        return action
    if isinstance(action, np.ndarray):
        if action.shape != () or action.dtype.kind not in "iu":
            return None
        return int(action)
    if isinstance(action, bool) or not isinstance(action, (int, np.integer)):
        return None
    return int(action)


def defer_target(waiting: Sequence[str], piece: str, moves: Sequence[Move],
                 wrapped: bool) -> str | None:
    """Free order (R-ORDER-FREE): the hunter that ``defer`` selects after ``piece``, or ``None``
    when ``piece`` may not defer. ``waiting``: the unmoved hunters in seat order; ``moves``:
    the engine's legal moves. The next unmoved hunter in seat order; the last one, stuck while
    another may still move (so it may not pass), hands the choice back to the first. Once the
    choice has gone round (``wrapped``), only a hunter without a move may defer, so a round
    always ends even if a policy always defers."""
    if piece not in waiting:
        return None
    has_move = any(m.piece == piece for m in moves)
    if wrapped and has_move:
        return None
    k = waiting.index(piece)
    if k + 1 < len(waiting):
        return waiting[k + 1]
    if len(waiting) > 1 and not has_move:
        return waiting[0]
    return None


_TICKETS = tuple(Ticket)
_ACTS_OF: dict[int, tuple[Move, tuple[int, ...]]] = {}


def _acts_of(move: Move) -> tuple[int, ...]:
    """:func:`move_actions` of ``move``, cached by identity (the engine's moves are interned,
    so the same few thousand objects come back; the cache holds each move, so an id is never
    reused while its entry lives, and it is cleared if it ever grows large)."""
    got = _ACTS_OF.get(id(move))
    if got is not None and got[0] is move:
        return got[1]
    if len(_ACTS_OF) > 200_000:
        _ACTS_OF.clear()
    acts = move_actions(move)
    _ACTS_OF[id(move)] = (move, acts)
    return acts


def actions_from_moves(moves: Sequence[Move], piece: str, pending: tuple[int, int] | None,
                       can_defer: bool) -> tuple[list[int], dict[int, Move]]:
    """The legal actions of ``piece`` given the engine's legal ``moves``, in increasing order,
    and the ``take`` actions' moves. A double move's first step is legal when some double move
    starts with it; while one is ``pending``, its legal second steps. A hunter with no move has
    ``pass`` (in free order only when the engine offers it); ``can_defer`` adds ``defer`` (free
    order, an unmoved hunter sits after it)."""
    get = _ACTS_OF.get
    if piece != MR_X:
        out: list[int] = []
        has_pass = False
        for m in moves:
            if m.piece is None or m.piece == piece:
                got = get(id(m))
                a = got[1][0] if got is not None and got[0] is m else _acts_of(m)[0]
                if a == PASS:
                    has_pass = True  # R-ORDER-FREE: a pass only when no unmoved piece can move
                else:
                    out.append(a)
        out.sort()
        if not out and has_pass:
            out.append(PASS)
        if can_defer:
            out.append(DEFER)
        return out, {}
    if pending is not None:
        first = DOUBLE_FIRST + pending[0] * STATIONS + pending[1] - 1
        seconds = set()
        for m in moves:
            acts = _acts_of(m)
            if len(acts) == 2 and acts[0] == first:
                seconds.add(acts[1])
        return sorted(seconds), {}
    takes: dict[int, Move] = {TAKE + int(m.ticket): m for m in moves if isinstance(m, TakeMove)}
    if takes:
        return sorted(takes), takes
    firsts = set()
    for m in moves:
        got = get(id(m))
        firsts.add(got[1][0] if got is not None and got[0] is m else _acts_of(m)[0])
    return sorted(firsts), {}


class Match:
    """A :class:`~scotlandyard.Game` plus the pending double-move step and, in free order,
    the selected hunter. ``game`` is the referee's truth: never hand it to an agent."""

    def __init__(self, rules: Rules) -> None:
        """A match under ``rules``; call :meth:`reset` before use."""
        self.rules = rules
        self._game: Game | None = None
        self.pending: tuple[int, int] | None = None  # Mr X's first step (ticket, station)
        self.pointer: str | None = None  # free order: the selected hunter
        self.wrapped = False  # free order: the choice went back to the first unmoved hunter
        self._cache_key: tuple[object, ...] | None = None
        self._cache: list[int] = []
        self._mask = np.zeros(N_ACTIONS, dtype=np.int8)
        self._takes: dict[int, Move] = {}

    def __deepcopy__(self, memo: dict[int, object]) -> Match:
        """A copy sharing the rules and the board (``Game.copy``), not their tables."""
        m = Match(self.rules)
        if self._game is not None:
            m._game = self._game.copy()
        m.pending, m.pointer, m.wrapped = self.pending, self.pointer, self.wrapped
        m._takes = dict(self._takes)
        return m

    # ---- state ---------------------------------------------------------------------------
    @property
    def game(self) -> Game:
        """The game (the truth)."""
        if self._game is None:
            raise RuntimeError("no game yet: call reset() first")
        return self._game

    def reset(self, seed: int | None = None, start: dict[str, int] | None = None) -> None:
        """Start a new game (start stations drawn with ``seed`` per R-SETUP, or given)."""
        self._game = Game.new(self.rules, seed=seed, start=start)
        self.pending = None
        self._after_push()

    def _after_push(self) -> None:
        g = self.game
        self.pending = None
        if self.rules.free_order and g.side_to_move == "detectives":
            self.pointer = g.pieces_to_move[0]
            self.wrapped = False
        else:
            self.pointer = None
        self._cache_key = None

    @property
    def selected(self) -> str | None:
        """The piece that acts now (``None`` once the game is over)."""
        to_move = self.game.to_move
        if to_move is None or to_move == MR_X or self.pointer is None:
            return to_move
        return self.pointer

    def _key(self) -> tuple[object, ...]:
        g = self._game
        return (id(g), g.ply if g is not None else -1, self.pending, self.pointer, self.wrapped)

    # ---- legal actions -----------------------------------------------------------------------
    def _refresh(self) -> None:
        """Compute the selected piece's legal actions and mask once per position."""
        key = self._key()
        if key == self._cache_key:
            return
        acts = self._compute()
        mask = np.zeros(N_ACTIONS, dtype=np.int8)
        if acts:
            mask[acts] = 1
        mask.flags.writeable = False
        self._cache, self._mask, self._cache_key = acts, mask, key

    def legal_actions(self) -> list[int]:
        """The selected piece's legal actions, in increasing order (empty when over)."""
        self._refresh()
        return self._cache

    def mask(self, *, copy: bool = True) -> np.ndarray:
        """The selected piece's action mask (``np.int8``, length ``N_ACTIONS``). ``copy=False``
        returns the position's cached mask, read-only (no copy)."""
        self._refresh()
        return self._mask.copy() if copy else self._mask

    def _compute(self) -> list[int]:
        """The legal actions of the selected agent, read off ``game.legal_moves()`` (so the mask
        is exact by construction)."""
        piece = self.selected
        if piece is None:
            return []
        moves = self.game.legal_moves()
        can_defer = self.pointer is not None and self._next_unmoved(moves) is not None
        acts, takes = actions_from_moves(moves, piece, self.pending, can_defer)
        if takes:
            self._takes = takes
        return acts

    def _next_unmoved(self, moves: Sequence[Move] | None = None) -> str | None:
        if self.pointer is None:
            return None
        return defer_target(self.game.pieces_to_move, self.pointer,
                            self.game.legal_moves() if moves is None else moves, self.wrapped)

    # ---- acting ---------------------------------------------------------------------------------
    def why_invalid(self, action: object) -> str | None:
        """Why ``action`` is not legal for the selected piece now, or ``None`` if it is."""
        a_or_none = as_action(action)
        if a_or_none is None:
            return (f"an action is an integer 0..{N_ACTIONS - 1} (a Python or numpy integer, "
                    f"or a 0-d integer array), not {action!r}")
        a = a_or_none
        if not 0 <= a < N_ACTIONS:
            return f"action {a} is outside 0..{N_ACTIONS - 1}"
        piece = self.selected
        if piece is None:
            return "the game is over"
        self._refresh()
        if self._mask[a]:
            return None
        name = describe_action(a)
        why = self._engine_reason(a, piece)
        return f"{name} (action {a}) is not legal for {piece} now" + (f": {why}" if why else "")

    def _engine_reason(self, a: int, piece: str) -> str | None:
        g = self.game
        if a == DEFER:
            if self.pointer is None:
                return "defer is only for the hunters in free order (R-ORDER-FREE)"
            return f"no unmoved hunter sits after {piece} (R-ORDER-FREE)"
        if a == PASS:
            return g.why_illegal(Move.pass_(self.pointer)) if piece != MR_X else "R-MOVE-2: Mr X never passes"
        if TAKE <= a < TAKE + 3:
            return "R-VAR-EXTRA-REVEAL: no ticket to take now"
        base, t, s = split_step(a)
        if self.pending is not None:
            if base != SINGLE:
                return "R-MRX-DOUBLE: choose the second step of the double move (a single-range action)"
            t1, d1 = self.pending
            return g.why_illegal(Move.double(Ticket(t1), d1, Ticket(t), s))
        if base == DOUBLE_FIRST:
            if piece != MR_X:
                return "R-MRX: only Mr X makes double moves"
            return "R-MRX-DOUBLE: no legal double move starts with this step"
        return g.why_illegal(Move.single(Ticket(t), s, self.pointer, reveal=base == REVEAL))

    def check(self, action: object) -> int:
        """``action`` as an int, or :class:`InvalidAction` saying why it is not legal."""
        why = self.why_invalid(action)
        a = as_action(action)
        if why is not None or a is None:  # (why_invalid names every action as_action refuses)
            raise InvalidAction(why or f"not an action: {action!r}")
        return a

    def apply(self, action: object, *, checked: bool = False) -> Move | None:
        """Play ``action`` for the selected piece. Returns the engine move pushed, or ``None``
        when the action only chose a double move's first step or deferred. ``checked=True``:
        the caller has just had ``why_invalid(action)`` return ``None``."""
        a = as_action(action) if checked else self.check(action)
        assert a is not None
        g = self.game
        if a == DEFER:
            nxt = self._next_unmoved()
            waiting = g.pieces_to_move
            if nxt is not None and waiting.index(nxt) < waiting.index(self.pointer):
                self.wrapped = True
            self.pointer = nxt
            return None
        if TAKE <= a < TAKE + 3:
            move = self._takes[a]
        elif a == PASS:
            move = Move.pass_(self.pointer)
        else:
            base, t, s = split_step(a)
            if base == DOUBLE_FIRST:
                self.pending = (t, s)
                return None
            if self.pending is not None:
                t1, d1 = self.pending
                move = Move.double(t1, d1, t, s)
            elif base == REVEAL:
                move = Move.parse(f"{'TBUK'[t]}{s}!")
            else:
                move = Move.single(_TICKETS[t], s, self.pointer)
        g.push(move)
        self._after_push()
        return move

    def push(self, move: Move) -> None:
        """Push an engine move (an opponent's, from ``game.legal_moves()``) and resync."""
        if self.pending is not None:
            raise InvalidAction("R-MRX-DOUBLE: Mr X is in the middle of a double move")
        self.game.push(move)
        self._after_push()

    def action_toward(self, move: Move) -> int:
        """The next action that plays the engine move ``move`` (legal in ``game``): ``defer``
        until its piece is selected, then its step(s) (see :func:`move_actions`)."""
        if self.pointer is not None and move.piece is not None and move.piece != self.pointer:
            return DEFER
        acts = move_actions(move)
        if self.pending is not None:
            return acts[1]
        return acts[0]
