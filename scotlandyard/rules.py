"""Rule settings (R-TICKETS, R-SETUP, R-PIECES, R-ROUND, R-VAR): one validated ``Rules`` value.

Every number of the rule books is a setting; every printed rule book (and each book's variant)
is a preset of :data:`PRESET_TABLE`, the one table the CLI, the arena, the envs, the server's
catalogue and records read (see docs/rules.md for every difference between the books, with its
source line), and so are the research presets on the small boards (``tiny``, ``small``,
``corner``; the web app offers the books only, :attr:`Rules.BOOK_PRESETS`):

>>> Rules.classic(detectives=5).black_tickets
5
>>> Rules.new_edition(detectives=2).police
2
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from .board import BOARD_NAMES, BoardName, london
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
    board: BoardName = "classic"  # London, or a small board (scotlandyard/data/small_boards.json)
    start_deck_detectives: tuple[int, ...] = field(default=())
    start_deck_mr_x: tuple[int, ...] = field(default=())
    shared_start_deck: bool = True
    extra_reveal: bool = False
    # R-END (3): the 2014 book ends the game once no *detective* can move ("nessuno dei
    # detective"); True lets the police keep the hunt going (the reading before that ruling)
    police_keep_hunting: bool = False

    # ---- presets ---------------------------------------------------------------------------
    PRESETS: ClassVar[tuple[str, ...]]  # the names of PRESET_TABLE (set below it)
    BOOK_PRESETS: ClassVar[tuple[str, ...]]  # those of the printed books (the web app's)

    @classmethod
    def classic(cls, detectives: int = 5, **changes: Any) -> Rules:
        """The 1983 rules of the Italian classic book: 10/8/4 tickets per detective, Mr X
        4/3/3, one black ticket per detective, fixed order, spent tickets go to Mr X, 18 start
        cards in one deck, reveals after his 3rd, 8th, 13th, 18th move and at the end (24).

        The book prints 3 to 5 detectives (one a player; 4 in the three-person game, see
        :meth:`classic_three_players`); 1 and 2 detectives are settings, in no book."""
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
        """The 2014 rules (Italian book, Ravensburger 266012): 11/8/4 tickets per detective,
        Mr X unlimited with 5 black tickets, police for 2 or 3 detectives, free order, spent
        tickets leave the game, 2014 board, start tiles in a D deck and an X deck.

        The book prints 2 to 5 detectives (3-6 players) and the two-player game
        (:meth:`new_edition_two_players`); one detective (with two police) is a setting, in no
        book."""
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
    def classic_three_players(cls) -> Rules:
        """R-VAR-2P, the classic books' three-person game: Mr X and two detective players, each
        playing two detectives (each piece its own supply); Mr X has 4 black tickets. The
        preset is named ``classic_2p`` (two detective players) in records and the server."""
        return cls.classic(detectives=4, variant="2p", black_tickets=4)

    @classmethod
    def classic_two_players(cls) -> Rules:
        """The same as :meth:`classic_three_players` (the old name counted the detective
        players only: the game has three people)."""
        return cls.classic_three_players()

    @classmethod
    def classic_polish(cls, detectives: int = 5, **changes: Any) -> Rules:
        """The Polish classic book: as :meth:`classic` but Mr X starts with 4 taxi, 3 bus and
        **2** underground tickets, and reveals at his 3rd, 8th, 13th and 18th move only."""
        return cls.classic(detectives, mr_x_tickets=(4, 3, 2), reveal_slots=(3, 8, 13, 18),
                           **changes)

    @classmethod
    def classic_russian(cls, detectives: int = 5, **changes: Any) -> Rules:
        """The Russian classic book (261642): as :meth:`classic` but Mr X reveals at his 3rd,
        8th, 13th and 18th move only."""
        return cls.classic(detectives, reveal_slots=(3, 8, 13, 18), **changes)

    @classmethod
    def new_edition_two_players(cls) -> Rules:
        """R-VAR-2P-NEW: one person plays two detectives with one pooled supply
        (20 taxi, 16 bus, 8 underground) and two police, in any order."""
        return cls.new_edition(detectives=2, variant="2p_new", police=2, pooled_supply=(20, 16, 8))

    @classmethod
    def preset(cls, name: str, detectives: int | None = None) -> Rules:
        """A preset of :data:`PRESET_TABLE` by name or alias (``classic``/``classic_it``,
        ``new_edition``/``new_edition_it``, ``classic_2p``/``classic_3p``, ``new_edition_2p``,
        ``classic_pl``, ``classic_ru``, and the small boards' ``tiny``, ``small``, ``corner``)
        with ``detectives`` detectives (default: the preset's).
        A preset with a fixed number of detectives ignores ``detectives`` here;
        ``preset_info(name).rules(detectives)`` refuses another count."""
        info = preset_info(name)
        return info.rules(None if info.fixed else detectives)

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
        """A copy with some settings changed (validated).

        Changing ``last_round`` or ``double_moves`` (the log's length) without giving
        ``reveal_slots`` adjusts the reveal slots to the new log: slots beyond it are dropped,
        and a reveal at the log's last slot (the classic book's reveal "alla fine del gioco",
        slot 24) stays at the new last slot. Give ``reveal_slots`` to choose them yourself.
        """
        unknown = set(changes) - {f.name for f in dataclasses.fields(self)}
        if unknown:
            raise RulesError(f"unknown rule setting(s): {', '.join(sorted(unknown))}")
        if "reveal_slots" not in changes and ("last_round" in changes or "double_moves" in changes):
            last, doubles = changes.get("last_round", self.last_round), changes.get(
                "double_moves", self.double_moves)
            if isinstance(last, int) and isinstance(doubles, int):
                changes["reveal_slots"] = _adjust_reveals(self.reveal_slots, self.log_slots,
                                                          last + doubles)
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
        # every setting is a scalar or a flat tuple: a field walk, not dataclasses.asdict (whose
        # deep copy made this a third of the server's work per view sent)
        return {name: list(v) if isinstance(v, tuple) else v
                for name in _FIELD_NAMES for v in (getattr(self, name),)}

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
        if self.board not in BOARD_NAMES:
            fail(f"R-BOARD: board is classic or 2014 (London) or a small board "
                 f"({', '.join(BOARD_NAMES[2:])}), not {self.board!r}")
        playable = london(self.board).playable
        for name in ("start_deck_detectives", "start_deck_mr_x"):
            deck = getattr(self, name)
            if not isinstance(deck, tuple) or not all(is_int(s) and 1 <= s <= 199 for s in deck):
                fail(f"R-SETUP: {name} is a list of stations 1..199")
            if len(set(deck)) != len(deck):
                fail(f"R-SETUP: {name} has repeated stations")
            off = [s for s in deck if s not in playable]
            if off:  # e.g. the classic decks with board=tiny: no piece could start
                fail(f"R-SETUP: {name} has stations that are not on the {self.board} board: "
                     f"{', '.join(map(str, off[:8]))}{' ...' if len(off) > 8 else ''} (its "
                     f"stations: {', '.join(map(str, sorted(playable)))}; the {self.board} "
                     f"preset has start decks on it)")
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


_FIELD_NAMES = tuple(f.name for f in dataclasses.fields(Rules))


def _adjust_reveals(slots: tuple[int, ...], old_log: int, new_log: int) -> tuple[int, ...]:
    """Reveal slots for a log of ``new_log`` slots (see :meth:`Rules.replace`)."""
    end = bool(slots) and slots[-1] == old_log
    kept = [s for s in (slots[:-1] if end else slots) if s <= new_log]
    if end and new_log >= 1 and (not kept or kept[-1] < new_log):
        kept.append(new_log)
    return tuple(kept)


# ---- the preset table: every printed book, read by the CLI, the server and records --------------
@dataclass(frozen=True)
class Preset:
    """One preset: a printed rule book (or a book's variant) and how to build its rules.

    ``detectives`` is the (min, max, default) the preset accepts; ``book_detectives`` the
    counts the book itself prints (other counts are settings, not in the book); ``source``
    names the book in ``shared/seeds/``; ``book`` is False for a research preset on a small
    board (no book prints it; the web app does not offer it)."""

    name: str
    title: str
    source: str
    description: str
    detectives: tuple[int, int, int]
    book_detectives: tuple[int, ...]
    build: Callable[[int], Rules]
    aliases: tuple[str, ...] = ()
    book: bool = True

    @property
    def fixed(self) -> bool:
        """True when the preset has one number of detectives."""
        return self.detectives[0] == self.detectives[1]

    def rules(self, detectives: int | None = None) -> Rules:
        """The preset's rules with ``detectives`` detectives (default: the preset's)."""
        lo, hi, default = self.detectives
        n = default if detectives is None else detectives
        Rules._check_count(n)
        if not lo <= n <= hi:
            if self.fixed:
                raise RulesError(f"the {self.name} preset has {lo} detectives, not {n}")
            raise RulesError(f"the {self.name} preset has {lo} to {hi} detectives, not {n}")
        return self.build(n)

    def in_book(self, detectives: int) -> bool:
        """True if the book prints a game with this many detectives."""
        return detectives in self.book_detectives


PRESET_TABLE: tuple[Preset, ...] = (
    Preset("classic", "Classic (1983), Italian book", "seeds/000 (Italian, 1983)",
           "Detectives 10 taxi / 8 bus / 4 underground; Mr X 4/3/3, one black ticket per "
           "detective, 2 double moves; reveals after moves 3, 8, 13, 18 and at the end (24); "
           "fixed order; spent tickets go to Mr X.",
           (1, 5, 5), (3, 4, 5), lambda n: Rules.classic(n), ("classic_it",)),
    Preset("new_edition", "New edition (2014), Italian book", "seeds/001 (Italian, 2014, 266012)",
           "Detectives 11/8/4; Mr X unlimited, 5 black tickets, 2 double moves; police for 2 "
           "or 3 detectives; any order; spent tickets leave the game; 2014 board.",
           (1, 5, 4), (2, 3, 4, 5), lambda n: Rules.new_edition(n), ("new_edition_it",)),
    Preset("classic_2p", "Classic, three-person game", "seeds/000 and seeds/004",
           "Mr X and two detective players, each playing two detectives with their own "
           "tickets; Mr X has 4 black tickets.",
           (4, 4, 4), (4,), lambda n: Rules.classic_three_players(), ("classic_3p",)),
    Preset("new_edition_2p", "New edition, two players", "seeds/001 (p. 14)",
           "Mr X and one player with two detectives sharing 20 taxi / 16 bus / 8 underground "
           "tickets and two police, in any order.",
           (2, 2, 2), (2,), lambda n: Rules.new_edition_two_players()),
    Preset("classic_pl", "Classic, Polish book", "seeds/003 (Polish)",
           "As the classic, but Mr X starts with 4 taxi / 3 bus / 2 underground tickets and "
           "reveals at his 3rd, 8th, 13th and 18th move only.",
           (1, 5, 5), (), lambda n: Rules.classic_polish(n)),
    Preset("classic_ru", "Classic, Russian book", "seeds/004 (Russian, 261642)",
           "As the classic, but Mr X reveals at his 3rd, 8th, 13th and 18th move only.",
           (1, 5, 5), (3, 4, 5), lambda n: Rules.classic_russian(n)),
)

def _small_board(name: str, **settings: Any) -> Callable[[int], Rules]:
    """The build of a research preset on small board ``name``: classic rules on that board with
    its start decks (``scotlandyard/data/small_boards.json``) and ``settings``."""
    def build(detectives: int) -> Rules:
        deck = london(name).start_positions[name]
        return Rules.classic(detectives).replace(
            board=name, variant=name, start_deck_detectives=deck["detectives"],
            start_deck_mr_x=deck["mr_x"], shared_start_deck=False, **settings)
    return build


PRESET_TABLE += (
    Preset("tiny", "Small board: tiny", "research preset (scotlandyard/data/small_boards.json)",
           "1 detective starting at 19; Mr X at 1, 18 or 20; 3 rounds, taxi only; Mr X never "
           "shows himself. Solved exactly by CFR in seconds.",
           (1, 1, 1), (), _small_board(
               "tiny", last_round=3, double_moves=0, black_tickets=0, reveal_slots=(),
               mr_x_tickets=(3, 0, 0), detective_tickets=(3, 0, 0)), book=False),
    Preset("small", "Small board: small", "research preset (scotlandyard/data/small_boards.json)",
           "1 detective starting at 19 or 33; Mr X at 2, 18, 31 or 34; 4 rounds, taxi only; "
           "Mr X shows himself after his 2nd move.",
           (1, 2, 1), (), _small_board(
               "small", last_round=4, double_moves=0, black_tickets=0, reveal_slots=(2,),
               mr_x_tickets=(4, 0, 0), detective_tickets=(4, 0, 0)), book=False),
    Preset("corner", "Small board: corner",
           "research preset (scotlandyard/data/small_boards.json)",
           "2 detectives; 8 rounds with taxi, bus and underground; one black ticket and one "
           "double move for Mr X; reveals after moves 3 and 7. For search and learning "
           "experiments (too large for exact CFR in Python).",
           (1, 4, 2), (), _small_board(
               "corner", last_round=8, double_moves=1, black_tickets=1, reveal_slots=(3, 7),
               mr_x_tickets=(5, 3, 1), detective_tickets=(6, 4, 2)), book=False),
)
Rules.PRESETS = tuple(p.name for p in PRESET_TABLE)
Rules.BOOK_PRESETS = tuple(p.name for p in PRESET_TABLE if p.book)
_BY_NAME: dict[str, Preset] = {n: p for p in PRESET_TABLE for n in (p.name, *p.aliases)}


def preset_info(name: str) -> Preset:
    """The :class:`Preset` of a name or alias; :class:`RulesError` lists the names."""
    try:
        return _BY_NAME[name]
    except (KeyError, TypeError):
        raise RulesError(f"unknown preset {name!r} ({', '.join(Rules.PRESETS)})") from None


def as_rules(value: Rules | str | None, what: str = "rules") -> Rules:
    """``value`` as a :class:`Rules`: a ``Rules`` as it is, a preset name or alias through
    :meth:`Rules.preset` (its default number of detectives), ``None`` the classic rules. Every
    entry point that takes rules (``Game.new``, the envs, ``BatchSim``) reads them so.

    Raises :class:`RulesError` for an unknown preset name and :class:`TypeError` for anything
    else, naming ``what`` was expected."""
    if isinstance(value, Rules):
        return value
    if value is None:
        return Rules.classic()
    if isinstance(value, str):
        return Rules.preset(value)
    raise TypeError(f"{what} is a Rules value or a preset name ({', '.join(Rules.PRESETS)}), "
                    f"not {value!r} ({type(value).__name__})")
