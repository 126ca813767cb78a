"""Where Mr X may be, from public facts only (R-BELIEF), and how likely each station is.

Everything here works from a :class:`~scotlandyard.view.PlayerView` alone, replaying its
public history; a detective's view gives the same answer as ``game.possible_locations()``.

Two probability models (``probability_map(view, model=...)``):

- ``"paths"``: every path of Mr X consistent with the public facts is equally likely. The
  weight of a station is the number of such paths ending there (exact integers, then
  normalized). Cheap, and what a detective counting on paper would do.
- ``"uniform"``: Mr X chooses uniformly among all his legal moves each turn (single and
  double moves, black tickets, with the tickets he then had and the pieces where they then
  stood). Each observed log entry is evidence; the map is the Bayesian posterior. A station
  from which Mr X had many options gets less weight per option than one with few.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, TypeVar

from .board import Board, bits_to_set, iter_bits, london, set_to_bits
from .move import MR_X, Ticket
from .view import PlayerView

Model = Literal["paths", "uniform"]
N = TypeVar("N", int, float)  # path counts: exact integers, or weights
BLACK = 3


@dataclass
class _Event:
    """One public Mr X move during a replay: what the filter needs."""

    steps: tuple[tuple[Ticket, int | None, bool], ...]  # ticket, revealed station, reveal flag
    occ: int
    tickets: list[int]  # Mr X's [T, B, U, K, 2] before the move
    first_slot: int
    voluntary: bool


def _replay(view: PlayerView) -> Iterator[tuple[str, object]]:
    """Replay the view's public history: yields ("x", _Event) and ("land", station). A step's
    station is given (not ``None``) exactly at reveals."""
    rules = view.rules
    hunters = dict(view.start)
    hunters.pop(MR_X, None)
    sup_x = [*rules.mr_x_tickets, rules.black_tickets, rules.double_moves]
    det_sup: dict[str, list[int]] = {}
    shared = list(rules.pooled_supply) if rules.pooled_supply is not None else None
    for p in rules.hunters:
        if p.startswith("D"):
            det_sup[p] = shared if shared is not None else list(rules.detective_tickets)
    unlimited = rules.mr_x_unlimited
    for h in view.history:
        if h.piece == MR_X:
            if h.take is not None:
                det, t = h.take
                det_sup[det][t] -= 1
                if not unlimited:
                    sup_x[t] += 1
                continue
            occ = 0
            for s in hunters.values():
                occ |= 1 << s
            entries = {e.slot: e for e in view.log}
            steps = []
            for (t, _s), slot in zip(h.steps, h.slots, strict=True):
                e = entries[slot]
                steps.append((t, e.station if e.reveal else None, e.reveal))
            yield "x", _Event(tuple(steps), occ, list(sup_x), h.slots[0], h.reveal)
            for t, _s in h.steps:
                if t == BLACK or not unlimited:
                    sup_x[t] -= 1
            if len(h.steps) == 2:
                sup_x[4] -= 1
        elif h.steps:
            t, station = h.steps[0]
            assert station is not None  # a detective's station is public
            s = station
            if h.piece in det_sup:
                det_sup[h.piece][t] -= 1
                if rules.ticket_handover and not unlimited:
                    sup_x[t] += 1
            hunters[h.piece] = s
            yield "land", s


def possible_bits(view: PlayerView) -> int:
    """:func:`possible_locations` as a bitset."""
    board = london(view.rules.board)
    belief = set_to_bits(view.start_candidates)
    for _kind, ev in _replay(view):
        if isinstance(ev, int):  # a hunter landed there
            belief &= ~(1 << ev)
            continue
        assert isinstance(ev, _Event)
        for t, station, _reveal in ev.steps:
            if station is not None:  # a reveal
                belief = 1 << station
            else:
                belief = board.expand(belief, 4 if t == BLACK else int(t)) & ~ev.occ
    caught = _caught_on(view)
    return belief if caught is None else 1 << caught


def _caught_on(view: PlayerView) -> int | None:
    """Where Mr X was caught (the capturing piece's station), or ``None``."""
    out = view.outcome
    if out is not None and out.reason == "caught" and out.piece is not None:
        return view.stations[out.piece]
    return None


def possible_history(view: PlayerView) -> list[tuple[int, int, frozenset[int]]]:
    """What the detectives thought, slot by slot: ``(slot, round, possible stations)`` right
    after each step of Mr X's log, from public facts only (for the end-of-game picture of Mr X's
    true path over the stations the detectives thought possible)."""
    board = london(view.rules.board)
    belief = set_to_bits(view.start_candidates)
    rounds = {e.slot: e.round for e in view.log}
    out: list[tuple[int, int, frozenset[int]]] = []
    for _kind, ev in _replay(view):
        if isinstance(ev, int):  # a hunter landed there
            belief &= ~(1 << ev)
            continue
        assert isinstance(ev, _Event)
        for k, (t, station, _reveal) in enumerate(ev.steps):
            if station is not None:  # a reveal
                belief = 1 << station
            else:
                belief = board.expand(belief, 4 if t == BLACK else int(t)) & ~ev.occ
            slot = ev.first_slot + k
            out.append((slot, rounds.get(slot, 0), bits_to_set(belief)))
    return out


def possible_locations(view: PlayerView) -> frozenset[int]:
    """Every station Mr X may be on, computed from the view's public facts alone."""
    return bits_to_set(possible_bits(view))


def _step_targets(board: Board, at: int, t: int, occ: int) -> list[int]:
    if t == BLACK:
        return iter_bits(board.masks[4][at] & ~occ)
    return [d for d in board.neighbours[t][at] if not (occ >> d) & 1]


def step_path_counts(board: Board, counts: Mapping[int, N], ticket: int,
                     occ: int) -> dict[int, N]:
    """One step of Mr X with ``ticket`` (black: any line, ferry included) applied to path
    counts per station: each path ending on ``u`` continues to every free station one line away.
    Stations in ``occ`` (a bitset of the detectives' and police stations) are skipped."""
    row = board.masks[4] if ticket == BLACK else board.masks[ticket]
    free = ~occ
    out: dict[int, N] = {}
    for u, c in counts.items():
        for v in iter_bits(row[u] & free):
            out[v] = out[v] + c if v in out else c
    return out


def draw_weighted(weights: Mapping[int, int], rng: random.Random) -> int:
    """A key of ``weights`` drawn in proportion to its (integer) weight."""
    keys = sorted(weights)
    total = sum(weights[k] for k in keys)
    r = rng.randrange(total)
    for k in keys:
        r -= weights[k]
        if r < 0:
            return k
    return keys[-1]  # pragma: no cover


def sample_path_back(board: Board, final: int, steps: list[tuple[dict[int, int], int]],
                     rng: random.Random) -> list[int]:
    """Record reconstruction's backward pass: Mr X's stations (start first) ending on
    ``final``, drawn uniformly among the paths that fit. ``steps`` are his hidden steps in
    order as ``(path counts before the step, ticket)`` from the forward filter
    (:func:`step_path_counts`)."""
    path = [final]
    v = final
    for before, t in reversed(steps):
        if t == BLACK:
            preds = {u: before[u] for u in iter_bits(board.masks[4][v]) if u in before}
        else:
            preds = {u: before[u] for u in board.neighbours[t][v] if u in before}
        v = draw_weighted(preds, rng)
        path.append(v)
    path.reverse()
    return path


class PathFilter:
    """Record reconstruction: the forward filter of Mr X's paths over public facts, then
    paths drawn uniformly among those that fit (:meth:`paths`).

    Start with the path counts of his possible start stations and the hunters' stations;
    feed the public moves in order (:meth:`mr_x` with his steps as ``(ticket, station shown
    or None)``, :meth:`hunter` for each detective or police move). Each returns False once no
    station fits."""

    def __init__(self, board: Board, weights: Mapping[int, int], hunters: Mapping[str, int]) -> None:
        self.board = board
        self.weights: dict[int, int] = dict(weights)
        self.hunters = dict(hunters)
        self.steps: list[tuple[dict[int, int], int]] = []  # (counts before, ticket) per step

    def mr_x(self, steps: Sequence[tuple[int, int | None]]) -> bool:
        """Mr X's move: his steps as ``(ticket, shown station or None)``."""
        occ = set_to_bits(self.hunters.values())
        w = self.weights
        for t, shown in steps:
            before = w
            nw = step_path_counts(self.board, before, int(t), occ)
            if shown is not None:
                nw = {shown: nw[shown]} if shown in nw else {}
            self.steps.append((before, int(t)))
            w = nw
        self.weights = w
        return bool(w)

    def hunter(self, piece: str, station: int, caught: bool = False) -> bool:
        """A detective's or police piece's move to ``station`` (``caught``: the game's last
        move, which caught Mr X there)."""
        w = self.weights
        if caught:
            self.weights = {station: w[station]} if station in w else {}
        else:
            w.pop(station, None)
        self.hunters[piece] = station
        return bool(self.weights)

    def paths(self, rng: random.Random) -> Iterator[list[int]]:
        """Mr X's stations (start first), one path per final station that fits: each final
        drawn in proportion to its paths (without repeats), its path uniformly among them."""
        candidates = dict(self.weights)
        while candidates:
            final = draw_weighted(candidates, rng)
            del candidates[final]
            yield sample_path_back(self.board, final, self.steps, rng)


def count_mr_x_moves(board: Board, at: int, tickets: list[int], unlimited: bool, occ: int,
                     double_ok: bool, reveal_variant: bool = False) -> int:
    """How many legal moves Mr X has at ``at`` (the number ``Game.legal_moves()`` gives)."""

    def singles(pos: int, sup: list[int]) -> list[tuple[int, int]]:
        out: list[tuple[int, int]] = []
        for t in (0, 1, 2):
            if unlimited or sup[t]:
                out.extend((t, d) for d in board.neighbours[t][pos] if not (occ >> d) & 1)
        if sup[BLACK]:
            out.extend((BLACK, d) for d in iter_bits(board.masks[4][pos] & ~occ))
        return out

    first = singles(at, tickets)
    total = len(first) * (2 if reveal_variant else 1)
    if double_ok and tickets[4]:
        for t1, d1 in first:
            sup = list(tickets)
            if t1 == BLACK or not unlimited:
                sup[t1] -= 1
            total += len(singles(d1, sup))
    return total


def probability_map(view: PlayerView, model: Model = "paths") -> dict[int, float]:
    """Probability of each possible station (summing to 1) under ``model`` (see module doc)."""
    if model not in ("paths", "uniform"):
        raise ValueError(f"unknown model {model!r} (paths or uniform)")
    if model == "paths":
        return normalize_path_counts(view, path_counts(view))
    rules = view.rules
    board = london(rules.board)
    n = len(view.start_candidates)
    w = {s: 1.0 / n for s in view.start_candidates}
    reveal_slots = set(rules.reveal_slots)
    for _kind, ev in _replay(view):
        if isinstance(ev, int):  # a hunter landed there
            w.pop(ev, None)
            continue
        assert isinstance(ev, _Event)
        # uniform model: Mr X picked uniformly among his legal moves at each possible u
        last = ev.steps[-1][1]
        if last is not None:  # the move ended on a reveal
            w = {last: 1.0}
            continue
        double = len(ev.steps) == 2
        slots_left = rules.log_slots - ev.first_slot  # slots after the first one
        reveal_variant = rules.extra_reveal and ev.first_slot not in reveal_slots
        nw: defaultdict[int, float] = defaultdict(float)
        for u, p in w.items():
            count = count_mr_x_moves(board, u, ev.tickets, rules.mr_x_unlimited, ev.occ,
                                     slots_left >= 1, reveal_variant)
            if not count:
                continue
            share = p / count
            t1, s1, r1 = ev.steps[0]
            firsts = _step_targets(board, u, int(t1), ev.occ)
            if r1:
                firsts = [d for d in firsts if d == s1]
            if not double:
                for v in firsts:
                    nw[v] += share
            else:
                t2 = int(ev.steps[1][0])
                for v1 in firsts:
                    for v2 in _step_targets(board, v1, t2, ev.occ):
                        nw[v2] += share
        w = dict(nw)
    return _normalize(view, w)


def _normalize(view: PlayerView, w: Mapping[int, N]) -> dict[int, float]:
    caught = _caught_on(view)
    if caught is not None:
        return {caught: 1.0}
    total = float(sum(w.values()))
    if total <= 0:
        return {}
    return {s: float(c) / total for s, c in sorted(w.items()) if c > 0}


def path_counts(view: PlayerView) -> dict[int, int]:
    """The ``"paths"`` model before it is normalized: for each station, how many of Mr X's
    paths consistent with the view's public facts end there (the capture not applied)."""
    board = london(view.rules.board)
    w = {s: 1 for s in view.start_candidates}
    for _kind, ev in _replay(view):
        if isinstance(ev, int):  # a hunter landed there
            w.pop(ev, None)
            continue
        assert isinstance(ev, _Event)
        for t, station, _reveal in ev.steps:
            w = {station: 1} if station is not None else step_path_counts(board, w, int(t), ev.occ)
    return w


def extend_path_counts(view: PlayerView, counts: dict[int, int]) -> dict[int, int]:
    """:func:`path_counts` of ``view`` from ``counts``, the path counts of the same public
    history without its last record (one ply later, without replaying the whole history:
    the server's public map after each move). ``counts`` may be changed and returned."""
    if not view.history:
        return path_counts(view)
    h = view.history[-1]
    if h.piece != MR_X:
        if h.steps:  # a hunter landed there (a pass changes nothing)
            station = h.steps[0][1]
            assert station is not None  # a detective's station is public
            counts.pop(station, None)
        return counts
    if h.take is not None:  # a ticket taken: nothing moved
        return counts
    board = london(view.rules.board)
    occ = 0
    for s in view.stations.values():  # the hunters have not moved since his move
        occ |= 1 << s
    entries = {e.slot: e for e in view.log}
    for (t, _s), slot in zip(h.steps, h.slots, strict=True):
        e = entries[slot]
        counts = ({e.station: 1} if e.reveal and e.station is not None
                  else step_path_counts(board, counts, int(t), occ))
    return counts


def normalize_path_counts(view: PlayerView, counts: Mapping[int, int]) -> dict[int, float]:
    """``probability_map(view, "paths")`` from ``path_counts(view)``."""
    return _normalize(view, counts)
