"""The detectives' ticket management (``ticket_reserve``, issue 24 item 3) on hand-built
positions: the hard rule (no move that leaves a detective tickets it cannot use), the soft
rule (a less usable ticket when its move is about as good, while the taxis are short), the
option's validation, and nw left as it is."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Mapping

import pytest

from scotlandyard import Game, Move, Rules, Ticket
from scotlandyard.ai import Budget, make_agent
from scotlandyard.ai.mcts import (
    NW_OFF,
    PLAN_CATCH,
    PLAN_LATE,
    TICKET_ORDER,
    ChildStats,
    MCTSAgent,
    MCTSOptions,
    moves_after,
    plan_root_moves,
    reserve_choice,
    reserve_root_moves,
    strands,
    taxis_short,
    team_secure,
)
from scotlandyard.board import london
from scotlandyard.view import PlayerView

PURE = {"fast": False}
#: Station 3 has taxi lines to 4, 11 and 12 (taxi-only stations) and bus lines to 22 and 23;
#: it has no underground. From 23 a taxi reaches the underground at 13; from 22 no taxi line
#: reaches an underground station.
START = {"X": 170, "D1": 3, "D2": 100, "D3": 140, "D4": 60, "D5": 197}


def position(round_: int, tickets: tuple[int, int, int],
             possible: frozenset[int] = frozenset({159}),
             others: Mapping[str, tuple[int, int, int]] | None = None) -> Game:
    """A classic game in round ``round_`` with D1 to move on station 3 holding ``tickets``
    (taxi, bus, underground), Mr X on 159 after his first move, his possible locations
    ``possible``; ``others``: other detectives' tickets (else the box's)."""
    game = Game.new(Rules.classic(), start=START)
    game.push(Move.single(Ticket.TAXI, 159))  # Mr X's first move: D1 to move
    view = game.view("D1")
    held = {p: dict(t) for p, t in view.tickets.items()}
    for piece, kept in {**(others or {}), "D1": tickets}.items():
        held[piece].update(taxi=kept[0], bus=kept[1], underground=kept[2])
    view = dataclasses.replace(view, round=round_, tickets=held, possible=possible)
    built = Game.from_view(view, mr_x=min(possible))
    assert built.to_move == "D1" and not built.is_over()
    return built


def by_notation(game: Game) -> dict[str, Move]:
    return {m.notation(): m for m in game.legal_moves()}


def test_a_move_that_leaves_only_unusable_tickets_strands_the_detective():
    game = position(20, (1, 1, 1))  # three moves left: this one and two more
    view = game.view("D1")
    moves = by_notation(game)
    assert set(moves) == {"T4", "T11", "T12", "B22", "B23"}
    # the last taxi to a taxi-only station: bus and underground tickets, neither usable there
    assert strands(view, moves["T4"]) and strands(view, moves["T11"])
    # by bus to 22: a taxi, then the underground ticket nowhere to use
    assert strands(view, moves["B22"])
    # by bus to 23: taxi to 13, then the underground
    assert not strands(view, moves["B23"])
    assert reserve_root_moves(view, game.legal_moves()) == [moves["B23"]]


def test_a_move_onto_a_possible_location_of_mr_x_never_strands():
    game = position(20, (1, 1, 1), possible=frozenset({11, 159}))
    view = game.view("D1")
    moves = by_notation(game)
    assert not strands(view, moves["T11"])  # it may catch him
    assert strands(view, moves["T4"])
    assert set(reserve_root_moves(view, game.legal_moves())) == {moves["T11"], moves["B23"]}


def test_when_every_move_strands_the_detective_keeps_them_all():
    game = position(20, (1, 0, 2))  # taxi or nothing: each move leaves underground only
    view = game.view("D1")
    assert all(strands(view, m) for m in game.legal_moves())
    assert reserve_root_moves(view, game.legal_moves()) == game.legal_moves()


def test_no_strand_in_the_last_round_or_with_taxis_enough():
    last = position(22, (0, 1, 0)).view("D1")
    assert not any(strands(last, m) for m in position(22, (0, 1, 0)).legal_moves())
    rich = position(15, (8, 0, 0))
    assert not any(strands(rich.view("D1"), m) for m in rich.legal_moves())


def test_the_agent_never_plays_a_stranding_move_when_another_exists():
    game = position(20, (1, 1, 1))
    # the reserve on its own (a ticket plan at the root replaces its hard rule)
    agent = make_agent("mcts", side="detectives", ticket_reserve=0.4, ticket_plan="off",
                       **PURE)
    for seed in range(3):
        move = agent.choose(game.view("D1"), game.legal_moves(), random.Random(seed),
                            Budget(playouts=50))
        assert move.notation() == "B23"


def _longest(board, station: int, held: tuple[int, int, int], cap: int) -> int:
    """Brute force, no memory: the most moves (at most ``cap``) a piece on ``station``
    holding ``held`` (taxi, bus, underground) can make in a row (other pieces ignored)."""
    if cap <= 0:
        return 0
    return max((1 + _longest(board, d, tuple(h - (k == t) for k, h in enumerate(held)), cap - 1)
                for t in range(3) if held[t] > 0 for d in board.neighbours[t][station]),
               default=0)


def test_ticket_plan_counts_the_rounds_a_move_leaves_as_brute_force_does():
    """``ticket_plan`` (:func:`moves_after`) counts how many of the rounds left the tickets
    kept carry the detective through, as a brute-force walk does; it sees further than the
    three rounds of ``ticket_reserve``'s hard rule."""
    board = london()
    further = 0
    for round_ in (12, 14, 16, 18, 20):
        for tickets in [(1, 1, 4), (2, 0, 5), (3, 1, 3), (1, 3, 3), (4, 0, 4), (2, 2, 2)]:
            game = position(round_, tickets)
            view = game.view("D1")
            left = view.rules.last_round - view.round
            for m in game.legal_moves():
                held = list(tickets)
                held[TICKET_ORDER.index(m.ticket)] -= 1
                n = moves_after(view, m)
                assert n == _longest(board, m.to, tuple(held), left), (round_, tickets, m)
                if strands(view, m):  # what fails within three rounds falls short of them
                    assert n < min(3, left)
                elif n < left:
                    further += 1
    assert further > 0


