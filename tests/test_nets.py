"""The learned model of Mr X for the detectives' belief (scotlandyard.ai.nets) and its trainer."""

from __future__ import annotations

import importlib.util
import json
import math
import random
import sys
from pathlib import Path

import numpy as np
import pytest

from scotlandyard import Game, Rules, Ticket, london
from scotlandyard.ai import Budget, make_agent, nets
from scotlandyard.ai.belief_search import policy_weights

from .test_ai_agents import _twin_games

ROOT = Path(__file__).resolve().parent.parent
BOARD = london()


def _train_script():  # the script is not a module of the package: load it by path
    spec = importlib.util.spec_from_file_location("train_nets", ROOT / "scripts" / "train_nets.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules["train_nets"] = mod
    spec.loader.exec_module(mod)
    return mod


def _played(seed: int, plies: int) -> Game:
    game = Game.new(Rules.classic(), seed=seed)
    rng = random.Random(seed)
    for _ in range(plies):
        if game.is_over():
            break
        moves = game.legal_moves()
        game.push(moves[rng.randrange(len(moves))])
    return game


def test_features_of_a_known_position():
    # hunters on 1 and 13; station 8 is a taxi step from 1 and two steps from 13
    occ = (1 << 1) | (1 << 13)
    ctx = nets.StepContext(occ, reveal=False, next_reveal=True, early=False)
    phi = nets.step_features(BOARD, ctx)
    assert phi.shape == (4, BOARD.stations + 1, nets.N_FEATURES)
    f = dict(zip(nets.FEATURES, phi[Ticket.TAXI, 8], strict=True))
    d = min(BOARD.distance(1, 8), BOARD.distance(13, 8))
    assert d == 1
    assert f["ticket_taxi"] == 1 and f["ticket_bus"] == f["ticket_black"] == 0
    assert f["dist_1"] == 1 and f["dist_2"] == f["dist_5plus"] == 0
    assert f["hunters_at_1"] == sum(BOARD.distance(h, 8) == 1 for h in (1, 13))
    assert f["hunters_within_2"] == sum(BOARD.distance(h, 8) <= 2 for h in (1, 13))
    exits = BOARD.any_neighbours(8, ferry=False)
    assert f["log_exits"] == pytest.approx(math.log1p(len(exits)))
    assert f["has_underground"] == 0 and f["has_bus"] == 0
    assert f["dist_before_reveal"] == pytest.approx(d / 5) and f["dist_on_reveal"] == 0
    # 150 is five or more steps from both; 89 is an underground station two or three away
    g = dict(zip(nets.FEATURES, phi[Ticket.BLACK, 150], strict=True))
    assert min(BOARD.distance(1, 150), BOARD.distance(13, 150)) >= 5
    assert g["dist_5plus"] == 1 and g["ticket_black"] == 1 and g["hunters_within_2"] == 0
    assert g["black_on_reveal"] == 0 and g["black_in_rounds_1_2"] == 0
    u = dict(zip(nets.FEATURES, phi[Ticket.BUS, 89], strict=True))
    d89 = min(BOARD.distance(1, 89), BOARD.distance(13, 89))
    assert u[f"dist_{d89}"] == 1 and u["has_underground"] == 1 and u["has_bus"] == 1
    early = nets.step_features(BOARD, nets.StepContext(occ, True, False, True))
    h = dict(zip(nets.FEATURES, early[Ticket.BLACK, 150], strict=True))
    assert h["black_on_reveal"] == 1 and h["black_in_rounds_1_2"] == 1
    assert h["dist_on_reveal"] == 1.0 and h["dist_before_reveal"] == 0
    assert dict(zip(nets.FEATURES, early[Ticket.TAXI, 150], strict=True))["black_on_reveal"] == 0


@pytest.mark.parametrize("seed", [3, 11, 40])
def test_step_probabilities_sum_to_one_over_mr_x_legal_single_moves(seed):
    game = _played(seed, 18)
    while game.to_move != "X":
        game.push(game.legal_moves()[0])
    view = game.view("X")
    singles = {(int(m.ticket), m.to) for m in view.legal_moves if not m.is_double}
    occ = 0
    for p, s in view.stations.items():
        if p != "X":
            occ |= 1 << s
    tk = view.tickets["X"]
    hand = [t for t, name in enumerate(("taxi", "bus", "underground", "black"))
            if (tk.get(name) or 0) > 0]
    ctx = nets.StepContext(occ, False, False, view.round <= 2)
    assert view.mr_x_station is not None
    dist = nets.step_distribution(nets.default_model(), BOARD, view.mr_x_station, hand, ctx)
    assert set(dist) == singles  # the model's options are exactly his legal single steps
    assert sum(dist.values()) == pytest.approx(1.0, abs=1e-12)
    assert all(p > 0 for p in dist.values())


def test_uniform_model_over_the_shown_ticket_is_the_beta_zero_policy_belief():
    # p(v | u, t) uniform over the ticket's destinations is exactly the MCD softmax at beta 0
    for seed in (2, 5, 9):
        view = _played(seed, 30).view("D1")
        if view.is_over:
            continue
        a = nets.learned_weights(view, nets.MrXPolicy.uniform(), joint=False)
        b = policy_weights(view, beta=0.0)
        assert a.keys() == b.keys() == set(view.possible)
        for s in a:
            assert a[s] == pytest.approx(b[s], rel=1e-9, abs=1e-12)


def test_learned_belief_is_a_distribution_over_the_possible_stations():
    view = _played(8, 40).view("D1")
    w = nets.learned_weights(view)
    assert set(w) == set(view.possible)
    assert sum(w.values()) == pytest.approx(1.0)
    assert len(set(round(x, 9) for x in w.values())) > 1  # not uniform


def test_shipped_weights_load_from_the_package_and_match_the_trained_model():
    model = nets.default_model()
    assert model.meta["train_steps"] > 1000
    assert model.meta["test_log_likelihood"]["model"] > model.meta["test_log_likelihood"][
        "uniform"]
    got = nets.probe(model)
    want = model.meta["probe"]  # what the trainer's in-memory model gave
    assert [s for s, _ in got] == [s for s, _ in want]
    for (_, a), (_, b) in zip(got, want, strict=True):
        assert a == pytest.approx(b, rel=1e-9, abs=1e-12)
    assert got != nets.probe(nets.MrXPolicy.uniform())


def test_a_broken_weights_file_is_refused_with_a_clear_error(tmp_path):
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"not a zip")
    with pytest.raises(ValueError, match="not a Mr X policy file"):
        nets.MrXPolicy.load(bad)
    other = tmp_path / "other.npz"
    np.savez(other, w=np.zeros(3), w1=np.zeros((3, 0)), b1=np.zeros(0), v=np.zeros(0),
             features=np.array(["a", "b", "c"]), version=np.array(1), meta=np.array("{}"))
    with pytest.raises(ValueError, match="retrain it"):
        nets.MrXPolicy.load(other)
    with pytest.raises(ValueError, match="finite"):
        nets.MrXPolicy(np.full(nets.N_FEATURES, np.nan))


