"""The seats of a game on the server: who plays each piece (a person, or an AI level), the
AI that plays an AI seat, and the levels a seat may ask for. Used by the room and by the
features around it (the clock, hand-overs, rematches, the thinker); imports none of them."""

from __future__ import annotations

import random
import secrets
from dataclasses import dataclass, field
from typing import Any, Literal

from ..ai import Agent, agent_names, make_agent
from ..ai.agents import LEVELS as AI_LEVELS
from ..move import MR_X
from .store import StoredSeat

__all__ = ["DEFAULT_AGENT", "LEVELS", "Seat", "resolve_agent", "side_of"]

LEVELS = ("random", *AI_LEVELS)
"""The AI levels a seat may ask for, weakest first (``docs/protocol.md``): ``random`` and the
AI's level table (:data:`scotlandyard.ai.agents.LEVELS`)."""
DEFAULT_AGENT = "medium"


def side_of(piece: str) -> str:
    """The side a piece plays for: ``mr_x`` or ``detectives`` (police included)."""
    return "mr_x" if piece == MR_X else "detectives"


def resolve_agent(name: str) -> tuple[str, str | None]:
    """The agent that plays for the requested ``name`` and a note if it is a stand-in.

    Levels that are not registered on this server fall back to ``random`` (with a note);
    any other unknown name raises ``ValueError``.
    """
    known = agent_names()
    if name in known:
        return name, None
    if name in LEVELS:
        return "random", f"{name} is not available on this server; random plays instead"
    raise ValueError(f"unknown agent {name!r} (levels: {', '.join(LEVELS)}; agents on this "
                     f"server: {', '.join(known)})")


@dataclass
class Seat:
    """One seat: who plays the piece, and the AI that plays it if any."""

    piece: str
    kind: Literal["human", "ai"]
    agent: str | None = None
    note: str | None = None
    ai: Agent | None = None
    plays: str | None = None  # the agent that really plays (a stand-in for a missing level)
    fallback_note: str | None = None
    rng: random.Random = field(default_factory=lambda: random.Random(secrets.randbits(64)))

    def build_agent(self) -> None:
        """Make the AI for an ``ai`` seat (levels that are missing fall back to random)."""
        if self.kind != "ai":
            self.ai = None
            self.fallback_note = None
            return
        name, note = resolve_agent(self.agent or DEFAULT_AGENT)
        try:
            self.ai = make_agent(name, side_of(self.piece))
        except Exception as exc:  # an agent that refuses this side: play random instead
            self.ai = make_agent("random", side_of(self.piece))
            note = f"{name} cannot play {self.piece} ({exc}); random plays instead"
            name = "random"
        self.plays = name
        self.fallback_note = note

    def build_agent_fallback(self, note: str) -> None:
        """Let ``random`` play this AI seat, saying why in ``note``."""
        self.ai = make_agent("random", side_of(self.piece))
        self.plays = "random"
        self.fallback_note = note

    def info(self, connected: bool, open_: bool = False,
             away: float | None = None) -> dict[str, Any]:
        """The seat as clients see it (``open``: no player has its token yet; ``away``:
        seconds since the last connection of a human seat closed)."""
        return {"kind": self.kind, "agent": self.agent if self.kind == "ai" else None,
                "connected": connected, "note": self.fallback_note or self.note,
                "open": open_, "away": away}

    def stored(self) -> StoredSeat:
        """The seat's database row."""
        return StoredSeat(self.piece, self.kind, self.agent, self.note)
