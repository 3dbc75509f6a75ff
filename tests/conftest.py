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
from collections.abc import AsyncIterator, Iterator

import pytest

if os.environ.get("PYTEST_XDIST_WORKER"):
    # xdist's workers (execnet) export COLUMNS=80 and LINES=24; a program the e2e tests start in a
    # tmux pane would take those over the pane's real size, so drop them.
    for _name in ("COLUMNS", "LINES"):
        os.environ.pop(_name, None)

from primetui.local.testing import LocalPlatform


@pytest.fixture(scope="session")
def local_platform(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalPlatform]:
    with LocalPlatform.start(tmp_path_factory.mktemp("local-platform"), demo=True) as lp:
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


def _active_runs(lp: LocalPlatform) -> set[str]:
    import httpx

    reply = httpx.get(lp.api_url + "/rft/runs", headers=lp.headers, params={"limit": 1000}, timeout=30)
    return {r["id"] for r in reply.json().get("runs", []) if r["status"] in ACTIVE}


@pytest.fixture(autouse=True)
def _stop_the_runs_a_test_leaves_going(request: pytest.FixtureRequest) -> Iterator[None]:
    """A test on the shared platform that fails midway must not leave its (long) run training: it
    would take the worker's capacity from every later test. Runs it left active are stopped."""
    if "local_platform" not in request.fixturenames:
        yield
        return
    lp = request.getfixturevalue("local_platform")
    before = _active_runs(lp)
    yield
    import httpx

    for run_id in _active_runs(lp) - before:
        httpx.put(f"{lp.api_url}/rft/runs/{run_id}/stop", headers=lp.headers, timeout=30)
