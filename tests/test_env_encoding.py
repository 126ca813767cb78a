"""The research API's action scheme, action masks and observation encoding.

The fast mask (``Match``) must equal what ``game.legal_moves()`` allows, and the fast encoder
(``Encoder``, reading the ``Game``) must equal the reference encoder that reads only the
viewer's ``PlayerView``: then a detective's observation holds nothing its view does not.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from scotlandyard import Game, Move, Rules, Ticket
from scotlandyard.env import (
    DEFER,
    DOUBLE_FIRST,
    N_ACTIONS,
    OBS_VERSION,
    PASS,
    REVEAL,
    TAKE,
    Encoder,
    InvalidAction,
    LayoutError,
    Match,
    ObservationLayout,
    describe_action,
    encode_view,
    move_actions,
)
from scotlandyard.env.actions import split_step, step_action

from .conftest import ALL_RULES

START5 = {"X": 74, "D1": 92, "D2": 13, "D3": 29, "D4": 100, "D5": 150}


def engine_actions(m: Match) -> set[int]:
    """The selected piece's actions, derived from ``game.legal_moves()`` (the reference)."""
    g = m.game
    sel = m.selected
    out: set[int] = set()
    for mv in g.legal_moves():
        if sel != "X" and m.pointer is not None and mv.piece != sel:
            continue
        acts = move_actions(mv)
        if m.pending is not None:
            if mv.is_double and (int(mv.ticket), mv.to) == m.pending:  # type: ignore[arg-type]
                out.add(acts[1])
        else:
            out.add(acts[0])
    if m.pointer is not None and not (m.wrapped and out):  # once round, only stuck pieces defer
        waiting = g.pieces_to_move
        if waiting.index(m.pointer) + 1 < len(waiting):
            out.add(DEFER)
        elif len(waiting) > 1 and not out:
            out.add(DEFER)  # R-ORDER-FREE: stuck and may not pass yet, hands the choice back
    return out


def walk(rules: Rules, seed: int):
    """Play random legal actions; yield the match before every action (and at the end)."""
    m = Match(rules)
    m.reset(seed=seed)
    rng = random.Random(seed)
    while True:
        yield m
        acts = m.legal_actions()
        if not acts:
            return
        m.apply(rng.choice(acts))


# ---- the action scheme -----------------------------------------------------------------------------
def test_action_ranges_are_disjoint_and_named() -> None:
    assert (DOUBLE_FIRST, REVEAL, PASS, TAKE, DEFER, N_ACTIONS) == (796, 1592, 2388, 2389, 2392, 2393)
    assert describe_action(step_action(Ticket.TAXI, 92)) == "T92"
    assert describe_action(step_action(Ticket.BLACK, 115, DOUBLE_FIRST)) == "double K115+..."
    assert describe_action(step_action(Ticket.BUS, 58, REVEAL)) == "B58!"
    assert describe_action(PASS) == "pass" and describe_action(DEFER) == "defer"
    assert describe_action(TAKE + 1) == "take B"
    seen = set()
    for base in (0, DOUBLE_FIRST, REVEAL):
        for t in range(4):
            for s in (1, 199):
                a = step_action(t, s, base)
                assert split_step(a) == (base, t, s)
                seen.add(a)
    assert len(seen) == 24 and max(seen) < PASS


def test_move_actions_cover_every_kind_of_move() -> None:
    assert move_actions(Move.parse("T92")) == (91,)
    assert move_actions(Move.parse("B58+K74")) == (DOUBLE_FIRST + 199 + 57, 3 * 199 + 73)
    assert move_actions(Move.parse("U46!")) == (REVEAL + 2 * 199 + 45,)
    assert move_actions(Move.parse("pass")) == (PASS,)
    assert move_actions(Move.parse("take:D1:U")) == (TAKE + 2,)


# ---- masks equal the engine's legal moves -------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(ALL_RULES))
def test_mask_equals_engine_legal_moves_and_is_never_empty(name: str) -> None:
    rules = ALL_RULES[name]()
    kinds: set[str] = set()
    for seed in range(4):
        for m in walk(rules, seed):
            acts = m.legal_actions()
            if m.selected is None:
                assert acts == [] and not m.mask().any()
                continue
            assert acts, "R-MOVE-2: the selected piece always has an action"
            assert set(acts) == engine_actions(m)
            mask = m.mask()
            assert mask.dtype == np.int8 and mask.shape == (N_ACTIONS,)
            assert sorted(np.flatnonzero(mask).tolist()) == acts
            for a in acts:
                kinds.add(describe_action(a).split(" ")[0].rstrip("!0123456789+."))
    assert {"T", "B", "double"} <= kinds


