"""Learned parts: a small model of Mr X's play, trained on Mr X's real moves in self-play, for the
detectives' belief (``make_agent("mcts", side="detectives", belief="learned")``).

The detectives' belief weights each path of Mr X that fits the public facts by the probability
that Mr X would have played it (:func:`.belief_search.policy_weights`, an MCD softmax over the
destinations of the ticket shown). :func:`learned_weights` does the same with a learned model
of one step of Mr X: from station ``u``, with the tickets he holds, he plays the single move
``(ticket t, station v)`` with probability

    p(t, v | u) = exp(f(φ(t, v))) / Σ over his moves (t', v') from u  exp(f(φ(t', v')))

(a conditional logit over his legal single steps). ``φ`` holds public facts only (the
features in :data:`FEATURES`: the ticket, the distances from ``v`` to the detectives and police
where they stand, the exits of ``v``, the reveal slots); ``f`` is linear (multinomial logistic
regression) or a one-hidden-layer MLP with a linear skip, in numpy. A path's weight is the
product of ``p(t, v | u)`` over its steps, so the ticket Mr X showed counts as evidence too
(``joint=True``; ``joint=False`` normalizes over the destinations of the shown ticket only, as
the MCD softmax does).

Training (:func:`extract_steps`, :func:`fit`) reads game records with full visibility (Mr X's
true stations) and maximizes the log-likelihood of his moves; ``scripts/train_nets.py`` makes
its own self-play games through the arena and writes the weights the package ships
(``scotlandyard/data/mr_x_policy.npz``, :func:`default_model`). No torch at run time, or at
training time: the gradients are written out in numpy.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from io import BytesIO
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from ..belief import _replay
from ..board import Board, iter_bits, london
from ..move import MR_X
from ..rules import Rules
from ..view import PlayerView
from .belief_search import BLACK, on_possible

Array = npt.NDArray[np.float64]

TICKETS = ("taxi", "bus", "underground", "black")
DATA_FILE = "data/mr_x_policy.npz"
MODEL_VERSION = 1
#: The features of one single step ``(ticket t, station v)`` of Mr X (see :func:`step_features`).
FEATURES = (
    "ticket_taxi", "ticket_bus", "ticket_underground", "ticket_black",
    "dist_1", "dist_2", "dist_3", "dist_4", "dist_5plus",
    "hunters_at_1", "hunters_within_2",
    "log_exits", "has_underground", "has_bus",
    "black_on_reveal", "black_in_rounds_1_2",
    "dist_on_reveal", "dist_before_reveal",
)
N_FEATURES = len(FEATURES)


@dataclass(frozen=True)
class StepContext:
    """The public facts of one step of Mr X that the features read besides the stations:
    the bitset of the hunters' stations, whether this step's slot is a reveal, whether the next
    slot is, and whether the step fills log slot 1 or 2 (the first two rounds)."""

    occ: int
    reveal: bool
    next_reveal: bool
    early: bool


@cache
def _station_table(name: str) -> tuple[Array, tuple[tuple[int, ...], ...]]:
    """Per board: the static station features (log exits, has underground, has bus) and, per
    ticket, the bitset rows of its lines (black: any line, ferry included)."""
    board = london(name)
    n = board.stations + 1
    st = np.zeros((n, 3))
    for s in range(1, n):
        exits = board.masks[0][s] | board.masks[1][s] | board.masks[2][s]
        st[s, 0] = math.log1p(bin(exits).count("1"))
        st[s, 1] = 1.0 if board.neighbours[2][s] else 0.0
        st[s, 2] = 1.0 if board.neighbours[1][s] else 0.0
    rows = (board.masks[0], board.masks[1], board.masks[2], board.masks[4])
    return st, rows


def step_features(board: Board, ctx: StepContext) -> Array:
    """The feature array ``phi[t, v, k]`` of every single step (ticket ``t`` in 0..3 =
    taxi, bus, underground, black; station ``v``) under ``ctx``: shape (4, stations + 1,
    :data:`N_FEATURES`). Row ``v = 0`` is unused. Distances are on the detectives' network,
    capped at 5 (no hunter: 5)."""
    st, _ = _station_table(board.name)
    n = board.stations + 1
    hunters = iter_bits(ctx.occ)
    if hunters:
        rows = np.array([np.frombuffer(board.distance_row(h), dtype=np.uint8)[:n]
                         for h in hunters], dtype=np.int64)
        md = np.minimum(rows.min(axis=0), 5)
        at1 = (rows == 1).sum(axis=0).astype(np.float64)
        within2 = (rows <= 2).sum(axis=0).astype(np.float64)
    else:
        md = np.full(n, 5, dtype=np.int64)
        at1 = np.zeros(n)
        within2 = np.zeros(n)
    md = np.maximum(md, 1)
    base = np.zeros((n, N_FEATURES))
    base[np.arange(n), 3 + md] = 1.0  # dist_1 .. dist_5plus
    base[:, 9] = at1
    base[:, 10] = within2
    base[:, 11:14] = st
    mdf = md.astype(np.float64) / 5.0
    base[:, 16] = mdf if ctx.reveal else 0.0
    base[:, 17] = mdf if ctx.next_reveal else 0.0
    phi = np.repeat(base[None, :, :], 4, axis=0)
    for t in range(4):
        phi[t, :, t] = 1.0
    phi[BLACK, :, 14] = 1.0 if ctx.reveal else 0.0
    phi[BLACK, :, 15] = 1.0 if ctx.early else 0.0
    return phi


@dataclass(frozen=True)
class MrXPolicy:
    """A learned model of one step of Mr X: scores ``f(phi) = phi·w + v·tanh(phi W1 + b1)``
    (the hidden layer is absent when ``hidden`` is 0). ``meta`` says how it was trained."""

    w: Array
    w1: Array = field(default_factory=lambda: np.zeros((N_FEATURES, 0)))
    b1: Array = field(default_factory=lambda: np.zeros(0))
    v: Array = field(default_factory=lambda: np.zeros(0))
    meta: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        h = self.hidden
        if self.w.shape != (N_FEATURES,) or self.w1.shape != (N_FEATURES, h) or \
                self.b1.shape != (h,) or self.v.shape != (h,):
            raise ValueError(f"a Mr X policy needs w ({N_FEATURES},), w1 ({N_FEATURES}, H), "
                             f"b1 (H,), v (H,); got {self.w.shape}, {self.w1.shape}, "
                             f"{self.b1.shape}, {self.v.shape}")
        for a in (self.w, self.w1, self.b1, self.v):
            if not np.all(np.isfinite(a)):
                raise ValueError("a Mr X policy's weights must be finite numbers")

    @property
    def hidden(self) -> int:
        """Units of the hidden layer (0: a linear model)."""
        return int(self.w1.shape[1])

    @classmethod
    def uniform(cls) -> MrXPolicy:
        """Every legal single step equally likely."""
        return cls(np.zeros(N_FEATURES))

    def score(self, phi: Array) -> Array:
        """``f`` over the last axis of ``phi``."""
        out = phi @ self.w
        if self.hidden:
            out = out + np.tanh(phi @ self.w1 + self.b1) @ self.v
        return np.asarray(out, dtype=np.float64)

    def exp_scores(self, board: Board, ctx: StepContext) -> list[list[float]]:
        """``exp(f)`` of every single step under ``ctx``, as lists ``[t][v]`` (fast to index)."""
        s = self.score(step_features(board, ctx))
        s = s - s[:, 1:].max()
        return [row.tolist() for row in np.exp(s)]

    # ---- files ------------------------------------------------------------------------------
    def to_bytes(self) -> bytes:
        """The weights as an ``.npz`` file's bytes (with the feature names and ``meta``)."""
        import json

        buf = BytesIO()
        np.savez(buf, w=self.w, w1=self.w1, b1=self.b1, v=self.v,
                 features=np.array(FEATURES), version=np.array(MODEL_VERSION),
                 meta=np.array(json.dumps(dict(self.meta), sort_keys=True)))
        return buf.getvalue()

    def save(self, path: str | Path) -> Path:
        """Write the weights to ``path`` (``.npz``)."""
        p = Path(path)
        p.write_bytes(self.to_bytes())
        return p

    @classmethod
    def from_bytes(cls, data: bytes) -> MrXPolicy:
        """Read :meth:`to_bytes` output (checked: the version and the feature names)."""
        import json

        try:
            z = np.load(BytesIO(data), allow_pickle=False)
            version = int(z["version"])
            names = tuple(str(x) for x in z["features"])
            arrays = [np.asarray(z[k], dtype=np.float64) for k in ("w", "w1", "b1", "v")]
            meta = json.loads(str(z["meta"]))
        except (OSError, KeyError, ValueError) as exc:
            raise ValueError(f"not a Mr X policy file: {exc}") from None
        if version != MODEL_VERSION or names != FEATURES:
            raise ValueError(f"a Mr X policy file of version {version} with features "
                             f"{names}; this package reads version {MODEL_VERSION} with "
                             f"{FEATURES}: retrain it (scripts/train_nets.py)")
        w, w1, b1, v = arrays
        return cls(w, w1, b1, v, meta=meta)

    @classmethod
    def load(cls, path: str | Path) -> MrXPolicy:
        """Read a file written by :meth:`save`."""
        return cls.from_bytes(Path(path).read_bytes())


