"""No import circles in benchpipe: every module's imports, at module level and inside
functions alike (an import moved into a function still closes the circle, it only hides
it until the function runs), form a graph without cycles."""

from __future__ import annotations

import ast
from pathlib import Path

from benchpipe import CI_SCRIPTS

PACKAGE = CI_SCRIPTS / "benchpipe"


def _modules() -> dict[str, Path]:
    """benchpipe.x.y -> its file (a package is its __init__.py)."""
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(CI_SCRIPTS).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _imports(name: str, path: Path, known: set[str]) -> set[str]:
    """The benchpipe modules `name` imports anywhere in its file."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1] + ([base] if base else []))
            # `from benchpipe import compare` imports the module benchpipe.compare;
            # `from benchpipe.compare import METRICS` imports benchpipe.compare
            found.update(f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names)
    return {m for m in found if m in known and m != name}


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of the graph as a path (first == last), or None."""
    state: dict[str, int] = {}   # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return None


def test_benchpipe_has_no_import_cycles():
    modules = _modules()
    graph = {name: _imports(name, path, set(modules)) for name, path in modules.items()}
    assert graph["benchpipe.compare"] and graph["benchpipe.commands.pipeline"]  # the parser sees imports
    cycle = _cycle(graph)
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def test_the_cycle_check_finds_a_cycle_inside_a_function(tmp_path):
    """The check itself: an import in a function body closes a circle too."""
    a, b = tmp_path / "a.py", tmp_path / "b.py"
    a.write_text("from pkg import b\n")
    b.write_text("def f():\n    from pkg.a import x\n    return x\n")
    known = {"pkg.a", "pkg.b"}
    graph = {"pkg.a": _imports("pkg.a", a, known), "pkg.b": _imports("pkg.b", b, known)}
    assert graph == {"pkg.a": {"pkg.b"}, "pkg.b": {"pkg.a"}}
    assert _cycle(graph) == ["pkg.a", "pkg.b", "pkg.a"]
