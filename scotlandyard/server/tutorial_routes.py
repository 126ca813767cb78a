"""REST routes of the tutorial page (``docs/webapp.md``, "Tutorial").

* ``GET /api/tutorial`` -> the lessons and their step counts.
* ``GET /api/tutorial/{lesson}/{step}`` -> the position and instruction of that step.
* ``POST /api/tutorial/{lesson}/{step}`` ``{"move": "T23"}`` -> the engine's verdict on the
  move (``ok`` / ``hint`` / ``refused`` with the rule id, the engine's reason and a code for a
  translated sentence) and, when passed, the next step's state.
"""

from __future__ import annotations

from typing import Any

from fastapi import Body, FastAPI, HTTPException

from ..tutorial import TutorialError, catalogue, check_step, state

NO_STORE = {"Cache-Control": "no-store"}


def install_tutorial_routes(app: FastAPI) -> None:
    """Add the tutorial's routes to ``app``."""

    @app.get("/api/tutorial")
    async def tutorial_lessons() -> dict[str, Any]:
        return {"lessons": catalogue()}

    @app.get("/api/tutorial/{lesson_id}/{step}")
    async def tutorial_step(lesson_id: str, step: int) -> dict[str, Any]:
        try:
            return state(lesson_id, step)
        except TutorialError as exc:
            raise HTTPException(404, str(exc)) from None

    @app.post("/api/tutorial/{lesson_id}/{step}")
    async def tutorial_try(lesson_id: str, step: int,
                           body: dict[str, Any] = Body(...)) -> dict[str, Any]:  # noqa: B008
        move = body.get("move") if isinstance(body, dict) else None
        if not isinstance(move, str) or not 1 <= len(move) <= 40:
            raise HTTPException(422, "the body is {\"move\": NOTATION}, e.g. {\"move\": \"T23\"}")
        try:
            verdict = check_step(lesson_id, step, move)
        except TutorialError as exc:
            code = 404 if "no lesson" in str(exc) or "has steps" in str(exc) else 422
            raise HTTPException(code, str(exc)) from None
        out: dict[str, Any] = {"verdict": verdict.as_json()}
        if verdict.ok:
            out["next"] = state(lesson_id, step + 1)
        return out
