"""Every declared runtime dependency is imported by src/, the extra `local` only by the local platform,
and test-only tools stay in the dev group."""

from __future__ import annotations

import ast
import functools
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
DEV_ONLY = {
    "pytest",
    "pytest_asyncio",
    "pytest_textual_snapshot",
    "respx",
    "hypothesis",
    "pyte",
    "prime",
    "playwright",
    "selenium",
}


def _name(requirement: str) -> str:
    return re.split(r"[\s<>=!~\[;]", requirement.strip(), maxsplit=1)[0].lower().replace("_", "-")


def _src_imports(under: Path = ROOT / "src", outside: Path | None = None, skip: set[Path] = frozenset()) -> set[str]:
    found: set[str] = set()
    for path in under.rglob("*.py"):
        if (outside is not None and path.is_relative_to(outside)) or path in skip:
            continue
        found |= _imports_of(path, path.stat().st_mtime_ns)
    return found


@functools.cache  # the three tests read the same files; a file changed since is read again (its mtime)
def _imports_of(path: Path, _mtime: int) -> frozenset[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module.split(".")[0])
    return frozenset(found)


def _project() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]


def _modules(requirement: str) -> set[str]:
    name = _name(requirement)
    return IMPORT_NAMES.get(name, {name.replace("-", "_")})


def test_every_runtime_dependency_is_imported_by_src():
    project = _project()
    imported = _src_imports()
    requirements = project["dependencies"] + [
        r for extra in project.get("optional-dependencies", {}).values() for r in extra
    ]
    unused = [_name(r) for r in requirements if not _modules(r) & imported]
    assert not unused, f"declared but imported nowhere in src/ (drop them or move them to the dev group): {unused}"


def test_the_local_extra_is_imported_only_by_the_local_platform():
    local = ROOT / "src" / "primetui" / "local"
    extra = set().union(*(_modules(r) for r in _project()["optional-dependencies"]["local"]))
    # sft/parquet.py imports pyarrow behind a guard that says the extra adds it.
    guarded = ROOT / "src" / "primetui" / "sft" / "parquet.py"
    leaked = sorted(_src_imports(outside=local, skip={guarded}) & extra)
    assert not leaked, (
        f"the base install lacks these (primetui[local] adds them), yet code outside local/ imports them: {leaked}"
    )


def test_src_imports_no_dev_only_tool():
    leaked = sorted(_src_imports() & DEV_ONLY)
    assert not leaked, f"src/ imports test-only tools that an installed wheel does not have: {leaked}"
