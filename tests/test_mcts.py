"""The Nijssen & Winands MCTS, one technique at a time (pure-Python kernel: no numba compile here;
the compiled path is checked against this one in test_playouts.py)."""

from __future__ import annotations

import math
import random
import time

import pytest

from scotlandyard import Game, Move, Rules, Ticket, london
from scotlandyard.ai import Budget, make_agent
from scotlandyard.ai.categorization import CATEGORIES, CategoryWeights, category, default_weights
from scotlandyard.ai.mcts import OPTION_NAMES, MCTSAgent, MCTSOptions, MCTSSearch, grown_horizon
from scotlandyard.kernel import _kernel as K
from scotlandyard.kernel import fast as F

PURE = {"fast": False}


def advance(game: Game, plies: int, seed: int = 0) -> Game:
    """Push ``plies`` random legal moves (no voluntary reveals), stopping at the end."""
    rng = random.Random(seed)
    for _ in range(plies):
        if game.is_over():
            break
        moves = [m for m in game.legal_moves() if not m.reveal]
        game.push(moves[rng.randrange(len(moves))])
    return game


def detective_position(seed: int = 3, plies: int = 7) -> Game:
    """A classic game with a detective to move and several possible locations."""
    g = advance(Game.new(Rules.classic(), seed=seed), plies, seed)
    while g.to_move == "X" or len(g.possible_locations()) < 3:
        g = advance(g, 1, seed)
    assert not g.is_over()
    return g


# ---- options ------------------------------------------------------------------------------------
def test_mcts_defaults_are_the_papers():
    o = MCTSOptions()
    assert (o.c, o.history_weight, o.coalition_reduction) == (0.5, 5.0, 0.1)
    assert (o.epsilon_mr_x, o.epsilon_detectives) == (0.1, 0.2)
    assert o.progressive_history and o.history_playouts and o.move_filter and o.categorization
    assert o.cal_target == "actual"
    # the paper's best configuration: one tree for every determinization
    assert (o.determinization, o.determinizations, o.vote) == ("single", 20, "visits")
    assert set(OPTION_NAMES) >= {"c", "progressive_history", "history_weight",
                                 "coalition_reduction", "epsilon_mr_x", "epsilon_detectives",
                                 "cal_target", "move_filter", "categorization", "fast"}


def test_nw_is_nijssen_winands_as_published_and_frozen():
    # every setting pinned here by value: changing NW_SETTINGS, the nw table or the kernel's
    # search code breaks this test on purpose
    import hashlib
    from importlib import resources

    from scotlandyard.ai.mcts import NW_OFF, NW_SETTINGS, NWAgent, kernel_source_hash

    assert NW_SETTINGS == {
        "c": 0.5, "progressive_history": True, "history_weight": 5.0,
        "history_playouts": True, "coalition_reduction": 0.1, "coalition": "root",
        "mr_x_reduction": False, "epsilon_mr_x": 0.1, "epsilon_detectives": 0.2,
        "model_epsilon": None, "cal_target": "actual", "model_playouts": "mtd",
        "move_filter": True, "double_filter": "except_own_playouts",
        "black_exemption": "boat_station", "categorization": True,
        "categorization_weights": "thesis", "roulette": "one_step",
        "belief": "categorization", "critical": False, "attach_double": True,
        "attach_budget": "shared", "mr_x_model": "open", "attach_model": "playouts",
        "horizon": 0, "horizon_step": 0,
        "info_weight": 0.0, "region_weight": 0.0, "determinization": "single",
        "determinizations": 20, "vote": "visits"}
    # every switch: the thesis's, and those added since the freeze, which nw keeps off
    assert NW_OFF == {"ticket_reserve": 0.0, "ticket_plan": "off", "mr_x_nodes": "move",
                      "keep_tree": False}
    assert set(NW_SETTINGS) | set(NW_OFF) == set(OPTION_NAMES) - {"fast", "playouts"}
    for side in ("mr_x", "detectives", None):
        agent = make_agent("nw", side=side, **PURE)
        assert isinstance(agent, NWAgent) and agent.name == "nw"
        o = agent.options
        assert {k: getattr(o, k) for k in NW_SETTINGS} == NW_SETTINGS
        assert {k: getattr(o, k) for k in NW_OFF} == NW_OFF
        assert o.playouts == 1000
    table = resources.files("scotlandyard").joinpath("data/categorization_thesis.json")
    assert hashlib.sha256(table.read_bytes()).hexdigest() == NW_TABLE_SHA256
    assert kernel_source_hash() == NW_KERNEL_SHA256
    with pytest.raises(ValueError, match="no option 'c'"):
        make_agent("nw", side="mr_x", c=1.0)
    with pytest.raises(ValueError, match="no option 'coalition_reduction'"):
        make_agent("nw", side="detectives", coalition_reduction=0.4)


def test_the_nw_before_2026_12_07_is_kept_as_its_own_agent():
    """``nw-2026-12-06``: ``nw`` with the hider paranoid in his own search and the attach rule
    only in his search's choice (the figures of sessions 7-14 were measured against it)."""
    from scotlandyard.ai.mcts import NW_2026_12_06, NW_OFF, NW_SETTINGS

    assert NW_2026_12_06 == {"mr_x_model": "paranoid", "attach_model": "off"}
    assert set(NW_2026_12_06) <= set(NW_SETTINGS)
    for side in ("mr_x", "detectives"):
        old = make_agent("nw-2026-12-06", side=side, **PURE)
        new = make_agent("nw", side=side, **PURE)
        assert old.name == "nw-2026-12-06" and new.name == "nw"
        changed = {k for k in {**NW_SETTINGS, **NW_OFF}
                   if getattr(old.options, k) != getattr(new.options, k)}
        assert changed == set(NW_2026_12_06)
        assert {k: getattr(old.options, k) for k in NW_2026_12_06} == NW_2026_12_06
    with pytest.raises(ValueError, match="no option 'c'"):
        make_agent("nw-2026-12-06", side="mr_x", c=1.0)


#: The nw table's file and the kernel's search code, pinned (see the test above).
NW_TABLE_SHA256 = "8e0d2ee2b52a6fd8fa6fc0e24342c6c1fa7970b1a60bf4302ff73c4ec2a6afa7"
NW_KERNEL_SHA256 = "4d29a1beb73122190d7bf66dacaa959991947bcc4a3c1c0b8c3f8a0c2f62c59c"


def test_kernel_source_hash_follows_the_functions_the_search_calls(monkeypatch):
    from scotlandyard.ai.mcts import kernel_source_hash

    before = kernel_source_hash()

    def choose_hunter(*args):  # a changed playout policy, reached from mcts_iterate
        return 0

    monkeypatch.setattr(K, "choose_hunter", choose_hunter)
    assert kernel_source_hash() != before
    monkeypatch.undo()
    monkeypatch.setattr(K, "REGION_REF", K.REGION_REF + 1)  # a constant it names
    assert kernel_source_hash() != before


def test_mcts_agent_is_the_best_settings_over_the_papers():
    from scotlandyard.ai.mcts import BEST_SETTINGS, FIRST_READING, NW_SETTINGS

    agent = make_agent("mcts", side="mr_x", **PURE)
    o = agent.options
    # mcts keeps this package's first reading where the thesis's nw differs
    assert FIRST_READING.items() <= BEST_SETTINGS.items()
    assert all(getattr(MCTSOptions(), k) == v for k, v in FIRST_READING.items())
    for k, v in {**NW_SETTINGS, **BEST_SETTINGS}.items():
        if k != "categorization_weights":
            assert getattr(o, k) == v, k
    assert o.categorization_weights is None
    # an option given wins over both
    assert make_agent("mcts", side="mr_x", mr_x_model="paranoid", **PURE).options.mr_x_model \
        == "paranoid"


@pytest.mark.parametrize("bad", [
    {"c": -1}, {"coalition_reduction": 1.5}, {"epsilon_mr_x": 2}, {"epsilon_detectives": -0.1},
    {"cal_target": "nowhere"}, {"move_filter": "yes"}, {"playouts": 0}, {"history_weight": math.nan},
    {"determinization": "both"}, {"determinizations": 0}, {"determinizations": 2.5},
    {"determinizations": True}, {"vote": "sum"}, {"horizon": -1}, {"horizon": 2.5},
    {"info_weight": 1.5}, {"horizon_step": -1}, {"horizon_step": 1.5}, {"horizon_step": True},
    {"region_weight": 1.5}, {"region_weight": -0.1}, {"model_epsilon": -0.1},
    {"model_epsilon": 2}, {"model_epsilon": "low"}, {"ticket_reserve": -0.1},
    {"ticket_reserve": 1.5}, {"ticket_reserve": "half"}, {"ticket_reserve": True},
    {"attach_model": "everywhere"}, {"attach_model": True}, {"mr_x_model": "closed"},
])
def test_mcts_rejects_bad_options_with_their_name(bad):
    name = next(iter(bad))
    with pytest.raises(ValueError, match=name):
        MCTSAgent(**bad)


def test_mcts_rejects_unknown_option_and_lists_the_known_ones():
    with pytest.raises(ValueError, match="unknown MCTS option.*coalition_reduction"):
        make_agent("mcts", side="detectives", colition=0.2)


# ---- progressive history -------------------------------------------------------------------------
def test_progressive_history_table_is_reset_for_every_real_move():
    game = Game.new(Rules.classic(), seed=5)
    agent = MCTSAgent(**PURE)
    rng = random.Random(1)
    for _ in range(3):
        view = game.view("X")
        agent.choose(view, view.legal_moves, rng, Budget(playouts=1))
        s = agent.last_search
        assert s is not None and s.iterations == 1
        # one iteration: the expanded move plus every playout move, nothing from earlier searches
        assert s.history_total() == 1 + s.playout_plies
        game.push(view.legal_moves[0])
        while game.to_move != "X":
            game.push(game.legal_moves()[0])


def test_progressive_history_table_holds_each_moves_results():
    view = detective_position().view("D1")
    s = MCTSSearch(view, MCTSOptions(history_playouts=False, **PURE), seed=4)
    s.run(60)
    piece = view.to_move
    for child in s.root_children():
        total, count = s.history(piece, child.move)
        # every iteration through a root child added that move once, with its result
        assert count == child.visits
        assert total == pytest.approx(child.value * child.visits)


