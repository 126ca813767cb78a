"""What each player sees (the hidden-information rule) and R-BELIEF possible locations."""

from __future__ import annotations

import json
import random

import pytest

from scotlandyard import (
    Game,
    GameError,
    Move,
    Rules,
    Ticket,
    london,
    possible_locations,
    probability_map,
)
from scotlandyard.belief import count_mr_x_moves

from .conftest import ALL_RULES, random_game

START5 = {"X": 74, "D1": 92, "D2": 58, "D3": 13, "D4": 100, "D5": 150}


# ---- views ---------------------------------------------------------------------------------------
def test_detective_view_hides_mr_x_until_a_reveal() -> None:
    g = Game.new(Rules.classic(detectives=5), start=START5)
    g.push("T75")
    for piece in ("D1", "spectator"):
        v = g.view(piece)
        assert v.mr_x_station is None
        assert "X" not in v.start and "X" not in v.stations
        assert v.log[0].station is None and v.log[0].ticket == Ticket.TAXI
        assert v.history[0].notation == "T?"
        assert v.legal_moves == (tuple(g.legal_moves()) if piece == "D1" else ())
        d = v.to_dict()
        assert d["log"][0]["station"] is None and d["mr_x_station"] is None
        assert json.loads(json.dumps(d)) == d
    mine = g.view("X")
    assert mine.mr_x_station == 75 and mine.log[0].station == 75 and mine.start["X"] == 74
    assert mine.legal_moves == ()  # not Mr X's turn


def test_detective_view_shows_reveal_slot_until_next_move() -> None:
    g = Game.new(Rules.classic(detectives=5, reveal_slots=(1, 8)), start=START5)
    g.push("T75")
    v = g.view("D3")
    assert v.mr_x_station == 75 and v.log[0].station == 75 and v.log[0].reveal
    assert v.last_reveal is not None and v.last_reveal.station == 75
    while g.to_move != "X":
        g.push(next(m for m in g.legal_moves() if m.destination != 75))
    g.push(next(m for m in g.legal_moves() if not m.is_double))
    v = g.view("D3")
    assert v.mr_x_station is None and v.log[0].station == 75 and v.log[1].station is None


def test_view_of_mr_x_side_lists_his_moves_only_on_his_turn() -> None:
    g = Game.new(Rules.classic(detectives=5), start=START5)
    assert set(g.view("X").legal_moves) == set(g.legal_moves())
    assert g.view("D1").legal_moves == ()
    assert not g.view("D1").my_turn and g.view("X").my_turn


def test_finished_game_view_shows_everything() -> None:
    g = random_game(Rules.classic(detectives=5), seed=11)
    assert g.is_over()
    v = g.view("D1")
    assert v.all_shown and v.mr_x_station == g.station("X")
    assert [e.station for e in v.log] == [e.station for e in g.log]


def test_view_of_unknown_piece_is_an_error() -> None:
    g = Game.new(Rules.classic(detectives=2), seed=1)
    with pytest.raises(ValueError, match="no piece 'D5'"):
        g.view("D5")


@pytest.mark.parametrize("name", sorted(ALL_RULES))
def test_detective_views_never_hold_a_hidden_station(name: str) -> None:
    rules = ALL_RULES[name]()
    for seed in range(15):
        g = Game.new(rules, seed=seed)
        rng = random.Random(seed)
        while not g.is_over():
            for piece in (*rules.hunters[:1], "spectator"):
                d = g.view(piece).to_dict()
                assert d["mr_x_station"] is None or d["mr_x_station"] == g.log[-1].station and g.log[-1].reveal
                for e in d["log"]:
                    assert e["station"] is None or e["reveal"]
                for h in d["history"]:
                    if h["piece"] == "X" and not h["move"].startswith("take"):
                        assert "?" in h["move"] or all(e["reveal"] for e in d["log"] if e["round"] == h["round"])
                assert "X" not in d["start"]
                shown = [e["station"] for e in d["log"] if e["station"] is not None]
                assert shown == [e.station for e in g.log if e.reveal]
            ms = g.legal_moves()
            g.push(ms[rng.randrange(len(ms))])


# ---- R-BELIEF ----------------------------------------------------------------------------------------
def test_r_belief_starts_from_the_start_deck_minus_detectives() -> None:
    rules = Rules.classic(detectives=5)
    g = Game.new(rules, seed=5)
    hunters = {s for p, s in g.start.items() if p != "X"}
    assert g.possible_locations() == set(rules.start_deck_mr_x) - hunters
    n = Game.new(Rules.new_edition(detectives=4), seed=5)
    assert n.possible_locations() == set(Rules.new_edition().start_deck_mr_x)


