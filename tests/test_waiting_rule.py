"""The suite's rule for waiting, checked over its own source: no assert follows a key press, a
pause or a sleep without a wait on a named condition in between (see tests/waiting.py).

Each ``assert`` is judged by the last statement before it in the same block that waits on
something: ``pilot.press`` / ``pilot.pause`` / ``time.sleep`` / ``asyncio.sleep`` break the rule;
any other ``await`` or a call of something named ``*wait*`` / ``*until*`` is a wait on a condition.
"""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parent

# A sleep that makes the situation under test (a reader that stalls), not one that waits for it.
STALLS = {
    "api/test_ssh_sessions.py::test_a_flood_arrives_whole_over_aes_gcm_without_compression",
}


def _call_name(call: ast.Call) -> tuple[str, str]:
    f = call.func
    if isinstance(f, ast.Attribute):
        return f.attr, ast.unparse(f.value)
    return getattr(f, "id", ""), ""


def _kind(stmt: ast.stmt) -> str | None:
    value = getattr(stmt, "value", None) if isinstance(stmt, (ast.Expr, ast.Assign, ast.AnnAssign)) else None
    if isinstance(value, ast.Await):
        if isinstance(value.value, ast.Call):
            name, owner = _call_name(value.value)
            if name == "press":
                return "an assert right after pilot.press"
            if name == "pause":
                return "an assert after a fixed pilot.pause(N)" if value.value.args else "an assert after a bare pilot.pause()"
            if name == "sleep" and owner == "asyncio":
                return "an assert after asyncio.sleep"
        return "ok"
    if isinstance(value, ast.Call):
        name, owner = _call_name(value)
        if name == "sleep" and owner == "time":
            return "an assert after time.sleep"
        if "wait" in name or "until" in name:
            return "ok"
    return None


def _block(body: list[ast.stmt], where: str, found: list[str]) -> None:
    last = None
    for stmt in body:
        kind = _kind(stmt)
        if kind:
            last = kind
        elif isinstance(stmt, ast.Assert) and last not in (None, "ok"):
            found.append(f"{where}:{stmt.lineno}: {last}")
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        for field in ("body", "orelse", "finalbody"):
            sub = getattr(stmt, field, None)
            if isinstance(sub, list):
                _block(sub, where, found)
        for handler in getattr(stmt, "handlers", None) or []:
            _block(handler.body, where, found)


def violations(root: Path = TESTS) -> list[str]:
    found: list[str] = []
    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                where = f"{path.relative_to(root)}::{node.name}"
                if where not in STALLS:
                    _block(node.body, where, found)
    return found


def test_no_assert_waits_on_time():
    assert violations() == []


def test_the_rule_catches_each_pattern(tmp_path):
    (tmp_path / "test_bad.py").write_text(
        "import asyncio, time\n"
        "async def test_a(pilot):\n    await pilot.press('x')\n    assert 1\n"
        "async def test_b(pilot):\n    await pilot.pause()\n    assert 1\n"
        "async def test_c(pilot):\n    await pilot.pause(0.2)\n    assert 1\n"
        "async def test_d():\n    await asyncio.sleep(1)\n    assert 1\n"
        "def test_e():\n    time.sleep(1)\n    x = 1\n    assert x\n"
        "async def test_ok(pilot):\n    await pilot.press('x')\n    await until(pilot, f, 'f')\n    assert 1\n"
    )
    found = violations(tmp_path)
    assert [f.split("::")[1].split(":")[0] for f in found] == ["test_a", "test_b", "test_c", "test_d", "test_e"], found
