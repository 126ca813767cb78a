"""BatchSim in the envs' terms: the observation vectors (layout ``sy-obs-1``) and action ids
of the games that move now, so that a policy trained on BatchSim data runs in the AEC and
Gymnasium envs unchanged, and the other way round.

>>> from scotlandyard import Rules
>>> from scotlandyard.env import BatchSim
>>> from scotlandyard.env.batch_obs import batch_action_ids, batch_observations
>>> sim = BatchSim(64, Rules.classic(), seed=1)
>>> obs = batch_observations(sim)           # Mr X to move: [64, 2119], Mr X's own view
>>> first, second = batch_action_ids(sim.candidates())

This module only reads BatchSim's state (``pos``, ``tickets()``, ``log_*``, ``possible``,
``moved``, ``round``/``phase`` and the move ``history``); it changes nothing.

- :func:`batch_observations` gives, for every running game, the vector the envs give the
  piece that is selected now: Mr X (his own view) in Mr X's phase; in the hunters' phase the
  hunter whose turn it is (classic) or the lowest-seat unmoved hunter (free order), as its
  own view (``me`` = ``selected`` = that seat). Mr X never has a pending double move here
  (BatchSim plays a double move as one move).
- :func:`batch_action_ids` maps each candidate move of a :class:`~scotlandyard.env.MoveBatch`
  to the env's actions: ``first`` is the action that starts it (a single step, a double
  first step, or ``pass``), ``second`` the second step of a double move (-1 otherwise). In
  free order a candidate of a hunter other than the selected one is reached in the envs by
  ``defer`` steps first (``MoveBatch.piece`` says whose move it is).

The tests check both against the envs' encoder and masks on replayed games of every preset
BatchSim plays.
"""

from __future__ import annotations

import numpy as np

from .actions import DOUBLE_FIRST, PASS, STATIONS
from .batch import BatchSim, MoveBatch
from .encoding import LOG_FIELDS, LOG_SLOTS, SEATS, TICKET_SCALE, ObservationLayout, _static_for


def selected_seats(sim: BatchSim, games: np.ndarray) -> np.ndarray:
    """The seat the envs would select now in each of ``games`` (0 while Mr X moves)."""
    if sim.phase == 0:
        return np.zeros(len(games), np.int64)
    if not sim.rules.free_order:
        return np.full(len(games), sim.phase, np.int64)
    waiting = ~sim.moved[games][:, 1:]
    return np.asarray(1 + np.argmax(waiting, axis=1), np.int64)


def _log_doubles(sim: BatchSim, games: np.ndarray) -> np.ndarray:
    """``[games, slots]`` bool: log slots made by a double move (from the move history)."""
    if not sim.record:
        raise ValueError("batch_observations needs a BatchSim made with record=True (the log's "
                         "double-move flags are read from the move history)")
    slots = sim.rules.log_slots
    out = np.zeros((len(games), LOG_SLOTS), bool)
    rounds = sim.round if sim.phase else sim.round - 1  # rounds in which Mr X has moved
    if rounds <= 0:
        return out
    p = sim.n_pieces
    codes = sim.history[games][:, 0: rounds * p: p]  # Mr X's move of each round
    made = np.arange(rounds)[None, :] * p < sim.n_moves[games][:, None]
    dbl = ((((codes >> 15) & 7) - 1) >= 0) & made
    first = np.cumsum(1 + dbl, axis=1) - (1 + dbl)  # the slot of each round's first step
    rows, cols = np.nonzero(dbl)
    f = first[rows, cols]
    out[rows, f] = True
    out[rows, f + 1] = True
    return out[:, :slots] if slots < LOG_SLOTS else out


