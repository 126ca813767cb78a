"""The game server's CPU per move, in process: what one move costs the event loop's thread.

Plays whole random games through the server's own room code (``Room.handle`` of a ``move``
frame, parsed as a socket's text is: check, commit to a SQLite file in the database thread,
``ack``, a ``state`` frame for each of three sockets: Mr X, the detectives, a spectator) with
sockets that drop what they are sent, and measures the CPU time of the event loop's thread
per move (``time.thread_time``, so other processes on the machine change it little; the
database thread's own work is not counted). Baseline in the same run: the core's part, the
three views built and turned into dicts (``game.view(key).to_dict()``), timed alone on the
same positions.

    python benchmarks/server_cpu.py              # 20 games, about 20 s
    python benchmarks/server_cpu.py --games 5

``--stack``: the whole server in process instead, as a socket reaches it: the app
(``create_app``: its middleware, routes and lifespan) served by the server's own WebSocket
protocol (uvicorn's ``websockets-sansio``, ``cli.lenient_websockets``) over in-memory
transports, three sockets a game opened with a real handshake (``websockets``' client
protocol, masked frames); each move is a ``move`` frame fed to the mover's protocol, and a
move is done when the mover's ``ack`` and every socket's ``state`` have been written to the
transports. The event loop thread's CPU a move then includes uvicorn's and ``websockets``'
framing, the ASGI layers, parsing and the sender tasks, everything but the kernel's socket
work (and the database thread's)::

    python benchmarks/server_cpu.py --stack --games 20
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from scotlandyard.game import Game  # noqa: E402
from scotlandyard.rules import Rules, preset_info  # noqa: E402
from scotlandyard.server import rooms  # noqa: E402
from scotlandyard.server.connections import Connection  # noqa: E402
from scotlandyard.server.games import GameServer  # noqa: E402
from scotlandyard.server.protocol import parse_client_message  # noqa: E402
from scotlandyard.server.seats import Seat  # noqa: E402
from scotlandyard.server.store import Store  # noqa: E402


async def _drop(*_: object) -> None:
    return None


async def _open_game(server: GameServer, n: int,
                     rng: random.Random) -> tuple[Rules, dict[str, Any]]:
    """Game ``n``: classic or new edition in turns, every seat human, three tokens."""
    preset = ("classic", "new_edition")[n % 2]
    rules = preset_info(preset).rules()
    out = await server.open_game(rules, preset, {p: Seat(p, "human") for p in rules.pieces},
                                 ["X", "detectives", "spectator"], hotseat=False,
                                 seed=rng.randrange(2**31), public=False, options={}, you=None)
    return rules, out


async def play(games: int, seed: int) -> tuple[int, float, float, float]:
    """(moves, loop-thread CPU s, core views CPU s, wall s) over ``games`` random games.

    The same games every run (for comparing two versions of the code): the start stations
    come from the seed here (the server draws Mr X's with secret randomness)."""
    rooms.draw_server_start = Game.draw_start  # type: ignore[assignment]
    workdir = tempfile.mkdtemp(prefix="sy-cpu-")
    server = GameServer(Store(os.path.join(workdir, "games.sqlite3")), ai_delay=0)
    rng = random.Random(seed)
    moves = 0
    cpu = views = 0.0
    wall0 = time.perf_counter()
    try:
        for n in range(games):
            rules, out = await _open_game(server, n, rng)
            room = server.rooms[out["game_id"]]
            socks = {name: Connection(_drop, _drop, name, role, pieces) for name, role, pieces in
                     (("X", "mr_x", ("X",)), ("detectives", "detectives", rules.pieces[1:]),
                      ("spectator", "spectator", ()))}
            for conn in socks.values():
                room.join(conn)
            game = room.game
            while not game.is_over():
                move = rng.choice(game.legal_moves())
                conn = socks["X"] if (move.piece or game.to_move) == "X" else socks["detectives"]
                text = json.dumps({"type": "move", "move": move.notation(), "id": game.ply})
                t0 = time.thread_time()
                await room.handle(conn, parse_client_message(text))
                for _ in range(3):  # the sockets' sender tasks take their frames
                    await asyncio.sleep(0)
                cpu += time.thread_time() - t0
                moves += 1
                t0 = time.thread_time()
                for key in ("X", rules.pieces[1], "spectator"):
                    game.view(key).to_dict()
                views += time.thread_time() - t0
            for conn in socks.values():
                room.leave(conn)
    finally:
        server.shutdown()
    return moves, cpu, views, time.perf_counter() - wall0


class MemoryTransport(asyncio.Transport):
    """An in-memory socket end: what the server writes, kept (``data``, and each write in
    ``writes``), and a wake-up for a waiter."""

    def __init__(self) -> None:
        super().__init__()
        self.data = bytearray()
        self.writes: list[bytes] = []
        self.waiter: asyncio.Future[None] | None = None
        self.closing = False

    def write(self, data: object) -> None:
        self.writes.append(bytes(data))  # type: ignore[call-overload]
        self.data += data  # type: ignore[operator]
        if self.waiter is not None and not self.waiter.done():
            self.waiter.set_result(None)

    def is_closing(self) -> bool:
        return self.closing

    def close(self) -> None:
        self.closing = True

    def pause_reading(self) -> None:
        pass

    def resume_reading(self) -> None:
        pass

    def get_extra_info(self, name: str, default: object = None) -> object:
        return {"peername": ("127.0.0.1", 40000), "sockname": ("127.0.0.1", 8000)}.get(
            name, default)

    async def wait_for(self, marker: bytes, keep: bool = False) -> None:
        """Until ``marker`` has been written (then forget what was written, unless ``keep``)."""
        while marker not in self.data:
            self.waiter = asyncio.get_running_loop().create_future()
            await self.waiter
        if not keep:
            self.data.clear()


async def play_stack(games: int, seed: int) -> tuple[int, float, float, float]:
    """(moves, loop-thread CPU s, 0, wall s): ``--stack`` (see the module's docstring)."""
    from dataclasses import replace

    from uvicorn.config import Config
    from uvicorn.server import ServerState
    from websockets.client import ClientProtocol
    from websockets.uri import parse_uri

    from scotlandyard.server.app import create_app
    from scotlandyard.server.cli import lenient_websockets
    from scotlandyard.server.limits import Limits

    rooms.draw_server_start = Game.draw_start  # type: ignore[assignment]
    workdir = tempfile.mkdtemp(prefix="sy-cpu-")
    limits = replace(Limits(), games_per_minute=0, lobby_per_minute=0, sockets_per_client=0,
                     sockets_per_token=0)
    app = create_app(os.path.join(workdir, "games.sqlite3"), ai_delay=0, limits=limits)
    config = Config(app=app, ws=lenient_websockets(), ws_per_message_deflate=False,
                    log_level="warning")
    config.load()
    state = ServerState()
    loop = asyncio.get_running_loop()
    rng = random.Random(seed)
    moves = 0
    cpu = 0.0
    wall0 = time.perf_counter()
    async with app.router.lifespan_context(app):
        server = app.state.games
        for n in range(games):
            rules, out = await _open_game(server, n, rng)
            socks = {}
            for name in ("X", "detectives", "spectator"):
                proto = config.ws_protocol_class(config, state, {}, _loop=loop)  # type: ignore[misc]
                transport = MemoryTransport()
                proto.connection_made(transport)
                client = ClientProtocol(parse_uri(
                    f"ws://127.0.0.1:8000/ws/{out['game_id']}?token={out['tokens'][name]}"))
                client.send_request(client.connect())
                proto.data_received(b"".join(client.data_to_send()))
                await transport.wait_for(b'"type":"state"', keep=True)  # accepted, welcome,
                client.receive_data(bytes(transport.data))               # first state
                client.events_received()
                transport.data.clear()
                socks[name] = (proto, client, transport)
            game = server.rooms[out["game_id"]].game
            while not game.is_over():
                move = rng.choice(game.legal_moves())
                mover = "X" if (move.piece or game.to_move) == "X" else "detectives"
                proto, client, transport = socks[mover]
                client.send_text(json.dumps({"type": "move", "move": move.notation(),
                                             "id": game.ply}).encode())
                frame = b"".join(client.data_to_send())
                t0 = time.thread_time()
                proto.data_received(frame)
                await transport.wait_for(b'"type":"ack"', keep=True)
                for name in socks:
                    if name != mover or b'"type":"state"' not in transport.data:
                        await socks[name][2].wait_for(b'"type":"state"')
                    socks[name][2].data.clear()
                cpu += time.thread_time() - t0
                moves += 1
            for proto, _client, _transport in socks.values():
                proto.connection_lost(None)
            await asyncio.sleep(0.01)
    return moves, cpu, 0.0, time.perf_counter() - wall0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=20, help="random games to play (default 20)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--stack", action="store_true",
                    help="the whole server in process: app, WebSocket protocol, framing")
    args = ap.parse_args()
    if args.stack:
        moves, cpu, _, wall = asyncio.run(play_stack(max(1, args.games), args.seed))
        print(f"scotlandyard server CPU per move, whole stack in process, Python "
              f"{sys.version.split()[0]}, {os.cpu_count()} CPUs, load average "
              f"{os.getloadavg()[0]:.2f}; {args.games} games, {moves} moves, {wall:.1f} s")
        print(f"{'event loop thread, whole move (frame in .. ack and 3 states out)':<64} "
              f"{cpu * 1000 / moves:>7.3f} ms")
        return
    moves, cpu, views, wall = asyncio.run(play(max(1, args.games), args.seed))
    print(f"scotlandyard server CPU per move, in process, Python {sys.version.split()[0]}, "
          f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}; {args.games} games, "
          f"{moves} moves, {wall:.1f} s")
    print(f"{'part':<58} {'ms a move':>9}")
    print(f"{'event loop thread, whole move (parse, check, commit, ack, 3 states)':<58} "
          f"{cpu * 1000 / moves:>9.3f}")
    print(f"{'  baseline: the core builds the 3 views and their dicts':<58} "
          f"{views * 1000 / moves:>9.3f}")
    print(f"{'  the server besides (maps, seats, JSON, queues, DB hand-off)':<58} "
          f"{(cpu - views) * 1000 / moves:>9.3f}")


if __name__ == "__main__":
    main()
