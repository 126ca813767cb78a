"""The arena: seeded, resumable tournaments; statistics; results files; the CLI command."""

from __future__ import annotations

import json
import os
import random
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest
import typer
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from scotlandyard import Game, Move, PlayerView, Rules
from scotlandyard.ai import Budget, RandomAgent
from scotlandyard.ai import base as ai_base
from scotlandyard.ai.arena import (
    ArenaConfig,
    ArenaError,
    ArenaResult,
    game_seed,
    parse_options,
    play_game,
    run_arena,
)
from scotlandyard.ai.cli import arena
from scotlandyard.ai.stats import WinRate, wilson_interval, z_for
from scotlandyard.record import Record

# ---- statistics ---------------------------------------------------------------------------


@pytest.mark.parametrize(("wins", "n", "lo", "hi"), [
    # published Wilson score intervals (95%), e.g. scipy.stats.binomtest(...).proportion_ci("wilson")
    (50, 100, 0.40383153, 0.59616847),
    (0, 10, 0.0, 0.27753280),
    (10, 10, 0.72246720, 1.0),
    (8, 10, 0.49016247, 0.94331785),
    (1, 3, 0.06149194, 0.79234040),
    (123, 1000, 0.10407414, 0.14481123),
])
def test_wilson_interval_matches_published_values(wins: int, n: int, lo: float, hi: float) -> None:
    got_lo, got_hi = wilson_interval(wins, n)
    assert got_lo == pytest.approx(lo, abs=1e-7)
    assert got_hi == pytest.approx(hi, abs=1e-7)


def test_wilson_interval_edges_and_bad_input() -> None:
    assert wilson_interval(0, 0) == (0.0, 1.0)
    assert wilson_interval(0, 5)[0] == 0.0 and wilson_interval(5, 5)[1] == 1.0
    assert z_for(0.95) == pytest.approx(1.959964, abs=1e-6)
    assert wilson_interval(50, 100, 0.99)[0] < wilson_interval(50, 100, 0.95)[0]
    for wins, n in ((-1, 10), (11, 10), (1, -1), (0.5, 10)):
        with pytest.raises(ValueError, match="wins"):
            wilson_interval(wins, n)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="confidence"):
        z_for(1.0)


@given(st.integers(0, 500).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))))
def test_wilson_interval_holds_the_rate_and_mirrors(kn: tuple[int, int]) -> None:
    wins, n = kn
    lo, hi = wilson_interval(wins, n)
    assert 0.0 <= lo <= hi <= 1.0
    if n:
        assert lo <= wins / n <= hi
        lo2, hi2 = wilson_interval(n - wins, n)
        assert lo2 == pytest.approx(1 - hi, abs=1e-12) and hi2 == pytest.approx(1 - lo, abs=1e-12)


def test_win_rate_text_and_dict() -> None:
    wr = WinRate(50, 100)
    assert str(wr) == " 50.0% [40.4%, 59.6%]"
    assert wr.to_dict()["ci"] == list(wilson_interval(50, 100))
    assert WinRate(0, 0).rate == 0.0


# ---- configuration ------------------------------------------------------------------------


def test_config_hash_depends_on_what_decides_the_games_only() -> None:
    base = ArenaConfig(games=10, seed=1)
    assert ArenaConfig(games=500, seed=1, workers=4).config_hash == base.config_hash
    assert ArenaConfig(games=10, seed=1, backend="ray").config_hash == base.config_hash
    changed = [
        ArenaConfig(games=10, seed=2),
        ArenaConfig(games=10, seed=1, budget=10),
        ArenaConfig(games=10, seed=1, seconds=0.5),
        ArenaConfig(games=10, seed=1, mr_x_options={"c": 1}),
        ArenaConfig(games=10, seed=1, detectives_options={"c": 1}),
        ArenaConfig(games=10, seed=1, rules=Rules.classic(detectives=4)),
        ArenaConfig(games=10, seed=1, rules=Rules.classic().replace(black_tickets=2)),
        ArenaConfig(games=10, seed=1, mr_x="other"),
    ]
    hashes = {c.config_hash for c in changed}
    assert len(hashes) == len(changed) and base.config_hash not in hashes


