"""Puzzles: the exact capture search, the answer check, the shipped puzzle file."""

from __future__ import annotations

import itertools
import json
import random

import pytest

from scotlandyard import Game, Rules
from scotlandyard.ai import Budget, make_agent
from scotlandyard.move import MR_X, Move
from scotlandyard.puzzles import (
    Puzzle,
    PuzzleError,
    check,
    cover,
    find_capture,
    load_puzzles,
    reply_for,
)


def _positions(seeds: range) -> list[Game]:
    """Detectives' turns (from round 2) of quick computer games, as independent copies."""
    out = []
    rules = Rules.classic(detectives=5)
    for seed in seeds:
        game = Game.new(rules, seed=seed)
        rng = random.Random(seed)
        ax, ad = make_agent("heuristic", side="mr_x"), make_agent("heuristic", side="detectives")
        while not game.is_over():
            if game.to_move in rules.hunters and game.round > 1:
                out.append(game.copy())
            v = game.view(game.to_move)
            game.push((ax if game.to_move == MR_X else ad).choose(v, v.legal_moves, rng,
                                                                  Budget(playouts=50)))
    return out


def _brute_force_cover(game: Game) -> bool:
    """Whether any joint move of the detectives to move catches Mr X on every possible
    station: every combination of their legal moves, played through the engine."""
    hunters = game.rules.hunters[game.rules.hunters.index(game.to_move):]
    options = []
    for p in hunters:
        g = game.copy()
        # a piece's moves ignoring the earlier ones' (the engine refuses the clashing ones)
        while g.to_move != p:
            g.push(g.legal_moves()[0])
        options.append(g.legal_moves())
    worlds = [Game.from_view(game.view("D1"), mr_x=s) for s in sorted(game.possible_locations())]
    for joint in itertools.product(*options):
        ok = True
        for w in worlds:
            w = w.copy()
            for m in joint:
                if w.is_over():
                    break
                if w.why_illegal(m) is not None:
                    ok = False
                    break
                w.push(m)
            out = w.outcome()
            if not ok or out is None or out.winner != "detectives":
                ok = False
                break
        if ok:
            return True
    return False


def test_cover_is_exact_against_brute_force() -> None:
    # small possible sets only (else the brute force has too many joint moves); both answers
    # must occur, so the comparison means something
    games = [g for g in _positions(range(6)) if len(g.possible_locations()) <= 2
             and g.to_move in ("D3", "D4", "D5")]
    assert len(games) >= 10
    seen = set()
    for g in games:
        found = cover(g)
        assert (found is not None) == _brute_force_cover(g), g.moves
        seen.add(found is not None)
        if found is not None:
            assert check(g, 1, [str(m) for m in found]).solved
    assert seen == {True, False}


def test_a_wrong_answer_names_the_station_left_open() -> None:
    puzzle = next(p for p in load_puzzles() if p.rounds == 1)
    game = puzzle.game()
    assert check(game, 1, list(puzzle.solution)).solved
    possible = sorted(game.possible_locations())
    # move every detective but keep the first one's capture off its station: any legal
    # alternative for the piece that covers the first possible station
    solution = list(puzzle.solution)
    for i, text in enumerate(solution):
        mv = Move.parse(text)
        if mv.to in possible:
            g = game.copy()
            for m in solution[:i]:
                g.push(m)
            other = [m for m in g.legal_moves() if m.to not in possible]
            if other:
                solution[i] = str(other[0])
                res = check(game, 1, solution)
                assert not res.solved
                assert str(mv.to) in res.reason and "no detective lands" in res.reason
                return
    pytest.fail("no detective of the solution had another move")


def test_answers_that_are_not_moves_get_a_clear_error() -> None:
    puzzle = next(p for p in load_puzzles() if p.rounds == 1)
    game = puzzle.game()
    n = len(puzzle.solution)
    with pytest.raises(PuzzleError, match=f"has {n} moves"):
        check(game, 1, list(puzzle.solution)[:-1])
    with pytest.raises(PuzzleError, match="is not a move"):
        check(game, 1, ["hello"] * n)
    with pytest.raises(PuzzleError, match="list of moves"):
        check(game, 1, "T92")
    bad = list(puzzle.solution)
    bad[0] = "T1" if Move.parse(bad[0]).to != 1 else "T2"
    res = check(game, 1, bad)
    assert not res.solved and res.reason.startswith("illegal:") and "R-" in res.reason


