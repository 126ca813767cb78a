"""Worker processes with a PyTorch policy (the arena's local backend, which the ladder and
``dataset`` use too): a Stable-Baselines3 model made in the parent (which
starts torch's OpenMP threads there) plays in forked workers without hanging (before, every
worker waited for ever in libgomp's barrier at 0% CPU). Each run is a fresh ``scotlandyard``
process with a deadline, killed with its workers if it hangs."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("sb3_contrib")  # the rl extra (part of the test command's install)

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.timeout(180)


def _run(args: list[str], deadline: float = 90.0) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])}
    proc = subprocess.Popen([sys.executable, "-m", "scotlandyard.cli", *args], cwd=ROOT,
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=deadline)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)  # the parent and its hung workers
        proc.communicate()
        pytest.fail(f"scotlandyard {' '.join(args)} hung for {deadline:g} s")
    return subprocess.CompletedProcess(args, proc.returncode, out, "")


def test_arena_with_an_sb3_policy_on_two_workers_finishes(tmp_path: Path) -> None:
    res = _run(["arena", "--mr-x", "tests.policy_fixtures:sb3_mr_x", "--games", "4",
                "--workers", "2", "--seed", "1", "--out", str(tmp_path), "--no-progress"])
    assert res.returncode == 0, res.stdout
    data = json.loads((tmp_path / "results.json").read_text())
    assert data["games_recorded"] == 4

