"""The arena: many games between two agents, on a local process pool or on Ray.

Every game of a run is a pure function of the run's configuration and the game's index: game
``i`` draws its start stations and each side's random generator from seeds derived from
``(config.seed, i)``, so a seeded run gives the same games on one worker, on eight, or on Ray,
in any order (budgets in seconds excepted: they depend on the machine's speed).

A run writes into one folder::

    runs/NAME/
      config.json        what decides the games (and its hash)
      manifest.jsonl     one line per finished game: index, config hash, outcome, timings
      games/000000.json  every game's record
      results.json       win rates (Wilson 95% interval), outcome reasons, length, time per move
      results.txt        the same as readable tables
      winrates.png       with ``plot=True`` / ``--plot``

Running again with the same configuration resumes: games already in the manifest are not
played again. A different configuration in the same folder is refused (:class:`ArenaError`).

>>> from scotlandyard.ai.arena import ArenaConfig, run_arena
>>> import tempfile
>>> result = run_arena(ArenaConfig(games=4, seed=1), tempfile.mkdtemp(), progress=False)
>>> result.recorded
4
"""

from __future__ import annotations

import concurrent.futures as cf
import hashlib
import json
import multiprocessing
import os
import random
import time
import traceback
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from ..game import Game
from ..move import Move
from ..record import Record
from ..rules import Rules, RulesError
from .base import Budget, make_agent
from .stats import WinRate, describe_numbers

__all__ = [
    "ArenaConfig", "ArenaError", "ArenaResult", "GameResult", "play_game", "run_arena",
    "game_seed", "parse_options", "plot_results", "SIDES",
]

SIDES: tuple[str, str] = ("mr_x", "detectives")
SIDE_NAMES = {"mr_x": "Mr X", "detectives": "detectives"}
Backend = Literal["local", "ray"]

# Bump when the way games are derived from a config changes (seeds, agent calls): runs made
# before would no longer be reproduced, so their folders must not be resumed.
ARENA_SCHEME = 1


class ArenaError(ValueError):
    """A bad arena configuration, an unusable output folder, or a failed backend."""


