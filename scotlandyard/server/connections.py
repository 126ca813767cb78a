"""One WebSocket of one token (:class:`Connection`) and its message budget (:class:`RateLimit`)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

from .tokens import Role

MAX_QUEUED_FRAMES = 512
"""A connection that falls this far behind is closed (a stalled client must not hold memory)."""


class RateLimit:
    """A token bucket: ``rate`` messages a second on average, bursts of ``burst``."""

    def __init__(self, rate: float = 20.0, burst: float = 40.0) -> None:
        self.rate = rate
        self.burst = burst
        self.level = burst
        self.last = time.monotonic()
        self.refused = 0   # refused in a row (the first one gets an error frame)
        self.strikes = 0   # +1 per refused, -1 per allowed message: a sustained flood grows it

    def allow(self) -> bool:
        """Take one message from the bucket; False if it is empty."""
        now = time.monotonic()
        self.level = min(self.burst, self.level + (now - self.last) * self.rate)
        self.last = now
        if self.level >= 1.0:
            self.level -= 1.0
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
    the game for the others."""

    def __init__(self, send_text: Callable[[str], Any], close: Callable[[int], Any],
                 token_name: str, role: Role, pieces: tuple[str, ...]) -> None:
        """Wrap a socket's ``send_text``/``close`` coroutines for a token's seat."""
        self._send_text = send_text
        self._close = close
        self.token_name = token_name
        self.role: Role = role
        self.pieces = pieces
        self.limit = RateLimit()
        self._queue: asyncio.Queue[str | None] = asyncio.Queue()
        self._task = asyncio.create_task(self._sender())
        self._closing: asyncio.Task[Any] | None = None
        self.closed = False

    async def _sender(self) -> None:
        try:
            while True:
                text = await self._queue.get()
                if text is None:
                    return
                await self._send_text(text)
        except asyncio.CancelledError:
            raise
        except Exception:  # the socket went away; the receive loop will notice
            self.closed = True

    def send(self, text: str) -> None:
        """Queue one frame."""
        if self.closed:
            return
        if self._queue.qsize() >= MAX_QUEUED_FRAMES:
            self.closed = True  # a client this far behind is dropped (it may reconnect)
            self._closing = asyncio.create_task(self._close(1013))
            return
        self._queue.put_nowait(text)

    async def drain(self) -> None:
        """Send what is queued, then stop the sender."""
        self._queue.put_nowait(None)
        try:
            await asyncio.wait_for(asyncio.shield(self._task), 5)
        except (TimeoutError, asyncio.CancelledError):
            self._task.cancel()

    def stop(self) -> None:
        """Stop the sender at once (the socket is gone)."""
        self.closed = True
        self._task.cancel()
