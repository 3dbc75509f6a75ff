"""A run's screen closed while its monitor tabs are still mounting closes cleanly (no crash).

Whatever removes it: Esc, a plain ``app.pop_screen()`` or an app key (``r``), two pops at once, a
switch (``open_run`` of another run: the palette or a notification opening a run in that instant;
a switch to a screen already running), or quitting.

Each close comes at the one instant the race needs: ``as_mounting`` wraps ``RunScreen.mount_monitor``
so that the close runs right after the monitor tabs' mounts were started, before any of them ran (the
screen's ``mounting`` is true then). With the app's hold removed (``app_leaving`` counting no screen
as mounting), 7 of these 8 tests fail ("Can't mount widget(s) before Grid() is mounted", "No Tab
with id ..."), the pops on their first open. Closing after a poll instead met that instant by chance:
those tests looped 12 times, and 12 opens each caught a removed hold in only 2 of 8 tests. :data:`OPENS`
opens that each meet it prove more for a third of the CPU; one open is not enough (with one, the switch to a
running screen passes without the hold). The tests share one idle run (module fixture ``runs``): an open
costs about 0.2 CPU seconds, the app's start about a second, a run's trainer start more.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator

import pytest
from textual.screen import Screen
from textual.widgets import Static
from tests.waiting import until, wait_for
from dash_helpers import dispatch_idle_run, make_app, wait_status

from primetui.api.client import PrimeClient
from primetui.ui.screens.run import RunScreen
from primetui.ui.screens.runs import RunsScreen

pytestmark = [pytest.mark.timeout(180), pytest.mark.slow]


OPENS = 3
"""Opens a test: each one closes its screen in the race's instant (``as_mounting``)."""


def _still_running(app) -> None:
    assert app.return_code in (None, 0), app.return_code
    assert app._exception is None, app._exception


def _on_run(app, run_id: str) -> bool:
    return isinstance(app.screen, RunScreen) and app.screen.run_id == run_id


def _settled(app) -> bool:
    """The runs list on top and no closed screen kept for its mounts any more."""
    return isinstance(app.screen, RunsScreen) and not app.settling


async def _idle_runs(lp) -> tuple[str, str]:
    a, b = await dispatch_idle_run(lp), await dispatch_idle_run(lp)
    await wait_status(lp, a, {"RUNNING"})
    return a, b


async def _stop(lp, *run_ids: str) -> None:
    async with PrimeClient(lp.base_url, lp.token) as client:
        for run_id in run_ids:
            await client.stop_run(run_id)


@pytest.fixture(scope="module")
def runs(local_platform) -> Iterator[tuple[str, str]]:
    """Two idle runs the module's tests share (none of them stops or changes a run): the first RUNNING,
    the second listed (the run another one is switched to). A run per test cost a trainer's start each."""
    a, b = asyncio.run(_idle_runs(local_platform))
    try:
        yield a, b
    finally:
        asyncio.run(_stop(local_platform, a, b))


@pytest.fixture
def as_mounting(monkeypatch) -> list:
    """A list the test puts one callable in: ``then(screen)`` runs as each run screen has just started
    mounting its monitor tabs (none of them mounted yet), as a key typed ahead or a worker would run."""
    then: list = []
    mount_monitor = RunScreen.mount_monitor

    def mount_then_close(screen: RunScreen, run) -> None:
        mount_monitor(screen, run)
        assert screen.mounting, "the monitor tabs still mount"
        if then:
            then[0](screen)

    monkeypatch.setattr(RunScreen, "mount_monitor", mount_then_close)
    return then


@contextlib.asynccontextmanager
async def _dashboard(lp, runs: tuple[str, str]):
    """The dashboard on its runs list, with a run running: (app, pilot, run id). After the test's
    part, the runs list still answers and the app did not crash."""
    run_id = runs[0]
    app = make_app(lp)
    async with app.run_test(size=(160, 48)) as pilot:
        await until(pilot, lambda: app.state.runs_loaded, "the runs list")
        yield app, pilot, run_id
        await until(pilot, lambda: app.state.runs_loaded, "the runs list still answering")
    _still_running(app)


async def test_a_run_screen_closed_as_it_opens_leaves_the_app_running(local_platform, runs, as_mounting):
    async with _dashboard(local_platform, runs) as (app, pilot, run_id):
        as_mounting.append(lambda screen: screen.action_back())  # Esc's action, typed ahead
        for _ in range(OPENS):
            app.open_run(run_id)
            await until(pilot, lambda: _settled(app), "the run screen closed and removed")
            _still_running(app)