def test_progressive_history_score_is_the_papers_formula():
    # v + C sqrt(ln n_p / n_i) + h * W / ((1 - v) n_i + 1)
    v, n_i, n_p, c, h, w = 0.6, 10, 50, 0.5, 0.8, 5.0
    expected = v + c * math.sqrt(math.log(n_p) / n_i) + h * w / ((1 - v) * n_i + 1)
    assert K.selection_score(v * n_i, n_i, math.log(n_p), c, h * 7, 7, w, True) == pytest.approx(expected)
    assert K.selection_score(v * n_i, n_i, math.log(n_p), c, h * 7, 7, w, False) == pytest.approx(
        v + c * math.sqrt(math.log(n_p) / n_i))
    # no history for the move yet: plain UCT
    assert K.selection_score(v * n_i, n_i, math.log(n_p), c, 0.0, 0, w, True) == pytest.approx(
        v + c * math.sqrt(math.log(n_p) / n_i))


def test_progressive_history_changes_the_search():
    view = detective_position().view("D1")
    runs = []
    for ph in (True, False):
        s = MCTSSearch(view, MCTSOptions(progressive_history=ph, **PURE), seed=11)
        s.run(150)
        runs.append([(c.move, c.visits) for c in s.root_children()])
    assert runs[0] != runs[1]


# ---- coalition reduction --------------------------------------------------------------------------
def _path_tree(moves: list[int]) -> tuple[list[int], list[float], list[int]]:
    tr = [0, -1, -1, -1, 0]
    tv = [0.0]
    path = [0]
    for i, code in enumerate(moves, start=1):
        tr += [code, i - 1, -1, -1, 0]
        tv.append(0.0)
        path.append(i)
    return tr, tv, path


@pytest.mark.parametrize("r", [0.1, 0.0, 0.35])
def test_coalition_reduction_backpropagates_one_minus_r_for_another_detectives_capture(r):
    d1 = K.encode(1, 0, 10, K.T_NONE, 0)
    d2 = K.encode(2, 0, 20, K.T_NONE, 0)
    x = K.encode(0, 1, 30, K.T_NONE, 0)
    tr, tv, path = _path_tree([d1, d2, x])
    K.backpropagate(tr, tv, path, 3, K.OUT_CAUGHT, 2, r, 0)  # D2 caught Mr X
    assert tv[1] == pytest.approx(1 - r)  # D1's move: another detective's capture
    assert tv[2] == pytest.approx(1.0)    # D2's move: its own capture
    assert tv[3] == 0.0                   # Mr X lost
    assert [tr[i * K.TR_W + K.TR_VIS] for i in range(4)] == [1, 1, 1, 1]
    K.backpropagate(tr, tv, path, 3, K.OUT_SURVIVED, 0, r, 0)
    assert (tv[1], tv[2], tv[3]) == pytest.approx((1 - r, 1.0, 1.0))


def test_coalition_reduction_police_count_as_other_hunters_and_cornering_is_a_full_win():
    assert K.reward(1, K.OUT_CAUGHT, 3, 0.1) == pytest.approx(0.9)  # P1 (piece 3) caught
    assert K.reward(3, K.OUT_CAUGHT, 3, 0.1) == 1.0
    assert K.reward(2, K.OUT_CORNERED, 0, 0.1) == 1.0
    assert K.reward(0, K.OUT_CORNERED, 0, 0.1) == 0.0
    assert K.reward(0, K.OUT_STUCK, 0, 0.1) == 1.0


def test_coalition_reduction_option_reaches_the_search():
    view = detective_position().view("D1")
    values = []
    for r in (0.0, 0.5):
        s = MCTSSearch(view, MCTSOptions(coalition_reduction=r, **PURE), seed=2)
        s.run(80)
        values.append(sum(c.value * c.visits for c in s.root_children()))
    # identical seeds: a larger reduction can only lower the detectives' backed-up results
    assert values[1] < values[0]


# ---- single-tree determinization --------------------------------------------------------------------
def test_determinization_only_follows_moves_consistent_with_the_drawn_station():
    rules = Rules.classic(detectives=1)  # below each D1 move comes Mr X's node
    game = advance(Game.new(rules, seed=8), 4, 8)
    while game.to_move != "D1" or len(game.possible_locations()) < 4:
        game = advance(game, 1, 9)
    view = game.view("D1")
    locs = sorted(view.possible)
    a, b = locs[0], locs[-1]
    only = {a: 0, b: 0}
    for weights in ({a: 1.0}, {a: 1.0, b: 1.0}):
        drawn = sorted(weights)
        s = MCTSSearch(view, MCTSOptions(**PURE), seed=1, weights=weights)
        s.run(200)
        mr_x_children = 0
        for d1_node, d1_code, _, _ in s.node_children(0):
            d1_move = F.decode(d1_code, rules)
            legal_from = {}
            for loc in drawn:
                g = Game.from_view(view, mr_x=loc)
                g.push(d1_move)
                legal_from[loc] = set(F.game_moves(g)) if not g.is_over() else set()
            for _, code, visits, _ in s.node_children(d1_node):
                m = F.decode(code, rules)
                mr_x_children += 1
                # every Mr X move in the tree is legal from a station that was drawn
                assert any(m in legal_from[loc] for loc in drawn)
                for loc in drawn:
                    if all((m in legal_from[o]) == (o == loc) for o in drawn):
                        only[loc] += visits
        assert mr_x_children > 0
    # both draws: Mr X's node holds the union of the moves from both stations
    assert only[a] > 0 and only[b] > 0


def test_single_tree_every_iteration_passes_the_root():
    view = detective_position().view("D1")
    s = MCTSSearch(view, MCTSOptions(**PURE), seed=6)
    s.run(90)
    assert s.iterations == 90
    assert sum(c.visits for c in s.root_children()) == 90
    assert s.nodes <= 91  # one node added per iteration at most


def test_determinization_draws_by_location_categorization():
    view = detective_position().view("D1")
    table = CategoryWeights((0.0001, 1.0, 1.0, 1.0, 1.0))
    s = MCTSSearch(view, MCTSOptions(categorization_weights=table, **PURE), seed=0)
    board = london("classic")
    hunters = [st for p, st in view.stations.items()]
    for loc, w in zip(s.locations, s.location_weights, strict=True):
        assert w == table.weights[category(loc, hunters, board)]
    off = MCTSSearch(view, MCTSOptions(categorization=False, **PURE), seed=0)
    assert set(off.location_weights) == {1.0}


def test_two_step_roulette_draws_a_category_by_its_weight_then_a_location_uniformly():
    view = detective_position().view("D1")
    table = CategoryWeights((0.1, 0.4, 0.3, 0.15, 0.05))
    board = london("classic")
    hunters = list(view.stations.values())
    cats = {x: category(x, hunters, board) for x in sorted(view.possible)}
    sizes = {c: sum(1 for k in cats.values() if k == c) for c in set(cats.values())}
    assert len(sizes) >= 2  # the position has possible locations of several categories
    s = MCTSSearch(view, MCTSOptions(categorization_weights=table, roulette="two_step",
                                     **PURE), seed=0)
    total = sum(s.location_weights)
    share = dict.fromkeys(sizes, 0.0)
    for loc, w in zip(s.locations, s.location_weights, strict=True):
        assert w == pytest.approx(table.weights[cats[loc]] / sizes[cats[loc]])
        share[cats[loc]] += w / total
    present = sum(table.weights[c] for c in sizes)
    for c in sizes:  # a category's chance is its weight among the categories present
        assert share[c] == pytest.approx(table.weights[c] / present)
    with pytest.raises(ValueError, match="roulette"):
        MCTSOptions(roulette="three_step")


# ---- separate trees --------------------------------------------------------------------------------
SEPARATE = {"determinization": "separate", **PURE}


def test_separate_trees_one_tree_per_determinization_with_the_budget_split_evenly():
    view = detective_position().view("D1")
    s = MCTSSearch(view, MCTSOptions(determinizations=5, **SEPARATE), seed=4,
                   root_moves=view.legal_moves)
    assert s.separate and len(s.determinizations) == 5
    assert set(s.determinizations) <= set(view.possible)
    s.run(103)
    assert [t.iterations for t in s.trees] == [21, 21, 21, 20, 20]
    assert [t.location for t in s.trees] == list(s.determinizations)
    assert s.iterations == 103
    # every iteration of every tree passes its root: the summed root visits are the budget
    assert sum(c.visits for c in s.root_children()) == 103
    assert s.nodes <= 103 + 5  # each tree: its root plus one node per iteration at most
    # each tree votes for its own most visited root move
    assert sum(s.tree_votes().values()) == 5
    assert {t.move for t in s.trees} == set(s.tree_votes())


def test_separate_trees_fewer_iterations_than_determinizations_make_fewer_trees():
    view = detective_position().view("D1")
    s = MCTSSearch(view, MCTSOptions(**SEPARATE), seed=1)
    s.run(3)
    assert [t.iterations for t in s.trees] == [1, 1, 1]
    assert [t.location for t in s.trees] == list(s.determinizations[:3])


def test_separate_trees_keep_mr_x_on_their_own_station_in_every_iteration():
    rules = Rules.classic(detectives=1)  # below each D1 move comes Mr X's node
    game = advance(Game.new(rules, seed=8), 4, 8)
    while game.to_move != "D1" or len(game.possible_locations()) < 4:
        game = advance(game, 1, 9)
    view = game.view("D1")
    locs = sorted(view.possible)
    a, b = locs[0], locs[-1]
    s = MCTSSearch(view, MCTSOptions(determinizations=2, **SEPARATE), seed=1,
                   weights={a: 1.0, b: 1.0})
    assert set(s.determinizations) == {a, b}  # both drawn (seed chosen so); nothing else
    own_only = 0
    for n in range(1, 3):
        s.run(300)  # a fresh round of trees, 150 iterations each; the last one is inspected
        station = s.trees[-1].location
        other = a if station == b else b
        for d1_node, d1_code, _, _ in s.node_children(0):
            legal = {}
            for loc in (station, other):
                g = Game.from_view(view, mr_x=loc)
                g.push(F.decode(d1_code, rules))
                legal[loc] = set(F.game_moves(g)) if not g.is_over() else set()
            for _, code, _, _ in s.node_children(d1_node):
                # the tree's Mr X moves are his moves from the tree's station only
                m = F.decode(code, rules)
                assert m in legal[station]
                own_only += m not in legal[other]
        assert len(s.trees) == 2 * n
    assert own_only > 0  # the two stations' moves differ: the check above has teeth
    assert {t.location for t in s.trees} == {a, b}


