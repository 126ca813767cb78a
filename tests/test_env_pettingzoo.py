"""The PettingZoo AEC environment: API conformance, exact play, rewards and hidden information."""

from __future__ import annotations

import random

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test
from pettingzoo.utils.wrappers import OrderEnforcingWrapper

from scotlandyard import Game, Rules, london
from scotlandyard.env import (
    DOUBLE_FIRST,
    INFO_KEYS,
    PASS,
    REVEAL,
    Encoder,
    InvalidAction,
    ScotlandYardAEC,
    aec_env,
    agent_name,
    piece_of,
    raw_env,
)
from scotlandyard.env.actions import split_step, step_action
from scotlandyard.env.common import end_mask

from .conftest import ALL_RULES


def same_info(a: dict, b: dict) -> bool:
    """Infos equal, the action mask compared as an array."""
    return (set(a) == set(b) and np.array_equal(a["action_mask"], b["action_mask"])
            and all(a[k] == b[k] for k in a if k != "action_mask"))


def play_random(env, seed: int, max_steps: int | None = None) -> list[tuple[str, int]]:
    """Play random legal actions from the masks; return the (agent, action) list."""
    rng = np.random.default_rng(seed)
    done: list[tuple[str, int]] = []
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        assert legal.size, f"{agent} has an empty mask"
        a = int(rng.choice(legal))
        env.step(a)
        done.append((agent, a))
        if max_steps is not None and len(done) >= max_steps:
            break
    return done


@pytest.mark.parametrize("name", ["classic5", "new2", "classic_extra_reveal"])
def test_pettingzoo_api_test_passes(name: str) -> None:
    api_test(aec_env(ALL_RULES[name]()), num_cycles=150)


@pytest.mark.parametrize("name", ["classic5", "new_2p"])
def test_pettingzoo_seed_test_passes(name: str) -> None:
    seed_test(lambda: aec_env(ALL_RULES[name]()), num_cycles=150)


def test_agents_are_named_after_the_pieces() -> None:
    env = aec_env(Rules.new_edition(detectives=3))
    assert env.possible_agents == ["mr_x", "detective_1", "detective_2", "detective_3", "police_1"]
    assert [piece_of(a) for a in env.possible_agents] == ["X", "D1", "D2", "D3", "P1"]
    assert agent_name("P2") == "police_2"
    with pytest.raises(ValueError, match="no agent"):
        piece_of("sergeant_1")
    with pytest.raises(TypeError, match="preset name"):
        aec_env(rules=5)  # type: ignore[arg-type]


def test_only_the_selected_agent_has_actions() -> None:
    env = aec_env("classic")
    env.reset(seed=4)
    for _ in range(30):
        sel = env.agent_selection
        for a in env.agents:
            mask = env.observe(a)["action_mask"]
            assert mask.dtype == np.int8
            assert (mask.sum() > 0) == (a == sel)
        env.step(int(np.flatnonzero(env.observe(sel)["action_mask"])[0]))


def test_env_plays_exactly_the_engine_game() -> None:
    """Any engine game, including double and black moves, free order and police, is
    reproduced by feeding ``action_toward`` of its moves to the env."""
    for rules in (Rules.classic(detectives=5), Rules.new_edition_two_players()):
        for seed in range(3):
            ref = Game.new(rules, seed=seed)
            env = aec_env(rules)
            env.reset(options={"start": ref.start})
            rng = random.Random(seed)
            while not ref.is_over():
                move = rng.choice(ref.legal_moves())
                ref.push(move)
                while env.match.game.ply < ref.ply:
                    env.step(env.action_toward(move))
            assert env.match.game.moves == ref.moves
            assert all(env.terminations.values())


def test_invalid_action_raises_a_clear_error() -> None:
    env = aec_env("classic", shaping=1.0, invalid_action="raise")
    env.reset(seed=1)
    play_random(env, 1, max_steps=6)
    agent = env.agent_selection
    before = (dict(env._cumulative_rewards), env.match.game.ply, agent)
    with pytest.raises(InvalidAction, match=f"not legal for {piece_of(agent)} now"):
        env.step(DOUBLE_FIRST)
    assert (dict(env._cumulative_rewards), env.match.game.ply, env.agent_selection) == before
    with pytest.raises(RuntimeError, match="reset"):
        raw_env(rules="classic").step(0)
    with pytest.raises(AssertionError, match="reset"):  # the OrderEnforcingWrapper's words
        aec_env("classic").step(0)


