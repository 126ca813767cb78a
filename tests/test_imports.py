"""The package's imports run one way (docs/architecture.md, the rings): every ``import`` of the
package's own modules, at the top of a file or inside a function (a lazy import is an edge
too), read from the source with :mod:`ast`."""

from __future__ import annotations

import ast
from pathlib import Path

import scotlandyard

ROOT = Path(scotlandyard.__file__).parent


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def import_graph() -> dict[str, set[str]]:
    """Module -> the package's modules it imports (``from . import x`` names ``x`` if it is a
    module, else the package)."""
    modules = {_module_name(p): p for p in ROOT.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
        out: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                out.update(a.name for a in node.names if a.name.split(".")[0] == "scotlandyard")
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")
                    base = base[: len(base) - node.level + 1]
                    target = ".".join(base + ([node.module] if node.module else []))
                else:
                    target = node.module or ""
                if target.split(".")[0] != "scotlandyard":
                    continue
                for alias in node.names:
                    sub = f"{target}.{alias.name}"
                    out.add(sub if sub in modules else target)
        graph[name] = {m for m in out if m in modules and m != name}
    return graph


def reaches(graph: dict[str, set[str]], start: str, goal: str) -> list[str] | None:
    """An import chain from ``start`` to ``goal`` (None if there is none)."""
    seen = {start}
    todo = [[start]]
    while todo:
        chain = todo.pop()
        for nxt in sorted(graph.get(chain[-1], ())):
            if nxt == goal:
                return [*chain, nxt]
            if nxt not in seen:
                seen.add(nxt)
                todo.append([*chain, nxt])
    return None


def test_the_graph_sees_lazy_imports():
    graph = import_graph()
    assert "scotlandyard.ai.mcts" in graph["scotlandyard.warmup"]  # inside a function
    assert "scotlandyard.kernel.fast" in graph["scotlandyard.ai.mcts"]  # at the top


def test_the_kernel_imports_no_agent_env_or_server():
    """The kernel is the inner ring: it knows the core only (its warm-up takes what else to
    compile as an argument; the agents' warm-up is ``ai.mcts.warm_up``)."""
    graph = import_graph()
    outer = ("scotlandyard.ai", "scotlandyard.env", "scotlandyard.server", "scotlandyard.cli",
             "scotlandyard.warmup", "scotlandyard.data")
    for mod in (m for m in graph if m.startswith("scotlandyard.kernel")):
        for dep in graph[mod]:
            assert not dep.startswith(outer), f"{mod} imports {dep}"


def test_the_agent_registry_and_the_policy_adapter_are_not_a_circle():
    """One registry (``ai.base``: names, levels, trained policies); ``env.policy`` adapts a
    policy to the agent interface (``ai.interface``) and imports nothing back."""
    graph = import_graph()
    assert reaches(graph, "scotlandyard.env.policy", "scotlandyard.ai.base") is None, \
        reaches(graph, "scotlandyard.env.policy", "scotlandyard.ai.base")
    assert reaches(graph, "scotlandyard.ai.interface", "scotlandyard.env.policy") is None
    assert reaches(graph, "scotlandyard.kernel.fast", "scotlandyard.ai.mcts") is None
