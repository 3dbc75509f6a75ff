"""A run's screen closed while its monitor tabs are still mounting closes cleanly (no crash).

Whatever removes it: Esc, a plain ``app.pop_screen()`` or an app key (``r``), two pops at once, a
switch (``open_run`` of another run: the palette or a notification opening a run in that instant;
a switch to a screen already running), or quitting.
"""

from __future__ import annotations

import asyncio
import contextlib

import pytest
from textual.screen import Screen
from textual.widgets import Static
from tests.waiting import until, wait_for
from dash_helpers import dispatch_idle_run, dispatch_walkthrough, make_app, wait_status

from primetui.api.client import PrimeClient
from primetui.ui.screens.run import RunScreen
from primetui.ui.screens.runs import RunsScreen

pytestmark = [pytest.mark.timeout(180), pytest.mark.slow]


def _still_running(app) -> None:
    assert app.return_code in (None, 0), app.return_code
    assert app._exception is None, app._exception


def _on_run(app, run_id: str) -> bool:
    return isinstance(app.screen, RunScreen) and app.screen.run_id == run_id


async def _running_run(lp) -> str:
    run_id = await dispatch_idle_run(lp)
    await wait_status(lp, run_id, {"RUNNING"})
    return run_id


async def _stop(lp, run_id: str) -> None:
    async with PrimeClient(lp.base_url, lp.token) as client:
        await client.stop_run(run_id)


@contextlib.asynccontextmanager
async def _dashboard(lp):
    """The dashboard on its runs list, with a run running: (app, pilot, run id). After the test's
    part, the runs list still answers, the app did not crash, and the run is stopped."""
    run_id = await _running_run(lp)
    app = make_app(lp)
    try:
        async with app.run_test(size=(160, 48)) as pilot:
            await until(pilot, lambda: app.state.runs_loaded, "the runs list")
            yield app, pilot, run_id
            await until(pilot, lambda: app.state.runs_loaded, "the runs list still answering")
        _still_running(app)
    finally:
        await _stop(lp, run_id)


async def test_a_run_screen_closed_as_it_opens_leaves_the_app_running(local_platform):
    async with _dashboard(local_platform) as (app, pilot, run_id):
        for _ in range(12):
            app.open_run(run_id)
            await until(pilot, lambda: isinstance(app.screen, RunScreen), "the run screen")
            # Esc's action at once, as a key typed ahead runs it: the monitor tabs still mount
            await app.screen.run_action("back")
            await until(pilot, lambda: not isinstance(app.screen, RunScreen), "the run screen closed")


@pytest.mark.parametrize("how", ["pop_screen", "show_runs"])
async def test_a_run_screen_popped_by_the_app_as_it_opens_leaves_the_app_running(local_platform, how):
    async with _dashboard(local_platform) as (app, pilot, run_id):
        for _ in range(12):
            app.open_run(run_id)
            await until(pilot, lambda: isinstance(app.screen, RunScreen), "the run screen")
            if how == "pop_screen":
                app.pop_screen()  # not awaited, as a dialog's dismiss or a worker does it
            else:
                app.action_show("runs")  # the `r` key: the runs list, its detail screens closed
            await until(pilot, lambda: isinstance(app.screen, RunsScreen), "the runs list on top")


async def test_another_run_opened_as_a_run_screen_opens_replaces_it_without_a_crash(local_platform):
    async with _dashboard(local_platform) as (app, pilot, a):
        b = await dispatch_walkthrough(local_platform, max_steps=2)
        await until(pilot, lambda: app.state.find_run(a) and app.state.find_run(b), "both runs listed")
        app.open_run(a)
        await until(pilot, lambda: _on_run(app, a), "run A")
        target = a
        for i in range(12):
            target = (b, a)[i % 2]
            app.open_run(target)  # a switch, issued while the screen it replaces still mounts
            await until(pilot, lambda t=target: _on_run(app, t), f"run {target} on top")
        await until(pilot, lambda: app.state.runs_loaded, "the runs list still answering")
        assert _on_run(app, target), app.screen
        assert [type(s) for s in app.screen_stack] == [RunsScreen, RunScreen], app.screen_stack