def test_every_kind_of_move_is_reachable_through_actions() -> None:
    """Black, double (with black), voluntary reveal + takes, police, free order with defer."""
    seen: set[str] = set()
    for rules in (Rules.classic(4, extra_reveal=True), Rules.new_edition(2)):
        for seed in range(6):
            for m in walk(rules, seed):
                for a in m.legal_actions():
                    if a == DEFER:
                        seen.add("defer")
                    elif TAKE <= a < TAKE + 3:
                        seen.add("take")
                    elif a < PASS:
                        base, t, _ = split_step(a)
                        seen.add({0: "single", DOUBLE_FIRST: "double", REVEAL: "reveal"}[base]
                                 + ("_black" if t == 3 else ""))
                if m.selected and m.selected.startswith("P"):
                    seen.add("police")
    assert {"single", "single_black", "double", "double_black", "reveal", "take", "defer",
            "police"} <= seen


def test_double_move_is_two_actions_then_one_engine_move() -> None:
    g_rules = Rules.classic(detectives=5)
    m = Match(g_rules)
    m.reset(start=START5)
    first = step_action(Ticket.BUS, 58, DOUBLE_FIRST)
    assert first in m.legal_actions()
    assert m.apply(first) is None and m.pending == (1, 58) and m.game.ply == 0
    assert m.selected == "X"
    # R-MRX-DOUBLE: the second step is judged from 58 with the tickets left; 74 is free again
    second = m.legal_actions()
    assert step_action(Ticket.BUS, 74) in second and all(a < DOUBLE_FIRST for a in second)
    move = m.apply(step_action(Ticket.BUS, 74))
    assert move == Move.parse("B58+B74") and m.game.ply == 1 and m.selected == "D1"
    assert m.game.tickets("X")[Ticket.DOUBLE] == 1


def test_invalid_actions_raise_and_say_why() -> None:
    m = Match(Rules.classic(detectives=5))
    m.reset(start=START5)
    with pytest.raises(InvalidAction, match="T1 .*not legal for X.*R-BOARD"):
        m.apply(step_action(Ticket.TAXI, 1))
    with pytest.raises(InvalidAction, match="outside 0..2392"):
        m.apply(N_ACTIONS)
    with pytest.raises(InvalidAction, match="integer"):
        m.apply("T92")
    with pytest.raises(InvalidAction, match="R-MOVE-2: Mr X never passes"):
        m.apply(PASS)
    with pytest.raises(InvalidAction, match="defer is only for the hunters in free order"):
        m.apply(DEFER)
    m.apply(step_action(Ticket.TAXI, 75))
    with pytest.raises(InvalidAction, match="R-TICKETS: only Mr X has black tickets"):
        m.apply(step_action(Ticket.BLACK, 93))
    assert m.game.ply == 1  # nothing changed


def test_free_order_defer_lets_any_hunter_move_first() -> None:
    rules = Rules.new_edition(detectives=2)  # D1, D2, P1, P2 in free order
    m = Match(rules)
    m.reset(seed=3)
    m.apply(m.legal_actions()[0])  # Mr X
    assert m.selected == "D1" and DEFER in m.legal_actions()
    m.apply(DEFER)
    m.apply(DEFER)
    assert m.selected == "P1"
    m.apply(DEFER)
    assert m.selected == "P2" and DEFER not in m.legal_actions()  # the last one cannot defer
    move = m.apply(next(a for a in m.legal_actions() if a != DEFER))
    assert move is not None and move.piece == "P2"
    assert m.selected == "D1" and m.game.pieces_to_move == ("D1", "D2", "P1")


