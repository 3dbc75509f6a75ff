"""What the rule-case tests read from a rule module's source: the values a local name can take."""

from __future__ import annotations

import ast


def bound_values(name: str, fn: ast.FunctionDef) -> list[ast.expr]:
    """The values a local name takes: each assignment to it, each item of a ``for`` over a literal tuple."""
    values: list[ast.expr] = []
    for node in ast.walk(fn):
        if isinstance(node, ast.Assign) and [t.id for t in node.targets if isinstance(t, ast.Name)] == [name]:
            values.append(node.value)
        elif isinstance(node, ast.For) and isinstance(node.iter, ast.Tuple):
            if isinstance(node.target, ast.Name) and node.target.id == name:
                values += node.iter.elts
            elif isinstance(node.target, ast.Tuple):
                for i, t in enumerate(node.target.elts):
                    if isinstance(t, ast.Name) and t.id == name:
                        values += [e.elts[i] for e in node.iter.elts if isinstance(e, ast.Tuple)]
    return values
