"""Every rule of RULES.md on hand-made positions (tests named after the rule they check)."""

from __future__ import annotations

import pytest

from scotlandyard import Game, GameError, IllegalMove, Move, Rules, Ticket

START5 = {"X": 74, "D1": 92, "D2": 58, "D3": 13, "D4": 100, "D5": 150}


def legal(g: Game) -> set[str]:
    return {m.notation() for m in g.legal_moves()}


def hunters_move_away(g: Game) -> None:
    """Let the detectives' side move (first legal move that does not catch Mr X) until Mr X's turn."""
    x = g.station("X")
    while not g.is_over() and g.to_move != "X":
        for m in g.legal_moves():
            if m.destination != x:
                g.push(m)
                break
        else:
            g.push(g.legal_moves()[0])


# ---- R-SETUP ------------------------------------------------------------------------------
def test_r_setup_classic_draws_distinct_cards_from_one_deck() -> None:
    rules = Rules.classic(detectives=5)
    for seed in range(50):
        start = Game.new(rules, seed=seed).start
        assert len(set(start.values())) == 6
        assert set(start.values()) <= set(rules.start_deck_detectives)
    assert Game.new(rules, seed=3).start == Game.new(rules, seed=3).start
    assert len({tuple(Game.new(rules, seed=s).start.values()) for s in range(20)}) > 15


def test_r_setup_seeded_starts_are_random_shuffle_draws() -> None:
    # Game.draw_start shuffles without random.shuffle's call per card: the same starts as a
    # deck shuffled by random.Random(seed).shuffle (Mr X, then each hunter, from the top;
    # the 2014 book: Mr X's tile drawn after the hunters' cards)
    import random

    for rules in (Rules.classic(detectives=5), Rules.classic(detectives=3), Rules.new_edition()):
        ids = rules.pieces
        for seed in [*range(300), 2**40 + 7]:
            rng = random.Random(seed)
            cards = list(rules.start_deck_detectives)
            rng.shuffle(cards)
            if rules.shared_start_deck:
                want = dict(zip(ids, cards, strict=False))
            else:
                taken = set(cards[: len(ids) - 1])
                x = rng.choice([s for s in rules.start_deck_mr_x if s not in taken])
                want = {"X": x, **dict(zip(ids[1:], cards, strict=False))}
            assert Game.draw_start(rules, seed) == want
            assert Game.new(rules, seed=seed).start == want


def test_r_setup_new_edition_uses_d_and_x_decks() -> None:
    rules = Rules.new_edition(detectives=3)
    for seed in range(50):
        start = Game.new(rules, seed=seed).start
        assert start["X"] in rules.start_deck_mr_x
        assert {start[p] for p in ("D1", "D2", "D3", "P1")} <= set(rules.start_deck_detectives)
        assert len(set(start.values())) == 5


@pytest.mark.parametrize(
    ("start", "message"),
    [
        ({"X": 74, "D1": 92}, "no start station for D2"),
        ({**START5, "D6": 1}, "no piece D6"),
        ({**START5, "D5": 92}, "D1 and D5 both start on 92"),
        ({**START5, "X": 0}, "not a station"),
        ({**START5, "X": "74"}, "not a station"),
    ],
)
def test_r_setup_bad_start_is_a_clear_error(start: dict, message: str) -> None:
    with pytest.raises(GameError, match=message):
        Game.new(Rules.classic(detectives=5), start=start)


# ---- R-ROUND / R-MRX ------------------------------------------------------------------------
def test_r_round_mr_x_moves_first_then_detectives_in_fixed_order() -> None:
    g = Game.new(Rules.classic(detectives=5), start=START5)
    assert g.to_move == "X" and g.round == 1
    g.push("T75")
    for p in ("D1", "D2", "D3", "D4", "D5"):
        assert g.to_move == p
        assert g.pieces_to_move == (p,)
        hunters_move_away(g) if p == "D5" else g.push(next(iter(g.legal_moves())))
    assert g.to_move == "X" and g.round == 2


def test_r_round_fixed_order_cannot_be_changed() -> None:
    g = Game.new(Rules.classic(detectives=5), start=START5)
    g.push("T75")
    with pytest.raises(IllegalMove, match="R-ROUND: it is D1's turn, not D2's"):
        g.push("D2:T74")


