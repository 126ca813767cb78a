"""The server's public map is extended ply by ply (``belief.extend_path_counts``, kept by
``Room.public_beliefs``) instead of replaying the whole history each move: it must equal
``probability_map(spectator view)`` at every ply of random games of every preset, with
takebacks (police, voluntary reveals and Mr X's takes included), and the room's map must be
the rounded one it sends."""

from __future__ import annotations

import asyncio
import random

import pytest

from scotlandyard.belief import (
    extend_path_counts,
    normalize_path_counts,
    path_counts,
    probability_map,
)
from scotlandyard.game import Game
from scotlandyard.rules import preset_info
from scotlandyard.server.games import GameServer
from scotlandyard.server.seats import Seat
from scotlandyard.server.store import Store

PRESETS = ("classic", "new_edition", "classic_2p", "new_edition_2p", "classic_pl", "classic_ru")


@pytest.mark.parametrize("preset", PRESETS)
def test_extended_counts_equal_the_replay_at_every_ply(preset: str) -> None:
    rng = random.Random(preset)
    for seed in range(3):
        game = Game.new(preset_info(preset).rules(), seed=seed)
        counts = path_counts(game.view("spectator"))
        while not game.is_over():
            game.push(rng.choice(game.legal_moves()))
            view = game.view("spectator")
            counts = extend_path_counts(view, counts)
            assert counts == path_counts(view), (preset, seed, game.ply)
            assert normalize_path_counts(view, counts) == probability_map(view), game.ply
            if game.ply > 3 and rng.random() < 0.05:  # a takeback: counted afresh
                game.pop()
                counts = path_counts(game.view("spectator"))


def test_the_rooms_map_is_the_replays_through_takebacks(tmp_path) -> None:  # type: ignore[no-untyped-def]
    async def play() -> None:
        server = GameServer(Store(str(tmp_path / "games.sqlite3")), ai_delay=0)
        rng = random.Random(5)
        try:
            for preset in ("classic", "new_edition_2p"):
                rules = preset_info(preset).rules()
                out = await server.open_game(rules, preset,
                                             {p: Seat(p, "human") for p in rules.pieces},
                                             ["X", "detectives", "spectator"], hotseat=False,
                                             seed=None, public=False, options={}, you=None)
                room = server.rooms[out["game_id"]]
                game = room.game
                while not game.is_over():
                    if game.ply > 4 and rng.random() < 0.06:
                        await room.take_back(game.ply - rng.randint(1, 3))
                    else:
                        await room.apply(rng.choice(game.legal_moves()))
                    prob, _ = room.public_beliefs()
                    want = probability_map(game.view("spectator"))
                    assert prob == {str(s): round(p, 6) for s, p in want.items()}, game.ply
        finally:
            server.shutdown()

    asyncio.run(play())
