"""An external bot: plays one seat of a web game over the WebSocket protocol.

This is the whole of what a program needs to play on a ``scotlandyard serve`` server
(``docs/protocol.md``): connect with the seat's token, read ``state`` frames, and when the
seat is to move send one of the view's ``legal_moves``. This one picks uniformly at random
(the random agent's policy); put your own policy in :func:`choose`.

Run it with an invite link (or a ``ws://`` URL)::

    python -m scotlandyard.server.client_example "http://127.0.0.1:8000/game/GAME_ID#t=TOKEN"

It plays until the game ends (or ``--max-moves``) and prints each move it makes.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import random
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, urlsplit

import websockets


class BotError(RuntimeError):
    """The server refused the bot (bad token, unknown game) or broke the protocol."""


@dataclass
class BotResult:
    """What a bot run did: the moves it made and the game's outcome if it ended."""

    moves: list[str]
    outcome: dict[str, Any] | None
    version: int


def socket_url(link: str) -> str:
    """The WebSocket URL of an invite link ``http://host/game/ID#t=TOKEN`` (a ``ws://`` URL is
    returned as it is)."""
    if link.startswith(("ws://", "wss://")):
        return link
    parts = urlsplit(link)
    segs = [s for s in parts.path.split("/") if s]
    if len(segs) != 2 or segs[0] != "game" or not parts.fragment.startswith("t="):
        raise BotError(f"not an invite link (http://host/game/ID#t=TOKEN): {link!r}")
    scheme = "wss" if parts.scheme == "https" else "ws"
    return f"{scheme}://{parts.netloc}/ws/{segs[1]}?token={quote(parts.fragment[2:])}"


def my_moves(state: dict[str, Any], pieces: set[str]) -> list[str]:
    """The legal moves this bot may make now: those of its pieces whose seat a human (this
    bot) plays. In free order the moves name their piece (``D2:T92``)."""
    view = state["view"]
    out = []
    for move in view["legal_moves"]:
        head, sep, _ = move.partition(":")
        piece = head if sep and head != "take" else view["to_move"]
        seat = state["seats"].get(piece, {})
        if piece in pieces and seat.get("kind") == "human":
            out.append(move)
    return out


def choose(state: dict[str, Any], moves: list[str], rng: random.Random) -> str:
    """The bot's policy: here, a uniformly random legal move. ``state["view"]`` is everything
    the seat may know (see ``docs/protocol.md``)."""
    return rng.choice(moves)


async def play(url: str, *, max_moves: int | None = None, seed: int | None = None,
               verbose: bool = False) -> BotResult:
    """Play the seat of ``url`` (an invite link or WebSocket URL) until the game ends or the
    bot has made ``max_moves`` moves."""
    rng = random.Random(seed)
    ids = (f"m{n}" for n in itertools.count(1))
    made: list[str] = []
    async with websockets.connect(socket_url(url), max_size=2**23) as ws:
        welcome = json.loads(await ws.recv())
        if welcome.get("type") != "welcome":
            raise BotError(f"refused: {welcome.get('message', welcome)}")
        pieces = set(welcome["pieces"])
        waiting: str | None = None  # id of our move until its ack (or error) comes back
        acted_on = -1               # the version we last sent a move for
        version = -1
        outcome = None
        async for frame in ws:
            msg = json.loads(frame)
            kind = msg.get("type")
            if kind == "error":
                if waiting is not None and msg.get("id") == waiting:
                    waiting = None  # e.g. a partner moved first; ask for a fresh state
                    acted_on = -1
                    await ws.send(json.dumps({"type": "sync"}))
                    continue
                raise BotError(f"{msg['code']}: {msg['message']}")
            if kind == "ack":
                waiting = None
                continue
            if kind != "state":
                continue
            version = msg["version"]
            outcome = msg["view"]["outcome"]
            if outcome is not None or (max_moves is not None and len(made) >= max_moves):
                break
            if waiting is not None or version == acted_on:
                continue
            moves = my_moves(msg, pieces)
            if not moves:
                continue
            move = choose(msg, moves, rng)
            waiting = next(ids)
            acted_on = version
            await ws.send(json.dumps({"type": "move", "move": move, "id": waiting}))
            made.append(move)
            if verbose:
                print(f"round {msg['view']['round']}: {move}")
    return BotResult(made, outcome, version)


def main(argv: list[str] | None = None) -> None:
    """Command line: ``python -m scotlandyard.server.client_example LINK``."""
    parser = argparse.ArgumentParser(description="Play one seat of a scotlandyard web game "
                                                 "with random legal moves.")
    parser.add_argument("link", help="invite link http://host/game/ID#t=TOKEN or ws:// URL")
    parser.add_argument("--max-moves", type=int, default=None, help="stop after this many moves")
    parser.add_argument("--seed", type=int, default=None, help="random seed of the bot")
    args = parser.parse_args(argv)
    result = asyncio.run(play(args.link, max_moves=args.max_moves, seed=args.seed, verbose=True))
    print(result.outcome["text"] if result.outcome else f"stopped after {len(result.moves)} moves")


if __name__ == "__main__":
    main()