def test_r_round_mr_x_never_onto_a_detective() -> None:
    g = Game.new(Rules.classic(detectives=5), start=START5)
    moves = legal(g)
    assert "T92" not in moves and "T58" not in moves and "B58" not in moves and "K58" not in moves
    assert {"T73", "T75", "B94", "U46", "K46", "K73"} <= moves
    with pytest.raises(IllegalMove, match=r"R-ROUND: Mr X may not move onto a detective or police piece \(92\)"):
        g.push("T92")


def test_r_round_one_piece_per_station_for_detectives() -> None:
    g = Game.new(Rules.classic(detectives=5), start={**START5, "D3": 73})
    g.push("U46")
    with pytest.raises(IllegalMove, match="R-ROUND: 73 is occupied by D3"):
        g.push("T73")
    assert "T73" not in legal(g)


def test_r_mrx_double_move_neither_step_onto_a_detective() -> None:
    g = Game.new(Rules.classic(detectives=5), start={**START5, "D1": 93})
    moves = legal(g)
    assert "T92+T74" in moves  # the station he just left is free for his second step
    assert "T92+T93" not in moves
    with pytest.raises(IllegalMove, match="second step: Mr X may not move onto a detective"):
        g.push("T92+T93")


def test_r_mrx_double_move_uses_tickets_left_after_first_step() -> None:
    rules = Rules.classic(detectives=5, mr_x_tickets=(1, 3, 3), black_tickets=0)
    g = Game.new(rules, start={**START5, "D1": 93})
    assert not any(m.startswith("T") and "+T" in m for m in legal(g))
    with pytest.raises(IllegalMove, match="second step: Mr X has no taxi ticket left"):
        g.push("T92+T74")


def test_r_mrx_no_double_move_card_left() -> None:
    g = Game.new(Rules.classic(detectives=5, double_moves=0, reveal_slots=(3, 8)), start=START5)
    assert not any("+" in m for m in legal(g))
    with pytest.raises(IllegalMove, match="R-MRX: no double-move card left"):
        g.push("T75+T94")


def test_r_mrx_double_move_reveal_on_first_step() -> None:
    g = Game.new(Rules.classic(detectives=5), start=START5)
    g.push("T75")
    hunters_move_away(g)
    g.push("T94" if "T94" in legal(g) else "T59")
    hunters_move_away(g)
    dbl = next(m for m in g.legal_moves() if m.is_double)
    g.push(dbl)
    slot3, slot4 = g.log[2], g.log[3]
    assert (slot3.slot, slot3.reveal, slot3.double) == (3, True, True)
    assert (slot4.slot, slot4.reveal) == (4, False)
    v = g.view("D1")
    assert v.log[2].station == dbl.to and v.log[3].station is None
    assert v.mr_x_station is None  # he moved on from the revealed station
    t2 = int(dbl.ticket2)
    after = g.board.any_neighbours(dbl.to) if t2 == Ticket.BLACK else set(g.board.neighbours_of(dbl.to, t2))
    hunters = {s for p, s in g.stations.items() if p != "X"}
    assert g.possible_locations() == after - hunters
    assert g.station("X") in g.possible_locations()
    assert g.tickets("X")[Ticket.DOUBLE] == 1


def test_r_mrx_double_move_allowed_in_last_round() -> None:
    g = Game.new(Rules.classic(detectives=5, last_round=2, reveal_slots=(3,)), start=START5)
    g.push("T75")
    hunters_move_away(g)
    assert g.round == 2
    assert any(m.is_double for m in g.legal_moves())


def test_r_mrx_log_reveals_at_slots_3_8_13_18_24() -> None:
    g = Game.new(Rules.classic(detectives=5), start=START5)
    while not g.is_over() and len(g.log) < 8:
        if g.to_move == "X":
            g.push(next(m for m in g.legal_moves() if not m.is_double and m.ticket != Ticket.BLACK))
        else:
            hunters_move_away(g)
    assert [e.slot for e in g.log if e.reveal] == [3, 8][: sum(1 for e in g.log if e.slot in (3, 8))]