def test_action_toward_plays_any_engine_move() -> None:
    for rules in (Rules.new_edition(detectives=3), Rules.classic(4, extra_reveal=True)):
        for seed in range(3):
            ref = Game.new(rules, seed=seed)
            m = Match(rules)
            m.reset(seed=seed)
            rng = random.Random(seed)
            while not ref.is_over():
                move = rng.choice(ref.legal_moves())
                ref.push(move)
                while m.game.ply < ref.ply:
                    m.apply(m.action_toward(move))
                assert m.game.moves == ref.moves and m.game.stations == ref.stations


# ---- observations -------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(ALL_RULES))
def test_fast_encoder_equals_the_view_encoder(name: str) -> None:
    rules = ALL_RULES[name]()
    enc = Encoder(rules)
    low, high = enc.layout.bounds()
    rng = random.Random(name)
    for seed in range(3):
        for m in walk(rules, seed):
            sel = m.selected
            for viewer in ("X", rng.choice(rules.hunters), "spectator"):
                pending = m.pending if viewer == "X" else None
                fast = enc.encode(m.game, viewer, selected=sel, pending=pending)
                ref = encode_view(m.game.view(viewer), selected=sel, pending=pending)
                assert fast.dtype == np.float32 and np.array_equal(fast, ref), (viewer, m.game.ply)
                assert (fast >= low).all() and (fast <= high).all()


@pytest.mark.parametrize("name", ["classic5", "new_2p", "classic_extra_reveal"])
def test_fast_encoder_follows_undo_copies_and_several_games(name: str) -> None:
    """The encoder caches per game (tickets by history entry, templates by log, round and
    possible set): taking moves back, switching between a game and its copy, or between two
    games, must give the reference vector every time, optional segments included."""
    rules = ALL_RULES[name]()
    for options in ({}, {"probability": True, "board_features": True}):
        enc = Encoder(rules, **options)
        lay = enc.layout
        rng = random.Random(name)
        games = [Game.new(rules, seed=1), Game.new(rules, seed=2)]
        for step in range(140):
            g = games[rng.randrange(2)]
            if g.ply and (g.is_over() or rng.random() < 0.25):
                for _ in range(rng.randint(1, min(3, g.ply))):
                    g.pop()
            elif rng.random() < 0.1:
                games[games.index(g)] = g = g.copy()
            else:
                g.push(rng.choice(g.legal_moves()))
            viewer = rng.choice(("X", *rules.hunters, "spectator"))
            fast = enc.encode(g, viewer, selected=g.to_move)
            ref = encode_view(g.view(viewer), selected=g.to_move, layout=lay)
            assert np.array_equal(fast, ref), (options, step, viewer, g.ply)


def test_detective_observation_marks_mr_x_only_at_reveals() -> None:
    """Over many random games: the Mr X plane and the log of a detective's observation hold
    his station only where the log slot is a reveal (R-MRX), never the hidden truth."""
    for name in ("classic5", "new4", "classic_extra_reveal"):
        rules = ALL_RULES[name]()
        enc = Encoder(rules)
        lay = enc.layout
        hidden_states = 0
        for seed in range(8):
            for m in walk(rules, seed):
                g = m.game
                parts = lay.split(enc.encode(g, "D1", selected=m.selected))
                log = g.log
                plane = np.flatnonzero(parts["stations"][0])
                if log and log[-1].reveal:
                    assert plane.tolist() == [log[-1].station - 1]
                else:
                    assert plane.size == 0
                    hidden_states += bool(log)
                for k, e in enumerate(log):
                    assert parts["log"][k, 8] == np.float32((e.station / 199) if e.reveal else 0)
                assert not parts["pending_station"].any() and not parts["pending_ticket"].any()
                x = g.station("X")
                assert parts["possible"][x - 1] == 1  # the truth is always possible
        assert hidden_states > 100