def test_separate_trees_draw_the_determinizations_by_the_weights():
    view = detective_position().view("D1")
    locs = sorted(view.possible)
    a, b = locs[0], locs[1]
    only = MCTSSearch(view, MCTSOptions(**SEPARATE), seed=3, weights={a: 1.0})
    assert only.determinizations == (a,) * 20
    s = MCTSSearch(view, MCTSOptions(determinizations=400, **SEPARATE), seed=3,
                   weights={a: 1.0, b: 3.0})
    assert set(s.determinizations) == {a, b}
    assert 240 <= s.determinizations.count(b) <= 360  # 3 in 4 expected: 300 +- 4.8 sd
    # location categorization (the default) weighs the draws as it weighs the single tree's
    table = CategoryWeights((0.0001, 1.0, 1.0, 1.0, 1.0))
    cat = MCTSSearch(view, MCTSOptions(categorization_weights=table, **SEPARATE), seed=0)
    board = london("classic")
    hunters = list(view.stations.values())
    assert cat.location_weights == tuple(table.weights[category(x, hunters, board)]
                                         for x in cat.locations)


def test_separate_trees_vote_by_summed_visits_or_by_majority():
    view = detective_position().view("D1")
    for seed in range(4):
        sums = MCTSSearch(view, MCTSOptions(determinizations=7, **SEPARATE), seed=seed)
        sums.run(140)
        kids = sums.root_children()
        assert sums.best_move() == kids[0].move
        assert kids[0].visits == max(c.visits for c in kids)
        vote = MCTSSearch(view, MCTSOptions(determinizations=7, vote="majority", **SEPARATE),
                          seed=seed)
        vote.run(140)
        # the same trees (same seed); only the choice differs
        assert vote.root_children() == kids
        votes = vote.tree_votes()
        assert votes[vote.best_move()] == max(votes.values())


def test_separate_trees_change_the_search_of_the_detectives_only():
    view = detective_position().view("D1")
    single = MCTSSearch(view, MCTSOptions(**PURE), seed=5)
    separate = MCTSSearch(view, MCTSOptions(**SEPARATE), seed=5)
    single.run(100)
    separate.run(100)
    assert single.trees == [] and len(separate.trees) == 20
    assert [(c.move, c.visits) for c in single.root_children()] != [
        (c.move, c.visits) for c in separate.root_children()]
    # Mr X knows his station: nothing to determinize, one tree, the very same search
    xview = Game.new(Rules.classic(), seed=5).view("X")
    runs = []
    for opts in (PURE, SEPARATE):
        s = MCTSSearch(xview, MCTSOptions(**opts), seed=5)
        s.run(60)
        assert not s.separate and s.trees == []
        runs.append(s.root_children())
    assert runs[0] == runs[1]


def test_separate_trees_respect_playout_and_time_budgets():
    view = detective_position().view("D1")
    agent = MCTSAgent(determinizations=4, **SEPARATE)
    agent.choose(view, view.legal_moves, random.Random(0), Budget(playouts=6, seconds=30))
    assert [t.iterations for t in agent.last_search.trees] == [2, 2, 1, 1]
    t0 = time.perf_counter()
    agent.choose(view, view.legal_moves, random.Random(0), Budget(seconds=1.0))
    elapsed = time.perf_counter() - t0
    s = agent.last_search
    assert elapsed < 1.0 + 0.5
    # each tree gets its share of the time left (about 0.25 s here), not all of it
    assert len(s.trees) == 4 and all(t.iterations >= 1 for t in s.trees)
    assert s.iterations == sum(t.iterations for t in s.trees)


def test_separate_trees_are_deterministic_and_play_legal_moves_free_order_included():
    view = detective_position().view("D1")
    picks = {MCTSAgent(**SEPARATE).choose(view, view.legal_moves, random.Random(9),
                                          Budget(playouts=60)) for _ in range(3)}
    assert len(picks) == 1
    for rules in (Rules.classic(), Rules.new_edition(3)):
        game = Game.new(rules, seed=4)
        agent = make_agent("mcts", side="detectives", determinizations=3, **SEPARATE)
        rng = random.Random(2)
        detective_moves = 0
        while detective_moves < 10 and not game.is_over():
            view = game.view(game.to_move)
            if view.side == "mr_x":
                move = view.legal_moves[rng.randrange(len(view.legal_moves))]
            else:
                move = agent.choose(view, view.legal_moves, rng, Budget(playouts=9))
                assert move in view.legal_moves
                if rules.free_order:
                    assert move.piece in game.pieces_to_move
                detective_moves += 1
            game.push(move)
        assert detective_moves >= 5


def test_shipped_categorization_table_is_learned_and_well_formed():
    table = default_weights()
    assert len(table.weights) == len(CATEGORIES)
    assert table.games >= 100 and sum(table.available) > 0
    # learned: Mr X is rarely right next to a detective
    assert table.weights[0] < max(table.weights[1:])


def test_learn_categorization_counts_every_detective_decision(tmp_path):
    from scotlandyard.ai.categorization.learn import learn_categorization, main

    table = learn_categorization(1, rules=Rules.classic(detectives=2), seed=3,
                                 mr_x_playouts=5, detective_playouts=5, fast=False)
    assert table.games == 1 and sum(table.hits) > 0
    assert all(a >= h for a, h in zip(table.available, table.hits, strict=True))
    out = tmp_path / "cat.json"
    assert main(["--games", "1", "--out", str(out), "--detectives", "1", "--mr-x-playouts", "3",
                 "--detective-playouts", "3", "--pure"]) == 0
    assert CategoryWeights.load(out).games == 1


# ---- move filtering ---------------------------------------------------------------------------------
def _expected_filter(view) -> tuple[bool, bool]:
    """(black allowed, doubles allowed) by the paper's rules, computed independently."""
    board = london(view.rules.board)
    slot = len(view.log) + 1
    possible = view.possible
    taxi_only = all(not any(board.neighbours[t][s] for t in (1, 2, 3)) for s in possible)
    black_ok = view.round > 2 and slot not in view.rules.reveal_slots and not taxi_only
    hunters = [p for p in view.rules.hunters]
    reach = set()
    for p in hunters:
        tk = view.tickets[p]
        for t, name in enumerate(("taxi", "bus", "underground")):
            if tk.get(name) is None or tk[name] > 0:
                reach.update(board.neighbours[t][view.stations[p]])
    singles = [m for m in view.legal_moves if not m.is_double and not m.reveal]
    danger = bool(singles) and all(m.to in reach for m in singles)
    return black_ok, danger


def test_move_filter_matches_the_papers_rules_in_many_positions():
    checked = blocked_black = allowed_black = doubles = 0
    for seed in range(24):
        rules = Rules.classic() if seed % 2 else Rules.new_edition(4)
        game = Game.new(rules, seed=seed)
        rng = random.Random(seed)
        while not game.is_over():
            view = game.view(game.to_move)
            if game.to_move == "X" and not view.pending_take:
                filtered = F.kernel_moves(view, move_filter=True)
                unfiltered = set(F.kernel_moves(view, move_filter=False))
                assert set(filtered) <= unfiltered
                black_ok, danger = _expected_filter(view)
                has_black = any(t == 3 for m in filtered for t, _ in m.steps)
                could_black = any(t == 3 for m in unfiltered for t, _ in m.steps)
                has_double = any(m.is_double for m in filtered)
                could_double = any(m.is_double for m in unfiltered)
                fallback = not any(not m.is_double and all(t != 3 for t, _ in m.steps)
                                   for m in unfiltered)
                if not fallback:
                    if could_black and not black_ok:
                        ferry = london(rules.board).neighbours[3][view.mr_x_station]
                        assert not any(m.ticket == 3 and m.to not in ferry
                                       for m in filtered if not m.is_double)
                        blocked_black += 1
                    if could_black and black_ok:
                        assert has_black
                        allowed_black += 1
                    assert has_double == (could_double and danger)
                    doubles += has_double
                checked += 1
            moves = [m for m in view.legal_moves if not m.reveal and not m.is_double]
            if game.to_move != "X" and rng.random() < 0.5:
                # hunters close in on Mr X (this test reads the truth) to make danger happen
                row = london(rules.board).distance_row(game.station("X"))
                moves.sort(key=lambda m: row[m.to] if m.to else 99)
                moves = moves[:1]
            game.push(moves[rng.randrange(len(moves))])
    assert checked > 100 and blocked_black > 10 and allowed_black > 10 and doubles > 0


def test_move_filter_no_black_ticket_in_the_first_two_rounds():
    game = Game.new(Rules.classic(), seed=1)
    view = game.view("X")
    assert any(m.ticket == 3 for m in F.kernel_moves(view, move_filter=False))
    assert not any(3 in (m.ticket, m.ticket2) for m in F.kernel_moves(view, move_filter=True))


def revealed_at(station: int) -> Game:
    """A classic game in round 4 with Mr X to move, revealed on ``station`` at slot 3 (so his
    possible locations are exactly that station)."""
    rules = Rules.classic()
    board = london("classic")
    other = board.neighbours[0][station][0]
    far = [s for s in board.all_stations
           if board.distance(s, station) >= 6 and board.distance(s, other) >= 6]
    step = len(far) // len(rules.hunters)
    start = {"X": other, **{p: far[step * i] for i, p in enumerate(rules.hunters)}}
    game = Game.new(rules, start=start)
    for step in (station, other, station):
        assert game.to_move == "X"
        game.push(Move.single(Ticket.TAXI, step))
        while game.to_move != "X":
            game.push(game.legal_moves()[0])
    return game


def test_move_filter_no_black_ticket_on_a_reveal_slot():
    game = revealed_at(13)
    game.pop()
    while game.to_move != "X":  # back to Mr X's third move: slot 3 reveals him
        game.pop()
    view = game.view("X")
    assert view.round == 3 and len(view.log) + 1 in view.rules.reveal_slots
    assert any(m.ticket == Ticket.BLACK for m in F.kernel_moves(view, move_filter=False))
    assert not any(m.ticket == Ticket.BLACK for m in F.kernel_moves(view, move_filter=True)
                   if not m.is_double)


