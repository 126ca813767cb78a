"""The human-like beginner policies (``make_agent("beginner", side=...)``) that the ``easy``
level is tuned against: what each does, that they see only the view, and that they play
sensibly. (Legal moves on both editions, determinism, refusing a ``Game`` and the twin games
that differ only in Mr X's hidden station: tests/test_ai_agents.py's CASES.)"""

from __future__ import annotations

import dataclasses
import random

import pytest

from scotlandyard import Game, Move, Rules, Ticket, london
from scotlandyard.ai import Budget, make_agent
from scotlandyard.ai.arena import ArenaConfig, run_arena
from scotlandyard.ai.beginner import BeginnerDetectives, BeginnerMrX, board_middle, last_seen
from scotlandyard.move import SingleMove
from scotlandyard.view import PlayerView
from tests.conftest import load_benchmark


def _chase_views(rules: Rules, n: int) -> list[PlayerView]:
    """Detectives' views (to move) after Mr X's first reveal, from games of a beginner Mr X
    against random detectives (who do not end the games early)."""
    mr_x = make_agent("beginner", side="mr_x")
    hunters = make_agent("random", side="detectives")
    out: list[PlayerView] = []
    seed = 0
    while len(out) < n:
        game = Game.new(rules, seed=seed)
        rng = random.Random(seed)
        while not game.is_over() and len(out) < n:
            view = game.view(game.to_move)
            agent = mr_x if view.side == "mr_x" else hunters
            if view.side == "detectives" and last_seen(view)[0] is not None:
                out.append(view)
            game.push(agent.choose(view, view.legal_moves, rng, Budget()))
        seed += 1
    return out


def _closer(view: PlayerView, move: Move) -> int:
    """How many hops ``move`` brings its piece nearer Mr X's last sighting (negative: away)."""
    board = london(view.rules.board)
    seen, _ = last_seen(view)
    assert seen is not None and isinstance(move, SingleMove)
    row = board.distance_row(seen)
    return row[view.stations[move.piece or view.to_move or ""]] - row[move.to]


@pytest.mark.parametrize("rules", [Rules.classic(), Rules.new_edition(3)],
                         ids=["classic", "new_edition"])
def test_beginner_detectives_head_for_the_last_reveal_more_often_than_not(rules):
    views = [v for v in _chase_views(rules, 150)
             if all(isinstance(m, SingleMove) for m in v.legal_moves)
             and min(_closer(v, m) for m in v.legal_moves) < max(_closer(v, m) for m in v.legal_moves)
             and last_seen(v)[0] not in v.stations.values()]

    def share_closer(name: str) -> float:
        agent = make_agent(name, side="detectives")
        picks = [agent.choose(v, v.legal_moves, random.Random(i), Budget())
                 for i, v in enumerate(views)]
        return sum(_closer(v, m) > 0 for v, m in zip(views, picks, strict=True)) / len(views)

    beginner, rand = share_closer("beginner"), share_closer("random")
    assert len(views) >= 60
    assert beginner > 0.6 and beginner > rand + 0.2, (beginner, rand)


def test_beginner_detectives_ignore_the_possible_locations():
    agent = BeginnerDetectives()
    for i, view in enumerate(_chase_views(Rules.classic(), 40)):
        others = [frozenset({view.stations[view.to_move or ""]}), frozenset(range(1, 200))]
        moves = {agent.choose(dataclasses.replace(view, possible=p), view.legal_moves,
                              random.Random(i), Budget()) for p in (view.possible, *others)}
        assert len(moves) == 1


def test_before_any_reveal_the_detectives_head_for_the_middle_of_the_board():
    assert board_middle("classic") == 67 and board_middle("2014") == 67
    board = london("classic")
    row = board.distance_row(67)
    agent = BeginnerDetectives(epsilon=0.0)
    for seed in range(10):
        game = Game.new(Rules.classic(), seed=seed)
        game.push(next(m for m in game.legal_moves() if not m.is_double
                       and m.ticket != Ticket.BLACK))
        view = game.view(game.to_move)
        assert last_seen(view) == (None, 1)
        move = agent.choose(view, view.legal_moves, random.Random(seed), Budget())
        assert row[move.to] == min(row[m.to] for m in view.legal_moves)


def test_beginner_detectives_take_the_underground_only_for_a_long_way():
    agent = BeginnerDetectives(epsilon=0.0)
    checked = 0
    for i, view in enumerate(_chase_views(Rules.classic(), 200)):
        seen, _ = last_seen(view)
        move = agent.choose(view, view.legal_moves, random.Random(i), Budget())
        if not isinstance(move, SingleMove):
            continue
        row = london("classic").distance_row(seen)
        near = row[view.stations[view.to_move]] < agent.underground_from
        as_close = [m for m in view.legal_moves if m.ticket != Ticket.UNDERGROUND
                    and row[m.to] <= row[move.to]]
        if near and as_close:
            checked += 1
            assert move.ticket != Ticket.UNDERGROUND, (view.stations, seen, move)
    assert checked >= 30


