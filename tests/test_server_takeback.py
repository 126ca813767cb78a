"""Takebacks tell nobody anything (docs/protocol.md "Takeback", issue 28 §1): a takeback undoes
only the requester's side's own moves made since the other side last moved (against the
computer too), a team mate's move only with that mate's agreement, each side a limited number of
times a game; whatever it undoes, what the detectives could know afterwards is no more than
before (the possible set does not shrink, the log is a prefix, no hidden station appears)."""

from __future__ import annotations

import random
import time
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scotlandyard.game import Game
from scotlandyard.move import MR_X
from scotlandyard.rules import Rules
from scotlandyard.server.again import TakebackRefused, piece_side, plan_takeback
from scotlandyard.server.app import create_app
from scotlandyard.server.limits import Limits

from .test_server_ws import Sockets, ask, create, send, until

pytestmark = pytest.mark.timeout(120)
AI = {"kind": "ai", "agent": "random"}


@pytest.fixture
def client(tmp_path: Path):
    with TestClient(create_app(tmp_path / "games.sqlite3", ai_delay=0, absent_timeout=0.3,
                               pace_mr_x=False)) as c:  # a fast AI Mr X (test-only)
        yield c


def _detectives_turn(ws: Any, seen: dict[str, Any]) -> dict[str, Any]:
    """``seen`` if it is a state where a detective is to move, else the next such state."""
    def ready(m: dict[str, Any]) -> bool:
        v = m.get("view") or {}
        return m["type"] == "state" and v.get("to_move") not in (None, MR_X) and \
            bool(v.get("legal_moves"))
    return seen if ready(seen) else until(ws, ready)


def _safe_move(view: dict[str, Any]) -> str:
    """A legal detective move that does not land where Mr X may be (the game goes on)."""
    possible = set(view["possible"])
    for m in view["legal_moves"]:
        dest = m.split(":")[-1].lstrip("TBU")
        if not (dest.isdigit() and int(dest) in possible):
            return str(m)
    return str(view["legal_moves"][0])


def _quiet(view: dict[str, Any]) -> list[str]:
    """The legal moves that do not land where Mr X may be (they tell the detectives nothing
    of him, so they may be taken back)."""
    possible = set(view["possible"])
    return [str(m) for m in view["legal_moves"]
            if not (m.split(":")[-1].lstrip("TBU").isdigit()
                    and int(m.split(":")[-1].lstrip("TBU")) in possible)]


def _round_one_quietly(client: TestClient, socks: Sockets) -> tuple[Any, Any, Any]:
    """A game of Mr X, D1 and D2 (people, a token each): Mr X moves, then D1 and D2 each make a
    quiet move (a new game until both can: all of a detective's moves may land where Mr X may
    be). Their sockets, at version 3."""
    for _ in range(30):
        g = create(client, detectives=2)
        wx, _, st = socks.open(g, "X")
        w1, _, _ = socks.open(g, "D1")
        w2, _, _ = socks.open(g, "D2")
        send(wx, type="move", move=st["view"]["legal_moves"][0])
        st = until(w1, lambda m: m["type"] == "state" and m["version"] == 1)
        if quiet := _quiet(st["view"]):
            assert ask(w1, type="move", move=quiet[0])["version"] == 2
            st = until(w2, lambda m: m["type"] == "state" and m["version"] == 2)
            if quiet := _quiet(st["view"]):
                assert ask(w2, type="move", move=quiet[0])["version"] == 3
                return wx, w1, w2
        for ws in (wx, w1, w2):
            socks.close(ws)
    raise AssertionError("30 games without quiet moves for D1 and D2")


def _play_to_the_first_reveal(ws: Any, st: dict[str, Any]) -> dict[str, Any]:
    """Play the detectives until Mr X's first reveal is in their log and they are to move."""
    while True:
        st = _detectives_turn(ws, st)
        if any(e["reveal"] and e["station"] is not None for e in st["view"]["log"]):
            return st
        ans = ask(ws, type="move", move=_safe_move(st["view"]))
        assert ans["type"] != "error", ans
        st = ans


def _knowledge(st: dict[str, Any]) -> tuple[list[Any], set[int]]:
    return st["view"]["log"], set(st["view"]["possible"])