@pytest.mark.parametrize("station,black", [
    (12, False),   # taxi links only: a black ticket would hide nothing
    (13, True),    # bus and underground stop: black hides which line
    (115, True),   # taxi and ferry: a ferry station is never "taxi only"
    (194, True),
])
def test_move_filter_black_ticket_only_where_it_hides_something(station, black):
    view = revealed_at(station).view("X")
    assert view.round == 4 and view.possible == frozenset({station})
    assert view.tickets["X"]["black"] > 0
    has_black = any(Ticket.BLACK in (m.ticket, m.ticket2) for m in
                    F.kernel_moves(view, move_filter=True))
    assert has_black == black
    assert any(m.ticket == Ticket.BLACK for m in F.kernel_moves(view, move_filter=False))


@pytest.mark.parametrize("hunter,danger", [(28, True), (100, False)])
def test_move_filter_double_moves_only_in_danger(hunter, danger):
    # Mr X on 5 can go to 15 or 16 only; a detective on 28 reaches both next round
    rules = Rules.classic(detectives=1)
    game = Game.new(rules, start={"X": 5, "D1": hunter})
    view = game.view("X")
    assert _expected_filter(view)[1] == danger
    assert any(m.is_double for m in F.kernel_moves(view, move_filter=False))
    assert any(m.is_double for m in F.kernel_moves(view, move_filter=True)) == danger


def reveal_on_12_in_danger() -> Game:
    """Round 4, Mr X to move, just revealed on 12 (taxi links only: to 3 and 23) with D1 on 22,
    which reaches both 3 (bus) and 23 (taxi): every single move of his is in danger."""
    rules = Rules.classic()
    start = {"X": 23, "D1": 34, "D2": 100, "D3": 140, "D4": 170, "D5": 190}
    game = Game.new(rules, start=start)
    d1 = iter((10, 11, 22))
    for x in (12, 3, 12):
        game.push(Move.single(Ticket.TAXI, x))
        game.push(Move.single(Ticket.TAXI, next(d1)))
        while game.to_move != "X":
            game.push(game.legal_moves()[0])
    assert game.round == 4 and game.station("D1") == 22
    return game


def test_move_filter_after_a_reveal_on_a_taxi_only_station_keeps_black_second_steps():
    # the bug: the taxi-only test of the possible locations *before* the move ({12}: taxi only)
    # was applied to the second step too, which removed every double move ending in black;
    # after a taxi to 3 or 23 Mr X may be on 3 or 23, both bus stops, so black hides the line
    view = reveal_on_12_in_danger().view("X")
    assert view.possible == frozenset({12}) and _expected_filter(view) == (False, True)
    filtered = F.kernel_moves(view, move_filter=True)
    doubles = [m for m in filtered if m.is_double]
    assert doubles
    assert not any(m.ticket == Ticket.BLACK for m in filtered)  # the first step hides nothing
    black_second = {m for m in doubles if m.ticket2 == Ticket.BLACK}
    unfiltered = set(F.kernel_moves(view, move_filter=False))
    expected = {m for m in unfiltered if m.is_double and m.ticket != Ticket.BLACK
                and m.ticket2 == Ticket.BLACK}
    assert black_second == expected and len(expected) >= 4


def test_move_filter_second_step_taxi_only_test_uses_the_locations_after_the_first_step():
    # checked independently: black on the second step is allowed exactly when some station
    # where the first step may have ended (the possible locations after it) has a non-taxi line
    board = london("classic")
    view = reveal_on_12_in_danger().view("X")
    occ = {view.stations[p] for p in view.rules.hunters}
    for m in F.kernel_moves(view, move_filter=False):
        if not m.is_double or m.ticket2 != Ticket.BLACK or m.ticket == Ticket.BLACK:
            continue
        after = {d for s in view.possible for d in board.neighbours[int(m.ticket)][s]} - occ
        hides = any(any(board.neighbours[t][s] for t in (1, 2, 3)) for s in after)
        assert (m in F.kernel_moves(view, move_filter=True)) == hides


def test_move_filter_ferry_exception_black_on_a_ferry_line_is_never_filtered():
    # rounds 1-2 forbid black tickets, except on a ferry line (only a black ticket takes it)
    board = london("classic")
    game = Game.new(Rules.classic(), start={"X": 194, "D1": 1, "D2": 20, "D3": 40,
                                             "D4": 60, "D5": 80})
    view = game.view("X")
    assert view.round == 1
    filtered = F.kernel_moves(view, move_filter=True)
    black = {m.to for m in filtered if m.ticket == Ticket.BLACK and not m.is_double}
    assert black == set(board.neighbours[3][194]) and black
    unfiltered = F.kernel_moves(view, move_filter=False)
    assert {m.to for m in unfiltered if m.ticket == Ticket.BLACK} > black


def _attach_view() -> tuple[Game, Move, Move]:
    """Mr X on 5 (taxi to 15 and 16) with D1 on 26, which reaches 15 but not 16: the single
    move to 15 is unsafe, the one to 16 safe, so the filter keeps double moves out."""
    rules = Rules.classic(detectives=1)
    game = Game.new(rules, start={"X": 5, "D1": 26})
    board = london("classic")
    reach = {d for t in range(3) for d in board.neighbours[t][26]}
    assert 15 in reach and 16 not in reach
    return game, Move.single(Ticket.TAXI, 15), Move.single(Ticket.TAXI, 16)


def test_attach_rule_turns_an_unsafe_chosen_move_into_a_double_move():
    game, unsafe, safe = _attach_view()
    view = game.view("X")
    assert not any(m.is_double for m in F.kernel_moves(view, move_filter=True))
    doubles = [m for m in view.legal_moves if m.is_double and m.steps[0] == (Ticket.TAXI, 15)]
    # the search may only choose the unsafe step at the root (the filter removes the doubles)
    offered = [unsafe, *doubles]
    for seed in range(3):
        agent = MCTSAgent(side="mr_x", **PURE)
        m = agent.choose(view, offered, random.Random(seed), Budget(playouts=60))
        assert m.is_double and m.steps[0] == (Ticket.TAXI, 15)
        assert agent.last_search is not None and agent.last_search.iterations == 30
        # no black ticket in round 1 on the second step either
        assert m.ticket2 != Ticket.BLACK
        off = MCTSAgent(side="mr_x", attach_double=False, **PURE)
        assert off.choose(view, offered, random.Random(seed), Budget(playouts=60)) == unsafe


def test_attach_rule_leaves_a_safe_chosen_move_alone():
    game, unsafe, safe = _attach_view()
    view = game.view("X")
    doubles = [m for m in view.legal_moves if m.is_double and m.steps[0] == (Ticket.TAXI, 16)]
    m = MCTSAgent(side="mr_x", **PURE).choose(view, [safe, *doubles], random.Random(1),
                                              Budget(playouts=60))
    assert m == safe


def test_public_mr_x_tree_holds_only_his_moves_and_paranoid_holds_the_detectives_too():
    game = advance(Game.new(Rules.classic(), seed=4), 11, 4)
    while game.to_move != "X":
        game = advance(game, 1, 4)
    view = game.view("X")

    def pieces(search: MCTSSearch) -> set[int]:
        seen, todo = set(), [0]
        while todo:
            node = todo.pop()
            for child, code, _, _ in search.node_children(node):
                seen.add(code >> 24)
                todo.append(child)
        return seen

    public = MCTSSearch(view, MCTSOptions(mr_x_model="public", **PURE), seed=3)
    public.run(150)
    paranoid = MCTSSearch(view, MCTSOptions(**PURE), seed=3)
    paranoid.run(150)
    assert pieces(public) == {0} and public.nodes > 30  # deeper than the root's children
    assert pieces(paranoid) > {0}
    # the public search's simulated detectives chase the possible locations, not his station
    assert public.options.policy_for("mr_x").cal_target == "possible"
    assert paranoid.options.policy_for("mr_x").cal_target == "actual"


def test_open_mr_x_tree_holds_only_his_moves_and_the_detectives_play_mtd_in_it():
    """``mr_x_model="open"`` (nw's, the thesis's 7.5): Mr X's tree holds his moves only; the
    detectives between them, in the tree as in the playouts, play MTD (towards his possible
    locations, never his true station) with ``model_playouts="mtd"``, else CAL."""
    game = advance(Game.new(Rules.classic(), seed=4), 11, 4)
    while game.to_move != "X":
        game = advance(game, 1, 4)
    view = game.view("X")
    search = MCTSSearch(view, MCTSOptions(mr_x_model="open", model_playouts="mtd", **PURE),
                        seed=3)
    search.run(150)
    seen, todo = set(), [0]
    while todo:
        for child, code, _, _ in search.node_children(todo.pop()):
            seen.add(code >> 24)
            todo.append(child)
    assert seen == {0} and search.nodes > 30
    assert search._pf[K.PF_OPEN] == 1 and search._pf[K.PF_TARGET] == 3
    cal = MCTSSearch(view, MCTSOptions(mr_x_model="open", model_playouts="cal", **PURE), seed=3)
    assert cal._pf[K.PF_OPEN] == 1 and cal._pf[K.PF_TARGET] == 0
    # no public target: the policy's own CAL target is left as it is (MTD replaces it)
    assert search.options.policy_for("mr_x").cal_target == "actual"


