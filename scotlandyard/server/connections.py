"""One WebSocket of one token (:class:`Connection`) and its message budget (:class:`RateLimit`)."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import deque
from collections.abc import Callable
from typing import Any

from .limits import TokenBucket
from .tokens import Role

MAX_QUEUED_FRAMES = 512
"""A connection that falls this far behind is closed (a stalled client must not hold memory)."""


class RateLimit(TokenBucket):
    """A socket's message budget: ``rate`` messages a second on average, bursts of ``burst``."""

    def __init__(self, rate: float = 20.0, burst: float = 40.0) -> None:
        """A full bucket."""
        super().__init__(rate, burst)
        self.refused = 0   # refused in a row (the first one gets an error frame)
        self.strikes = 0   # +1 per refused, -1 per allowed message: a sustained flood grows it

    def allow(self) -> bool:
        """Take one message from the bucket; False if it is empty."""
        if self.take() == 0.0:
            self.refused = 0
            self.strikes = max(0, self.strikes - 1)
            return True
        self.refused += 1
        self.strikes += 1
        return False

    @property
    def flooding(self) -> bool:
        """True once a client has gone on far over the limit (it is then disconnected)."""
        return self.strikes > 200

    def refund(self) -> None:
        """Give back one message: accepted moves are paced by the game itself, so only the
        other messages (errors, pings, syncs, seat changes) count against the limit."""
        self.level = min(self.burst, self.level + 1.0)


class Connection:
    """One WebSocket of one token. Frames go through a queue so a slow client never stalls
    the game for the others; a client that stops reading is evicted (:meth:`check`).

    The frames queued are sent by a task that runs while there are any and then ends (one
    task per burst, e.g. a move's ``ack`` and ``state``), so an idle connection holds no
    waiting task or future: 1,200 idle sockets do not keep thousands of young objects for
    the garbage collector to walk between two moves."""

    def __init__(self, send_text: Callable[[str], Any], close: Callable[[int], Any],
                 token_name: str, role: Role, pieces: tuple[str, ...], *,
                 send_timeout: float = 20.0, max_bytes: int = 8 * 1024 * 1024,
                 client: str = "unknown", sync_rate: float = 2.0,
                 sync_burst: float = 4.0) -> None:
        """Wrap a socket's ``send_text``/``close`` coroutines for a token's seat. A frame that
        cannot be sent within ``send_timeout`` seconds, or more than ``max_bytes`` (or
        :data:`MAX_QUEUED_FRAMES` frames) waiting, evicts the connection. ``sync_rate``,
        ``sync_burst``: the socket's budget of ``sync`` messages (:attr:`syncs`)."""
        self._send_text = send_text
        self._close = close
        self.token_name = token_name
        self.client = client
        """The client's address (per-client limits: a rematch counts against it when the
        game's creator is not known here)."""
        self.role: Role = role
        self.pieces = pieces
        self.limit = RateLimit()
        self.syncs = RateLimit(sync_rate, sync_burst)
        """The socket's ``sync`` budget (over it, the next is answered when it allows)."""
        self.last_state: str | None = None
        """The last ``state`` frame queued for this socket, as sent (a ``sync`` soon after is
        answered with it: every change of the game sends each socket a new one)."""
        self.last_state_at = 0.0
        """When :attr:`last_state` was built (``time.monotonic()``)."""
        self.send_timeout = send_timeout
        self.max_bytes = max_bytes
        self._frames: deque[str] = deque()
        self._queued = 0
        self._sending_since: float | None = None
        self._task: asyncio.Task[None] | None = None
        self._closing: asyncio.Task[Any] | None = None
        self.on_evict: Callable[[], Any] | None = None
        """Called once when the connection is evicted (the app stops its receive loop)."""
        self.evicted: str | None = None
        self.closed = False

    async def _sender(self) -> None:
        frames = self._frames
        try:
            while frames:
                text = frames.popleft()
                self._queued -= len(text)
                self._sending_since = time.monotonic()
                await self._send_text(text)
                self._sending_since = None
        except asyncio.CancelledError:
            raise
        except Exception:  # the socket went away; the receive loop will notice
            self.closed = True
        finally:
            if self._task is asyncio.current_task():
                self._task = None

    def send(self, text: str) -> None:
        """Queue one frame."""
        if self.closed:
            return
        if len(self._frames) >= MAX_QUEUED_FRAMES or self._queued + len(text) > self.max_bytes:
            self.evict("too far behind")  # it may reconnect and get a fresh state
            return
        if text.startswith('{"type":"state"') and text is not self.last_state:
            self.last_state = text
            self.last_state_at = time.monotonic()
        self._queued += len(text)
        self._frames.append(text)
        if self._task is None:
            self._task = asyncio.create_task(self._sender())

    def check(self, now: float) -> bool:
        """Evict the connection if one frame has been waiting to go out for longer than
        ``send_timeout`` (a client that does not read); True if it was."""
        since = self._sending_since
        if since is not None and not self.closed and now - since > self.send_timeout:
            self.evict(f"no frame could be sent for {self.send_timeout:g} s")
            return True
        return False

    def _cancel_sender(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()

    def evict(self, why: str) -> None:
        """Drop this connection: stop sending, try to close the socket (1013, try again
        later) without waiting on it, and stop its receive loop."""
        if self.evicted is not None:
            return
        self.evicted = why
        self.closed = True
        self._cancel_sender()
        self._frames.clear()
        self._queued = 0
        self._closing = asyncio.create_task(self._close_quietly(1013))
        if self.on_evict is not None:
            self.on_evict()

    async def _close_quietly(self, code: int) -> None:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self._close(code), 2.0)

    async def drain(self) -> None:
        """Send what is queued (at most 5 s), then stop: frames queued later are dropped."""
        task = self._task
        self.closed = True  # nothing more is queued
        if task is None:
            return
        try:
            await asyncio.wait_for(asyncio.shield(task), 5)
        except (TimeoutError, asyncio.CancelledError):
            task.cancel()

    def stop(self) -> None:
        """Stop the sender at once (the socket is gone)."""
        self.closed = True
        self._cancel_sender()
