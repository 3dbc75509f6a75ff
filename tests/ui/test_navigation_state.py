"""Navigation and what goes stale (issue 18 #8, #9): the screen stack, the palette, watches that
outlive a deleted run, and watches and the theme kept across restarts."""

from __future__ import annotations

import asyncio

import pytest
from tests.waiting import input_applied, quiet, until
from dash_helpers import dispatch_walkthrough, make_app, notifications, screen_text, wait_status
from textual.widgets import Static

from primetui.config.prefs import Prefs, load_prefs
from primetui.ui.palette import PrimeCommands
from primetui.ui.screens.run import RunScreen
from primetui.ui.screens.runs import RunsScreen
from primetui.ui.screens.volumes import VolumesScreen
from primetui.ui.widgets import ConfirmScreen

pytestmark = pytest.mark.timeout(150)


def palette(app) -> list[str]:
    return [text for text, _, _ in PrimeCommands(app.screen).commands()]


async def _two_runs(lp) -> tuple[str, str]:
    a = await dispatch_walkthrough(lp, max_steps=1)
    b = await dispatch_walkthrough(lp, max_steps=1)
    await wait_status(lp, a, {"COMPLETED"})
    await wait_status(lp, b, {"COMPLETED"})
    return a, b


@pytest.fixture(scope="module")
def two_runs(local_platform) -> tuple[str, str]:
    """Two finished runs the module's tests open or watch (none deletes them): a run's trainer costs about a
    CPU second, so they are dispatched once."""
    return asyncio.run(_two_runs(local_platform))


async def test_r_after_v_from_a_run_shows_the_list_and_esc_from_a_second_run_too(local_platform, two_runs):
    a, b = two_runs
    app = make_app(local_platform)
    async with app.run_test(size=(120, 32)) as pilot:
        app.open_run(a)
        await until(pilot, lambda: isinstance(app.screen, RunScreen) and app.screen.run is not None, "run A")
        await pilot.press("v")
        await until(pilot, lambda: isinstance(app.screen, VolumesScreen), "volumes")
        await pilot.press("r")
        await until(pilot, lambda: not isinstance(app.screen, VolumesScreen), "left volumes")
        await quiet(pilot)
        assert isinstance(app.screen, RunsScreen), app.screen  # not run A under the volumes
        app.open_run(a)
        await until(pilot, lambda: isinstance(app.screen, RunScreen) and app.screen.run_id == a, "run A again")
        app.open_run(b)  # e.g. from the palette
        await until(pilot, lambda: isinstance(app.screen, RunScreen) and app.screen.run_id == b, "run B")
        await pilot.press("escape")
        # The pop can take more than one pause on a loaded machine; a stack left with run A under
        # run B would settle on RunScreen and fail here.
        await until(pilot, lambda: not (isinstance(app.screen, RunScreen) and app.screen.run_id == b), "left run B")
        await quiet(pilot)
        assert isinstance(app.screen, RunsScreen), app.screen


async def test_a_dispatched_run_is_in_the_palette_and_watched_once_and_kept(local_platform, tmp_path):
    prefs_file = tmp_path / "config.toml"
    app = make_app(local_platform, prefs=Prefs(), prefs_file=prefs_file)
    async with app.run_test(size=(120, 32)) as pilot:
        await until(pilot, lambda: app.state.runs_loaded, "runs list read")
        run_id = await dispatch_walkthrough(local_platform, max_steps=1)
        app.run_dispatched(run_id)  # what the editor does after a dispatch
        await until(pilot, lambda: isinstance(app.screen, RunScreen) and app.screen.run is not None, "run screen")
        items = palette(app)
        assert any(t.startswith("Open run") and run_id in t for t in items), "new run missing from the palette"
        assert not any(t.startswith("Watch run") and run_id in t for t in items), "offers to watch a watched run"
        assert any(t.startswith("Stop watching run") and run_id in t for t in items)
        app.theme = "primetui-light"
        await pilot.pause()
    kept, problem = load_prefs(prefs_file)
    assert problem is None and run_id in kept.watched and kept.theme == "primetui-light"
    again = make_app(local_platform, prefs=kept, prefs_file=prefs_file)
    async with again.run_test(size=(120, 32)):
        assert run_id in again.state.watched and again.theme == "primetui-light"


async def test_deleting_a_watched_run_drops_its_watch(local_platform, two_runs, tmp_path):
    run_id = await dispatch_walkthrough(local_platform, max_steps=1)  # its own: it deletes it
    await wait_status(local_platform, run_id, {"COMPLETED"})
    app = make_app(local_platform, prefs=Prefs(), prefs_file=tmp_path / "config.toml")
    async with app.run_test(size=(120, 32)) as pilot:
        other = two_runs[0]  # watched, and kept watched
        app.toggle_watch(other)
        app.open_run(run_id)
        await until(
            pilot, lambda: isinstance(app.screen, RunScreen) and "Lifecycle" in screen_text(app), "run screen drawn"
        )
        await pilot.press("w")
        await input_applied(pilot)
        assert app.state.watched == {run_id, other}
        await pilot.press("d")
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen), "delete confirmation")
        await pilot.press("y")
        await until(pilot, lambda: any(f"Deleted run {run_id}" in n for n in notifications(app)), "deleted")
        await until(pilot, lambda: isinstance(app.screen, RunsScreen), "back on the list")
        info = app.screen.query_one("#runs-info", Static)
        await until(pilot, lambda: app.state.runs_loaded and app.state.find_run(run_id) is None, "list refreshed")
        await until(pilot, lambda: app.state.watched == {other}, f"the watch list to drop {run_id}")
        await until(pilot, lambda: "watching 1" in str(info.render()), "the runs info to say watching 1")
    assert load_prefs(tmp_path / "config.toml")[0].watched == [other]