def game_seed(run_seed: int, index: int, purpose: str) -> int:
    """The seed of one random stream of game ``index``: ``purpose`` is ``"start"``,
    ``"mr_x"`` or ``"detectives"``. Independent of worker count and order."""
    digest = hashlib.sha256(f"scotlandyard-arena/{run_seed}/{index}/{purpose}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def _canonical(data: Any) -> str:
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def _check_options(side: str, options: Any) -> dict[str, Any]:
    if not isinstance(options, Mapping):
        raise ArenaError(f"{side} options are a mapping of name to value, not {options!r}")
    out: dict[str, Any] = {}
    for key, value in options.items():
        if not isinstance(key, str) or not key.isidentifier():
            raise ArenaError(f"{side} option name {key!r} is not a valid name (letters, digits, _)")
        try:
            _canonical(value)
        except (TypeError, ValueError):
            raise ArenaError(f"{side} option {key}={value!r} is not a JSON value "
                             "(number, text, true/false, null, list)") from None
        out[key] = value
    return out


@dataclass(frozen=True)
class ArenaConfig:
    """One arena run: which agents play which side, under which rules, how many games.

    ``budget`` is playouts per move, ``seconds`` a time limit per move (both may be set:
    whichever ends first). ``workers`` and ``backend`` say where the games run; they do not
    change the games, so they are not part of :attr:`config_hash`.
    """

    mr_x: str = "random"
    detectives: str = "random"
    games: int = 100
    rules: Rules = field(default_factory=Rules.classic)
    mr_x_options: Mapping[str, Any] = field(default_factory=dict)
    detectives_options: Mapping[str, Any] = field(default_factory=dict)
    budget: int | None = None
    seconds: float | None = None
    seed: int = 0
    workers: int = 1
    backend: Backend = "local"
    ray_address: str | None = None

    def __post_init__(self) -> None:
        def is_int(x: Any) -> bool:
            return isinstance(x, int) and not isinstance(x, bool)

        for side in SIDES:
            name = getattr(self, side)
            if not isinstance(name, str) or not name:
                raise ArenaError(f"the {SIDE_NAMES[side]} agent is a registered name, not {name!r}")
            opts = _check_options(SIDE_NAMES[side], getattr(self, f"{side}_options"))
            object.__setattr__(self, f"{side}_options", opts)  # an own copy: the config is a value
        if not isinstance(self.rules, Rules):
            raise ArenaError(f"rules is a Rules value, not {type(self.rules).__name__}")
        if not is_int(self.games) or self.games < 1:
            raise ArenaError(f"games is a whole number >= 1, not {self.games!r}")
        if not is_int(self.seed):
            raise ArenaError(f"seed is a whole number, not {self.seed!r}")
        if not is_int(self.workers) or self.workers < 1:
            raise ArenaError(f"workers is a whole number >= 1, not {self.workers!r}")
        if self.backend not in ("local", "ray"):
            raise ArenaError(f"backend is 'local' or 'ray', not {self.backend!r}")
        if isinstance(self.seconds, int) and not isinstance(self.seconds, bool):
            object.__setattr__(self, "seconds", float(self.seconds))
        try:
            Budget(playouts=self.budget, seconds=self.seconds)
        except ValueError as exc:
            raise ArenaError(str(exc)) from None

    # ---- identity -------------------------------------------------------------------------
    def identity(self) -> dict[str, Any]:
        """Everything that decides the games (what :attr:`config_hash` hashes)."""
        return {
            "scheme": ARENA_SCHEME,
            "rules": self.rules.to_dict(),
            "mr_x": self.mr_x,
            "detectives": self.detectives,
            "mr_x_options": dict(self.mr_x_options),
            "detectives_options": dict(self.detectives_options),
            "budget": self.budget,
            "seconds": self.seconds,
            "seed": self.seed,
        }

    @property
    def config_hash(self) -> str:
        """A short hash of :meth:`identity`: runs with equal hashes play equal games."""
        return hashlib.sha256(_canonical(self.identity()).encode()).hexdigest()[:16]

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON values (what ``config.json`` holds, with the hash)."""
        data = self.identity()
        del data["scheme"]
        data.update(games=self.games, workers=self.workers, backend=self.backend,
                    ray_address=self.ray_address)
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ArenaConfig:
        """Rebuild from :meth:`to_dict` output (validated)."""
        if not isinstance(data, Mapping):
            raise ArenaError("an arena config is an object of settings")
        known = {"rules", "mr_x", "detectives", "mr_x_options", "detectives_options", "budget",
                 "seconds", "seed", "games", "workers", "backend", "ray_address"}
        unknown = set(data) - known - {"config_hash", "scheme"}
        if unknown:
            raise ArenaError(f"unknown arena setting(s): {', '.join(sorted(unknown))}")
        kw = {k: v for k, v in data.items() if k in known}
        if "rules" in kw:
            try:
                kw["rules"] = Rules.from_dict(kw["rules"])
            except (RulesError, TypeError) as exc:
                raise ArenaError(f"bad rules in arena config: {exc}") from None
        return cls(**kw)

    # ---- helpers --------------------------------------------------------------------------
    @property
    def budget_value(self) -> Budget:
        """The per-move :class:`~scotlandyard.ai.Budget` given to both agents."""
        return Budget(playouts=self.budget, seconds=self.seconds)

    def agent_label(self, side: str) -> str:
        """``name`` or ``name(key=value, ...)``: how records and tables name a side's player."""
        name = getattr(self, side)
        opts = getattr(self, f"{side}_options")
        if not opts:
            return name
        return f"{name}({', '.join(f'{k}={_canonical(v)}' for k, v in sorted(opts.items()))})"

    def players(self) -> dict[str, str]:
        """Each piece's player label, as game records store it."""
        return {p: self.agent_label("mr_x" if p == "X" else "detectives")
                for p in self.rules.pieces}

    def describe(self) -> str:
        """One line for people: who plays whom under which rules."""
        r = self.rules
        pieces = f"{r.detectives} detectives" + (f" + {r.police} police" if r.police else "")
        budget = []
        if self.budget is not None:
            budget.append(f"{self.budget} playouts")
        if self.seconds is not None:
            budget.append(f"{self.seconds:g} s")
        return (f"{self.agent_label('mr_x')} (Mr X) vs {self.agent_label('detectives')} "
                f"(detectives), {r.edition} {r.variant}, {pieces}, seed {self.seed}, "
                f"budget {' / '.join(budget) if budget else 'agent default'} per move")

    def make_agents(self) -> dict[str, Any]:
        """Build both sides' agents with their options; :class:`ArenaError` says which side
        and why when the name is unknown or the options are refused."""
        agents = {}
        for side in SIDES:
            name = getattr(self, side)
            opts = dict(getattr(self, f"{side}_options"))
            try:
                agents[side] = make_agent(name, side, **opts)
            except Exception as exc:  # the factory's own words say what is wrong
                shown = ", ".join(f"{k}={v!r}" for k, v in opts.items()) or "no options"
                raise ArenaError(f"cannot make the {SIDE_NAMES[side]} agent {name!r} "
                                 f"({shown}): {exc}") from None
        return agents


# ---- one game ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class GameResult:
    """What the arena keeps of one game (a manifest line): outcome, length and timings.

    ``error`` is set when an agent failed (raised, or returned a move that is not legal):
    the game is then unfinished and counts for no side.
    """

    index: int
    seed: int
    winner: str | None
    reason: str | None
    round: int
    plies: int
    moves: Mapping[str, int]
    think: Mapping[str, float]
    think_max: Mapping[str, float]
    error: str | None = None
    error_detail: str | None = None
    record: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON values."""
        return {
            "index": self.index, "seed": self.seed, "winner": self.winner, "reason": self.reason,
            "round": self.round, "plies": self.plies, "moves": dict(self.moves),
            "think": dict(self.think), "think_max": dict(self.think_max), "error": self.error,
            "error_detail": self.error_detail, "record": self.record,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> GameResult:
        """Rebuild from :meth:`to_dict` output."""
        return cls(
            index=int(data["index"]), seed=int(data["seed"]), winner=data["winner"],
            reason=data["reason"], round=int(data["round"]), plies=int(data["plies"]),
            moves=dict(data["moves"]), think=dict(data["think"]),
            think_max=dict(data["think_max"]), error=data.get("error"),
            error_detail=data.get("error_detail"), record=data.get("record"),
        )

    def with_record(self, record: str) -> GameResult:
        """The same result pointing at its record file."""
        return GameResult(**{**self.__dict__, "record": record})


def play_game(config: ArenaConfig, index: int) -> tuple[GameResult, str, str]:
    """Play game ``index`` of ``config``; returns the result, the record's text and the record
    file's suffix. Agents see only ``game.view(piece)`` and the legal moves."""
    start_seed = game_seed(config.seed, index, "start")
    game = Game.new(config.rules, seed=start_seed)
    agents = config.make_agents()
    rngs = {side: random.Random(game_seed(config.seed, index, side)) for side in SIDES}
    budget = config.budget_value
    moves = dict.fromkeys(SIDES, 0)
    think = dict.fromkeys(SIDES, 0.0)
    think_max = dict.fromkeys(SIDES, 0.0)
    error = detail = None
    while not game.is_over():
        piece = game.to_move
        side = game.side_to_move
        assert piece is not None and side is not None
        legal = game.legal_moves()
        view = game.view(piece)
        t0 = time.perf_counter()
        try:
            move = agents[side].choose(view, legal, rngs[side], budget)
        except Exception as exc:
            error = (f"{piece}'s agent {config.agent_label(side)} raised {type(exc).__name__} at ply {game.ply + 1} "
                     f"(round {game.round}): {exc}")
            detail = traceback.format_exc(limit=20)
            break
        dt = time.perf_counter() - t0
        moves[side] += 1
        think[side] += dt
        think_max[side] = max(think_max[side], dt)
        if not isinstance(move, Move) or move not in legal:
            why = game.why_illegal(move) if isinstance(move, Move) else None
            shown = move.notation() if isinstance(move, Move) else repr(move)
            error = (f"{piece}'s agent {config.agent_label(side)} returned an illegal move {shown} at ply "
                     f"{game.ply + 1} (round {game.round}): "
                     f"{why or 'not among the legal moves it was given'}")
            break
        game.push(move)
    outcome = game.outcome()
    event = f"arena {config.config_hash} game {index}"
    suffix, text = _record_of(game, config.players(), event)
    result = GameResult(
        index=index, seed=start_seed,
        winner=outcome.winner if outcome else None, reason=outcome.reason if outcome else None,
        round=outcome.round if outcome else game.round, plies=game.ply, moves=moves,
        think={k: round(v, 6) for k, v in think.items()},
        think_max={k: round(v, 6) for k, v in think_max.items()},
        error=error, error_detail=detail,
    )
    return result, text, suffix


def _record_of(game: Game, players: dict[str, str], event: str) -> tuple[str, str]:
    """The game's full record (JSON) as (file suffix, text)."""
    return ".json", Record.from_game(game, players=players, event=event).to_json()


# ---- backends --------------------------------------------------------------------------------
_WORKER_CONFIG: ArenaConfig | None = None


def _init_worker(config: ArenaConfig) -> None:
    global _WORKER_CONFIG
    _WORKER_CONFIG = config


def _worker_play(index: int) -> tuple[GameResult, str, str]:
    assert _WORKER_CONFIG is not None, "worker started without its config"
    return play_game(_WORKER_CONFIG, index)


_Played = tuple[GameResult, str, str]


def _run_local(config: ArenaConfig, todo: list[int]) -> Iterator[_Played | None]:
    # Each backend generator yields None once its set-up is done (see _run_games).
    if config.workers == 1 or len(todo) <= 1:
        yield None
        for i in todo:
            yield play_game(config, i)
        return
    # The platform's default start method: fork on Linux (fast, and agents registered at run
    # time reach the workers), spawn on macOS and Windows (scripts need the usual
    # ``if __name__ == "__main__":`` guard there). The pool starts all its workers at the
    # first submit, before the progress bar starts its thread.
    pool = cf.ProcessPoolExecutor(max_workers=min(config.workers, len(todo)),
                                  mp_context=multiprocessing.get_context(),
                                  initializer=_init_worker, initargs=(config,))
    queue = iter(todo)
    pending: dict[cf.Future, int] = {}
    try:
        for i in queue:
            pending[pool.submit(_worker_play, i)] = i
            if len(pending) >= 4 * config.workers:
                break
        yield None
        while pending:
            done, _ = cf.wait(pending, return_when=cf.FIRST_COMPLETED)
            for fut in done:
                index = pending.pop(fut)
                try:
                    played = fut.result()
                except cf.process.BrokenProcessPool as exc:
                    raise ArenaError(f"a worker process died ({exc}); the games recorded so far "
                                     "are kept, run again to resume") from None
                except Exception as exc:
                    raise _worker_failure(index, exc) from exc
                yield played
                nxt = next(queue, None)
                if nxt is not None:
                    pending[pool.submit(_worker_play, nxt)] = nxt
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _worker_failure(index: int, exc: BaseException) -> ArenaError:
    """A game that failed outside the agents' moves (agents are caught in play_game)."""
    return ArenaError(f"game {index} failed in a worker ({type(exc).__name__}: {exc}); the "
                      "games recorded so far are kept. Agents registered at run time reach "
                      "spawned and Ray workers only if a module they import registers them.")


def _ray_play(config: ArenaConfig, index: int) -> tuple[GameResult, str, str]:
    return play_game(config, index)


def _run_ray(config: ArenaConfig, todo: list[int]) -> Iterator[_Played | None]:
    try:
        import ray
    except ImportError:
        raise ArenaError("the ray backend needs Ray: pip install 'scotlandyard[ray]' "
                         "(or use the local backend)") from None
    started = False
    if not ray.is_initialized():
        kw: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False}
        if config.ray_address:
            kw["address"] = config.ray_address
        else:
            kw["num_cpus"] = config.workers
        try:
            ray.init(**kw)
        except Exception as exc:
            raise ArenaError(f"cannot start Ray ({type(exc).__name__}: {exc})") from None
        started = True
    try:
        task = ray.remote(num_cpus=1, max_retries=0)(_ray_play)
        cfg = ray.put(config)
        queue = iter(todo)
        limit = 4 * max(config.workers, int(ray.cluster_resources().get("CPU", 1)))
        pending = {task.remote(cfg, i): i for _, i in zip(range(limit), queue, strict=False)}
        try:
            yield None
            while pending:
                done, _ = ray.wait(list(pending), num_returns=1)
                for ref in done:
                    index = pending.pop(ref)
                    try:
                        played = ray.get(ref)
                    except Exception as exc:
                        cause = getattr(exc, "cause", None) or exc  # RayTaskError wraps it
                        raise _worker_failure(index, cause) from None
                    yield played
                    nxt = next(queue, None)
                    if nxt is not None:
                        pending[task.remote(cfg, nxt)] = nxt
        finally:
            for ref in pending:
                ray.cancel(ref, force=True)
    finally:
        if started:
            ray.shutdown()


