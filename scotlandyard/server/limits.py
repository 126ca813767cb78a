"""The server's limits (``docs/webapp.md``, "Security"): what one client, one token, one socket
and one request may use, with defaults generous enough for real play and low enough that one
client cannot exhaust the server. Every limit is a field of :class:`Limits`; tests and
benchmarks set their own.
"""

from __future__ import annotations

import time
from dataclasses import dataclass


@dataclass(frozen=True)
class Limits:
    """Per-client, per-token, per-socket and server-wide limits (0 or ``None``: no limit where
    a field says so)."""

    body_bytes: int = 64 * 1024
    """The largest REST request body read (larger: 413). A game request is a few hundred bytes."""
    games_per_minute: float = 30.0
    """Games one client address may create per minute on average (more: 429)."""
    games_burst: int = 60
    """... and at once, before that rate applies."""
    lobby_per_minute: float = 60.0
    """``GET /api/lobby`` requests one client address may make per minute on average (more:
    429 with ``Retry-After``); the page asks every few seconds while it shows the lobby."""
    lobby_burst: int = 20
    """... and at once, before that rate applies."""
    joins_per_minute: float = 30.0
    """``POST /api/games/{id}/join`` requests (seats taken in public games) one client address
    may make per minute on average (more: 429 with ``Retry-After``), so that one client cannot
    take every open seat of every public game. A person takes one seat; a group behind one
    address takes a few."""
    joins_burst: int = 10
    """... and at once, before that rate applies."""
    sockets_per_client: int = 256
    """Open WebSockets from one client address (more: the upgrade is refused with 429)."""
    sockets_per_token: int = 16
    """Open WebSockets of one token (more: refused with 429). Several tabs of one player fit."""
    send_timeout: float = 20.0
    """A socket on which one frame cannot be sent for this long is closed (a reader that does
    not read)."""
    queued_bytes: int = 8 * 1024 * 1024
    """Bytes waiting to be sent on one socket; more and it is closed (it may reconnect)."""
    idle_seconds: float = 900.0
    """A game without sockets and without an AI to move leaves memory after this long (it stays
    in the database and is loaded again by its next token). Finished games leave at once."""
    heavy_ai: int = 2
    """AI moves of the strongest levels (``hard``, ``max``) computed at once, server-wide; the
    others wait their turn: the addresses that created their games in turn, each one's in
    order (``thinker.FairLane``). Cheaper levels never wait behind them. An AI Mr X's move
    holds its slot until his reply's pace ends (``thinker.mr_x_paces``: his think time must not
    show in how long the others wait), a detective's only while it thinks."""
    db_wait: float = 5.0
    """A database write waits this long for a lock held by another process (a backup, the
    ``sqlite3`` shell), then is refused with a clear error; nothing is lost (the move was not
    made). Other games play on meanwhile."""
    allowed_hosts: tuple[str, ...] = ()
    """If set, requests whose ``Host`` is not one of these are refused (400)."""
    allowed_origins: tuple[str, ...] = ()
    """Origins (``https://example.org``) besides the server's own whose pages may open game
    WebSockets. Sockets without an ``Origin`` (bots) are always accepted."""


class TokenBucket:
    """``rate`` events a second on average, bursts of ``burst``."""

    __slots__ = ("burst", "last", "level", "rate")

    def __init__(self, rate: float, burst: float) -> None:
        """A full bucket."""
        self.rate = rate
        self.burst = burst
        self.level = float(burst)
        self.last = time.monotonic()

    def take(self) -> float:
        """Take one event: 0.0 if allowed, else the seconds until one would be."""
        now = time.monotonic()
        self.level = min(self.burst, self.level + (now - self.last) * self.rate)
        self.last = now
        if self.level >= 1.0:
            self.level -= 1.0
            return 0.0
        return (1.0 - self.level) / self.rate if self.rate > 0 else 3600.0

    def full(self) -> bool:
        """Whether the bucket has refilled (so it can be forgotten)."""
        now = time.monotonic()
        return self.level + (now - self.last) * self.rate >= self.burst


class ClientLimits:
    """Per-client-address state: game-creation buckets and open-socket counts."""

    def __init__(self, limits: Limits) -> None:
        """Empty: no client seen."""
        self.limits = limits
        self._create: dict[str, TokenBucket] = {}
        self._lobby: dict[str, TokenBucket] = {}
        self._join: dict[str, TokenBucket] = {}
        self.sockets: dict[str, int] = {}
        self.token_sockets: dict[str, int] = {}

    def create_wait(self, client: str) -> float:
        """0.0 if ``client`` may create a game now, else seconds to wait (answer 429)."""
        lim = self.limits
        return _wait(self._create, client, lim.games_per_minute, lim.games_burst)

    def lobby_wait(self, client: str) -> float:
        """0.0 if ``client`` may read the lobby now, else seconds to wait (answer 429)."""
        lim = self.limits
        return _wait(self._lobby, client, lim.lobby_per_minute, lim.lobby_burst)

    def join_wait(self, client: str) -> float:
        """0.0 if ``client`` may take a seat of a public game now, else seconds to wait
        (answer 429)."""
        lim = self.limits
        return _wait(self._join, client, lim.joins_per_minute, lim.joins_burst)

    def open_socket(self, client: str, token_hash: str) -> str | None:
        """Count a socket; ``None`` if allowed, else why not (and nothing is counted)."""
        lim = self.limits
        if lim.sockets_per_client and self.sockets.get(client, 0) >= lim.sockets_per_client:
            return (f"too many open sockets from this address (at most "
                    f"{lim.sockets_per_client})")
        if lim.sockets_per_token and self.token_sockets.get(token_hash, 0) >= lim.sockets_per_token:
            return f"too many open sockets for this token (at most {lim.sockets_per_token})"
        self.sockets[client] = self.sockets.get(client, 0) + 1
        self.token_sockets[token_hash] = self.token_sockets.get(token_hash, 0) + 1
        return None

    def close_socket(self, client: str, token_hash: str) -> None:
        """Uncount a socket counted by :meth:`open_socket`."""
        for table, key in ((self.sockets, client), (self.token_sockets, token_hash)):
            n = table.get(key, 0) - 1
            if n > 0:
                table[key] = n
            else:
                table.pop(key, None)


def _wait(buckets: dict[str, TokenBucket], client: str, per_minute: float, burst: int) -> float:
    """Take one event from ``client``'s bucket in ``buckets`` (made full on first use): 0.0
    if allowed, else the seconds to wait; ``per_minute`` <= 0: no limit. Clients whose bucket
    is full again are forgotten once there are many."""
    if per_minute <= 0:
        return 0.0
    if len(buckets) > 10_000:
        for key in [k for k, b in buckets.items() if b.full()]:
            del buckets[key]
    bucket = buckets.get(client)
    if bucket is None:
        bucket = buckets[client] = TokenBucket(per_minute / 60.0, burst)
    return bucket.take()
