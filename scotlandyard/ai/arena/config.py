"""Arena configuration: which agents, which rules, how many games; seeds and the config hash."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from ...rules import Rules, RulesError
from ..base import Budget, make_agent

SIDES: tuple[str, str] = ("mr_x", "detectives")
SIDE_NAMES = {"mr_x": "Mr X", "detectives": "detectives"}
Backend = Literal["local", "ray"]

# Bump when the way games are derived from a config changes (seeds, agent calls): runs made
# before would no longer be reproduced, so their folders must not be resumed.
ARENA_SCHEME = 1


class ArenaError(ValueError):
    """A bad arena configuration, an unusable output folder, or a failed backend."""


_BACKENDS: dict[str, Backend] = {"local": "local", "ray": "ray"}


def as_backend(name: str) -> Backend:
    """``name`` (e.g. a command-line option) as a :data:`Backend`: ``"local"`` or ``"ray"``;
    :class:`ArenaError` for anything else."""
    try:
        return _BACKENDS[name]
    except (KeyError, TypeError):
        raise ArenaError(f"backend is 'local' or 'ray', not {name!r}") from None


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
            return str(name)
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