@cache
def default_model() -> MrXPolicy:
    """The model the package ships (``scotlandyard/data/mr_x_policy.npz``)."""
    data = resources.files("scotlandyard").joinpath(DATA_FILE).read_bytes()
    return MrXPolicy.from_bytes(data)


def resolve_model(spec: MrXPolicy | str | Path | None) -> MrXPolicy:
    """A model from a :class:`MrXPolicy`, a path, or ``None`` (the shipped one)."""
    if spec is None:
        return default_model()
    if isinstance(spec, MrXPolicy):
        return spec
    return MrXPolicy.load(spec)


# ---- one step of Mr X ---------------------------------------------------------------------------
def _hand(tickets: Sequence[int], unlimited: bool) -> list[int]:
    """The tickets 0..3 Mr X may pay a single step with (black always counted)."""
    return [t for t in range(4) if (t != BLACK and unlimited) or tickets[t] > 0]


def _targets(rows: tuple[tuple[int, ...], ...], u: int, t: int, occ: int) -> list[int]:
    return iter_bits(rows[t][u] & ~occ)


def step_options(board: Board, u: int, hand: Iterable[int], occ: int) -> list[tuple[int, int]]:
    """Mr X's single steps ``(ticket, station)`` from ``u`` with the tickets in ``hand``,
    onto stations no hunter holds (black: any line, ferry included)."""
    _, rows = _station_table(board.name)
    return [(t, v) for t in hand for v in _targets(rows, u, t, occ)]


