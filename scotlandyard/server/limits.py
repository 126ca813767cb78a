"""The server's limits (``docs/webapp.md``, "Security"): what one client, one token, one socket
and one request may use, with defaults generous enough for real play and low enough that one
client cannot exhaust the server. Every limit is a field of :class:`Limits`; tests and
benchmarks set their own.
"""

from __future__ import annotations

import functools
import ipaddress
import math
import time
from collections.abc import Iterable
from dataclasses import dataclass

from fastapi import HTTPException


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
    others wait their turn: games with a human seat first, the addresses (/24, /64) that
    created their games in turn, each one's in order, computer-only games and one address's
    games in at most all but one of the slots (``thinker.FairLane``). Cheaper levels never
    wait behind them. An AI Mr X's move
    holds its slot until his reply's pace ends (``thinker.mr_x_paces``: his think time must not
    show in how long the others wait), a detective's only while it thinks."""
    takebacks: int | None = 3
    """Takebacks granted to each side of one game (``docs/protocol.md``, "Takeback"); one more
    is refused with ``not_allowed``. ``None``: no limit; 0: none. Each takeback lets the
    detectives try a station for Mr X once more, so the limit bounds what probing can learn."""
    computer_games: int = 4
    """Games the computer plays alone (every seat an AI) that one client (its address's /24 or
    /64, ``thinker.owner_key``) may have in play at once on a server process (more: refused,
    422); their heavy AI moves also wait behind every game with a human seat."""
    unwatched_seconds: float = 5.0
    """A game's AI seats stop thinking this long after its last socket closed (or after it was
    created or loaded with none), and think again when one connects (``Room.ai_may_think``)."""
    db_wait: float = 5.0
    """A database write waits this long for a lock held by another process (a backup, the
    ``sqlite3`` shell), then is refused with a clear error; nothing is lost (the move was not
    made). Other games play on meanwhile."""
    allowed_hosts: tuple[str, ...] = ()
    """If set, requests whose ``Host`` is not one of these are refused (400)."""
    allowed_origins: tuple[str, ...] = ()
    """Origins (``https://example.org``) besides the server's own whose pages may open game
    WebSockets. Sockets without an ``Origin`` (bots) are always accepted."""
    per_prefix: float = 2.0
    """Each per-address limit (games, lobby reads, joins, sockets, connections, open public
    games, lobby rows) applies a second time to the address's network, an IPv4 /24 or IPv6
    /64, all its addresses together, at this many times the per-address figure (0: no
    per-network limits). One machine can hold many addresses of its network; a building
    behind one NAT shows as one address."""
    header_bytes: int = 16 * 1024
    """The largest request line plus header block read (larger: 431, connection closed).
    A browser sends well under 2 KiB."""
    header_count: int = 100
    """The most header fields of one request (more: 431)."""
    request_seconds: float = 5.0
    """A request (line, headers and body) must arrive within this many seconds of its first
    byte, or of the connection's opening (else 408, connection closed): a half-sent request
    holds no connection longer (slowloris)."""
    connections_per_client: int = 320
    """Open TCP connections from one client address, counted when the connection is made,
    before any byte of a request is read (more: 429 and closed at once). Above
    :attr:`sockets_per_client`, as each WebSocket is one. A trusted proxy's connections are
    not counted (the proxy caps its clients' connections: docs/deploy.md)."""
    sync_per_second: float = 2.0
    """``sync`` messages of one socket answered a second on average; more are answered at
    that pace, the socket not read meanwhile (a page needs one after a reconnect at most)."""
    sync_burst: int = 4
    """... and at once, before that rate applies."""
    sync_strikes: int = 60
    """A socket whose syncs came over its budget this many times more than within it (30 s
    of a flood at 2 a second) is closed (1008, after a ``rate_limited`` error): the frames it
    sent meanwhile wait in memory (0: never)."""
    sync_cached_seconds: float = 1.0
    """A ``sync`` within this many seconds of the socket's last ``state`` is answered with
    that frame as it was sent (the game has not changed since, or the socket would have had
    a newer one; a clock in it is at most this old), without building it again."""
    public_games_per_client: int = 5
    """Open public games (listed in the lobby: not over, a seat open) one client address may
    have at once, counting the games this process created (more: 429)."""
    lobby_rows_per_client: int = 3
    """The most rows of one client address's games in ``GET /api/lobby`` (newest first), so
    that nobody fills the lobby."""
    lobby_unjoined_seconds: float = 1800.0
    """A public game in which at most one seat has a player (its creator's) leaves the lobby
    this many seconds after it was created (0: never); it stays playable by its links."""


