"""The leak audit (``scotlandyard.server.audit``) that the live server tests and
``benchmarks/server_attack.py`` apply to every frame: it passes what the server really sends
to detectives and spectators, and catches each kind of leak planted in a real body."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from scotlandyard.record import Record
from scotlandyard.server.app import create_app
from scotlandyard.server.audit import LeakFound, audit_frame, audit_state

pytestmark = pytest.mark.timeout(90)


def _played(client: TestClient, plies: int) -> tuple[dict, dict, list]:
    """A classic game with two detectives after ``plies`` random-ish moves made over REST
    state and the socket; returns (the game, a spectator's state body, Mr X's true log)."""
    g = client.post("/api/games", json={"preset": "classic", "detectives": 2}).json()
    names = {"X": g["tokens"]["X"], "detectives": g["tokens"]["detectives"]}
    for _ in range(plies):
        for tok in names.values():
            st = client.get(f"/api/games/{g['game_id']}/state",
                            headers={"Authorization": "Bearer " + tok}).json()
            if st["view"]["legal_moves"] and st["view"]["outcome"] is None:
                with client.websocket_connect(f"/ws/{g['game_id']}?token={tok}") as ws:
                    ws.send_json({"type": "move", "move": st["view"]["legal_moves"][-1]})
                    while ws.receive_json()["type"] != "ack":
                        pass
                break
    spect = client.get(f"/api/games/{g['game_id']}/state",
                       headers={"Authorization": "Bearer " + g["tokens"]["spectator"]}).json()
    full = client.get(f"/api/games/{g['game_id']}/record",
                      params={"format": "json"},
                      headers={"Authorization": "Bearer " + g["tokens"]["X"]}).text
    return g, spect, list(Record.parse(full).replay().log)


def test_the_audit_passes_real_bodies_and_catches_every_planted_leak(tmp_path: Path) -> None:
    with TestClient(create_app(tmp_path / "games.sqlite3", ai_delay=0)) as client:
        for _ in range(10):  # Mr X's start is secret, so now and then a game ends at once
            g, body, truth = _played(client, 8)
            if body["view"]["outcome"] is None and len(truth) >= 2:
                break
    assert body["view"]["outcome"] is None and len(truth) >= 2
    hidden = [e for e in truth if not e.reveal]
    audit_state(body, "spectator", truth, g["game_id"])  # the real body passes
    frame = {"type": "state", **{k: v for k, v in body.items()
                                 if k not in ("role", "pieces", "token_name", "game_id")}}
    assert audit_frame(json.dumps(frame), "spectator", truth) == "state"

    def planted(change) -> dict:
        f = copy.deepcopy(frame)
        change(f)
        return f

    slot = hidden[0].slot
    leaks = {
        "a hidden log slot": lambda f: f["view"]["log"][slot - 1].update(
            station=truth[slot - 1].station),
        "mr_x_station": lambda f: f["view"].update(mr_x_station=hidden[-1].station),
        "Mr X in the stations": lambda f: f["view"]["stations"].update(X=hidden[-1].station),
        "a station in an extra field": lambda f: f.update(debug={"station": 5}),
        "openings before the end": lambda f: f.update(openings=[]),
        "a move of Mr X's offered": lambda f: f["view"].update(legal_moves=["T1"]),
        "a station in Mr X's absent seat": lambda f: f["absent"]["seats"].update(
            X={"away": 1.0, "takeover_in": 2.0, "at": hidden[-1].station}),
        "a station as Mr X's hand-over ply": lambda f: f["absent"]["handed"].update(
            X=str(hidden[-1].station)),
        "a hidden station in the history": lambda f: [
            h.update(move=f"T{truth[0].station}") for h in f["view"]["history"][:1]],
    }
    for what, change in leaks.items():
        with pytest.raises(LeakFound):  # each planted leak is caught
            audit_frame(json.dumps(planted(change)), "spectator", truth)
            pytest.fail(f"not caught: {what}")
    with pytest.raises(LeakFound, match="station key outside a state"):
        audit_frame(json.dumps({"type": "ack", "version": 3, "station": 5}), "D1", truth)
    with pytest.raises(LeakFound, match="team message"):
        audit_frame(json.dumps({"type": "chat", "message": {
            "n": 1, "at": 0, "channel": "team", "from": "D1", "text": "hi"}}), "spectator", truth)
    with pytest.raises(LeakFound, match="for Mr X"):
        audit_state({**body, "role": "mr_x"}, "X", truth)
