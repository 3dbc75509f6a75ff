"""The house reads bottom-up: no import circles between modules, and packages only import down.

Every import counts, including those inside functions and under ``TYPE_CHECKING``: a lazy import
hides a circle from Python, not from the next reader. ``from pkg import submodule`` is an edge to
the submodule (Python runs the parent package's ``__init__`` for any submodule anyway).
"""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"

# The layers are the folders under src/primetui, bottom first. A package imports itself and the
# packages of lower layers; the core packages may also import one another (never in a circle).
# A new module is covered the day it lands; a new folder fails ``test_every_folder_is_a_layer``
# until it is given its layer here (and in docs/architecture.md).
LAYERS: list[set[str]] = [
    {"config"},  # configuration and persistence: settings, preferences, the one file writer
    {"api", "sft", "shell", "monitor_core"},  # the core: the platform's API, sft.toml, SSH, run data
    {"local", "viewmodel"},  # the local platform; the view model (what is shown), side by side
    {"ui"},  # the Textual dashboard
    {"commands"},  # the front-ends: the command line and each command
]
CORE = LAYERS[1]
RANK = {package: rank for rank, packages in enumerate(LAYERS) for package in packages}
# Of the local platform, the dashboard asks only its launcher (start one, or find the running one).
UI_MAY_IMPORT_OF_LOCAL = {"primetui.local.launcher"}
TOP_LEVEL_MODULES = {"__init__", "__main__"}  # the package's faces: its version, and ``python -m primetui``
DRAWING = ("textual", "rich")


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
    """The folder a module lives in under ``primetui`` ("" for a top-level module)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 2 or (len(parts) == 2 and (SRC / "primetui" / parts[1]).is_dir()) else ""


def _may_import(module: str, dep: str) -> bool:
    here, there = _package(module), _package(dep)
    if here == there:
        return True
    if here == "":  # __main__ runs the command line (or first holds as serve's spare); __init__ imports nothing
        return module == "primetui.__main__" and dep in ("primetui.commands.cli", "primetui.commands.spare")
    if there == "":
        return dep == "primetui"  # the version
    if here == "ui" and there == "local":
        return dep in UI_MAY_IMPORT_OF_LOCAL
    if RANK[here] == RANK[there]:
        return here in CORE and there in CORE
    return RANK[there] < RANK[here]


def test_no_import_circles():
    found = circles(import_graph())
    assert not found, "import circles (untie them: move the shared piece down a layer): " + "; ".join(
        " <-> ".join(c) for c in found
    )


def test_every_folder_is_a_layer_and_no_module_is_loose():
    root = SRC / "primetui"
    folders = {p.name for p in root.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert folders == set(RANK), f"folders without a layer: {sorted(folders - set(RANK))}; layers without a folder: {sorted(set(RANK) - folders)}"
    loose = sorted(p.stem for p in root.glob("*.py") if p.stem not in TOP_LEVEL_MODULES)
    assert not loose, f"top-level modules belong in a layer's folder: {loose}"


def test_packages_only_import_down():
    wrong = sorted(
        f"{module} imports {dep}"
        for module, deps in import_graph().items()
        for dep in deps
        if not _may_import(module, dep)
    )
    assert not wrong, "imports that point up or across a layer: " + "; ".join(wrong)


def _drawing_imports(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else []
        found |= {n.split(".")[0] for n in names if n.split(".")[0] in DRAWING}
    return found


def test_only_the_dashboard_draws():
    """textual and rich are imported in ``ui`` (and by the front-ends that start it), nowhere else;
    and every module of ``ui`` is Textual code: it imports textual or rich, or another ``ui`` module."""
    graph = import_graph()
    mods = _modules()
    below = sorted(m for m, p in mods.items() if _package(m) not in {"ui", "commands"} and _drawing_imports(p))
    assert not below, f"textual or rich imported below the dashboard: {below}"
    not_ui = sorted(
        m for m, p in mods.items()
        if _package(m) == "ui" and p.name != "__init__.py" and not _drawing_imports(p)
        and not any(_package(d) == "ui" for d in graph[m])
    )
    assert not not_ui, f"modules in ui/ that are not Textual code (the view model lives in viewmodel/): {not_ui}"


def test_the_layer_rules_catch_what_they_name():
    assert not _may_import("primetui.api.client", "primetui.viewmodel.present")  # up
    assert not _may_import("primetui.viewmodel.present", "primetui.local.store")  # across
    assert not _may_import("primetui.ui.app", "primetui.local.store")  # ui asks the launcher only
    assert _may_import("primetui.ui.screens.welcome", "primetui.local.launcher")
    assert _may_import("primetui.sft.preflight", "primetui.api.client")  # core beside core
    assert _may_import("primetui.commands.headless", "primetui.viewmodel.present")  # down


def test_the_checker_sees_a_circle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert circles(graph) == [["a", "b", "c"]]
