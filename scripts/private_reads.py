"""Count the private attributes the suite reads: ``obj._name`` in tests/, per file and in total.

A private read is an ``ast.Attribute`` whose attribute starts with one underscore and is not a
dunder (``__name__``), in a file under tests/. Names the test module defines itself do not count:
its own functions, classes, methods and the names and attributes it assigns (``self._x = ...``,
``_private = ...``), since reading those is the test's own business, not a seam of the product.

    uv run python scripts/private_reads.py            # per-file counts, biggest first, then the total
    uv run python scripts/private_reads.py --total    # the total alone
    uv run python scripts/private_reads.py --names    # which names are read, most read first

tests/test_private_reads.py keeps the total from growing.
"""

from __future__ import annotations

import ast
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TESTS = ROOT / "tests"


# Documented public APIs whose names start with one underscore: os._exit, sys._getframe, and namedtuple's
# methods (on any namedtuple).
PUBLIC_OF = {"os": frozenset({"_exit"}), "sys": frozenset({"_getframe"})}
NAMEDTUPLE = frozenset({"_asdict", "_replace", "_fields", "_make"})


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__") and name not in NAMEDTUPLE


def _public_of_module(node: ast.Attribute) -> bool:
    return isinstance(node.value, ast.Name) and node.attr in PUBLIC_OF.get(node.value.id, frozenset())


def _own_names(tree: ast.AST) -> set[str]:
    """The names a module defines: functions, classes, assigned names and assigned attributes."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Name, ast.Attribute)) and isinstance(node.ctx, ast.Store):
            names.add(node.id if isinstance(node, ast.Name) else node.attr)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
    return names


def reads(path: Path) -> list[tuple[int, str]]:
    """The private attribute reads of one file: (line, name)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    own = _own_names(tree)
    return [
        (node.lineno, node.attr)
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and _private(node.attr)
        and node.attr not in own
        and not _public_of_module(node)
    ]


def count() -> dict[str, list[tuple[int, str]]]:
    """Every file under tests/ with at least one private read, keyed by its path under the repo."""
    found = {}
    for path in sorted(TESTS.rglob("*.py")):
        hits = reads(path)
        if hits:
            found[path.relative_to(ROOT).as_posix()] = hits
    return found


def total() -> int:
    return sum(len(hits) for hits in count().values())


def main(argv: list[str]) -> int:
    found = count()
    grand = sum(len(hits) for hits in found.values())
    if "--total" in argv:
        print(grand)
        return 0
    if "--names" in argv:
        names = Counter(name for hits in found.values() for _, name in hits)
        for name, n in names.most_common():
            print(f"{n:5d}  {name}")
        return 0
    for file, hits in sorted(found.items(), key=lambda item: (-len(item[1]), item[0])):
        print(f"{len(hits):5d}  {file}")
    print(f"{grand:5d}  total in {len(found)} files")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
