"""Property tests over thousands of random games: make/unmake, invariants, belief, views."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scotlandyard import Game, Ticket

from .conftest import ALL_RULES, snapshot

RULE_NAMES = sorted(ALL_RULES)
SETTINGS = settings(max_examples=1000, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow])


def check_invariants(g: Game) -> None:
    """Occupancy, ticket counts and the possible-location set are always sound."""
    stations = g.stations
    assert len(set(stations.values())) == len(stations) or (
        g.outcome() is not None and g.outcome().reason == "caught")  # type: ignore[union-attr]
    for p in g.pieces:
        for c in g.tickets(p).values():
            assert c is None or c >= 0
    assert g.station("X") in g.possible_locations()
    rules = g.rules
    if rules.ticket_handover and not rules.mr_x_unlimited and rules.pooled_supply is None:
        # classic hand-over: every taxi/bus/underground ticket is somewhere (Mr X's spent ones left the game)
        for t, k in ((Ticket.TAXI, 0), (Ticket.BUS, 1), (Ticket.UNDERGROUND, 2)):
            spent_by_x = sum(1 for e in g.log if e.ticket == t)
            total = sum(g.tickets(p)[t] for p in g.pieces) + spent_by_x  # type: ignore[misc]
            assert total == rules.mr_x_tickets[k] + rules.detectives * rules.detective_tickets[k]
    if not g.is_over():
        assert g.legal_moves(), "a side to move always has a move (pass at least)"


@SETTINGS
@given(name=st.sampled_from(RULE_NAMES), seed=st.integers(0, 2**32 - 1))
def test_push_pop_restores_the_state_exactly(name: str, seed: int) -> None:
    g = Game.new(ALL_RULES[name](), seed=seed)
    rng = random.Random(seed)
    snaps = [snapshot(g)]
    while not g.is_over():
        ms = g.legal_moves()
        g.push(ms[rng.randrange(len(ms))])
        check_invariants(g)
        snaps.append(snapshot(g))
    while g.ply:
        g.pop()
        snaps.pop()
        assert snapshot(g) == snaps[-1]


@SETTINGS
@given(name=st.sampled_from(RULE_NAMES), seed=st.integers(0, 2**32 - 1))
def test_possible_locations_contain_the_truth_and_views_hide_it(name: str, seed: int) -> None:
    rules = ALL_RULES[name]()
    g = Game.new(rules, seed=seed)
    rng = random.Random(seed)
    while not g.is_over():
        assert g.station("X") in g.possible_locations()
        v = g.view("spectator")
        for e, truth in zip(v.log, g.log, strict=True):
            assert e.station == (truth.station if truth.reveal else None)
        assert v.mr_x_station in (None, g.station("X"))
        if v.mr_x_station is not None:
            assert g.log[-1].reveal
        ms = g.legal_moves()
        g.push(ms[rng.randrange(len(ms))])


@settings(max_examples=200, deadline=None, derandomize=True)
@given(name=st.sampled_from(RULE_NAMES), seed=st.integers(0, 2**32 - 1), cut=st.integers(0, 120))
def test_copy_then_play_equals_replay(name: str, seed: int, cut: int) -> None:
    rules = ALL_RULES[name]()
    g = Game.new(rules, seed=seed)
    rng = random.Random(seed)
    while not g.is_over() and g.ply < cut:
        ms = g.legal_moves()
        g.push(ms[rng.randrange(len(ms))])
    h = g.copy()
    replayed = Game.new(rules, start=g.start)
    for _piece, m in g.moves:
        replayed.push(m)
    assert snapshot(h) == snapshot(g) == snapshot(replayed)


@settings(max_examples=150, deadline=None, derandomize=True)
@given(name=st.sampled_from(RULE_NAMES), seed=st.integers(0, 2**32 - 1))
def test_views_after_push_pop_churn_equal_fresh_views(name: str, seed: int) -> None:
    """The view cache never serves an entry from a move that was taken back."""
    rules = ALL_RULES[name]()
    g = Game.new(rules, seed=seed)
    rng = random.Random(seed)
    while not g.is_over():
        for piece in ("X", rules.hunters[-1], "spectator"):
            g.view(piece)
        if g.ply and rng.random() < 0.3:
            g.pop()
            g.view("D1")
            g.view("X")
        ms = g.legal_moves()
        g.push(ms[rng.randrange(len(ms))])
        if rng.random() < 0.1:
            fresh = Game.new(rules, start=g.start)
            for _p, m in g.moves:
                fresh.push(m)
            for piece in ("X", "D1", "spectator"):
                assert g.view(piece) == fresh.view(piece)
    fresh = Game.new(rules, start=g.start)
    for _p, m in g.moves:
        fresh.push(m)
    for piece in ("X", "D1", "spectator"):
        assert g.view(piece) == fresh.view(piece)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(name=st.sampled_from(RULE_NAMES), seed=st.integers(0, 2**32 - 1))
def test_views_of_copies_that_diverge_equal_fresh_views(name: str, seed: int) -> None:
    """A copy's view cache starts as the original's, and neither serves the other's moves: a
    copy and its original that go on with different moves (or one taken back) both show what
    a fresh replay of their own moves shows."""
    rules = ALL_RULES[name]()
    g = Game.new(rules, seed=seed)
    rng = random.Random(seed)

    def fresh_equal(game: Game) -> None:
        fresh = Game.new(rules, start=game.start)
        for _p, m in game.moves:
            fresh.push(m)
        for piece in ("X", "D1", "spectator"):
            assert game.view(piece) == fresh.view(piece)

    while not g.is_over():
        for piece in ("X", "D1", "spectator"):
            g.view(piece)
        if rng.random() < 0.2:
            c = g.copy()
            if c.ply and rng.random() < 0.5:
                c.pop()
            if not c.is_over():
                ms = c.legal_moves()
                c.push(ms[rng.randrange(len(ms))])
            fresh_equal(c)
        ms = g.legal_moves()
        g.push(ms[rng.randrange(len(ms))])
        if rng.random() < 0.2:
            fresh_equal(g)
    fresh_equal(g)
