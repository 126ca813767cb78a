"""R-TICKETS, R-SETUP, R-PIECES, R-VAR: presets and validated settings."""

from __future__ import annotations

import pytest

from scotlandyard import Rules, RulesError


def test_r_tickets_classic_preset() -> None:
    r = Rules.classic(detectives=5)
    assert r.edition == "classic"
    assert r.detective_tickets == (10, 8, 4)
    assert r.mr_x_tickets == (4, 3, 3)
    assert r.black_tickets == 5 and r.double_moves == 2
    assert not r.mr_x_unlimited and r.ticket_handover and not r.free_order
    assert r.reveal_slots == (3, 8, 13, 18, 24)
    assert r.last_round == 22 and r.log_slots == 24
    assert r.pieces == ("X", "D1", "D2", "D3", "D4", "D5")
    assert len(r.start_deck_detectives) == 18 and r.shared_start_deck
    assert r.board == "classic"


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5])
def test_r_tickets_classic_black_tickets_equal_detectives(n: int) -> None:
    assert Rules.classic(detectives=n).black_tickets == n


def test_r_tickets_new_edition_preset() -> None:
    r = Rules.new_edition(detectives=4)
    assert r.detective_tickets == (11, 8, 4)
    assert r.mr_x_unlimited and r.black_tickets == 5 and r.double_moves == 2
    assert not r.ticket_handover and r.free_order
    assert r.board == "2014"
    assert len(r.start_deck_detectives) == 16 and len(r.start_deck_mr_x) == 13
    assert not r.shared_start_deck


@pytest.mark.parametrize(("n", "police"), [(1, 2), (2, 2), (3, 1), (4, 0), (5, 0)])
def test_r_pieces_police_join_below_four_detectives(n: int, police: int) -> None:
    r = Rules.new_edition(detectives=n)
    assert r.police == police
    assert r.hunters == tuple(f"D{i}" for i in range(1, n + 1)) + tuple(f"P{i}" for i in range(1, police + 1))


def test_r_var_2p_classic() -> None:
    r = Rules.classic_two_players()
    assert r.detectives == 4 and r.black_tickets == 4 and r.variant == "2p"
    assert r.pooled_supply is None  # each piece keeps its own supply


def test_r_var_2p_new_pooled_supply() -> None:
    r = Rules.new_edition_two_players()
    assert r.detectives == 2 and r.police == 2
    assert r.pooled_supply == (20, 16, 8) and r.free_order


def test_presets_by_name_and_round_trip() -> None:
    for name in Rules.PRESETS:
        r = Rules.preset(name)
        assert Rules.from_dict(r.to_dict()) == r
    with pytest.raises(RulesError, match="unknown preset"):
        Rules.preset("monopoly")


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"detectives": 0}, "1 to 5 detectives"),
        ({"detectives": 6}, "1 to 5 detectives"),
        ({"detective_tickets": (10, 8)}, "three counts"),
        ({"detective_tickets": (10, -1, 4)}, "three counts"),
        ({"mr_x_tickets": (1.5, 3, 3)}, "three counts"),
        ({"black_tickets": -1}, "black_tickets"),
        ({"double_moves": "two"}, "double_moves"),
        ({"reveal_slots": (8, 3)}, "increasing"),
        ({"reveal_slots": (3, 3)}, "increasing"),
        ({"reveal_slots": (3, 25)}, "reveal slots lie in 1..24"),
        ({"last_round": 0}, "last_round"),
        ({"board": "paris"}, "board is classic or 2014"),
        ({"edition": "deluxe"}, "unknown edition"),
        ({"police": 3}, "5 pawns"),
        ({"free_order": "yes"}, "free_order is true or false"),
        ({"start_deck_detectives": (1, 1, 2)}, "repeated"),
        ({"start_deck_detectives": (1, 2, 300)}, "stations 1..199"),
        ({"colour": "red"}, "unknown rule setting"),
    ],
)
def test_bad_setting_is_a_clear_error(changes: dict, message: str) -> None:
    with pytest.raises(RulesError, match=message):
        Rules.classic(detectives=5).replace(**changes)


def test_bad_detective_count_in_preset() -> None:
    with pytest.raises(RulesError, match="1 to 5 detectives"):
        Rules.classic(detectives=7)
    with pytest.raises(RulesError, match="1 to 5 detectives"):
        Rules.new_edition(detectives=True)  # type: ignore[arg-type]


def test_small_start_deck_rejected() -> None:
    with pytest.raises(RulesError, match="need 6 start cards"):
        Rules.classic(detectives=5, start_deck_detectives=(1, 2, 3), start_deck_mr_x=(1, 2, 3))


def test_polish_rule_book_reading_is_a_setting() -> None:
    r = Rules.classic(mr_x_tickets=(4, 3, 2))
    assert r.mr_x_tickets == (4, 3, 2)


# ---- every printed book is a preset (figures checked against the books' own lines) ----------------
from .conftest import shared_dir  # noqa: E402

