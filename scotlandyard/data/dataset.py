"""Game datasets as arena run folders: generate games of strong agents, read them back as
records or as the environments' arrays (``scotlandyard.data`` re-exports these)."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:  # imported where used: loading the data module stays light
    from ..ai.arena import ArenaResult
    from ..record import Record

DATASET_VERSION = "sy-games-1"
STRONGEST = ("mcts", {"playouts": 2000})
"""The default players: the package's MCTS (its best settings, stronger than the paper's)
at 2,000 iterations a move, both sides: the strongest agent with a fixed,
machine-independent budget."""


def generate(out: str | Path, games: int = 10_000, *, mr_x: str = STRONGEST[0],
             detectives: str = STRONGEST[0], mr_x_options: dict[str, Any] | None = None,
             detectives_options: dict[str, Any] | None = None, preset: str = "classic",
             seed: int = 0, workers: int = 1, backend: str = "local",
             progress: bool = True) -> ArenaResult:
    """Play ``games`` games into the folder ``out`` (resumed if it exists); returns the
    :class:`~scotlandyard.ai.arena.ArenaResult`. Options default to :data:`STRONGEST`'s when
    the agent is the default one."""
    from ..ai.arena import ArenaConfig, as_backend, run_arena
    from ..rules import Rules

    if mr_x_options is None:
        mr_x_options = dict(STRONGEST[1]) if mr_x == STRONGEST[0] else {}
    if detectives_options is None:
        detectives_options = dict(STRONGEST[1]) if detectives == STRONGEST[0] else {}
    config = ArenaConfig(mr_x=mr_x, detectives=detectives, mr_x_options=mr_x_options,
                         detectives_options=detectives_options, games=games,
                         rules=Rules.preset(preset), seed=seed, workers=workers,
                         backend=as_backend(backend))
    return run_arena(config, out, progress=progress)


def _files(path: str | Path) -> list[Path]:
    p = Path(path)
    if p.is_file():
        return [p]
    if not p.is_dir():
        raise FileNotFoundError(f"no dataset at {p} (a folder of games/*.json, or one record file)")
    folder = p / "games" if (p / "games").is_dir() else p
    return sorted(f for f in folder.iterdir() if f.suffix == ".json")


def games(path: str | Path, limit: int | None = None) -> Iterator[Record]:
    """The :class:`~scotlandyard.record.Record` of every game in ``path`` (a dataset folder,
    a folder of record files, or one file), in file order; at most ``limit``. A broken file
    raises :class:`~scotlandyard.record.RecordError` naming it."""
    from ..record import Record, RecordError

    for k, f in enumerate(_files(path)):
        if limit is not None and k >= limit:
            return
        try:
            yield Record.load(f)
        except RecordError as exc:
            raise RecordError(f"{f}: {exc}") from None


def _game_decisions(path: str | Path, side: str, limit: int | None, winners_only: bool,
                    probability: bool, board_features: bool
                    ) -> Iterator[tuple[int, dict[str, Any]]]:
    """Per game of ``path`` (file index, the decisions of ``side`` in it as lists); the layout
    size of the observation comes with each game's rows (``"size"``)."""
    from ..env.encoding import Encoder
    from ..env.match import Match

    if side not in ("mr_x", "detectives"):
        raise ValueError(f"side is 'mr_x' or 'detectives', not {side!r}")
    encoders: dict[Any, Encoder] = {}
    for gi, record in enumerate(games(path, limit)):
        game = record.replay()
        outcome = game.outcome()
        win = int(outcome is not None and outcome.winner == side)
        if winners_only and not win:
            continue
        rules = game.rules
        enc = encoders.get(rules)
        if enc is None:
            enc = encoders[rules] = Encoder(rules, probability=probability,
                                            board_features=board_features)
        rows: dict[str, Any] = {"obs": [], "action": [], "legal": [], "round": [],
                                "size": enc.layout.size}
        m = Match(rules)
        m.reset(start=dict(game.start))
        for _piece, move in game.moves:
            target = m.game.ply + 1
            while m.game.ply < target:
                sel = m.selected
                assert sel is not None
                mine = (sel == "X") == (side == "mr_x")
                a = m.action_toward(move)
                if mine:
                    rows["obs"].append(enc.encode(m.game, sel, selected=sel,
                                                  pending=m.pending if sel == "X" else None))
                    rows["action"].append(a)
                    rows["legal"].append(list(m.legal_actions()))
                    rows["round"].append(m.game.round)
                m.apply(a)
        rows["won"] = win
        yield gi, rows