def test_r_board_ferry_only_for_mr_x_with_black() -> None:
    start = {"X": 194, "D1": 1, "D2": 2, "D3": 3, "D4": 4, "D5": 5}
    g = Game.new(Rules.classic(detectives=5), start=start)
    moves = legal(g)
    assert "K157" in moves
    assert not any(m.startswith("T157") for m in moves)
    with pytest.raises(IllegalMove, match="the ferry needs a black ticket"):
        g.push("T157")
    g2 = Game.new(Rules.classic(detectives=5, black_tickets=0), start=start)
    assert "K157" not in legal(g2)
    # detectives never use the ferry
    g3 = Game.new(Rules.classic(detectives=5), start={"X": 1, "D1": 194, "D2": 2, "D3": 3, "D4": 4, "D5": 5})
    g3.push("T8")
    assert all(m.destination != 157 for m in g3.legal_moves())


# ---- R-MOVE-2: pass ------------------------------------------------------------------------------
def test_r_move_2_detective_without_a_move_passes() -> None:
    start = {"X": 100, "D1": 8, "D2": 1, "D3": 18, "D4": 19, "D5": 150}
    g = Game.new(Rules.classic(detectives=5), start=start)
    g.push("T112" if "T112" in legal(g) else g.legal_moves()[0])
    assert g.to_move == "D1"
    assert g.legal_moves() == [Move.parse("pass")]
    with pytest.raises(IllegalMove, match="R-ROUND: 1 is occupied by D2"):
        g.push("T1")
    g.push("pass")
    assert g.station("D1") == 8 and g.tickets("D1")[Ticket.TAXI] == 10
    assert g.to_move == "D2"
    with pytest.raises(IllegalMove, match="R-MOVE-2: D2 can move"):
        g.push("pass")


# ---- R-TICKETS ----------------------------------------------------------------------------------
def test_r_tickets_handover_classic() -> None:
    g = Game.new(Rules.classic(detectives=5), start=START5)
    g.push("U46")
    bus_before = g.tickets("X")[Ticket.BUS]
    g.push("T73")  # D1: 92 -> 73
    assert g.tickets("D1")[Ticket.TAXI] == 9
    assert g.tickets("X")[Ticket.TAXI] == 4 + 1
    g.push("B74")  # D2: 58 -> 74
    assert g.tickets("D2")[Ticket.BUS] == 7
    assert g.tickets("X")[Ticket.BUS] == bus_before + 1
    assert g.tickets("X")[Ticket.UNDERGROUND] == 2


def test_r_tickets_new_edition_spent_tickets_leave_the_game() -> None:
    rules = Rules.new_edition(detectives=4)
    g = Game.new(rules, seed=1)
    g.push(g.legal_moves()[0])
    m = next(m for m in g.legal_moves() if m.ticket == Ticket.TAXI)
    g.push(m)
    assert g.tickets(m.piece)[Ticket.TAXI] == 10
    assert g.tickets("X")[Ticket.TAXI] is None  # unlimited, nothing handed over
    assert g.tickets("X")[Ticket.BLACK] == 5


def test_r_tickets_detective_without_ticket_cannot_use_that_line() -> None:
    rules = Rules.classic(detectives=5, detective_tickets=(10, 0, 4))
    g = Game.new(rules, start=START5)
    g.push("U46")
    assert not any(m.ticket == Ticket.BUS for m in g.legal_moves())
    g.push("T73")
    with pytest.raises(IllegalMove, match="R-TICKETS: D2 has no bus ticket left"):
        g.push("B74")


def test_r_tickets_black_ticket_only_for_mr_x() -> None:
    g = Game.new(Rules.classic(detectives=5), start=START5)
    g.push("U46")
    with pytest.raises(IllegalMove, match="only Mr X has black tickets"):
        g.push("K73")


def test_illegal_moves_name_the_rule() -> None:
    g = Game.new(Rules.classic(detectives=5), start=START5)
    with pytest.raises(IllegalMove, match="R-BOARD: no taxi line from 74 to 100"):
        g.push("T100")
    with pytest.raises(IllegalMove, match="R-MOVE-2: Mr X never passes"):
        g.push("pass")
    with pytest.raises(IllegalMove, match="voluntary reveals are not in these rules"):
        g.push("T75!")
    before = (g.stations, g.tickets("X"), g.ply)
    assert (g.stations, g.tickets("X"), g.ply) == before  # nothing changed