def test_config_round_trips_through_json() -> None:
    cfg = ArenaConfig(games=7, seed=3, rules=Rules.new_edition(detectives=3), budget=20,
                      mr_x_options={"c": 0.7, "name": "x"}, workers=2)
    again = ArenaConfig.from_dict(json.loads(json.dumps(cfg.to_dict())))
    assert again == cfg and again.config_hash == cfg.config_hash


@pytest.mark.parametrize(("kw", "message"), [
    ({"games": 0}, "games"),
    ({"workers": 0}, "workers"),
    ({"backend": "mpi"}, "backend"),
    ({"budget": 0}, "playouts"),
    ({"seconds": -1.0}, "seconds"),
    ({"mr_x_options": {"not a name": 1}}, "not a valid name"),
    ({"detectives_options": {"f": object()}}, "JSON value"),
    ({"seed": "7"}, "seed"),
])
def test_bad_config_values_are_refused(kw: dict, message: str) -> None:
    with pytest.raises(ArenaError, match=message):
        ArenaConfig(**kw)


def test_parse_options_reads_json_values_else_text() -> None:
    got = parse_options(["c=0.7", "n=3", "flag=true", "none=null", "xs=[1, 2]", "name=ucb1",
                         "eq=a=b"], "--mr-x-opt")
    assert got == {"c": 0.7, "n": 3, "flag": True, "none": None, "xs": [1, 2], "name": "ucb1",
                   "eq": "a=b"}
    with pytest.raises(ArenaError, match="--mr-x-opt 'c' is not key=value"):
        parse_options(["c"], "--mr-x-opt")
    with pytest.raises(ArenaError, match="not a valid name"):
        parse_options(["1c=2"], "--mr-x-opt")
    with pytest.raises(ArenaError, match="given twice"):
        parse_options(["c=1", "c=2"], "--mr-x-opt")


def test_unknown_agent_is_refused_before_any_game(tmp_path: Path) -> None:
    with pytest.raises(ArenaError, match="unknown agent 'nosuch'"):
        run_arena(ArenaConfig(mr_x="nosuch", games=2), tmp_path / "run", progress=False)
    assert not (tmp_path / "run").exists()


# ---- games ----------------------------------------------------------------------------------


def _records(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((folder / "games").iterdir())}


def _manifest(folder: Path) -> list[dict]:
    return [json.loads(line) for line in (folder / "manifest.jsonl").read_text().splitlines()]


def _outcomes(result: ArenaResult) -> list[tuple]:
    return [(g.index, g.seed, g.winner, g.reason, g.round, g.plies, dict(g.moves), g.record)
            for g in result.games]


def test_game_i_uses_seeds_derived_from_run_seed_and_index() -> None:
    cfg = ArenaConfig(games=3, seed=11)
    result, _, _ = play_game(cfg, 2)
    assert result.seed == game_seed(11, 2, "start")
    assert len({game_seed(11, i, p) for i in range(50) for p in ("start", "mr_x", "detectives")}) == 150
    # the game is exactly the one the agents' own seeded streams play
    game = Game.new(cfg.rules, seed=game_seed(11, 2, "start"))
    rngs = {s: random.Random(game_seed(11, 2, s)) for s in ("mr_x", "detectives")}
    while not game.is_over():
        legal = game.legal_moves()
        side = game.side_to_move
        game.push(RandomAgent().choose(game.view(game.to_move), legal, rngs[side], Budget()))  # type: ignore[arg-type]
    assert result.plies == game.ply and result.winner == game.outcome().winner  # type: ignore[union-attr]
    assert result.moves["mr_x"] + result.moves["detectives"] == game.ply