def _as_arrays(chunk: list[tuple[int, dict[str, Any]]], size: int) -> dict[str, np.ndarray]:
    """The decisions of ``chunk`` (games) as :func:`arrays` gives them."""
    obs = [o for _, r in chunk for o in r["obs"]]
    legal = [x for _, r in chunk for x in r["legal"]]
    offsets = np.zeros(len(legal) + 1, np.int64)
    np.cumsum([len(x) for x in legal], out=offsets[1:])
    return {
        "obs": np.array(obs, np.float32).reshape(len(obs), size),
        "action": np.array([a for _, r in chunk for a in r["action"]], np.int64),
        "legal": np.array([a for x in legal for a in x], np.int16),
        "legal_offsets": offsets,
        "game": np.array([gi for gi, r in chunk for _ in r["action"]], np.int32),
        "round": np.array([x for _, r in chunk for x in r["round"]], np.int16),
        "won": np.array([r["won"] for _, r in chunk for _ in r["action"]], np.int8),
    }


def arrays(path: str | Path, side: str = "mr_x", *, limit: int | None = None,
           winners_only: bool = False, probability: bool = False,
           board_features: bool = False) -> dict[str, np.ndarray]:
    """Every decision of ``side`` (``"mr_x"`` or ``"detectives"``) in the games of ``path``,
    as the envs ask it: ``obs`` ``float32[N, size]`` (layout ``sy-obs-1`` with the given
    options), ``action`` ``int64[N]`` (the env action the player took: a double move is two
    decisions, a free-order move may follow ``defer`` decisions), the legal actions in CSR
    form (``legal[legal_offsets[i]:legal_offsets[i+1]]``), ``game`` (file index), ``round``
    and ``won`` (1 if ``side`` won that game). ``winners_only`` keeps the winners' games.
    All in memory: :func:`write_parquet` writes them to a file read in chunks."""
    chunk = list(_game_decisions(path, side, limit, winners_only, probability,
                                 board_features))
    return _as_arrays(chunk, chunk[0][1]["size"] if chunk else 0)


def summary(path: str | Path) -> dict[str, Any]:
    """Summary statistics of a dataset: games, who played, win shares and reasons, rounds,
    moves, Mr X's double moves and black tickets."""
    n = 0
    wins: Counter[str] = Counter()
    reasons: Counter[str] = Counter()
    rounds: list[int] = []
    plies: list[int] = []
    doubles = blacks = 0
    players: Counter[str] = Counter()
    for record in games(path):
        game = record.replay()
        out = game.outcome()
        n += 1
        if out is not None:
            wins[out.winner] += 1
            reasons[f"{out.winner}: {out.reason}"] += 1
            rounds.append(out.round)
        plies.append(game.ply)
        for piece, mv in game.moves:
            if piece == "X":
                doubles += mv.is_double
                blacks += int(mv.ticket == 3) + int(mv.ticket2 == 3)
        players[f"{record.players.get('X', '?')} vs {record.players.get('D1', '?')}"] += 1
    cfg_file = Path(path) / "config.json"
    config = json.loads(cfg_file.read_text()) if cfg_file.is_file() else None
    return {
        "version": DATASET_VERSION, "games": n, "players": dict(players),
        "mr_x_win_share": round(wins["mr_x"] / n, 3) if n else None,
        "reasons": dict(reasons),
        "mean_round": round(float(np.mean(rounds)), 2) if rounds else None,
        "mean_moves": round(float(np.mean(plies)), 1) if plies else None,
        "double_moves_per_game": round(doubles / n, 2) if n else None,
        "black_tickets_per_game": round(blacks / n, 2) if n else None,
        "config": config,
    }
