"""Small boards: named sub-graphs of the classic London board, and the research presets on them,
small enough to solve exactly (CFR, exploitability; see ``docs/benchmark.md``).

The boards are board data (``scotlandyard/data/small_boards.json``, read by
:func:`scotlandyard.board.london`) and the presets are rows of
:data:`scotlandyard.rules.PRESET_TABLE` like the books' (``Rules.preset("tiny")``); this module
only names them for convenience, importing one way (small_boards -> rules -> board).

A small board keeps London's station numbers (so the envs' actions and observation layout
``sy-obs-1`` are unchanged) and only the links of the classic board whose two ends are both
on it; every other station has no link and no piece ever stands there.

>>> from scotlandyard.small_boards import small_rules
>>> rules = small_rules("tiny")
>>> rules.board, rules.detectives, rules.last_round
('tiny', 1, 3)

==========  ========  =====  ==========================================================
board       stations  links  what
==========  ========  =====  ==========================================================
``tiny``    6         6      the "spectacles" 1-8-19-9 with 18 and 20 at the ends (taxi)
``small``   13        15     London's north-west corner, stations 1-34 (taxi)
``corner``  24        40     a larger north-west corner with bus and underground links
==========  ========  =====  ==========================================================
"""

from __future__ import annotations

from typing import Any

from .board import small_board_document
from .rules import PRESET_TABLE, Preset, Rules

SUB_BOARDS: dict[str, tuple[int, ...]] = {
    name: tuple(board["stations"]) for name, board in small_board_document()["boards"].items()}
"""Each small board's stations (London numbers); its links are the classic board's links
between them."""

SMALL_PRESETS: dict[str, Preset] = {p.name: p for p in PRESET_TABLE if p.name in SUB_BOARDS}
"""The research presets on the small boards (rows of :data:`~scotlandyard.rules.PRESET_TABLE`)."""


def small_rules(name: str, **changes: Any) -> Rules:
    """The rules of small preset ``name`` (``tiny``, ``small``, ``corner``), with ``changes``
    as :meth:`Rules.replace <scotlandyard.rules.Rules.replace>`."""
    try:
        preset = SMALL_PRESETS[name]
    except (KeyError, TypeError):
        raise ValueError(f"unknown small preset {name!r} ({', '.join(SMALL_PRESETS)})") from None
    base = preset.rules()
    return base.replace(**changes) if changes else base


def preset_rules(name: str, detectives: int | None = None) -> Rules:
    """A preset by name: the same as :meth:`Rules.preset <scotlandyard.rules.Rules.preset>`
    (the small boards' presets are in its table)."""
    return Rules.preset(name, detectives)


__all__ = ["SMALL_PRESETS", "SUB_BOARDS", "preset_rules", "small_rules"]