def step_distribution(model: MrXPolicy, board: Board, u: int, hand: Iterable[int],
                      ctx: StepContext) -> dict[tuple[int, int], float]:
    """``p(t, v | u)`` over :func:`step_options` (sums to 1; empty if Mr X has no step)."""
    opts = step_options(board, u, hand, ctx.occ)
    if not opts:
        return {}
    e = model.exp_scores(board, ctx)
    z = sum(e[t][v] for t, v in opts)
    return {(t, v): e[t][v] / z for t, v in opts}


def _steps(rules: Rules, view: PlayerView) -> Iterator[tuple[str, Any]]:
    """The view's public history as ("land", station) and ("step", (ticket, revealed station
    or None, hand, ctx)) items, one per single step of Mr X (a double move gives two)."""
    for kind, data in _replay(view):
        if kind == "land":
            yield "land", data
            continue
        ev: Any = data
        tickets = list(ev.tickets)
        for i, (t, station, reveal) in enumerate(ev.steps):
            slot = ev.first_slot + i
            ctx = StepContext(ev.occ, bool(reveal), slot + 1 in rules.reveal_slots,
                              slot <= 2)
            yield "step", (int(t), station, tuple(_hand(tickets, rules.mr_x_unlimited)), ctx)
            if int(t) == BLACK or not rules.mr_x_unlimited:
                tickets[int(t)] -= 1


