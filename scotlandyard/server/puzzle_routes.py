"""REST routes of the puzzle page (``docs/webapp.md``, "Puzzles").

* ``POST /api/puzzles/players`` -> ``{"player": TOKEN, "rating": 1500}``: a new rated player
  (keep the token; the page keeps it in the browser's storage).
* ``GET /api/puzzles/next`` (``Authorization: Bearer TOKEN`` optional) -> a puzzle near the
  player's rating that he has not tried (any puzzle for an anonymous visitor).
* ``GET /api/puzzles/{id}`` -> that puzzle.
* ``POST /api/puzzles/{id}/attempt`` ``{"moves": [...], "then": [...]}`` -> the engine's
  judgement; a 2-round puzzle answered without ``then`` gets Mr X's reply to answer. A rated
  player's first attempt changes both ratings (``rating`` in the answer).

Every route has a per-address rate; the judging runs in a thread, one at a time.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from typing import Any

from fastapi import FastAPI, HTTPException, Request
from fastapi.responses import JSONResponse

from ..puzzles import PuzzleError
from .limits import ClientLimits, refuse_if_waiting
from .puzzles import NEW_PLAYER, PuzzleBook, glicko_update, parse_moves, token_hash
from .store import UNAVAILABLE

NO_STORE = {"Cache-Control": "no-store"}
ATTEMPTS_PER_MINUTE = 60.0
PLAYERS_PER_MINUTE = 6.0


def install_puzzle_routes(app: FastAPI, games: Callable[[], Any], clients: ClientLimits,
                          client_of: Callable[[Request], str]) -> None:
    """Add the puzzle routes to ``app`` (``games()`` gives the running ``GameServer``, whose
    store and database thread keep the ratings)."""
    book: dict[str, PuzzleBook] = {}

    def the_book() -> PuzzleBook:
        if "book" not in book:
            book["book"] = PuzzleBook()
        return book["book"]

    def limit(kind: str, request: Request, per_minute: float, burst: int, what: str) -> None:
        refuse_if_waiting(clients.event_wait(f"puzzle-{kind}", client_of(request), per_minute,
                                             burst), what)

    def bearer(request: Request) -> str | None:
        header = request.headers.get("authorization", "")
        if header[:7].lower() == "bearer ":
            tok = header[7:].strip()
            if not 10 <= len(tok) <= 100:
                raise HTTPException(401, "a puzzle player's token is 10 to 100 characters")
            return tok
        return None

    async def db(fn: Callable[..., Any], *args: Any, read: bool = False) -> Any:
        try:
            run = games().db.read if read else games().db.write
            return await run(fn, *args)
        except UNAVAILABLE as exc:
            raise HTTPException(503, f"the database is busy ({exc}); try again",
                                headers={"Retry-After": "2"}) from None

    def known(pid: str) -> None:
        if pid not in the_book().by_id:
            raise HTTPException(404, f"no puzzle {pid!r}")

    @app.post("/api/puzzles/players", status_code=201)
    async def new_player(request: Request) -> JSONResponse:
        """A new rated puzzle player: his token (shown once) and starting rating."""
        limit("player", request, PLAYERS_PER_MINUTE, 3, "too many new puzzle players from "
              "this address")
        token = secrets.token_urlsafe(24)
        await db(games().store.add_puzzle_player, token_hash(token), NEW_PLAYER)
        return JSONResponse({"player": token, "rating": round(NEW_PLAYER[0])},
                            status_code=201, headers=NO_STORE)

    async def player_of(request: Request) -> tuple[str, tuple[float, ...]] | None:
        tok = bearer(request)
        if tok is None:
            return None
        h = token_hash(tok)
        row = await db(games().store.puzzle_player, h, read=True)
        if row is None:
            raise HTTPException(401, "unknown puzzle player (make one with POST "
                                     "/api/puzzles/players)")
        return h, row

    @app.get("/api/puzzles/next")
    async def next_puzzle(request: Request) -> JSONResponse:
        """A puzzle near the player's rating that he has not tried."""
        limit("attempt", request, ATTEMPTS_PER_MINUTE, 30, "too many puzzle requests from "
              "this address")
        who = await player_of(request)
        store = games().store
        ratings = await db(store.puzzle_ratings, read=True)
        tried: set[str] = set()
        rating = NEW_PLAYER[0]
        if who is not None:
            tried = await db(store.puzzles_tried, who[0], read=True)
            rating = who[1][0]
        pid = the_book().pick(rating, tried, ratings)
        if pid is None:
            raise HTTPException(404, "you have tried every puzzle")
        body = the_book().payload(pid, ratings.get(pid))
        if who is not None:
            body["player"] = _player(who[1])
        return JSONResponse(body, headers=NO_STORE)

    @app.get("/api/puzzles/{puzzle_id}")
    async def one_puzzle(puzzle_id: str, request: Request) -> JSONResponse:
        """One puzzle by id."""
        limit("attempt", request, ATTEMPTS_PER_MINUTE, 30, "too many puzzle requests from "
              "this address")
        known(puzzle_id)
        ratings = await db(games().store.puzzle_ratings, read=True)
        return JSONResponse(the_book().payload(puzzle_id, ratings.get(puzzle_id)),
                            headers=NO_STORE)

    @app.post("/api/puzzles/{puzzle_id}/attempt")
    async def attempt(puzzle_id: str, request: Request) -> JSONResponse:
        """Judge an answer with the engine; rate a player's first attempt."""
        limit("attempt", request, ATTEMPTS_PER_MINUTE, 30, "too many puzzle answers from "
              "this address")
        known(puzzle_id)
        who = await player_of(request)  # a wrong token is refused before any judging
        try:
            body = await request.json()
        except ValueError:
            raise HTTPException(422, "the body is JSON: {\"moves\": [...]}") from None
        if not isinstance(body, dict) or set(body) - {"moves", "then"}:
            raise HTTPException(422, "the body is {\"moves\": [...], \"then\": [...]} (then "
                                     "only for a 2-round puzzle's second round)")
        try:
            moves = parse_moves(body.get("moves"), "moves")
            then = parse_moves(body["then"], "then") if body.get("then") is not None else None
            result = await the_book().judge(puzzle_id, moves, then)
        except PuzzleError as exc:
            raise HTTPException(422, str(exc)) from None
        if who is not None and result["final"]:
            b = the_book()
            rated = await db(games().store.rate_puzzle, who[0], puzzle_id,
                             bool(result["solved"]), b.initial(puzzle_id), glicko_update)
            if rated is not None:
                result["rating"] = {"player": round(rated[0][0]), "before": round(who[1][0]),
                                    "puzzle": round(rated[1][0])}
            else:
                result["rating"] = {"player": round(who[1][0]), "before": round(who[1][0]),
                                    "unrated": "tried before"}
        return JSONResponse(result, headers=NO_STORE)


def _player(row: tuple[float, ...]) -> dict[str, Any]:
    return {"rating": round(row[0]), "rd": round(row[1]), "attempts": int(row[3]),
            "solved": int(row[4])}