@pytest.mark.parametrize("how", ["computer", "handed_over"])
def test_the_reveal_attack_is_refused(client, socks, how):
    """The attack of issue 28: play to a computer Mr X's reveal, take back the detectives'
    earlier moves. Before, the takeback also undid his revealed move (and his hidden station
    followed from it); now it is refused with ``not_allowed``, and nothing changes. The same
    for a human Mr X handed to the computer after the absent timeout."""
    if how == "computer":
        g = create(client, detectives=2, play_as="detectives", seats={"X": AI})
        wd, _, st = socks.open(g, "detectives")
    else:
        g = create(client, detectives=2)
        wd, _, st = socks.open(g, "detectives")
        time.sleep(0.4)  # Mr X's player never came: past the absent timeout
        st = ask(wd, type="takeover", piece="X", agent="random")
        assert st["type"] == "state", st
    st = _play_to_the_first_reveal(wd, st)
    version, (log, possible) = st["version"], _knowledge(st)
    err = ask(wd, type="takeback")
    assert err["type"] == "error" and err["code"] == "not_allowed", err
    assert "Mr X moved after your last move" in err["message"]
    now = ask(wd, type="sync")
    assert now["version"] == version and _knowledge(now) == (log, possible)
    # a move of their own made since his reveal is theirs to take back, at once: nothing of
    # his is undone, and they know no more than before it
    moved = ask(wd, type="move", move=_quiet(st["view"])[0])  # his station shown: not there
    assert moved["version"] == version + 1
    back = ask(wd, type="takeback")
    assert back["type"] == "state" and back["version"] == version, back
    assert back["view"]["log"] == log and set(back["view"]["possible"]) >= possible
    assert back["view"]["to_move"] == st["view"]["to_move"]


def test_a_team_mates_move_needs_that_mates_agreement(client, socks):
    """D1 cannot undo D2's move unasked: D2 (whose move it undoes) and Mr X (a person) must
    both agree; D1 cannot answer his own offer; one refusal drops it."""
    wx, w1, w2 = _round_one_quietly(client, socks)
    # Mr X has not moved since: D1 may ask, and the offer undoes D1's and D2's moves
    offer = ask(w1, type="takeback")["takeback"]
    assert offer == {"by": "D1", "side": "detectives", "to_ply": 2, "opponent": True,
                     "mates": ["D2"]}
    assert ask(w1, type="takeback", accept=True)["code"] == "not_allowed"  # not his own
    st = ask(wx, type="takeback", accept=True)  # Mr X agrees: D2 still has to
    assert st["version"] == 3 and st["takeback"]["opponent"] is False
    assert st["takeback"]["mates"] == ["D2"]
    st = ask(w2, type="takeback", accept=False)  # D2 refuses: nothing is undone
    assert st["version"] == 3 and st["takeback"] is None
    ask(w1, type="takeback")
    ask(w2, type="takeback", accept=True)
    st = ask(wx, type="takeback", accept=True)
    assert st["version"] == 1 and st["takeback"] is None and st["view"]["to_move"] == "D1"


def test_a_takeback_by_one_detective_of_his_own_move_alone(client, socks):
    """D2 takes back only his own move (D1's stays): D1's agreement is not asked, Mr X's is."""
    wx, w1, w2 = _round_one_quietly(client, socks)
    assert ask(w2, type="takeback")["takeback"]["mates"] == []
    st = ask(wx, type="takeback", accept=True)
    assert st["version"] == 2 and st["view"]["to_move"] == "D2"
    assert ask(w1, type="takeback")["takeback"]["mates"] == []  # D2's move is gone already


def test_each_side_has_a_limited_number_of_takebacks(tmp_path):
    """``Limits.takebacks``: the third takeback of a side is refused with a clear error."""
    with TestClient(create_app(tmp_path / "g.sqlite3", ai_delay=0, pace_mr_x=False,
                               limits=Limits(takebacks=2))) as c:
        s = Sockets(c)
        try:
            for _ in range(30):  # a game where D1 has a quiet move (one that may be undone)
                g = create(c, detectives=2, play_as="detectives", seats={"X": AI})
                wd, _, st = s.open(g, "detectives")
                st = _detectives_turn(wd, st)
                if quiet := _quiet(st["view"]):
                    break
                s.close(wd)
            for _ in range(2):
                assert ask(wd, type="move", move=quiet[0])["type"] == "state"
                assert ask(wd, type="takeback")["version"] == st["version"]
            assert ask(wd, type="move", move=quiet[0])["type"] == "state"
            err = ask(wd, type="takeback")
            assert err["code"] == "not_allowed", err
            assert "used its 2 takebacks of this game" in err["message"]
            assert c.app.state.games.rooms[g["game_id"]].options["takebacks"] == {
                "detectives": 2}
        finally:
            s.close_all()


