"""Checking Mr X's sealed log after a game (``scotlandyard verify``; issue 10, finding 5).

The input is what every player has at the end, the ``state`` of a finished game (``GET
/api/games/ID/state`` or the last WebSocket ``state``, with ``game_id``): the rules, the
detectives' start stations and moves, Mr X's tickets per log slot, the commitments published
during the game and the openings. From these alone (never the server's word on Mr X's start or
path) the check makes sure that

- every opening matches its commitment (``sha256(game:slot:station:salt)``),
- the opened stations, with the tickets shown, are a journey that the rules allow from some
  start card Mr X could have drawn: every step along a line of that ticket's transport, never
  onto a detective, with the tickets he had (the core :class:`~scotlandyard.Game` replays it),
  and from the start the server shows at the end, where it shows one (a journey legal only
  from another start card is a forgery too),
- every station shown at a reveal is the opened one, and the replayed game ends as stated,
- Mr X's start was sealed before the first move (log slot 0, published with the game) and is
  the one the server shows at the end, so the server could not pick it after seeing the game.
  (Games stored before the start was sealed have no slot 0: they fail this check, truthfully:
  their start was never sealed.)
- with the seals a player saw during the game (``seen``: the file the page saves, "Save the
  seals seen"), every commitment at the end is the one seen, so the openings are checked
  against what was published during the game: a server cannot forge a legal path and seal it
  afresh at the end (:func:`read_seen`),
- the rules' start decks are those of a preset on that board, so a server cannot widen or
  empty them to let a start pass that Mr X could not have drawn.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..game import Game
from ..move import MR_X, Move, Ticket
from ..rules import PRESET_TABLE, Rules, RulesError
from .tokens import commitment_hash as commitment  # the published hash of one log slot

__all__ = ["SEEN_FORMAT", "SealReport", "commitment", "read_seen", "verify_seal"]

SEEN_FORMAT = "scotlandyard-seals"
"""The ``format`` of the file of seals seen that the page saves."""
_HASH = re.compile(r"[0-9a-f]{64}")

_LETTER = {t.label: t.letter for t in Ticket}


@dataclass
class SealReport:
    """The result: ``ok`` and, if not, every problem found (slot or move named)."""

    ok: bool
    checked: int
    problems: list[str] = field(default_factory=list)
    starts: list[int] = field(default_factory=list)
    """The start cards from which the opened journey is legal."""
    sealed_start: int | None = None
    """Mr X's start as opened from its seal (log slot 0), if it was sealed."""
    seen: int = 0
    """How many seals seen during the game were compared (0: none given)."""


def read_seen(data: Any) -> tuple[str, dict[int, str]]:
    """The game id and the seals (slot -> hash) of a file of seals seen, as the page saves it:
    ``{"format": "scotlandyard-seals", "game_id": "...", "seals": {"0": "<64 hex>", ...}}``.
    Raises ``ValueError`` saying what is wrong."""
    if not isinstance(data, dict) or data.get("format") != SEEN_FORMAT:
        raise ValueError(f"not a file of seals seen (a JSON object with \"format\": "
                         f"\"{SEEN_FORMAT}\", as the game page saves it)")
    game_id, seals = data.get("game_id"), data.get("seals")
    if not isinstance(game_id, str) or not isinstance(seals, dict):
        raise ValueError("a file of seals seen names its \"game_id\" (text) and its "
                         "\"seals\" (an object: slot -> hash)")
    out: dict[int, str] = {}
    for slot, digest in seals.items():
        if not (isinstance(slot, str) and slot.isdigit() and len(slot) <= 4):
            raise ValueError(f"seal slot {str(slot)[:20]!r} is not a slot number")
        if not (isinstance(digest, str) and _HASH.fullmatch(digest.lower())):
            raise ValueError(f"the seal of slot {slot} is not a SHA-256 hash (64 hex digits)")
        out[int(slot)] = digest.lower()
    return game_id, out


def _preset_decks(rules: Rules) -> set[tuple[tuple[int, ...], tuple[int, ...], bool]]:
    """The start decks (Mr X's, the detectives', shared) of every preset on ``rules``' board
    and edition."""
    decks = set()
    for preset in PRESET_TABLE:
        try:
            base = preset.build(rules.detectives)
        except (RulesError, ValueError):
            base = preset.build(preset.detectives[2])
        if base.board == rules.board and base.edition == rules.edition:
            decks.add((tuple(base.start_deck_mr_x), tuple(base.start_deck_detectives),
                       base.shared_start_deck))
    return decks


def verify_seal(state: dict[str, Any], seen: Mapping[int, str] | None = None,
                seen_game: str | None = None) -> SealReport:
    """Check a finished game's seals and Mr X's opened journey (see the module's docstring);
    ``seen``: the seals a player saw during the game (slot -> hash, :func:`read_seen`), of the
    game ``seen_game``. A state that is not a finished game's (the server that sent it may be
    the cheat: a field missing or of the wrong kind, a move that does not read) is a failed
    check, never an exception."""
    try:
        report = _verify(state)
        if seen is not None:
            _check_seen(state, report, seen, seen_game)
        return report
    except (KeyError, TypeError, ValueError, AttributeError, IndexError, RecursionError) as exc:
        why = f"{type(exc).__name__}: {exc}"
        return SealReport(False, 0, [f"not the state of a finished game ({why[:200]})"])


