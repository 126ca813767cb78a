"""The package as a user gets it (issue 25, items 5 and 7): the sdist and the wheel are built
from a copy of the checkout with the build backend (setuptools, no download), the wheel is
installed in a new virtual environment, and from there the import, the board data,
``py.typed``, ``scotlandyard serve`` (``/`` and every static file) and a user's script under
``mypy --strict`` are checked, all from folders outside the checkout. The editable install of
scripts/test.sh is one that mypy sees from outside too."""

from __future__ import annotations

import email
import os
import re
import shlex
import shutil
import subprocess
import sys
import tarfile
import time
import urllib.request
import zipfile
from pathlib import Path

import pytest

from .live_server import free_port

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[1]
STATIC = ROOT / "scotlandyard" / "server" / "static"
SKIP = shutil.ignore_patterns(".git", "__pycache__", "*.egg-info", "build", "dist", "runs",
                              "test-artifacts", ".*_cache", "*.sqlite3*", "tests", "benchmarks",
                              "examples", "*.pyc", "*.nbi", "*.nbc")
BUILD = ("import sys\nfrom setuptools import build_meta as b\n"
         "print('BUILT:' + getattr(b, 'build_' + sys.argv[1])(sys.argv[2]))\n")


def clean_env() -> dict[str, str]:
    """The environment without this checkout on the path (PYTHONPATH points at it)."""
    return {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "MYPYPATH")}


def run(cmd: list[str | Path], cwd: Path, timeout: float = 240) -> str:
    proc = subprocess.run([str(c) for c in cmd], cwd=cwd, env=clean_env(), capture_output=True,
                          text=True, timeout=timeout)
    assert proc.returncode == 0, f"{cmd}:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return proc.stdout + proc.stderr


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The sdist built from a copy of the checkout, and the wheel built from that sdist."""
    base = tmp_path_factory.mktemp("package")
    src, out = base / "src", base / "dist"
    shutil.copytree(ROOT, src, ignore=SKIP)
    out.mkdir()
    log = run([sys.executable, "-W", "always", "-c", BUILD, "sdist", out], src)
    sdist = out / re.findall(r"^BUILT:(.*)$", log, re.M)[-1]
    with tarfile.open(sdist) as tar:
        tar.extractall(base / "unpacked", filter="data")
    (unpacked,) = (base / "unpacked").iterdir()
    log += run([sys.executable, "-W", "always", "-c", BUILD, "wheel", out], unpacked)
    wheel = out / re.findall(r"^BUILT:(.*)$", log, re.M)[-1]
    (base / "build.log").write_text(log)
    return {"sdist": sdist, "wheel": wheel, "src": src, "base": base, "log": base / "build.log"}


def make_venv(path: Path) -> Path:
    """A new virtual environment that sees the system's packages; its python."""
    run([sys.executable, "-m", "venv", "--system-site-packages", "--without-pip", path], path.parent)
    return path / "bin" / "python"


@pytest.fixture(scope="module")
def venv(dist: dict[str, Path]) -> Path:
    """A new virtual environment with the wheel installed (its own dependencies come from the
    system's site-packages: no download)."""
    python = make_venv(dist["base"] / "venv")
    run([python, "-m", "pip", "install", "-q", "--no-deps", "--no-index", dist["wheel"]],
        dist["base"])
    return python


def test_the_sdist_and_the_wheel_hold_the_package(dist: dict[str, Path]) -> None:
    log = dist["log"].read_text()
    assert "SetuptoolsDeprecationWarning" not in log, log  # e.g. a TOML-table license
    with tarfile.open(dist["sdist"]) as tar:
        names = {n.split("/", 1)[1] for n in tar.getnames() if "/" in n}
    for name in ("LICENSE", "README.md", "README.pypi.md", "pyproject.toml", "docs/rules.md",
                 "docs/env.md", "scotlandyard/data/small_boards.json", "scotlandyard/py.typed"):
        assert name in names, name
    with zipfile.ZipFile(dist["wheel"]) as whl:
        files = set(whl.namelist())
        (meta_name,) = [n for n in files if n.endswith(".dist-info/METADATA")]
        meta = email.message_from_bytes(whl.read(meta_name))
    for name in ("py.typed", "data/london.json", "data/small_boards.json",
                 "data/categorization.json", "data/mr_x_policy.npz"):
        assert f"scotlandyard/{name}" in files, name
    static = {f"scotlandyard/server/static/{p.relative_to(STATIC).as_posix()}"
              for p in STATIC.rglob("*") if p.is_file()}
    assert static and static <= files
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in files)
    assert meta["License-Expression"] == "MIT" and meta["License"] is None
    classifiers = meta.get_all("Classifier") or []
    assert "Typing :: Typed" in classifiers and "Programming Language :: Python :: 3.11" in classifiers
    assert meta["Author"] or meta["Author-email"]
    assert "numpy>=1.26" in (meta.get_all("Requires-Dist") or [])
    body = meta.get_payload()
    assert isinstance(body, str) and "Scotland Yard" in body
    relative = re.findall(r"\]\((?!https?://|#)([^)]*)\)", body) + re.findall(r"\.\./shared", body)
    assert relative == []  # links that break on an index page
    for url in meta.get_all("Project-URL") or []:
        assert url.split(", ", 1)[1].startswith("https://"), url