def test_ticket_plan_keeps_the_moves_that_last_longest_even_when_none_lasts_to_the_end():
    game = position(12, (1, 1, 4))  # 10 rounds left after this move, 5 tickets
    view = game.view("D1")
    scores = {m.notation(): moves_after(view, m) for m in game.legal_moves()}
    assert max(scores.values()) < 10
    best = max(scores.values())
    assert {m.notation() for m in plan_root_moves(view, game.legal_moves())} == \
        {k for k, n in scores.items() if n == best} != set(scores)
    # the hard rule of ticket_reserve keeps the moves that last three rounds
    assert {m.notation() for m in reserve_root_moves(view, game.legal_moves())} == \
        {k for k, n in scores.items() if n >= 3}


def test_ticket_plan_lets_a_detective_onto_a_possible_location_only_when_they_are_few():
    few = position(20, (1, 1, 1), possible=frozenset({11, 159}))
    view = few.view("D1")
    moves = by_notation(few)
    assert moves_after(view, moves["T11"]) == 2  # it may catch him: every round left
    assert moves_after(view, moves["T4"]) < 2
    assert {m.notation() for m in plan_root_moves(view, few.legal_moves())} == {"T11", "B23"}
    many = frozenset({11, 159, 160, 161, 162, 163, 164})
    assert len(many) > PLAN_CATCH
    view = position(20, (1, 1, 1), possible=many).view("D1")
    assert moves_after(view, moves["T11"]) == moves_after(view, moves["T4"]) < 2


def test_ticket_plan_far_leaves_a_detective_that_lands_by_mr_x_free_to_chase():
    board = london()
    many = frozenset({13, 159, 160, 161, 162, 163, 164})  # 13 is one taxi ride from 4
    assert len(many) > PLAN_CATCH and 13 in board.neighbours[0][4]
    game = position(20, (1, 1, 1), possible=many)
    view = game.view("D1")
    moves = by_notation(game)
    assert moves_after(view, moves["T4"], "all") < 2  # its last taxi: nowhere to go on
    assert moves_after(view, moves["T4"], "far") == 2  # but it lands next to Mr X, maybe
    assert min(board.distance(11, s) for s in many) > 1
    assert moves_after(view, moves["T11"], "far") == moves_after(view, moves["T11"], "all") < 2
    assert "T4" in {m.notation() for m in plan_root_moves(view, game.legal_moves(), "far")}
    assert "T4" not in {m.notation() for m in plan_root_moves(view, game.legal_moves(), "all")}
    # "late": as "far" while more than PLAN_LATE rounds are left after the move, then as "all"
    assert view.rules.last_round - view.round <= PLAN_LATE
    assert moves_after(view, moves["T4"], "late") == moves_after(view, moves["T4"], "all")
    early = position(12, (1, 1, 8), possible=many).view("D1")
    assert early.rules.last_round - early.round > PLAN_LATE
    assert moves_after(early, moves["T4"], "late") == moves_after(early, moves["T4"], "far") \
        == 10 > moves_after(early, moves["T4"], "all")


