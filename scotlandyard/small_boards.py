"""Small boards: named sub-graphs of the classic London board, and research presets on them
small enough to solve exactly (CFR, exploitability; see ``docs/benchmark.md``).

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

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # rules imports board, which imports this module
    from .rules import Rules

SUB_BOARDS: dict[str, tuple[int, ...]] = {
    "tiny": (1, 8, 9, 18, 19, 20),
    "small": (1, 2, 8, 9, 10, 18, 19, 20, 21, 31, 32, 33, 34),
    "corner": (1, 2, 8, 9, 10, 11, 18, 19, 20, 21, 22, 31, 32, 33, 34, 43, 44, 45, 46, 47, 48,
               57, 58, 59),
}
"""Each small board's stations (London numbers); its links are the classic board's links
between them."""


@dataclass(frozen=True)
class SmallPreset:
    """A research preset on a small board: a classic-rules game with few pieces and rounds."""

    name: str
    description: str
    settings: dict[str, Any]

    def rules(self, **changes: Any) -> Rules:
        """The preset's :class:`~scotlandyard.Rules` (``changes`` as ``Rules.replace``)."""
        from .rules import Rules

        base = Rules.classic(1).replace(board=self.name, variant=self.name, **self.settings)
        return base.replace(**changes) if changes else base


SMALL_PRESETS: dict[str, SmallPreset] = {p.name: p for p in (
    SmallPreset("tiny", "1 detective starting at 19; Mr X at 1, 18 or 20; 3 rounds, taxi only; "
                "Mr X never shows himself. Solved exactly by CFR in seconds.",
                {"detectives": 1, "last_round": 3, "double_moves": 0, "black_tickets": 0,
                 "reveal_slots": (), "mr_x_tickets": (3, 0, 0), "detective_tickets": (3, 0, 0),
                 "start_deck_detectives": (19,), "start_deck_mr_x": (1, 18, 20),
                 "shared_start_deck": False}),
    SmallPreset("small", "1 detective starting at 19 or 33; Mr X at 2, 18, 31 or 34; 4 rounds, "
                "taxi only; Mr X shows himself after his 2nd move.",
                {"detectives": 1, "last_round": 4, "double_moves": 0, "black_tickets": 0,
                 "reveal_slots": (2,), "mr_x_tickets": (4, 0, 0), "detective_tickets": (4, 0, 0),
                 "start_deck_detectives": (19, 33), "start_deck_mr_x": (2, 18, 31, 34),
                 "shared_start_deck": False}),
    SmallPreset("corner", "2 detectives; 8 rounds with taxi, bus and underground; one black "
                "ticket and one double move for Mr X; reveals after moves 3 and 7. For search "
                "and learning experiments (too large for exact CFR in Python).",
                {"detectives": 2, "last_round": 8, "double_moves": 1, "black_tickets": 1,
                 "reveal_slots": (3, 7), "mr_x_tickets": (5, 3, 1),
                 "detective_tickets": (6, 4, 2),
                 "start_deck_detectives": (9, 22, 34, 45), "start_deck_mr_x": (1, 18, 21, 48, 57),
                 "shared_start_deck": False}),
)}


def small_rules(name: str, **changes: Any) -> Rules:
    """The rules of small preset ``name`` (``tiny``, ``small``, ``corner``)."""
    try:
        preset = SMALL_PRESETS[name]
    except (KeyError, TypeError):
        raise ValueError(f"unknown small preset {name!r} ({', '.join(SMALL_PRESETS)})") from None
    return preset.rules(**changes)


def preset_rules(name: str, detectives: int | None = None) -> Rules:
    """A preset by name: a book preset (``Rules.preset``) or a small one (:data:`SMALL_PRESETS`;
    ``detectives`` other than the preset's needs enough start stations in its deck)."""
    from .rules import Rules

    if name in SMALL_PRESETS:
        return small_rules(name, **({"detectives": detectives} if detectives else {}))
    return Rules.preset(name, detectives)


__all__ = ["SMALL_PRESETS", "SUB_BOARDS", "SmallPreset", "preset_rules", "small_rules"]