def test_same_config_gives_identical_records_on_one_and_two_workers(tmp_path: Path) -> None:
    one = run_arena(ArenaConfig(games=6, seed=5, workers=1), tmp_path / "one", progress=False)
    two = run_arena(ArenaConfig(games=6, seed=5, workers=2), tmp_path / "two", progress=False)
    assert one.played == two.played == 6
    assert _records(tmp_path / "one") == _records(tmp_path / "two")
    assert _outcomes(one) == _outcomes(two)
    assert len({g.seed for g in one.games}) == 6
    # another seed gives other games
    run_arena(ArenaConfig(games=6, seed=6), tmp_path / "other", progress=False)
    assert _records(tmp_path / "other") != _records(tmp_path / "one")


def test_interrupted_run_resumes_without_replaying(tmp_path: Path) -> None:
    cfg = ArenaConfig(games=8, seed=2)
    part = run_arena(cfg, tmp_path / "run", progress=False, max_games=3)
    assert (part.played, part.recorded, part.complete) == (3, 3, False)
    first = _records(tmp_path / "run")
    assert sorted(first) == ["000000.json", "000001.json", "000002.json"]
    assert json.loads((tmp_path / "run" / "results.json").read_text())["games_recorded"] == 3
    # a game whose manifest line was cut short by the interruption is played again
    path = tmp_path / "run" / "manifest.jsonl"
    path.write_text(path.read_text() + '{"config_hash": "')
    rest = run_arena(cfg, tmp_path / "run", progress=False)
    assert (rest.played, rest.recorded, rest.complete) == (5, 8, True)
    assert [e["game"]["index"] for e in _manifest(tmp_path / "run")] == list(range(8))
    after = _records(tmp_path / "run")
    assert {k: after[k] for k in first} == first
    # the same games as one uninterrupted run
    whole = run_arena(cfg, tmp_path / "whole", progress=False)
    assert _records(tmp_path / "whole") == after and _outcomes(whole) == _outcomes(rest)
    # nothing left to do: nothing is played again
    again = run_arena(cfg, tmp_path / "run", progress=False)
    assert (again.played, again.recorded) == (0, 8)
    # more games extend the same run
    more = run_arena(ArenaConfig(games=10, seed=2), tmp_path / "run", progress=False)
    assert (more.played, more.recorded) == (2, 10)


def test_a_changed_config_in_the_same_folder_is_refused(tmp_path: Path) -> None:
    run_arena(ArenaConfig(games=2, seed=1), tmp_path, progress=False)
    with pytest.raises(ArenaError, match=r"another configuration .*seed: 1 -> 2"):
        run_arena(ArenaConfig(games=2, seed=2), tmp_path, progress=False)
    with pytest.raises(ArenaError, match=r"rules\.black_tickets: 5 -> 2"):
        run_arena(ArenaConfig(games=2, seed=1, rules=Rules.classic().replace(black_tickets=2)),
                  tmp_path, progress=False)
    assert len(_manifest(tmp_path)) == 2


def test_results_file_holds_win_rates_reasons_length_and_times(tmp_path: Path) -> None:
    cfg = ArenaConfig(games=24, seed=9, rules=Rules.classic(detectives=3), budget=5)
    result = run_arena(cfg, tmp_path, progress=False)
    data = json.loads((tmp_path / "results.json").read_text())
    games = [e["game"] for e in _manifest(tmp_path)]
    mr_x_wins = sum(g["winner"] == "mr_x" for g in games)
    assert data["config_hash"] == cfg.config_hash and data["complete"] is True
    assert data["games_recorded"] == data["games_decided"] == 24
    assert data["win_rate"]["mr_x"]["wins"] == mr_x_wins
    assert data["win_rate"]["detectives"]["wins"] == 24 - mr_x_wins
    assert data["win_rate"]["mr_x"]["ci"] == list(wilson_interval(mr_x_wins, 24))
    reasons = data["reasons"]
    assert sum(reasons["mr_x"].values()) == mr_x_wins
    assert set(reasons["mr_x"]) <= {"survived", "detectives_stuck"}
    assert set(reasons["detectives"]) <= {"caught", "cornered"}
    rounds = [g["round"] for g in games]
    assert data["rounds"]["mean"] == pytest.approx(sum(rounds) / 24)
    assert (data["rounds"]["min"], data["rounds"]["max"]) == (min(rounds), max(rounds))
    tpm = data["time_per_move"]
    assert tpm["mr_x"]["moves"] + tpm["detectives"]["moves"] == sum(g["plies"] for g in games)
    assert tpm["mr_x"]["mean_s"] > 0 and tpm["detectives"]["max_s"] >= tpm["detectives"]["mean_s"]
    assert data["errors"] == []
    text = (tmp_path / "results.txt").read_text()
    assert text == result.table()
    lo, hi = wilson_interval(mr_x_wins, 24)
    assert f"{mr_x_wins / 24:.1%}" in text and f"{lo:.1%} - {hi:.1%}" in text
    assert "3 detectives" in text and "Outcome reasons" in text and "Game length" in text


