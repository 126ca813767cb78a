"""BatchSim on the rules kernel: the same games for a seed whatever the number of threads,
whether played step by step or to the end in one go, on the numba and the pure-Python kernel."""

from __future__ import annotations

import numba
import numpy as np
import pytest

from scotlandyard import Rules
from scotlandyard.env import BatchSim


def _facts(sim: BatchSim) -> tuple[np.ndarray, ...]:
    return (sim.history, sim.n_moves, sim.winner, sim.reason, sim.end_round, sim.pos,
            sim.possible, sim.log_ticket, sim.log_station, sim.tickets(), sim.sup, sim.occ)


def _same(a: BatchSim, b: BatchSim) -> None:
    for x, y in zip(_facts(a), _facts(b), strict=True):
        assert np.array_equal(x, y)


def test_a_seed_gives_the_same_games_with_one_thread_or_two() -> None:
    rules = Rules.classic(detectives=5)
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = BatchSim(300, rules, seed=11)
        one.run()
        numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
        two = BatchSim(300, rules, seed=11)
        two.run()
    finally:
        numba.set_num_threads(before)
    _same(one, two)
    assert len({tuple(h) for h in one.history.tolist()}) == 300  # and the games differ


@pytest.mark.parametrize("rules", [Rules.classic(detectives=5), Rules.new_edition_two_players()],
                         ids=["classic", "new_edition_2p"])
def test_running_to_the_end_plays_the_games_of_step_by_step(rules: Rules) -> None:
    whole = BatchSim(200, rules, seed=5)
    made = whole.run()
    steps = BatchSim(200, rules, seed=5)
    total = 0
    while not steps.done.all():
        total += steps.step()
    _same(whole, steps)
    assert made == total == whole.plies == int(whole.n_moves.sum())
    assert (whole.round, whole.phase) == (steps.round, steps.phase)


def test_the_pure_python_kernel_plays_the_same_games() -> None:
    rules = Rules.new_edition(detectives=3)
    fast = BatchSim(6, rules, seed=2)
    pure = BatchSim(6, rules, seed=2, fast=False)
    fast.run()
    pure.run()
    _same(fast, pure)
    for g in range(6):
        assert pure.game(g).outcome() == pure.outcome(g)


def test_state_arrays_read_the_kernel_states() -> None:
    rules = Rules.new_edition(detectives=4)
    sim = BatchSim(50, rules, seed=8)
    for _ in range(7):
        sim.step()
    occ = np.zeros((sim.n, 200), bool)
    occ[:, 0] = True
    occ[np.arange(sim.n)[:, None], sim.pos[:, 1:]] = True
    assert np.array_equal(sim.occ, occ)
    tickets = sim.tickets()
    assert np.array_equal(sim.sup[:, 0, 3:], tickets[:, 0, 3:])  # Mr X's black and double
    assert np.array_equal(sim.sup[:, 1:, :3], tickets[:, 1:, :3])
    assert (sim.round, sim.phase) == (2, 2)
    for g in range(0, 50, 7):
        game = sim.game(g)
        if not game.is_over():
            moved = {p for p in rules.hunters if p not in game.pieces_to_move}
            assert {rules.pieces[i] for i in np.flatnonzero(sim.moved[g])} == moved


def test_station_flags_become_the_kernels_bitset_words() -> None:
    """BatchSim's set-up packs [games, stations] flags into the kernel's words: station s is
    bit s % BW of word s // BW."""
    from scotlandyard.env.batch import _to_words
    from scotlandyard.kernel import _kernel as K

    rng = np.random.default_rng(4)
    flags = rng.random((7, K.NS)) < 0.3
    flags[0] = False
    flags[1, [1, K.BW - 1, K.BW, K.NS - 1]] = True
    words = _to_words(flags)
    assert words.shape == (7, K.NW) and words.dtype == np.int64
    for g in range(7):
        want = [0] * K.NW
        for s in np.flatnonzero(flags[g]):
            want[s // K.BW] |= 1 << (s % K.BW)
        assert words[g].tolist() == want
    assert words[0].tolist() == [0] * K.NW
