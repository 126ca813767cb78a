"""Every ```python block of README.md, README.pypi.md (the index page's description) and
docs/*.md runs as printed (issue 25, item 1).

Each file's blocks run in order in one namespace, in a fresh interpreter, in a temporary folder
outside the checkout (so they find only the installed package: PYTHONPATH points at this
checkout's package, nothing else), and every result comment ``# -> ...`` is checked against the
value (tests/doc_blocks.py). A block that is not meant to run is fenced with another language
(``text``, ``bash``, ``console``)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from .doc_blocks import matches, python_blocks

ROOT = Path(__file__).resolve().parents[1]
FILES = sorted([ROOT / "README.md", ROOT / "README.pypi.md", *(ROOT / "docs").glob("*.md")])
WITH_BLOCKS = [p for p in FILES if python_blocks(p.read_text(encoding="utf-8"))]


def test_the_runner_finds_blocks_and_checks_results() -> None:
    text = "a\n```python\nx = 1\n```\n```bash\nls\n```\n```python\nx  # -> 1\n```\n"
    assert python_blocks(text) == [(3, "x = 1\n"), (9, "x  # -> 1\n")]
    assert matches("[SingleMove('T92'), ...]", "[SingleMove('T92'), DoubleMove('x')]")
    assert not matches("'X'", "'D1'")
    assert ROOT / "README.md" in WITH_BLOCKS and len(WITH_BLOCKS) >= 5


@pytest.mark.parametrize("path", WITH_BLOCKS, ids=[p.name for p in WITH_BLOCKS])
def test_the_python_blocks_run_as_printed(path: Path, tmp_path: Path) -> None:
    assert not tmp_path.resolve().is_relative_to(ROOT)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "MPLBACKEND": "Agg"}
    proc = subprocess.run([sys.executable, str(ROOT / "tests" / "doc_blocks.py"), str(path)],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=540)  # numba may compile
    assert proc.returncode == 0, f"{path.name}:\n{proc.stdout[-3000:]}\n{proc.stderr[-5000:]}"
    assert "doc blocks OK" in proc.stdout
