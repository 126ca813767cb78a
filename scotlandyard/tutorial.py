"""The interactive tutorial's lessons (``docs/webapp.md``, "Tutorial"): scripted positions on
the London board, one instruction at a time, each player's move judged by the rules engine.

A lesson is data: its rules, its start stations, and its steps. A step names the piece the
player moves and either the move to play (``solution``; a legal but different move gets the
step's hint, not a pass) or the rule a refusal must name (``expect``: the step shows what blocks
a move; the player tries one and passes when :meth:`Game.why_illegal` refuses it with that
rule). After a passed move step the other pieces play their fixed moves (``then``).

>>> v = check_step("detective", 0, "D1:T23")
>>> v.ok, v.kind
(True, 'ok')
>>> check_step("detective", 0, "D1:B23").kind
'hint'
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from .game import Game
from .move import Move, NotationError
from .rules import Rules


@dataclass(frozen=True)
class Step:
    """One instruction: ``key`` names its text (``tutorial.<lesson>.<key>`` in the i18n files)."""

    key: str
    piece: str
    solution: str | None = None  # the move to play (notation without the piece)
    expect: str | None = None  # or: the rule id a refused try must name (e.g. "R-TICKETS")
    then: tuple[str, ...] = ()  # the other pieces' fixed moves after a passed move step
    at: int | None = None  # an expect step's station to try (highlighted on the board)


@dataclass(frozen=True)
class Lesson:
    """A scripted game: its rules, start stations, moves played before the first step, steps."""

    id: str
    rules: Rules
    start: dict[str, int]
    steps: tuple[Step, ...]
    before: tuple[str, ...] = ()
    player: str = "detectives"  # the side the player plays: "detectives" or "mr_x"
    extra: dict[str, Any] = field(default_factory=dict)


LESSONS: tuple[Lesson, ...] = (
    Lesson(
        id="detective",
        # one bus ticket only, so the second bus ride is refused for want of a ticket
        rules=Rules.classic(detectives=2, detective_tickets=(10, 1, 4)),
        start={"X": 166, "D1": 13, "D2": 52},
        before=("X:T153",),
        steps=(
            Step("taxi", "D1", solution="T23", then=("D2:B13", "X:T154")),
            Step("no_line", "D1", expect="R-BOARD", at=67),
            Step("occupied", "D1", expect="R-ROUND", at=13),
            Step("bus", "D1", solution="B67", then=("D2:T14", "X:T155")),
            Step("no_ticket", "D1", expect="R-TICKETS", at=23),
            Step("underground", "D1", solution="U89"),
        ),
    ),
    Lesson(
        id="mr_x",
        rules=Rules.classic(detectives=2),
        start={"X": 13, "D1": 5, "D2": 52},
        player="mr_x",
        steps=(
            Step("log", "X", solution="T14", then=("D1:T15", "D2:T40")),
            Step("blocked", "X", expect="R-ROUND", at=15),
            Step("hidden", "X", solution="T25", then=("D1:T5", "D2:T27")),
            Step("reveal", "X", solution="T38", then=("D1:T16", "D2:T26")),
            Step("black", "X", solution="K51", then=("D1:T5", "D2:T27")),
            Step("double", "X", solution="T67+U89"),
        ),
    ),
    Lesson(
        id="team",
        rules=Rules.classic(detectives=2),
        start={"X": 94, "D1": 45, "D2": 57},
        before=("X:T95", "D1:T59", "D2:T43", "X:T94", "D1:T75", "D2:T57", "X:B74"),
        steps=(
            Step("seen", "D1", solution="T58"),
            Step("close", "D2", solution="T73", then=("X:T92",)),
            Step("shade", "D1", solution="T75"),
            Step("catch", "D2", solution="T92"),
        ),
    ),
)

BY_ID: dict[str, Lesson] = {lesson.id: lesson for lesson in LESSONS}


class TutorialError(ValueError):
    """An unknown lesson or step."""


@dataclass(frozen=True)
class Verdict:
    """The judgement of one tried move.

    ``kind``: ``"ok"`` (the step is passed), ``"hint"`` (legal, but not what the step asks),
    ``"refused"`` (the engine refuses it: ``rule`` and ``reason`` are the engine's, ``code`` and
    ``params`` name the situation for a translated sentence). ``done``: the lesson is finished.
    """

    ok: bool
    kind: str
    rule: str | None = None
    reason: str | None = None
    code: str | None = None
    params: dict[str, Any] = field(default_factory=dict)
    done: bool = False

    def as_json(self) -> dict[str, Any]:
        """The verdict as the REST answer's ``verdict``."""
        return {"ok": self.ok, "kind": self.kind, "rule": self.rule, "reason": self.reason,
                "code": self.code, "params": self.params, "done": self.done}


def lesson(lesson_id: str) -> Lesson:
    """The lesson of that id, or :class:`TutorialError`."""
    try:
        return BY_ID[lesson_id]
    except KeyError:
        raise TutorialError(f"no lesson {lesson_id!r} (lessons: {', '.join(BY_ID)})") from None


def position(lesson_id: str, step: int) -> Game:
    """The game as the player meets step ``step`` (0-based): the start, the moves before, and
    every earlier move step's solution with its fixed replies."""
    les = lesson(lesson_id)
    if not 0 <= step <= len(les.steps):
        raise TutorialError(f"lesson {lesson_id!r} has steps 0..{len(les.steps) - 1}, not {step}")
    game = Game.new(les.rules, start=les.start)
    for mv in les.before:
        game.push(mv)
    for s in les.steps[:step]:
        if s.solution is not None:
            game.push(f"{s.piece}:{s.solution}")
            for mv in s.then:
                game.push(mv)
    return game


