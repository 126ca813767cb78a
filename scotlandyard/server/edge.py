"""The server's HTTP edge: uvicorn's h11 protocol with the limits that apply before the app
sees a request (``docs/webapp.md``, "Security"; ``docs/deploy.md``, "Limits the proxy must
match").

* **Connections per client** (``Limits.connections_per_client``, and per IPv4 /24 or IPv6
  /64): counted when the TCP connection is made, before a byte is read; over the cap the
  connection gets a 429 and is closed at once. A WebSocket stays counted until it closes
  (uvicorn hands its transport to the WebSocket protocol, which gives the count back).
  Connections from a trusted proxy are not counted: the proxy caps its own clients.
* **The header block** (``Limits.header_bytes``, ``Limits.header_count``): a request line
  and headers over the size (h11's incomplete-event limit) or with more fields than the count
  get 431 and the connection is closed.
* **The time to receive a request** (``Limits.request_seconds``): from the connection's
  opening (or the first byte of the next request on a kept-alive connection) to the end of
  the request's body, or 408 and closed (slowloris: a half-sent request is dropped).

``scotlandyard serve`` runs uvicorn with ``http=guarded_h11(...)`` (never httptools, which
``uvicorn[standard]`` installs and which has no header limit) and ``ws=`` the WebSocket
protocol of ``cli.lenient_websockets`` with ``release`` from :class:`EdgeCounts`.
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import resource
from typing import Any

import h11

from .limits import Caps, Limits, over_text, parse_networks, scaled

log = logging.getLogger("scotlandyard.server")


class EdgeCounts:
    """Open TCP connections per client address and network, keyed by transport so that the
    HTTP and the WebSocket protocol of one connection give back its count once."""

    def __init__(self, limits: Limits, trusted: str = "") -> None:
        """Caps from ``limits`` (``connections_per_client`` 0: none); connections from
        ``trusted`` (``--trusted-proxy``: addresses, networks, ``*``) are never counted."""
        self.limits = limits
        cap = limits.connections_per_client
        self.caps = Caps(cap, scaled(cap, limits.per_prefix))
        self.trusted = parse_networks(trusted)
        self._by_transport: dict[int, str] = {}
        self.refused = 0
        """Connections refused so far (for the log and the benchmarks)."""

    def is_trusted(self, host: str) -> bool:
        """Whether ``host`` is a trusted proxy's address."""
        if self.trusted is None:
            return True
        try:
            addr = ipaddress.ip_address(host)
        except ValueError:
            return False
        return any(addr in net for net in self.trusted)

    def admit(self, transport: asyncio.BaseTransport, host: str | None) -> str | None:
        """Count a new connection from ``host``; ``None`` if admitted, else why not."""
        if host is None or self.is_trusted(host):
            return None
        why = self.caps.take(host)
        if why is not None:
            self.refused += 1
            return over_text(why, self.limits.connections_per_client, self.limits.per_prefix,
                             "open connections")
        self._by_transport[id(transport)] = host
        return None

    def release(self, transport: asyncio.BaseTransport) -> None:
        """The connection on ``transport`` closed (idempotent)."""
        host = self._by_transport.pop(id(transport), None)
        if host is not None:
            self.caps.give(host)

    def open(self) -> int:
        """Connections counted now."""
        return len(self._by_transport)


def _plain(status: int, reason: str, text: str) -> bytes:
    """A whole HTTP/1.1 response that closes the connection."""
    body = text.encode()
    return (f"HTTP/1.1 {status} {reason}\r\ncontent-type: text/plain; charset=utf-8\r\n"
            f"connection: close\r\ncontent-length: {len(body)}\r\n\r\n").encode() + body


def guarded_h11(limits: Limits, counts: EdgeCounts) -> type[asyncio.Protocol]:
    """uvicorn's ``H11Protocol`` with the caps of this module (``uvicorn.run(http=...)``).
    Pass ``h11_max_incomplete_event_size=limits.header_bytes`` to uvicorn as well."""
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class _Conn(h11.Connection):
        """h11's connection, refusing a request with too many header fields (431) and
        telling its protocol when a request (and its body) has arrived."""

        protocol: GuardedH11

        def next_event(self) -> Any:
            try:
                event = super().next_event()
            except h11.RemoteProtocolError as bad:
                self.protocol.refusal = bad
                raise
            if isinstance(event, h11.Request) and len(event.headers) > limits.header_count:
                many = h11.RemoteProtocolError(
                    f"request with {len(event.headers)} header fields (at most "
                    f"{limits.header_count})", error_status_hint=431)
                self.protocol.refusal = many
                raise many
            if isinstance(event, h11.EndOfMessage):
                self.protocol.request_arrived()
            return event

    class GuardedH11(H11Protocol):
        """See :mod:`scotlandyard.server.edge`."""

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            old = self.conn
            self.conn = _Conn(h11.SERVER, old._max_incomplete_event_size)
            self.conn.protocol = self
            self.refusal: h11.RemoteProtocolError | None = None
            self._deadline: asyncio.TimerHandle | None = None

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            host = self.client[0] if self.client else None
            why = counts.admit(transport, host)
            if why is not None:
                transport.write(_plain(429, "Too Many Requests", why + "; try again later"))
                transport.close()
                return
            self._arm()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            counts.release(self.transport)
            super().connection_lost(exc)

        def data_received(self, data: bytes) -> None:
            if self._deadline is None and self.conn.their_state is h11.IDLE:
                self._arm()  # the first byte of the next request on a kept-alive connection
            super().data_received(data)

        def request_arrived(self) -> None:
            """The request and its body are in: its time limit ends."""
            self._disarm()

        def handle_websocket_upgrade(self, event: h11.Request) -> None:
            self._disarm()  # the WebSocket protocol takes the transport (and its count)
            super().handle_websocket_upgrade(event)

        def _arm(self) -> None:
            if limits.request_seconds > 0:
                self._deadline = self.loop.call_later(limits.request_seconds, self._too_slow)

        def _disarm(self) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
                self._deadline = None

        def _too_slow(self) -> None:
            self._deadline = None
            if self.transport.is_closing():
                return
            if self.conn.our_state in (h11.IDLE, h11.SEND_RESPONSE) and (
                    self.cycle is None or not self.cycle.response_started):
                self.transport.write(_plain(
                    408, "Request Timeout",
                    f"the request did not arrive within {limits.request_seconds:g} s"))
            self.transport.close()

        def send_400_response(self, msg: str) -> None:
            exc, self.refusal = self.refusal, None
            if exc is None or exc.error_status_hint != 431:
                super().send_400_response(msg)
                return
            text = str(exc)
            if text == "Receive buffer too long":
                text = f"request line and headers over {limits.header_bytes} bytes"
            self._disarm()
            self.transport.write(_plain(431, "Request Header Fields Too Large", text))
            self.transport.close()

    return GuardedH11


def raise_file_limit(want: int = 1 << 20) -> tuple[int, int]:
    """Raise this process's soft limit on open files to its hard limit (at most ``want``):
    at the usual soft limit of 1,024, a thousand sockets leave nothing for the others.
    Returns the (old, new) soft limit."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = want if hard == resource.RLIM_INFINITY else min(hard, want)
    if soft != resource.RLIM_INFINITY and soft < target:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
        except (ValueError, OSError) as exc:  # a container may refuse; the server still runs
            log.warning("could not raise the open-file limit from %d: %s", soft, exc)
            return soft, soft
        return soft, target
    return soft, soft
