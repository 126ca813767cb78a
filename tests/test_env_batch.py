"""The numpy batch simulator: every game it plays is a legal engine game with the same result."""

from __future__ import annotations

import numpy as np
import pytest

from scotlandyard import Game, Rules, london
from scotlandyard.env import BatchSim, MoveBatch
from scotlandyard.env.batch import REASONS

from .conftest import ALL_RULES

BATCH_RULES = sorted(n for n in ALL_RULES if n != "classic_extra_reveal")
START5 = {"X": 74, "D1": 92, "D2": 13, "D3": 29, "D4": 100, "D5": 150}


@pytest.mark.parametrize("name", BATCH_RULES)
def test_batch_games_replay_legally_through_the_engine(name: str) -> None:
    rules = ALL_RULES[name]()
    sim = BatchSim(120, rules, seed=7)
    plies = sim.run()
    assert sim.done.all() and plies == sim.plies == int(sim.n_moves.sum())
    reasons = set()
    for g in range(sim.n):
        game = sim.game(g)  # raises IllegalMove if the simulator made an illegal move
        assert game.outcome() == sim.outcome(g)
        assert game.ply == sim.n_moves[g]
        assert [game.station(p) for p in rules.pieces] == sim.pos[g].tolist()
        assert game.possible_bits == int.from_bytes(sim.possible[g].tobytes(), "little")
        for p in rules.pieces:
            counts = game.tickets(p)
            want = [-1 if counts.get(t) is None else counts.get(t, 0) for t in range(5)]
            want[3:] = want[3:] if p == "X" else [0, 0]
            assert sim.tickets([g])[0, rules.pieces.index(p)].tolist() == want
        reasons.add(game.outcome().reason)
    assert len(reasons) >= 2


def test_exported_records_replay() -> None:
    from scotlandyard.record import Record

    sim = BatchSim(5, Rules.new_edition(detectives=2), seed=4)
    sim.run()
    for g in range(5):
        rec = Record.parse(sim.to_record(g).to_text())
        assert rec.replay().moves == sim.game(g).moves


def test_mid_game_state_matches_the_engine_every_ply() -> None:
    rules = Rules.new_edition(detectives=3)
    sim = BatchSim(24, rules, seed=3)
    games = [Game.new(rules, start=sim.start_stations(g)) for g in range(sim.n)]
    while not sim.done.all():
        sim.step()
        for g, game in enumerate(games):
            for _, move in sim.moves(g)[game.ply:]:
                game.push(move)
            assert game.is_over() == bool(sim.done[g])
            if not game.is_over():
                assert game.round == sim.round
                assert game.possible_bits == int.from_bytes(sim.possible[g].tobytes(), "little")
                obs = sim.observe("detectives", np.array([g]))
                view = game.view("D1")
                assert obs.stations[0, 0] == (view.mr_x_station or 0)
                assert obs.possible[0].nonzero()[0].tolist() == [s - 1 for s in sorted(view.possible)]
                assert [s for s in obs.log_station[0] if s] == [e.station for e in view.log if e.reveal]


def test_random_moves_are_uniform_over_the_engine_legal_moves() -> None:
    """From one position, 20,000 games each pick Mr X's first move: every legal move of the
    engine (singles, black, doubles) is picked, with frequencies fitting 1/len (chi-square)."""
    rules = Rules.classic(detectives=5)
    legal = sorted(m.notation() for m in Game.new(rules, start=START5).legal_moves())
    sim = BatchSim(20_000, rules, seed=1, start=START5)
    sim.step()
    codes, first, freq = np.unique(sim.history[:, 0], return_index=True, return_counts=True)
    counts = {sim.moves(int(g))[0][1].notation(): int(c) for g, c in zip(first, freq, strict=True)}
    assert sorted(counts) == legal
    expected = sim.n / len(legal)
    chi2 = sum((c - expected) ** 2 / expected for c in counts.values())
    dof = len(legal) - 1
    assert chi2 < dof + 4 * (2 * dof) ** 0.5  # far beyond the 99.99th percentile otherwise


def test_free_order_random_hunter_moves_are_uniform_over_all_unmoved_pieces() -> None:
    rules = Rules.new_edition_two_players()
    start = {"X": 35, "D1": 92, "D2": 13, "P1": 100, "P2": 150}
    first = Game.new(rules, start=start)
    x_move = first.legal_moves()[0]
    first.push(x_move)
    sim2 = BatchSim(20_000, rules, seed=2, start=start)
    sim2.step(mr_x=lambda obs, mb: _same_move(mb, x_move))  # the same Mr X move everywhere
    sim2.step()  # one hunter move, uniform over every unmoved piece's moves
    legal = sorted(m.notation() for m in first.legal_moves())
    codes, first, freq = np.unique(sim2.history[:, 1], return_index=True, return_counts=True)
    counts = {sim2.moves(int(g))[1][1].notation(): int(c) for g, c in zip(first, freq, strict=True)}
    assert sorted(counts) == legal
    expected = sim2.n / len(legal)
    chi2 = sum((c - expected) ** 2 / expected for c in counts.values())
    dof = len(legal) - 1
    assert chi2 < dof + 4 * (2 * dof) ** 0.5


def _same_move(mb: MoveBatch, move) -> np.ndarray:  # noqa: ANN001
    """For each game, the candidate that is ``move``."""
    t2 = -1 if move.ticket2 is None else int(move.ticket2)
    hit = (mb.ticket == int(move.ticket)) & (mb.to == move.to) & (mb.ticket2 == t2)
    if move.ticket2 is not None:
        hit &= mb.to2 == move.to2
    idx = np.flatnonzero(hit)
    assert len(idx) == len(mb.games)
    return idx


