"""Observation encoding, layout ``sy-obs-1``: one flat ``float32`` vector per agent, the facts of
its view only, every value in [0, 1], the same size for every rule preset.

The layout (segment names, shapes and meaning) is :class:`ObservationLayout`; the table is in
``docs/env.md``. Pieces sit in six fixed seats (Mr X, then the detectives' side in seat order:
detectives, then police); seats a rule set does not use are zero (``present`` says which are
used). The log has 24 fixed slots. Two options add segments at the end:

- ``probability=True``: Mr X's probability map (``belief.probability_map``, the paths model),
  public facts only, the same for every agent (zero once the game is over);
- ``board_features=True``: for each station the fewest moves (land network) to Mr X's nearest
  possible location, and each hunter's distance to that set, over the board's diameter (10),
  at most 1 (a small board's stations off the board are unreachable).

Two encoders give the same vector:

- :func:`encode_view` builds it from a :class:`~scotlandyard.PlayerView` alone (the reference:
  a detective's vector is a function of the detective's view, so it cannot hold more);
- :class:`Encoder` builds it from the ``Game`` for speed, reading only the facts the view
  shows; the tests check both agree on every state they visit, for every rule preset.

Hidden stations are never encoded for the detectives' side, not even after the game ends
(the view opens Mr X's log then; the observation keeps the in-play filter).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from ..belief import probability_map
from ..board import london
from ..game import Game
from ..move import MR_X
from ..rules import Rules
from ..view import PlayerView

OBS_VERSION = "sy-obs-1"
STATIONS = 199
SEATS = 6  # Mr X + the box's five pawns of the detectives' side (R-PIECES)
LOG_SLOTS = 24  # the log of both editions (22 rounds + 2 double moves)
TICKET_SCALE = (64.0, 64.0, 32.0, 8.0, 4.0)  # taxi, bus, underground, black, double
DIST_SCALE = 10.0  # the diameter of both London boards (land network)
LOG_FIELDS = ("used", "taxi", "bus", "underground", "black", "revealed", "double", "voluntary",
              "station")
SCALARS = ("round", "slots_used", "since_reveal", "to_next_reveal")
RULE_FLAGS = ("new_edition", "free_order", "mr_x_unlimited", "ticket_handover", "extra_reveal",
              "board_2014", "pooled_supply", "last_round")

_BASE_SEGMENTS: tuple[tuple[str, tuple[int, ...]], ...] = (
    ("stations", (SEATS, STATIONS)),
    ("possible", (STATIONS,)),
    ("last_reveal", (STATIONS,)),
    ("present", (SEATS,)),
    ("police", (SEATS,)),
    ("tickets", (SEATS, 5)),
    ("unlimited", (SEATS,)),
    ("me", (SEATS,)),
    ("selected", (SEATS,)),
    ("moved", (SEATS,)),
    ("pending_take", (SEATS,)),
    ("pending_ticket", (4,)),
    ("pending_station", (STATIONS,)),
    ("scalars", (len(SCALARS),)),
    ("rules", (len(RULE_FLAGS),)),
    ("reveal_slots", (LOG_SLOTS,)),
    ("log", (LOG_SLOTS, len(LOG_FIELDS))),
)


class LayoutError(ValueError):
    """Rules that layout ``sy-obs-1`` cannot hold (a longer log, more tickets than its scale)."""


def _max_tickets(rules: Rules) -> list[float]:
    """The most tickets of each kind any piece can hold under ``rules`` (Mr X gets the
    detectives' spent tickets where they are handed over)."""
    det = rules.pooled_supply or tuple(c * rules.detectives for c in rules.detective_tickets)
    per = rules.pooled_supply or rules.detective_tickets
    x = [float(c) for c in rules.mr_x_tickets]
    if rules.ticket_handover and not rules.mr_x_unlimited:
        x = [a + b for a, b in zip(x, det, strict=True)]
    out = [max(a, float(b)) for a, b in zip(x, per, strict=True)]
    return [*out, float(rules.black_tickets), float(rules.double_moves)]


@dataclass(frozen=True)
class ObservationLayout:
    """Where each fact sits in the observation vector (layout :data:`OBS_VERSION`).

    ``segments[name]`` is ``(start, shape)``; :meth:`split` gives the named, reshaped parts of
    a vector. The size depends only on the options, never on the rules.
    """

    version: str
    probability: bool
    board_features: bool
    segments: dict[str, tuple[int, tuple[int, ...]]]
    size: int

    @classmethod
    def make(cls, *, probability: bool = False, board_features: bool = False) -> ObservationLayout:
        """The layout with the optional segments asked for."""
        shapes = list(_BASE_SEGMENTS)
        if probability:
            shapes.append(("probability", (STATIONS,)))
        if board_features:
            shapes += [("distance", (STATIONS,)), ("piece_distance", (SEATS,))]
        segs: dict[str, tuple[int, tuple[int, ...]]] = {}
        off = 0
        for name, shape in shapes:
            segs[name] = (off, shape)
            off += int(np.prod(shape))
        return cls(OBS_VERSION, bool(probability), bool(board_features), segs, off)

    @classmethod
    def for_rules(cls, rules: Rules, *, probability: bool = False,
                  board_features: bool = False) -> ObservationLayout:
        """The layout, after checking that ``rules`` fit it (:class:`LayoutError` if not)."""
        check_rules(rules)
        return cls.make(probability=probability, board_features=board_features)

    def start(self, name: str) -> int:
        """Offset of segment ``name``."""
        return self.segments[name][0]

    def split(self, obs: np.ndarray) -> dict[str, np.ndarray]:
        """The named segments of ``obs`` (views, reshaped)."""
        if obs.shape != (self.size,):
            raise ValueError(f"an observation of this layout has shape ({self.size},), not {obs.shape}")
        out = {}
        for name, (off, shape) in self.segments.items():
            out[name] = obs[off: off + int(np.prod(shape))].reshape(shape)
        return out

    def bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """``(low, high)`` arrays for a ``gymnasium.spaces.Box``: 0 and 1 everywhere."""
        return np.zeros(self.size, np.float32), np.ones(self.size, np.float32)

    def describe(self) -> dict[str, Any]:
        """The layout as plain JSON values (version, size, segments)."""
        return {"version": self.version, "size": self.size,
                "segments": {k: {"start": s, "shape": list(sh)} for k, (s, sh) in self.segments.items()}}


def check_rules(rules: Rules) -> None:
    """:class:`LayoutError` unless every fact of ``rules`` fits layout ``sy-obs-1``."""
    if len(rules.pieces) > SEATS:
        raise LayoutError(f"{OBS_VERSION} has {SEATS} seats, these rules have {len(rules.pieces)} pieces")
    if rules.log_slots > LOG_SLOTS:
        raise LayoutError(f"{OBS_VERSION} holds {LOG_SLOTS} log slots, these rules have {rules.log_slots}")
    for name, most, scale in zip(("taxi", "bus", "underground", "black", "double"),
                                 _max_tickets(rules), TICKET_SCALE, strict=True):
        if most > scale:
            raise LayoutError(f"{OBS_VERSION} scales {name} tickets by {scale:g}; these rules allow {most:g}")


def _rule_flags(rules: Rules) -> list[float]:
    return [float(rules.edition == "new_edition"), float(rules.free_order),
            float(rules.mr_x_unlimited), float(rules.ticket_handover and not rules.mr_x_unlimited),
            float(rules.extra_reveal), float(rules.board == "2014"),
            float(rules.pooled_supply is not None), rules.last_round / LOG_SLOTS]


def _moved(pieces: tuple[str, ...], to_move: str | None, waiting: tuple[str, ...],
           free_order: bool) -> list[int]:
    """Seat indices of the hunters that have moved this round (none while Mr X moves)."""
    if to_move is None or to_move == MR_X:
        return []
    if free_order:
        return [i for i, p in enumerate(pieces) if i and p not in waiting]
    k = pieces.index(to_move)
    return list(range(1, k))


def _scalars(round_: int, log_reveals: list[bool], reveal_slots: tuple[int, ...]) -> list[float]:
    used = len(log_reveals)
    since = 0  # 0: no reveal yet; else (slots since the last reveal + 1) / LOG_SLOTS
    for k in range(used - 1, -1, -1):
        if log_reveals[k]:
            since = used - k
            break
    nxt = next((s - used for s in reveal_slots if s > used), 0)
    return [round_ / LOG_SLOTS, used / LOG_SLOTS, since / LOG_SLOTS, nxt / LOG_SLOTS]


class _Static:
    """The parts of an observation fixed by the rules (seats, flags, scales, distances)."""

    def __init__(self, rules: Rules, layout: ObservationLayout) -> None:
        check_rules(rules)
        self.rules = rules
        self.layout = layout
        pieces = rules.pieces
        self.pieces = pieces
        self.index = {p: i for i, p in enumerate(pieces)}
        base = np.zeros(layout.size, np.float32)
        part = layout.split(base)
        part["present"][: len(pieces)] = 1
        for i, p in enumerate(pieces):
            part["police"][i] = p.startswith("P")
            if i == 0:
                part["unlimited"][i] = rules.mr_x_unlimited
            else:
                part["unlimited"][i] = p.startswith("P")
        part["rules"][:] = _rule_flags(rules)
        for s in rules.reveal_slots:
            part["reveal_slots"][s - 1] = 1
        self.base = base
        self.scale = np.array(TICKET_SCALE, np.float32)
        self.dist: np.ndarray | None = None
        if layout.board_features:
            b = london(rules.board)
            dist = np.array([list(b.distance_row(s)) for s in range(1, STATIONS + 1)],
                            np.float32)[:, 1:] / DIST_SCALE  # [from, to], stations 1..199
            # at most 1: London's diameter is DIST_SCALE; a small board leaves the stations
            # off it unreachable (255)
            self.dist = np.minimum(dist, 1.0)

    def tickets_row(self, counts: Mapping[str, int | None]) -> list[float]:
        vals = [counts.get(n, 0) for n in ("taxi", "bus", "underground", "black", "double")]
        return [0.0 if c is None else c / sc for c, sc in zip(vals, TICKET_SCALE, strict=True)]

    def extras(self, obs: np.ndarray, possible: np.ndarray, stations: list[int],
               probability: dict[int, float] | None) -> None:
        """Fill the optional segments (``possible``: 0/1 over stations 1..199)."""
        lay = self.layout
        if lay.probability and probability is not None:
            off = lay.start("probability")
            for s, p in probability.items():
                obs[off + s - 1] = p
        if lay.board_features and self.dist is not None:
            idx = np.flatnonzero(possible)
            if len(idx):
                row = self.dist[idx].min(axis=0)
                off = lay.start("distance")
                obs[off: off + STATIONS] = row
                off = lay.start("piece_distance")
                for i, s in enumerate(stations):
                    if i and s:
                        obs[off + i] = row[s - 1]


@lru_cache(maxsize=32)
def _static_for(rules: Rules, probability: bool, board_features: bool) -> _Static:
    return _Static(rules, ObservationLayout.make(probability=probability,
                                                 board_features=board_features))


def encode_view(view: PlayerView, *, selected: str | None = None,
                pending: tuple[int, int] | None = None,
                layout: ObservationLayout | None = None) -> np.ndarray:
    """The observation of ``view``'s viewer, from the view alone (the reference encoder).

    ``selected`` is the piece the env asks to act (``None``: nobody); ``pending`` the first
    step ``(ticket, station)`` of Mr X's double move, used only in Mr X's own view.
    """
    rules = view.rules
    lay = layout or ObservationLayout.make()
    static = _static_for(rules, lay.probability, lay.board_features)
    obs = static.base.copy()
    part = lay.split(obs)
    pieces = static.pieces
    mr_x = view.side == "mr_x"
    for i, p in enumerate(pieces):
        if i:
            part["stations"][i, view.stations[p] - 1] = 1
    if mr_x:
        x = view.mr_x_station
    else:
        x = view.log[-1].station if view.log and view.log[-1].reveal else None
    if x is not None:
        part["stations"][0, x - 1] = 1
    for s in view.possible:
        part["possible"][s - 1] = 1
    shown = [e.station for e in view.log if e.reveal and e.station is not None]
    if shown:  # (every revealed slot carries its station)
        part["last_reveal"][shown[-1] - 1] = 1
    for i, p in enumerate(pieces):
        part["tickets"][i] = static.tickets_row(view.tickets[p])
    if view.viewer in pieces:
        part["me"][pieces.index(view.viewer)] = 1
    if selected is not None:
        part["selected"][pieces.index(selected)] = 1
    for i in _moved(pieces, view.to_move, view.pieces_to_move, rules.free_order):
        part["moved"][i] = 1
    if view.pending_take is not None:
        part["pending_take"][pieces.index(view.pending_take)] = 1
    if mr_x and pending is not None:
        part["pending_ticket"][pending[0]] = 1
        part["pending_station"][pending[1] - 1] = 1
    part["scalars"][:] = _scalars(view.round, [e.reveal for e in view.log], rules.reveal_slots)
    for k, e in enumerate(view.log):
        row = part["log"][k]
        row[0] = 1
        row[1 + int(e.ticket)] = 1
        row[5], row[6], row[7] = e.reveal, e.double, e.voluntary
        if (mr_x or e.reveal) and e.station is not None:
            row[8] = e.station / STATIONS
    prob = None
    if lay.probability and not view.is_over:
        prob = probability_map(view)
    static.extras(obs, part["possible"], [0] + [view.stations[p] for p in pieces[1:]], prob)
    return obs


class Encoder:
    """Fast observations straight from a ``Game`` (same vector as :func:`encode_view` of the
    viewer's view; tested on every preset, across undo and game copies).

    What the rules fix is computed once: the static vector (seats, flags, reveal slots), the
    flat offset of every piece's station plane, the ``me``/``selected`` cells, the ``moved``
    cells of each turn. What changes only with Mr X's log, the round or the possible set (the
    log rows of both filters, the last reveal, the scalars, the possible plane) sits in two
    templates, one for Mr X's filter and one for everybody else's, rewritten only when it
    changes. A call copies its template, sets the few cells of the pieces, and writes the
    ticket segment; the tickets are re-read only for the pieces a move can change (the mover,
    Mr X, the detective a ticket is taken from, a shared pool), and all of them whenever the
    game is not the previous one plus one move (identity of the history entries)."""

    def __init__(self, rules: Rules, *, probability: bool = False,
                 board_features: bool = False) -> None:
        """An encoder for games under ``rules`` (:class:`LayoutError` if they do not fit)."""
        self.rules = rules
        self.layout = ObservationLayout.for_rules(rules, probability=probability,
                                                  board_features=board_features)
        self._static = _Static(rules, self.layout)
        lay = self.layout
        pieces = rules.pieces
        self._pieces = pieces
        self._index = self._static.index
        st = lay.start("stations")
        self._x_plane = st - 1  # + station: Mr X's plane
        self._planes = [st + i * STATIONS - 1 for i in range(1, len(pieces))]  # + station
        self._last = lay.start("last_reveal") - 1  # + station
        self._me = {p: lay.start("me") + i for i, p in enumerate(pieces)}
        self._sel = {p: lay.start("selected") + i for i, p in enumerate(pieces)}
        mv = lay.start("moved")
        self._mv = mv
        # fixed order: the hunters before ``to_move`` have moved (none while Mr X moves)
        self._moved_fixed = {p: [mv + i for i in range(1, k)] for k, p in enumerate(pieces)}
        self._free = rules.free_order
        self._hunter_seats = [(i, p) for i, p in enumerate(pieces) if i]
        self._take = lay.start("pending_take")
        self._pt = lay.start("pending_ticket")
        self._ps = lay.start("pending_station") - 1  # + station
        self._pos = lay.start("possible")
        self._tk = lay.start("tickets")
        self._tk_end = self._tk + len(pieces) * 5
        self._sc = lay.start("scalars")
        self._log = lay.start("log")
        self._extra_reveal = rules.extra_reveal
        slots = rules.reveal_slots
        # scalars' last entry for each number of slots used: slots to the next reveal slot
        self._to_next = [next((s - u for s in slots if s > u), 0) / LOG_SLOTS
                         for u in range(LOG_SLOTS + 1)]
        self._extras = probability or board_features
        # the seats whose tickets a move by seat i can change: i, Mr X (ticket handover, takes)
        # and, where the detectives share one supply, every detective
        pooled = rules.pooled_supply is not None
        det = [i for i, p in enumerate(pieces) if p.startswith("D")]
        self._touched = [sorted({0, i, *(det if pooled and i in det else ())})
                         for i in range(len(pieces))]
        # templates (Mr X's filter, everybody else's) and what they hold
        base = self._static.base
        self._tpl_x = base.copy()
        self._tpl_pub = base.copy()
        self._cache_log: tuple[Any, ...] = ()
        self._rows_public = np.zeros((LOG_SLOTS, len(LOG_FIELDS)), np.float32)
        self._rows_mr_x = np.zeros((LOG_SLOTS, len(LOG_FIELDS)), np.float32)
        self._log_cells: list[int] = []  # cells the log set to one in the public template
        self._log_cells_x: list[int] = []  # ... and in Mr X's
        self._tpl_round = -1
        self._tpl_bits = -1
        self._possible = np.zeros(STATIONS, np.uint8)
        # tickets: the game and history entry they were read at, and the values (flat)
        self._tk_game: Game | None = None
        self._tk_n = -1
        self._tk_last: object = None
        self._tk_vals: list[float] = []
        self._prob_key: tuple[int, int] | None = None
        self._prob: dict[int, float] | None = None
        self._update_log(())

    # ---- templates -------------------------------------------------------------------------
    def _update_log(self, log: tuple[Any, ...]) -> None:
        """Mr X's log changed: the log rows, the last reveal and the log scalars of both
        templates."""
        old = self._cache_log
        k = 0
        n = min(len(old), len(log))
        while k < n and old[k] is log[k]:
            k += 1
        rows_x, rows_pub = self._rows_mr_x, self._rows_public
        rows_x[k:] = 0
        rows_pub[k:] = 0
        for j in range(k, len(log)):
            e = log[j]
            row = (1, e.ticket == 0, e.ticket == 1, e.ticket == 2, e.ticket == 3, e.reveal, e.double,
                   e.voluntary)
            rows_x[j, :8] = row
            rows_x[j, 8] = e.station / STATIONS
            rows_pub[j, :8] = row
            rows_pub[j, 8] = e.station / STATIONS if e.reveal else 0
        self._cache_log = log
        used = len(log)
        lg = self._log
        width = LOG_SLOTS * len(LOG_FIELDS)
        self._tpl_x[lg: lg + width] = rows_x.ravel()
        self._tpl_pub[lg: lg + width] = rows_pub.ravel()
        for tpl, cells in ((self._tpl_pub, self._log_cells), (self._tpl_x, self._log_cells_x)):
            for c in cells:
                tpl[c] = 0.0
            cells.clear()
        since = 0.0
        for j in range(used - 1, -1, -1):
            if log[j].reveal:
                station = log[j].station
                since = (used - j) / LOG_SLOTS
                self._log_cells.append(self._last + station)
                self._log_cells_x.append(self._last + station)
                if j == used - 1:  # the detectives see Mr X where he is revealed
                    self._log_cells.append(self._x_plane + station)
                break
        for tpl, cells in ((self._tpl_pub, self._log_cells), (self._tpl_x, self._log_cells_x)):
            for c in cells:
                tpl[c] = 1.0
            sc = self._sc
            tpl[sc + 1] = used / LOG_SLOTS
            tpl[sc + 2] = since
            tpl[sc + 3] = self._to_next[used]

    def _update_possible(self, bits: int) -> None:
        raw = np.frombuffer(bits.to_bytes(26, "little"), np.uint8)
        self._possible = np.unpackbits(raw, bitorder="little")[1: STATIONS + 1]
        pos = self._pos
        self._tpl_x[pos: pos + STATIONS] = self._possible
        self._tpl_pub[pos: pos + STATIONS] = self._possible
        self._tpl_bits = bits

    def _tickets(self, game: Game) -> list[float]:
        """The ticket segment's values (re-read only where a move can have changed them)."""
        hist = game.history
        n = len(hist)
        last = hist[-1] if n else None
        vals = self._tk_vals
        if game is self._tk_game:
            if n == self._tk_n and last is self._tk_last:
                return vals
            if (last is not None and n == self._tk_n + 1
                    and (hist[-2] if n > 1 else None) is self._tk_last):
                seats = self._touched[last.piece]
                take = last.move.take_from
                if take is not None:
                    seats = [*seats, self._index[take]]
                self._read_tickets(game, seats)
                self._tk_n, self._tk_last = n, last
                return vals
        self._tk_vals = [0.0] * (len(self._pieces) * 5)
        self._read_tickets(game, range(len(self._pieces)))
        self._tk_game, self._tk_n, self._tk_last = game, n, last
        return self._tk_vals

    def _read_tickets(self, game: Game, seats: Any) -> None:
        vals = self._tk_vals
        pieces = self._pieces
        for i in seats:
            counts = game.tickets(pieces[i]).values()  # taxi, bus, underground[, black, double]
            row = [0.0 if c is None else c / sc for c, sc in zip(counts, TICKET_SCALE, strict=False)]
            if len(row) == 3:
                row += (0.0, 0.0)
            vals[5 * i: 5 * i + 5] = row

    def _probability(self, game: Game) -> dict[int, float] | None:
        if game.is_over():
            return None
        key = (id(game), game.ply)
        if key != self._prob_key:
            self._prob = probability_map(game.view(self.rules.hunters[0]))
            self._prob_key = key
        return self._prob

    # ---- the observation --------------------------------------------------------------------
    def encode(self, game: Game, piece: str, *, selected: str | None = None,
               pending: tuple[int, int] | None = None) -> np.ndarray:
        """``piece``'s observation of ``game`` (``piece`` is a piece id or ``"spectator"``)."""
        if game.rules is not self.rules and game.rules != self.rules:
            raise ValueError("this encoder was made for other rules")
        mr_x = piece == MR_X
        if piece != "spectator" and piece not in self._index:
            raise ValueError(f"no piece {piece!r} in these rules (pieces: {', '.join(self._pieces)})")
        log = game.log
        if log != self._cache_log:
            self._update_log(log)
        rnd = game.round
        if rnd != self._tpl_round:
            self._tpl_x[self._sc] = self._tpl_pub[self._sc] = rnd / LOG_SLOTS
            self._tpl_round = rnd
        bits = game.possible_bits
        if bits != self._tpl_bits:
            self._update_possible(bits)
        obs = (self._tpl_x if mr_x else self._tpl_pub).copy()
        obs[self._tk: self._tk_end] = self._tickets(game)
        pos = game.station_list
        for o, s in zip(self._planes, pos[1:], strict=True):
            obs[o + s] = 1.0
        if piece != "spectator":
            obs[self._me[piece]] = 1.0
        if selected is not None:
            obs[self._sel[selected]] = 1.0
        to_move = game.to_move
        if to_move is not None and to_move != MR_X:
            if self._free:
                waiting = game.pieces_to_move
                for i, p in self._hunter_seats:
                    if p not in waiting:
                        obs[self._mv + i] = 1.0
            else:
                for c in self._moved_fixed[to_move]:
                    obs[c] = 1.0
        elif to_move is not None and self._extra_reveal:
            ms = game.legal_moves()
            if ms and ms[0].take_from is not None:
                obs[self._take + self._index[ms[0].take_from]] = 1.0
        if mr_x:
            obs[self._x_plane + pos[0]] = 1.0
            if pending is not None:
                obs[self._pt + pending[0]] = 1.0
                obs[self._ps + pending[1]] = 1.0
        if self._extras:
            prob = self._probability(game) if self.layout.probability else None
            self._static.extras(obs, self._possible, [0, *pos[1:]], prob)
        return obs