def test_training_script_end_to_end_on_a_tiny_self_play_set(tmp_path, capsys):
    script = _train_script()
    out = tmp_path / "m.npz"
    rc = script.main(["--self-play", "3", "--mr-x", "nw", "--detectives", "nw",
                      "--playouts", "10", "--detective-playouts", "10",
                      "--games-dir", str(tmp_path / "games"), "--hidden", "3",
                      "--steps", "150", "--holdout", "0.34", "--out", str(out)])
    assert rc == 0
    report = json.loads(capsys.readouterr().out)
    assert report["games"] == 3 and report["train_steps"] > 20
    ll = report["train_log_likelihood"]
    assert ll["model"] > ll["uniform"] + 0.05  # the fit learned something
    model = nets.MrXPolicy.load(out)
    assert model.hidden == 3
    assert sum(nets.probe(model), []) == pytest.approx(sum(report["probe"], []))
    # the same records again, read from disk: the same data, the same fit
    again = tmp_path / "again.npz"
    rc = script.main(["--records", str(tmp_path / "games" / "**" / "*.json"), "--hidden", "3",
                      "--steps", "150", "--holdout", "0.34", "--out", str(again)])
    assert rc == 0
    assert json.loads(capsys.readouterr().out)["train_log_likelihood"] == pytest.approx(ll)


def test_training_script_refuses_no_records(tmp_path):
    script = _train_script()
    with pytest.raises(SystemExit):
        script.main(["--records", str(tmp_path / "none" / "*.json"), "--out",
                     str(tmp_path / "m.npz")])