@functools.lru_cache(maxsize=65536)
def network_of(client: str) -> str:
    """The network that per-network limits count ``client`` in: ``net:A.B.C.0/24`` for IPv4
    (an IPv4-mapped IPv6 address too), ``net:P:Q:R:S::/64`` for IPv6; the text itself for
    anything that is not an address (``unknown``, a test client's name). Cached: it is asked
    on every connection and request, and ``ipaddress`` parses in Python."""
    try:
        addr = ipaddress.ip_address(client.split("%", 1)[0])
    except ValueError:
        return "net:" + client
    if isinstance(addr, ipaddress.IPv6Address) and addr.ipv4_mapped is not None:
        addr = addr.ipv4_mapped
    bits = 24 if addr.version == 4 else 64
    return f"net:{ipaddress.ip_network(f'{addr}/{bits}', strict=False)}"


def scaled(limit: float, factor: float) -> float:
    """A per-network limit: ``limit`` times ``factor``; 0 (none) where either is 0."""
    return limit * factor if limit and factor else 0.0


class Caps:
    """Counts per key (an address and its network) under two caps, taken and given back
    together."""

    def __init__(self, per_address: float, per_network: float) -> None:
        """``per_address``/``per_network``: the caps (0: none)."""
        self.caps = (per_address, per_network)
        self.open: dict[str, int] = {}

    def keys(self, client: str) -> tuple[str, str]:
        """The address's key and its network's."""
        return client, network_of(client)

    def full(self, client: str) -> str | None:
        """``None`` if one more fits, else ``address`` or ``network`` (which cap is full)."""
        for key, cap, what in zip(self.keys(client), self.caps, ("address", "network"),
                                  strict=True):
            if cap and self.open.get(key, 0) >= cap:
                return what
        return None

    def take(self, client: str) -> str | None:
        """Count one; ``None`` if it fitted, else which cap is full (nothing counted)."""
        why = self.full(client)
        if why is None:
            for key in self.keys(client):
                self.open[key] = self.open.get(key, 0) + 1
        return why

    def give(self, client: str) -> None:
        """Uncount one counted by :meth:`take`."""
        for key in self.keys(client):
            n = self.open.get(key, 0) - 1
            if n > 0:
                self.open[key] = n
            else:
                self.open.pop(key, None)


def over_text(what: str, cap: float, per_prefix: float, thing: str) -> str:
    """Why a cap refused: ``too many THING from this address (at most N)`` or ``... from
    this address's network (a /24 or /64: at most M)``."""
    if what == "address":
        return f"too many {thing} from this address (at most {cap:g})"
    return (f"too many {thing} from this address's network (its IPv4 /24 or IPv6 /64: at "
            f"most {scaled(cap, per_prefix):g})")


def parse_networks(text: str | Iterable[str]) -> tuple[ipaddress.IPv4Network |
                                                      ipaddress.IPv6Network, ...] | None:
    """``--trusted-proxy``'s addresses and networks (comma-separated, or a list); ``None``
    for ``*`` (every address); :class:`ValueError` naming a bad entry."""
    items = [t.strip() for t in (text.split(",") if isinstance(text, str) else text)]
    items = [t for t in items if t]
    if "*" in items:
        return None
    out = []
    for item in items:
        try:
            out.append(ipaddress.ip_network(item))  # strict, as uvicorn reads it
        except ValueError:
            raise ValueError(f"{item!r} is not an IP address or network (a network's host "
                             "bits are 0: 10.0.0.0/24)") from None
    return tuple(out)


OWNERS_KEPT = 100_000
"""Public games whose creator's address is kept (in memory, the newest)."""


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

    def wait(self) -> float:
        """What :meth:`take` would answer, taking nothing."""
        level = min(self.burst, self.level + (time.monotonic() - self.last) * self.rate)
        if level >= 1.0:
            return 0.0
        return (1.0 - level) / self.rate if self.rate > 0 else 3600.0

    def full(self) -> bool:
        """Whether the bucket has refilled (so it can be forgotten)."""
        now = time.monotonic()
        return self.level + (now - self.last) * self.rate >= self.burst


