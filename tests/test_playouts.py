"""The compiled (numba) path: the one test file that compiles the kernel (cache=True keeps the
compiled code on disk for later runs). Fast playouts are legal games of the core engine and
equal to the pure-Python path move for move; MCTS beats random and the heuristic baselines on
both sides at small budgets."""

from __future__ import annotations

import math
import random

import pytest

from scotlandyard import Game, Rules
from scotlandyard.ai import Budget, make_agent
from scotlandyard.ai.mcts import NW_SETTINGS, MCTSOptions, MCTSSearch
from scotlandyard.kernel import fast as F

PRESETS = [Rules.classic(), Rules.classic(detectives=1), Rules.classic_two_players(),
           Rules.new_edition(4), Rules.new_edition(2), Rules.new_edition(1),
           Rules.new_edition_two_players(), Rules.classic(extra_reveal=True),
           Rules.new_edition(2, detective_tickets=(5, 3, 1))]
Classic5 = Rules.classic()
PRESET_IDS = ["classic", "classic-1", "classic-2p", "new-4", "new-2", "new-1", "new-2p",
              "classic-reveal", "new-2-scarce"]


def test_the_fast_path_is_compiled_by_numba_with_an_on_disk_cache():
    kern = F.kernel(True)
    assert kern.fast  # numba is a dependency of this project's test set-up (the fast extra)
    F.playout(Game.new(Rules.classic(), seed=1), seed=1)
    stats = kern.playout.stats
    assert stats.cache_path is not None  # cache=True: compiled once, then loaded from disk
    assert sum(stats.cache_hits.values()) + sum(stats.cache_misses.values()) >= 1


def test_warm_up_readies_the_fast_path_for_a_server():
    assert F.warm_up() is True


def _start_positions(rules: Rules, n: int, seed: int) -> list[Game]:
    """Games at their start and after some random moves (voluntary reveals and takes too)."""
    rng = random.Random(seed)
    out = []
    k = 0
    while len(out) < n and k < 20 * n:
        game = Game.new(rules, seed=seed * 1000 + k)
        k += 1
        for _ in range(rng.randrange(0, 60)):
            if game.is_over():
                break
            game.push(rng.choice(game.legal_moves()))
        if not game.is_over():
            out.append(game)
    return out


def _replay(game: Game, result: F.PlayoutResult) -> None:
    for piece, move in result.moves:
        assert piece in game.pieces_to_move, (piece, move, game.pieces_to_move)
        game.push(move)  # raises IllegalMove (naming the rule) if the kernel broke a rule
    out = game.outcome()
    assert out is not None
    assert (out.winner, out.reason, out.piece) == (result.winner, result.reason, result.piece)


@pytest.mark.parametrize("rules", PRESETS, ids=PRESET_IDS)
def test_fast_playouts_are_legal_games_of_the_engine(rules):
    policies = [F.PlayoutPolicy(), F.PlayoutPolicy(1.0, 1.0), F.PlayoutPolicy(cal_target="possible"),
                F.PlayoutPolicy(move_filter=False)]
    games = 0
    for k, game in enumerate(_start_positions(rules, 24, seed=len(rules.hunters))):
        result = F.playout(game, seed=k, fast=True, policy=policies[k % len(policies)])
        _replay(game.copy(), result)
        games += 1
    assert games == 24


def test_fast_and_pure_playouts_are_identical_for_the_same_seed():
    for rules in PRESETS:
        for k, game in enumerate(_start_positions(rules, 4, seed=7)):
            for policy in (F.PlayoutPolicy(), F.PlayoutPolicy(0.5, 0.5, "possible")):
                fast = F.playout(game, seed=k, fast=True, policy=policy)
                pure = F.playout(game, seed=k, fast=False, policy=policy)
                assert fast == pure


def test_fast_playout_outcomes_cover_every_way_a_game_ends():
    reasons = set()
    for rules in (Rules.classic(), Rules.classic(detectives=1), Rules.new_edition(4)):
        for seed in range(120):
            game = Game.new(rules, seed=seed)
            reasons.add(F.playout(game, seed=seed, policy=F.PlayoutPolicy(1.0, 0.5)).reason)
    assert {"caught", "survived", "detectives_stuck"} <= reasons


def test_many_fast_playouts_in_one_call():
    game = Game.new(Rules.classic(), seed=2)
    wins, plies = F.playouts_per_run(game, 500, seed=1)
    assert 0 < wins < 500 and plies > 500 * 10


@pytest.mark.parametrize("piece,model", [("X", "paranoid"), ("X", "public"), ("X", "hypothesis"),
                                         ("X", "public-region"), ("D1", "paranoid"),
                                         ("X", "nw"), ("D1", "nw")])
