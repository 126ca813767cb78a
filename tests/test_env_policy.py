"""``PolicyAgent``: a policy ``obs, mask -> action`` plays as a package agent exactly as it
plays in the envs — in the arena, as a server AI seat, in the terminal game."""

from __future__ import annotations

import io
import random
import time
from pathlib import Path

import numpy as np
import pytest
from rich.console import Console
from typer.testing import CliRunner

from scotlandyard import Game, Rules
from scotlandyard.ai import Budget, agent_names, make_agent
from scotlandyard.ai.arena import ArenaConfig, run_arena
from scotlandyard.env import PolicyAgent, PolicyError, aec_env, decisions, register_policy

from . import policy_fixtures as fx
from .conftest import ALL_RULES

FIRST = "tests.policy_fixtures:first_legal"
LAST = "tests.policy_fixtures:last_legal"


def env_game(rules: Rules, start: dict[str, int], policies: dict[str, object]) -> list:
    """The moves of a game played through the AEC env by ``policies`` per side."""
    env = aec_env(rules)
    env.reset(options={"start": start})
    for agent, obs, mask in decisions(env):
        side = "mr_x" if agent == "mr_x" else "detectives"
        env.step(policies[side](obs, mask))
    return list(env.unwrapped.match.game.moves)


def agent_game(rules: Rules, start: dict[str, int], agents: dict[str, PolicyAgent]) -> list:
    """The moves of the same game played by the agents on a plain ``Game`` (as the arena does)."""
    g = Game.new(rules, start=start)
    rng, budget = random.Random(0), Budget()
    while not g.is_over():
        move = agents[g.side_to_move].choose(g.view(g.to_move), g.legal_moves(), rng, budget)
        g.push(move)
    return list(g.moves)


@pytest.mark.parametrize("name", ["classic5", "new_2p", "new3", "new2_scarce", "classic_extra_reveal"])
@pytest.mark.parametrize("x_policy", ["first", "last"])
def test_policy_agent_plays_exactly_the_env_game(name: str, x_policy: str) -> None:
    """The same deterministic policies give the same game through the env and as agents:
    double moves (``last_legal`` prefers them), takes, and free-order defers included."""
    rules = ALL_RULES[name]()
    px = fx.last_legal if x_policy == "last" else fx.first_legal
    pd = fx.last_legal if x_policy == "first" else fx.first_legal  # last: defers when it may
    for seed in range(2):
        start = Game.new(rules, seed=seed).start
        want = env_game(rules, start, {"mr_x": px, "detectives": pd})
        got = agent_game(rules, start, {"mr_x": PolicyAgent(px), "detectives": PolicyAgent(pd)})
        assert got == want
        if x_policy == "last":
            assert any(m.is_double for p, m in got if p == "X")


def test_policy_agent_in_an_arena_run(tmp_path: Path) -> None:
    config = ArenaConfig(mr_x=LAST, detectives="tests.policy_fixtures:by_side", games=3, seed=4,
                         rules=Rules.new_edition(detectives=3))
    result = run_arena(config, tmp_path / "run", progress=False)
    assert result.recorded == 3 and not result.errors
    text = (tmp_path / "run" / "games" / "000000.json").read_text()
    assert LAST in text  # the record names the policy as the player


def test_a_policy_outside_the_mask_is_an_arena_error(tmp_path: Path) -> None:
    config = ArenaConfig(mr_x="tests.policy_fixtures:illegal", games=1)
    result = run_arena(config, tmp_path / "bad", progress=False)
    assert result.errors and "not in the mask" in (result.errors[0].error or "")


def test_policy_names_and_bad_policies() -> None:
    agent = make_agent(FIRST, "mr_x")
    assert isinstance(agent, PolicyAgent) and agent.name == FIRST
    assert FIRST in agent_names()
    for bad, why in (("nomodule_xyz:f", "cannot import"), ("tests.policy_fixtures:nope", "no 'nope'"),
                     ("justaname", "module:attribute")):
        with pytest.raises(PolicyError, match=why):
            register_policy(bad)
    with pytest.raises(PolicyError, match="no policy for side"):
        PolicyAgent({"mr_x": fx.first_legal}, side="detectives")


def test_sb3_style_predict_gets_the_mask() -> None:
    class Model:
        """Answers like MaskablePPO.predict: (array of shape (), None)."""

        seen: list[np.ndarray] = []

        def predict(self, obs, action_masks=None, deterministic=True):  # noqa: ANN001, ANN201
            self.seen.append(action_masks)
            return np.array(np.flatnonzero(action_masks)[0]), None

    model = Model()
    g = Game.new(Rules.classic(), seed=3)
    move = PolicyAgent(model).choose(g.view("X"), g.legal_moves(), random.Random(0), Budget())
    env = aec_env(Rules.classic())
    env.reset(options={"start": g.start})
    assert move in g.legal_moves()
    assert np.array_equal(model.seen[0], env.last()[0]["action_mask"])  # the env's mask


def test_policy_as_a_server_ai_seat(tmp_path: Path) -> None:
    from fastapi.testclient import TestClient

    from scotlandyard.server.app import create_app

    register_policy(FIRST)
    fx.CALLS.clear()
    # unpaced (test-only): a policy's Mr X is paced 4 s a move on a real server
    with TestClient(create_app(tmp_path / "g.sqlite3", ai_delay=0, pace_mr_x=False)) as client:
        assert FIRST in client.get("/api/presets").json()["agents"]
        r = client.post("/api/games", json={"detectives": 2, "seats": {
            "X": {"kind": "ai", "agent": FIRST}, "D1": {"kind": "ai", "agent": "random"},
            "D2": {"kind": "ai", "agent": "random"}}})
        assert r.status_code == 201, r.text
        game = r.json()
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            st = client.get(f"/api/games/{game['game_id']}/state",
                            params={"token": game["tokens"]["spectator"]}).json()
            if st["view"]["outcome"]:
                break
            time.sleep(0.05)
        else:
            pytest.fail("the game with a policy seat did not finish")
    assert fx.CALLS and all(size == 2119 for size, _ in fx.CALLS)


def test_policy_in_the_terminal_game() -> None:
    from scotlandyard.cli_play import TerminalGame

    out = Console(file=io.StringIO(), width=100)
    game = Game.new(Rules.classic(detectives=3), seed=5)
    session = TerminalGame(game, mr_x=FIRST, detectives="random", out=out, seed=1)
    session.run()
    assert game.is_over() and FIRST in out.file.getvalue()


def test_serve_refuses_a_bad_agent_module_before_starting() -> None:
    from scotlandyard.cli import app

    res = CliRunner().invoke(app, ["serve", "--agent-module", "nomodule_xyz:policy"])
    assert res.exit_code == 2 and "cannot import 'nomodule_xyz'" in res.output
