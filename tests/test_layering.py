"""The house reads bottom-up: no import circles between modules, and packages only import down.

Every import counts, including those inside functions and under ``TYPE_CHECKING``: a lazy import
hides a circle from Python, not from the next reader. ``from pkg import submodule`` is an edge to
the submodule (Python runs the parent package's ``__init__`` for any submodule anyway).
"""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"

CORE = {"primetui.api", "primetui.sft", "primetui.shell", "primetui.monitor_core"}
ABOVE_CORE = {"primetui.ui", "primetui.local", "primetui.headless", "primetui.cli", "primetui.serve", "primetui.waiting"}
FORBIDDEN = {
    **{core: ABOVE_CORE for core in CORE},
    "primetui.local": {"primetui.ui", "primetui.headless", "primetui.cli"},
    "primetui.ui": {"primetui.cli", "primetui.serve", "primetui.waiting"},
    "primetui.notify": ABOVE_CORE,
    "primetui.dispatching": ABOVE_CORE,
    "primetui.settings": ABOVE_CORE | {"primetui.sft", "primetui.shell", "primetui.monitor_core"},
    "primetui.prefs": ABOVE_CORE | CORE,
    "primetui.fileio": ABOVE_CORE | CORE | {"primetui.settings", "primetui.prefs"},
    "primetui.prefs_file": ABOVE_CORE | CORE | {"primetui.settings", "primetui.prefs"},
}


def _modules() -> dict[str, Path]:
    mods: dict[str, Path] = {}
    for path in SRC.rglob("*.py"):
        parts = list(path.relative_to(SRC).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        mods[".".join(parts)] = path
    return mods


def _targets(module: str, node: ast.AST, is_package: bool, mods: dict[str, Path]) -> list[str]:
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    assert isinstance(node, ast.ImportFrom)
    base = node.module or ""
    if node.level:
        package = module.split(".") if is_package else module.split(".")[:-1]
        package = package[: len(package) - (node.level - 1)]
        base = ".".join(package + ([base] if base else []))
    out = []
    for alias in node.names:
        sub = f"{base}.{alias.name}"
        out.append(sub if sub in mods else base)
    return out


def import_graph() -> dict[str, set[str]]:
    mods = _modules()
    graph: dict[str, set[str]] = {}
    for module, path in mods.items():
        deps: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, (ast.Import, ast.ImportFrom)):
                continue
            if isinstance(node, ast.ImportFrom) and node.module == "__future__":
                continue
            for target in _targets(module, node, path.name == "__init__.py", mods):
                while target and target not in mods:
                    target = target.rpartition(".")[0]
                if target and target != module and target.startswith("primetui"):
                    deps.add(target)
        graph[module] = deps
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            advanced = False
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                    advanced = True
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def _package(module: str) -> str:
    return ".".join(module.split(".")[:2])


def test_no_import_circles():
    found = circles(import_graph())
    assert not found, "import circles (untie them: move the shared piece down a layer): " + "; ".join(
        " <-> ".join(c) for c in found
    )


def test_packages_only_import_down():
    wrong = sorted(
        f"{module} imports {dep}"
        for module, deps in import_graph().items()
        for dep in deps
        if _package(dep) in FORBIDDEN.get(_package(module), set())
    )
    assert not wrong, "imports that point up a layer: " + "; ".join(wrong)


def test_the_checker_sees_a_circle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert circles(graph) == [["a", "b", "c"]]
