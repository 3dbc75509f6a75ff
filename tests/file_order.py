"""Test files handed to the workers longest first, by the wall time a profile measured for each.

xdist's ``--dist loadfile`` gives each worker one file at a time, in the order of its queue, and by
default it sorts that queue by the number of tests in a file. A file of a few long tests then comes
last: the fault soak (4 tests, 137 s of wall time at four workers on a loaded machine, most of it
waiting on a proxy's faults), the 10,000-object S3 export, the tmux tests. The run's end waited on
them while the other workers had nothing left. Longest first (``--no-loadscope-reorder`` and this
order) lets what waits overlap what computes, and leaves short files for the end.

The walls come from ``tests/file_walls.json``: per file, the wall seconds of its tests in a CPU
profile of the whole suite (tests/cpu_profile.py). A file the profile did not see is placed by its
test count times the profile's mean wall per test. Regenerate after a profile run with::

    uv run python -m tests.file_order .pytest_cache/cpu-profile.jsonl

The order changes when tests run, never what they do: each file still runs whole, in one worker.
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from pathlib import Path

import pytest

WALLS = Path(__file__).with_name("file_walls.json")


def _table() -> tuple[dict[str, float], int]:
    """The profile's wall seconds per file, and the number of tests it measured ({} and 0 if unreadable)."""
    try:
        data = json.loads(WALLS.read_text())
        return {str(k): float(v) for k, v in data["walls"].items()}, int(data["tests"])
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return {}, 0


def longest_first(items: list[pytest.Item], walls: dict[str, float], per_test: float) -> list[pytest.Item]:
    """``items`` grouped by file, the files in order of expected wall time (longest first); within a
    file, and between files of equal weight, the collection's own order."""
    files: dict[str, list[pytest.Item]] = defaultdict(list)
    for item in items:
        files[item.nodeid.split("::", 1)[0]].append(item)
    weight = {name: walls.get(name, per_test * len(tests)) for name, tests in files.items()}
    ordered = sorted(files, key=lambda name: -weight[name])  # sorted() is stable: ties keep collection order
    return [item for name in ordered for item in files[name]]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    walls, tests = _table()
    if walls and tests:
        items[:] = longest_first(items, walls, per_test=sum(walls.values()) / tests)


def write(profile: Path) -> None:
    """Write :data:`WALLS` from a CPU profile's lines (one JSON object per test)."""
    walls: dict[str, float] = defaultdict(float)
    tests = 0
    for line in profile.read_text().splitlines():
        row = json.loads(line)
        walls[row["test"].split("::", 1)[0]] += float(row["wall"])
        tests += 1
    ordered = dict(sorted(((k, round(v, 1)) for k, v in walls.items()), key=lambda kv: -kv[1]))
    WALLS.write_text(json.dumps({"tests": tests, "walls": ordered}, indent=1) + "\n")


if __name__ == "__main__":
    write(Path(sys.argv[1]))