def test_the_wheel_imports_in_a_new_venv_with_its_data(venv: Path, tmp_path: Path) -> None:
    out = run([venv, "-c", """if True:
        import scotlandyard, sys
        from importlib import resources
        from scotlandyard import Game, Rules
        from scotlandyard.board import london
        print(scotlandyard.__file__)
        assert resources.files("scotlandyard").joinpath("py.typed").is_file()
        assert len(london("classic").edges[0]) > 200 and london("tiny").playable
        game = Game.new("tiny", seed=1)
        game.push(game.legal_moves()[0])
        print("ok", Rules.preset("corner").board)
        """], tmp_path)
    first = out.splitlines()[0]
    assert first.startswith(str(venv.parent.parent)) and "site-packages" in first, out
    assert "ok corner" in out


def test_serve_from_the_wheel_answers_the_page_and_every_static_file(venv: Path,
                                                                      tmp_path: Path) -> None:
    port = free_port()
    proc = subprocess.Popen([str(venv.parent / "scotlandyard"), "serve", "--host", "127.0.0.1",
                             "--port", str(port), "--db", str(tmp_path / "g.sqlite3")],
                            cwd=tmp_path, env=clean_env(), stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    try:
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(url + "/", timeout=5) as r:
                    page = r.read()
                break
            except OSError:
                assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
                assert time.monotonic() < deadline, "the server did not answer within 60 s"
                time.sleep(0.3)
        assert b"<html" in page.lower() and b"/static/" in page
        files = [p for p in STATIC.rglob("*") if p.is_file()]
        for path in files:
            rel = path.relative_to(STATIC).as_posix()
            with urllib.request.urlopen(f"{url}/static/{rel}", timeout=10) as r:
                assert r.status == 200 and r.read() == path.read_bytes(), rel
    finally:
        proc.terminate()
        proc.wait(timeout=30)


USER_SCRIPT = '''\
"""A user's script: the README's idioms under mypy --strict."""
from scotlandyard import Game, Move, Rules, data

game = Game.new(Rules.classic(), seed=7)
view = game.view(game.to_move)
first: Move = view.legal_moves[0]
game.push(first)
also = game.view()
for record in data.games("runs/games"):
    reveal_type(record)
    replayed: Game = record.replay()
'''


def test_a_users_script_passes_mypy_strict_against_the_wheel(venv: Path, tmp_path: Path) -> None:
    (tmp_path / "user.py").write_text(USER_SCRIPT)
    proc = subprocess.run([str(venv), "-m", "mypy", "--strict", "--no-incremental", "user.py"],
                          cwd=tmp_path, env=clean_env(), capture_output=True, text=True,
                          timeout=300)
    assert 'Revealed type is "scotlandyard.record.Record"' in proc.stdout, proc.stdout
    assert "error:" not in proc.stdout, proc.stdout


def test_the_editable_install_of_the_test_script_is_visible_to_mypy(dist: dict[str, Path],
                                                                     tmp_path: Path) -> None:
    line = next(x for x in (ROOT / "scripts" / "test.sh").read_text().splitlines()
                if x.startswith("python3 -m pip install") and " -e " in x)
    words = shlex.split(line)
    options = [w for i, w in enumerate(words) if w == "--config-settings"
               or i and words[i - 1] == "--config-settings"]
    assert options, "scripts/test.sh installs with setuptools' default editable mode"
    python = make_venv(tmp_path / "venv")
    run([python, "-m", "pip", "install", "-q", "--no-deps", "--no-index", "--no-build-isolation",
         *options, "-e", dist["src"]], tmp_path, timeout=300)
    user = tmp_path / "user"
    user.mkdir()
    (user / "user.py").write_text("import scotlandyard\nprint(scotlandyard.Game)\n")
    proc = subprocess.run([str(python), "-m", "mypy", "--strict", "--follow-imports=skip",
                           "--no-incremental", "user.py"], cwd=user, env=clean_env(),
                          capture_output=True, text=True, timeout=120)
    assert "Cannot find implementation" not in proc.stdout and proc.returncode == 0, proc.stdout