# ---- the rule, over random games and random takeback sequences ---------------------------------
def _detectives_know(game: Game) -> tuple[list[dict[str, Any]], frozenset[int], set[int]]:
    """What the detectives' view tells: the log, the possible set, every station of Mr X in it."""
    d = game.view(game.pieces[1]).to_dict()
    shown = {e["station"] for e in d["log"] if e["station"] is not None}
    if d["mr_x_station"] is not None:
        shown.add(d["mr_x_station"])
    return d["log"], frozenset(d["possible"]), shown


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), preset=st.sampled_from(
    ["classic", "new_edition", "classic_extra"]), detectives=st.integers(1, 4),
       steps=st.lists(st.tuples(st.booleans(), st.integers(0, 9), st.integers(0, 4)),
                      min_size=5, max_size=80))
def test_no_takeback_tells_the_detectives_anything(seed, preset, detectives, steps):
    """Random games, random takeback requests by random players (Mr X, the detectives' token,
    one detective) against a computer other side: every takeback the rule allows undoes
    only moves of the requester's side made since the other side last moved, and afterwards
    the detectives' log is a prefix of the one before, their possible set a superset when
    the log is unchanged (the same, in fact: a move of theirs that narrowed it down is not
    taken back), and no station of Mr X appears that they did not see before."""
    rules = (Rules.classic(detectives, extra_reveal=True) if preset == "classic_extra"
             else getattr(Rules, preset)(detectives))
    rng = random.Random(seed)
    game = Game.new(rules, seed=seed)
    granted = refused = 0
    for ask_takeback, who, moves in steps:
        if game.is_over():
            break
        if ask_takeback and game.ply:
            if who % 3 == 0:
                side, mine = "mr_x", (MR_X,)
            elif who % 3 == 1:
                side, mine = "detectives", game.pieces[1:]
            else:
                side, mine = "detectives", (game.pieces[1 + who % (len(game.pieces) - 1)],)
            before = _detectives_know(game)
            history = game.moves
            try:
                plan = plan_takeback(game, side, mine, human=mine)
            except TakebackRefused:
                refused += 1
                continue
            undone = history[plan.ply - 1:]
            assert undone and all(piece_side(p) == side for p, _ in undone)
            assert undone[0][0] in mine and plan.mates == frozenset()
            assert all(p not in mine for p, _ in undone[1:])  # the requester's last move first
            everyone = plan_takeback(game, side, mine, human=game.pieces)  # mates are asked
            assert everyone.mates == {p for p, _ in undone if p not in mine}
            for _ in undone:
                game.pop()
            granted += 1
            log, possible, shown = _detectives_know(game)
            assert log == before[0][:len(log)]
            if side == "detectives":  # nothing of his undone, nothing they had learnt lost
                assert log == before[0] and possible >= before[1] and possible == before[1]
            assert shown <= before[2]
        else:
            for _ in range(moves + 1):
                if game.is_over():
                    break
                game.push(rng.choice(game.legal_moves()))


def test_a_detectives_move_that_showed_where_mr_x_is_not_is_not_taken_back():
    """A probe: a detective moves onto a station where Mr X may be and is not (the possible
    set loses it), then takes the move back to try another. Refused: that move told them
    something, and a takeback must not let them keep it while standing elsewhere."""
    rules = Rules.classic(2)
    for seed in range(200):
        game = Game.new(rules, seed=seed)
        rng = random.Random(seed)
        while not game.is_over() and game.to_move != "D1":
            game.push(rng.choice(game.legal_moves()))
        if game.is_over():
            continue
        possible = game.possible_locations()
        probes = [m for m in game.legal_moves() if m.destination in possible
                  and m.destination != game.station(MR_X)]
        quiet = [m for m in game.legal_moves() if m.destination not in possible]
        if probes and quiet:
            break
    else:  # pragma: no cover - the seeds above always have one
        raise AssertionError("no position with a probe found")
    game.push(probes[0])
    assert len(game.possible_locations()) < len(possible)
    with pytest.raises(TakebackRefused, match=rf"D1's move to {probes[0].destination} showed "
                       "that Mr X is not there"):
        plan_takeback(game, "detectives", ("D1", "D2"), ("D1", "D2"))
    game.pop()
    game.push(quiet[0])
    assert plan_takeback(game, "detectives", ("D1", "D2"), ("D1", "D2")).ply == game.ply