#: Steps kept by :func:`learned_weights` (about 25 a game: some 80 games at once).
MEMO_SIZE = 2048
_MEMO: dict[int, tuple[MrXPolicy, dict[int, float]]] = {}
_MEMO_LOCK = threading.Lock()


def learned_weights(view: PlayerView, model: MrXPolicy | str | Path | None = None,
                    joint: bool = True) -> dict[int, float]:
    """Probability of each station of ``view.possible`` when Mr X's paths that fit the public
    facts are weighted by ``model`` (the shipped one by default); sums to 1. ``joint``: the
    ticket he showed is evidence too (``p(t, v | u)``); otherwise ``p(v | u, t)``. Falls back
    to uniform over ``view.possible`` if every possible station gets zero weight."""
    m = resolve_model(model)
    board = london(view.rules.board)
    _, rows = _station_table(board.name)
    w: dict[int, float] = {s: 1.0 for s in view.start_candidates}
    # the weights after each step are kept (_MEMO), keyed by a running hash of the public
    # items so far: the next call, one detective's move later, computes only what is new.
    # The dicts in _MEMO are shared, so a landing copies before it removes a station.
    key = hash((id(m), joint, view.rules, view.start_candidates))
    for kind, data in _steps(view.rules, view):
        key = hash((key, kind, data))
        if kind == "land":
            if data in w:
                w = {s: x for s, x in w.items() if s != data}
            continue
        with _MEMO_LOCK:
            hit = _MEMO.get(key)
        if hit is not None and hit[0] is m:
            w = hit[1]
            continue
        t, station, hand, ctx = data
        if station is not None:
            w = {station: 1.0}
            continue
        e = m.exp_scores(board, ctx)
        et = e[t]
        occ = ctx.occ
        out: dict[int, float] = {}
        for u, p in w.items():
            dests = _targets(rows, u, t, occ)
            if not dests:
                continue
            if joint:
                z = 0.0
                for t2 in hand:
                    e2 = e[t2]
                    for v in _targets(rows, u, t2, occ):
                        z += e2[v]
            else:
                z = sum(et[v] for v in dests)
            for v in dests:
                out[v] = out.get(v, 0.0) + p * et[v] / z
        w = out
        with _MEMO_LOCK:
            _MEMO[key] = (m, w)
            if len(_MEMO) > MEMO_SIZE:
                del _MEMO[next(iter(_MEMO))]  # the oldest entry
    return on_possible(view, w)


def probe_view() -> PlayerView:
    """A fixed position (classic rules, seed 1, 12 random plies from ``random.Random(1)``):
    the first detective's view, with hidden moves of Mr X in its log. The trainer stores the
    model's :func:`learned_weights` here in the file's ``meta["probe"]``, so that a test can
    check that the shipped file, read back, gives what the trained model gave."""
    import random

    from ..game import Game

    game = Game.new(Rules.classic(), seed=1)
    rng = random.Random(1)
    for _ in range(12):
        moves = game.legal_moves()
        game.push(moves[rng.randrange(len(moves))])
    while game.to_move != game.rules.hunters[0]:
        moves = game.legal_moves()
        game.push(moves[rng.randrange(len(moves))])
    return game.view(game.rules.hunters[0])


def probe(model: MrXPolicy) -> list[list[float]]:
    """``[station, weight]`` of :func:`learned_weights` at :func:`probe_view` under ``model``."""
    return [[float(s), float(w)] for s, w in sorted(learned_weights(probe_view(), model).items())]


