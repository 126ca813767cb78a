"""Observation encoding: one flat ``float32`` vector per agent, the facts of its view only.

The layout (segment names, shapes and meaning) is :class:`ObservationLayout`; the table is in
``docs/env.md``. Two encoders give the same vector:

- :func:`encode_view` builds it from a :class:`~scotlandyard.PlayerView` alone (the reference:
  a detective's vector is a function of the detective's view, so it cannot hold more);
- :class:`Encoder` builds it from the ``Game`` for speed, reading only the facts the view
  shows; the tests check both agree on every state they visit, for every rule preset.

Hidden stations are never encoded for the detectives' side, not even after the game ends
(the view opens Mr X's log then; the observation keeps the in-play filter).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..game import Game
from ..move import MR_X
from ..rules import Rules
from ..view import PlayerView

STATIONS = 199
TICKET_MAX = 65535.0  # bound of the Box; ticket counts are far below it
LOG_FIELDS = ("used", "taxi", "bus", "underground", "black", "revealed", "double", "voluntary",
              "station")
SCALARS = ("round", "slots_used", "since_reveal", "to_next_reveal")


@dataclass(frozen=True)
class ObservationLayout:
    """Where each fact sits in the observation vector of one rule set.

    ``segments[name]`` is ``(start, shape)``; :meth:`split` gives the named, reshaped parts of
    a vector. ``low``/``high`` are the bounds of the ``Box`` space.
    """

    pieces: tuple[str, ...]
    log_slots: int
    last_round: int
    segments: dict[str, tuple[int, tuple[int, ...]]]
    size: int

    @classmethod
    def for_rules(cls, rules: Rules) -> ObservationLayout:
        """The layout for ``rules`` (its pieces and log slots fix the sizes)."""
        p = len(rules.pieces)
        shapes: list[tuple[str, tuple[int, ...]]] = [
            ("stations", (p, STATIONS)),
            ("possible", (STATIONS,)),
            ("last_reveal", (STATIONS,)),
            ("tickets", (p, 5)),
            ("me", (p,)),
            ("selected", (p,)),
            ("moved", (p,)),
            ("pending_take", (p,)),
            ("pending_ticket", (4,)),
            ("pending_station", (STATIONS,)),
            ("scalars", (len(SCALARS),)),
            ("log", (rules.log_slots, len(LOG_FIELDS))),
        ]
        segs: dict[str, tuple[int, tuple[int, ...]]] = {}
        off = 0
        for name, shape in shapes:
            segs[name] = (off, shape)
            off += int(np.prod(shape))
        return cls(rules.pieces, rules.log_slots, rules.last_round, segs, off)

    def start(self, name: str) -> int:
        """Offset of segment ``name``."""
        return self.segments[name][0]

    def split(self, obs: np.ndarray) -> dict[str, np.ndarray]:
        """The named segments of ``obs`` (views, reshaped)."""
        if obs.shape != (self.size,):
            raise ValueError(f"an observation of these rules has shape ({self.size},), not {obs.shape}")
        out = {}
        for name, (off, shape) in self.segments.items():
            out[name] = obs[off: off + int(np.prod(shape))].reshape(shape)
        return out

    def bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """``(low, high)`` arrays for a ``gymnasium.spaces.Box``."""
        low = np.zeros(self.size, np.float32)
        high = np.ones(self.size, np.float32)
        parts_low, parts_high = self.split(low), self.split(high)
        parts_low["tickets"][:] = -1.0
        parts_high["tickets"][:] = TICKET_MAX
        parts_high["scalars"][:] = (self.last_round, self.log_slots, self.log_slots, self.log_slots)
        parts_low["scalars"][2] = -1.0
        parts_high["log"][:, LOG_FIELDS.index("station")] = STATIONS
        return low, high


def _side(piece: str) -> str:
    return "mr_x" if piece == MR_X else ("spectator" if piece == "spectator" else "detectives")


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
    since = -1
    for k in range(used - 1, -1, -1):
        if log_reveals[k]:
            since = used - 1 - k
            break
    nxt = next((s - used for s in reveal_slots if s > used), 0)
    return [float(round_), float(used), float(since), float(nxt)]


def encode_view(view: PlayerView, *, selected: str | None = None,
                pending: tuple[int, int] | None = None,
                layout: ObservationLayout | None = None) -> np.ndarray:
    """The observation of ``view``'s viewer, from the view alone (the reference encoder).

    ``selected`` is the piece the env asks to act (``None``: nobody); ``pending`` the first
    step ``(ticket, station)`` of Mr X's double move, used only in Mr X's own view.
    """
    rules = view.rules
    lay = layout or ObservationLayout.for_rules(rules)
    obs = np.zeros(lay.size, np.float32)
    part = lay.split(obs)
    pieces = lay.pieces
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
    reveals = [e for e in view.log if e.reveal]
    if reveals:
        part["last_reveal"][reveals[-1].station - 1] = 1  # type: ignore[operator]
    names = ("taxi", "bus", "underground", "black", "double")
    for i, p in enumerate(pieces):
        counts = view.tickets[p]
        for k, name in enumerate(names):
            c = counts.get(name, 0)
            part["tickets"][i, k] = -1.0 if c is None else c
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
            row[8] = e.station
    return obs


class Encoder:
    """Fast observations straight from a ``Game`` (same vector as :func:`encode_view` of the
    viewer's view; tested). Keeps a per-game cache of the encoded travel log."""

    def __init__(self, rules: Rules) -> None:
        """An encoder for games under ``rules``."""
        self.rules = rules
        self.layout = ObservationLayout.for_rules(rules)
        lay = self.layout
        self._pieces = rules.pieces
        self._index = {p: i for i, p in enumerate(self._pieces)}
        self._st = lay.start("stations")
        self._pos = lay.start("possible")
        self._last = lay.start("last_reveal")
        self._tk = lay.start("tickets")
        self._me = lay.start("me")
        self._sel = lay.start("selected")
        self._mv = lay.start("moved")
        self._take = lay.start("pending_take")
        self._pt = lay.start("pending_ticket")
        self._ps = lay.start("pending_station")
        self._sc = lay.start("scalars")
        self._log = lay.start("log")
        self._cache_log: tuple = ()
        self._rows_public = np.zeros((rules.log_slots, len(LOG_FIELDS)), np.float32)
        self._rows_mr_x = np.zeros((rules.log_slots, len(LOG_FIELDS)), np.float32)

    def _update_log(self, log: tuple) -> None:
        old = self._cache_log
        if log == old:
            return
        k = 0
        n = min(len(old), len(log))
        while k < n and old[k] is log[k]:
            k += 1
        self._rows_public[k:] = 0
        self._rows_mr_x[k:] = 0
        for j in range(k, len(log)):
            e = log[j]
            row = (1, e.ticket == 0, e.ticket == 1, e.ticket == 2, e.ticket == 3, e.reveal, e.double,
                   e.voluntary)
            self._rows_mr_x[j, :8] = row
            self._rows_mr_x[j, 8] = e.station
            self._rows_public[j, :8] = row
            self._rows_public[j, 8] = e.station if e.reveal else 0
        self._cache_log = log

    def encode(self, game: Game, piece: str, *, selected: str | None = None,
               pending: tuple[int, int] | None = None) -> np.ndarray:
        """``piece``'s observation of ``game`` (``piece`` is a piece id or ``"spectator"``)."""
        if game.rules is not self.rules and game.rules != self.rules:
            raise ValueError("this encoder was made for other rules")
        if piece != "spectator" and piece not in self._index:
            raise ValueError(f"no piece {piece!r} in these rules (pieces: {', '.join(self._pieces)})")
        obs = np.zeros(self.layout.size, np.float32)
        mr_x = piece == MR_X
        stations = game.stations
        log = game.log
        ones: list[int] = []
        st = self._st
        for i, p in enumerate(self._pieces):
            if i:
                ones.append(st + i * STATIONS + stations[p] - 1)
        if mr_x:
            ones.append(st + stations[MR_X] - 1)
        elif log and log[-1].reveal:
            ones.append(st + log[-1].station - 1)
        for e in reversed(log):
            if e.reveal:
                ones.append(self._last + e.station - 1)
                break
        if piece != "spectator":
            ones.append(self._me + self._index[piece])
        if selected is not None:
            ones.append(self._sel + self._index[selected])
        to_move = game.to_move
        for i in _moved(self._pieces, to_move, game.pieces_to_move, self.rules.free_order):
            ones.append(self._mv + i)
        if self.rules.extra_reveal and to_move == MR_X:
            ms = game.legal_moves()
            if ms and ms[0].take_from is not None:
                ones.append(self._take + self._index[ms[0].take_from])
        if mr_x and pending is not None:
            ones.append(self._pt + pending[0])
            ones.append(self._ps + pending[1] - 1)
        obs[ones] = 1.0
        bits = game.possible_bits
        raw = np.frombuffer(bits.to_bytes(26, "little"), np.uint8)
        obs[self._pos: self._pos + STATIONS] = np.unpackbits(raw, bitorder="little")[1: STATIONS + 1]
        vals: list[float] = []
        for p in self._pieces:
            counts = list(game.tickets(p).values())  # taxi, bus, underground[, black, double]
            vals += [-1 if c is None else c for c in counts]
            if len(counts) == 3:
                vals += (0, 0)
        obs[self._tk: self._tk + len(vals)] = vals
        obs[self._sc: self._sc + 4] = _scalars(game.round, [e.reveal for e in log],
                                               self.rules.reveal_slots)
        if log:
            self._update_log(log)
            rows = self._rows_mr_x if mr_x else self._rows_public
            obs[self._log: self._log + len(log) * len(LOG_FIELDS)] = rows[: len(log)].ravel()
        return obs
