"""A run's screen closed while its monitor tabs are still mounting closes cleanly (no crash)."""

from __future__ import annotations

import pytest
from tests.waiting import until
from dash_helpers import dispatch_walkthrough, make_app, wait_status

from primetui.api.client import PrimeClient
from primetui.ui.screens.run import RunScreen

pytestmark = [pytest.mark.timeout(180), pytest.mark.slow]


async def test_a_run_screen_closed_as_it_opens_leaves_the_app_running(local_platform):
    run_id = await dispatch_walkthrough(local_platform, max_steps=100_000)
    await wait_status(local_platform, run_id, {"RUNNING"})
    app = make_app(local_platform)
    try:
        async with app.run_test(size=(160, 48)) as pilot:
            await until(pilot, lambda: app.state.runs_loaded, "the runs list")
            for _ in range(12):
                app.open_run(run_id)
                await until(pilot, lambda: isinstance(app.screen, RunScreen), "the run screen")
                # Esc's action at once, as a key typed ahead runs it: the monitor tabs still mount
                await app.screen.run_action("back")
                await until(pilot, lambda: not isinstance(app.screen, RunScreen), "the run screen closed")
            await until(pilot, lambda: app.state.runs_loaded, "the runs list still answering")
        assert app.return_code in (None, 0), app.return_code
        assert app._exception is None, app._exception
    finally:
        async with PrimeClient(local_platform.base_url, local_platform.token) as client:
            await client.stop_run(run_id)
