"""Finished games for the seal checks, played offline through the core (no server): Mr X
spends his special tickets first (takes where the variant has them, then double moves, then
black tickets), so the ticket counts of ``scotlandyard verify`` and of the page are exercised."""

from __future__ import annotations

import json
import random
from typing import Any

from scotlandyard.game import Game
from scotlandyard.move import Ticket
from scotlandyard.rules import Rules
from scotlandyard.server.seal import commitment


def finished_state(rules: Rules, seed: int, game_id: str = "G1") -> dict[str, Any]:
    """The ``state`` a server sends at the end of a game (``view`` as JSON, the commitments
    published and their openings, Mr X's start as slot 0) of a game played with ``seed``."""
    game = Game.new(rules, seed=seed)
    rng = random.Random(seed)
    while not game.is_over():
        legal = game.legal_moves()
        if game.to_move == "X":
            legal = ([m for m in legal if m.kind == "take"]
                     or [m for m in legal if m.kind == "double"]
                     or [m for m in legal if m.kind == "single" and m.ticket == Ticket.BLACK]
                     or legal)
        game.push(rng.choice(legal))
    openings = [{"slot": 0, "station": game.start["X"], "salt": f"{0:032x}"}]  # his start
    openings += [{"slot": e.slot, "station": e.station, "salt": f"{e.slot:032x}"}
                 for e in game.log]
    return {
        "game_id": game_id,
        "view": json.loads(json.dumps(game.view("spectator").to_dict())),
        "commitments": [{"slot": o["slot"], "hash": commitment(game_id, o["slot"], o["station"],
                                                               o["salt"])} for o in openings],
        "openings": openings,
    }


def spent(view: dict[str, Any]) -> dict[str, int]:
    """How many black tickets and double moves Mr X's log and history show."""
    return {"black": sum(e["ticket"] == "black" for e in view["log"]),
            "double": sum(h["piece"] == "X" and "+" in h["move"] for h in view["history"]),
            "plain": sum(e["ticket"] != "black" for e in view["log"])}