def _run_games(config: ArenaConfig, todo: list[int]) -> Iterator[_Played | None]:
    """The games of ``todo`` as they finish, from the config's backend. The backend is set up
    (pool started, Ray joined) before this returns; ``close()`` the iterator to stop it."""
    games = _run_ray(config, todo) if config.backend == "ray" else _run_local(config, todo)
    next(games)  # the set-up: errors surface here, and no thread of ours exists yet
    return games


# ---- the run folder -------------------------------------------------------------------------
class _RunFolder:
    """config.json + manifest.jsonl + games/: what makes a run resumable."""

    def __init__(self, out: Path, config: ArenaConfig) -> None:
        self.out = out
        self.config = config
        self.hash = config.config_hash
        self.manifest = out / "manifest.jsonl"
        self.games_dir = out / "games"
        self.done: dict[int, GameResult] = {}

    def open(self) -> None:
        out = self.out
        if out.exists() and not out.is_dir():
            raise ArenaError(f"{out} is a file, not a folder for the arena's output")
        cfg_path = out / "config.json"
        if cfg_path.exists():
            try:
                old = json.loads(cfg_path.read_text())
                old_hash = old["config_hash"]
            except (OSError, ValueError, KeyError, TypeError) as exc:
                raise ArenaError(f"{cfg_path} is unreadable ({exc}); use another --out folder") from None
            if old_hash != self.hash:
                raise ArenaError(self._difference(out, old, old_hash))
        elif self.manifest.exists():
            raise ArenaError(f"{out} holds a manifest but no config.json; use another --out folder")
        self.games_dir.mkdir(parents=True, exist_ok=True)
        data = {**self.config.to_dict(), "config_hash": self.hash, "scheme": ARENA_SCHEME}
        _write_atomic(cfg_path, json.dumps(data, indent=2) + "\n")
        self._load_manifest()

    def _difference(self, out: Path, old: dict[str, Any], old_hash: str) -> str:
        new = {**self.config.to_dict(), "scheme": ARENA_SCHEME}
        ignore = {"games", "workers", "backend", "ray_address", "config_hash"}
        diffs = []
        for key in sorted((set(old) | set(new)) - ignore):
            if _canonical(old.get(key)) != _canonical(new.get(key)):
                if key == "rules" and isinstance(old.get(key), dict):
                    for rk in sorted(set(old[key]) | set(new[key])):
                        a, b = old[key].get(rk), new[key].get(rk)
                        if _canonical(a) != _canonical(b):
                            diffs.append(f"rules.{rk}: {_canonical(a)} -> {_canonical(b)}")
                else:
                    diffs.append(f"{key}: {_canonical(old.get(key))} -> {_canonical(new.get(key))}")
        return (f"{out} holds an arena run with another configuration (hash {old_hash}, this one "
                f"is {self.hash}): {'; '.join(diffs) or 'arena version changed'}. Resume it with "
                "the same settings, or give another --out folder.")

    def _load_manifest(self) -> None:
        if not self.manifest.exists():
            return
        good: list[str] = []
        broken = False
        for line in self.manifest.read_text().splitlines():
            if not line.strip():
                continue
            try:
                entry = json.loads(line)
                result = GameResult.from_dict(entry["game"])
                if entry["config_hash"] != self.hash:
                    raise ValueError("another config")
            except (ValueError, KeyError, TypeError):
                broken = True  # a line cut short by an interrupted write: that game is replayed
                continue
            if result.record is None or not (self.out / result.record).exists():
                broken = True
                continue
            self.done[result.index] = result
            good.append(line)
        if broken:
            _write_atomic(self.manifest, "".join(f"{g}\n" for g in good))

    def add(self, result: GameResult, text: str, suffix: str) -> GameResult:
        name = f"games/{result.index:06d}{suffix}"
        _write_atomic(self.out / name, text if text.endswith("\n") else text + "\n")
        result = result.with_record(name)
        line = _canonical({"config_hash": self.hash, "game": result.to_dict()})
        with self.manifest.open("a", encoding="utf-8") as fh:
            fh.write(line + "\n")
            fh.flush()
            os.fsync(fh.fileno())
        self.done[result.index] = result
        return result