def test_r_belief_hand_set_start_outside_the_deck_means_anywhere() -> None:
    g = Game.new(Rules.classic(detectives=5), start=START5)  # 74 is no start card
    assert g.possible_locations() == set(range(1, 200)) - {92, 58, 13, 100, 150}


def test_r_belief_follows_tickets_and_drops_detective_stations() -> None:
    rules = Rules.classic(detectives=5, shared_start_deck=False, start_deck_mr_x=(74,))
    g = Game.new(rules, start={"X": 74, "D1": 93, "D2": 57, "D3": 13, "D4": 100, "D5": 150})
    assert g.possible_locations() == {74}
    g.push("T92")
    assert g.possible_locations() == {58, 73, 75, 92}
    g.push("T94")  # D1: 93 -> 94
    assert g.possible_locations() == {58, 73, 75, 92}
    g.push("T58")  # D2 lands on 58: not there
    assert g.possible_locations() == {73, 75, 92}


def test_r_belief_black_ticket_includes_the_ferry() -> None:
    rules = Rules.classic(detectives=2, shared_start_deck=False, start_deck_mr_x=(194,))
    g = Game.new(rules, start={"X": 194, "D1": 1, "D2": 2})
    g.push("K157")
    assert g.possible_locations() == {157, 192, 193, 195}


def test_r_belief_from_the_view_alone_equals_the_game() -> None:
    for name, make in ALL_RULES.items():
        rules = make()
        for seed in range(8):
            g = Game.new(rules, seed=seed)
            rng = random.Random(seed)
            while not g.is_over():
                v = g.view(rules.hunters[0])
                assert possible_locations(v) == g.possible_locations(), name
                ms = g.legal_moves()
                g.push(ms[rng.randrange(len(ms))])


def test_count_of_mr_x_moves_matches_the_engine() -> None:
    rules = Rules.classic(detectives=5)
    for seed in range(30):
        g = Game.new(rules, seed=seed)
        rng = random.Random(seed)
        while not g.is_over():
            if g.to_move == "X":
                t = g.tickets("X")
                sup = [t[Ticket.TAXI], t[Ticket.BUS], t[Ticket.UNDERGROUND], t[Ticket.BLACK], t[Ticket.DOUBLE]]
                occ = sum(1 << s for p, s in g.stations.items() if p != "X")
                assert count_mr_x_moves(g.board, g.station("X"), sup, False, occ,
                                        len(g.log) + 2 <= rules.log_slots) == len(g.legal_moves())
            ms = g.legal_moves()
            g.push(ms[rng.randrange(len(ms))])


# ---- probability maps ------------------------------------------------------------------------------------
def _oracle(g: Game, model: str) -> dict[int, float]:
    """Brute force over every Mr X history consistent with the public facts of ``g``."""
    rules, moves = g.rules, g.moves
    cands = sorted(g.view("D1").start_candidates)
    weights: dict[int, float] = {}
    for s in cands:
        start = {**{p: st for p, st in g.start.items() if p != "X"}, "X": s}
        stack = [(Game.new(rules, start=start), 0, 1.0 / len(cands) if model == "uniform" else 1.0)]
        while stack:
            h, k, w = stack.pop()
            if k == len(moves):
                weights[h.station("X")] = weights.get(h.station("X"), 0.0) + w
                continue
            piece, move = moves[k]
            if piece != "X":
                try:
                    h.push(move)
                except Exception:
                    continue
                stack.append((h, k + 1, w))
                continue
            options = h.legal_moves()
            real = [(e.ticket, e.station if e.reveal else None) for e in g.log if e.slot in
                    {x.slot for x in g.log[len(h.log): len(h.log) + len(move.steps)]}]
            for m in options:
                if len(m.steps) != len(move.steps) or m.reveal != move.reveal:
                    continue
                if any(t != rt or (rs is not None and s != rs) for (t, s), (rt, rs) in zip(m.steps, real, strict=True)):
                    continue
                h2 = h.copy()
                h2.push(m)
                stack.append((h2, k + 1, w / len(options) if model == "uniform" else w))
    total = sum(weights.values())
    return {s: w / total for s, w in sorted(weights.items())}