# preset, setting, value, book in shared/seeds, the line of the book that prints it
BOOK_FIGURES = [
    ("classic", "mr_x_tickets", (4, 3, 3), "000_",
     "riceve 4 biglietti per il taxi, 3 per l'autobus, 3 per il metro"),
    ("classic", "detective_tickets", (10, 8, 4), "000_", "10 biglietti per il taxi, 8 per l'autobus e 4 per il metro"),
    ("classic", "reveal_slots", (3, 8, 13, 18, 24), "000_",
     "la prima volta dopo la terza mossa, poi dopo l'8°, la 13°, la 18° e alla fine del gioco"),
    ("classic_2p", "black_tickets", 4, "000_", "vengono assegnati complessivamente 4 Black Tickets"),
    ("classic_pl", "mr_x_tickets", (4, 3, 2), "003_", "4 bilety na taksówkę\n 3 bilety na autobus\n 2 bilety na metro"),
    ("classic_pl", "detective_tickets", (10, 8, 4), "003_", "10 biletów na taksówkę\n 8 biletów na autobus\n 4 bilety na metro"),
    ("classic_pl", "reveal_slots", (3, 8, 13, 18), "003_", "przy swoim 3,8,13 i\n18 ruchu"),
    ("classic_pl", "double_moves", 2, "003_", "2 karty „Podwójnego ruchu”"),
    ("classic_ru", "mr_x_tickets", (4, 3, 3), "004_", "4 билета на такси, 3 – на автобус, 3 – на метро"),
    ("classic_ru", "detective_tickets", (10, 8, 4), "004_", "10 билетов на такси, 8 – на автобус, 4 – на метро"),
    ("classic_ru", "reveal_slots", (3, 8, 13, 18), "004_", "на 3-м, 8-м, 13-м и 18-м ходу"),
    ("new_edition", "detective_tickets", (11, 8, 4), "001_", "4 x metropolitana\n8 x autobus\n11 x taxi"),
    ("new_edition", "black_tickets", 5, "001_", "5 x blackticket\n2 x biglietti doppia mossa"),
    ("new_edition", "reveal_slots", (3, 8, 13, 18, 24), "001_", "3ª, 8ª, 13ª, 18ªe 24ªmossa"),
    ("new_edition", "last_round", 22, "001_", "Il gioco prevede fino a 22 turni di gioco"),
    ("new_edition_2p", "pooled_supply", (20, 16, 8), "001_", "20 per taxi, 16\nper autobus e 8 per la metropolitana"),
]


def _book(prefix: str) -> str:
    path = next((shared_dir() / "seeds").glob(prefix + "*.txt"))
    text = path.read_text(encoding="utf-8").replace("\ufb01 ", "fi")  # the 2014 PDF's "ﬁ "
    text = "".join(c for c in text if not "\ue000" <= c <= "\uf8ff")  # bullet glyphs
    return " ".join(text.split())


@pytest.mark.parametrize(("preset", "setting", "value", "book", "line"), BOOK_FIGURES,
                         ids=[f"{p}-{s}" for p, s, *_ in BOOK_FIGURES])
def test_every_book_figure_is_its_presets_setting(preset: str, setting: str, value: object,
                                                  book: str, line: str) -> None:
    assert " ".join(line.split()) in _book(book), f"the book {book} does not print {line!r}"
    assert getattr(Rules.preset(preset), setting) == value


def test_book_presets_differ_from_the_classic_only_where_their_books_do() -> None:
    classic = Rules.classic().to_dict()
    for name, differ in (("classic_pl", {"mr_x_tickets", "reveal_slots"}),
                         ("classic_ru", {"reveal_slots"})):
        theirs = Rules.preset(name).to_dict()
        assert {k for k in classic if classic[k] != theirs[k]} == differ
        assert Rules.preset(name, 3).black_tickets == 3  # one black ticket per detective


def test_preset_table_names_aliases_and_counts() -> None:
    from scotlandyard.rules import PRESET_TABLE, preset_info

    assert Rules.PRESETS == tuple(p.name for p in PRESET_TABLE)
    assert Rules.preset("classic_it") == Rules.classic()
    assert Rules.preset("new_edition_it", 3) == Rules.new_edition(3)
    assert Rules.preset("classic_3p") == Rules.classic_three_players() == Rules.classic_two_players()
    with pytest.raises(RulesError, match="the classic_2p preset has 4 detectives, not 3"):
        preset_info("classic_2p").rules(3)
    assert Rules.preset("classic_2p", 3) == Rules.classic_three_players()  # fixed: ignored
    # counts a book does not print stay settings, and the table says so
    assert not preset_info("classic").in_book(1) and preset_info("classic").in_book(3)
    assert not preset_info("new_edition").in_book(1) and preset_info("new_edition").in_book(2)
    assert Rules.preset("classic", 1).detectives == 1


def test_replace_last_round_adjusts_the_reveal_slots() -> None:
    # the classic book's last reveal is "at the end of the game": it follows the log's end
    assert Rules.classic().replace(last_round=10).reveal_slots == (3, 8, 12)
    assert Rules.classic().replace(last_round=30).reveal_slots == (3, 8, 13, 18, 32)
    assert Rules.preset("classic_ru").replace(last_round=10).reveal_slots == (3, 8)
    assert Rules.classic().replace(double_moves=0).reveal_slots == (3, 8, 13, 18, 22)
    # given slots are kept (and checked)
    assert Rules.classic().replace(last_round=10, reveal_slots=(5,)).reveal_slots == (5,)
    with pytest.raises(RulesError, match="reveal slots lie in 1..12"):
        Rules.classic().replace(last_round=10, reveal_slots=(3, 24))
