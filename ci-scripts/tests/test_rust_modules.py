"""The Rust program's modules import each other without a circle: a scenario's module
uses the shared ones (params, outcome, runtime, ...), the table (scenarios) uses the
scenarios, the command line uses the table, and nothing leads back. A circle here ran
through 13 files once (issue 37)."""

from __future__ import annotations

import re

from benchpipe import ROOT

SRC = ROOT / "rust" / "src"
CRATE_PATH = re.compile(r"\bcrate::(?:\{([^}]*)\}|(\w+))")


def _module_of(path) -> str:
    rel = path.relative_to(SRC)
    return rel.parts[0] if len(rel.parts) > 1 else rel.stem   # sysinfo/unix.rs belongs to sysinfo


def _graph(cat) -> dict[str, set[str]]:
    modules = {_module_of(p) for p in SRC.rglob("*.rs")} - {"bin"}
    edges: dict[str, set[str]] = {m: set() for m in modules}
    for path in SRC.rglob("*.rs"):
        me = _module_of(path)
        if me == "bin":
            continue
        text = path.read_text(encoding="utf-8")
        text = re.sub(r"#\[cfg\(test\)\]\s*mod tests \{.*", "", text, flags=re.S)  # unit tests may use anything
        for group, single in CRATE_PATH.findall(text):
            for name in ([single] if single else [s.strip().split("::")[0] for s in group.split(",")]):
                if name in modules and name != me:
                    edges[me].add(name)
    # The generated table (build.rs, from the catalogue) names every scenario's module.
    edges["scenarios"] |= {name.replace("-", "_") for name, sc in cat.scenarios.items() if sc.variants.get("rust")}
    return edges


def _cycle(edges: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(n: str) -> list[str] | None:
        state[n] = 1
        stack.append(n)
        for m in sorted(edges.get(n, ())):
            if state.get(m) == 1:
                return stack[stack.index(m):] + [m]
            if m not in state and (found := visit(m)):
                return found
        stack.pop()
        state[n] = 2
        return None

    for n in sorted(edges):
        if n not in state and (found := visit(n)):
            return found
    return None


def test_rust_modules_import_each_other_without_a_circle(cat):
    edges = _graph(cat)
    assert {"hashmap", "outcome", "params", "scenarios", "cli"} <= set(edges)
    assert "outcome" in edges["hashmap"] and "params" in edges["hashmap"]
    assert _cycle(edges) is None, " -> ".join(_cycle(edges))


def test_the_circle_finder_finds_one():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None
