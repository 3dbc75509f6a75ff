"""Three screens open (runs, volumes, a live run with its monitor tabs): one request stream per resource.

Before the FollowerHub, the run screen and each monitor pane polled on their own: a run screen
with its logs, charts and components read the run (R2) four times per interval and its metrics
(R10) twice. The platform's view is counted here at the client's transport, over real HTTP.
"""

from __future__ import annotations

import asyncio
import re
from collections import Counter

import httpx
import pytest
from tests.waiting import quiet, until
from dash_helpers import dispatch_idle_run, wait_status

from primetui.api.client import PrimeClient
from primetui.ui.app import PrimeApp
from primetui.ui.screens.run import RunScreen

pytestmark = pytest.mark.slow

WINDOW = 12.0  # seconds of counting, with every screen open


class CountingTransport(httpx.AsyncHTTPTransport):
    """Requests per resource: the run under test's as ``/rft/runs/{id}``, any other run's (the runs list
    follows every active one: the demo's seeded run on a platform just started) as ``/rft/runs/{other}``."""

    def __init__(self, run_id: str) -> None:
        super().__init__()
        self.counts: Counter[str] = Counter()
        self.counting = False
        self.run_id = run_id

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if self.counting:
            path = request.url.path.removeprefix("/api/v1").replace(f"/rft/runs/{self.run_id}", "/rft/runs/{id}")
            path = re.sub(r"/rft/runs/(?!\{id\})[^/]+", "/rft/runs/{other}", path)
            path = re.sub(r"/volumes/[^/]+/sessions", "/volumes/{name}/sessions", path)
            self.counts[f"{request.method} {path}"] += 1
        return await super().handle_async_request(request)


async def test_three_open_screens_make_one_request_stream_per_resource(local_platform):
    run_id = await dispatch_idle_run(local_platform)  # followed, not training: its trainer sleeps
    await wait_status(local_platform, run_id, {"RUNNING"})
    transport = CountingTransport(run_id)
    client = PrimeClient(local_platform.base_url, local_platform.token, transport=transport)
    app = PrimeApp(client, None, None, poll_scale=1.0, platform_label="local test")
    try:
        async with app.run_test(size=(160, 48)) as pilot:
            await until(pilot, lambda: app.state.runs_loaded, "runs list")
            app.switch_mode("volumes")
            await until(pilot, lambda: app.state.volumes_loaded, "volumes")
            app.switch_mode("runs")
            app.open_run(run_id)
            await until(pilot, lambda: isinstance(app.screen, RunScreen) and app.screen.run is not None, "run screen")
            for tab in ("3", "4", "5"):  # logs, charts, components: their panes mount and follow
                await pilot.press(tab)
                await quiet(pilot)  # the pane mounted and subscribed (the window below bounds requests from above)
            transport.counts.clear()
            transport.counting = True
            await asyncio.sleep(WINDOW)
            transport.counting = False
            counts = dict(transport.counts)
            print("requests in", WINDOW, "s:", counts)
    finally:
        await client.stop_run(run_id)
        await client.aclose()
    per_interval = lambda seconds: WINDOW / seconds + 2  # noqa: E731 - one stream at that interval, plus slack
    # The run itself: one watcher at 3 s shared by the run screen and every pane.
    assert counts.get("GET /rft/runs/{id}", 0) <= per_interval(3.0), counts
    # Its metrics: one follower at 3 s shared by the run screen, the charts and the runs list.
    assert counts.get("GET /rft/runs/{id}/metrics", 0) <= per_interval(3.0), counts
    # The runs list and the volumes (in the background now) each at their 5 s interval, once.
    assert counts.get("GET /rft/runs", 0) <= per_interval(5.0), counts
    assert counts.get("GET /training/volumes", 0) + counts.get("GET /volumes", 0) <= per_interval(5.0), counts
    assert counts.get("GET /rft/runs/{id}", 0) >= 2, counts  # and the run is really being followed
