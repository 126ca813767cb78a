"""The arena on Ray (a local Ray with 2 CPUs) plays the same games as the local backend."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import ray  # the "ray" extra: part of the test environment (pip install -e ".[all]")

from scotlandyard.ai.arena import ArenaConfig, run_arena

pytestmark = pytest.mark.slow


def _games(folder: Path) -> tuple[dict[str, bytes], list[tuple]]:
    records = {p.name: p.read_bytes() for p in sorted((folder / "games").iterdir())}
    lines = [json.loads(line)["game"] for line in (folder / "manifest.jsonl").read_text().splitlines()]
    outcomes = sorted((g["index"], g["seed"], g["winner"], g["reason"], g["round"], g["plies"])
                      for g in lines)
    return records, outcomes


@pytest.fixture
def ray_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    """A private HOME and no token auth for the local Ray; Ray is down again afterwards."""
    monkeypatch.setenv("RAY_AUTH_MODE", "disabled")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    (tmp_path / "home").mkdir()
    yield
    if ray.is_initialized():
        ray.shutdown()


def test_ray_backend_plays_the_same_games_as_the_local_pool(tmp_path: Path, ray_env: None) -> None:
    local = run_arena(ArenaConfig(games=4, seed=21, workers=1), tmp_path / "local", progress=False)
    ray.init(num_cpus=2, include_dashboard=False)
    # a Ray that is already up is joined, and left up for its owner
    on_ray = run_arena(ArenaConfig(games=4, seed=21, workers=2, backend="ray"), tmp_path / "ray",
                       progress=False, max_games=3)
    assert ray.is_initialized() and on_ray.played == 3
    ray.shutdown()
    # without a running Ray the arena starts a local one (num_cpus = workers), resumes the run
    # and shuts Ray down at the end
    rest = run_arena(ArenaConfig(games=4, seed=21, workers=2, backend="ray"), tmp_path / "ray",
                     progress=False)
    assert not ray.is_initialized()
    assert rest.played == 1 and rest.complete
    assert _games(tmp_path / "ray") == _games(tmp_path / "local")
    assert rest.to_dict()["win_rate"] == local.to_dict()["win_rate"]