async def test_two_pops_at_once_over_two_mounting_run_screens_pop_both_in_order(local_platform):
    async with _dashboard(local_platform) as (app, pilot, a):
        for _ in range(6):
            first, second = RunScreen(a), RunScreen(a)
            app.push_screen(first)
            await until(pilot, lambda s=first: app.screen is s, "the first run screen")
            app.push_screen(second)
            await until(pilot, lambda s=second: app.screen is s, "the second run screen")
            app.pop_screen()
            assert app.screen is first, app.screen_stack  # the top went at once, not after its mounts
            app.pop_screen()
            await until(pilot, lambda: isinstance(app.screen, RunsScreen), "both run screens popped")
            await until(pilot, lambda s=(first, second): not any(x.is_attached for x in s), "both removed")


async def test_a_run_screen_pushed_again_as_it_settles_is_removed_when_it_leaves_again(local_platform):
    # The popped screen is kept (installed) until its mounts are done; pushed again meanwhile, it is
    # still ours to remove when it leaves the next time, not left installed for good.
    async with _dashboard(local_platform) as (app, pilot, a):
        screen = RunScreen(a)
        app.push_screen(screen)
        await until(pilot, lambda: app.screen is screen, "the run screen")
        pending = asyncio.get_running_loop().create_future()
        screen.track_mount(pending)  # a mount of its own that ends only when the test says
        app.pop_screen()
        await until(pilot, lambda: isinstance(app.screen, RunsScreen), "the runs list on top")
        assert screen.is_attached and app.is_screen_installed(screen), "kept while it mounts"
        app.push_screen(screen)  # the same screen again, before it settled
        await until(pilot, lambda: app.screen is screen, "the run screen on top again")
        pending.set_result(None)
        await until(pilot, lambda: not screen.mounting, "the run screen settled")
        assert app.is_screen_installed(screen), "on the stack again: still ours"
        app.pop_screen()
        await until(pilot, lambda: isinstance(app.screen, RunsScreen), "the runs list on top")
        await until(pilot, lambda: not screen.is_attached, "the run screen removed")
        assert not app.is_screen_installed(screen)
        assert not app._settling


class Plain(Screen):
    def compose(self):
        yield Static("a screen installed, shown once, still running")


async def test_a_switch_to_a_running_screen_as_a_run_screen_opens_leaves_the_app_running(local_platform):
    # Textual removes the screen it replaces once the new one is mounted: a screen running already
    # (installed, as the shell screen is) is mounted at once, so the run screen goes as it mounts.
    async with _dashboard(local_platform) as (app, pilot, run_id):
        plain = Plain()
        app.install_screen(plain, "plain")
        for _ in range(12):
            app.open_run(run_id)
            await until(pilot, lambda: isinstance(app.screen, RunScreen), "the run screen")
            app.switch_screen("plain")
            await until(pilot, lambda: app.screen is plain, "the installed screen")
            app.pop_screen()
            await until(pilot, lambda: isinstance(app.screen, RunsScreen), "the runs list on top")


async def _quit_as_it_opens(lp, run_id: str) -> None:
    app = make_app(lp)
    async with app.run_test(size=(160, 48)) as pilot:
        await until(pilot, lambda: app.state.runs_loaded, "the runs list")
        app.open_run(run_id)
        await until(pilot, lambda: isinstance(app.screen, RunScreen), "the run screen")
        await app.action_quit()  # `q` or ctrl+q: every screen is removed as the app ends
        await wait_for(lambda: app._task.done(), "the app's message loop to end")
    _still_running(app)


async def test_quitting_as_a_run_screen_opens_ends_cleanly(local_platform):
    run_id = await _running_run(local_platform)
    try:
        for _ in range(4):
            await _quit_as_it_opens(local_platform, run_id)
    finally:
        await _stop(local_platform, run_id)
