"""Run the ```python blocks of a Markdown file in order, in one namespace (used by
tests/test_docs.py in a subprocess, in a temporary folder outside the checkout).

A result comment ``# -> TEXT`` on an expression statement is checked: the expression's
``repr`` (for a ``print(...)`` call: what it printed, stripped) must equal ``TEXT``, where
``...`` in ``TEXT`` stands for any text. A ``# ->`` on any other statement is an error, so
every result a block shows is one it computes.

Usage: python doc_blocks.py FILE.md
"""

from __future__ import annotations

import ast
import contextlib
import io
import re
import sys
from pathlib import Path

RESULT = re.compile(r"#\s*->\s?(.*?)\s*$")


def python_blocks(text: str) -> list[tuple[int, str]]:
    """The ```python blocks of ``text``: (line of the block's first code line, code)."""
    out: list[tuple[int, str]] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        fence = lines[i].strip()
        if fence.startswith("```"):
            lang = fence[3:].strip()
            j = i + 1
            while j < len(lines) and not lines[j].strip().startswith("```"):
                j += 1
            if lang == "python":
                out.append((i + 2, "\n".join(lines[i + 1:j]) + "\n"))
            i = j + 1
        else:
            i += 1
    return out


def matches(expected: str, got: str) -> bool:
    """``got`` equals ``expected``, where ``...`` in ``expected`` is any text."""
    pattern = ".*".join(re.escape(part) for part in expected.split("..."))
    return re.fullmatch(pattern, got, re.DOTALL) is not None


def run(path: Path) -> int:
    """Run every block of ``path``; the number of checked results."""
    ns: dict[str, object] = {"__name__": "__main__"}
    checked = 0
    for first, code in python_blocks(path.read_text(encoding="utf-8")):
        where = f"{path.name}:{first}"
        tree = ast.parse(code, filename=where)
        lines = code.splitlines()
        for k, stmt in enumerate(tree.body):
            end = stmt.end_lineno or stmt.lineno
            later = k + 1 < len(tree.body) and tree.body[k + 1].lineno == end
            result = None if later else RESULT.search(lines[end - 1])  # the line's last one
            ast.increment_lineno(stmt, first - 1)
            if result is None:
                exec(compile(ast.Module([stmt], []), str(path), "exec"), ns)
                continue
            line = stmt.lineno
            if not isinstance(stmt, ast.Expr):
                raise AssertionError(f"{path.name}:{line}: a '# ->' result on a statement "
                                     "that is not an expression cannot be checked")
            call = stmt.value
            printing = isinstance(call, ast.Call) and isinstance(call.func, ast.Name) \
                and call.func.id == "print"
            buf = io.StringIO()
            with contextlib.redirect_stdout(buf):
                value = eval(compile(ast.Expression(stmt.value), str(path), "eval"), ns)
            got = buf.getvalue().strip() if printing else repr(value)
            sys.stdout.write(buf.getvalue())
            if not matches(result.group(1), got):
                raise AssertionError(f"{path.name}:{line}: the block shows "
                                     f"{result.group(1)!r}, the code gives {got!r}")
            checked += 1
    return checked


if __name__ == "__main__":
    n = run(Path(sys.argv[1]))
    print(f"doc blocks OK: {n} results checked")
