"""Issue 18 #10: pause A, resume it as B, stop and delete B, open A: the action and the note follow
what exists now, A can be resumed again, and a refused action is not a lost connection."""

from __future__ import annotations

import pytest
from tests.waiting import quiet, until
from dash_helpers import dispatch_paced_run, make_app, notifications, screen_text, wait_status

from primetui.api.client import PrimeClient
from primetui.ui.screens.run import RunScreen

pytestmark = pytest.mark.timeout(240)


async def test_resume_follows_what_exists_now(local_platform):
    a = await dispatch_paced_run(local_platform)
    await wait_status(local_platform, a, {"RUNNING"})
    async with PrimeClient(local_platform.base_url, local_platform.token) as c:
        await c.pause_run(a)
        await wait_status(local_platform, a, {"PAUSED"}, limit=120)
        b = (await c.resume_run(a)).run_id
        app = make_app(local_platform)
        async with app.run_test(size=(120, 40)) as pilot:
            app.open_run(a)
            await until(pilot, lambda: isinstance(app.screen, RunScreen) and app.screen.run is not None, "run A")
            screen = app.screen
            # B exists: the platform refuses another resume, so it is not offered
            await until(
                pilot, lambda: f"continues as run {b}" in screen_text(app), "A says where it continues", timeout=120
            )
            assert screen.check_action("resume", ()) is False
            screen.do_resume()  # what the palette or an old footer would do
            await until(pilot, lambda: any("follow that run instead" in n for n in notifications(app)), "409 shown")
            polled_before = app.state.connection.last_ok
            screen.poll()
            await until(pilot, lambda: app.state.connection.last_ok != polled_before, "a successful poll after the 409")
            await quiet(pilot)
            assert not any("Connection to the platform is back" in n for n in notifications(app))
            assert app.state.connection.last_error is None
            await c.stop_run(b)
            await wait_status(local_platform, b, {"STOPPED"}, limit=60)
            await c.delete_run(b)
            screen.poll()
            await until(pilot, lambda: "which was deleted" in screen_text(app), "A's note follows the deletion")
            assert screen.check_action("resume", ()) is True
            await pilot.press("u")
            await until(
                pilot,
                lambda: isinstance(app.screen, RunScreen) and app.screen.run_id not in (a, b),
                "resumed again",
                timeout=60,
            )
            await c.stop_run(app.screen.run_id)
