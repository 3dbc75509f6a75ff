"""The hosted log windows and limits of R7 on the real local platform (faithful by default), over HTTP."""

from __future__ import annotations

import asyncio
import subprocess
import sys

import httpx
import pytest

from primetui.api import errors as e
from primetui.api import followers as f
from primetui.api.client import PrimeClient
from primetui.local.log_windows import (
    MAX_TAIL_LINES,
    SEARCH_DEFAULT_SINCE,
    SNAPSHOT_LINES,
    LogWindow,
    plan_window,
)
from primetui.local.logflood import LogFlood
from primetui.local.testing import IDLE_PACE, LocalPlatform
from tests.waiting import eventually, wait_for
from tests.api.test_local_platform_http import _small_config

FLOOD = 700  # more than the 200-line snapshot, fewer than one 5000-line search window


def test_plan_window_routes_plain_and_filtered_fetches():
    assert plan_window(1000, None, search=None, level=None, faithful=True) == LogWindow(
        SNAPSHOT_LINES, None, "snapshot"
    )
    assert plan_window(50, None, search=None, level=None, faithful=True).limit == 50
    assert plan_window(5000, 3600, search=None, level=None, faithful=True) == LogWindow(5000, 3600, "search")
    assert plan_window(4000, None, search="Step", level=None, faithful=True) == LogWindow(
        4000, SEARCH_DEFAULT_SINCE, "search"
    )
    assert plan_window(4000, None, search=None, level="INFO", faithful=True).backend == "search"
    assert plan_window(5000, None, search=None, level=None, faithful=False) == LogWindow(5000, None, "whole")


async def _flooded_run(client: PrimeClient, lp: LocalPlatform, lines: int = FLOOD) -> tuple[str, LogFlood]:
    """A real run whose trainer log got ``lines`` extra numbered lines while it ran, then stopped.

    The run is long enough to outlast the flood on a loaded machine; it is stopped once the flood's
    last line is ingested, so every flood line is in its log and the log no longer grows. It idles
    (``IDLE_PACE``): the flood writes the lines, the trainer need not take a core."""
    config = _small_config(lp, max_steps=5000)
    config["env_vars"] = dict(IDLE_PACE)
    run_id = (await client.create_run(config, volume="research", name="log-windows")).run_id
    try:
        await eventually(lambda: _status_is(client, run_id, "RUNNING"), f"run {run_id} to be RUNNING")
        flood = LogFlood(lp.data_dir / "runs" / run_id, rate=2000, limit=lines).start()
        await wait_for(lambda: flood.written >= lines, f"{lines} flood lines on disk")
        await _whole_log(client, run_id, flood)  # ingested while the run still runs
        assert not (await client.get_run(run_id)).is_terminal, "the run ended before its flood was ingested"
    finally:
        if not (await client.get_run(run_id)).is_terminal:
            await client.stop_run(run_id)
        await eventually(lambda: _terminal(client, run_id), f"run {run_id} to stop")
    flood.stop()
    assert flood.written == lines
    return run_id, flood


async def _status_is(client: PrimeClient, run_id: str, status: str) -> bool:
    return (await client.get_run(run_id)).status == status


async def _terminal(client: PrimeClient, run_id: str) -> bool:
    return (await client.get_run(run_id)).is_terminal


async def _whole_log(client: PrimeClient, run_id: str, flood: LogFlood) -> list[str]:
    """The trainer's whole log once its last flood line is ingested."""

    async def fetch() -> list[str] | None:
        lines = (await client.get_logs(run_id, MAX_TAIL_LINES, component="trainer", since_seconds=86400)).lines()
        return lines if any(flood.line(flood.written) in ln for ln in lines) else None

    return await eventually(fetch, f"the last flood line of run {run_id} in its log")


