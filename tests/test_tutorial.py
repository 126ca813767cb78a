"""The tutorial's lessons: every scripted solution passes step by step through the engine,
wrong moves are refused with the right rule id, legal but different moves get a hint, and the
REST routes serve the steps without showing Mr X's hidden station to the detectives' lessons."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from scotlandyard.server.app import create_app
from scotlandyard.tutorial import LESSONS, TutorialError, check_step, explain, position, state

pytestmark = pytest.mark.timeout(120)


@pytest.mark.parametrize("les", LESSONS, ids=[les.id for les in LESSONS])
def test_every_lesson_is_completed_by_its_script(les) -> None:
    for i, st in enumerate(les.steps):
        game = position(les.id, i)
        assert game.to_move == st.piece, (les.id, i)
        if st.solution is not None:
            v = check_step(les.id, i, st.solution)
        else:  # an expect step: some move the engine refuses with that rule
            tries = [f"{k}{s}" for k in "TBU" for s in range(1, 200)]
            refused = [m for m in tries if (r := game.why_illegal(f"{st.piece}:{m}"))
                       and r.startswith(st.expect + ":")]
            assert refused, (les.id, i)
            v = check_step(les.id, i, refused[0])
        assert v.ok and v.kind == "ok", (les.id, i, v)
        assert v.done == (i == len(les.steps) - 1)


def test_the_team_lesson_ends_with_the_capture() -> None:
    game = position("team", len(LESSONS[2].steps))
    outcome = game.outcome()
    assert outcome is not None and "caught" in outcome.describe()
    before = state("team", 2)
    assert before["possible"] == [75, 92]  # his taxi from 74, minus the detectives' stations


@pytest.mark.parametrize("les,step,move,rule,code", [
    ("detective", 1, "U67", "R-BOARD", "no_line"),
    ("detective", 2, "B13", "R-ROUND", "occupied"),
    ("detective", 4, "B23", "R-TICKETS", "no_ticket"),
    ("detective", 0, "B23", None, None),       # legal, but the step asks for the taxi: hint
    ("detective", 0, "T99", "R-BOARD", "no_line"),
    ("detective", 3, "T13", "R-ROUND", "occupied"),
    ("detective", 5, "T88", "R-BOARD", "no_line"),
    ("mr_x", 1, "T15", "R-ROUND", "onto_detective"),
    ("mr_x", 0, "T15", "R-BOARD", "no_line"),
    ("mr_x", 4, "T51", None, None),            # the black ticket is asked for
    ("team", 3, "T57", None, None),            # legal, not onto a shaded station
])
def test_wrong_moves_are_refused_with_the_rule_or_hinted(les: str, step: int, move: str,
                                                         rule: str | None, code: str | None) -> None:
    v = check_step(les, step, move)
    expect_step = LESSONS[[x.id for x in LESSONS].index(les)].steps[step].expect
    if rule is None:
        assert (v.ok, v.kind, v.rule) == (False, "hint", None)
    elif expect_step == rule:
        assert v.ok and v.rule == rule and v.code == code
    else:
        assert (v.ok, v.kind, v.rule, v.code) == (False, "refused", rule, code)
        assert v.reason and v.reason.startswith(rule + ":")


def test_an_expect_step_refused_for_another_rule_does_not_pass() -> None:
    v = check_step("detective", 2, "U67")  # the step wants the occupied station
    assert (v.ok, v.kind, v.rule) == (False, "refused", "R-BOARD")
    assert check_step("detective", 2, "T22").kind == "hint"  # a legal move


def test_bad_input() -> None:
    with pytest.raises(TutorialError, match="no lesson"):
        check_step("nope", 0, "T1")
    with pytest.raises(TutorialError, match="has steps"):
        check_step("detective", 99, "T1")
    with pytest.raises(TutorialError, match="not a move"):
        check_step("detective", 0, "Z?")
    assert explain("something else") == (None, "other", {})


@pytest.fixture
def client(tmp_path: Path):
    with TestClient(create_app(tmp_path / "games.sqlite3", ai_delay=0)) as c:
        yield c


def test_rest_routes(client: TestClient) -> None:
    assert [x["id"] for x in client.get("/api/tutorial").json()["lessons"]] == [
        "detective", "mr_x", "team"]
    st = client.get("/api/tutorial/detective/0").json()
    assert st["piece"] == "D1" and st["key"] == "taxi" and "X" not in st["stations"]
    r = client.post("/api/tutorial/detective/0", json={"move": "U1"}).json()
    assert r["verdict"]["kind"] == "refused" and r["verdict"]["rule"] == "R-BOARD"
    r = client.post("/api/tutorial/detective/0", json={"move": "T23"}).json()
    assert r["verdict"]["ok"] and r["next"]["step"] == 1
    assert client.post("/api/tutorial/detective/0", json={}).status_code == 422
    assert client.post("/api/tutorial/detective/0", json={"move": "??"}).status_code == 422
    assert client.post("/api/tutorial/zzz/0", json={"move": "T1"}).status_code == 404
    assert client.get("/api/tutorial/detective/40").status_code == 404
    assert client.get("/tutorial").status_code == 200
    # Mr X's hidden station never leaves the server in a detectives' lesson; a reveal round's
    # station does (the detective lesson's round 3 is one)
    shown = 0
    for i in range(len(LESSONS[0].steps) + 1):
        body = json.loads(client.get(f"/api/tutorial/detective/{i}").text)
        truth = position("detective", i).station("X")
        revealed = [e["station"] for e in body["log"] if e["reveal"]]
        if revealed:
            shown += 1
            assert body["last_seen"]["station"] == body["mr_x_seen"] == revealed[-1]
            assert "X" not in body["stations"]
        else:
            assert "X" not in body["stations"] and body["mr_x_seen"] is None
            assert body["last_seen"] is None
            assert all(e["station"] is None for e in body["log"])
            assert str(truth) not in json.dumps(body["stations"])
    assert shown >= 1
