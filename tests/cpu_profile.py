"""CPU per test, for profiling the suite (opt-in): ``PRIMETUI_CPU_PROFILE=1 uv run pytest tests/<folder>``.

Wall time on a shared machine measures the queue for a core; CPU is what a change can save. For each
test (setup, call and teardown) this records the CPU seconds spent by the pytest process and by every
process under it: its reaped children (``RUSAGE_CHILDREN``) and, for those still running (the shared
local platform, its trainers, a `prime` zygote), their own and their reaped children's time read from
``/proc/<pid>/stat``. Each worker appends one JSON line per test to ``.pytest_cache/cpu-profile.jsonl``
(or to the file ``$PRIMETUI_CPU_PROFILE`` names); the run ends with a table of CPU per folder and the top files.
"""

from __future__ import annotations

import json
import os
import resource
import time
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

import pytest

_TICK = os.sysconf("SC_CLK_TCK")
_NAMED = os.environ.get("PRIMETUI_CPU_PROFILE", "1")
_OUT = Path(".pytest_cache/cpu-profile.jsonl" if _NAMED == "1" else _NAMED).absolute()


def _descendants(pid: int) -> list[int]:
    found, todo = [], [pid]
    while todo:
        parent = todo.pop()
        for task in Path(f"/proc/{parent}/task").glob("*"):
            try:
                kids = [int(k) for k in (task / "children").read_text().split()]
            except OSError:
                continue
            found += kids
            todo += kids
    return found


def _process_cpu(pid: int) -> float:
    """utime + stime + cutime + cstime of a live process (0 once it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return sum(int(f) for f in fields[11:15]) / _TICK


def tree_cpu() -> float:
    """CPU seconds of this process and every process under it, live or reaped."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    live = sum(_process_cpu(pid) for pid in _descendants(os.getpid()))
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime + live


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Iterator[None]:
    before, started = tree_cpu(), time.monotonic()
    yield
    _OUT.parent.mkdir(exist_ok=True)
    with _OUT.open("a") as out:
        row = {"test": item.nodeid, "cpu": round(tree_cpu() - before, 3), "wall": round(time.monotonic() - started, 3)}
        out.write(json.dumps(row) + "\n")


def pytest_sessionstart(session: pytest.Session) -> None:
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        _OUT.unlink(missing_ok=True)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if os.environ.get("PYTEST_XDIST_WORKER") or not _OUT.exists():
        return
    files: dict[str, float] = defaultdict(float)
    tests: dict[str, int] = defaultdict(int)
    for line in _OUT.read_text().splitlines():
        row = json.loads(line)
        name = row["test"].split("::")[0]
        files[name] += row["cpu"]
        tests[name] += 1
    folders: dict[str, list[float]] = defaultdict(lambda: [0, 0.0])
    for name, cpu in files.items():
        folder = str(Path(name).parent)
        folders[folder][0] += tests[name]
        folders[folder][1] += cpu
    write = terminalreporter.write_line
    write(f"CPU per folder (total {sum(files.values()):.1f} s):")
    for folder, (count, cpu) in sorted(folders.items(), key=lambda kv: -kv[1][1]):
        write(f"  {folder:40} {count:5d} tests {cpu:9.1f} s")
    write("top files:")
    for name, cpu in sorted(files.items(), key=lambda kv: -kv[1])[:25]:
        write(f"  {name:60} {tests[name]:4d} tests {cpu:8.1f} s")