# ---- R-END ---------------------------------------------------------------------------------------
def test_r_end_caught_mid_round() -> None:
    g = Game.new(Rules.classic(detectives=5), start={"X": 92, "D1": 58, "D2": 1, "D3": 13, "D4": 100, "D5": 150})
    g.push("T74")
    g.push("T74")  # D1 lands on Mr X
    o = g.outcome()
    assert g.is_over() and o is not None
    assert (o.winner, o.reason, o.round, o.piece) == ("detectives", "caught", 1, "D1")
    assert g.to_move is None and g.legal_moves() == []
    assert g.possible_locations() == {74}
    with pytest.raises(IllegalMove, match="R-END: the game is over"):
        g.push("T1")


def test_r_end_mr_x_cornered() -> None:
    g = Game.new(Rules.classic(detectives=5), start={"X": 1, "D1": 8, "D2": 9, "D3": 46, "D4": 58, "D5": 150})
    o = g.outcome()
    assert o is not None and (o.winner, o.reason) == ("detectives", "cornered")


def test_r_end_mr_x_cornered_out_of_tickets() -> None:
    rules = Rules.classic(detectives=2, mr_x_tickets=(1, 0, 0), black_tickets=0, double_moves=0,
                          ticket_handover=False, reveal_slots=(3, 8, 13, 18))
    g = Game.new(rules, start={"X": 74, "D1": 13, "D2": 150})
    g.push("T75")
    g.push(g.legal_moves()[0])
    assert not g.is_over()
    g.push(g.legal_moves()[0])
    o = g.outcome()
    assert o is not None and (o.winner, o.reason, o.round) == ("detectives", "cornered", 2)


def test_r_end_detectives_stuck() -> None:
    rules = Rules.classic(detectives=3, detective_tickets=(1, 0, 0))
    g = Game.new(rules, start={"X": 74, "D1": 13, "D2": 100, "D3": 150})
    g.push("T75")
    g.push(g.legal_moves()[0])
    g.push(g.legal_moves()[0])
    assert not g.is_over()
    g.push(g.legal_moves()[0])
    o = g.outcome()
    assert o is not None and (o.winner, o.reason, o.round) == ("mr_x", "detectives_stuck", 1)
    assert g.round == 1  # the game ended in round 1, not at the start of round 2
    g.pop()
    assert g.round == 1 and not g.is_over() and g.to_move == "D3"


def test_r_end_3_police_do_not_keep_the_hunt_going_2014_book() -> None:
    # R-END (3), 2014 book: Mr X wins once "nessuno dei detective" can move, police or not
    rules = Rules.new_edition(detectives=2, detective_tickets=(1, 0, 0))
    assert rules.police_keep_hunting is False  # the book's reading is the default
    g = Game.new(rules, seed=4)
    for _ in range(3):  # Mr X's move, then D1 and D2 spend their only ticket
        assert not g.is_over()
        g.push(next(m for m in g.legal_moves() if m.piece in (None, "X", "D1", "D2")))
    assert all(g.tickets(d)[Ticket.TAXI] == 0 for d in ("D1", "D2"))
    o = g.outcome()
    assert o is not None and (o.winner, o.reason, o.round) == ("mr_x", "detectives_stuck", 1)
    assert g.legal_moves() == []  # the police, still to move this round, do not move on


def test_r_end_3_police_keep_the_hunt_going_as_a_setting() -> None:
    rules = Rules.new_edition(detectives=2, detective_tickets=(1, 0, 0), police_keep_hunting=True)
    g = Game.new(rules, seed=4)
    for _ in range(3):
        g.push(next(m for m in g.legal_moves() if m.piece in (None, "X", "D1", "D2")))
    assert not g.is_over()
    assert all(g.tickets(d)[Ticket.TAXI] == 0 for d in ("D1", "D2"))
    assert {m.piece for m in g.legal_moves()} == {"P1", "P2"}