def test_policies_choose_among_candidates() -> None:
    """A greedy Mr X (farthest from the nearest hunter) beats random Mr X against random
    detectives, and the candidates it sees are exactly the engine's legal moves."""
    rules = Rules.classic(detectives=5)
    board = london("classic")
    dist = np.array([[board.distance(a, b) if a and b else 0 for b in range(200)]
                     for a in range(200)], np.float64)
    checked = []

    def greedy(obs, moves: MoveBatch) -> np.ndarray:  # noqa: ANN001
        dest = moves.destination
        hunters = obs.stations[moves.game_index, 1:]
        score = dist[dest[:, None], hunters].min(1)
        if not checked:
            g0 = int(moves.games[0])
            sl = slice(moves.offsets[0], moves.offsets[1])
            game = greedy_sim.game(g0)
            legal = sorted(m.notation() for m in game.legal_moves())
            mine = sorted(_note(moves, i) for i in range(sl.start, sl.stop))
            checked.append(legal == mine)
        return moves.argmax(score)

    greedy_sim = BatchSim(400, rules, seed=5)
    greedy_sim.run(mr_x=greedy)
    random_sim = BatchSim(400, rules, seed=5)
    random_sim.run()
    assert checked == [True]
    assert greedy_sim.stats()["mr_x"] > random_sim.stats()["mr_x"] + 0.05
    for g in range(0, 400, 40):
        assert greedy_sim.game(g).outcome() == greedy_sim.outcome(g)


def _note(mb: MoveBatch, i: int) -> str:
    letters = "TBUK"
    text = f"{letters[mb.ticket[i]]}{mb.to[i]}"
    if mb.ticket2[i] >= 0:
        text += f"+{letters[mb.ticket2[i]]}{mb.to2[i]}"
    return text


def test_move_batch_sampling_follows_softmax() -> None:
    mb = MoveBatch("mr_x", np.array([0, 1]), np.array([0, 2, 5]), np.array([0, 0, 1, 1, 1]),
                   np.zeros(5, np.int8), np.zeros(5, np.int8), np.array([1, 2, 3, 4, 5]),
                   np.full(5, -1, np.int8), np.zeros(5, np.int16))
    logits = np.array([0.0, np.log(3.0), 0.0, 0.0, np.log(2.0)])
    assert np.allclose(mb.softmax(logits), [0.25, 0.75, 0.25, 0.25, 0.5])
    assert mb.argmax(logits).tolist() == [1, 4]
    rng = np.random.default_rng(0)
    picks = np.array([mb.sample(logits, rng) for _ in range(4000)])
    assert abs((picks[:, 0] == 1).mean() - 0.75) < 0.03
    assert abs((picks[:, 1] == 4).mean() - 0.5) < 0.03
    with pytest.raises(ValueError, match="shape"):
        mb.sample(np.zeros(3), rng)


def test_bad_policy_output_and_settings_raise_clear_errors() -> None:
    sim = BatchSim(4, seed=1)
    with pytest.raises(ValueError, match="chose candidate"):
        sim.step(mr_x=lambda obs, mb: mb.offsets[1:])
    with pytest.raises(ValueError, match="one candidate index per game"):
        sim.step(mr_x=lambda obs, mb: mb.offsets[:1])
    with pytest.raises(ValueError, match="EXTRA-REVEAL"):
        BatchSim(2, Rules.classic(extra_reveal=True))
    with pytest.raises(ValueError, match="n_games"):
        BatchSim(0)
    with pytest.raises(ValueError, match="R-SETUP"):
        BatchSim(2, start={"X": 1, "D1": 1, "D2": 2, "D3": 3, "D4": 4, "D5": 5})
    with pytest.raises(ValueError, match="record=False"):
        BatchSim(2, record=False).moves(0)


def test_detectives_observation_hides_mr_x() -> None:
    sim = BatchSim(300, seed=9)
    hidden = 0
    while not sim.done.all():
        sim.step()
        live = np.flatnonzero(~sim.done)
        obs_d = sim.observe("detectives", live)
        obs_x = sim.observe("mr_x", live)
        assert (obs_x.stations[:, 0] == sim.pos[live, 0]).all()
        last = sim.log_len[live] - 1
        revealed = (last >= 0) & np.isin(last + 1, Rules.classic().reveal_slots)
        assert (obs_d.stations[revealed, 0] == sim.pos[live[revealed], 0]).all()
        assert (obs_d.stations[~revealed, 0] == 0).all()
        hidden += int((~revealed).sum())
        for k in range(sim.rules.log_slots):
            if k + 1 not in sim.rules.reveal_slots:
                assert (obs_d.log_station[:, k] == 0).all()
    assert hidden > 1000


def test_seeded_runs_are_reproducible_and_start_draws_follow_the_decks() -> None:
    a, b = BatchSim(64, Rules.new_edition(4), seed=3), BatchSim(64, Rules.new_edition(4), seed=3)
    a.run()
    b.run()
    assert np.array_equal(a.history, b.history) and np.array_equal(a.winner, b.winner)
    rules = Rules.new_edition(4)
    for g in range(64):
        st = a.start_stations(g)
        assert st["X"] in rules.start_deck_mr_x
        assert all(st[p] in rules.start_deck_detectives for p in rules.hunters)
        assert len(set(st.values())) == len(st)
    assert set(REASONS) >= {a.outcome(g).reason for g in range(64)}
