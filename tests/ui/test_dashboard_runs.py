"""Pilot tests: the runs list and the run screen, every action, against the real local platform."""

from __future__ import annotations

import asyncio

import pytest
from tests.waiting import input_applied, quiet, until
from dash_helpers import (
    PACED_DATA,
    dispatch_paced_run,
    dispatch_walkthrough,
    make_app,
    notifications,
    screen_text,
    wait_status,
)
from textual.widgets import DataTable, Input, TabbedContent, TextArea

from primetui.ui.screens.run import RunScreen
from primetui.ui.widgets import ConfirmScreen

pytestmark = pytest.mark.timeout(120)


async def _completed_walkthrough(lp) -> str:
    # The walkthrough's 10 steps on short rows (256 tokens, 4 a step): these tests read its steps, checkpoint
    # and lifecycle, not its throughput, and full rows cost a trainer 2.3 s of CPU where these cost 0.5 s.
    run_id = await dispatch_walkthrough(lp, data=dict(PACED_DATA))
    await wait_status(lp, run_id, {"COMPLETED"})
    return run_id


@pytest.fixture(scope="module")
def completed_run(local_platform) -> str:
    """A finished walkthrough run (10 steps), opened by one test and filtered for by another (neither changes
    it): a run per test cost a trainer each."""
    return asyncio.run(_completed_walkthrough(local_platform))


async def test_runs_list_shows_a_completed_walkthrough_run_and_opens_it(local_platform, completed_run):
    run_id = completed_run
    app = make_app(local_platform)
    # 200 columns hold every column also once the loss sparkline has arrived and the list mixes RL
    # and SFT runs (the Kind column; at 180 the model column gives way to them).
    async with app.run_test(size=(200, 48)) as pilot:
        table = app.screen.query_one("#runs-table", DataTable)
        await until(pilot, lambda: run_id in [k.value for k in table.rows], "run in the table")
        await until(pilot, lambda: "10/10" in screen_text(app), "steps 10/10 from metrics")
        text = screen_text(app)
        assert "✓ COMPLETED" in text
        assert "PrimeIntellect/Qwen3-0.6B-Reverse-Text-SFT" in text
        table.move_cursor(row=table.get_row_index(run_id))
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, RunScreen), "run screen")
        await until(pilot, lambda: "Completed 20" in screen_text(app), "lifecycle timestamps")
        await until(
            pilot,
            lambda: f"prime volumes get research runs/{run_id}/checkpoints/step_10/ ./step_10" in screen_text(app),
            "checkpoint command",
        )
        # Only actions valid for a COMPLETED run are offered.
        assert app.screen.check_action("delete", ()) is True
        assert app.screen.check_action("stop", ()) is False
        assert app.screen.check_action("pause", ()) is False
        await pilot.press("x")  # stop is not possible: nothing happens, no dialog
        await input_applied(pilot)
        assert not isinstance(app.screen, ConfirmScreen)
        # The config tab shows the dispatched TOML, read-only.
        app.screen.query_one(TabbedContent).active = "tab-config"
        await quiet(pilot)
        area = app.screen.query_one("#run-config", TextArea)
        assert 'name = "PrimeIntellect/Qwen3-0.6B-Reverse-Text-SFT"' in area.text
        assert area.read_only
        await pilot.press("y")
        await input_applied(pilot)
        assert any(f"run id: {run_id}" in n for n in notifications(app))
        assert app.clipboard == run_id
        await pilot.press("escape")
        await input_applied(pilot)
        assert not isinstance(app.screen, RunScreen)


async def test_filter_narrows_the_list_and_escape_clears_it(local_platform, completed_run):
    run_id = completed_run
    app = make_app(local_platform)
    async with app.run_test(size=(120, 30)) as pilot:
        table = app.screen.query_one("#runs-table", DataTable)
        await until(pilot, lambda: run_id in [k.value for k in table.rows], "run listed")
        await pilot.press("slash")
        await input_applied(pilot)
        box = app.screen.query_one("#runs-filter", Input)
        assert box.has_focus
        box.value = "no-such-run-x"
        box.cursor_position = len(box.value)
        await pilot.press("y", "z")
        await until(
            pilot,
            lambda: table.row_count == 0 and "No run matches" in screen_text(app),
            "the filter hiding everything and saying so",
        )
        await pilot.press("escape")
        await until(pilot, lambda: table.row_count > 0, "filter cleared")
        await pilot.press("slash")
        box.value = run_id[:8]
        box.cursor_position = len(box.value)
        await pilot.press(run_id[8], run_id[9])
        await pilot.press("enter")
        await until(
            pilot,
            lambda: [k.value for k in table.rows] == [run_id],
            f"only the matching run {run_id}: {box.value!r} {app.screen.query_text!r} {[k.value for k in table.rows]}",
        )


