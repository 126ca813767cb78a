"""Rule settings (R-TICKETS, R-SETUP, R-PIECES, R-ROUND, R-VAR): one validated ``Rules`` value.

Every number of the rule books is a setting; the two editions and their variants are presets:

>>> Rules.classic(detectives=5).black_tickets
5
>>> Rules.new_edition(detectives=2).police
2
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Literal

from .board import london
from .move import DETECTIVE_IDS, MR_X, POLICE_IDS

Edition = Literal["classic", "new_edition"]


class RulesError(ValueError):
    """A rule setting that is out of range or inconsistent."""


TicketCounts = tuple[int, int, int]  # taxi, bus, underground


@dataclass(frozen=True)
class Rules:
    """All settings of one game. Build with :meth:`classic` or :meth:`new_edition` and adjust
    with :meth:`replace`; every value is checked when the object is made."""

    edition: Edition = "classic"
    variant: str = "standard"
    detectives: int = 5
    police: int = 0
    detective_tickets: TicketCounts = (10, 8, 4)
    pooled_supply: TicketCounts | None = None  # R-VAR-2P-NEW: the detectives share one supply
    mr_x_tickets: TicketCounts = (4, 3, 3)
    mr_x_unlimited: bool = False
    black_tickets: int = 5
    double_moves: int = 2
    reveal_slots: tuple[int, ...] = (3, 8, 13, 18, 24)
    last_round: int = 22
    ticket_handover: bool = True
    free_order: bool = False
    board: Literal["classic", "2014"] = "classic"
    start_deck_detectives: tuple[int, ...] = field(default=())
    start_deck_mr_x: tuple[int, ...] = field(default=())
    shared_start_deck: bool = True
    extra_reveal: bool = False
    # R-END (3): the 2014 book ends the game once no *detective* can move ("nessuno dei
    # detective"); True lets the police keep the hunt going (the reading before that ruling)
    police_keep_hunting: bool = False

    # ---- presets ---------------------------------------------------------------------------
    @classmethod
    def classic(cls, detectives: int = 5, **changes: Any) -> Rules:
        """The 1983 rules: 10/8/4 tickets per detective, Mr X 4/3/3, one black ticket per
        detective, fixed order, spent tickets go to Mr X, 18 start cards in one deck."""
        cls._check_count(detectives)
        deck = london("classic").start_positions["classic"]
        base = cls(
            edition="classic", detectives=detectives, police=0, detective_tickets=(10, 8, 4),
            mr_x_tickets=(4, 3, 3), mr_x_unlimited=False, black_tickets=detectives,
            ticket_handover=True, free_order=False, board="classic",
            start_deck_detectives=deck["detectives"], start_deck_mr_x=deck["mr_x"],
            shared_start_deck=True,
        )
        return base.replace(**changes) if changes else base

    @classmethod
    def new_edition(cls, detectives: int = 4, **changes: Any) -> Rules:
        """The 2014 rules: 11/8/4 tickets per detective, Mr X unlimited with 5 black tickets,
        police for 2 or 3 detectives, free order, spent tickets leave the game, 2014 board,
        start tiles in a D deck and an X deck."""
        cls._check_count(detectives)
        deck = london("2014").start_positions["new_edition"]
        base = cls(
            edition="new_edition", detectives=detectives, police=cls.default_police(detectives),
            detective_tickets=(11, 8, 4), mr_x_tickets=(0, 0, 0), mr_x_unlimited=True,
            black_tickets=5, ticket_handover=False, free_order=True, board="2014",
            start_deck_detectives=deck["detectives"], start_deck_mr_x=deck["mr_x"],
            shared_start_deck=False,
        )
        return base.replace(**changes) if changes else base

    @classmethod
    def classic_two_players(cls) -> Rules:
        """R-VAR-2P: two people share four detectives (each piece its own supply); Mr X has
        4 black tickets."""
        return cls.classic(detectives=4, variant="2p", black_tickets=4)

    @classmethod
    def new_edition_two_players(cls) -> Rules:
        """R-VAR-2P-NEW: one person plays two detectives with one pooled supply
        (20 taxi, 16 bus, 8 underground) and two police, in any order."""
        return cls.new_edition(detectives=2, variant="2p_new", police=2, pooled_supply=(20, 16, 8))

    @classmethod
    def preset(cls, name: str, detectives: int | None = None) -> Rules:
        """A preset by name: ``classic``, ``new_edition``, ``classic_2p``, ``new_edition_2p``."""
        if name == "classic":
            return cls.classic(detectives if detectives is not None else 5)
        if name == "new_edition":
            return cls.new_edition(detectives if detectives is not None else 4)
        if name == "classic_2p":
            return cls.classic_two_players()
        if name == "new_edition_2p":
            return cls.new_edition_two_players()
        raise RulesError(f"unknown preset {name!r} (classic, new_edition, classic_2p, new_edition_2p)")

    PRESETS = ("classic", "new_edition", "classic_2p", "new_edition_2p")

    @staticmethod
    def default_police(detectives: int) -> int:
        """R-PIECES: police join the new edition below four detectives (2 -> 2, 3 -> 1; with one
        detective, the two police of the box)."""
        return {1: 2, 2: 2, 3: 1}.get(detectives, 0)

    @staticmethod
    def _check_count(detectives: int) -> None:
        if not isinstance(detectives, int) or isinstance(detectives, bool) or not 1 <= detectives <= 5:
            raise RulesError(f"R-PIECES: 1 to 5 detectives, not {detectives!r}")

    # ---- derived ------------------------------------------------------------------------------
    def replace(self, **changes: Any) -> Rules:
        """A copy with some settings changed (validated)."""
        unknown = set(changes) - {f.name for f in dataclasses.fields(self)}
        if unknown:
            raise RulesError(f"unknown rule setting(s): {', '.join(sorted(unknown))}")
        return dataclasses.replace(self, **changes)

    @property
    def pieces(self) -> tuple[str, ...]:
        """Every piece in seat order: ``X``, ``D1``.., ``P1``.."""
        return (MR_X, *DETECTIVE_IDS[: self.detectives], *POLICE_IDS[: self.police])

    @property
    def hunters(self) -> tuple[str, ...]:
        """The detectives' side: detectives then police."""
        return self.pieces[1:]

    @property
    def log_slots(self) -> int:
        """Slots of Mr X's travel log: one a round plus one per double-move card."""
        return self.last_round + self.double_moves

    def to_dict(self) -> dict[str, Any]:
        """Every setting as plain JSON values."""
        d = dataclasses.asdict(self)
        for k, v in d.items():
            if isinstance(v, tuple):
                d[k] = list(v)
        return d

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Rules:
        """Rebuild from :meth:`to_dict` output; every value is validated."""
        if not isinstance(data, dict):
            raise RulesError("rules must be an object of settings")
        names = {f.name for f in dataclasses.fields(cls)}
        unknown = set(data) - names
        if unknown:
            raise RulesError(f"unknown rule setting(s): {', '.join(sorted(unknown))}")
        conv: dict[str, Any] = {}
        for k, v in data.items():
            if isinstance(v, list):
                v = tuple(v)
            conv[k] = v
        return cls(**conv)

    # ---- validation -----------------------------------------------------------------------------
    def __post_init__(self) -> None:
        def fail(msg: str) -> None:
            raise RulesError(msg)

        def is_int(x: Any) -> bool:
            return isinstance(x, int) and not isinstance(x, bool)

        def counts(name: str, v: Any) -> None:
            if not (isinstance(v, tuple) and len(v) == 3 and all(is_int(x) and 0 <= x <= 999 for x in v)):
                fail(f"R-TICKETS: {name} is three counts (taxi, bus, underground) 0..999, not {v!r}")

        if self.edition not in ("classic", "new_edition"):
            fail(f"unknown edition {self.edition!r} (classic or new_edition)")
        if not isinstance(self.variant, str) or not self.variant:
            fail("variant is a name")
        self._check_count(self.detectives)
        if not is_int(self.police) or not 0 <= self.police <= len(POLICE_IDS):
            fail(f"R-PIECES: 0 to {len(POLICE_IDS)} police, not {self.police!r}")
        if self.detectives + self.police > 5:
            fail(f"R-PIECES: the box has 5 pawns for the detectives' side, not "
                 f"{self.detectives} detectives + {self.police} police")
        counts("detective_tickets", self.detective_tickets)
        counts("mr_x_tickets", self.mr_x_tickets)
        if self.pooled_supply is not None:
            counts("pooled_supply", self.pooled_supply)
        for name in ("black_tickets", "double_moves", "last_round"):
            v = getattr(self, name)
            if not is_int(v) or v < 0 or v > 999:
                fail(f"{name} is a whole number 0..999, not {v!r}")
        if self.last_round < 1:
            fail("R-END: last_round is at least 1")
        for name in ("mr_x_unlimited", "ticket_handover", "free_order", "shared_start_deck",
                     "extra_reveal", "police_keep_hunting"):
            if not isinstance(getattr(self, name), bool):
                fail(f"{name} is true or false")
        slots = self.reveal_slots
        if not isinstance(slots, tuple) or not all(is_int(s) for s in slots):
            fail(f"R-MRX: reveal_slots is a list of log slots, not {slots!r}")
        if list(slots) != sorted(set(slots)):
            fail(f"R-MRX: reveal slots must be increasing without repeats: {list(slots)}")
        if slots and not (1 <= slots[0] and slots[-1] <= self.log_slots):
            fail(f"R-MRX: reveal slots lie in 1..{self.log_slots} (the log's slots), not {list(slots)}")
        if self.board not in ("classic", "2014"):
            fail(f"R-BOARD: board is classic or 2014, not {self.board!r}")
        for name in ("start_deck_detectives", "start_deck_mr_x"):
            deck = getattr(self, name)
            if not isinstance(deck, tuple) or not all(is_int(s) and 1 <= s <= 199 for s in deck):
                fail(f"R-SETUP: {name} is a list of stations 1..199")
            if len(set(deck)) != len(deck):
                fail(f"R-SETUP: {name} has repeated stations")
        hunters = self.detectives + self.police
        if self.start_deck_detectives or self.start_deck_mr_x:
            if self.shared_start_deck:
                if set(self.start_deck_detectives) != set(self.start_deck_mr_x):
                    fail("R-SETUP: a shared start deck is the same list for everyone")
                if len(self.start_deck_detectives) < hunters + 1:
                    fail(f"R-SETUP: {hunters + 1} players need {hunters + 1} start cards, the "
                         f"deck has {len(self.start_deck_detectives)}")
            else:
                if len(self.start_deck_detectives) < hunters:
                    fail(f"R-SETUP: {hunters} detective/police pieces need as many D tiles, the deck "
                         f"has {len(self.start_deck_detectives)}")
                if not self.start_deck_mr_x:
                    fail("R-SETUP: Mr X's start deck is empty")
        if self.pooled_supply is not None and self.detectives < 2:
            fail("R-VAR-2P-NEW: a pooled supply is shared by two or more detectives")