# ---- training data ------------------------------------------------------------------------------
@dataclass
class StepData:
    """Mr X's single steps as a conditional-logit data set: ``phi`` (options × features), the
    options of step ``i`` at rows ``start[i]:start[i + 1]``, the chosen one at ``chosen[i]``
    (a row index); ``game`` is the index of the game each step came from."""

    phi: Array
    start: npt.NDArray[np.int64]
    chosen: npt.NDArray[np.int64]
    game: npt.NDArray[np.int64]

    @property
    def steps(self) -> int:
        """How many steps."""
        return int(self.chosen.shape[0])

    def subset(self, games: Iterable[int]) -> StepData:
        """The steps of the given games."""
        keep = set(games)
        idx = [i for i in range(self.steps) if int(self.game[i]) in keep]
        parts: list[Array] = []
        start = [0]
        chosen = []
        for i in idx:
            a, b = int(self.start[i]), int(self.start[i + 1])
            chosen.append(start[-1] + int(self.chosen[i]) - a)
            parts.append(self.phi[a:b])
            start.append(start[-1] + b - a)
        phi = np.concatenate(parts) if parts else np.zeros((0, N_FEATURES))
        return StepData(phi, np.array(start, dtype=np.int64), np.array(chosen, dtype=np.int64),
                        self.game[idx] if idx else np.zeros(0, dtype=np.int64))


def mr_x_steps(view: PlayerView) -> Iterator[tuple[int, int, int, list[int], StepContext]]:
    """Mr X's single steps in a view that shows his stations (his own view, or any view of a
    finished game with everything shown): ``(u, ticket, v, hand, ctx)`` each, ``u`` the station
    he stepped from."""
    truth = [s for h in view.history if h.piece == MR_X and h.take is None for s in h.steps]
    if view.start.get(MR_X) is None or any(s is None for _t, s in truth):
        raise ValueError("Mr X's steps need a view that shows his stations (a record with "
                         "full visibility)")
    u = view.start[MR_X]
    k = 0
    for kind, data in _steps(view.rules, view):
        if kind != "step":
            continue
        t, _station, hand, ctx = data
        v = truth[k][1]
        assert v is not None
        k += 1
        yield u, t, v, hand, ctx
        u = v


def extract_steps(views: Iterable[PlayerView]) -> StepData:
    """The conditional-logit data set of Mr X's single steps in ``views`` (one view per game,
    see :func:`mr_x_steps`). A step with a single option teaches nothing and is left out."""
    parts: list[Array] = []
    start = [0]
    chosen: list[int] = []
    game: list[int] = []
    for g, view in enumerate(views):
        board = london(view.rules.board)
        for u, t, v, hand, ctx in mr_x_steps(view):
            opts = step_options(board, u, hand, ctx.occ)
            if len(opts) < 2 or (t, v) not in opts:
                continue
            phi = step_features(board, ctx)
            ts = np.array([o[0] for o in opts])
            vs = np.array([o[1] for o in opts])
            chosen.append(start[-1] + opts.index((t, v)))
            parts.append(phi[ts, vs])
            start.append(start[-1] + len(opts))
            game.append(g)
    phi_all = np.concatenate(parts) if parts else np.zeros((0, N_FEATURES))
    return StepData(phi_all, np.array(start, dtype=np.int64), np.array(chosen, dtype=np.int64),
                    np.array(game, dtype=np.int64))


# ---- fitting ------------------------------------------------------------------------------------
def log_likelihood(model: MrXPolicy, data: StepData) -> float:
    """Mean log-probability per step of Mr X's chosen steps under ``model``."""
    if data.steps == 0:
        return 0.0
    s = model.score(data.phi)
    seg = data.start[:-1]
    mx = np.maximum.reduceat(s, seg)
    lens = np.diff(data.start)
    e = np.exp(s - np.repeat(mx, lens))
    lz = np.log(np.add.reduceat(e, seg)) + mx
    return float(np.mean(s[data.chosen] - lz))