def test_the_agent_with_ticket_plan_plays_only_moves_that_last_longest():
    for round_, tickets in [(20, (1, 1, 1)), (12, (1, 1, 4)), (16, (1, 3, 3))]:
        game = position(round_, tickets)
        view = game.view("D1")
        keep = plan_root_moves(view, game.legal_moves())
        assert 0 < len(keep) < len(game.legal_moves()), (round_, tickets)
        agent = MCTSAgent("detectives", ticket_plan="all", **PURE)
        for seed in range(2):
            move = agent.choose(view, game.legal_moves(), random.Random(seed),
                                Budget(playouts=60))
            assert move in keep


#: Every teammate of D1 without a ticket: none can move again.
BROKE = {p: (0, 0, 0) for p in ("D2", "D3", "D4", "D5")}


def test_ticket_plan_team_frees_a_detective_while_a_teammate_can_move_to_the_end():
    """``"team"``: the game cannot end "detectives stuck" while a teammate can move every
    round left, so D1 may spend its last taxi; when none can, D1 keeps to the plan."""
    game = position(20, (1, 1, 1))  # the box's tickets for D2-D5: each lasts to the end
    view = game.view("D1")
    assert team_secure(view)
    assert plan_root_moves(view, game.legal_moves(), "team") == game.legal_moves()
    assert plan_root_moves(view, game.legal_moves(), "late") == [by_notation(game)["B23"]]
    alone = position(20, (1, 1, 1), others=BROKE)
    view = alone.view("D1")
    assert not team_secure(view)
    assert plan_root_moves(view, alone.legal_moves(), "team") == \
        plan_root_moves(view, alone.legal_moves(), "late") == [by_notation(alone)["B23"]]


def test_ticket_plan_team_in_the_free_order_judges_each_move_by_its_own_piece():
    """New edition, free order: the moves of D1, D2 and the police are offered together. D1's
    tickets (one of each on station 3) carry it to the end, D2's (one taxi) do not: D1 is D2's
    secure teammate, so D2 spends its taxi freely, while D1, whose teammate is not secure,
    keeps to the plan (only B23 lasts); police moves free."""
    rules = Rules.new_edition(detectives=2)
    game = Game.new(rules, start={"X": 170, "D1": 3, "D2": 100, "P1": 140, "P2": 60})
    game.push(Move.single(Ticket.TAXI, 159))
    view = game.view(game.to_move)
    held = {p: dict(t) for p, t in view.tickets.items()}
    held["D1"].update(taxi=1, bus=1, underground=1)
    held["D2"].update(taxi=1, bus=0, underground=0)
    view = dataclasses.replace(view, round=20, tickets=held, possible=frozenset({159}))
    built = Game.from_view(view, mr_x=159)
    view = built.view(built.to_move)
    legal = built.legal_moves()
    assert {m.piece for m in legal} == {"D1", "D2", "P1", "P2"}
    assert team_secure(view, "D2") and not team_secure(view, "D1")
    kept = plan_root_moves(view, legal, "team")
    assert [m.notation() for m in kept if m.piece == "D1"] == ["D1:B23"]
    assert {m for m in legal if m.piece != "D1"} <= set(kept)
    # "late" judges each piece by its own tickets: D2's last taxi is kept back
    assert not any(m.piece == "D2" for m in plan_root_moves(view, legal, "late"))


