"""A full game for each edition and variant, to the end, with every outcome reason seen."""

from __future__ import annotations

from collections import Counter

import pytest

from scotlandyard import Game, Rules, Ticket

from .conftest import ALL_RULES, random_game


def assert_cornered(g: Game) -> None:
    """Mr X really had no move: every line he could pay for ends on a detective or police piece."""
    x = g.station("X")
    taken = {s for p, s in g.stations.items() if p != "X"}
    tickets = g.tickets("X")
    for t in (Ticket.TAXI, Ticket.BUS, Ticket.UNDERGROUND):
        if tickets[t] is None or tickets[t]:
            assert set(g.board.neighbours_of(x, int(t))) <= taken
    if tickets[Ticket.BLACK]:
        assert g.board.any_neighbours(x) <= taken


def test_assert_cornered_detects_a_free_station() -> None:
    g = Game.new(Rules.classic(detectives=5), start={"X": 1, "D1": 8, "D2": 9, "D3": 46, "D4": 57, "D5": 150})
    with pytest.raises(AssertionError):
        assert_cornered(g)
    g = Game.new(Rules.classic(detectives=5), start={"X": 1, "D1": 8, "D2": 9, "D3": 46, "D4": 58, "D5": 150})
    assert g.outcome().reason == "cornered"  # type: ignore[union-attr]
    assert_cornered(g)


@pytest.mark.parametrize("name", sorted(ALL_RULES))
def test_full_random_games_end_with_a_valid_outcome(name: str) -> None:
    rules = ALL_RULES[name]()
    reasons: Counter[str] = Counter()
    for seed in range(60):
        g = random_game(rules, seed)
        o = g.outcome()
        assert o is not None
        reasons[o.reason] += 1
        assert g.round <= rules.last_round
        assert len(g.log) <= rules.log_slots
        if o.reason == "survived":
            assert o.winner == "mr_x" and o.round == rules.last_round
        if o.reason == "caught":
            assert g.station(o.piece) == g.station("X")  # type: ignore[arg-type]
        if o.reason == "cornered":
            assert_cornered(g)
        assert o.describe()
    assert reasons["caught"] > 0


def test_classic_full_game_reaches_round_22() -> None:
    rules = Rules.classic(detectives=1)
    survived = [random_game(rules, s) for s in range(40)]
    assert any(g.outcome().reason == "survived" and g.round == 22 for g in survived)  # type: ignore[union-attr]


def test_every_outcome_reason_occurs() -> None:
    seen = set()
    for name in ("classic5", "new2", "classic1"):
        for seed in range(150):
            seen.add(random_game(ALL_RULES[name](), seed).outcome().reason)  # type: ignore[union-attr]
    assert {"caught", "survived", "detectives_stuck"} <= seen
