"""Audit what left the server: the bytes a detective's or spectator's connection received,
checked against the game's truth (Mr X's true travel log, known once the game is over).

Test and measurement equipment for the hidden-information rule (only ``game.view(...)`` decides
what a player sees): ``tests/test_server_live.py`` and ``benchmarks/server_attack.py`` run
whole games against a real server process, keep every frame sent to the detectives' and the
spectators' sockets, and hand each one to :func:`audit_frame` with Mr X's true log from the
game's full record. Every key that can carry a station must sit where the protocol puts it,
and hold Mr X's station only at a reveal (or after the end, when he opens his log).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from typing import Any

from ..move import parse_hidden
from ..view import LogEntry

__all__ = ["LeakFound", "audit_frame", "audit_state", "walk"]

HUNTERS = re.compile(r"^(D[1-5]|P[1-4])$")
STATION_KEYS = ("station", "mr_x_station", "salt", "start", "X")
# where such a key may stand in a state frame (what is there is checked separately)
STATION_PLACES = re.compile(r"\.view\.(log\[\d+\]\.station|mr_x_station|start|tickets\.X"
                            r"|rules\.start_deck_mr_x)|\.seats\.X|\.absent\.(seats|handed)\.X")
# the fields a REST state body adds to the state frame's
REST_ONLY = ("role", "pieces", "token_name", "game_id", "last_move_at")


class LeakFound(AssertionError):
    """A frame or body carried something its receiver must not see (the message says what and
    where)."""


def _need(ok: bool, what: str, where: str) -> None:
    if not ok:
        raise LeakFound(f"{what}: {where}")


def walk(value: Any, path: str = "") -> Iterator[tuple[str, str, Any]]:
    """Every (path, key, value) of the dicts nested in ``value`` (lists by index)."""
    if isinstance(value, dict):
        for k, v in value.items():
            yield f"{path}.{k}", k, v
            yield from walk(v, f"{path}.{k}")
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from walk(v, f"{path}[{i}]")


def audit_frame(text: str, who: str, truth_log: Sequence[LogEntry], game_id: str = "") -> str:
    """Check one frame sent to a detective's or spectator's socket (``who``: ``"spectator"``
    or a detectives' seat name); raise :class:`LeakFound` if it tells more than the seat's
    view may. Returns the frame's type."""
    msg = json.loads(text)
    audit_message(msg, who, truth_log, f"{game_id} {who}: {text[:200]}")
    return str(msg["type"])


def audit_state(body: dict[str, Any], who: str, truth_log: Sequence[LogEntry],
                game_id: str = "") -> None:
    """Check a REST ``GET /api/games/ID/state`` body fetched with a detective's or spectator's
    token: the state frame's fields, plus who asked."""
    msg = {"type": "state", **{k: v for k, v in body.items() if k not in REST_ONLY}}
    _need(body.get("role") in ("detectives", "spectator", "hotseat"), "a REST body for Mr X",
          f"{game_id} {who}")
    audit_message(msg, who, truth_log, f"{game_id} {who} (REST): {json.dumps(body)[:200]}")


def audit_message(msg: dict[str, Any], who: str, truth_log: Sequence[LogEntry],
                  where: str) -> None:
    """:func:`audit_frame` on a parsed message; ``where`` names it in the error."""
    if msg["type"] in ("chat", "chat_history"):
        entries = [msg["message"]] if msg["type"] == "chat" else msg["messages"]
        for e in entries:
            _need(set(e) == {"n", "at", "channel", "from", "text"}, "chat entry fields", where)
            if who == "spectator":
                _need(e["channel"] == "table", "a team message to a spectator", where)
        return
    if msg["type"] != "state":
        _need(msg["type"] in ("welcome", "ack", "pong", "error", "notice"),
              f"an unknown frame type {msg['type']!r}", where)
        _need(not any(k in ("station", "mr_x_station", "salt", "start") for _, k, _ in walk(msg)),
              "a station key outside a state", where)
        return
    view = msg["view"]
    if view["outcome"] is not None:  # Mr X opens his log at the end
        _need(bool(view["all_shown"]) and [e["station"] for e in view["log"]]
              == [e.station for e in truth_log], "the final log is not the truth", where)
        opened = [(o["slot"], o["station"]) for o in msg["openings"]]
        if opened and opened[0][0] == 0:  # the seal of his start, shown at the end too
            _need(opened[0][1] == view["start"].get("X"), "the opening of slot 0 is not the "
                  "start shown", where)
            opened = opened[1:]
        _need(opened == [(e.slot, e.station) for e in truth_log], "the openings are not the truth",
              where)
        return
    _need(msg["openings"] is None and not view["all_shown"], "openings before the end", where)
    log = view["log"]
    for p, key, _ in walk(msg):
        if key in STATION_KEYS:
            _need(STATION_PLACES.fullmatch(p) is not None, f"a station key at {p}", where)
    _need(set(msg["seats"]["X"]) == {"kind", "agent", "connected", "note", "open", "away"},
          "Mr X's seat fields", where)
    absent = msg.get("absent") or {}
    _need(set((absent.get("seats") or {}).get("X", {})) <= {"away", "takeover_in"}
          and isinstance((absent.get("handed") or {}).get("X", 0), int),
          "Mr X's absent fields", where)  # who left and when: nothing of where he is
    _need("X" not in view["start"] and "X" not in view["stations"], "Mr X's station", where)
    for e in log:
        true = truth_log[e["slot"] - 1]
        _need(e["station"] == (true.station if true.reveal else None),
              f"log slot {e['slot']}", where)
    last = truth_log[len(log) - 1] if log else None
    _need(view["mr_x_station"] == (last.station if last and last.reveal else None),
          "mr_x_station", where)
    slot = 0
    for h in view["history"]:
        if h["piece"] != "X" or h["move"].startswith("take:"):
            continue
        for _, station in parse_hidden(h["move"]):
            slot += 1
            true = truth_log[slot - 1]
            _need(station == (true.station if true.reveal else None),
                  f"history slot {slot}", where)
    _need([c["slot"] for c in msg["commitments"]] in ([e["slot"] for e in log],
                                                      [0] + [e["slot"] for e in log]),
          "commitments beyond the log", where)  # slot 0: the seal of his start
    if who == "spectator":
        _need(view["legal_moves"] == [], "legal moves for a spectator", where)
    for m in view["legal_moves"]:
        piece = m.split(":")[0] if ":" in m and not m.startswith("take:") else view["to_move"]
        _need(HUNTERS.match(piece) is not None, f"a legal move of {piece}", where)
