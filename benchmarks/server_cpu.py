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

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from scotlandyard.game import Game  # noqa: E402
from scotlandyard.rules import preset_info  # noqa: E402
from scotlandyard.server import rooms  # noqa: E402
from scotlandyard.server.connections import Connection  # noqa: E402
from scotlandyard.server.protocol import parse_client_message  # noqa: E402
from scotlandyard.server.rooms import GameServer, Seat  # noqa: E402
from scotlandyard.server.store import Store  # noqa: E402


async def _drop(*_: object) -> None:
    return None


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
            preset = ("classic", "new_edition")[n % 2]
            rules = preset_info(preset).rules()
            out = await server.open_game(rules, preset, {p: Seat(p, "human")
                                                               for p in rules.pieces},
                                         ["X", "detectives", "spectator"], hotseat=False,
                                         seed=rng.randrange(2**31), public=False, options={},
                                         you=None)
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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=20, help="random games to play (default 20)")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
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