async def test_plain_fetch_is_a_200_line_snapshot_and_filters_use_the_search_backend(client, local_platform):
    run_id, flood = await _flooded_run(client, local_platform)
    whole = await _whole_log(client, run_id, flood)
    assert len(whole) > FLOOD and sum(flood.line(1) in ln for ln in whole) == 1
    plain = (await client.get_logs(run_id, 1000, component="trainer")).lines()
    assert plain == whole[-SNAPSHOT_LINES:]
    assert (await client.get_logs(run_id, 20, component="trainer")).lines() == whole[-20:]
    found = (await client.get_logs(run_id, 5000, component="trainer", search="flood x")).lines()
    assert len(found) == FLOOD  # the search backend honours tail_lines past 200
    assert len((await client.get_logs(run_id, 300, component="trainer", level="INFO")).lines()) == 300


@pytest.mark.parametrize(
    "params, field",
    [
        ({"tail_lines": 0}, "tail_lines"),
        ({"tail_lines": 5001}, "tail_lines"),
        ({"since_seconds": 59}, "since_seconds"),
        ({"since_seconds": 86401}, "since_seconds"),
    ],
)
def test_out_of_range_windows_are_refused_as_the_contract_says(local_platform, params, field):
    r = httpx.get(f"{local_platform.api_url}/rft/runs/any-run/logs", params=params, headers=local_platform.headers)
    assert r.status_code == 422
    detail = r.json()["detail"]
    assert detail[0]["loc"] == ["query", field] and "between" in detail[0]["msg"]


async def test_whole_log_mode_and_rate_limit(tmp_path):
    with LocalPlatform.start(
        tmp_path / "whole", demo=True, env={"PRIMETUI_LOCAL_FAITHFUL": "0", "PRIMETUI_LOCAL_RATE_LIMIT": "400"}
    ) as lp:
        async with PrimeClient(lp.base_url, lp.token) as client:
            run_id, flood = await _flooded_run(client, lp)
            await _whole_log(client, run_id, flood)
            plain = (await client.get_logs(run_id, 5000, component="trainer")).lines()
            assert len(plain) > FLOOD  # --faithful=false: whole logs, no snapshot
            # a lookback under the hosted 60 s minimum is honoured here (the run stopped moments ago)
            assert (await client.get_logs(run_id, 10, component="trainer", since_seconds=30)).lines()
            # the rate limit: 429 with Retry-After once the minute's budget is spent
            with pytest.raises(e.RateLimitedError) as info:
                for _ in range(500):
                    await client.get_run(run_id)
            assert info.value.retry_after is not None and 1 <= info.value.retry_after <= 60
            assert "HTTP 429" in str(info.value)


def test_serve_refuses_a_bad_faithful_value(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-m", "primetui", "local", "serve", "--data-dir", str(tmp_path / "d"), "--faithful=maybe"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2 and "--faithful: expected true or false" in proc.stderr


async def test_the_dashboards_log_follower_loses_nothing_through_the_windows(client, local_platform):
    """A burst of 1,500 lines between two polls: caught by the search backend, no gap, no repeat."""
    config = _small_config(local_platform, max_steps=60)
    run_id = (await client.create_run(config, volume="research", name="log-follow-windows")).run_id
    watcher = f.RunWatcher(client, run_id, interval=0.3)
    follower = f.LogFollower(
        client,
        run_id,
        "trainer",
        interval=1.0,
        waiting_interval=0.3,
        backlog_lines=MAX_TAIL_LINES,
        catch_up=True,
        watcher=watcher,
    )
    lines: list[str] = []
    gaps: list[f.LogGap] = []

    async def flood_when_running():
        while watcher.status != "RUNNING":
            await asyncio.sleep(0.1)
        with LogFlood(local_platform.data_dir / "runs" / run_id, rate=1500, limit=3000):
            while not watcher.done:
                await asyncio.sleep(0.1)

    async def follow():
        async for ev in follower:
            if isinstance(ev, f.LogLines):
                lines.extend(ev.lines)
            elif isinstance(ev, f.LogGap):
                gaps.append(ev)

    async def watch():
        async for _ in watcher:
            pass

    await asyncio.wait_for(asyncio.gather(watch(), follow(), flood_when_running()), timeout=150)
    full = (await client.get_logs(run_id, MAX_TAIL_LINES, component="trainer", since_seconds=86400)).lines()
    assert not gaps
    assert lines == full and follower.final_fetch_ok