def test_fast_and_pure_search_are_identical(piece, model):
    game = Game.new(Rules.classic(), seed=6)
    game.push(game.legal_moves()[2])
    if piece == "X":
        while game.to_move != "X":
            game.push(game.legal_moves()[0])
    view = game.view(piece)
    runs = []
    for fast in (True, False):
        opts = (MCTSOptions(fast=fast, **NW_SETTINGS) if model == "nw" else
                MCTSOptions(fast=fast, mr_x_model=model) if model != "public-region" else
                MCTSOptions(fast=fast, mr_x_model="public", horizon=3, region_weight=0.5,
                            model_epsilon=0.05))
        s = MCTSSearch(view, opts, seed=21)
        s.run(250)
        runs.append((s.root_children(), s.nodes, s.playout_plies))
    assert runs[0] == runs[1]


@pytest.mark.parametrize("options", [
    {"determinization": "separate", "determinizations": 6},
    {"determinization": "separate", "vote": "majority", "categorization": False},
], ids=["separate-visits", "separate-majority"])
def test_fast_and_pure_separate_trees_are_identical(options):
    game = Game.new(Rules.classic(), seed=6)
    for _ in range(9):
        game.push(game.legal_moves()[1])
    view = game.view(game.to_move)
    assert view.side == "detectives" and len(view.possible) > 1
    runs = []
    for fast in (True, False):
        s = MCTSSearch(view, MCTSOptions(fast=fast, **options), seed=21,
                       root_moves=view.legal_moves)
        s.run(250)
        runs.append((s.root_children(), s.trees, s.nodes, s.playout_plies, s.best_move()))
    assert runs[0] == runs[1]
    assert len(runs[0][1]) == (options.get("determinizations") or 20)


# ---- strength at small budgets (fast path) --------------------------------------------------------
def _mr_x_wins(rules: Rules, mr_x: str, detectives: str, games: int, bx: Budget, bd: Budget,
               seed: int) -> int:
    """Games Mr X wins; the same start positions and seeds for every pairing."""
    xa = make_agent(mr_x, side="mr_x")
    da = make_agent(detectives, side="detectives")
    wins = 0
    for k in range(games):
        game = Game.new(rules, seed=seed + k)
        rng = random.Random(seed + k)
        while not game.is_over():
            view = game.view(game.to_move)
            agent, budget = (xa, bx) if view.side == "mr_x" else (da, bd)
            game.push(agent.choose(view, view.legal_moves, rng, budget))
        wins += game.outcome().winner == "mr_x"
    return wins


def fisher_one_sided(a: int, n_a: int, b: int, n_b: int) -> float:
    """P-value of Fisher's exact test that the rate a/n_a is greater than b/n_b (the chance
    of a split at least this lopsided if both came from one rate)."""
    total, k = n_a + n_b, a + b
    denom = math.comb(total, k)
    return sum(math.comb(n_a, i) * math.comb(n_b, k - i)
               for i in range(a, min(n_a, k) + 1)) / denom


def binomial_upper_tail(k: int, n: int, p: float = 0.5) -> float:
    """P(at least k successes in n trials of probability p)."""
    return sum(math.comb(n, i) * p**i * (1 - p) ** (n - i) for i in range(k, n + 1))


def test_fisher_one_sided_matches_known_values():
    assert fisher_one_sided(5, 5, 0, 5) == pytest.approx(1 / 252)
    assert fisher_one_sided(0, 10, 0, 10) == 1.0
    assert fisher_one_sided(3, 10, 3, 10) > 0.5
    assert binomial_upper_tail(10, 10) == pytest.approx(1 / 1024)
    assert binomial_upper_tail(0, 7) == pytest.approx(1.0)


def test_mcts_mr_x_beats_random_and_mcd_mr_x():
    # the baselines are cheap: many games pin their rates down; MCTS plays fewer
    rules, n, n_base = Classic5, 30, 120
    mcts = _mr_x_wins(rules, "mcts", "mtd", n, Budget(playouts=150), Budget(), 500)
    for baseline in ("mcd", "random"):
        base = _mr_x_wins(rules, baseline, "mtd", n_base, Budget(), Budget(), 500)
        p = fisher_one_sided(mcts, n, base, n_base)
        assert p < 0.05, (f"MCTS Mr X {mcts}/{n}", f"{baseline} {base}/{n_base}", p)


def test_mcts_detectives_beat_random_and_cal_and_match_mtd():
    rules, n, n_base = Classic5, 40, 240
    mcts = _mr_x_wins(rules, "mcd", "mcts", n, Budget(), Budget(playouts=1000), 900)
    base = {d: _mr_x_wins(rules, "mcd", d, n_base, Budget(), Budget(), 900)
            for d in ("random", "cal", "mtd")}
    for baseline in ("random", "cal"):
        # Mr X escapes the baseline detectives significantly more often than the MCTS ones
        p = fisher_one_sided(base[baseline], n_base, mcts, n)
        assert p < 0.05, (f"MCD escapes MCTS detectives {mcts}/{n}",
                          f"{baseline} {base[baseline]}/{n_base}", p)
    # MTD is close to what a long search plays; at 1,000 iterations MCTS is at least as good
    assert mcts / n <= base["mtd"] / n_base, (mcts, base)
    # and it wins the match against the heuristic Mr X: far more than half of the games
    assert binomial_upper_tail(n - mcts, n) < 0.01