def test_a_teammate_is_secure_only_with_tickets_for_every_round_left_from_its_station():
    rounds_left = 22 - 20 + 1  # this round and the two after it
    # D2 on 100 with one ticket of each kind: three moves if they can be chained from there
    one_each = position(20, (1, 1, 1), others={**BROKE, "D2": (1, 1, 1)}).view("D1")
    board = london()
    assert team_secure(one_each) == (_longest(board, 100, (1, 1, 1), rounds_left) >= rounds_left)
    # two taxis: two moves, one short
    short = position(20, (1, 1, 1), others={**BROKE, "D2": (2, 0, 0)}).view("D1")
    assert not team_secure(short)
    enough = position(20, (1, 1, 1), others={**BROKE, "D2": (3, 0, 0)}).view("D1")
    assert team_secure(enough)
    # police move free and do not keep the hunt going: never a secure teammate
    police = Game.new(Rules.new_edition(detectives=2), seed=5)
    while police.to_move not in police.rules.hunters:
        police.push(police.legal_moves()[0])
    view = police.view(police.to_move)
    held = {p: dict(t) for p, t in view.tickets.items()}
    for p in police.rules.hunters:
        if p != view.to_move and "taxi" in held[p] and held[p]["taxi"] is not None:
            held[p].update(taxi=0, bus=0, underground=0)
    assert not team_secure(dataclasses.replace(view, tickets=held))
    # a pooled supply (the two-player variant): the teammate's tickets are the mover's own
    pooled = Game.new(Rules.new_edition_two_players(), seed=1)
    pooled.push(pooled.legal_moves()[0])
    view = pooled.view(pooled.to_move)
    assert view.to_move == "D1" and view.tickets["D2"]["taxi"] == 20
    assert not team_secure(view)


@pytest.mark.parametrize("bad", [True, 1, "yes", None])
def test_ticket_plan_is_checked_with_a_clear_error(bad):
    with pytest.raises(ValueError,
                       match="ticket_plan is 'off' or 'all' or 'far' or 'late' or 'team'"):
        MCTSOptions(ticket_plan=bad)


def children(view: PlayerView, visits: dict[str, int]) -> list[ChildStats]:
    kids = [ChildStats(Move.parse(text), n, 0.5) for text, n in visits.items()]
    return sorted(kids, key=lambda c: -c.visits)


def test_short_of_taxis_a_bus_move_about_as_good_keeps_the_taxi():
    view = position(15, (3, 3, 1)).view("D1")  # 8 moves left, 3 taxis: short
    assert taxis_short(view, "D1")
    kids = children(view, {"T4": 100, "B23": 80, "B22": 40})
    assert reserve_choice(view, kids, 0.3).notation() == "B23"   # 80 >= 70
    assert reserve_choice(view, kids, 0.1).notation() == "T4"    # 80 < 90: not as good
    assert reserve_choice(view, kids, 0.0).notation() == "T4"    # the switch off
    # the least usable ticket first: underground before bus
    kids = children(view, {"T4": 100, "B23": 90, "U13": 75})
    assert reserve_choice(view, kids, 0.3).notation() == "U13"


def test_with_taxis_for_every_round_left_the_search_move_stands():
    view = position(15, (8, 3, 1)).view("D1")  # 8 moves left, 8 taxis
    assert not taxis_short(view, "D1")
    kids = children(view, {"T4": 100, "B23": 99})
    assert reserve_choice(view, kids, 0.5).notation() == "T4"


def test_the_agent_plays_the_less_usable_ticket_with_the_widest_reserve():
    # taxis short and nothing strands: with ticket_reserve=1 every root child is "about as
    # good", so the agent plays a bus move (station 3 has no underground); without the switch
    # the search's own choice stands
    game = position(15, (2, 4, 2))
    view = game.view("D1")
    assert reserve_root_moves(view, game.legal_moves()) == game.legal_moves()
    wide = MCTSAgent("detectives", ticket_reserve=1.0, **PURE)
    for seed in range(3):
        move = wide.choose(view, game.legal_moves(), random.Random(seed), Budget(playouts=60))
        assert move.ticket == Ticket.BUS
        assert wide.last_search is not None
        assert move in {c.move for c in wide.last_search.root_children()}


@pytest.mark.parametrize("bad", [-0.1, 1.5, "half", True, None])
def test_ticket_reserve_is_checked_with_a_clear_error(bad):
    with pytest.raises(ValueError, match=r"ticket_reserve is a number 0\.0\.\.1\.0"):
        MCTSOptions(ticket_reserve=bad)


def test_the_mcts_agent_and_its_levels_manage_tickets():
    options = make_agent("mcts", side="detectives", **PURE).options
    assert (options.ticket_plan, options.ticket_reserve) == ("team", 0.0)
    for level in ("medium", "hard", "max"):
        agent = make_agent(level, side="detectives", **PURE)
        assert agent.agents["detectives"].options.ticket_plan == "team"


def test_nw_keeps_the_ticket_management_off():
    assert NW_OFF["ticket_reserve"] == 0.0
    for side in ("mr_x", "detectives"):
        assert make_agent("nw", side=side, **PURE).options.ticket_reserve == 0.0
    with pytest.raises(ValueError, match="no option 'ticket_reserve'"):
        make_agent("nw", side="detectives", ticket_reserve=0.4)
