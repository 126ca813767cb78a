"""Perft: exact move-tree counts, the check that two rule implementations find the same moves.

A ``.perft`` file (``tests/perft/``) is plain text, one block per position, blocks separated by
blank lines, ``#`` starts a comment::

    id classic-start-seed-7          # a name, unique in the file; starts a block
    preset classic                   # Rules.preset(name)
    detectives 3                     # optional: Rules.preset(name, detectives=3)
    rules {"extra_reveal": true}     # optional: Rules.replace(**settings), a JSON object
    seed 7                           # Game.new(rules, seed=7) ...
    start X:74 D1:92 D2:13           # ... or Game.new(rules, start={...}) (one of the two)
    moves T92 B58+K74 D1:T93         # optional: moves pushed from the start, in notation
    perft 1 187                      # depth and the exact number of move sequences
    perft 2 1974

``perft d`` counts the sequences of ``d`` legal moves from the position: every single and
double move, black move, voluntary reveal, take, pass; a finished game has no moves. Counts
come from :func:`game_perft` (``Game``, the reference); the kernel must give the same
(:meth:`Position.perft <scotlandyard.kernel.Position.perft>`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..game import Game
from ..rules import Rules


class PerftFormatError(ValueError):
    """A ``.perft`` file that does not follow the format (the message names file and line)."""


@dataclass
class PerftCase:
    """One position of a perft file and its counts (``counts[d - 1]`` for depth ``d``)."""

    id: str
    preset: str
    detectives: int | None = None
    rules_changes: dict[str, Any] = field(default_factory=dict)
    seed: int | None = None
    start: dict[str, int] | None = None
    moves: list[str] = field(default_factory=list)
    counts: list[int] = field(default_factory=list)

    def rules(self) -> Rules:
        """The rules of this case."""
        base = Rules.preset(self.preset, self.detectives)
        changes = {k: tuple(v) if isinstance(v, list) else v for k, v in self.rules_changes.items()}
        return base.replace(**changes) if changes else base

    def game(self) -> Game:
        """The position of this case, as a ``Game`` (start, then the moves pushed)."""
        game = Game.new(self.rules(), seed=self.seed, start=self.start)
        for m in self.moves:
            game.push(m)
        return game

    def to_text(self) -> str:
        """The block of this case in the file format."""
        lines = [f"id {self.id}", f"preset {self.preset}"]
        if self.detectives is not None:
            lines.append(f"detectives {self.detectives}")
        if self.rules_changes:
            lines.append(f"rules {json.dumps(self.rules_changes, sort_keys=True)}")
        if self.start is not None:
            lines.append("start " + " ".join(f"{p}:{s}" for p, s in self.start.items()))
        else:
            lines.append(f"seed {self.seed}")
        if self.moves:
            lines.append("moves " + " ".join(self.moves))
        lines += [f"perft {d} {n}" for d, n in enumerate(self.counts, start=1)]
        return "\n".join(lines) + "\n"


def parse_perft(text: str, name: str = "<perft>") -> list[PerftCase]:
    """The cases of a ``.perft`` text; :class:`PerftFormatError` says what is wrong where."""
    cases: list[PerftCase] = []
    cur: PerftCase | None = None

    def fail(no: int, msg: str) -> PerftFormatError:
        return PerftFormatError(f"{name}:{no}: {msg}")

    def finish(no: int) -> None:
        if cur is None:
            return
        if cur.seed is None and cur.start is None:
            raise fail(no, f"case {cur.id!r} has neither a seed nor a start")
        if not cur.counts:
            raise fail(no, f"case {cur.id!r} has no perft line")
        cases.append(cur)

    for no, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        key, _, rest = line.partition(" ")
        rest = rest.strip()
        if key == "id":
            finish(no)
            if not rest or any(c.id == rest for c in cases):
                raise fail(no, f"id {rest!r} is empty or repeated")
            cur = PerftCase(id=rest, preset="")
            continue
        if cur is None:
            raise fail(no, f"{key!r} before the first id line")
        try:
            if key == "preset":
                cur.preset = rest
            elif key == "detectives":
                cur.detectives = int(rest)
            elif key == "rules":
                changes = json.loads(rest)
                if not isinstance(changes, dict):
                    raise ValueError("rules is a JSON object of settings")
                cur.rules_changes = changes
            elif key == "seed":
                cur.seed = int(rest)
            elif key == "start":
                cur.start = {p: int(s) for p, s in (w.split(":") for w in rest.split())}
            elif key == "moves":
                cur.moves = rest.split()
            elif key == "perft":
                d, n = (int(x) for x in rest.split())
                if d != len(cur.counts) + 1 or n < 0:
                    raise ValueError(f"depths go 1, 2, 3... (got depth {d} after "
                                     f"{len(cur.counts)}), counts are >= 0")
                cur.counts.append(n)
            else:
                raise ValueError(f"unknown key {key!r} (id, preset, detectives, rules, seed, "
                                 f"start, moves, perft)")
        except ValueError as exc:
            raise fail(no, str(exc)) from None
    finish(len(text.splitlines()))
    return cases


def read_perft(path: str | Path) -> list[PerftCase]:
    """The cases of a ``.perft`` file."""
    p = Path(path)
    return parse_perft(p.read_text(encoding="utf-8"), p.name)


def game_perft(game: Game, depth: int) -> list[int]:
    """Perft counts through ``Game`` (the reference): entry ``k`` counts the sequences of
    ``k + 1`` legal moves; ``game`` is left as it was."""
    counts = [0] * depth

    def walk(d: int) -> None:
        moves = game.legal_moves()
        counts[d] += len(moves)
        if d + 1 == depth:
            return
        for m in moves:
            game.push(m)
            walk(d + 1)
            game.pop()

    if depth > 0:
        walk(0)
    return counts