async def test_watched_run_toasts_and_rings_on_status_change_and_stop_asks_first(local_platform):
    # A long run so it is still RUNNING when we act on it.
    run_id = await dispatch_paced_run(local_platform)
    app = make_app(local_platform)
    bells: list[int] = []
    app.bell = lambda: bells.append(1)  # type: ignore[method-assign]
    async with app.run_test(size=(120, 30)) as pilot:
        app.open_run(run_id)
        await until(pilot, lambda: isinstance(app.screen, RunScreen) and app.screen.run is not None, "run loaded")
        await until(pilot, lambda: app.screen.run.status == "RUNNING", "running", timeout=60)
        await pilot.press("w")
        await input_applied(pilot)
        assert run_id in app.state.watched
        assert app.screen.check_action("stop", ()) is True
        assert app.screen.check_action("pause", ()) is True
        assert app.screen.check_action("resume", ()) is False
        await pilot.press("x")
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen), "confirmation")
        assert "Checkpoints already saved stay on research" in str(app.screen.query_one("#confirm-body").render())
        await pilot.press("n")  # declining changes nothing
        await input_applied(pilot)
        assert isinstance(app.screen, RunScreen)
        await pilot.press("x")
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen), "confirmation again")
        await pilot.press("y")
        await until(
            pilot, lambda: any("RUNNING → STOPPED" in n for n in notifications(app)), "status toast", timeout=60
        )
        assert bells, "the terminal bell rang"
        # The toast may come from the runs list underneath, a poll before the run screen's own.
        await until(pilot, lambda: app.screen.check_action("delete", ()) is True, "delete offered for the stopped run")
        await pilot.press("d")
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen), "delete confirmation")
        body = str(app.screen.query_one("#confirm-body").render())
        assert "cannot be brought back" in body and "stay on the volume" in body
        await pilot.press("y")
        await until(pilot, lambda: any(f"Deleted run {run_id}" in n for n in notifications(app)), "deleted")
        assert not isinstance(app.screen, RunScreen)


async def test_restart_then_pause_then_resume_opens_the_new_run(local_platform):
    run_id = await dispatch_paced_run(local_platform)
    await wait_status(local_platform, run_id, {"RUNNING"})
    app = make_app(local_platform)
    async with app.run_test(size=(120, 30)) as pilot:
        app.open_run(run_id)
        await until(pilot, lambda: isinstance(app.screen, RunScreen) and app.screen.run is not None, "run loaded")
        await pilot.press("R")
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen), "restart confirmation")
        assert "latest checkpoint" in str(app.screen.query_one("#confirm-body").render())
        await pilot.press("y")
        await until(pilot, lambda: any(f"Restarting {run_id}" in n for n in notifications(app)), "restart sent")
        screen = app.screen
        # The status shown before the platform answers the restart is the old RUNNING: pause is not
        # offered until the answer (CREATING) and a later poll say the new trainer runs.
        await until(
            pilot,
            lambda: not screen.action_in_flight and screen.check_action("pause", ()) is True,
            "the restarted run to be RUNNING again (pause offered)",
            timeout=60,
        )
        await pilot.press("p")
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen), "pause confirmation")
        assert "cannot be unpaused" in str(app.screen.query_one("#confirm-body").render())
        await pilot.press("y")
        await until(
            pilot,
            lambda: isinstance(app.screen, RunScreen) and app.screen.run.status == "PAUSED",
            "the run to be PAUSED",
            timeout=120,
        )
        assert app.screen.check_action("resume", ()) is True
        await pilot.press("u")
        await until(
            pilot,
            lambda: isinstance(app.screen, RunScreen) and app.screen.run_id != run_id,
            "new run's screen",
            timeout=60,
        )
        new_id = app.screen.run_id
        assert new_id in app.state.watched
        assert any(f"Resumed as run {new_id}" in n for n in notifications(app))
        await until(
            pilot,
            lambda: app.screen.run is not None and app.screen.run.status in ("PENDING", "CREATING", "RUNNING"),
            "new run live",
        )
        # Stop the resumed run so it does not keep the shared platform busy.
        await app.client.stop_run(new_id)