def _mr_x_game(x: int, d1: int, rules: Rules) -> Game:
    """Mr X at ``x``, D1 at ``d1``, any other piece far away (at least 4 hops from ``x``)."""
    board = london(rules.board)
    pieces = Game.new(rules, seed=0).pieces
    far = [s for s in range(1, 200) if board.distance(x, s) >= 4 and s != d1]
    start = {"X": x, "D1": d1, **{p: far[7 * k] for k, p in enumerate(pieces[2:])}}
    return Game.new(rules, start=start)


def test_beginner_mr_x_runs_with_a_double_move_when_a_detective_is_next_to_him():
    board = london("classic")
    x = 53
    d1 = board.neighbours[0][x][0]
    game = _mr_x_game(x, d1, Rules.classic(detectives=1))
    view = game.view("X")
    assert any(m.is_double for m in view.legal_moves)
    row = board.distance_row(d1)
    for seed in range(5):
        move = BeginnerMrX().choose(view, view.legal_moves, random.Random(seed), Budget())
        assert move.is_double
        assert row[move.destination] == max(row[m.destination] for m in view.legal_moves
                                            if m.is_double)


@pytest.mark.parametrize("rules", [Rules.classic(detectives=1), Rules.new_edition(1, extra_reveal=True)],
                         ids=["classic", "new_edition"])
def test_beginner_mr_x_away_from_danger_takes_a_random_safe_single_move(rules):
    board = london(rules.board)
    x, d1 = 53, 1  # five hops apart
    assert board.distance(x, d1) >= 3
    view = _mr_x_game(x, d1, rules).view("X")
    assert any(m.reveal for m in view.legal_moves) == (rules.board == "2014")
    rows = [board.distance_row(s) for p, s in view.stations.items() if p != "X"]
    picks = {BeginnerMrX().choose(view, view.legal_moves, random.Random(s), Budget())
             for s in range(40)}
    for m in picks:
        assert isinstance(m, SingleMove) and not m.reveal and m.ticket != Ticket.BLACK
        assert min(row[m.to] for row in rows) >= 2
    assert len(picks) >= 3  # random among the safe moves, not one fixed choice


def test_the_beginners_play_sensibly_against_random_players(tmp_path):
    def mr_x_wins(mr_x: str, detectives: str) -> int:
        cfg = ArenaConfig(mr_x=mr_x, detectives=detectives, games=30, seed=5, workers=1)
        return run_arena(cfg, tmp_path / f"{mr_x}-{detectives}", progress=False).win_rate(
            "mr_x").wins

    # beginner detectives catch a random Mr X nearly always; random detectives hardly ever
    # catch a beginner Mr X
    assert mr_x_wins("random", "beginner") <= 6
    assert mr_x_wins("beginner", "random") >= 24


def test_beginner_options_are_checked():
    with pytest.raises(ValueError, match="epsilon"):
        BeginnerDetectives(epsilon=2)
    with pytest.raises(ValueError, match="underground_from"):
        BeginnerDetectives(underground_from=0)
    with pytest.raises(ValueError, match="'mr_x' or 'detectives'"):
        make_agent("beginner", side="spectator")
    with pytest.raises(ValueError, match="detectives only"):
        BeginnerDetectives(side="mr_x")
    assert make_agent("beginner", side="detectives", epsilon=0.1).epsilon == 0.1


def test_the_benchmark_plays_each_sample_pools_them_and_resumes(tmp_path, capsys):
    bench = load_benchmark("beginner")
    args = ["--levels", "easy", "--games", "6", "--samples", "2", "--seed", "3",
            "--out", str(tmp_path)]
    bench.main(args)
    first = capsys.readouterr().out
    rows = [line for line in first.splitlines() if line.startswith("| easy Mr X")
            or line.startswith("| beginner Mr X")]
    assert len(rows) == 2 and "| seed 3 | seed 4 |" in first
    for row in rows:  # each sample's wins out of 6, then the pooled figure out of 12
        cells = [c.strip() for c in row.split("|")]
        a, b = (int(c.split("/")[0]) for c in cells[3:5])
        assert cells[3].endswith("/6") and cells[4].endswith("/6")
        assert cells[5].startswith(f"{a + b}/12 = ")
        assert cells[7] in ("**met**", "**missed**")
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "classic-easy-detectives-seed3", "classic-easy-detectives-seed4",
        "classic-easy-mr_x-seed3", "classic-easy-mr_x-seed4"]
    bench.main(args)  # every game is on disk: the same table again, nothing replayed
    for folder in tmp_path.iterdir():
        assert len((folder / "manifest.jsonl").read_text().splitlines()) == 6
    assert capsys.readouterr().out.split("\n\n", 1)[1] == first.split("\n\n", 1)[1]
    with pytest.raises(SystemExit):
        bench.main(["--levels", "easiest"])
