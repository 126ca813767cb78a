"""A connection's frames written at once (``connections.WRITE_NOW``, given by the server's own
WebSocket protocol, ``cli.lenient_websockets``): the frames of one turn of the event loop go
out in one write, framed exactly as uvicorn's ``send`` frames them; a socket that cannot take
them now (closing, or its buffer over the high-water mark) gets them through the ASGI ``send``
instead, in order, and a client that does not read is still evicted."""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path
from typing import Any

from uvicorn.config import Config
from uvicorn.server import ServerState
from websockets.client import ClientProtocol
from websockets.frames import Frame, Opcode
from websockets.uri import parse_uri

from scotlandyard.server.cli import lenient_websockets
from scotlandyard.server.connections import WRITE_NOW, Connection

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
from server_cpu import MemoryTransport as Transport  # noqa: E402  (the benchmark's)


def _texts(client: ClientProtocol, data: bytes) -> list[str]:
    client.receive_data(data)
    return [e.data.decode() for e in client.events_received()
            if isinstance(e, Frame) and e.opcode is Opcode.TEXT]


def test_one_write_for_a_turns_frames_and_the_asgi_send_when_the_buffer_is_full() -> None:
    async def go() -> None:
        seen: dict[str, Any] = {}
        release = asyncio.Event()

        async def app(scope: Any, receive: Any, send: Any) -> None:
            await receive()  # websocket.connect
            await send({"type": "websocket.accept"})
            seen["write_now"] = scope["extensions"][WRITE_NOW]
            seen["send"] = send
            await release.wait()

        config = Config(app=app, ws=lenient_websockets(), ws_per_message_deflate=False,
                        log_level="warning")
        config.load()
        proto = config.ws_protocol_class(config, ServerState(), {},  # type: ignore[misc]
                                         _loop=asyncio.get_running_loop())
        transport = Transport()
        proto.connection_made(transport)
        client = ClientProtocol(parse_uri("ws://127.0.0.1:8000/ws/g"))
        client.send_request(client.connect())
        proto.data_received(b"".join(client.data_to_send()))
        for _ in range(5):
            await asyncio.sleep(0)
        client.receive_data(b"".join(transport.writes))
        assert client.events_received()  # the handshake's answer
        transport.writes.clear()

        async def send_text(text: str) -> None:
            await seen["send"]({"type": "websocket.send", "text": text})

        conn = Connection(send_text, lambda code: None, "X", "mr_x", ("X",),
                          write_now=seen["write_now"])
        conn.send('{"type":"ack"}')
        conn.send('{"type":"state","view":{"é":1}}')
        assert not transport.writes  # at the end of the turn
        await asyncio.sleep(0)
        assert len(transport.writes) == 1  # both frames in one write
        assert _texts(client, transport.writes[0]) == ['{"type":"ack"}',
                                                       '{"type":"state","view":{"é":1}}']
        transport.writes.clear()

        proto.pause_writing()  # over the high-water mark: the ASGI send waits for room
        conn.send("one")
        conn.send("two")
        await asyncio.sleep(0.01)
        assert not transport.writes and conn._sending_since is not None
        proto.resume_writing()
        await asyncio.sleep(0.01)
        conn.send("three")  # and once the sender has caught up, one write again
        await asyncio.sleep(0.01)
        assert [t for w in transport.writes for t in _texts(client, w)] == ["one", "two",
                                                                             "three"]
        assert len(transport.writes) == 3

        transport.closing = True  # a closing socket takes nothing directly
        assert seen["write_now"](["four"]) is False
        release.set()
        await asyncio.sleep(0)

    asyncio.run(go())


def test_a_socket_whose_buffer_stays_full_is_evicted() -> None:
    async def go() -> tuple[str | None, list[list[str]]]:
        written: list[list[str]] = []
        room = asyncio.Event()

        def write_now(texts: list[str]) -> bool:
            if not room.is_set():
                return False
            written.append(texts)
            return True

        async def send_text(text: str) -> None:
            await room.wait()  # the client does not read: no room ever comes

        async def close(code: int) -> None:
            pass

        conn = Connection(send_text, close, "spectator", "spectator", (), send_timeout=0.2,
                          write_now=write_now)
        conn.send("x" * 100)
        await asyncio.sleep(0.05)
        assert not conn.check(time.monotonic())
        await asyncio.sleep(0.25)
        assert conn.check(time.monotonic())  # stuck for 0.2 s: out
        conn.send("more")
        await asyncio.sleep(0)
        return conn.evicted, written

    why, written = asyncio.run(go())
    assert why is not None and "no frame could be sent for 0.2 s" in why and written == []


def test_drain_writes_what_is_queued_and_stop_drops_it() -> None:
    async def go() -> tuple[list[list[str]], list[list[str]]]:
        drained: list[list[str]] = []
        stopped: list[list[str]] = []

        async def never(text: str) -> None:  # pragma: no cover - the direct write takes all
            raise AssertionError("not used")

        a = Connection(never, lambda code: None, "X", "mr_x", ("X",),
                       write_now=lambda t: drained.append(t) is None)
        a.send("bye")
        await a.drain()
        a.send("later")  # dropped: drained connections take nothing more
        b = Connection(never, lambda code: None, "X", "mr_x", ("X",),
                       write_now=lambda t: stopped.append(t) is None)
        b.send("lost")
        b.stop()
        await asyncio.sleep(0)
        return drained, stopped

    drained, stopped = asyncio.run(go())
    assert drained == [["bye"]] and stopped == []
