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