@pytest.mark.parametrize("model", ["paths", "uniform"])
def test_probability_maps_match_brute_force(model: str) -> None:
    rules = Rules.classic(detectives=4, shared_start_deck=False, start_deck_mr_x=(74, 13, 155))
    checked = 0
    for seed in range(6):
        g = Game.new(rules, start={"X": (74, 13, 155)[seed % 3], "D1": 1, "D2": 100, "D3": 199, "D4": 30})
        rng = random.Random(seed)
        while g.round <= 2 and not g.is_over():
            ms = g.legal_moves()
            if g.to_move == "X":
                ms = [m for m in ms if m.ticket != Ticket.BLACK] or ms
            g.push(ms[rng.randrange(len(ms))])
            if g.to_move == "X" or g.is_over():
                got = probability_map(g.view("D1"), model)  # type: ignore[arg-type]
                want = _oracle(g, model)
                assert set(got) == set(want) == g.possible_locations()
                for s in want:
                    assert got[s] == pytest.approx(want[s], rel=1e-9, abs=1e-12)
                checked += 1
    assert checked >= 6


def test_models_differ_where_branching_differs() -> None:
    rules = Rules.classic(detectives=1, shared_start_deck=False, start_deck_mr_x=(74, 1))
    g = Game.new(rules, start={"X": 74, "D1": 199})
    g.push("T92")
    g.push(g.legal_moves()[0])
    paths = probability_map(g.view("D1"), "paths")
    uniform = probability_map(g.view("D1"), "uniform")
    assert sum(paths.values()) == pytest.approx(1) and sum(uniform.values()) == pytest.approx(1)
    assert set(paths) == set(uniform) == g.possible_locations()
    assert paths != pytest.approx(uniform)


def test_probability_map_unknown_model() -> None:
    g = Game.new(Rules.classic(), seed=1)
    with pytest.raises(ValueError, match="unknown model"):
        probability_map(g.view("D1"), "magic")  # type: ignore[arg-type]


# ---- determinization --------------------------------------------------------------------------------------
def test_from_view_rebuilds_the_position_with_a_sampled_station() -> None:
    for make in ALL_RULES.values():
        rules = make()
        g = random_game(rules, seed=3, max_plies=17)
        if g.is_over():
            continue
        v = g.view(rules.hunters[0])
        for s in sorted(v.possible)[:5]:
            h = Game.from_view(v, s)
            assert h.station("X") == s
            assert {p: st for p, st in h.stations.items() if p != "X"} == dict(v.stations)
            assert h.round == g.round and h.pieces_to_move == g.pieces_to_move
            assert h.possible_locations() == g.possible_locations()
        truth = Game.from_view(g.view("X"))
        assert sorted(map(str, truth.legal_moves())) == sorted(map(str, g.legal_moves()))
        impossible = next(s for s in range(1, 200) if s not in v.possible)
        with pytest.raises(GameError, match="R-BELIEF"):
            Game.from_view(v, impossible)


def test_board_unchanged_by_views() -> None:
    g = Game.new(Rules.classic(), seed=2)
    before = [list(x) for x in london().neighbours[0][:5]]
    g.view("D1").to_dict()
    assert [list(x) for x in london().neighbours[0][:5]] == before
    assert Move.parse("T1").to == 1


def test_possible_history_slot_by_slot_holds_the_true_path() -> None:
    from scotlandyard.belief import possible_history

    for name in ("classic5", "new2", "classic_extra_reveal"):
        g = random_game(ALL_RULES[name](), seed=21)
        hist = possible_history(g.view("spectator"))
        assert [h[0] for h in hist] == [e.slot for e in g.log]
        for (slot, rnd, poss), entry in zip(hist, g.log, strict=True):
            assert entry.station in poss and rnd == entry.round and slot == entry.slot
            if entry.reveal:
                assert poss == {entry.station}


def test_public_view_is_the_one_filter_for_finished_games_and_mr_x() -> None:
    # PlayerView.public(): what the detectives knew while the game ran (records, the terminal)
    import inspect

    import scotlandyard.view as view_module

    assert "from .game" not in inspect.getsource(view_module)  # no game <-> view cycle
    for seed in range(3):
        g = random_game(Rules.classic(detectives=3), seed=seed)
        assert g.is_over()
        full = g.view("spectator")
        pub = full.public()
        assert full.all_shown and not pub.all_shown and "X" not in pub.start
        assert all((e.station is not None) == e.reveal for e in pub.log)
        for h in pub.history:
            if h.piece == "X" and h.take is None:
                hidden = [pub.log[s - 1].station is None for s in h.slots]
                assert ("?" in h.notation) == any(hidden)
        mine = g.view("X").public()
        assert mine.side == "spectator" and mine.log == pub.log and mine.history == pub.history
        g.pop()  # a running game: the spectator's view is public already
        running = g.view("spectator")
        assert running.public() is running
        assert g.view("X").public().log == running.log