@pytest.mark.parametrize("how", ["pop_screen", "show_runs"])
async def test_a_run_screen_popped_by_the_app_as_it_opens_leaves_the_app_running(
    local_platform, runs, as_mounting, how
):
    async with _dashboard(local_platform, runs) as (app, pilot, run_id):
        if how == "pop_screen":
            as_mounting.append(lambda screen: app.pop_screen())  # not awaited, as a dialog's dismiss does it
        else:
            as_mounting.append(lambda screen: app.action_show("runs"))  # the `r` key: its detail screens closed
        for _ in range(OPENS):
            app.open_run(run_id)
            await until(pilot, lambda: _settled(app), "the runs list on top, the run screen removed")
            _still_running(app)


async def test_another_run_opened_as_a_run_screen_opens_replaces_it_without_a_crash(local_platform, runs, as_mounting):
    async with _dashboard(local_platform, runs) as (app, pilot, a):
        b = runs[1]  # listed and openable is all it needs
        await until(pilot, lambda: app.state.find_run(a) and app.state.find_run(b), "both runs listed")
        targets = [b, a, b, a, b, a][: 2 * OPENS]
        # a switch, issued while the screen it replaces still mounts: the next run each time
        as_mounting.append(lambda screen: targets and app.open_run(targets.pop(0)))
        app.open_run(a)
        await until(pilot, lambda: not targets and _on_run(app, a), "the last run on top")
        await until(pilot, lambda: not app.screen.mounting and not app.settling, "every replaced screen removed")
        await until(pilot, lambda: app.state.runs_loaded, "the runs list still answering")
        _still_running(app)
        assert [type(s) for s in app.screen_stack] == [RunsScreen, RunScreen], app.screen_stack


async def test_two_pops_at_once_over_two_mounting_run_screens_pop_both_in_order(local_platform, runs, as_mounting):
    async with _dashboard(local_platform, runs) as (app, pilot, a):
        for _ in range(OPENS):
            first, second = RunScreen(a), RunScreen(a)
            popped: list = []

            def then(screen, first=first, second=second, popped=popped) -> None:
                if screen is first:
                    app.push_screen(second)  # over the first, which still mounts
                    return
                assert first.mounting or popped, "the first still mounts too"
                app.pop_screen()
                popped.append(app.screen)  # the top went at once, not after its mounts
                app.pop_screen()

            as_mounting[:] = [then]
            app.push_screen(first)
            await until(pilot, lambda p=popped: p, "both run screens popped")
            assert popped == [first], app.screen_stack
            await until(pilot, lambda s=(first, second): not any(x.is_attached for x in s), "both removed")
            assert _settled(app), app.screen_stack
            _still_running(app)


async def test_a_run_screen_pushed_again_as_it_settles_is_removed_when_it_leaves_again(local_platform, runs):
    # The popped screen is kept (installed) until its mounts are done; pushed again meanwhile, it is
    # still ours to remove when it leaves the next time, not left installed for good.
    async with _dashboard(local_platform, runs) as (app, pilot, a):
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
        assert not app.settling


class Plain(Screen):
    def compose(self):
        yield Static("a screen installed, shown once, still running")


async def test_a_switch_to_a_running_screen_as_a_run_screen_opens_leaves_the_app_running(
    local_platform, runs, as_mounting
):
    # Textual removes the screen it replaces once the new one is mounted: a screen running already
    # (installed, as the shell screen is) is mounted at once, so the run screen goes as it mounts.
    async with _dashboard(local_platform, runs) as (app, pilot, run_id):
        plain = Plain()
        app.install_screen(plain, "plain")
        as_mounting.append(lambda screen: app.switch_screen("plain"))
        for _ in range(OPENS):
            app.open_run(run_id)
            await until(pilot, lambda: app.screen is plain and not app.settling, "the installed screen")
            _still_running(app)
            app.pop_screen()
            await until(pilot, lambda: isinstance(app.screen, RunsScreen), "the runs list on top")


async def _quit_as_it_opens(lp, run_id: str, as_mounting: list) -> None:
    app = make_app(lp)
    quitting: list = []
    as_mounting[:] = [lambda screen: quitting.append(asyncio.ensure_future(app.action_quit()))]
    async with app.run_test(size=(160, 48)) as pilot:
        await until(pilot, lambda: app.state.runs_loaded, "the runs list")
        app.open_run(run_id)  # `q` or ctrl+q as it mounts: every screen is removed as the app ends
        await wait_for(lambda: quitting and app._task.done(), "the app's message loop to end")
    _still_running(app)


async def test_quitting_as_a_run_screen_opens_ends_cleanly(local_platform, runs, as_mounting):
    for _ in range(2):
        await _quit_as_it_opens(local_platform, runs[0], as_mounting)