def _write_atomic(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


# ---- results -------------------------------------------------------------------------------------
@dataclass
class ArenaResult:
    """The games of a run recorded so far (index < ``config.games``) and their statistics."""

    config: ArenaConfig
    out: Path
    games: list[GameResult]
    played: int = 0

    @property
    def config_hash(self) -> str:
        """The run's :attr:`ArenaConfig.config_hash`."""
        return self.config.config_hash

    @property
    def recorded(self) -> int:
        """Games recorded (errors included)."""
        return len(self.games)

    @property
    def complete(self) -> bool:
        """True when every planned game is recorded."""
        return self.recorded == self.config.games

    @property
    def decided(self) -> list[GameResult]:
        """Games that ended by the rules (no agent error)."""
        return [g for g in self.games if g.error is None and g.winner is not None]

    @property
    def errors(self) -> list[GameResult]:
        """Games stopped by an agent error (an exception or an illegal move)."""
        return [g for g in self.games if g.error is not None]

    def win_rate(self, side: str) -> WinRate:
        """``side``'s wins over the decided games, with its Wilson 95% interval."""
        if side not in SIDES:
            raise ValueError(f"side is 'mr_x' or 'detectives', not {side!r}")
        decided = self.decided
        return WinRate(sum(1 for g in decided if g.winner == side), len(decided))

    def reasons(self) -> dict[str, dict[str, int]]:
        """Decided games per winner and reason."""
        out: dict[str, dict[str, int]] = {s: {} for s in SIDES}
        for (winner, reason), n in sorted(Counter((g.winner, g.reason) for g in self.decided).items()):
            out[winner][reason] = n
        return out

    def rounds(self) -> dict[str, Any]:
        """Game length in rounds (decided games): overall and per winner."""
        decided = self.decided
        return {**describe_numbers([g.round for g in decided]),
                "by_winner": {s: describe_numbers([g.round for g in decided if g.winner == s])
                              for s in SIDES}}

    def time_per_move(self) -> dict[str, dict[str, float | int | None]]:
        """Thinking time per move per side over every recorded game: moves, mean and max (s)."""
        out: dict[str, dict[str, float | int | None]] = {}
        for side in SIDES:
            n = sum(g.moves.get(side, 0) for g in self.games)
            total = sum(g.think.get(side, 0.0) for g in self.games)
            worst = max((g.think_max.get(side, 0.0) for g in self.games), default=0.0)
            out[side] = {"moves": n, "mean_s": total / n if n else None,
                         "max_s": worst if n else None}
        return out

    def to_dict(self) -> dict[str, Any]:
        """What ``results.json`` holds."""
        return {
            "description": self.config.describe(),
            "config": self.config.to_dict(),
            "config_hash": self.config_hash,
            "games_planned": self.config.games,
            "games_recorded": self.recorded,
            "games_decided": len(self.decided),
            "complete": self.complete,
            "win_rate": {s: self.win_rate(s).to_dict() for s in SIDES},
            "reasons": self.reasons(),
            "rounds": self.rounds(),
            "time_per_move": self.time_per_move(),
            "errors": [{"index": g.index, "error": g.error, "record": g.record}
                       for g in self.errors],
        }

    def table(self) -> str:
        """The results as readable tables (plain text)."""
        from io import StringIO

        from rich import box
        from rich.console import Console
        from rich.table import Table

        buf = StringIO()
        con = Console(file=buf, width=120, no_color=True, force_terminal=False,
                      force_interactive=False)
        con.print(f"Arena {self.config_hash}: {self.config.describe()}", soft_wrap=True)
        for side in SIDES:
            con.print(f"  {SIDE_NAMES[side]}: {self.config.agent_label(side)}", soft_wrap=True)
        con.print(f"{self.recorded}/{self.config.games} games recorded, {len(self.decided)} "
                  f"decided, {len(self.errors)} agent errors")
        times = self.time_per_move()
        t = Table(title="Win rate per side (95% Wilson interval)", box=box.SIMPLE_HEAD,
                  title_justify="left")
        for col in ("side", "wins", "games", "win rate", "95% CI", "moves", "time/move",
                    "max time/move"):
            t.add_column(col, justify="left" if col == "side" else "right", no_wrap=True)
        for side in SIDES:
            wr = self.win_rate(side)
            lo, hi = wr.interval
            tm = times[side]
            t.add_row(SIDE_NAMES[side], str(wr.wins),
                      str(wr.games), f"{wr.rate:.1%}", f"{lo:.1%} - {hi:.1%}", str(tm["moves"]),
                      _secs(tm["mean_s"]), _secs(tm["max_s"]))
        con.print(t)
        r = Table(title="Outcome reasons", box=box.SIMPLE_HEAD, title_justify="left")
        for col in ("winner", "reason", "games", "share"):
            r.add_column(col, justify="left" if col in ("winner", "reason") else "right")
        n = len(self.decided)
        for side, reasons in self.reasons().items():
            for reason, k in reasons.items():
                r.add_row(SIDE_NAMES[side], reason, str(k), f"{k / n:.1%}")
        con.print(r)
        g = Table(title="Game length (rounds)", box=box.SIMPLE_HEAD, title_justify="left")
        for col in ("games won by", "games", "mean", "median", "min", "max"):
            g.add_column(col, justify="left" if col == "games won by" else "right")
        rounds = self.rounds()
        for label, d in (("either side", rounds), *((SIDE_NAMES[s], rounds["by_winner"][s])
                                                    for s in SIDES)):
            g.add_row(label, str(d["count"]), _num(d["mean"]), _num(d["median"]),
                      _num(d["min"]), _num(d["max"]))
        con.print(g)
        for e in self.errors[:20]:
            con.print(f"error in game {e.index} ({e.record}): {e.error}", soft_wrap=True)
        if len(self.errors) > 20:
            con.print(f"... and {len(self.errors) - 20} more errors (results.json lists all)")
        return "\n".join(line.rstrip() for line in buf.getvalue().splitlines()) + "\n"

    def write(self) -> None:
        """Write ``results.json`` and ``results.txt`` into the run folder."""
        _write_atomic(self.out / "results.json", json.dumps(self.to_dict(), indent=2) + "\n")
        _write_atomic(self.out / "results.txt", self.table())


def _secs(v: float | int | None) -> str:
    if v is None:
        return "-"
    if v < 0.001:
        return f"{v * 1e6:.0f} us"
    return f"{v * 1000:.1f} ms" if v < 1 else f"{v:.2f} s"


def _num(v: float | int | None) -> str:
    if v is None:
        return "-"
    return f"{v:g}" if isinstance(v, int) or float(v).is_integer() else f"{v:.2f}"


def plot_results(result: ArenaResult, path: Path | str | None = None) -> Path:
    """Draw the win rate of each side with its 95% interval, and the outcome reasons, into a
    PNG (default ``winrates.png`` in the run folder). Needs matplotlib."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise ArenaError("--plot needs matplotlib: pip install 'scotlandyard[plot]'") from None
    path = Path(path) if path is not None else result.out / "winrates.png"
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 4.2), gridspec_kw={"width_ratios": [2, 3]})
    labels, rates, lows, highs = [], [], [], []
    for side in SIDES:
        wr = result.win_rate(side)
        lo, hi = wr.interval
        labels.append(f"{SIDE_NAMES[side]}\n{result.config.agent_label(side)}")
        rates.append(wr.rate)
        lows.append(wr.rate - lo)
        highs.append(hi - wr.rate)
    colours = ["#b03a2e", "#2e86c1"]
    ax1.bar(labels, rates, yerr=[lows, highs], capsize=8, color=colours)
    ax1.set_ylim(0, 1)
    ax1.set_ylabel("win rate (95% Wilson interval)")
    ax1.set_title(f"{len(result.decided)} decided games")
    for x, r in enumerate(rates):
        ax1.text(x + 0.08, r, f"{r:.1%}", ha="left", va="bottom")
    names, counts, cols = [], [], []
    for k, (side, reasons) in enumerate(result.reasons().items()):
        for reason, n in reasons.items():
            names.append(f"{reason}\n({SIDE_NAMES[side]})")
            counts.append(n)
            cols.append(colours[k])
    ax2.bar(names, counts, color=cols)
    ax2.set_ylabel("games")
    ax2.yaxis.get_major_locator().set_params(integer=True)
    ax2.set_title("outcome reasons")
    fig.suptitle(result.config.describe(), fontsize=8, wrap=True)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


# ---- the run ------------------------------------------------------------------------------------
def run_arena(config: ArenaConfig, out: Path | str, progress: bool = True, *,
              max_games: int | None = None, plot: bool = False) -> ArenaResult:
    """Play ``config``'s games that ``out`` does not hold yet, record them, and return the
    statistics of every recorded game (also written to ``results.json``/``results.txt``).

    ``max_games`` plays at most that many new games in this call (a run can be done in
    parts); ``plot`` also draws ``winrates.png``. A ``KeyboardInterrupt`` keeps every game
    already recorded (and writes the results so far) before it propagates.
    """
    out = Path(out)
    if max_games is not None and (not isinstance(max_games, int) or max_games < 0):
        raise ArenaError(f"max_games is a whole number >= 0, not {max_games!r}")
    config.make_agents()  # unknown agents and refused options fail here, before any work
    folder = _RunFolder(out, config)
    folder.open()
    todo = [i for i in range(config.games) if i not in folder.done]
    if max_games is not None:
        todo = todo[:max_games]
    played = 0

    def result_now() -> ArenaResult:
        games = sorted((g for i, g in folder.done.items() if i < config.games),
                       key=lambda g: g.index)
        return ArenaResult(config, out, games, played)

    done_now = [g for i, g in folder.done.items() if i < config.games]
    bar = _Progress(config, done_now) if progress and todo else None
    games = _run_games(config, todo)
    try:
        if bar:
            bar.start()
        for played_game in games:
            assert played_game is not None
            result, text, suffix = played_game
            folder.add(result, text, suffix)
            played += 1
            if bar:
                bar.advance(result)
    finally:
        games.close()  # stops the workers now, also on Ctrl-C
        if bar:
            bar.stop()
        final = result_now()
        final.write()
    if plot:
        plot_results(final)
    return final


class _Progress:
    """A rich progress bar with the running win rate of Mr X."""

    def __init__(self, config: ArenaConfig, done: Iterable[GameResult]) -> None:
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        self.counts: Counter[str] = Counter()
        n = 0
        for g in done:
            self._count(g)
            n += 1
        self.progress = Progress(
            TextColumn("[bold]arena"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
            TimeRemainingColumn(), TextColumn("{task.fields[score]}"),
            console=Console(stderr=True), transient=False,
        )
        self.task = self.progress.add_task("games", total=config.games, completed=n,
                                           score=self._score())

    def _count(self, g: GameResult) -> None:
        self.counts["error" if g.error is not None else str(g.winner)] += 1

    def _score(self) -> str:
        mx = WinRate(self.counts["mr_x"], self.counts["mr_x"] + self.counts["detectives"])
        text = f"Mr X wins {mx}" if mx.games else ""
        errors = self.counts["error"]
        return text + (f"  [red]{errors} agent errors[/]" if errors else "")

    def start(self) -> None:
        self.progress.start()

    def advance(self, result: GameResult) -> None:
        self._count(result)
        self.progress.update(self.task, advance=1, score=self._score())

    def stop(self) -> None:
        self.progress.stop()


def parse_options(pairs: Iterable[str], flag: str = "option") -> dict[str, Any]:
    """Parse ``key=value`` texts (from ``flag``, for messages) into a mapping. Values are read
    as JSON where they can be (``3``, ``0.5``, ``true``, ``null``, ``[1,2]``), else kept as text.
    """
    out: dict[str, Any] = {}
    for pair in pairs:
        if not isinstance(pair, str) or "=" not in pair:
            raise ArenaError(f"{flag} {pair!r} is not key=value (e.g. {flag} c=0.7)")
        key, _, raw = pair.partition("=")
        key = key.strip()
        if not key.isidentifier():
            raise ArenaError(f"{flag} {pair!r}: {key!r} is not a valid name (letters, digits, _)")
        if key in out:
            raise ArenaError(f"{flag} {key!r} is given twice")
        raw = raw.strip()
        try:
            value = json.loads(raw)
        except ValueError:
            value = raw
        out[key] = value
    return out
