"""The puzzle API: positions as the detectives see them, answers judged by the engine,
Glicko-2 ratings of first attempts, bad input refused."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from scotlandyard.move import MR_X, Move
from scotlandyard.puzzles import load_puzzles
from scotlandyard.server.app import create_app
from scotlandyard.server.puzzles import glicko_update

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def client(tmp_path: Path):
    with TestClient(create_app(tmp_path / "games.sqlite3", ai_delay=0)) as c:
        yield c


def player(client: TestClient) -> dict[str, str]:
    r = client.post("/api/puzzles/players")
    assert r.status_code == 201, r.text
    body = r.json()
    assert body["rating"] == 1500 and len(body["player"]) >= 20
    return {"Authorization": f"Bearer {body['player']}"}


def _one_round(kind: int = 1):
    return next(p for p in load_puzzles() if p.rounds == kind)


def test_a_puzzle_is_the_detectives_view_and_never_mr_x_station(client):
    for p in load_puzzles()[:25]:  # (the per-address rate allows bursts of 30)
        r = client.get(f"/api/puzzles/{p.id}")
        assert r.status_code == 200
        body = r.json()
        game = p.game()
        truth = game.station(MR_X)
        view = body["view"]
        assert view["side"] == "detectives"
        # his pawn only where his last move was a reveal (public: the log shows it)
        last = view["log"][-1] if view["log"] else None
        assert view["mr_x_station"] == (last["station"] if last and last["reveal"] else None)
        assert MR_X not in view["stations"]
        assert body["possible"] == sorted(game.possible_locations())
        # Mr X's stations leave only where the log revealed them
        for entry in view["log"]:
            assert (entry.get("station") is not None) == bool(entry["reveal"]), entry
        shown = [st for st in view["history"] if st["piece"] == MR_X and "?" not in st["move"]]
        assert len(shown) <= sum(1 for e in view["log"] if e["reveal"])
        assert truth in body["possible"]
        assert body["to_move"][0] == game.to_move
        assert body["reach"][game.to_move]


def test_a_right_answer_is_solved_and_rated_once(client):
    auth = player(client)
    p = _one_round()
    r = client.post(f"/api/puzzles/{p.id}/attempt", json={"moves": list(p.solution)},
                    headers=auth)
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["solved"] is True and body["final"] is True
    assert body["rating"]["before"] == 1500 and body["rating"]["player"] > 1500
    # the same puzzle again: judged, not rated
    again = client.post(f"/api/puzzles/{p.id}/attempt", json={"moves": list(p.solution)},
                        headers=auth).json()
    assert again["solved"] is True and again["rating"]["unrated"] == "tried before"
    # the next puzzle is another one (tried puzzles are not offered again)
    nxt = client.get("/api/puzzles/next", headers=auth).json()
    assert nxt["id"] != p.id and nxt["player"]["attempts"] == 1 and nxt["player"]["solved"] == 1


def test_a_wrong_answer_fails_with_the_stations_left_open_and_lowers_the_rating(client):
    auth = player(client)
    p = _one_round()
    game = p.game()
    possible = game.possible_locations()
    moves = list(p.solution)
    # replace the move of a detective landing on a possible station by one that does not
    g = game.copy()
    for i, text in enumerate(moves):
        mv = Move.parse(text)
        if mv.to in possible:
            alt = [m for m in g.legal_moves() if m.to not in possible]
            if alt:
                moves[i] = str(alt[0])
                break
        g.push(text)
    body = client.post(f"/api/puzzles/{p.id}/attempt", json={"moves": moves}, headers=auth).json()
    assert body["solved"] is False and body["open"] and set(body["open"]) <= possible
    assert body["rating"]["player"] < 1500
    assert body["solution"] == list(p.solution)


def test_a_two_round_puzzle_answers_with_mr_x_reply_then_judges_the_finish(client):
    auth = player(client)
    p = _one_round(2)
    first = client.post(f"/api/puzzles/{p.id}/attempt", json={"moves": list(p.solution)},
                        headers=auth).json()
    assert first["final"] is False and first["solved"] is None
    reply = first["reply"]["puzzle"]
    assert reply["to_move"][0] == "D1"
    last = reply["view"]["log"][-1]
    assert reply["view"]["mr_x_station"] == (last["station"] if last["reveal"] else None)
    assert "rating" not in first  # nothing is rated before the end
    # find the finishing cover with the engine and send it
    from scotlandyard.puzzles import cover, reply_for

    after = reply_for(p.game(), list(p.solution))
    assert after is not None and sorted(after.possible_locations()) == reply["possible"]
    finish = cover(after)
    assert finish is not None
    done = client.post(f"/api/puzzles/{p.id}/attempt",
                       json={"moves": list(p.solution), "then": [str(m) for m in finish]},
                       headers=auth).json()
    assert done["final"] is True and done["solved"] is True and done["rating"]["player"] > 1500


@pytest.mark.parametrize("body,msg", [
    ({"moves": "T92"}, "list of moves"),
    ({"moves": ["hello"] * 5}, "is not a move"),
    ({"moves": []}, "moves"),
    ({"moves": ["T1"], "extra": 1}, "the body is"),
])
def test_bad_answers_are_refused_with_what_is_wrong(client, body, msg):
    p = _one_round()
    r = client.post(f"/api/puzzles/{p.id}/attempt", json=body)
    assert r.status_code == 422 and msg in r.json()["detail"]


def test_unknown_puzzles_and_tokens_are_refused(client):
    assert client.get("/api/puzzles/nope").status_code == 404
    r = client.get("/api/puzzles/next", headers={"Authorization": "Bearer " + "x" * 30})
    assert r.status_code == 401 and "unknown puzzle player" in r.json()["detail"]
    r = client.post(f"/api/puzzles/{_one_round().id}/attempt", json={"moves": ["T1"]},
                    headers={"Authorization": "Bearer short"})
    assert r.status_code == 401


def test_new_players_are_rate_limited_per_address(client):
    codes = [client.post("/api/puzzles/players").status_code for _ in range(6)]
    assert codes[:3] == [201, 201, 201] and 429 in codes


def test_glicko_update_moves_ratings_the_right_way():
    a, b = (1500.0, 350.0, 0.06), (1700.0, 100.0, 0.06)
    win, loss = glicko_update(a, b, 1.0), glicko_update(a, b, 0.0)
    assert win[0] > 1500 > loss[0] and win[1] < 350 and loss[1] < 350
    # an upset moves more than an expected result
    assert win[0] - 1500 > 1500 - loss[0]


def test_the_puzzle_page_is_served(client):
    r = client.get("/puzzles")
    assert r.status_code == 200 and "text/html" in r.headers["content-type"]
    assert client.get("/static/js/puzzles.js").status_code == 200
    assert client.get("/static/css/learn.css").status_code == 200
