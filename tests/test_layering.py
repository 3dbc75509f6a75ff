"""The house reads bottom-up: no import circles between modules, and packages only import down.

Every import counts, including those inside functions and under ``TYPE_CHECKING``: a lazy import
hides a circle from Python, not from the next reader. ``from pkg import submodule`` is an edge to
the submodule (Python runs the parent package's ``__init__`` for any submodule anyway).
"""

from __future__ import annotations

import ast
import functools
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


@functools.cache
def _parse(source: str) -> ast.Module:
    """The tree of ``source``, parsed once per worker: the rules here walk every module of src/ four times."""
    return ast.parse(source)


def _tree(path: Path) -> ast.Module:
    return _parse(path.read_text(encoding="utf-8"))


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
        for node in ast.walk(_tree(path)):
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
    assert folders == set(RANK), (
        f"folders without a layer: {sorted(folders - set(RANK))}; layers without a folder: "
        f"{sorted(set(RANK) - folders)}"
    )
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
    for node in ast.walk(_tree(path)):
        names = (
            [a.name for a in node.names]
            if isinstance(node, ast.Import)
            else [node.module or ""]
            if isinstance(node, ast.ImportFrom) and not node.level
            else []
        )
        found |= {n.split(".")[0] for n in names if n.split(".")[0] in DRAWING}
    return found


def test_only_the_dashboard_draws():
    """textual and rich are imported in ``ui`` (and by the front-ends that start it), nowhere else;
    and every module of ``ui`` is Textual code: it imports textual or rich or another ``ui`` module,
    or drives a widget handed to it (``widget_driving``)."""
    graph = import_graph()
    mods = _modules()
    below = sorted(m for m, p in mods.items() if _package(m) not in {"ui", "commands"} and _drawing_imports(p))
    assert not below, f"textual or rich imported below the dashboard: {below}"
    not_ui = sorted(
        m
        for m, p in mods.items()
        if _package(m) == "ui"
        and p.name != "__init__.py"
        and not _drawing_imports(p)
        and not any(_package(d) == "ui" for d in graph[m])
        and not _drives_widgets(p)
    )
    assert not not_ui, f"modules in ui/ that are not Textual code (the view model lives in viewmodel/): {not_ui}"


def test_the_layer_rules_catch_what_they_name():
    assert not _may_import("primetui.api.client", "primetui.viewmodel.run_rows")  # up
    assert not _may_import("primetui.viewmodel.run_rows", "primetui.local.store")  # across
    assert not _may_import("primetui.ui.app", "primetui.local.store")  # ui asks the launcher only
    assert _may_import("primetui.ui.screens.welcome", "primetui.local.launcher")
    assert _may_import("primetui.sft.preflight", "primetui.api.client")  # core beside core
    assert _may_import("primetui.commands.headless", "primetui.viewmodel.run_rows")  # down


def test_the_checker_sees_a_circle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert circles(graph) == [["a", "b", "c"]]


# ---- layers by meaning: below ui/, no module drives a widget -----------------------------------
# Importing textual is not the only way to be Textual code: a core or view-model module that calls
# ``app.notify`` or pokes ``view._frame_handle`` on an object handed to it is UI code in disguise.
WIDGET_API = frozenset(
    {
        "run_worker",
        "call_later",
        "call_after_refresh",
        "call_from_thread",
        "query_one",
        "query",
        "post_message",
        "notify",
        "set_interval",
        "set_timer",
        "refresh",
        "mount",
    }
)
"""Calls that only a Textual widget, screen or app answers: they belong in ui/."""
NO_WIDGETS = CORE | {"config", "viewmodel"}
"""Packages whose modules may not drive widgets (the core, configuration, the view model)."""
LIBRARY_PRIVATES = {
    "_init_recv_window": "asyncssh's receive window: shell/flow.py grants the channel's credit itself",
    "_recv_window": "asyncssh's receive window: shell/flow.py grants the channel's credit itself",
    "_replace": "a namedtuple's public API",
    "_asdict": "a namedtuple's public API",
    "_fields": "a namedtuple's public API",
}
"""Private attributes of other libraries' objects a core module touches, each with why."""


def _loop_receiver(node: ast.expr) -> bool:
    """``loop.call_later`` and ``asyncio.get_running_loop().call_later`` are asyncio's, not a widget's."""
    text = ast.unparse(node)
    return text == "loop" or text.endswith(("get_running_loop()", "get_event_loop()", "._loop", ".loop"))


def _defined_privates(trees: list[ast.AST]) -> set[str]:
    """Private names a package defines itself: functions, classes, attributes assigned anywhere in it."""
    names: set[str] = set()
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(node.name)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                names.add(node.attr)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.add(node.id)
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                names.add(node.target.id)
    return {n for n in names if n.startswith("_")}


def widget_driving(source: str, own_privates: frozenset[str] | set[str] = frozenset()) -> list[str]:
    """Where ``source`` calls a widget API or touches another object's private attribute.

    ``x._name`` is allowed when ``x`` is ``self``, ``cls`` or an imported module, when the package
    defines ``_name`` itself (``own_privates``: its own classes talking to each other), or when it is
    a named library private (``LIBRARY_PRIVATES``); anything else is an object handed in from above.
    """
    tree = _parse(source)
    modules: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules |= {(a.asname or a.name).split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            modules |= {a.asname or a.name for a in node.names}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in WIDGET_API:
            if not _loop_receiver(node.func.value):
                found.append(f"line {node.lineno}: calls {ast.unparse(node.func)}()")
        if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__"):
            owner = node.value
            if isinstance(owner, ast.Name) and (owner.id in ("self", "cls") or owner.id in modules):
                continue
            if node.attr in own_privates or node.attr in LIBRARY_PRIVATES:
                continue
            found.append(f"line {node.lineno}: touches {ast.unparse(node)}")
    return found


def test_no_module_below_the_dashboard_drives_a_widget():
    mods = _modules()
    by_package: dict[str, list[tuple[str, str]]] = {}
    for module, path in mods.items():
        if _package(module) in NO_WIDGETS:
            by_package.setdefault(_package(module), []).append((module, path.read_text(encoding="utf-8")))
    wrong = []
    for package, sources in by_package.items():
        own = _defined_privates([_parse(text) for _, text in sources])
        for module, text in sources:
            wrong += [f"{module} {hit}" for hit in widget_driving(text, own)]
    assert not wrong, "widget code below ui/ (move it into ui/): " + "; ".join(sorted(wrong))


def test_the_widget_rule_catches_each_case():
    for api in sorted(WIDGET_API):
        assert widget_driving(f"def f(app):\n    app.{api}(1)\n"), api
    assert widget_driving("def f(self):\n    self.app.call_later(self.app.notify, 'x')\n")  # through an attribute
    assert widget_driving("def f(view):\n    view._frame_handle = None\n")  # a widget's private, written
    assert widget_driving("def f(view):\n    view._frame()\n")  # ... called
    assert widget_driving("def f(self):\n    return self.view._view_top\n")  # ... read through an attribute
    # What is not widget code: a module's own privates, asyncio's call_later, a private of self.
    assert not widget_driving("class A:\n    def f(self, other):\n        other._leave()\n", {"_leave"})
    assert not widget_driving("import asyncio\nasyncio.get_running_loop().call_later(1, print)\n")
    assert not widget_driving("import os\nclass A:\n    def f(self):\n        self._x = os._exit\n")


def _drives_widgets(path: Path) -> bool:
    return bool(widget_driving(path.read_text(encoding="utf-8")))