class ClientLimits:
    """Per-client-address state: game-creation buckets and open-socket counts, each kept for
    the address and for its network (:func:`network_of`, ``Limits.per_prefix``)."""

    def __init__(self, limits: Limits) -> None:
        """Empty: no client seen."""
        self.limits = limits
        self._create: dict[str, TokenBucket] = {}
        self._lobby: dict[str, TokenBucket] = {}
        self._join: dict[str, TokenBucket] = {}
        self._events: dict[str, dict[str, TokenBucket]] = {}
        self.token_sockets: dict[str, int] = {}
        self.socket_caps = Caps(limits.sockets_per_client,
                                scaled(limits.sockets_per_client, limits.per_prefix))
        self.public_owner: dict[str, str] = {}
        """The address that created each public game this process made (the newest
        :data:`OWNERS_KEPT`): the lobby's share per owner, the open public games' cap."""

    def owns(self, game_id: str, client: str) -> None:
        """Note that ``client`` created the public game ``game_id``."""
        owners = self.public_owner
        owners[game_id] = client
        while len(owners) > OWNERS_KEPT:
            del owners[next(iter(owners))]

    @property
    def sockets(self) -> dict[str, int]:
        """Open sockets per address (and per ``net:`` network)."""
        return self.socket_caps.open

    def _bucket_wait(self, buckets: dict[str, TokenBucket], client: str, per_minute: float,
                     burst: int) -> float:
        """Take one event from the address's and its network's buckets: 0.0 if both allow
        (both are taken), else the longer wait (neither is taken)."""
        factor = self.limits.per_prefix
        return _wait(buckets, (client, network_of(client)),
                     (per_minute, scaled(per_minute, factor)),
                     (burst, max(1, round(scaled(burst, factor)))))

    def create_wait(self, client: str) -> float:
        """0.0 if ``client`` may create a game now, else seconds to wait (answer 429)."""
        lim = self.limits
        return self._bucket_wait(self._create, client, lim.games_per_minute, lim.games_burst)

    def lobby_wait(self, client: str) -> float:
        """0.0 if ``client`` may read the lobby now, else seconds to wait (answer 429)."""
        lim = self.limits
        return self._bucket_wait(self._lobby, client, lim.lobby_per_minute, lim.lobby_burst)

    def join_wait(self, client: str) -> float:
        """0.0 if ``client`` may take a seat of a public game now, else seconds to wait
        (answer 429)."""
        lim = self.limits
        return self._bucket_wait(self._join, client, lim.joins_per_minute, lim.joins_burst)

    def event_wait(self, kind: str, client: str, per_minute: float, burst: int) -> float:
        """0.0 if ``client`` may do one more ``kind`` event now (a bucket per kind and address:
        the puzzle page's and the computer analysis's rates), else seconds to wait."""
        return _wait(self._events.setdefault(kind, {}), (client,), (per_minute,), (burst,))

    def open_socket(self, client: str, token_hash: str) -> str | None:
        """Count a socket; ``None`` if allowed, else why not (and nothing is counted)."""
        lim = self.limits
        full = self.socket_caps.full(client)
        if full is not None:
            return over_text(full, lim.sockets_per_client, lim.per_prefix, "open sockets")
        if lim.sockets_per_token and self.token_sockets.get(token_hash, 0) >= lim.sockets_per_token:
            return f"too many open sockets for this token (at most {lim.sockets_per_token})"
        self.socket_caps.take(client)
        self.token_sockets[token_hash] = self.token_sockets.get(token_hash, 0) + 1
        return None

    def close_socket(self, client: str, token_hash: str) -> None:
        """Uncount a socket counted by :meth:`open_socket`."""
        self.socket_caps.give(client)
        n = self.token_sockets.get(token_hash, 0) - 1
        if n > 0:
            self.token_sockets[token_hash] = n
        else:
            self.token_sockets.pop(token_hash, None)


def _wait(buckets: dict[str, TokenBucket], keys: tuple[str, ...], per_minute: tuple[float, ...],
          burst: tuple[int, ...]) -> float:
    """Take one event from each key's bucket in ``buckets`` (made full on first use; a key
    whose ``per_minute`` is <= 0 has no limit): 0.0 if every one allows (each is taken), else
    the longest wait (none is taken). Keys whose bucket is full again are forgotten once
    there are many."""
    if len(buckets) > 10_000:
        for key in [k for k, b in buckets.items() if b.full()]:
            del buckets[key]
    chosen = []
    for key, rate, size in zip(keys, per_minute, burst, strict=True):
        if rate <= 0:
            continue
        bucket = buckets.get(key)
        if bucket is None:
            bucket = buckets[key] = TokenBucket(rate / 60.0, size)
        chosen.append(bucket)
    wait = max((b.wait() for b in chosen), default=0.0)
    if wait == 0.0:
        for b in chosen:
            b.take()
    return wait


def refuse_if_waiting(wait: float, what: str) -> None:
    """A per-address limit's answer: nothing while ``wait`` is 0, else 429 saying ``what``
    and when to try again (``Retry-After``, whole seconds)."""
    if wait:
        retry = max(1, math.ceil(wait))
        raise HTTPException(429, f"{what}; try again in {retry} s",
                            headers={"Retry-After": str(retry)})
