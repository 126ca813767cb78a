"""The seal check verifies moves, not only hashes (issue 10, finding 5): from the openings and
the public log alone, Mr X's journey must be legal with the tickets shown. A server that forges
a path and commits to it consistently (hashes that match) is caught."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from scotlandyard.board import london
from scotlandyard.server.app import create_app
from scotlandyard.server.seal import commitment, verify_seal

pytestmark = pytest.mark.timeout(120)


@pytest.fixture(scope="module")
def finished(tmp_path_factory) -> dict:
    db = tmp_path_factory.mktemp("seal") / "g.sqlite3"
    with TestClient(create_app(db, ai_delay=0, pace_mr_x=False)) as c:  # a whole AI game: fast
        g = c.post("/api/games", json={"preset": "classic", "detectives": 1, "seats": {
            "X": {"kind": "ai", "agent": "random"}, "D1": {"kind": "ai", "agent": "random"}}}).json()
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            st = c.get(f"/api/games/{g['game_id']}/state",
                       params={"token": g["tokens"]["spectator"]}).json()
            if st["view"]["outcome"]:
                return st
            time.sleep(0.1)
    raise AssertionError("the AI game did not end")


def forge(state: dict, slot: int, station: int) -> dict:
    """What a cheating server would send: another station for ``slot``, re-committed so that
    every hash matches."""
    out = copy.deepcopy(state)
    for o in out["openings"]:
        if o["slot"] == slot:
            o["station"] = station
            h = commitment(out["game_id"], slot, station, o["salt"])
    for c in out["commitments"]:
        if c["slot"] == slot:
            c["hash"] = h
    for e in out["view"]["log"]:
        if e["slot"] == slot:
            e["station"] = station
    return out


def unreachable_forgery(state: dict) -> tuple[int, int]:
    """(slot, station): Mr X's first hidden slot and a station no ticket reaches from where he
    stood before it (two or more steps away even with the ferry), so a journey through it is
    illegal whatever the logged ticket. (A fixed far station is not enough: the random game may
    have started next to it.)"""
    hidden = next(e for e in state["view"]["log"] if not e["reveal"])
    stations = {o["slot"]: o["station"] for o in state["openings"]}
    before = stations.get(hidden["slot"] - 1, state["view"]["start"]["X"])
    board = london("classic")
    far = next(s for s in (199, 1, 108, 46, 153) if s != hidden["station"]
               and board.distance(before, s, ferry=True) >= 2)
    return hidden["slot"], far


def test_an_honest_game_verifies(finished):
    report = verify_seal(finished)
    assert report.ok, report.problems
    assert report.checked == len(finished["view"]["log"]) + 1  # his log and his start (slot 0)
    assert finished["view"]["start"]["X"] in report.starts


def test_mr_x_start_is_sealed_before_the_first_move(tmp_path):
    """The server seals Mr X's start as log slot 0 when it creates the game: the first state
    every player gets carries that commitment, and the end opens it as the start shown."""
    db = tmp_path / "g.sqlite3"
    with TestClient(create_app(db, ai_delay=0, pace_mr_x=False)) as c:
        g = c.post("/api/games", json={"preset": "classic", "detectives": 1}).json()
        st = c.get(f"/api/games/{g['game_id']}/state", params={"token": g["tokens"]["D1"]}).json()
        assert st["version"] == 0 and [x["slot"] for x in st["commitments"]] == [0]
        assert st["openings"] is None and "X" not in st["view"]["start"]
    with TestClient(create_app(db, ai_delay=0, pace_mr_x=False)) as c:  # a restart: stored
        again = c.get(f"/api/games/{g['game_id']}/state", params={"token": g["tokens"]["D1"]})
        assert again.json()["commitments"] == st["commitments"]


def test_a_start_shown_that_is_not_the_sealed_one_is_rejected(finished):
    """A server that picks Mr X's start after the game (one from which his journey is legal,
    or any other) must show one that differs from the start it sealed before the first move."""
    moved = copy.deepcopy(finished)
    sealed = moved["view"]["start"]["X"]
    other = next(s for s in (13, 26, 29, 34, 50, 53) if s != sealed
                 and s not in moved["view"]["start"].values())
    moved["view"]["start"]["X"] = other
    report = verify_seal(moved)
    assert not report.ok
    assert f"Mr X's start as shown, {other}, is not the one sealed at the start, {sealed}" \
        in report.problems, report.problems


def test_a_start_that_was_never_sealed_is_rejected(finished):
    unsealed = copy.deepcopy(finished)
    unsealed["commitments"] = [x for x in unsealed["commitments"] if x["slot"] != 0]
    unsealed["openings"] = [o for o in unsealed["openings"] if o["slot"] != 0]
    report = verify_seal(unsealed)
    assert not report.ok
    assert report.problems == ["Mr X's start was never sealed (no commitment for log slot 0)"]


def test_a_forged_path_with_matching_hashes_is_rejected(finished):
    report = verify_seal(forge(finished, *unreachable_forgery(finished)))
    assert not report.ok
    assert any("not legal" in p for p in report.problems), report.problems


def test_a_journey_from_another_start_than_the_one_shown_is_rejected(finished):
    """A forged journey may be legal from some start card he could have drawn: once the game is
    over the server shows his start, and the journey must leave from that one. (A random game
    whose first hidden slot was forged to 199 passed as honest when Mr X's first move was a
    black ticket: 198 -> 199 is a taxi line and 198 a start card.)"""
    starts_shown = finished["view"]["start"]
    honest = verify_seal(finished)
    board = london("classic")
    first = next(o["station"] for o in finished["openings"] if o["slot"] == 1)
    elsewhere = next(s for s in (198, 1, 108, 46, 153, 13, 26, 29) if s not in honest.starts
                     and s not in starts_shown.values() and first not in board.any_neighbours(s))
    moved = copy.deepcopy(finished)
    moved["view"]["start"]["X"] = elsewhere
    report = verify_seal(moved)
    assert not report.ok
    assert any(f"the start the server showed, {elsewhere}" in p for p in report.problems), \
        report.problems
    moved["view"]["start"]["X"] = "141"
    assert any("not a station" in p for p in verify_seal(moved).problems)


def test_a_changed_opening_is_rejected(finished):
    bad = copy.deepcopy(finished)
    bad["openings"][0]["salt"] = "00" * 16
    report = verify_seal(bad)
    assert not report.ok and any("does not match its commitment" in p for p in report.problems)


def test_scotlandyard_verify_offline(finished, tmp_path: Path):
    good = tmp_path / "good.json"
    good.write_text(json.dumps(finished))
    out = subprocess.run([sys.executable, "-m", "scotlandyard", "verify", str(good)],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and "OK:" in out.stdout, out.stderr
    said = " ".join(out.stdout.split())  # the console wraps its lines
    assert f"legal from that start, {finished['view']['start']['X']}" in said, said
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(forge(finished, *unreachable_forgery(finished))))
    out = subprocess.run([sys.executable, "-m", "scotlandyard", "verify", str(bad)],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 1 and "NOT honest" in out.stdout + out.stderr
    assert "Traceback" not in out.stderr


@pytest.mark.parametrize("extra_reveal", [False, True], ids=["classic", "extra_reveal"])
def test_honest_games_with_doubles_blacks_and_takes_verify(extra_reveal):
    """Mr X spends his double moves and black tickets (and, with the extra-reveal variant,
    reveals himself and takes detectives' tickets): the honest journey verifies. (A take
    fills no log slot and a chosen reveal is part of the move: both were read wrongly before,
    so an honest extra-reveal game failed.)"""
    from scotlandyard.rules import preset_info

    from .seal_games import finished_state, spent

    rules = preset_info("classic").rules(2).replace(extra_reveal=extra_reveal)
    state = finished_state(rules, seed=3)
    used = spent(state["view"])
    assert used["black"] >= 1 and used["double"] >= 1
    assert extra_reveal == any(h["move"].startswith("take:") for h in state["view"]["history"])
    report = verify_seal(state)
    assert report.ok, report.problems
    assert state["view"]["start"]["X"] in report.starts


def test_more_black_tickets_or_doubles_than_mr_x_held_are_rejected():
    from scotlandyard.rules import preset_info

    from .seal_games import finished_state, spent

    state = finished_state(preset_info("classic").rules(2), seed=3)
    used = spent(state["view"])
    for setting, count in (("black_tickets", used["black"]), ("double_moves", used["double"])):
        fewer = copy.deepcopy(state)
        rules = fewer["view"]["rules"]
        rules[setting] = count - 1
        if setting == "double_moves":  # the log has fewer slots then: keep the rules valid
            rules["reveal_slots"] = [s for s in rules["reveal_slots"]
                                     if s <= rules["last_round"] + count - 1]
        report = verify_seal(fewer)
        assert not report.ok and any("not legal" in p for p in report.problems), setting


@pytest.mark.parametrize("damage", [
    lambda s: s["view"]["history"].__setitem__(0, {"piece": "X"}),
    lambda s: s["view"]["history"].__setitem__(1, {"piece": "D1", "move": "ZZZ"}),
    lambda s: s["view"]["log"][0].__setitem__("slot", "x"),
    lambda s: s["view"].__setitem__("start", [1]),
    lambda s: s["view"]["start"].__setitem__("D1", "x"),
    lambda s: s["view"].__setitem__("outcome", [1]),
], ids=["history_without_move", "move_unreadable", "slot_not_a_number", "start_not_a_map",
        "start_not_a_station", "outcome_not_a_map"])
def test_a_malformed_state_fails_the_check_without_an_exception(finished, tmp_path, damage):
    """The state comes from the server being checked: a field missing or of the wrong kind is
    a failed check with a clear line (before: KeyError, NotationError, AttributeError...)."""
    bad = copy.deepcopy(finished)
    damage(bad)
    report = verify_seal(bad)
    assert not report.ok and "not the state of a finished game" in report.problems[0]
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(bad))
    out = subprocess.run([sys.executable, "-m", "scotlandyard", "verify", str(path)],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 1 and "NOT honest" in out.stdout + out.stderr
    assert "Traceback" not in out.stderr


def seen_file(state: dict) -> dict:
    """The file the game page saves ("Save the seals seen"): the seals published during the
    game (here, an honest one's: its final commitments)."""
    return {"format": "scotlandyard-seals", "game_id": state["game_id"],
            "seals": {str(c["slot"]): c["hash"] for c in state["commitments"]}}


def legal_forgery(state: dict) -> dict:
    """Another station for one of Mr X's hidden slots from which his journey is still legal,
    re-sealed so that every hash matches: a forgery the final state alone cannot expose."""
    board = london("classic")
    opened = {o["slot"]: o["station"] for o in state["openings"]}
    for e in state["view"]["log"]:
        if e["reveal"] or e["slot"] + 1 not in opened:
            continue
        before = opened.get(e["slot"] - 1, state["view"]["start"]["X"])
        for s in sorted(board.any_neighbours(before) - {e["station"]}):
            forged = forge(state, e["slot"], s)
            if verify_seal(forged).ok:
                return forged
    raise AssertionError("no legal forgery in this game")  # pragma: no cover


def test_a_legal_forged_path_sealed_afresh_fails_against_the_seals_seen(finished):
    """A server that forges a legal path and seals it afresh at the end passes a check of the
    final state against itself (issue 28 §5); the seals a player saw during the game expose
    it: the forged slot's commitment at the end is not the one seen."""
    from scotlandyard.server.seal import read_seen

    forged = legal_forgery(finished)
    assert verify_seal(forged).ok  # the final state alone: consistent
    game, seen = read_seen(seen_file(finished))
    report = verify_seal(forged, seen, game)
    assert not report.ok
    assert any("is not the one seen during the game" in p for p in report.problems), \
        report.problems
    honest = verify_seal(finished, seen, game)
    assert honest.ok and honest.seen == len(finished["commitments"])
    other = verify_seal(finished, seen, "another-game")
    assert not other.ok and any("not of this one" in p for p in other.problems)
    no_start = {k: v for k, v in seen.items() if k != 0}
    assert any("do not include Mr X's start" in p
               for p in verify_seal(finished, no_start, game).problems)


def test_start_decks_other_than_the_presets_are_rejected(finished):
    """Emptied (or widened) start decks let a start pass that Mr X could not have drawn: before,
    a state with emptied decks verified. Now the decks must be a preset's on that board."""
    for deck in ([], list(range(1, 200))):
        bad = copy.deepcopy(finished)
        bad["view"]["rules"]["start_deck_mr_x"] = deck
        bad["view"]["rules"]["start_deck_detectives"] = deck
        report = verify_seal(bad)
        assert not report.ok
        assert any("are not those of any preset on the classic board" in p
                   for p in report.problems), report.problems


def test_scotlandyard_verify_with_the_seals_seen(finished, tmp_path: Path):
    """``scotlandyard verify STATE --seen SEEN``: the legal forgery fails (exit 1), the honest
    state passes and says so; a broken seals file is a clear error."""
    seen = tmp_path / "seen.json"
    seen.write_text(json.dumps(seen_file(finished)))
    forged = tmp_path / "forged.json"
    forged.write_text(json.dumps(legal_forgery(finished)))
    good = tmp_path / "good.json"
    good.write_text(json.dumps(finished))

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "scotlandyard", "verify", *args],
                              capture_output=True, text=True, timeout=60)

    out = run(str(forged), "--seen", str(seen))
    assert out.returncode == 1 and "not the one seen during the game" in out.stdout + out.stderr
    out = run(str(good), "--seen", str(seen))
    assert out.returncode == 0, out.stderr
    assert "each is the seal seen during the game" in " ".join(out.stdout.split())
    out = run(str(forged))
    assert out.returncode == 0 and "without --seen" in out.stderr  # alone: it cannot tell
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps({"format": "scotlandyard-seals", "game_id": "g",
                                  "seals": {"0": "xyz"}}))
    out = run(str(good), "--seen", str(broken))
    assert out.returncode == 1 and "not a SHA-256 hash" in out.stderr