def test_layout_names_every_fact() -> None:
    rules = Rules.classic(detectives=5)
    lay = ObservationLayout.for_rules(rules)
    g = Game.new(rules, start=START5)
    g.push("T75")
    parts = lay.split(Encoder(rules).encode(g, "D1", selected="D1"))
    assert lay.version == OBS_VERSION == "sy-obs-1"
    assert parts["stations"].shape == (6, 199) and parts["log"].shape == (24, 9)
    assert parts["stations"][1, 91] == 1 and parts["stations"][0].sum() == 0
    assert parts["me"].tolist() == [0, 1, 0, 0, 0, 0] and parts["selected"][1] == 1
    scale = np.array([64, 64, 32, 8, 4], np.float32)
    assert np.allclose(parts["tickets"][0] * scale, [3, 3, 3, 5, 2])  # Mr X spent a taxi ticket
    assert np.allclose(parts["tickets"][1] * scale, [10, 8, 4, 0, 0])
    assert np.allclose(parts["scalars"] * 24, [1, 1, 0, 2])  # round 1, 1 slot used, no reveal yet, next in 2
    assert parts["log"][0].tolist() == [1, 1, 0, 0, 0, 0, 0, 0, 0]
    assert parts["present"].tolist() == [1] * 6 and not parts["police"].any()
    assert np.flatnonzero(parts["reveal_slots"]).tolist() == [2, 7, 12, 17, 23]
    assert sorted(np.flatnonzero(parts["possible"]) + 1) == sorted(g.possible_locations())
    with pytest.raises(ValueError, match="shape"):
        lay.split(np.zeros(3, np.float32))


def test_layout_has_one_size_for_every_preset_and_pads_absent_seats() -> None:
    sizes = set()
    from scotlandyard.rules import PRESET_TABLE

    for preset in PRESET_TABLE:
        for n in range(preset.detectives[0], preset.detectives[1] + 1):
            rules = preset.rules(n)
            enc = Encoder(rules)
            g = Game.new(rules, seed=n)
            obs = enc.encode(g, "X", selected="X")
            sizes.add(obs.size)
            parts = enc.layout.split(obs)
            k = len(rules.pieces)
            assert parts["present"].tolist() == [1] * k + [0] * (6 - k)
            assert not parts["stations"][k:].any() and not parts["tickets"][k:].any()
            assert parts["police"].tolist()[:k] == [p.startswith("P") for p in rules.pieces]
            assert parts["unlimited"][0] == rules.mr_x_unlimited
    assert sizes == {ObservationLayout.make().size}
    with pytest.raises(LayoutError, match="log slots"):
        ObservationLayout.for_rules(Rules.classic(double_moves=5))
    with pytest.raises(LayoutError, match="taxi"):
        ObservationLayout.for_rules(Rules.classic(mr_x_tickets=(99, 3, 3)))


def test_optional_probability_map_and_board_features() -> None:
    rules = Rules.classic(detectives=5)
    enc = Encoder(rules, probability=True, board_features=True)
    lay = enc.layout
    assert lay.size == ObservationLayout.make().size + 199 + 199 + 6
    g = Game.new(rules, start=START5)
    rng = random.Random(1)
    for _ in range(12):
        g.push(rng.choice(g.legal_moves()))
    obs = enc.encode(g, "D2", selected=g.to_move)
    assert np.array_equal(obs, encode_view(g.view("D2"), selected=g.to_move, layout=lay))
    parts = lay.split(obs)
    from scotlandyard.belief import probability_map

    pm = probability_map(g.view("D2"))
    assert np.isclose(parts["probability"].sum(), 1.0)
    assert all(np.isclose(parts["probability"][s - 1], p) for s, p in pm.items())
    poss = sorted(g.possible_locations())
    board = g.board
    for s in (1, 50, 199):
        assert np.isclose(parts["distance"][s - 1] * 10, min(board.distance(s, x) for x in poss))
    for i, p in enumerate(rules.pieces[1:], start=1):
        assert np.isclose(parts["piece_distance"][i] * 10,
                          min(board.distance(g.station(p), x) for x in poss))
    assert (obs >= 0).all() and (obs <= 1).all()


def test_free_order_round_cannot_loop_under_a_policy_that_always_defers() -> None:
    """R-ORDER-FREE with a stuck last piece: always playing ``defer`` when offered still ends
    every round (once the choice has gone back to the first piece, only stuck pieces defer)."""
    for name in ("new2_scarce", "new3", "new_2p"):
        rules = ALL_RULES[name]()
        for seed in range(6):
            m = Match(rules)
            m.reset(seed=seed)
            steps = 0
            while m.legal_actions():
                acts = m.legal_actions()
                m.apply(DEFER if DEFER in acts else acts[0])
                steps += 1
                assert steps < 2000, "a round loops"
            assert m.game.is_over()