def test_every_game_record_replays_to_its_manifest_result(tmp_path: Path) -> None:
    cfg = ArenaConfig(games=5, seed=8, rules=Rules.new_edition(detectives=2), detectives="cal",
                      detectives_options={"epsilon": 0.5})
    result = run_arena(cfg, tmp_path, progress=False)
    for g in result.games:
        record = Record.load(tmp_path / g.record)  # type: ignore[operator]
        game = record.replay()
        assert game.seed == g.seed and game.ply == g.plies
        assert (game.outcome().winner, game.outcome().reason) == (g.winner, g.reason)  # type: ignore[union-attr]
        assert record.players == {"X": "random", "D1": "cal(epsilon=0.5)", "D2": "cal(epsilon=0.5)",
                                  "P1": "cal(epsilon=0.5)", "P2": "cal(epsilon=0.5)"}
        assert record.event == f"arena {cfg.config_hash} game {g.index}"


# ---- what agents see, and agents that fail ---------------------------------------------------


class _Spy:
    """Random play that keeps every view and budget it was given."""

    name = "spy"

    def __init__(self, seen: list) -> None:
        self.seen = seen

    def choose(self, view: PlayerView, legal: Sequence[Move], rng: random.Random,
               budget: Budget) -> Move:
        self.seen.append((view, tuple(legal), budget))
        return legal[rng.randrange(len(legal))]