def test_r_end_3_police_neither_move_nor_block_for_the_detectives() -> None:
    # D1 on 2 (taxi to 10 and 20 only) is boxed in by the two police: it still counts as a
    # detective that can move, so the game goes on after D2 spends its only ticket
    rules = Rules.new_edition(detectives=2, detective_tickets=(1, 0, 0))
    g = Game.new(rules, start={"X": 100, "D1": 2, "P1": 10, "P2": 20, "D2": 150})
    g.push("T112")
    g.push("D2:T138")
    assert not g.is_over()
    # R-ORDER-FREE: D1 may not pass while the police can still move (and free it)
    assert "D1:pass" not in legal(g)
    with pytest.raises(IllegalMove, match="R-ORDER-FREE: D1 passes only as a last resort"):
        g.push("D1:pass")
    g.push("P1:T11")
    assert "D1:T10" in legal(g)  # freed by the police move
    g.push("D1:T10")
    o = g.outcome()  # now no detective has a ticket: the police do not play on alone
    assert o is not None and (o.winner, o.reason) == ("mr_x", "detectives_stuck")


def test_r_order_free_pass_only_as_a_last_resort() -> None:
    # the pooled supply runs out after one move: D2 waits for the police, then passes
    rules = Rules.new_edition_two_players().replace(pooled_supply=(1, 0, 0),
                                                    police_keep_hunting=True)
    g = Game.new(rules, seed=3)
    g.push(g.legal_moves()[0])
    g.push(next(m for m in g.legal_moves() if m.piece == "D1"))
    assert {m.piece for m in g.legal_moves()} == {"P1", "P2"}  # no D2:pass yet
    g.push(next(m for m in g.legal_moves() if m.piece == "P1"))
    g.push(next(m for m in g.legal_moves() if m.piece == "P2"))
    assert legal(g) == {"D2:pass"}  # the last resort: nobody left to free D2
    g.push("D2:pass")
    assert g.to_move == "X" and g.round == 2
    g.push(g.legal_moves()[0])
    g.push(next(m for m in g.legal_moves() if m.piece == "P1"))
    g.push(next(m for m in g.legal_moves() if m.piece == "P2"))
    assert legal(g) == {"D1:pass", "D2:pass"}


def test_r_end_survived_last_round() -> None:
    g = Game.new(Rules.classic(detectives=5, last_round=2, reveal_slots=(3,)), start=START5)
    g.push("T75")
    hunters_move_away(g)
    g.push(next(m for m in g.legal_moves() if not m.is_double))
    hunters_move_away(g)
    o = g.outcome()
    assert o is not None and (o.winner, o.reason, o.round) == ("mr_x", "survived", 2)


def test_r_end_game_over_at_start_when_detectives_have_no_tickets() -> None:
    g = Game.new(Rules.classic(detectives=2, detective_tickets=(0, 0, 0)), start={"X": 74, "D1": 13, "D2": 150})
    o = g.outcome()
    assert o is not None and o.reason == "detectives_stuck"


# ---- R-ORDER-FREE and police -----------------------------------------------------------------------
def test_r_order_free_detectives_choose_which_piece_moves() -> None:
    g = Game.new(Rules.new_edition(detectives=3), seed=2)
    g.push(g.legal_moves()[0])
    assert g.side_to_move == "detectives"
    assert g.pieces_to_move == ("D1", "D2", "D3", "P1")
    pieces = {m.piece for m in g.legal_moves()}
    assert pieces == {"D1", "D2", "D3", "P1"}
    p1 = next(m for m in g.legal_moves() if m.piece == "P1")
    g.push(p1)
    assert g.pieces_to_move == ("D1", "D2", "D3")
    with pytest.raises(IllegalMove, match="R-ORDER-FREE: P1 has already moved this round"):
        g.push(p1.with_piece("P1"))
    d3 = next(m for m in g.legal_moves() if m.piece == "D3")
    g.push(d3)
    assert g.to_move == "D1"
    g.push(next(m for m in g.legal_moves() if m.piece == "D2"))
    g.push(next(m for m in g.legal_moves() if m.piece == "D1"))
    assert g.to_move == "X" and g.round == 2


