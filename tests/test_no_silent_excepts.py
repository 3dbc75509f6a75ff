"""A broad ``except`` that does nothing says why on its line (issue 38, deliverable 1).

``except Exception: pass`` hid the hub's subscriber errors for months. Where swallowing is right
(best-effort cleanup on the way out), the line says so; everywhere else the handler narrows or acts.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"
BROAD = {"Exception", "BaseException"}


def silent_handlers(source: str) -> list[int]:
    """Lines of broad handlers whose body only passes and whose line gives no reason."""
    lines = source.splitlines()
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.ExceptHandler) or node.type is None:
            continue
        types = node.type.elts if isinstance(node.type, ast.Tuple) else [node.type]
        if not any(isinstance(t, ast.Name) and t.id in BROAD for t in types):
            continue
        if not all(isinstance(s, ast.Pass) for s in node.body):
            continue
        comment = lines[node.lineno - 1].partition("#")[2]
        reason = re.sub(r"noqa: *[A-Z0-9, ]+", "", comment).strip(" -")
        if len(reason) < 10:
            found.append(node.lineno)
    return found


def test_every_silent_broad_except_says_why():
    wrong = [
        f"{p.relative_to(SRC)}:{n}" for p in sorted(SRC.rglob("*.py")) for n in silent_handlers(p.read_text("utf-8"))
    ]
    assert not wrong, "a broad except that only passes must narrow, act, or say why on its line: " + ", ".join(wrong)


def test_the_rule_sees_a_silent_handler():
    assert silent_handlers("try:\n    f()\nexcept Exception:  # noqa: BLE001\n    pass\n") == [3]
    assert silent_handlers("try:\n    f()\nexcept (OSError, BaseException):\n    pass\n") == [3]
    assert not silent_handlers("try:\n    f()\nexcept Exception:  # the channel is closing: nobody to tell\n    pass\n")
    assert not silent_handlers("try:\n    f()\nexcept KeyError:\n    pass\n")