def test_agents_get_their_own_view_and_all_unmoved_pieces_in_free_order(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: dict[str, list] = {"mr_x": [], "detectives": []}
    monkeypatch.setitem(ai_base._REGISTRY, "test-spy",
                        lambda side=None, **_: _Spy(seen[side]))  # type: ignore[index]
    cfg = ArenaConfig(mr_x="test-spy", detectives="test-spy", games=3, seed=4, budget=7,
                      rules=Rules.new_edition(detectives=3))
    run_arena(cfg, tmp_path, progress=False)
    assert seen["mr_x"] and seen["detectives"]
    for view, legal, budget in seen["mr_x"]:
        assert view.side == "mr_x" and view.to_move == "X" and budget == Budget(playouts=7)
        assert set(legal) == set(view.legal_moves)
    several = 0
    for view, legal, _ in seen["detectives"]:
        # R-ORDER-FREE: the view of game.to_move, moves of every unmoved piece, piece-prefixed
        assert view.side == "detectives" and view.viewer == view.to_move
        pieces = {m.piece for m in legal}
        assert pieces <= set(view.pieces_to_move)
        # a stuck piece waits while another can move (it passes only when none can)
        assert pieces == set(view.pieces_to_move) or not any(m.is_pass for m in legal)
        several += len(view.pieces_to_move) > 1
        # hidden information: Mr X's station only where the log reveals it
        revealed = {e.station for e in view.log if e.reveal}
        assert "X" not in view.start
        assert view.mr_x_station is None or view.mr_x_station in revealed
        assert all(e.station is None for e in view.log if not e.reveal)
    assert several > 0


def test_an_illegal_move_is_recorded_as_an_error(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    class Cheat:
        name = "cheat"

        def choose(self, view, legal, rng, budget):  # type: ignore[no-untyped-def]
            if view.round == 2 and view.to_move == "D2":
                return Move.parse("T1")  # not a neighbour of any start card's station
            return legal[0]

    monkeypatch.setitem(ai_base._REGISTRY, "test-cheat", lambda **_: Cheat())
    cfg = ArenaConfig(detectives="test-cheat", games=3, seed=1)
    result = run_arena(cfg, tmp_path, progress=False)
    assert result.errors, "the cheat was not caught"
    err = result.errors[0]
    assert "D2's agent test-cheat returned an illegal move T1" in err.error  # type: ignore[operator]
    assert "R-BOARD" in err.error and err.winner is None  # type: ignore[operator]
    data = json.loads((tmp_path / "results.json").read_text())
    assert data["games_decided"] == 3 - len(result.errors)
    assert data["win_rate"]["mr_x"]["games"] == 3 - len(result.errors)
    assert {e["index"] for e in data["errors"]} == {g.index for g in result.errors}
    assert "illegal move T1" in (tmp_path / "results.txt").read_text()
    # the record of the stopped game is kept, up to the bad move
    assert (tmp_path / err.record).exists()  # type: ignore[operator]


def test_an_agent_that_raises_is_recorded_as_an_error(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    class Broken:
        name = "broken"

        def choose(self, view, legal, rng, budget):  # type: ignore[no-untyped-def]
            raise RuntimeError("search blew up")

    monkeypatch.setitem(ai_base._REGISTRY, "test-broken", lambda **_: Broken())
    result = run_arena(ArenaConfig(mr_x="test-broken", games=2), tmp_path, progress=False)
    assert [g.error for g in result.errors] == [
        "X's agent test-broken raised RuntimeError at ply 1 (round 1): search blew up"] * 2
    assert "RuntimeError: search blew up" in result.errors[0].error_detail  # type: ignore[operator]
    assert result.win_rate("mr_x").games == 0


def test_agent_options_reach_the_factory_and_refusals_are_clear(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    got: list[tuple] = []

    def factory(side=None, depth=1):  # type: ignore[no-untyped-def]
        got.append((side, depth))
        return RandomAgent()

    monkeypatch.setitem(ai_base._REGISTRY, "test-opts", factory)
    run_arena(ArenaConfig(mr_x="test-opts", mr_x_options={"depth": 3}, games=1), tmp_path / "a",
              progress=False)
    assert ("mr_x", 3) in got
    with pytest.raises(ArenaError, match=r"cannot make the detectives agent 'test-opts' "
                                         r"\(width=2\).*width"):
        run_arena(ArenaConfig(detectives="test-opts", detectives_options={"width": 2}, games=1),
                  tmp_path / "b", progress=False)


def test_a_game_failing_in_a_worker_stops_the_run_with_a_clear_error(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    parent = os.getpid()

    def factory(side=None, **_):  # type: ignore[no-untyped-def]
        if os.getpid() != parent:
            raise RuntimeError("no model file in this process")
        return RandomAgent()

    monkeypatch.setitem(ai_base._REGISTRY, "test-parent-only", factory)
    with pytest.raises(ArenaError, match=r"game \d+ failed in a worker \(ArenaError: cannot make "
                                         r"the Mr X agent 'test-parent-only'.*no model file"):
        run_arena(ArenaConfig(mr_x="test-parent-only", games=4, workers=2), tmp_path,
                  progress=False)
    assert json.loads((tmp_path / "results.json").read_text())["games_recorded"] == 0


def test_missing_ray_gives_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray now raises ImportError
    with pytest.raises(ArenaError, match=r"needs Ray: pip install 'scotlandyard\[ray\]'"):
        run_arena(ArenaConfig(games=2, backend="ray"), tmp_path, progress=False)


# ---- the command -------------------------------------------------------------------------------


def _app() -> typer.Typer:
    app = typer.Typer()
    app.command("arena")(arena)

    @app.command("version")
    def version() -> None:  # a second command keeps "arena" a sub-command, as in the real CLI
        """Print nothing."""

    return app


def test_cli_plays_writes_results_and_plot_and_resumes(tmp_path: Path) -> None:
    runner = CliRunner()
    out = tmp_path / "run"
    args = ["arena", "--mr-x", "random", "--detectives", "random", "--games", "6", "--seed", "3",
            "--workers", "1", "--preset", "new_edition", "-n", "2", "--rule", "last_round=12",
            "--rule", "reveal_slots=[3, 8, 13]",
            "--out", str(out), "--no-progress"]
    first = runner.invoke(_app(), [*args, "--max-new-games", "4"])
    assert first.exit_code == 0, first.output
    assert "2 games still to play" in first.output
    res = runner.invoke(_app(), [*args, "--plot"])
    assert res.exit_code == 0, res.output
    assert "6/6 games recorded" in res.output and "Win rate per side" in res.output
    data = json.loads((out / "results.json").read_text())
    assert data["games_recorded"] == 6
    assert data["config"]["rules"]["last_round"] == 12 and data["config"]["rules"]["police"] == 2
    assert max(e["game"]["round"] for e in _manifest(out)) <= 12
    png = out / "winrates.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    import matplotlib.image

    assert matplotlib.image.imread(png).shape[:2] == (420, 1000)


@pytest.mark.parametrize(("args", "message"), [
    (["--mr-x", "nosuch"], "unknown agent 'nosuch'"),
    (["--detectives-opt", "depth"], "--detectives-opt 'depth' is not key=value"),
    (["--mr-x-opt", "=3"], "is not a valid name"),
    (["--preset", "chess"], "--preset 'chess' is not a preset"),
    (["--preset", "classic_2p", "-n", "3"], "fixes the number of detectives"),
    (["--rule", "colour=red"], "unknown rule setting"),
    (["--rule", "last_round=0"], "last_round is at least 1"),
    (["--backend", "mpi"], "backend is 'local' or 'ray'"),
])
def test_cli_bad_options_give_clear_errors(tmp_path: Path, args: list[str], message: str) -> None:
    res = CliRunner().invoke(_app(), ["arena", "--games", "1", "--out", str(tmp_path / "r"),
                                      "--no-progress", *args])
    assert res.exit_code == 2
    assert message in " ".join(res.output.split())
    assert not (tmp_path / "r").exists()


def test_cli_changed_config_and_agent_errors_set_the_exit_code(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    runner = CliRunner()
    base = ["arena", "--games", "2", "--out", str(tmp_path), "--no-progress", "-j", "1"]
    assert runner.invoke(_app(), [*base, "--seed", "1"]).exit_code == 0
    res = runner.invoke(_app(), [*base, "--seed", "2"])
    assert res.exit_code == 2 and "seed: 1 -> 2" in " ".join(res.output.split())

    class Broken:
        name = "broken"

        def choose(self, view, legal, rng, budget):  # type: ignore[no-untyped-def]
            raise ValueError("no idea")

    monkeypatch.setitem(ai_base._REGISTRY, "test-broken", lambda **_: Broken())
    res = runner.invoke(_app(), ["arena", "--games", "1", "--out", str(tmp_path / "b"),
                                 "--no-progress", "-j", "1", "--detectives", "test-broken"])
    assert res.exit_code == 1 and "1 games stopped on an agent error" in res.output


def test_cli_default_folder_is_named_after_the_agents_and_config(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    res = CliRunner().invoke(_app(), ["arena", "-g", "2", "--seed", "4", "-j", "1",
                                      "--no-progress"])
    assert res.exit_code == 0, res.output
    expected = f"random-vs-random-{ArenaConfig(seed=4).config_hash[:8]}"
    assert [p.name for p in (tmp_path / "runs").iterdir()] == [expected]
    assert len(_manifest(tmp_path / "runs" / expected)) == 2
