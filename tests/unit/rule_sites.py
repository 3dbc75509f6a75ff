"""What the rule-case tests read from a rule module's source: its functions as written, and the values a local
name can take."""

from __future__ import annotations

import ast
import re
from pathlib import Path


def pristine_module(path: str | Path) -> tuple[dict[str, ast.FunctionDef], dict[str, ast.expr]]:
    """A rule module's top-level functions as written, by name, and its module-level constants.

    scripts/mutation.sh runs the rule-case tests on mutmut's rewrite of the module, where each mutant is a copy
    of its function named ``x_<f>__mutmut_<n>`` and the original is ``x_<f>__mutmut_orig``: the copies are left
    out (before parsing, so a run per mutant stays cheap) and the original is read under its own name.
    """
    source = Path(path).read_text(encoding="utf-8")
    chunks = re.split(r"(?m)^(?=def )", source)
    tree = ast.parse("".join(c for c in chunks if not re.match(r"def \w+__mutmut_\d+\(", c)))
    funcs: dict[str, ast.FunctionDef] = {}
    consts: dict[str, ast.expr] = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name.endswith("__mutmut_orig"):
            funcs[node.name.removeprefix("x_").removesuffix("__mutmut_orig")] = node
        elif isinstance(node, ast.FunctionDef):
            funcs.setdefault(node.name, node)
        elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            consts[node.targets[0].id] = node.value
    return funcs, consts


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