@pytest.mark.parametrize("offender", ["mr_x", "detective_2"])
def test_invalid_action_ends_the_game_and_the_side_loses_by_default(offender: str) -> None:
    """PettingZoo classic convention: an action outside the mask ends the game; every agent
    of the acting side gets -1, the others 0; the info says why; nothing is pushed."""
    env = aec_env("classic")
    assert isinstance(env, OrderEnforcingWrapper) and isinstance(env.unwrapped, ScotlandYardAEC)
    env.reset(seed=2)
    rng = np.random.default_rng(2)
    while env.agent_selection != offender:
        env.step(int(rng.choice(np.flatnonzero(env.last()[0]["action_mask"]))))
    ply = env.match.game.ply
    bad = int(np.flatnonzero(env.last()[0]["action_mask"] == 0)[0])
    env.step(bad)
    assert env.match.game.ply == ply and env.unwrapped.over
    totals = {}
    infos = {}
    for agent in env.agent_iter():
        _, _, term, _, info = env.last()
        assert term
        totals[agent] = env._cumulative_rewards[agent]
        infos[agent] = info
        env.step(None)
    side_x = offender == "mr_x"
    for a, r in totals.items():
        assert r == (-1.0 if (a == "mr_x") == side_x else 0.0), (a, r)
        assert infos[a]["invalid_action"] is True
        assert infos[a]["reason"] == "invalid_action"
        assert infos[a]["winner"] == ("detectives" if side_x else "mr_x")
        assert infos[a]["action_mask"].tolist() == end_mask().tolist()


def test_rewards_at_the_end_and_seeding() -> None:
    env = aec_env("classic", loss_reward=0.0)
    totals = {a: 0.0 for a in env.possible_agents}
    env.reset(seed=11)
    rng = np.random.default_rng(11)
    final_info = {}
    for agent in env.agent_iter():
        obs, reward, term, _, info = env.last()
        totals[agent] += reward
        if term:
            final_info = info
            env.step(None)
            continue
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    outcome = env.match.game.outcome()
    assert outcome is not None and final_info["winner"] == outcome.winner
    assert set(final_info) == set(INFO_KEYS) and final_info["invalid_action"] is False
    for a, r in totals.items():
        won = (a == "mr_x") == (outcome.winner == "mr_x")
        assert r == (1.0 if won else 0.0)
    env2 = aec_env("classic", loss_reward=0.0)
    env2.reset(seed=11)
    assert play_random(env2, 11) and env2.match.game.moves == env.match.game.moves


def test_shaping_is_potential_based_and_off_by_default() -> None:
    env = aec_env("classic", shaping=0.5)
    env.reset(seed=2)
    sums = {a: 0.0 for a in env.possible_agents}
    rng = np.random.default_rng(2)
    nonzero = 0
    for agent in env.agent_iter():
        obs, reward, term, _, _ = env.last()
        sums[agent] += reward
        nonzero += reward not in (0.0, 1.0, -1.0)
        if term:
            env.step(None)
            continue
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert nonzero > 0
    # phi ends at 0, so shaping sums to -w * phi(start) for each side, plus the +-1 result
    start_game = Game.new(env.rules, start=env.match.game.start)
    x = start_game.station("X")
    d0 = min(london("classic").distance(s, x) for p, s in start_game.stations.items() if p != "X")
    phi_x = min(d0, 5) / 5
    phi_d = -np.log2(len(start_game.possible_locations())) / np.log2(199)
    won_x = env.match.game.outcome().winner == "mr_x"
    assert sums["mr_x"] == pytest.approx((1 if won_x else -1) - 0.5 * phi_x)
    assert sums["detective_1"] == pytest.approx((-1 if won_x else 1) - 0.5 * phi_d)
    with pytest.raises(ValueError, match="finite"):
        aec_env("classic", shaping=float("nan"))


# ---- hidden information: two games, same public facts, different Mr X -------------------------------------
def other_mr_x_path(rules: Rules, game: Game, rng: random.Random) -> list[int]:
    """Stations for Mr X (start, then one per log slot) that agree with every public fact of
    ``game`` (tickets, reveals, where the hunters stood and landed), sampled at random."""
    board = london(rules.board)
    sets = [set(game.view("D1").start_candidates)]
    slot = 0
    hunters = {p: s for p, s in game.start.items() if p != "X"}
    for piece, move in game.moves:
        if piece != "X":
            if move.to is not None:
                hunters[piece] = move.to
                sets[-1].discard(move.to)
            continue
        for t, _ in move.steps:
            entry = game.log[slot]
            slot += 1
            if entry.reveal:
                nxt = {entry.station}
            else:
                occ = set(hunters.values())
                nxt = {d for s in sets[-1] for d in (board.any_neighbours(s) if t == 3
                                                     else board.neighbours[t][s]) if d not in occ}
            sets.append(nxt)
    path = [rng.choice(sorted(sets[-1]))]
    for k in range(len(sets) - 2, -1, -1):
        t = game.log[k].ticket
        back = [s for s in sorted(sets[k]) if path[-1] in (
            board.any_neighbours(s) if t == 3 else board.neighbours[t][s])]
        path.append(rng.choice(back))
    return path[::-1]