_PATTERNS: tuple[tuple[str, str], ...] = (
    (r"R-BOARD: (?:first step: |second step: )?no (\w+) line from (\d+) to (\d+)", "no_line"),
    (r"R-BOARD: (?:first step: |second step: )?no line from (\d+) to (\d+)", "no_line_any"),
    (r"R-TICKETS: (?:first step: |second step: )?(?:\S+) has no (\w+) ticket left", "no_ticket"),
    (r"R-TICKETS: only Mr X has black tickets", "black_only"),
    (r"R-ROUND: (\d+) is occupied by (\w+)", "occupied"),
    (r"R-ROUND: (?:first step: |second step: )?Mr X may not move onto a detective .*\((\d+)\)",
     "onto_detective"),
    (r"R-MRX: only Mr X makes double moves", "double_only"),
    (r"R-MRX: no double-move card left", "no_double"),
    (r"R-ROUND: it is (\S+?)'s turn", "not_turn"),
)


def explain(reason: str) -> tuple[str | None, str, dict[str, Any]]:
    """The engine's refusal as ``(rule id, code, params)`` for a translated sentence; a reason
    no pattern knows gets the code ``"other"`` (the page shows the engine's own text)."""
    m = re.match(r"(R-[A-Z0-9-]+):", reason)
    rule = m.group(1) if m else None
    for pattern, code in _PATTERNS:
        found = re.match(pattern, reason)
        if not found:
            continue
        g = found.groups()
        params: dict[str, Any]
        if code == "no_line":
            params = {"ticket": g[0], "from": int(g[1]), "to": int(g[2])}
        elif code == "no_line_any":
            params = {"from": int(g[0]), "to": int(g[1])}
        elif code == "no_ticket":
            params = {"ticket": g[0]}
        elif code == "occupied":
            params = {"station": int(g[0]), "piece": g[1]}
        elif code == "onto_detective":
            params = {"station": int(g[0])}
        elif code == "not_turn":
            params = {"piece": g[0]}
        else:
            params = {}
        return rule, code, params
    return rule, "other", {}


def check_step(lesson_id: str, step: int, move: str) -> Verdict:
    """Judge ``move`` (notation, with or without the piece) at step ``step`` of the lesson with
    the engine: refused (with the engine's rule and reason), a hint, or passed."""
    les = lesson(lesson_id)
    if not 0 <= step < len(les.steps):
        raise TutorialError(f"lesson {lesson_id!r} has steps 0..{len(les.steps) - 1}, not {step}")
    st = les.steps[step]
    game = position(lesson_id, step)
    text = move if ":" in move else f"{st.piece}:{move}"
    try:
        parsed = Move.parse(text)
    except NotationError as exc:
        raise TutorialError(f"not a move: {exc}") from None
    reason = game.why_illegal(parsed)
    last = step == len(les.steps) - 1
    if reason is not None:
        rule, code, params = explain(reason)
        if st.expect is not None and rule == st.expect:
            return Verdict(True, "ok", rule, reason, code, params, done=last)
        return Verdict(False, "refused", rule, reason, code, params)
    if st.solution is None or parsed != Move.parse(f"{st.piece}:{st.solution}"):
        return Verdict(False, "hint")
    return Verdict(True, "ok", done=last)


def state(lesson_id: str, step: int) -> dict[str, Any]:
    """What the page draws at step ``step``: the player's view of the position (Mr X's station
    only where the player plays him or a reveal showed it), the step's instruction and rule."""
    les = lesson(lesson_id)
    game = position(lesson_id, step)
    viewer = "X" if les.player == "mr_x" else "D1"
    view = game.view(viewer)
    st = les.steps[step] if step < len(les.steps) else None
    outcome = game.outcome()
    stations = dict(view.stations)
    last_seen: dict[str, Any] | None = None
    if les.player == "mr_x" and view.mr_x_station is not None:
        stations["X"] = view.mr_x_station
    else:  # the detectives see where a reveal showed him and the tickets he used since
        seen = [e for e in view.log if e.station is not None]
        if seen:
            since = view.log[view.log.index(seen[-1]) + 1:]
            last_seen = {"station": seen[-1].station, "round": seen[-1].round,
                         "tickets": [e.ticket.name.lower() for e in since]}
    return {
        "lesson": les.id, "step": step, "steps": len(les.steps), "player": les.player,
        "piece": st.piece if st else None, "key": st.key if st else "done",
        "expect": st.expect if st else None,
        "target": _targets(st),
        "round": view.round, "stations": stations,
        "mr_x_seen": view.mr_x_station, "last_seen": last_seen,
        "possible": sorted(view.possible) if les.player == "detectives" else [],
        "tickets": {p: dict(t) for p, t in view.tickets.items()},
        "log": [{"slot": e.slot, "round": e.round, "ticket": e.ticket.name.lower(),
                 "station": e.station, "reveal": e.reveal, "double": e.double}
                for e in view.log],
        "reveal_rounds": list(les.rules.reveal_slots),
        "outcome": outcome.describe() if outcome else None,
    }


def _targets(st: Step | None) -> list[int]:
    """The stations a step's instruction names (highlighted; a tap near one lands on it)."""
    if st is None:
        return []
    if st.solution is not None:
        return [int(part[1:]) for part in st.solution.split("+")]
    return [st.at] if st.at is not None else []


def catalogue() -> list[dict[str, Any]]:
    """The lessons with their step counts (``GET /api/tutorial``)."""
    return [{"id": les.id, "steps": len(les.steps), "player": les.player} for les in LESSONS]
