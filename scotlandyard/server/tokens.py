"""Tokens and commitments: the stored form of a token, what a token may do (its scope), and
the hash that commits Mr X's hidden log slots (``docs/protocol.md``)."""

from __future__ import annotations

import hashlib
from typing import Literal

from ..move import MR_X
from .store import StoreError

Role = Literal["mr_x", "detectives", "spectator", "hotseat"]


def token_hash(token: str) -> str:
    """The stored form of a token: its SHA-256, hex."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def commitment_hash(game_id: str, slot: int, station: int, salt: str) -> str:
    """``sha256(f"{game_id}:{slot}:{station}:{salt}")`` as hex (``docs/protocol.md``)."""
    return hashlib.sha256(f"{game_id}:{slot}:{station}:{salt}".encode()).hexdigest()


def token_scope(name: str, pieces: tuple[str, ...]) -> tuple[Role, tuple[str, ...]]:
    """The role and owned pieces of the token called ``name`` in a game with ``pieces``."""
    if name == MR_X:
        return "mr_x", (MR_X,)
    if name == "detectives":
        return "detectives", pieces[1:]
    if name == "spectator":
        return "spectator", ()
    if name == "all":
        return "hotseat", pieces
    if name in pieces:
        return "detectives", (name,)
    raise StoreError(f"unknown token name {name!r}")
