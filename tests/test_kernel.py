"""The rules kernel against Game, the reference: perft counts from fixed positions of every
preset and variant (a missing move fails, not only an illegal one) and random positions."""

from __future__ import annotations

import dataclasses
import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scotlandyard import Game, IllegalMove, Rules
from scotlandyard.kernel import (
    PerftCase,
    PerftFormatError,
    Position,
    UnsupportedRules,
    check_rules,
    game_facts,
    game_perft,
    parse_perft,
    read_perft,
)

from .conftest import ALL_RULES

PERFT = Path(__file__).resolve().parent / "perft"
CASES = [(p.name, c) for p in sorted(PERFT.glob("*.perft")) for c in read_perft(p)]
IDS = [f"{f}:{c.id}" for f, c in CASES]
GAME_BUDGET = 2_500  # Game re-checks the depths whose parent level is at most this big
PURE_BUDGET = 400


def depths_within(case: PerftCase, budget: int) -> int:
    """The deepest depth whose parent level has at most ``budget`` positions."""
    d = 1
    while d < len(case.counts) and case.counts[d - 1] <= budget:
        d += 1
    return d


def test_the_perft_suite_covers_every_preset_and_variant() -> None:
    presets = {c.preset for _, c in CASES}
    assert set(Rules.BOOK_PRESETS) <= presets  # the small boards: tests/test_env_small_boards.py
    games = [c.game() for _, c in CASES]
    assert any(g.rules.extra_reveal and g.pending_take for g in games)
    assert any(g.rules.free_order and 1 < len(g.pieces_to_move) < len(g.pieces) - 1
               for g in games)
    assert any(g.to_move == "X" and any(m.is_double for m in g.legal_moves())
               and g.tickets("X")[3] and g.round > 1 for g in games)
    assert any(any(m.is_pass for m in g.legal_moves()) for g in games)
    assert any(g.rules.pooled_supply is not None for g in games)
    assert all(len(c.counts) >= 3 for _, c in CASES)
    assert sum(len(c.counts) >= 4 for _, c in CASES) >= 10


@pytest.mark.parametrize(("file", "case"), CASES, ids=IDS)
def test_game_reproduces_the_perft_counts(file: str, case: PerftCase) -> None:
    d = depths_within(case, GAME_BUDGET)
    assert game_perft(case.game(), d) == case.counts[:d]


@pytest.mark.parametrize(("file", "case"), CASES, ids=IDS)
def test_the_kernel_reproduces_the_perft_counts(file: str, case: PerftCase) -> None:
    game = case.game()
    pos = Position.from_game(game, fast=True)
    before = pos.state
    assert pos.perft(len(case.counts)) == case.counts
    assert pos.state == before
    d = depths_within(case, PURE_BUDGET)
    assert Position.from_game(game, fast=False).perft(d) == case.counts[:d]


def test_a_wrong_count_or_a_missing_move_is_caught() -> None:
    case = CASES[0][1]
    game = case.game()
    pos = Position.from_game(game)
    legal = pos.legal_codes()
    assert len(legal) == case.counts[0] == len(game.legal_moves())
    assert game_perft(game, 2) != [case.counts[0] - 1, case.counts[1]]