def _unpack(theta: Array, hidden: int) -> tuple[Array, Array, Array, Array]:
    f = N_FEATURES
    w = theta[:f]
    w1 = theta[f:f + f * hidden].reshape(f, hidden)
    b1 = theta[f + f * hidden:f + f * hidden + hidden]
    v = theta[f + f * hidden + hidden:]
    return w, w1, b1, v


def _loss_grad(theta: Array, data: StepData, hidden: int, l2: float) -> tuple[float, Array]:
    """Negative mean log-likelihood plus ``l2``·|theta|²/2, and its gradient."""
    w, w1, b1, v = _unpack(theta, hidden)
    phi = data.phi
    s = phi @ w
    if hidden:
        h = np.tanh(phi @ w1 + b1)
        s = s + h @ v
    seg = data.start[:-1]
    lens = np.diff(data.start)
    mx = np.maximum.reduceat(s, seg)
    e = np.exp(s - np.repeat(mx, lens))
    z = np.add.reduceat(e, seg)
    p = e / np.repeat(z, lens)
    n = data.steps
    loss = -float(np.sum(s[data.chosen] - np.log(z) - mx)) / n
    ds = p.copy()
    ds[data.chosen] -= 1.0
    ds /= n  # d loss / d score of every option
    gw = phi.T @ ds
    if hidden:
        gv = h.T @ ds
        dh = np.outer(ds, v) * (1.0 - h * h)
        gw1 = phi.T @ dh
        gb1 = dh.sum(axis=0)
        grad = np.concatenate([gw, gw1.ravel(), gb1, gv])
    else:
        grad = gw
    loss += 0.5 * l2 * float(theta @ theta)
    return loss, grad + l2 * theta


def fit(data: StepData, hidden: int = 0, *, l2: float = 1e-3, steps: int = 400,
        lr: float = 0.05, seed: int = 0, meta: Mapping[str, Any] | None = None) -> MrXPolicy:
    """Fit a :class:`MrXPolicy` to ``data`` by maximum likelihood (full-batch Adam, ``steps``
    steps, L2 penalty ``l2``), starting from the uniform model (and small random hidden
    weights, from ``seed``)."""
    if data.steps == 0:
        raise ValueError("no Mr X steps to learn from")
    rng = np.random.default_rng(seed)
    f = N_FEATURES
    theta = np.concatenate([np.zeros(f), rng.normal(0.0, 0.3, f * hidden),
                            np.zeros(hidden), rng.normal(0.0, 0.1, hidden)])
    m = np.zeros_like(theta)
    s2 = np.zeros_like(theta)
    b1, b2, eps = 0.9, 0.999, 1e-8
    for k in range(1, steps + 1):
        _loss, g = _loss_grad(theta, data, hidden, l2)
        m = b1 * m + (1 - b1) * g
        s2 = b2 * s2 + (1 - b2) * g * g
        theta = theta - lr * (m / (1 - b1 ** k)) / (np.sqrt(s2 / (1 - b2 ** k)) + eps)
    w, w1, b1a, v = _unpack(theta, hidden)
    return MrXPolicy(w.copy(), w1.copy(), b1a.copy(), v.copy(), meta=dict(meta or {}))


def mcd_softmax_log_likelihood(data: StepData, beta: float = 1.0) -> float:
    """Mean log-probability per step of the chosen steps under ``exp(beta * distance to the
    nearest hunter)`` over all of Mr X's single steps (the MCD softmax of
    :func:`.belief_search.policy_weights`, as a model of the whole step), for comparison."""
    d = data.phi[:, 4:9] @ np.arange(1.0, 6.0)
    model_scores = beta * d
    seg = data.start[:-1]
    lens = np.diff(data.start)
    mx = np.maximum.reduceat(model_scores, seg)
    e = np.exp(model_scores - np.repeat(mx, lens))
    lz = np.log(np.add.reduceat(e, seg)) + mx
    return float(np.mean(model_scores[data.chosen] - lz)) if data.steps else 0.0