def test_r_order_free_unqualified_move_is_the_first_unmoved_piece() -> None:
    g = Game.new(Rules.new_edition(detectives=4), seed=5)
    g.push(g.legal_moves()[0])
    m = next(m for m in g.legal_moves() if m.piece == "D1")
    g.push(m.with_piece(None))
    assert g.moves[-1] == ("D1", m)  # the record names the piece


def test_r_pieces_police_move_free_never_by_ferry_or_black() -> None:
    rules = Rules.new_edition(detectives=2)
    start = {"X": 1, "D1": 13, "D2": 100, "P1": 157, "P2": 74}
    g = Game.new(rules, start=start)
    g.push("T8")
    police = [m for m in g.legal_moves() if m.piece == "P1"]
    assert {m.destination for m in police} == {156, 158, 170, 133, 142, 185}  # no 115/194 by ferry
    assert all(m.ticket != Ticket.BLACK for m in police)
    g.push(police[0])
    assert g.tickets("P1") == {Ticket.TAXI: None, Ticket.BUS: None, Ticket.UNDERGROUND: None}
    with pytest.raises(IllegalMove, match="only Mr X has black tickets"):
        g.push("P2:K58")


def test_r_var_2p_new_pooled_supply_is_shared() -> None:
    g = Game.new(Rules.new_edition_two_players(), seed=3)
    g.push(g.legal_moves()[0])
    m = next(m for m in g.legal_moves() if m.piece == "D1" and m.ticket == Ticket.TAXI)
    g.push(m)
    assert g.tickets("D1")[Ticket.TAXI] == 19 and g.tickets("D2")[Ticket.TAXI] == 19
    assert g.tickets("D2")[Ticket.BUS] == 16


# ---- R-VAR-EXTRA-REVEAL -------------------------------------------------------------------------------
def test_r_var_extra_reveal_takes_a_ticket_from_every_detective() -> None:
    rules = Rules.classic(detectives=2, extra_reveal=True)
    g = Game.new(rules, start={"X": 74, "D1": 13, "D2": 150})
    assert "T92!" in legal(g)
    g.push("T92!")
    assert g.log[0].reveal and g.log[0].voluntary
    assert g.view("D1").mr_x_station == 92
    assert g.possible_locations() == {92}
    assert g.to_move == "X"
    assert legal(g) == {"take:D1:T", "take:D1:B", "take:D1:U"}
    with pytest.raises(IllegalMove, match="Mr X takes from D1 next, not D2"):
        g.push("take:D2:T")
    g.push("take:D1:U")
    assert g.tickets("D1")[Ticket.UNDERGROUND] == 3 and g.tickets("X")[Ticket.UNDERGROUND] == 4
    g.push("take:D2:B")
    assert g.tickets("D2")[Ticket.BUS] == 7 and g.tickets("X")[Ticket.BUS] == 4
    assert g.to_move == "D1"
    while g.ply:
        g.pop()
    assert g.tickets("D1")[Ticket.UNDERGROUND] == 4 and g.tickets("X")[Ticket.UNDERGROUND] == 3


def test_r_var_extra_reveal_not_on_a_reveal_slot() -> None:
    rules = Rules.classic(detectives=2, extra_reveal=True, reveal_slots=(1, 8))
    g = Game.new(rules, start={"X": 74, "D1": 13, "D2": 150})
    assert not any(m.endswith("!") for m in legal(g))
    with pytest.raises(IllegalMove, match="slot 1 is a reveal slot already"):
        g.push("T92!")


# ---- make / unmake -------------------------------------------------------------------------------------
def test_pop_restores_the_start() -> None:
    g = Game.new(Rules.classic(detectives=5), start=START5)
    before = (g.stations, [g.tickets(p) for p in g.pieces], g.possible_locations(), legal(g))
    g.push("T75+T94")
    hunters_move_away(g)
    while g.ply:
        g.pop()
    assert (g.stations, [g.tickets(p) for p in g.pieces], g.possible_locations(), legal(g)) == before
    with pytest.raises(GameError, match="no move to take back"):
        g.pop()


