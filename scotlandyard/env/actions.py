"""The research API's fixed action space: one ``Discrete(N_ACTIONS)`` for every agent.

Every legal move of every rule set is reachable, and nothing else is (R-MOVE-1):

==================  =====================  ==================================================
indices             name                   meaning
==================  =====================  ==================================================
0 .. 795            single                 ``t * 199 + (s - 1)``: ticket ``t`` (0 taxi, 1 bus,
                                           2 underground, 3 black) to station ``s``
796 .. 1591         double first step      ``796 + t * 199 + (s - 1)``: Mr X plays the double-
                                           move card and takes this first step; the env then
                                           asks Mr X again for the second step, chosen from the
                                           single range (R-MRX-DOUBLE)
1592 .. 2387        voluntary reveal       ``1592 + t * 199 + (s - 1)``: ``T92!`` (R-VAR-EXTRA-
                                           REVEAL)
2388                pass                   a hunter with no legal move (R-MOVE-2)
2389 .. 2391        take                   ``2389 + t``: after a voluntary reveal, take a taxi,
                                           bus or underground ticket from the detective whose
                                           turn it is to give one
2392                defer                  free order (R-ORDER-FREE): the selected hunter lets
                                           the next unmoved hunter (in seat order) choose first
==================  =====================  ==================================================
"""

from __future__ import annotations

from ..move import DoubleMove, Move, SingleMove, TakeMove, Ticket

STATIONS = 199
SINGLE = 0
DOUBLE_FIRST = 4 * STATIONS  # 796
REVEAL = 8 * STATIONS  # 1592
PASS = 12 * STATIONS  # 2388
TAKE = PASS + 1  # 2389 .. 2391
DEFER = TAKE + 3  # 2392
N_ACTIONS = DEFER + 1  # 2393

_LETTERS = "TBUK"


class InvalidAction(ValueError):
    """An action that is not in the acting agent's action mask (the message says why)."""


def step_action(ticket: int, station: int, base: int = SINGLE) -> int:
    """The index of a (ticket, station) step in the range starting at ``base``."""
    return base + int(ticket) * STATIONS + station - 1


def split_step(action: int) -> tuple[int, int, int]:
    """``(base, ticket, station)`` of an action in one of the three step ranges."""
    if not 0 <= action < PASS:
        raise ValueError(f"action {action} is not a (ticket, station) step")
    base = (action // DOUBLE_FIRST) * DOUBLE_FIRST
    rest = action - base
    return base, rest // STATIONS, rest % STATIONS + 1


def describe_action(action: int) -> str:
    """A short human-readable name: ``T92``, ``double B58+...``, ``T92!``, ``pass``,
    ``take B``, ``defer`` (or ``invalid 9999``)."""
    a = int(action)
    if 0 <= a < PASS:
        base, t, s = split_step(a)
        step = f"{_LETTERS[t]}{s}"
        if base == SINGLE:
            return step
        if base == DOUBLE_FIRST:
            return f"double {step}+..."
        return step + "!"
    if a == PASS:
        return "pass"
    if TAKE <= a < TAKE + 3:
        return f"take {_LETTERS[a - TAKE]}"
    if a == DEFER:
        return "defer"
    return f"invalid {a}"


def move_actions(move: Move) -> tuple[int, ...]:
    """The actions that play ``move`` once its piece is selected: one for most moves, two for
    a double move (its first step, then the second from the single range)."""
    if isinstance(move, TakeMove):
        return (TAKE + int(move.ticket),)
    if isinstance(move, DoubleMove):
        return (step_action(move.ticket, move.to, DOUBLE_FIRST),
                step_action(move.ticket2, move.to2))
    if isinstance(move, SingleMove):
        return (step_action(move.ticket, move.to, REVEAL if move.reveal else SINGLE),)
    return (PASS,)


def single_move(action: int) -> Move:
    """The engine move of a single-range action (no piece prefix)."""
    _, t, s = split_step(action)
    return Move.single(Ticket(t), s)