# ---- random positions: the kernel follows Game move by move ---------------------------------
SETTINGS = settings(max_examples=60, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(name=st.sampled_from(sorted(ALL_RULES)), seed=st.integers(0, 2**32 - 1))
def test_kernel_moves_and_facts_equal_game_in_random_games(name: str, seed: int) -> None:
    g = Game.new(ALL_RULES[name](), seed=seed)
    pos = Position.from_game(g)
    rng = random.Random(seed)
    facts = [pos.facts()]
    states = [pos.state]
    while not g.is_over():
        legal = g.legal_moves()
        assert sorted(m.notation() for m in pos.legal_moves()) == sorted(
            m.notation() for m in legal)
        move = legal[rng.randrange(len(legal))]
        g.push(move)
        pos.push(move)
        assert pos.facts() == game_facts(g)
        facts.append(pos.facts())
        states.append(pos.state)
    assert pos.legal_moves() == [] and pos.outcome() == g.outcome()
    while len(facts) > 1:  # unmake restores every fact and the whole state
        pos.pop()
        facts.pop()
        states.pop()
        assert pos.facts() == facts[-1] and pos.state == states[-1]


@settings(max_examples=25, deadline=None, derandomize=True)
@given(name=st.sampled_from(sorted(ALL_RULES)), seed=st.integers(0, 2**32 - 1),
       plies=st.integers(0, 60))
def test_pure_and_numba_kernels_agree_and_match_from_game(name: str, seed: int, plies: int
                                                          ) -> None:
    g = Game.new(ALL_RULES[name](), seed=seed)
    rng = random.Random(seed)
    while not g.is_over() and g.ply < plies:
        ms = g.legal_moves()
        g.push(ms[rng.randrange(len(ms))])
    fast, pure = Position.from_game(g, fast=True), Position.from_game(g, fast=False)
    assert fast.state == pure.state
    assert fast.facts() == pure.facts() == game_facts(g)
    assert fast.legal_codes() == pure.legal_codes()
    if not g.is_over():
        assert fast.perft(2) == pure.perft(2) == game_perft(g, 2)


# ---- errors ---------------------------------------------------------------------------------------
def test_push_refuses_an_illegal_move_and_changes_nothing() -> None:
    g = Game.new(Rules.classic(), start={"X": 74, "D1": 92, "D2": 13, "D3": 29, "D4": 100,
                                         "D5": 150})
    pos = Position.from_game(g)
    before = pos.state
    for bad in ("T1", "D1:T93", "pass", "B58+U1", "take:D1:T", "zz"):
        with pytest.raises(IllegalMove):
            pos.push(bad)
        assert pos.state == before
    with pytest.raises(IndexError, match="no move to take back"):
        pos.pop()
    with pytest.raises(ValueError, match="depth"):
        pos.perft(-1)


def test_the_kernel_refuses_rules_it_does_not_play() -> None:
    @dataclasses.dataclass(frozen=True)
    class Later(Rules):  # a setting added to Rules after the kernel was written
        some_new_rule: bool = False

    base = dataclasses.asdict(Rules.classic())
    base = {k: tuple(v) if isinstance(v, list) else v for k, v in base.items()}
    check_rules(Later(**base))
    with pytest.raises(UnsupportedRules, match="some_new_rule=True"):
        check_rules(Later(**base, some_new_rule=True))
    with pytest.raises(UnsupportedRules, match="use Game"):
        Position.from_game(Game.new(Later(**base, some_new_rule=True), seed=1))


def test_a_broken_perft_file_is_refused_with_its_line() -> None:
    good = "id a\npreset classic\nseed 1\nperft 1 94\n"
    assert parse_perft(good)[0].counts == [94]
    for text, msg in (
        ("preset classic\n", "before the first id"),
        ("id a\npreset classic\nperft 1 3\n", "neither a seed nor a start"),
        ("id a\npreset classic\nseed 1\n", "no perft line"),
        ("id a\npreset classic\nseed 1\nperft 2 3\n", "depths go 1, 2, 3"),
        ("id a\npreset classic\nseed 1\nperft 1 3\nid a\nseed 2\nperft 1 3\n", "repeated"),
        ("id a\npreset classic\nseed x\nperft 1 3\n", ":3:"),
        ("id a\ncolour red\n", "unknown key"),
    ):
        with pytest.raises(PerftFormatError, match=msg):
            parse_perft(text, "t.perft")


def test_a_case_writes_back_to_the_same_text() -> None:
    for _, case in CASES:
        again = parse_perft(case.to_text())[0]
        assert again == case


def test_random_games_in_the_kernel_are_the_same_on_both_paths() -> None:
    from scotlandyard.kernel import random_games

    rules = Rules.classic()
    wins, moves = random_games(rules, 40, seed=3, fast=False)
    assert (wins, moves) == random_games(rules, 40, seed=3, fast=True)
    assert 0 < wins < 40 and 40 * 30 < moves < 40 * 200  # full games: rounds of 6 moves
    with pytest.raises(ValueError, match="shared start deck"):
        random_games(Rules.new_edition(), 1)