def test_copy_is_independent() -> None:
    g = Game.new(Rules.new_edition_two_players(), seed=1)
    h = g.copy()
    h.push(h.legal_moves()[0])
    h.push(h.legal_moves()[0])
    assert g.ply == 0 and h.ply == 2
    assert g.tickets("D1") != h.tickets("D1") or g.stations != h.stations


def _snapshot(g: Game) -> tuple[object, ...]:
    return (g.stations, [g.tickets(p) for p in g.pieces], g.possible_locations(), legal(g),
            g.outcome(), g.round, g.pieces_to_move, g.log, g.pending_take)


@pytest.mark.parametrize("rules", [
    Rules.classic(detectives=5), Rules.classic(detectives=5, extra_reveal=True),
    Rules.new_edition(detectives=3), Rules.new_edition_two_players(),
    Rules.new_edition(detectives=2, police_keep_hunting=True), Rules.classic_three_players(),
], ids=["classic", "extra_reveal", "new_edition_3", "new_edition_2p", "keep_hunting", "three"])
def test_make_unmake_agrees_with_a_fresh_replay(rules: Rules) -> None:
    """Random games with random take-backs: after every push and pop the game equals one
    rebuilt by replaying its moves from the start (the end checks' kept state included)."""
    import random
    rng = random.Random(5)
    for seed in range(5):
        g = Game.new(rules, seed=seed)
        while not g.is_over():
            g.push(rng.choice(g.legal_moves()))
            if rng.random() < 0.15:
                for _ in range(rng.randint(1, 4)):
                    if g.ply:
                        g.pop()
            fresh = Game.new(rules, seed=seed)
            for _piece, m in g.moves:
                fresh.push(m)
            assert _snapshot(g) == _snapshot(fresh)


def test_a_pass_offered_in_another_position_is_checked_again() -> None:
    """push() takes a pass that legal_moves() offered without asking again only in that very
    position: after a take-back and another move the pass is refused (D2 can move now)."""
    g = Game.new(Rules.classic(detectives=5),
                 start={"X": 100, "D1": 9, "D2": 8, "D3": 18, "D4": 19, "D5": 150})
    g.push(g.legal_moves()[0])
    g.push("T1")  # D1 takes 1, D2's last free station
    assert g.legal_moves() == [Move.pass_()]
    g.pop()
    g.push("T20")  # D1 goes elsewhere: 1 stays free
    with pytest.raises(IllegalMove, match="R-MOVE-2: D2 can move \\(T1\\) and must move"):
        g.push(Move.pass_())
    g.pop()
    g.push("T1")
    g.push(Move.pass_())  # offered or not, a real pass is taken
    assert g.to_move == "D3" and g.station("D2") == 8


def test_history_names_every_record_and_keeps_it() -> None:
    """history's records are named (piece, move, round, ...), the same objects on every read,
    and match moves, peek() and pop() after take-backs."""
    import random
    rng = random.Random(3)
    g = Game.new(Rules.classic(detectives=5), seed=4)
    for _ in range(30):
        g.push(rng.choice(g.legal_moves()))
    first = list(g.history)
    assert [(g.pieces[h.piece], h.move) for h in first] == g.moves
    assert all(type(h).__name__ == "Undo" for h in first)
    assert [h.round for h in first[:7]] == [1] * 6 + [2]
    g.push(rng.choice(g.legal_moves()))
    again = g.history
    assert all(a is b for a, b in zip(first, again, strict=False)) and len(again) == 31
    last = again[-1]
    assert last.move is g.peek()
    assert g.pop() is last.move and len(g.history) == 30


def test_a_stale_move_object_gets_a_clear_error() -> None:
    g = Game.new(Rules.classic(detectives=5), start=START5)
    first = next(m for m in g.legal_moves() if m.is_double)
    g.push(first)
    with pytest.raises(IllegalMove, match="R-MRX: only Mr X makes double moves"):
        g.push(first)  # Mr X's move, offered a moment ago, is not D1's
    d1 = g.legal_moves()[0]
    g.push(d1)
    with pytest.raises(IllegalMove, match="R-(BOARD|ROUND)"):
        g.push(d1)  # D1 stands there now: it is D2's turn and the station is taken