def test_two_round_puzzles_hold_whatever_mr_x_answers() -> None:
    puzzle = next(p for p in load_puzzles() if p.rounds == 2)
    game = puzzle.game()
    assert cover(game) is None  # not a capture in one
    assert check(game, 2, list(puzzle.solution)).solved
    # the hardest reply: the detectives then have a cover, and a pass-everything answer fails
    reply = reply_for(game, list(puzzle.solution))
    assert reply is not None and reply.to_move == "D1"
    second = cover(reply)
    assert second is not None and check(reply, 1, [str(m) for m in second]).solved
    stay = [str(m) for m in _first_moves(reply)]
    assert not check(reply, 1, stay).solved or len(reply.possible_locations()) == 1


def _first_moves(game: Game) -> list[Move]:
    g, out = game.copy(), []
    while g.to_move != MR_X and not g.is_over():
        m = g.legal_moves()[0]
        out.append(m)
        g.push(m)
    return out


def test_find_capture_refuses_other_depths_and_mr_x_turns() -> None:
    game = Game.new(Rules.classic(), seed=3)
    with pytest.raises(PuzzleError, match="detective's turn"):
        cover(game)
    game.push(game.legal_moves()[0])
    with pytest.raises(ValueError, match="rounds is 1 or 2"):
        find_capture(game, 3)


def test_every_shipped_puzzle_is_proved_by_the_engine() -> None:
    puzzles = load_puzzles()
    assert len(puzzles) >= 500
    assert len({p.id for p in puzzles}) == len(puzzles)
    assert {p.rounds for p in puzzles} == {1, 2}
    for p in puzzles:
        game = p.game()
        res = check(game, p.rounds, list(p.solution))
        assert res.solved, (p.id, res.reason)
        if p.rounds == 1:
            assert len(game.possible_locations()) >= 2


def test_a_broken_puzzle_file_says_what_is_wrong(tmp_path) -> None:  # type: ignore[no-untyped-def]
    bad = tmp_path / "p.json"
    bad.write_text("{not json", encoding="utf-8")
    with pytest.raises(PuzzleError, match="not a puzzle file"):
        load_puzzles(bad)
    bad.write_text(json.dumps({"puzzles": [{"id": "x"}]}), encoding="utf-8")
    with pytest.raises(PuzzleError, match="needs id, rounds"):
        load_puzzles(bad)
    row = load_puzzles()[0].to_dict()
    row["moves"] = row["moves"][:-1] + ["T1"]
    with pytest.raises(PuzzleError, match="move"):
        Puzzle.from_dict(row).game()


def test_the_generator_finds_the_same_puzzles_in_a_saved_record(tmp_path) -> None:  # type: ignore[no-untyped-def]
    import importlib.util
    from pathlib import Path

    from scotlandyard import Record

    path = Path(__file__).resolve().parents[1] / "scripts" / "make_puzzles.py"
    spec = importlib.util.spec_from_file_location("make_puzzles", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    seed = next(s for s in range(1, 40) if mod.puzzles_of_game(s))
    from_game = mod.puzzles_of_game(seed)
    # the same game, played again and saved as a record file
    rules = Rules.classic(detectives=5)
    game = Game.new(rules, start=dict(from_game[0].start))
    full = from_game[-1]
    for m in full.moves:
        game.push(m)
    rec = tmp_path / "game.sy"
    Record.from_game(game).save(rec)
    found = mod.puzzles_of_record(rec)
    assert [(p.rounds, p.moves, p.solution) for p in found] == [
        (p.rounds, p.moves, p.solution) for p in from_game]
    assert all(p.source.startswith("played game game.sy") for p in found)