def batch_observations(sim: BatchSim, games: np.ndarray | None = None, *,
                       probability: bool = False, board_features: bool = False) -> np.ndarray:
    """``float32[games, size]``: the envs' observation of the selected piece in each running
    game (default) or in ``games`` (see the module doc). Needs ``record=True`` and
    ``track_possible=True``. ``probability=True`` is not available here (the probability map
    needs the game's history of views; use the envs)."""
    if probability:
        raise ValueError("batch_observations has no probability map; use the AEC or Gymnasium env")
    g = np.flatnonzero(~sim.done) if games is None else np.asarray(games, np.int64)
    rules = sim.rules
    static = _static_for(rules, False, board_features)
    lay: ObservationLayout = static.layout
    n = len(g)
    obs = np.tile(static.base, (n, 1))
    rows = np.arange(n)
    part = {k: obs[:, s: s + int(np.prod(sh))].reshape((n, *sh)) for k, (s, sh) in lay.segments.items()}
    mr_x = sim.phase == 0
    sel = selected_seats(sim, g)
    pos = sim.pos[g].astype(np.int64)
    log_len = sim.log_len[g].astype(np.int64)
    log_t = sim.log_ticket[g].astype(np.int64)
    log_s = sim.log_station[g].astype(np.int64)
    k_slots = log_t.shape[1]
    reveal_slot = np.zeros(k_slots, bool)
    reveal_slot[[s - 1 for s in rules.reveal_slots]] = True
    used = np.arange(k_slots)[None, :] < log_len[:, None]
    revealed = used & reveal_slot[None, :]
    # stations: hunters always; Mr X his truth for himself, else where his pawn stands
    for i in range(1, sim.n_pieces):
        part["stations"][rows, i, pos[:, i] - 1] = 1
    if mr_x:
        part["stations"][rows, 0, pos[:, 0] - 1] = 1
    else:
        last = np.maximum(log_len - 1, 0)
        shown = (log_len > 0) & reveal_slot[last]
        part["stations"][rows[shown], 0, log_s[shown, last[shown]] - 1] = 1
    possible = sim.possible_mask(g)
    part["possible"][:] = possible
    any_rev = revealed.any(axis=1)
    last_rev = k_slots - 1 - np.argmax(revealed[:, ::-1], axis=1)
    part["last_reveal"][rows[any_rev], log_s[any_rev, last_rev[any_rev]] - 1] = 1
    tk = sim.tickets(g).astype(np.float32)  # -1: unlimited
    part["tickets"][:, : sim.n_pieces] = np.where(tk < 0, 0.0, tk / np.array(TICKET_SCALE, np.float32))
    part["me"][rows, sel] = 1
    part["selected"][rows, sel] = 1
    if not mr_x:
        if rules.free_order:
            part["moved"][:, 1: sim.n_pieces] = sim.moved[g][:, 1:]
        else:
            part["moved"][:, 1: sim.phase] = 1
    # scalars
    since = np.where(any_rev, log_len - last_rev, 0)
    nxt = np.zeros(n, np.int64)
    for s in sorted(rules.reveal_slots, reverse=True):
        nxt = np.where(s > log_len, s - log_len, nxt)
    part["scalars"][:] = np.stack([np.full(n, sim.round), log_len, since, nxt], axis=1) / LOG_SLOTS
    # the log
    log = part["log"]
    dbl = _log_doubles(sim, g)[:, :k_slots]
    log[:, :k_slots, 0] = used
    for t in range(4):
        log[:, :k_slots, 1 + t] = used & (log_t == t)
    log[:, :k_slots, 5] = revealed
    log[:, :k_slots, 6] = dbl & used
    station = np.where(used & (revealed | mr_x), log_s, 0)
    log[:, :k_slots, LOG_FIELDS.index("station")] = station / STATIONS
    if board_features and static.dist is not None:
        for r in range(n):
            idx = np.flatnonzero(possible[r])
            if len(idx):
                d = static.dist[idx].min(axis=0)
                part["distance"][r] = d
                for i in range(1, sim.n_pieces):
                    part["piece_distance"][r, i] = d[pos[r, i] - 1]
    return obs


def batch_action_ids(moves: MoveBatch) -> tuple[np.ndarray, np.ndarray]:
    """``(first, second)`` env actions of every candidate of ``moves`` (``int64``; ``second``
    is -1 except for double moves). See the module doc."""
    t = moves.ticket.astype(np.int64)
    step = t * STATIONS + moves.to.astype(np.int64) - 1
    dbl = moves.ticket2 >= 0
    first = np.where(t < 0, PASS, np.where(dbl, DOUBLE_FIRST + step, step))
    second = np.where(dbl, moves.ticket2.astype(np.int64) * STATIONS + moves.to2.astype(np.int64) - 1, -1)
    return first.astype(np.int64), second.astype(np.int64)


__all__ = ["SEATS", "batch_action_ids", "batch_observations", "selected_seats"]