def test_hypothesis_target_walks_a_path_consistent_with_the_public_facts():
    game = detective_position()
    state = F.state_of_game(game)
    possible = sorted(game.possible_locations())
    assert len(possible) >= 3
    bd = F.board_table(game.rules.board)
    rng = [12345]

    def dist(a: int, b: int) -> int:
        return bd[K.BD_DIST + a * K.NS + b]

    first = K.hypothesis(state, bd, rng)  # none yet: one of the possible locations
    assert first in possible and state[K.ST_HYP] == first
    assert all(K.hypothesis(state, bd, rng) == first for _ in range(20))  # kept
    # ruled out (a detective stood there) before Mr X moves: the nearest possible location
    state[K.ST_BEL + first // K.BW] &= ~(1 << (first % K.BW))  # the possible set is a bitset
    rest = [s for s in possible if s != first]
    second = K.hypothesis(state, bd, rng)
    assert second in rest and dist(first, second) == min(dist(first, s) for s in rest)
    # Mr X moves twice (a double move): the ghost goes to a possible location at most two
    # moves away, every one of them in turn
    state[K.ST_NLOG] += 2
    within = {s for s in rest if dist(second, s) <= 2}
    seen = set()
    for _ in range(60):
        state[K.ST_HYP], state[K.ST_HYPLOG] = second, state[K.ST_NLOG] - 2
        seen.add(K.hypothesis(state, bd, rng))
    assert seen == within
    # after a reveal the possible set is one station: the hypothesis is the truth
    K.set_belief_single(state, 77)
    assert K.hypothesis(state, bd, rng) == 77


def test_hypothesis_mr_x_is_open_loop_with_detectives_on_one_public_hypothesis():
    game = advance(Game.new(Rules.classic(), seed=4), 11, 4)
    while game.to_move != "X":
        game = advance(game, 1, 4)
    search = MCTSSearch(game.view("X"), MCTSOptions(mr_x_model="hypothesis", **PURE), seed=3)
    search.run(120)
    assert all(code >> 24 == 0 for _, code, _, _ in search.node_children(0))
    assert search.options.policy_for("mr_x").cal_target == "hypothesis"
    assert search.options.policy_for("detectives").cal_target == "actual"


def test_playout_horizon_stops_after_that_many_mr_x_moves_with_him_to_move():
    game = Game.new(Rules.classic(), seed=5)
    kern = F.kernel(False)
    ru, bd = F.rules_table(game.rules), F.board_table(game.rules.board)
    for h in (1, 3):
        pa, pf = F._params(kern, F.PlayoutPolicy())
        pf[K.PF_HORIZON] = h
        for seed in range(6):
            st = F.state_of_game(game)
            moves = [0] * 400
            n = K.playout(st, ru, bd, pa, pf, [seed + 1], [0] * K.BUF_LEN, F._scratch(kern),
                          moves, 0)
            mr_x = sum(1 for c in moves[:n] if c >> 24 == 0)
            if st[K.ST_OUT] == K.OUT_NONE:  # stopped: h moves of his, his turn again
                assert mr_x == h and st[K.ST_TURN] == 0
            else:  # caught before the horizon
                assert mr_x <= h
    # horizon 0: to the end
    pa, pf = F._params(kern, F.PlayoutPolicy())
    st = F.state_of_game(game)
    K.playout(st, ru, bd, pa, pf, [7], [0] * K.BUF_LEN, F._scratch(kern), [0] * 400, 0)
    assert st[K.ST_OUT] != K.OUT_NONE


def test_leaf_value_information_term_rises_with_the_possible_set():
    game = detective_position()
    st = F.state_of_game(game)
    K.set_belief_single(st, 77)  # just revealed: the detectives know his station
    assert K.leaf_value(st, 0.0) == 1.0  # no information term: not caught is a win
    assert K.leaf_value(st, 0.4) == pytest.approx(0.6)
    values = []
    for n in (2, 8, K.INFO_REF, 60):
        for w in range(K.NW):
            st[K.ST_BEL + w] = 0
        for s in range(1, n + 1):
            st[K.ST_BEL + s // K.BW] |= 1 << (s % K.BW)
        assert K.bel_count(st) == n
        values.append(K.leaf_value(st, 0.4))
    assert values[0] == pytest.approx(0.6 + 0.4 * math.log(2) / math.log(K.INFO_REF))
    assert values[0] < values[1] < values[2] == values[3] == 1.0


def test_region_size_counts_the_stations_mr_x_reaches_before_every_hunter():
    board = london("classic")
    game = detective_position()
    st = F.state_of_game(game)
    bd = F.board_table(game.rules.board)
    x = game.station("X")
    hunters = [game.station(p) for p in game.pieces if p != "X"]
    want = sum(1 for s in board.all_stations
               if board.distance(x, s) < min(board.distance(h, s) for h in hunters))
    assert K.region_size(st, bd) == want > 0
    # in the top-left corner with hunters on its way out, his room is a handful of stations
    st[K.ST_POS] = 2
    for i, h in enumerate((10, 20, 1, 100, 150), start=1):
        st[K.ST_POS + i] = h
    assert K.region_size(st, bd) == 1  # his own station: 2's only neighbours are 10 and 20
    st[K.ST_POS + 2] = 33
    assert K.region_size(st, bd) == sum(
        1 for s in board.all_stations
        if board.distance(2, s) < min(board.distance(h, s) for h in (10, 33, 1, 100, 150)))


def test_region_value_takes_off_the_weight_times_the_missing_room():
    game = detective_position()
    st = F.state_of_game(game)
    bd = F.board_table(game.rules.board)
    n = K.region_size(st, bd)
    assert K.region_value(st, bd, 0.8, 0.0) == 0.8  # no weight: the leaf value as it was
    assert K.region_value(st, bd, 1.0, 0.5) == pytest.approx(
        1.0 - 0.5 * (1.0 - min(1.0, n / K.REGION_REF)))
    st[K.ST_POS] = 2
    for i, h in enumerate((10, 20, 1, 100, 150), start=1):
        st[K.ST_POS + i] = h
    assert K.region_value(st, bd, 1.0, 0.5) == pytest.approx(1.0 - 0.5 * (1 - 1 / K.REGION_REF))
    assert K.region_value(st, bd, 0.3, 0.5) == 0.0                 # never below 0


def test_region_weight_lowers_mr_x_leaf_values_and_leaves_the_detectives_search_alone():
    rules = Rules.classic()
    start = {"X": 9, "D1": 1, "D2": 33, "D3": 46, "D4": 100, "D5": 150}
    view = Game(rules, start).view("X")
    values = []
    for w in (0.0, 0.5):
        s = MCTSSearch(view, MCTSOptions(mr_x_model="public", horizon=1, region_weight=w,
                                         **PURE), seed=5)
        s.run(120)
        kids = s.root_children()
        values.append(sum(c.value * c.visits for c in kids) / sum(c.visits for c in kids))
    assert values[1] < values[0] - 0.1
    det = detective_position().view("D1")
    runs = []
    for w in (0.0, 1.0):
        s = MCTSSearch(det, MCTSOptions(horizon=1, region_weight=w, **PURE), seed=3)
        s.run(60)
        runs.append(s.root_children())
    assert runs[0] == runs[1]


def test_model_epsilon_is_the_epsilon_of_the_detectives_in_mr_x_public_search_only():
    o = MCTSOptions(mr_x_model="public", model_epsilon=0.05)
    assert o.policy_for("mr_x").epsilon_detectives == 0.05
    assert o.policy_for("detectives").epsilon_detectives == 0.2  # their own search keeps theirs
    assert MCTSOptions(mr_x_model="public").policy_for("mr_x").epsilon_detectives == 0.2
    assert MCTSOptions(model_epsilon=0.05).policy_for("mr_x").epsilon_detectives == 0.2  # paranoid
    game = advance(Game.new(Rules.classic(), seed=4), 11, 4)
    while game.to_move != "X":
        game = advance(game, 1, 4)
    view = game.view("X")
    runs = []
    for opts in ({"model_epsilon": 0.0}, {"epsilon_detectives": 0.0}, {}):
        s = MCTSSearch(view, MCTSOptions(mr_x_model="public", horizon=3, **opts, **PURE), seed=3)
        s.run(150)
        runs.append((s.root_children(), s.playout_plies))
    assert runs[0] == runs[1] != runs[2]


def test_horizon_search_backs_up_leaf_values_for_mr_x_and_their_complement_for_hunters():
    d1 = K.encode(1, 0, 10, K.T_NONE, 0)
    x = K.encode(0, 1, 30, K.T_NONE, 0)
    tr, tv, path = _path_tree([x, d1])
    K.backpropagate_value(tr, tv, path, 2, 0.7)
    assert tv[1] == pytest.approx(0.7) and tv[2] == pytest.approx(0.3)
    assert [tr[i * K.TR_W + K.TR_VIS] for i in range(3)] == [1, 1, 1]
    game = advance(Game.new(Rules.classic(), seed=4), 11, 4)
    while game.to_move != "X":
        game = advance(game, 1, 4)
    view = game.view("X")
    short = MCTSSearch(view, MCTSOptions(mr_x_model="public", horizon=1, **PURE), seed=3)
    short.run(80)
    full = MCTSSearch(view, MCTSOptions(mr_x_model="public", **PURE), seed=3)
    full.run(80)
    # stopped playouts are short, and a stop he survives is worth more than a lost game
    assert short.playout_plies < full.playout_plies / 3
    assert short.iterations == full.iterations == 80
    # the horizon belongs to Mr X's search: the detectives' playouts still run to the end
    det = detective_position().view("D1")
    a = MCTSSearch(det, MCTSOptions(horizon=1, **PURE), seed=3)
    b = MCTSSearch(det, MCTSOptions(**PURE), seed=3)
    a.run(40)
    b.run(40)
    assert a.playout_plies == b.playout_plies


def test_horizon_grows_by_one_for_every_factor_of_four_in_the_iterations():
    o = MCTSOptions(horizon=3, horizon_step=4000)
    grown = {n: grown_horizon(o, Budget(playouts=n))
             for n in (1, 1000, 4000, 15999, 16000, 20000, 63999, 64000, 256000)}
    assert grown == {1: 3, 1000: 3, 4000: 3, 15999: 3, 16000: 4, 20000: 4, 63999: 4,
                     64000: 5, 256000: 6}
    assert grown_horizon(o, Budget(playouts=20000, seconds=1.0)) == 4  # the iterations count
    assert grown_horizon(o, Budget(seconds=10.0)) == 3                  # unknown iterations
    assert grown_horizon(MCTSOptions(horizon=3, horizon_step=250), Budget()) == 4  # 1000
    assert grown_horizon(MCTSOptions(horizon=3), Budget(playouts=10**6)) == 3   # no step
    assert grown_horizon(MCTSOptions(horizon_step=10), Budget(playouts=10**6)) == 0  # to the end
    # the agent's Mr X searches with the grown horizon; its detectives have none
    game = Game.new(Rules.classic(), seed=2)
    agent = MCTSAgent(mr_x_model="public", horizon=1, horizon_step=10, **PURE)
    agent.choose(game.view("X"), game.view("X").legal_moves, random.Random(0),
                 Budget(playouts=160))
    assert agent.last_search is not None and agent.last_search.options.horizon == 3
    assert agent.options.horizon == 1  # the agent's own options are not changed


def test_mr_x_agent_respects_move_filter_at_the_root():
    game = Game.new(Rules.classic(), seed=2)
    view = game.view("X")
    for seed in range(3):
        m = MCTSAgent(**PURE).choose(view, view.legal_moves, random.Random(seed),
                                     Budget(playouts=40))
        assert not m.is_double and m.ticket != 3


# ---- budget, determinism, legality -------------------------------------------------------------------
def test_mcts_runs_exactly_the_playout_budget():
    view = detective_position().view("D1")
    agent = MCTSAgent(**PURE)
    agent.choose(view, view.legal_moves, random.Random(0), Budget(playouts=37))
    assert agent.last_search.iterations == 37


def test_mcts_respects_a_time_budget():
    view = detective_position().view("D1")
    agent = MCTSAgent(**PURE)
    t0 = time.perf_counter()
    agent.choose(view, view.legal_moves, random.Random(0), Budget(seconds=0.25))
    elapsed = time.perf_counter() - t0
    assert agent.last_search.iterations >= 1
    # a time budget alone sets no iteration limit: only the clock stops this search (the
    # margin is for a machine busy with other work)
    assert elapsed < 0.25 + 1.5


def test_mcts_time_and_playout_budgets_whichever_ends_first():
    view = detective_position().view("D1")
    agent = MCTSAgent(**PURE)
    agent.choose(view, view.legal_moves, random.Random(0), Budget(playouts=5, seconds=30))
    assert agent.last_search.iterations == 5


def test_mcts_is_deterministic_with_a_seed():
    view = detective_position().view("D1")
    picks = {MCTSAgent(**PURE).choose(view, view.legal_moves, random.Random(9),
                                      Budget(playouts=60)) for _ in range(3)}
    assert len(picks) == 1


@pytest.mark.parametrize("rules", [Rules.new_edition(2), Rules.new_edition_two_players(),
                                   Rules.classic_two_players()], ids=str)
def test_mcts_plays_legal_moves_in_every_edition_free_order_included(rules):
    game = Game.new(rules, seed=12)
    agent = MCTSAgent(**PURE)
    rng = random.Random(3)
    for _ in range(14):
        if game.is_over():
            break
        view = game.view(game.to_move)
        move = agent.choose(view, view.legal_moves, rng, Budget(playouts=12))
        assert move in view.legal_moves
        if rules.free_order and view.side == "detectives":
            assert move.piece in game.pieces_to_move
        game.push(move)


def test_mcts_chooses_among_the_moves_it_is_offered():
    # free order: a caller (a seat of the web app) may offer one piece's moves only
    game = Game.new(Rules.new_edition(3), seed=5)
    game.push(next(m for m in game.legal_moves() if not m.is_double))
    view = game.view("D1")
    for piece in view.pieces_to_move:
        offered = [m for m in view.legal_moves if m.piece == piece]
        for seed in range(2):
            move = MCTSAgent(**PURE).choose(view, offered, random.Random(seed), Budget(playouts=30))
            assert move in offered


def test_mcts_with_a_pending_take_in_the_voluntary_reveal_variant():
    rules = Rules.classic(extra_reveal=True)
    game = Game.new(rules, seed=3)
    reveal = next(m for m in game.legal_moves() if m.reveal)
    game.push(reveal)
    view = game.view("X")
    assert view.pending_take
    move = MCTSAgent(**PURE).choose(view, view.legal_moves, random.Random(0), Budget(playouts=10))
    assert move.is_take and move in view.legal_moves


def test_fast_option_falls_back_to_pure_python_without_numba(monkeypatch):
    monkeypatch.setattr(F, "numba_available", lambda: False)
    with pytest.warns(RuntimeWarning, match="numba is not installed"):
        kern = F.kernel(True)
    assert not kern.fast


# ---- the thesis's switches of nw (Nijssen's thesis, ch. 7; docs/ai.md) ------------------------
def _kernel_filtered(view, filt: int) -> list[Move]:
    """The kernel's Mr X moves in ``view`` under the filter bits ``filt``."""
    game = Game.from_view(view)
    st = F.state_of_game(game, view.pending_take)
    buf = [0] * K.BUF_LEN
    n = K.gen_moves(st, F.rules_table(game.rules), F.board_table(game.rules.board), filt, buf,
                    [0] * K.SC_LEN)
    return [F.decode(c, game.rules) for c in buf[:n]]


def test_black_exemption_boat_station_keeps_every_black_step_from_a_boat_station():
    # round 1 forbids black; the first reading exempts only the ferry lines, the thesis every
    # black step from a boat station (194 is one)
    board = london("classic")
    game = Game.new(Rules.classic(), start={"X": 194, "D1": 1, "D2": 20, "D3": 40,
                                             "D4": 60, "D5": 80})
    view = game.view("X")
    black = {m.to for m in view.legal_moves if m.ticket == Ticket.BLACK and not m.is_double}
    ferry = set(board.neighbours[3][194])
    assert ferry and black > ferry
    line = {m.to for m in _kernel_filtered(view, K.FILT_ON)
            if m.ticket == Ticket.BLACK and not m.is_double}
    boat = {m.to for m in _kernel_filtered(view, K.FILT_ON | K.FILT_BOAT)
            if m.ticket == Ticket.BLACK and not m.is_double}
    assert line == ferry and boat == black
    # not at a boat station: no black step in round 1 either way
    other = Game.new(Rules.classic(), start={"X": 13, "D1": 1, "D2": 20, "D3": 40,
                                              "D4": 60, "D5": 80}).view("X")
    assert not board.neighbours[3][13]
    assert not any(m.ticket == Ticket.BLACK
                   for m in _kernel_filtered(other, K.FILT_ON | K.FILT_BOAT))


def test_double_filter_settings_say_which_searches_test_double_moves():
    game, unsafe, safe = _attach_view()
    view = game.view("X")
    assert not any(m.is_double for m in _kernel_filtered(view, K.FILT_ON))
    nodbl = _kernel_filtered(view, K.FILT_ON | K.FILT_NODOUBLE)
    assert any(m.is_double for m in nodbl)
    det = detective_position().view("D1")
    on, boat, off = K.FILT_ON, K.FILT_BOAT, K.FILT_NODOUBLE

    def flags(v, **opts):
        opts = {"attach_model": "off", **opts}
        s = MCTSSearch(v, MCTSOptions(**{**_nw(), **PURE, **opts}), seed=1)
        return s._pf[K.PF_FILT], s._pf[K.PF_PFILT]

    # nw ("except_own_playouts"): Mr X's tree keeps the test, his own playouts do not; the
    # detectives' search models the hider with it, in its tree and its playouts
    assert flags(view) == (on | boat, on | boat | off)
    assert flags(det) == (on | boat, on | boat)
    # nw's attach rule wherever a search plays the hider ("playouts"): every playout filter;
    # "search" adds the detectives' tree; "off" none
    att = K.FILT_ATTACH
    assert flags(view, attach_model="playouts") == (on | boat, on | boat | off | att)
    assert flags(det, attach_model="playouts") == (on | boat, on | boat | att)
    assert flags(view, attach_model="search") == (on | boat, on | boat | off | att)
    assert flags(det, attach_model="search") == (on | boat | att, on | boat | att)
    # "seekers": the detectives' playouts only; Mr X's own search as with "off"
    assert flags(view, attach_model="seekers") == flags(view, attach_model="off")
    assert flags(det, attach_model="seekers") == (on | boat, on | boat | att)
    assert flags(det, attach_model="playouts", attach_double=False) == (on | boat, on | boat)
    assert _nw()["attach_model"] == "playouts"
    # "own_tree": only Mr X's own tree tests double moves
    assert flags(view, double_filter="own_tree") == (on | boat, on | boat | off)
    assert flags(det, double_filter="own_tree") == (on | boat | off, on | boat | off)
    # "everywhere" (mcts's reading): every search, tree and playouts
    assert flags(view, double_filter="everywhere") == (on | boat, on | boat)
    assert flags(det, double_filter="everywhere") == (on | boat, on | boat)
    first = MCTSSearch(view, MCTSOptions(**PURE), seed=1)
    assert (first._pf[K.PF_FILT], first._pf[K.PF_PFILT]) == (K.FILT_ON, K.FILT_ON)


def _nw() -> dict:
    from scotlandyard.ai.mcts import NW_SETTINGS
    return dict(NW_SETTINGS)


def test_mtd_playout_target_moves_the_hunter_to_the_least_total_distance():
    board = london("classic")
    game = detective_position()
    view = game.view(game.to_move)
    g = Game.from_view(view, mr_x=sorted(view.possible)[0])
    st = F.state_of_game(g, None)
    bd = F.board_table(g.rules.board)
    ru = F.rules_table(g.rules)
    possible = [s for s in range(1, K.NS) if K.bel_has(st, s)]
    assert set(possible) == set(view.possible) and len(possible) >= 3
    piece = st[K.ST_TURN]
    buf = [0] * K.BUF_LEN
    n = K.gen_hunter(st, bd, piece, buf, 0, 1)
    dests = {(buf[j] >> 12) & 255 for j in range(n)}

    def total(d: int) -> int:
        return sum(board.distance_row(d)[e] for e in possible)

    best = min(total(d) for d in dests)
    chosen = set()
    for seed in range(20):
        code = K.choose_hunter(st, ru, bd, 0.0, 3, [seed + 1], buf)
        chosen.add((code >> 12) & 255)
    assert chosen and all(total(d) == best for d in chosen)
    assert chosen == {d for d in dests if total(d) == best}  # ties at random, every one
    # in nw's search Mr X's simulated detectives play MTD (target mode 3), mcts's CAL
    mr_x_view = advance(Game.new(Rules.classic(), seed=5), 6, 5)
    while mr_x_view.to_move != "X":
        mr_x_view = advance(mr_x_view, 1, 5)
    xv = mr_x_view.view("X")
    assert MCTSSearch(xv, MCTSOptions(**{**_nw(), **PURE}))._pf[K.PF_TARGET] == 3
    assert MCTSSearch(xv, MCTSOptions(**PURE))._pf[K.PF_TARGET] == 0


def test_coalition_root_scores_every_hunter_node_from_the_root_hunters_side():
    # a path root -> D1's move -> X's move -> D2's move; D2 or D1 catches Mr X
    tr = [-1] * (4 * K.TR_W)
    tv = [0.0] * 4
    for node, piece in ((1, 1), (2, 0), (3, 2)):
        tr[node * K.TR_W + K.TR_MOVE] = piece << 24
        tr[node * K.TR_W + K.TR_VIS] = 0
    tr[K.TR_VIS] = 0
    path = [0, 1, 2, 3]
    r = 0.1
    K.backpropagate(tr, tv, path, 3, K.OUT_CAUGHT, 2, r, 0)  # per piece: D2 caught him
    assert tv == [0.0, 1.0 - r, 0.0, 1.0]
    tv[:] = [0.0] * 4
    K.backpropagate(tr, tv, path, 3, K.OUT_CAUGHT, 2, r, 1)  # the root hunter D1's side
    assert tv == [0.0, 1.0 - r, 0.0, 1.0 - r]
    tv[:] = [0.0] * 4
    K.backpropagate(tr, tv, path, 3, K.OUT_CAUGHT, 1, r, 1)
    assert tv == [0.0, 1.0, 0.0, 1.0]
    # the searches' flags: nw's detectives score from the root's side, r only in their search
    nw = MCTSOptions(**{**_nw(), **PURE})
    dv = detective_position().view("D1")
    d = MCTSSearch(dv, nw, seed=1)
    assert d._pf[K.PF_COAL] == 1 and d._pa[K.PA_R] == pytest.approx(0.1)
    game, _, _ = _attach_view()
    x = MCTSSearch(game.view("X"), nw, seed=1)
    assert x._pf[K.PF_COAL] == 0 and x._pa[K.PA_R] == 0.0
    first = MCTSSearch(dv, MCTSOptions(**PURE), seed=1)
    assert first._pf[K.PF_COAL] == 0
    assert MCTSSearch(game.view("X"), MCTSOptions(**PURE), seed=1)._pa[K.PA_R] == \
        pytest.approx(0.1)


def test_attach_budget_shared_spends_exactly_the_budget():
    game, unsafe, safe = _attach_view()
    view = game.view("X")
    doubles = [m for m in view.legal_moves if m.is_double and m.steps[0] == (Ticket.TAXI, 15)]
    offered = [unsafe, *doubles]
    for seed in range(3):
        extra = MCTSAgent(side="mr_x", **PURE)
        m = extra.choose(view, offered, random.Random(seed), Budget(playouts=60))
        assert m.is_double and extra.last_iterations == 90  # the first reading: 1.5x
        shared = MCTSAgent(side="mr_x", attach_budget="shared", **PURE)
        m = shared.choose(view, offered, random.Random(seed), Budget(playouts=60))
        assert m.is_double and m.steps[0] == (Ticket.TAXI, 15)
        assert shared.last_iterations == 60
        assert shared.last_search is not None and shared.last_search.iterations == 20
    # a safe move: the first search goes on to the whole budget and no double is attached
    safe_doubles = [m for m in view.legal_moves if m.is_double and m.steps[0] == (Ticket.TAXI, 16)]
    shared = MCTSAgent(side="mr_x", attach_budget="shared", **PURE)
    assert shared.choose(view, [safe, *safe_doubles], random.Random(1),
                         Budget(playouts=60)) == safe
    assert shared.last_iterations == 60


def test_categorization_presence_estimate_is_how_often_a_held_category_held_the_truth():
    t = CategoryWeights.from_counts([9, 49, 29, 9, 4], [900, 1000, 800, 400, 300],
                                    estimate="presence", present=[20, 98, 90, 48, 38])
    assert t.weights == pytest.approx((10 / 22, 50 / 100, 30 / 92, 10 / 50, 5 / 40))
    assert t.meta["estimate"] == "presence"
    again = CategoryWeights.from_dict(t.to_dict())
    assert again.present == (20, 98, 90, 48, 38) and again.weights == pytest.approx(t.weights, abs=1e-6)
    with pytest.raises(ValueError, match="present counts"):
        CategoryWeights.from_counts([1] * 5, [9] * 5, estimate="presence")
    with pytest.raises(ValueError, match="more often"):
        CategoryWeights.from_counts([5, 1, 1, 1, 1], [9] * 5, estimate="presence",
                                    present=[4, 9, 9, 9, 9])


def test_learning_counts_each_held_category_once_per_decision():
    from scotlandyard.ai.categorization.learn import learn_categorization

    t = learn_categorization(1, seed=3, mr_x_playouts=20, detective_playouts=10,
                             estimate="presence")
    decisions = sum(t.hits)  # one true location a decision
    assert decisions > 0
    assert all(h <= n <= decisions for h, n in zip(t.hits, t.present, strict=True))
    assert all(n <= a for n, a in zip(t.present, t.available, strict=True))
    assert sum(t.present) > decisions  # more than one possible location each time


def test_categorization_frequency_estimate_is_the_share_of_the_true_locations_categories():
    from scotlandyard.ai.categorization import resolve_weights, thesis_weights

    t = CategoryWeights.from_counts([9, 49, 29, 9, 4], [900, 1000, 800, 400, 300],
                                    estimate="frequency")
    assert t.weights == pytest.approx(tuple(x / 105 for x in (10, 50, 30, 10, 5)))  # add one
    assert t.meta["estimate"] == "frequency"
    ratio = CategoryWeights.from_counts([9, 49, 29, 9, 4], [900, 1000, 800, 400, 300])
    assert ratio.weights[1] == pytest.approx(50 / 1002)
    with pytest.raises(ValueError, match="estimate"):
        CategoryWeights.from_counts([1] * 5, [1] * 5, estimate="odds")
    shipped = thesis_weights()
    assert resolve_weights("thesis") is shipped
    assert shipped.meta["estimate"] == "frequency"
    assert sum(shipped.weights) == pytest.approx(1.0, abs=1e-5)
    assert shipped.weights == pytest.approx(CategoryWeights.from_counts(
        shipped.hits, shipped.available, estimate="frequency").weights, abs=1e-6)


def _last_detective_position() -> Game:
    """A classic game with its last detective to move (Mr X's node is the root's grandchild),
    several possible locations and Mr X's next log slot hidden."""
    g = Game.new(Rules.classic(detectives=5), seed=3)
    rng = random.Random(1)
    while not (g.to_move == "D5" and g.round >= 9):
        g.push(rng.choice(g.legal_moves()))
    assert not g.is_over() and len(g.possible_locations()) > 3
    return g


def test_seen_key_hides_mr_x_stations_except_on_a_reveal_slot():
    ru = F.rules_table(Rules.classic())
    taxi_to_57 = K.encode(0, 0, 57, K.T_NONE, 0)
    # slot 6 is hidden: the detectives see the taxi, not the station
    assert K.seen_key(taxi_to_57, 5, ru) == K.encode(0, 0, 0, K.T_NONE, 0)
    # slot 8 is a reveal (R-REVEAL): the station is seen
    assert K.seen_key(taxi_to_57, 7, ru) == taxi_to_57
    double = K.encode(0, 1, 58, 0, 57)
    assert K.seen_key(double, 5, ru) == K.encode(0, 1, 0, 0, 0)
    # a double move whose second step lands on the reveal slot 8 shows that step's station
    assert K.seen_key(double, 6, ru) == K.encode(0, 1, 0, 0, 57)


def test_mr_x_nodes_seen_holds_what_the_detectives_see_in_their_tree():
    game = _last_detective_position()
    view = game.view("D5")
    layers = {}
    for mode in ("move", "seen"):
        roots = []
        for fast in (False, True):
            s = MCTSSearch(view, MCTSOptions(**{**_nw(), "mr_x_nodes": mode, "fast": fast}),
                           seed=5)
            s.run(600)
            roots.append([(c.move, c.visits) for c in s.root_children()])
            kids = [code for child, *_ in s.node_children(0)
                    for _, code, _, _ in s.node_children(child)]
        assert roots[0] == roots[1]  # the compiled and the plain-Python search agree
        assert kids and all(code >> 24 == 0 for code in kids)  # Mr X's layer
        layers[mode] = kids
    # his moves: stations; what the detectives see: the tickets only, a few of them
    assert all((code >> 12) & 255 for code in layers["move"])
    assert all((code >> 12) & 255 == 0 and code & 255 == 0 for code in layers["seen"])
    tickets = {(c >> 20) & 15 for c in layers["seen"] if (c >> 8) & 15 == K.T_NONE}
    assert len(layers["seen"]) < len(layers["move"]) and tickets <= {0, 1, 2, 3}
    # Mr X's own search knows his station: the switch is the detectives' only
    mr_x = Game.new(Rules.classic(), seed=1).view("X")
    assert MCTSSearch(mr_x, MCTSOptions(mr_x_nodes="seen", **PURE), seed=1)._pf[K.PF_XNODE] == 0
    with pytest.raises(ValueError, match="mr_x_nodes"):
        MCTSOptions(mr_x_nodes="tickets")


# ---- keep_tree: a detective's search goes on in the subtree its teammate left -------------------
def test_adopt_takes_the_subtree_of_a_node_with_every_count_and_result():
    game = detective_position()
    view = game.view(game.to_move)
    opts = MCTSOptions(fast=False)
    first = MCTSSearch(view, opts, seed=4)
    first.run(150)
    tree = first._tree
    assert tree is not None
    node, code, visits, value = max(tree.children(0), key=lambda c: c[2])
    assert visits > 1
    second = MCTSSearch(view, opts, seed=5, reuse=(tree, node))
    adopted = second._tree
    assert adopted is not None and adopted.iterations == 0
    assert int(adopted.tr[K.TR_VIS]) == visits and adopted.tr[K.TR_PARENT] == -1

    def walk(t, n):  # the subtree as nested (move, visits, value) lists
        return sorted((c, v, round(x, 9), walk(t, k)) for k, c, v, x in t.children(n))

    assert walk(adopted, 0) == walk(tree, node)
    assert adopted.nodes == _count(tree, node)
    second.run(50)  # and searches on from there
    assert int(adopted.tr[K.TR_VIS]) == visits + 50 and second.iterations == 50


def _count(tree, node: int) -> int:
    return 1 + sum(_count(tree, k) for k, _, _, _ in tree.children(node))


def test_keep_tree_drops_the_kept_root_moves_not_offered_and_keeps_the_rest():
    """A kept subtree whose root has a child the caller does not offer now (a ticket
    reserve's root, one piece's moves) is adopted without that child and its subtree (the
    search could otherwise pick it), its visits taken off the root's; the rest is kept."""
    game = Game.new(Rules.classic(), seed=8)
    game.push(next(m for m in game.legal_moves() if not m.is_double and m.ticket != Ticket.BLACK))
    opts = MCTSOptions(fast=False)
    first = MCTSSearch(game.view("D1"), opts, seed=3)
    first.run(400)
    tree = first._tree
    assert tree is not None
    node, code, root_visits, _ = max(tree.children(0), key=lambda c: c[2])
    game.push(F.decode(code, game.rules))
    view = game.view("D2")
    kept = {c: (k, v) for k, c, v, _ in tree.children(node)}
    assert len(kept) >= 2
    legal = list(view.legal_moves)
    adopted = MCTSSearch(view, opts, seed=4, root_moves=legal, reuse=(tree, node))._tree
    assert adopted is not None and adopted.nodes == _count(tree, node)
    # drop the most visited kept child: its subtree goes, every other child stays as it was
    dropped = max((m for m in legal if F.encode(m, "D2", game.rules) in kept),
                  key=lambda m: kept[F.encode(m, "D2", game.rules)][1])
    dcode = F.encode(dropped, "D2", game.rules)
    dnode, dvisits = kept[dcode]
    assert dvisits > 0
    fewer = [m for m in legal if m != dropped]
    search = MCTSSearch(view, opts, seed=4, root_moves=fewer, reuse=(tree, node))
    pruned = search._tree
    assert pruned is not None
    assert pruned.nodes == _count(tree, node) - _count(tree, dnode)
    assert {c for _, c, _, _ in pruned.children(0)} == set(kept) - {dcode}

    def walk(t, n):  # the subtree as nested (move, visits, value) lists
        return sorted((c, v, round(x, 9), walk(t, k)) for k, c, v, x in t.children(n))

    assert walk(pruned, 0) == [w for w in walk(tree, node) if w[0] != dcode]
    assert int(pruned.tr[K.TR_VIS]) == root_visits - dvisits
    for k, _, _, _ in pruned.children(0):  # parents point into the new tree
        assert int(pruned.tr[k * K.TR_W + K.TR_PARENT]) == 0
    search.run(200)
    assert int(pruned.tr[K.TR_VIS]) == root_visits - dvisits + 200
    assert search.best_move() in fewer
    assert dcode not in {c for _, c, _, _ in pruned.children(0)}


def test_keep_tree_continues_a_teammates_tree_and_never_after_a_hidden_move():
    game = Game.new(Rules.classic(), seed=8)
    game.push(next(m for m in game.legal_moves() if not m.is_double and m.ticket != Ticket.BLACK))
    agent = MCTSAgent("detectives", keep_tree=True, fast=False)
    rng = random.Random(2)
    budget = Budget(playouts=120)
    view = game.view("D1")
    move = agent.choose(view, view.legal_moves, rng, budget)
    d1_tree = agent.last_search._tree
    child = d1_tree.child(0, F.encode(move, "D1", game.rules))
    assert child is not None
    inherited = int(d1_tree.tr[child * K.TR_W + K.TR_VIS])
    game.push(move)
    view = game.view("D2")
    assert agent._reusable(view) == (d1_tree, child)
    agent.choose(view, view.legal_moves, rng, budget)
    # D2's root holds what D1's search gave D1's move, and its own 120 iterations
    assert int(agent.last_search._tree.tr[K.TR_VIS]) == inherited + 120
    assert agent.last_search.iterations == 120
    # after Mr X's move the detectives cannot follow (his station is hidden): a fresh tree
    while game.to_move != "X":
        view = game.view(game.to_move)
        game.push(agent.choose(view, view.legal_moves, rng, budget))
    game.push(next(m for m in game.legal_moves() if not m.is_double and m.ticket != Ticket.BLACK))
    view = game.view("D1")
    assert agent._reusable(view) is None
    agent.choose(view, view.legal_moves, rng, budget)
    assert int(agent.last_search._tree.tr[K.TR_VIS]) == 120
    # another game (its history does not begin with the kept one) never reuses it
    other = Game.new(Rules.classic(), seed=9)
    other.push(other.legal_moves()[0])
    assert agent._reusable(other.view("D1")) is None
    # nor does another game whose public moves are the same so far but whose detectives
    # started elsewhere (the first round of the next game, with the same ticket for Mr X)
    fresh = MCTSAgent("detectives", keep_tree=True, fast=False)
    first = Game.new(Rules.classic(), seed=8)
    second = Game.new(Rules.classic(), seed=11)
    assert {first.view("X").stations[p] for p in first.rules.hunters} != \
        {second.view("X").stations[p] for p in second.rules.hunters}
    for g in (first, second):
        g.push(next(m for m in g.legal_moves() if not m.is_double and m.ticket == Ticket.TAXI))
    assert first.view("D1").history == second.view("D1").history
    view = first.view("D1")
    fresh.choose(view, view.legal_moves, rng, budget)
    assert fresh._reusable(first.view("D1")) is not None  # the same position: its own tree
    assert fresh._reusable(second.view("D1")) is None
    # Mr X's search keeps nothing (the option is the detectives'); nw keeps its trees off
    mr_x = MCTSAgent("mr_x", keep_tree=True, fast=False)
    x_view = other.view("X") if other.to_move == "X" else Game.new(Rules.classic(), seed=9).view("X")
    mr_x.choose(x_view, x_view.legal_moves, rng, budget)
    assert mr_x._kept is None and mr_x.last_search is not None
    assert make_agent("nw", side="detectives", **PURE).options.keep_tree is False
    with pytest.raises(ValueError, match="keep_tree is true or false"):
        MCTSOptions(keep_tree=1)


def test_attach_model_replaces_a_reachable_single_step_by_the_doubles_that_begin_with_it():
    """FILT_ATTACH (experimental ``attach_model``): with a double move left, Mr X's generated
    moves hold no single step onto a station a hunter can reach; every double move begins
    with such a step; the unreachable single steps stay."""
    import random

    from scotlandyard import Game, Rules
    from scotlandyard.kernel import _kernel as K
    from scotlandyard.kernel.fast import board_table, rules_table, state_of_game
    rules = Rules.classic(detectives=5)
    bd = board_table(rules.board)
    ru = rules_table(rules)
    both = 0
    for seed in range(30):
        game = Game.new(rules, seed=seed)
        rng = random.Random(seed)
        while not game.is_over() and (game.round < 4 or game.side_to_move != "mr_x"):
            game.push(rng.choice([m for m in game.legal_moves() if not m.is_double]))
        if game.is_over():
            continue
        st = state_of_game(game)
        buf, sc = [0] * K.BUF_LEN, [0] * K.SC_LEN
        n = K.gen_mrx_raw(st, ru, bd, K.FILT_ON | K.FILT_ATTACH, buf, sc)
        assert n > 0
        assert not any(sc[K.SC_REACH:K.SC_REACH + K.NS])  # the scratch flags left clear
        K.mark_reach(st, bd, sc, 1)
        reach = {d for d in range(1, K.NS) if sc[K.SC_REACH + d]}
        singles = [c for c in buf[:n] if (c >> 8) & 15 == K.T_NONE]
        doubles = [c for c in buf[:n] if (c >> 8) & 15 != K.T_NONE]
        assert all((c >> 12) & 255 in reach for c in doubles)
        assert all((c >> 12) & 255 not in reach or
                   not any(d >> 12 == c >> 12 for d in doubles) for c in singles)
        plain = [0] * K.BUF_LEN
        m = K.gen_mrx_raw(st, ru, bd, K.FILT_ON, plain, [0] * K.SC_LEN)
        unreachable = {c for c in plain[:m] if (c >> 8) & 15 == K.T_NONE
                       and (c >> 12) & 255 not in reach}
        assert unreachable <= set(singles)
        both += bool(doubles) and bool(singles)
    assert both > 0


def test_attach_in_the_playouts_turns_a_reachable_single_step_into_a_double_move():
    """FILT_ATTACH in the playouts' filter (experimental ``attach_model``): Mr X's MCD choice
    is made among his filtered moves; when it is a single step onto a station a hunter can
    reach and he has a double move, he plays a double move that begins with that step; an
    unreachable single step is played as it is."""
    import random

    from scotlandyard import Game, Rules
    from scotlandyard.kernel import _kernel as K
    from scotlandyard.kernel.fast import board_table, rules_table, state_of_game
    rules = Rules.classic(detectives=5)
    bd = board_table(rules.board)
    ru = rules_table(rules)
    attached = plain = 0
    for seed in range(30):
        game = Game.new(rules, seed=seed)
        rng = random.Random(seed)
        while not game.is_over() and (game.round < 4 or game.side_to_move != "mr_x"):
            game.push(rng.choice([m for m in game.legal_moves() if not m.is_double]))
        if game.is_over():
            continue
        st = state_of_game(game)
        sc = [0] * K.SC_LEN
        K.mark_reach(st, bd, sc, 1)
        for k in range(20):
            r1, r2 = [seed * 100 + k + 1], [seed * 100 + k + 1]
            c0 = K.choose_mrx(st, ru, bd, 0.5, K.FILT_ON, r1, [0] * K.BUF_LEN,
                              [0] * K.SC_LEN)
            c1 = K.choose_mrx(st, ru, bd, 0.5, K.FILT_ON | K.FILT_ATTACH, r2,
                              [0] * K.BUF_LEN, [0] * K.SC_LEN)
            first = c1 >> 12 if (c1 >> 8) & 15 == K.T_NONE else c1 >> 12 & 255
            if (c0 >> 8) & 15 == K.T_NONE and sc[K.SC_REACH + ((c0 >> 12) & 255)]:
                assert (c1 >> 8) & 15 != K.T_NONE and c1 >> 12 == c0 >> 12
                attached += 1
            else:
                assert c1 == c0 and first == c0 >> 12
                plain += 1
    assert attached > 0 and plain > 0
