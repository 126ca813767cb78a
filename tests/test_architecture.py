"""The package's structure (docs/architecture.md): no import circle anywhere, and the rings
hold module by module (core <- kernel <- ai/env/data <- server/cli). Every import of the
package's own modules counts, lazy ones inside functions too (``tests/test_imports.py``'s
graph, read from the source with :mod:`ast`)."""

from __future__ import annotations

from tests.test_imports import import_graph

#: the rings, innermost first: a module may import its own ring and the rings inside it
RINGS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("core", ("board", "rules", "move", "game", "view", "belief", "record", "small_boards",
              "puzzles", "analysis", "tutorial")),
    ("kernel", ("kernel",)),
    ("agents and environments", ("ai", "env", "data", "warmup")),
    ("server and command line", ("server", "cli", "cli_play", "cli_render", "__main__")),
)


def ring_of(module: str) -> int | None:
    """The ring index of a module of the package (``None`` for the package itself)."""
    parts = module.split(".")
    if len(parts) == 1:
        return None
    for i, (_, tops) in enumerate(RINGS):
        if parts[1] in tops:
            return i
    raise AssertionError(f"{module} is in no ring: add it to RINGS and docs/architecture.md")


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import circles: Tarjan's strongly connected components of more than one module."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_cycles_finds_a_circle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_no_module_imports_itself_back() -> None:
    assert cycles(import_graph()) == []


def test_every_import_points_inwards() -> None:
    graph = import_graph()
    wrong = sorted((m, d) for m, deps in graph.items() for d in deps
                   if ring_of(m) is not None and ring_of(d) is not None
                   and ring_of(d) > ring_of(m))  # type: ignore[operator]
    assert wrong == [], "imports from an outer ring"
