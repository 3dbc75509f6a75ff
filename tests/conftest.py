"""Shared fixtures: real local platform servers (subprocesses on 127.0.0.1) and a client on them.

- ``local_platform``: one server per test session, seeded with the demo data (volume ``research``
  with ``datasets/reverse-text``, ``<data_dir>/sft.toml``). Tests share it: create your own volume
  or run names and do not delete the demo volume.
- ``fresh_platform``: a new, empty server for one test (costs ~1 s; use it only when you need a
  clean or private state, e.g. kill/restart tests).
- ``client``: an async ``primetui.api.client.PrimeClient`` on ``local_platform``.
"""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

# This machine's environment sets PYTHONDONTWRITEBYTECODE=1, and `uv sync` writes no .pyc: then every
# process the suite starts (each platform, trainer, `prime` zygote, moto server, `primetui` command)
# compiled every module it imported from source, 1-2 s of CPU each. Bytecode is kept from here on, for
# this process and every one it starts (xdist's workers too), so each module is compiled once per checkout.
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
sys.dont_write_bytecode = False

if os.environ.get("PYTEST_XDIST_WORKER"):
    # xdist's workers (execnet) export COLUMNS=80 and LINES=24; a program the e2e tests start in a
    # tmux pane would take those over the pane's real size, so drop them.
    for _name in ("COLUMNS", "LINES"):
        os.environ.pop(_name, None)

from primetui.local.testing import LocalPlatform, spawn_platforms_with

from tests.cli_zygote import spawn_platform  # noqa: E402

# Each local platform forks from a worker's process that has imported the server (tests/cli_zygote.py)
spawn_platforms_with(spawn_platform)


def pytest_runtest_setup(item: pytest.Item) -> None:
    """Once a test module has loaded Textual, each stylesheet source is parsed once per worker, not once per Pilot
    app, as in the product (``primetui.ui.textual_fixes``; a plain ``App`` of a test takes it too); a run of tests
    that never start an app does not pay Textual's import for it."""
    if "textual" in sys.modules:
        from primetui.ui.textual_fixes import share_parsed_css

        share_parsed_css()


from tests.ci_skips import pytest_runtest_makereport  # noqa: F401, E402 - the hook: no tmux/chromium skips under CI=true
from tests.gc_settle import pytest_runtest_teardown  # noqa: F401, E402 - the hook: a module's survivors frozen at its end
from tests.file_order import pytest_collection_modifyitems  # noqa: F401, E402 - the hook: longest files first

if os.environ.get("PRIMETUI_CPU_PROFILE"):
    pytest_plugins = ["tests.cpu_profile"]  # CPU per test and per file (tests/cpu_profile.py), in every worker


@pytest.fixture(scope="session")
def local_platform(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalPlatform]:
    with LocalPlatform.start(tmp_path_factory.mktemp("local-platform"), demo=True) as lp:
        yield lp


@pytest.fixture
def own_demo_platform(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalPlatform]:
    """The demo platform for one test: for asserts on everything a list shows (the shared one holds
    whatever runs and volumes other tests left, so what it shows changes from run to run)."""
    with LocalPlatform.start(tmp_path_factory.mktemp("own-demo-platform"), demo=True) as lp:
        yield lp


@pytest.fixture
def fresh_platform(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalPlatform]:
    with LocalPlatform.start(tmp_path_factory.mktemp("fresh-platform"), demo=False) as lp:
        yield lp


@pytest.fixture
async def client(local_platform: LocalPlatform) -> AsyncIterator[object]:
    from primetui.api.client import PrimeClient

    async with PrimeClient(local_platform.base_url, local_platform.token) as c:
        yield c


ACTIVE = {"PENDING", "QUEUED", "CREATING", "RUNNING", "PAUSING"}


def _live_sessions(api: Any) -> set[tuple[str, str, tuple]]:
    """(volume, session id, scope params) of every session not yet ended, in every scope."""
    from primetui.api.wire import DEAD_SESSION_STATUSES

    teams = api.get("/user/teams").json().get("data", [])
    live: set[tuple[str, str, tuple]] = set()
    for scope in ({}, *({"teamId": t["teamId"]} for t in teams)):
        volumes = api.get("/training/volumes", params=scope)
        for v in volumes.json().get("volumes", []):
            reply = api.get(f"/training/volumes/{v['name']}/sessions", params=scope)
            live |= {
                (v["name"], s["id"], tuple(scope.items()))
                for s in reply.json().get("sessions", [])
                if s.get("status") not in DEAD_SESSION_STATUSES
            }
    return live


def _active_runs(api: Any) -> set[str]:
    reply = api.get("/rft/runs", params={"limit": 1000})
    return {r["id"] for r in reply.json().get("runs", []) if r["status"] in ACTIVE}


def _live_ids(lp: LocalPlatform) -> tuple[set[str], set[str]]:
    """The ids of the runs still active and of the sessions not yet ended, in every scope, read straight
    from the platform's own databases: a few milliseconds, where asking over HTTP walks every scope and
    volume (about 20 requests) before and after each test."""
    import sqlite3

    def rows(db_path: Path, query: str) -> set[str]:
        if not db_path.exists():
            return set()
        db = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True, timeout=30)
        try:
            return {r[0] for r in db.execute(query)}
        except sqlite3.OperationalError:  # the table is not made yet: nothing has started
            return set()
        finally:
            db.close()

    marks = ",".join(f"'{s}'" for s in sorted(ACTIVE))
    runs = rows(lp.data_dir / "state.sqlite3", f"SELECT id FROM runs WHERE status IN ({marks})")
    sessions = rows(
        lp.data_dir / "sessions" / "sessions.sqlite3",
        "SELECT id FROM volume_sessions WHERE phase NOT IN ('stopped', 'failed')",
    )
    return runs, sessions


@pytest.fixture(autouse=True)
def _stop_the_runs_a_test_leaves_going(request: pytest.FixtureRequest) -> Iterator[None]:
    """A test on the shared platform that fails midway must not leave its (long) run training: it
    would take the worker's capacity from every later test. Runs it left active are stopped."""
    if "local_platform" not in request.fixturenames:
        yield
        return
    lp = request.getfixturevalue("local_platform")
    runs_before, sessions_before = _live_ids(lp)
    yield
    runs_after, sessions_after = _live_ids(lp)
    if not (runs_after - runs_before or sessions_after - sessions_before):
        return
    from tests.local.conftest import http

    with http(lp) as api:  # one client (and TLS context) for every request of the clean-up
        for run_id in _active_runs(api) - runs_before:
            api.put(f"/rft/runs/{run_id}/stop")
        # A read-write session left open holds its volume (one writer): every later run on it waits.
        for volume, session_id, scope in _live_sessions(api):
            if session_id not in sessions_before:
                api.delete(f"/training/volumes/{volume}/sessions/{session_id}", params=dict(scope))
