"""docs/validation-rules.md names every rule code the checks can give, and names no code they cannot.

The codes are collected from the source, not from a hand list: every call that builds a
``Finding`` or a ``Diagnostic`` (and every helper that passes its own parameter on as the code, such
as ``rules_primerl._err``) is found in the AST of ``src/primetui``, and its code argument is read:
a string, a conditional between strings, a name assigned strings in the same function or module,
or an f-string (``f"server-{status}"``, documented as ``server-400`` etc.). A code argument the
collector cannot read fails the test, so a new way of writing codes cannot slip past it.
"""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src" / "primetui"
DOC = ROOT / "docs" / "validation-rules.md"
# The builders and the position of their ``code`` argument (or ``code=``).
BUILDERS = {"Finding": 1, "Diagnostic": 3}


class Unreadable(Exception):
    pass


def _scope(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> ast.AST:
    while node in parents and not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        node = parents[node]
    return node


def _values(expr: ast.expr, scope: ast.AST, module: ast.Module, where: str) -> set[str]:
    """The code strings (or ``re:`` patterns for f-strings) an expression can take."""
    if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
        return {expr.value}
    if isinstance(expr, ast.IfExp):
        return _values(expr.body, scope, module, where) | _values(expr.orelse, scope, module, where)
    if isinstance(expr, ast.JoinedStr):
        parts = [re.escape(v.value) if isinstance(v, ast.Constant) else r"[a-z0-9-]+" for v in expr.values]
        return {"re:" + "".join(parts)}
    if isinstance(expr, ast.Name):
        found: set[str] = set()
        for body in (scope, module):
            for node in ast.walk(body):
                names = [t.id for t in getattr(node, "targets", ()) if isinstance(t, ast.Name)]
                if isinstance(node, ast.Assign) and expr.id in names:
                    found |= _values(node.value, scope, module, where)
            if found:
                return found
    raise Unreadable(f"{where}: cannot tell which rule code {ast.unparse(expr)!r} is")


def _code_arg(call: ast.Call, index: int, keyword: str) -> ast.expr | None:
    for kw in call.keywords:
        if kw.arg == keyword:
            return kw.value
    return call.args[index] if len(call.args) > index else None


def _index(text: str) -> tuple[ast.Module, list[ast.Call], dict[ast.AST, ast.AST], dict[str, tuple[str, str]]]:
    """A module's tree, its calls, each node's parent and its ``from`` imports, in one walk of the tree."""
    module = ast.parse(text)
    calls: list[ast.Call] = []
    parents: dict[ast.AST, ast.AST] = {}
    imported: dict[str, tuple[str, str]] = {}  # ``from primetui.x import y as z``: z -> (primetui.x, y)
    todo: list[ast.AST] = [module]
    while todo:
        node = todo.pop()
        if isinstance(node, ast.Call):
            calls.append(node)
        elif isinstance(node, ast.ImportFrom) and node.module:
            imported.update({a.asname or a.name: (node.module, a.name) for a in node.names})
        for child in ast.iter_child_nodes(node):
            parents[child] = node
            todo.append(child)
    return module, calls, parents, imported


def collect_codes() -> set[str]:
    """Every rule code the source can produce (f-string codes as ``re:`` patterns)."""
    return set(_collect(SRC, ROOT))


@functools.cache  # the three tests below read the same tree; a monkeypatched SRC is another key
def _collect(src: Path, root: Path) -> frozenset[str]:
    texts = {path: path.read_text(encoding="utf-8") for path in sorted(src.rglob("*.py"))}
    parsed: dict[Path, tuple[ast.Module, list[ast.Call], dict, dict]] = {}
    # (module, name) of helpers that pass their own parameter on as the code: (its position, its name)
    helpers: dict[tuple[str, str], tuple[int, str]] = {}
    while True:  # until no new pass-through helper turns up
        known = dict(helpers)
        codes: set[str] = set()
        names = set(BUILDERS) | {name for _, name in helpers}
        for path, text in texts.items():
            if not any(name in text for name in names):
                continue  # parse only the modules that can build one (the whole tree takes seconds)
            if path not in parsed:
                parsed[path] = _index(text)
            module, calls, parents, imported = parsed[path]
            dotted = ".".join(path.relative_to(src.parent).with_suffix("").parts)
            for call in calls:
                func = call.func
                name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
                if name in BUILDERS:
                    slot = (BUILDERS[name], "code")
                elif isinstance(func, ast.Name) and (dotted, name) in helpers:
                    slot = helpers[dotted, name]
                elif isinstance(func, ast.Name) and imported.get(name) in helpers:
                    slot = helpers[imported[name]]
                else:
                    continue
                arg = _code_arg(call, *slot)
                if arg is None or isinstance(arg, ast.Attribute):
                    continue  # ``f.code``: a code handed on from a Finding built elsewhere
                scope = _scope(call, parents)
                if isinstance(arg, ast.Name) and isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    params = [a.arg for a in scope.args.posonlyargs + scope.args.args]
                    if arg.id in params:  # a helper that builds with its caller's code: its callers hold the codes
                        helpers.setdefault((dotted, scope.name), (params.index(arg.id), arg.id))
                        continue
                codes |= _values(arg, scope, module, f"{path.relative_to(root)}:{call.lineno}")
        if helpers == known:
            return frozenset(codes)


def documented_codes() -> set[str]:
    """The codes the page names: the backticked first cell of each table row, and backticked codes in prose."""
    text = DOC.read_text(encoding="utf-8")
    return set(re.findall(r"`([a-z][a-z0-9]*(?:-[a-z0-9]+)*)`", text))


def table_codes() -> set[str]:
    text = DOC.read_text(encoding="utf-8")
    return {m for m in re.findall(r"^\| `([^`]+)`", text, re.M)}


def test_the_collector_reads_the_rule_modules():
    codes = collect_codes()
    # one per way of writing a code: a Finding, a helper (rules_primerl._err), a conditional, an f-string
    assert {"run-name", "batch-divisible", "out-of-range", "bad-value", "unreadable"} <= codes
    assert any(c.startswith("re:") and re.fullmatch(c[3:], "server-409") for c in codes)


def test_every_rule_code_is_in_validation_rules_md():
    docs = documented_codes()
    missing = sorted(
        c
        for c in collect_codes()
        if (not any(re.fullmatch(c[3:], d) for d in docs) if c.startswith("re:") else c not in docs)
    )
    assert not missing, f"docs/validation-rules.md does not name these rule codes: {missing}"


def test_every_code_in_the_tables_is_a_real_rule():
    codes = collect_codes()
    stale = sorted(
        d
        for d in table_codes()
        if d not in codes and not any(c.startswith("re:") and re.fullmatch(c[3:], d) for c in codes)
    )
    assert not stale, f"docs/validation-rules.md lists codes no check gives: {stale}"


def _fake_source(tmp_path, monkeypatch, source: str) -> None:
    pkg = tmp_path / "primetui"
    pkg.mkdir()
    (pkg / "rules_new.py").write_text(source, encoding="utf-8")
    monkeypatch.setitem(globals(), "SRC", pkg)
    monkeypatch.setitem(globals(), "ROOT", tmp_path)


def test_a_new_helper_is_followed_to_its_callers(tmp_path, monkeypatch):
    _fake_source(
        tmp_path,
        monkeypatch,
        "def _hint(code, msg):\n    return Finding('hint', code, msg, ())\n\n\n"
        "def run(c):\n    yield _hint('brand-new', 'x')\n",
    )
    assert collect_codes() == {"brand-new"}


def test_an_unreadable_code_fails_the_collector(tmp_path, monkeypatch):
    """A code the collector cannot read is reported, not skipped (the tests above would pass blind)."""
    _fake_source(tmp_path, monkeypatch, "def run(c):\n    yield Finding('error', pick_code(c), 'x', ())\n")
    with pytest.raises(Unreadable, match=r"rules_new.py:2: cannot tell which rule code 'pick_code\(c\)' is"):
        collect_codes()
