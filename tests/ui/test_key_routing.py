"""Keys land where the user is looking: a shown tab takes its own keys, text entry and the editor
keep their letters, and the dashboard's single-letter keys never fire underneath them (issue 18)."""

from __future__ import annotations

import asyncio

import pytest
from tests.waiting import input_applied, quiet, until
from dash_helpers import dispatch_walkthrough, make_app, wait_status
from textual.widgets import Input

from primetui.ui.editor import EditorScreen
from primetui.ui.monitor import LogsPane
from primetui.ui.monitor.logview import LogView
from primetui.ui.screens.run import RunScreen

pytestmark = pytest.mark.timeout(120)


@pytest.fixture(scope="module")
def finished_run(local_platform) -> str:
    """One finished 2-step run for the module: these tests only open it (a trainer start is seconds of CPU)."""

    async def finished() -> str:
        run_id = await dispatch_walkthrough(local_platform, max_steps=2)
        await wait_status(local_platform, run_id, {"COMPLETED"})
        return run_id

    return asyncio.run(finished())


def shown_keys(app) -> set[str]:
    return {key for key, ab in app.screen.active_bindings.items() if ab.enabled and ab.binding.show}


async def test_logs_tab_takes_slash_and_the_search_keeps_its_letters(
    local_platform, finished_run, tmp_path, monkeypatch
):
    monkeypatch.chdir(tmp_path)  # where the dashboard's `e` would open ./sft.toml
    run_id = finished_run
    app = make_app(local_platform, run_id=run_id)
    async with app.run_test(size=(120, 36)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, RunScreen) and app.screen.run is not None, "run screen")
        await until(pilot, lambda: app.screen.query("#tab-logs"), "logs tab mounted")
        await pilot.press("3")
        await until(pilot, lambda: isinstance(app.focused, LogView), f"the log has the keys (focus {app.focused!r})")
        await pilot.press("slash")
        await until(pilot, lambda: isinstance(app.focused, Input), "the search prompt is open")
        await pilot.press(*"checkpoint")
        await input_applied(pilot)
        assert isinstance(app.screen, RunScreen), "a letter of the search opened another screen"
        assert isinstance(app.focused, Input) and app.focused.value == "checkpoint"
        assert not (tmp_path / "sft.toml").exists()


async def test_editor_problems_list_q_asks_first_and_footer_has_no_dashboard_letters(local_platform, tmp_path):
    path = tmp_path / "sft.toml"
    path.write_text("max_steps = 10\n")
    app = make_app(local_platform, edit_path=path)
    async with app.run_test(size=(120, 36)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, EditorScreen), "editor open")
        editor = app.screen
        await pilot.press("end", "0")  # an unsaved change
        await input_applied(pilot)
        assert editor.modified
        assert not shown_keys(app) & {"r", "v", "m", "e"}, shown_keys(app)
        await pilot.press("f2")
        await until(pilot, lambda: editor.query_one("#editor-problems").has_focus, "problems list focused")
        assert not shown_keys(app) & {"r", "v", "m", "e"}, shown_keys(app)
        await pilot.press("q")
        await quiet(pilot)
        assert app.is_running and app.screen is editor, "q quit with unsaved changes"
        assert "Unsaved changes" in editor.note
        for letter in "rvmet":
            await pilot.press(letter)
        await quiet(pilot)
        assert app.screen is editor, "a dashboard letter fired inside the editor"
        await pilot.press("q")
        await until(pilot, lambda: not isinstance(app.screen, EditorScreen), "second q closes the editor")
        assert app.is_running
        assert path.read_text() == "max_steps = 10\n"


async def test_the_run_screen_stays_on_overview_while_its_monitor_tabs_mount(local_platform, finished_run):
    # The log pane's own trainer/all strip activates its first tab as it mounts, inside the hidden
    # Logs tab; giving that the keys pulled the whole screen over to Logs (TabbedContent follows
    # focus), so a dispatched run opened on its log instead of its overview.
    run_id = finished_run
    app = make_app(local_platform, run_id=run_id)
    async with app.run_test(size=(120, 36)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, RunScreen) and app.screen.run is not None, "run screen")
        await until(pilot, lambda: app.screen.query(LogView), "the log pane mounted")
        # The panes settled: the first log lines are in, and the tab activations they caused handled.
        await until(
            pilot, lambda: app.screen.query_one(LogsPane).stores["trainer"].all_text(), "the first trainer log lines"
        )
        await quiet(pilot)
        tabs = app.screen.query_one("#run-tabs")
        assert tabs.active == "tab-overview", f"the screen moved to {tabs.active} on its own"
        await pilot.press("3")
        await until(pilot, lambda: isinstance(app.focused, LogView), "key 3 still gives the log the keys")
