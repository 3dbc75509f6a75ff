"""Every declared runtime dependency is imported by src/, and test-only tools stay in the dev group."""

from __future__ import annotations

import ast
import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# Distribution name -> the import names it provides (where they differ from the name itself).
IMPORT_NAMES = {
    "textual": {"textual"},
    "pyarrow": {"pyarrow"},
    "huggingface-hub": {"huggingface_hub"},
    "textual-serve": {"textual_serve"},
}
DEV_ONLY = {"pytest", "pytest_asyncio", "pytest_textual_snapshot", "respx", "hypothesis", "pyte", "prime", "playwright", "selenium"}


def _name(requirement: str) -> str:
    return re.split(r"[\s<>=!~\[;]", requirement.strip(), maxsplit=1)[0].lower().replace("_", "-")


def _src_imports() -> set[str]:
    found: set[str] = set()
    for path in (ROOT / "src").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                found.add(node.module.split(".")[0])
    return found


def test_every_runtime_dependency_is_imported_by_src():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    imported = _src_imports()
    unused = []
    for requirement in project["dependencies"]:
        name = _name(requirement)
        modules = IMPORT_NAMES.get(name, {name.replace("-", "_")})
        if not modules & imported:
            unused.append(name)
    assert not unused, f"declared but imported nowhere in src/ (drop them or move them to the dev group): {unused}"


def test_src_imports_no_dev_only_tool():
    leaked = sorted(_src_imports() & DEV_ONLY)
    assert not leaked, f"src/ imports test-only tools that an installed wheel does not have: {leaked}"