def test_fit_improves_the_likelihood_of_a_known_mover():
    # Mr X who always steps to the station farthest from the hunters: the fit finds it
    views = []
    for seed in range(6):
        game = Game.new(Rules.classic(), seed=seed)
        rng = random.Random(seed)
        while not game.is_over() and game.round <= 8:
            moves = game.legal_moves()
            if game.to_move == "X":
                hunters = [s for p, s in game.stations.items() if p != "X"]
                singles = [m for m in moves if not m.is_double and m.ticket != Ticket.BLACK]
                game.push(max(singles or moves, key=lambda m: (
                    min(BOARD.distance(h, m.to) for h in hunters), -m.to)))
            else:
                game.push(moves[rng.randrange(len(moves))])
        views.append(game.view("X"))
    data = nets.extract_steps(views)
    model = nets.fit(data, steps=200)
    assert nets.log_likelihood(model, data) > nets.log_likelihood(
        nets.MrXPolicy.uniform(), data) + 0.3
    far = {k: x for k, x in zip(nets.FEATURES, model.w, strict=True)}
    assert far["dist_5plus"] > far["dist_1"]


def test_mr_x_steps_need_his_stations():
    game = _played(4, 14)
    with pytest.raises(ValueError, match="full visibility"):
        list(nets.mr_x_steps(game.view("D1")))


def test_learned_belief_twin_games_give_identical_beliefs_and_decisions():
    # two games that differ only in Mr X's hidden station: the same learned belief and the
    # same detective move (every decision of two rounds is checked the same way, with
    # belief="learned", in tests/test_ai_agents.py's twin test)
    a, b = _twin_games()
    assert a.station("X") != b.station("X")
    va, vb = a.view("D1"), b.view("D1")
    assert va.to_dict() == vb.to_dict()
    wa = nets.learned_weights(va)
    nets._MEMO.clear()
    assert wa == nets.learned_weights(vb)
    assert a.station("X") in wa and b.station("X") in wa
    for seed in range(2):
        agent = {"side": "detectives", "fast": False, "belief": "learned"}
        ma = make_agent("mcts", **agent).choose(va, va.legal_moves, random.Random(seed),
                                                Budget(playouts=12))
        mb = make_agent("mcts", **agent).choose(vb, vb.legal_moves, random.Random(seed),
                                                Budget(playouts=12))
        assert ma == mb


def test_learned_belief_is_an_option_off_by_default():
    from scotlandyard.ai.mcts import BEST_SETTINGS, MCTSOptions

    assert BEST_SETTINGS["belief"] == "policy"
    assert MCTSOptions(belief="learned").belief == "learned"
    with pytest.raises(ValueError, match="learned"):
        MCTSOptions(belief="neural")


def test_the_memo_gives_exactly_what_a_fresh_replay_gives():
    # every detectives' view of a game, in the order an agent meets them and then shuffled:
    # with the memo filled by earlier calls, the weights are those of an empty memo
    game = _played(21, 60)
    views = []
    while game.ply > 0:
        game.pop()
        if game.to_move not in (None, "X"):
            views.append(game.view(game.to_move))
    views.reverse()
    model = nets.default_model()
    nets._MEMO.clear()
    fresh = []
    for v in views:
        nets._MEMO.clear()
        fresh.append(nets.learned_weights(v, model))
    nets._MEMO.clear()
    assert [nets.learned_weights(v, model) for v in views] == fresh
    order = list(range(len(views)))
    random.Random(3).shuffle(order)
    assert [nets.learned_weights(views[i], model) for i in order] == [fresh[i] for i in order]
    other = nets.MrXPolicy.uniform()  # another model never reads this model's entries
    nets._MEMO.clear()
    want = nets.learned_weights(views[-1], other)
    nets.learned_weights(views[-1], model)
    assert nets.learned_weights(views[-1], other) == want
    assert len(nets._MEMO) <= nets.MEMO_SIZE


def test_the_weights_file_is_package_data():
    # a wheel or a clean install carries the .npz only if pyproject's package-data names it
    import fnmatch
    import tomllib

    data = tomllib.loads((ROOT / "pyproject.toml").read_text())
    globs = data["tool"]["setuptools"]["package-data"]
    name = Path(nets.DATA_FILE)
    assert any(fnmatch.fnmatch(str(name), g) for g in globs["scotlandyard"])
    assert (ROOT / "scotlandyard" / nets.DATA_FILE).is_file()