def _check_seen(state: dict[str, Any], report: SealReport, seen: Mapping[int, str],
                seen_game: str | None) -> None:
    """Every seal seen during the game is the commitment at the end (which the openings were
    checked against), Mr X's start among them."""
    problems = report.problems
    if seen_game is not None and seen_game != str(state.get("game_id")):
        problems.append(f"the seals seen are of game {seen_game[:40]!r}, not of this one")
    final = {int(c["slot"]): str(c["hash"]).lower() for c in state["commitments"]}
    if 0 not in seen:
        problems.append("the seals seen do not include Mr X's start (slot 0, published with "
                        "the game)")
    for slot, digest in sorted(seen.items()):
        if slot not in final:
            problems.append(f"slot {slot}: sealed during the game ({digest[:16]}...) but not "
                            "among the commitments at the end")
        elif final[slot] != digest:
            problems.append(f"slot {slot}: the commitment at the end ({final[slot][:16]}...) is "
                            f"not the one seen during the game ({digest[:16]}...); a takeback of "
                            "Mr X's move after the file was saved changes it too: save it again")
    report.seen = len(seen)
    report.ok = not problems


def _verify(state: dict[str, Any]) -> SealReport:
    problems: list[str] = []
    try:
        game_id = str(state["game_id"])
        view = state["view"]
        commitments = {int(c["slot"]): str(c["hash"]) for c in state["commitments"]}
        openings = {int(o["slot"]): (int(o["station"]), str(o["salt"]))
                    for o in state["openings"] or []}
        log = list(view["log"])
        history = list(view["history"])
        rules = Rules.from_dict(view["rules"])
    except (KeyError, TypeError, ValueError) as exc:
        return SealReport(False, 0, [f"not the state of a finished game: {exc!r}"])
    for slot, digest in sorted(commitments.items()):
        if slot not in openings:
            problems.append(f"slot {slot}: committed but never opened")
        elif commitment(game_id, slot, *openings[slot]) != digest.lower():
            problems.append(f"slot {slot}: the opening does not match its commitment")
    for entry in log:
        slot = int(entry["slot"])
        if slot not in commitments:
            problems.append(f"slot {slot}: filled but never committed")
        shown = entry.get("station") if entry.get("reveal") else None
        if shown is not None and slot in openings and openings[slot][0] != shown:
            problems.append(f"slot {slot}: revealed as {shown} but opened as {openings[slot][0]}")
    tickets = {int(e["slot"]): str(e["ticket"]) for e in log}
    moves: list[Move] = []
    slot = 0
    for i, h in enumerate(history, 1):
        if h["piece"] != MR_X or str(h["move"]).startswith("take:"):
            moves.append(Move.parse(h["move"]))  # a take (R-VAR-EXTRA-REVEAL) fills no slot
            continue
        parts = str(h["move"]).count("+") + 1
        steps = []
        for _ in range(parts):
            slot += 1
            if slot not in openings or slot not in tickets:
                problems.append(f"move {i}: Mr X's slot {slot} has no opening or ticket")
                return SealReport(False, len(commitments), problems)
            steps.append(f"{_LETTER.get(tickets[slot], '?')}{openings[slot][0]}")
        chosen = "!" if str(h["move"]).endswith("!") else ""  # a reveal he chose (extra reveal)
        moves.append(Move.parse("+".join(steps) + chosen))
    hunters = {p: int(s) for p, s in view["start"].items() if p != MR_X}
    decks = _preset_decks(rules)
    if (tuple(rules.start_deck_mr_x), tuple(rules.start_deck_detectives),
            rules.shared_start_deck) not in decks:
        problems.append(f"the start decks in the rules ({len(rules.start_deck_mr_x)} cards for "
                        f"Mr X, {len(rules.start_deck_detectives)} for the detectives) are not "
                        f"those of any preset on the {rules.board} board")
    deck = rules.start_deck_detectives if rules.shared_start_deck else rules.start_deck_mr_x
    cards = [c for c in deck if c not in hunters.values()]
    starts: list[int] = []
    errors: dict[int, str] = {}  # start card -> why the journey fails from it (in deck order)
    for card in cards:
        try:
            game = Game.new(rules, start={MR_X: card, **hunters})
            for n, move in enumerate(moves, 1):
                why = game.why_illegal(move)
                if why is not None:
                    raise ValueError(f"move {n} ({'Mr X' if game.to_move == MR_X else game.to_move}"
                                     f"): {why}")
                game.push(move)
        except ValueError as exc:
            errors[card] = str(exc)
            continue
        out = game.outcome()
        stated = view.get("outcome") or {}
        if out is None or out.winner != stated.get("winner") or out.reason != stated.get("reason"):
            errors[card] = "the replayed game does not end as stated"
            continue
        starts.append(card)
    if not starts:
        bad, why = next(iter(errors.items()), (None, "no start card"))
        problems.append(f"Mr X's opened journey is not legal from any start card he could "
                        f"have drawn (from {bad}: {why})")
    shown = view["start"].get(MR_X)  # shown to everyone once the game is over
    sealed = openings[0][0] if 0 in commitments and 0 in openings else None
    if 0 not in commitments:
        problems.append("Mr X's start was never sealed (no commitment for log slot 0)")
    elif sealed is not None and sealed != shown:
        problems.append(f"Mr X's start as shown, {shown}, is not the one sealed at the start, "
                        f"{sealed}")
    if shown is not None and not isinstance(shown, int):
        problems.append(f"Mr X's start as shown is not a station: {str(shown)[:80]!r}")
    elif starts and shown is not None and shown not in starts:
        why = errors.get(shown, "not a start card he could have drawn")
        problems.append(f"Mr X's opened journey is not legal from the start the server showed, "
                        f"{shown} ({why}); it is only from {', '.join(map(str, starts))}")
    return SealReport(not problems, len(commitments), problems, starts, sealed)