def remap_mr_x(actions: list[tuple[str, int]], path: list[int]) -> list[tuple[str, int]]:
    """The same action list with Mr X's step stations replaced by ``path[1:]``."""
    out, slot = [], 0
    for agent, a in actions:
        if agent == "mr_x" and a < PASS:
            base, t, _ = split_step(a)
            slot += 1
            a = step_action(t, path[slot], base)
        out.append((agent, a))
    return out


@pytest.mark.parametrize("name", sorted(ALL_RULES))
def test_detective_observations_do_not_depend_on_mr_x_hidden_stations(name: str) -> None:
    """Play a game, then a second game with the same public facts but Mr X elsewhere on his
    hidden slots: every observation, reward and info of the detectives' side is identical."""
    rules = ALL_RULES[name]()
    rng = random.Random(name)
    differ = 0
    enc = Encoder(rules)
    for seed in range(4):
        a_env = aec_env(rules, shaping=1.0)
        a_env.reset(seed=seed)
        actions = play_random(a_env, seed)[:-1]  # the last move may catch or corner Mr X
        while actions and actions[-1][0] == "mr_x" and DOUBLE_FIRST <= actions[-1][1] < REVEAL:
            actions.pop()  # end on a whole move
        ref = Game.new(rules, start=a_env.match.game.start)
        replay = aec_env(rules)
        replay.reset(options={"start": ref.start})
        for _, a in actions:
            replay.step(a)
        path = other_mr_x_path(rules, replay.match.game, rng)
        envs = []
        for start_x, acts in ((ref.start["X"], actions), (path[0], remap_mr_x(actions, path))):
            env = aec_env(rules, shaping=1.0)
            env.reset(options={"start": {**ref.start, "X": start_x}})
            envs.append((env, acts))
        (e1, acts1), (e2, acts2) = envs
        hunters = [a for a in e1.possible_agents if a != "mr_x"]
        for (ag1, a1), (ag2, a2) in zip(acts1, acts2, strict=True):
            assert ag1 == ag2 == e1.agent_selection == e2.agent_selection
            for h in hunters:
                o1, o2 = e1.observe(h), e2.observe(h)
                assert np.array_equal(o1["observation"], o2["observation"])
                assert np.array_equal(o1["action_mask"], o2["action_mask"])
                assert e1.rewards[h] == e2.rewards[h] and same_info(e1.infos[h], e2.infos[h])
            assert np.array_equal(enc.encode(e1.match.game, "spectator"),
                                  enc.encode(e2.match.game, "spectator"))
            differ += e1.match.game.station("X") != e2.match.game.station("X")
            e1.step(a1)
            e2.step(a2)
    assert differ > 0, "the test never found a second hidden path"


def test_double_move_first_step_is_invisible_to_detectives() -> None:
    env = aec_env("classic")
    env.reset(seed=5)
    before = env.observe("detective_1")["observation"].copy()
    first = next(a for a in np.flatnonzero(env.observe("mr_x")["action_mask"]) if a >= DOUBLE_FIRST)
    env.step(int(first))
    assert env.agent_selection == "mr_x"
    mine = env.encoder.layout.split(env.observe("mr_x")["observation"])
    _, t, s = split_step(int(first))
    assert mine["pending_station"][s - 1] == 1 and mine["pending_ticket"][t] == 1
    assert np.array_equal(before, env.observe("detective_1")["observation"])
    second = np.flatnonzero(env.observe("mr_x")["action_mask"])
    assert second.size and (second < DOUBLE_FIRST).all()
    env.step(int(second[0]))
    assert env.agent_selection == "detective_1" and env.match.game.log[-1].double


def test_render_shows_public_facts_only() -> None:
    env = aec_env("classic", render_mode="ansi")
    env.reset(seed=9)
    env.step(int(np.flatnonzero(env.observe("mr_x")["action_mask"])[0]))
    text = env.render()
    x = env.match.game.station("X")
    assert "round 1" in text and "detective" not in text and "X@" not in text
    assert f"{x}" not in text.split("log:")[1].split("\n")[0]


def test_state_is_the_truth_for_centralized_critics() -> None:
    env = aec_env("classic")
    env.reset(seed=6)
    play_random(env, 6, max_steps=7)
    state = env.state()
    assert env.state_space.contains(state)
    assert np.array_equal(state, env.observe("mr_x")["observation"])
    parts = env.layout.split(state)
    assert parts["stations"][0, env.match.game.station("X") - 1] == 1
