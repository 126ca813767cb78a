"""The Gymnasium ids in other processes: the module form works where nothing imported the
package, and SB3's ``SubprocVecEnv`` (forkserver children) knows the bare ids when the parent
imported ``scotlandyard.env`` inside ``main()`` (before: ``NamespaceNotFound: scotlandyard``)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import gymnasium
import pytest

import scotlandyard.env as sye

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.timeout(120)


def _python(code: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    script = tmp_path / "script.py"
    script.write_text(textwrap.dedent(code))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])}
    return subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=env, text=True,
                          capture_output=True, timeout=100)


def test_the_module_form_works_in_a_process_that_never_imported_the_package(tmp_path):
    res = _python("""
        import sys
        import gymnasium
        assert not any(m.startswith("scotlandyard") for m in sys.modules)
        env = gymnasium.make("scotlandyard.env:scotlandyard/Detectives-v0", rules="classic")
        obs, info = env.reset(seed=1)
        print(env.spec.id, obs.shape, int(info["action_mask"].sum()) > 0)
        """, tmp_path)
    assert res.returncode == 0, res.stderr
    assert res.stdout.split()[0] == "scotlandyard/Detectives-v0"


def test_subproc_vec_env_with_the_package_imported_inside_main(tmp_path):
    pytest.importorskip("stable_baselines3")
    res = _python("""
        import numpy as np

        def main():
            import scotlandyard.env  # noqa: F401  (inside main, as a training script may)
            from stable_baselines3.common.env_util import make_vec_env
            from stable_baselines3.common.vec_env import SubprocVecEnv

            venv = make_vec_env("scotlandyard/MrX-v0", n_envs=2, seed=0,
                                vec_env_cls=SubprocVecEnv, env_kwargs={"rules": "classic"})
            obs = venv.reset()
            masks = np.stack(venv.env_method("action_masks"))
            obs, rewards, dones, infos = venv.step(masks.argmax(axis=1))
            venv.close()
            print(obs.shape[0], len(rewards))

        if __name__ == "__main__":
            main()
        """, tmp_path)
    assert res.returncode == 0, res.stderr[-3000:]
    assert res.stdout.split() == ["2", "2"]


def test_register_envs_registers_the_ids_again():
    for env_id in sye.GYM_IDS:
        gymnasium.registry.pop(env_id)
    assert sye.register_envs() == sye.GYM_IDS
    assert all(env_id in gymnasium.registry for env_id in sye.GYM_IDS)
    assert sye.register_envs() == sye.GYM_IDS  # idempotent
    gymnasium.make("scotlandyard/MrX-v0").close()
