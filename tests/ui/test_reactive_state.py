"""State that repaints itself: setting a screen's state shows it, without a refresh call, and a
value set again unchanged repaints nothing (issue 28, item 3).

The app runs on the recorded reply set with polling off (as the snapshots do), so nothing but the
test changes the state: each assert sees what setting one reactive did.
"""

from __future__ import annotations

import io
from typing import Any

from rich.console import Console
from textual.widgets import DataTable, Static
from textual.widgets._footer import FooterKey

from primetui.config.prefs import Prefs
from primetui.ui.app import PrimeApp
from primetui.ui.screens.run import RunScreen
from primetui.ui.screens.runs import RunsScreen
from primetui.ui.screens.volumes import VolumesScreen
from primetui.ui.themes import shipped_theme_dir
from primetui.ui.widgets import StatusBar
from tests.snapshots.screens_data import replay
from tests.waiting import quiet, until

COMPLETED = "kqeggj5dl7k85bc0mk1i4y5i"
RUNNING = "r2unning0000000000000000"


def make_app(**kw: Any) -> PrimeApp:
    data = replay.load()
    return PrimeApp(
        replay.client(data),
        None,
        Prefs(theme="primetui-dark"),
        clock=replay.fixed_clock(data),
        platform_label="recorded platform",
        poll_scale=0,
        theme_dirs=[shipped_theme_dir()],
        **kw,
    )


def shown(widget: Static) -> str:
    """The widget's text as it reads (a rich Group or table rendered, styles dropped)."""
    console = Console(width=240, file=io.StringIO(), color_system=None)
    with console.capture() as capture:
        console.print(widget.content)
    return capture.get()


def footer_actions(screen: Any) -> set[str]:
    return {key.action for key in screen.query(FooterKey) if not key.has_class("-disabled")}


def count_updates(widget: Static) -> list[object]:
    """Every ``update`` the widget gets from now on (each one is a repaint)."""
    calls: list[object] = []
    real = widget.update

    def update(*args: Any, **kwargs: Any) -> None:
        calls.append(args)
        real(*args, **kwargs)

    widget.update = update  # type: ignore[method-assign]
    return calls


async def test_setting_the_run_repaints_its_summary_header_and_actions():
    app = make_app(run_id=COMPLETED)
    async with app.run_test(size=(160, 48)) as pilot:
        await until(
            pilot, lambda: isinstance(app.screen, RunScreen) and app.screen.terminal_polls >= 1, "the finished run read"
        )
        await quiet(pilot, workers=True)
        screen = app.screen
        summary = screen.query_one("#run-summary", Static)
        bar = screen.query_one(StatusBar)
        assert "COMPLETED" in shown(summary) and "stop" not in footer_actions(screen)

        screen.run = screen.run.model_copy(update={"status": "RUNNING", "name": "renamed-by-the-test"})

        await until(pilot, lambda: "RUNNING" in shown(summary), "the summary shows the new status")
        await until(pilot, lambda: {"stop", "pause"} <= footer_actions(screen), "the footer offers stop and pause")
        await until(pilot, lambda: "Run renamed-by-the-test" in shown(bar), "the header names the run")
        assert "stop" in shown(summary).split("Actions now:")[1]

        # An action in flight: the status actions are offered disabled until the platform answers.
        screen._action_in_flight = True
        await until(pilot, lambda: "stop" not in footer_actions(screen), "stop disabled while an action is in flight")
        screen._action_in_flight = False
        await until(pilot, lambda: "stop" in footer_actions(screen), "stop offered again")


async def test_the_same_run_again_repaints_nothing():
    app = make_app(run_id=COMPLETED)
    async with app.run_test(size=(120, 34)) as pilot:
        await until(
            pilot, lambda: isinstance(app.screen, RunScreen) and app.screen.terminal_polls >= 1, "the finished run read"
        )
        await quiet(pilot, workers=True)
        screen = app.screen
        summary, bar = screen.query_one("#run-summary", Static), screen.query_one(StatusBar)
        updates, bar_updates = count_updates(summary), count_updates(bar)
        screen.run = screen.run.model_copy()  # equal, not the same object
        screen.checkpoints = list(screen.checkpoints)
        app.team_label = app.team_label
        app.update_health()  # the header's one-second tick, with the clock standing still
        await quiet(pilot)
        assert updates == [] and bar_updates == []


async def test_watching_a_run_marks_it_on_its_screen_and_in_the_list():
    app = make_app(run_id=COMPLETED)
    async with app.run_test(size=(160, 48)) as pilot:
        await until(
            pilot, lambda: isinstance(app.screen, RunScreen) and app.screen.terminal_polls >= 1, "the finished run read"
        )
        summary = app.screen.query_one("#run-summary", Static)
        app.watch_run(COMPLETED)  # as the palette's "Watch run" does: no screen is told
        await until(pilot, lambda: "◉ watched" in shown(summary), "the run screen marks the run watched")
        app.unwatch(COMPLETED)
        await until(pilot, lambda: "◉ watched" not in shown(summary), "and unmarks it")
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, RunsScreen) and app.state.runs_loaded, "the runs list")
        table = app.screen.query_one("#runs-table", DataTable)
        await until(pilot, lambda: COMPLETED in [k.value for k in table.rows], "the run listed")
        app.watch_run(COMPLETED)
        await until(pilot, lambda: "◉" in str(table.get_cell(COMPLETED, "status")), "the list marks it watched")


async def test_the_header_follows_the_account_the_platform_and_the_connection():
    app = make_app()
    async with app.run_test(size=(160, 48)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, RunsScreen) and app.state.runs_loaded, "the runs list")
        bar = app.screen.query_one(StatusBar)
        await until(pilot, lambda: "● live" in shown(bar), "live")
        app.team_label = "Research Lab"
        await until(pilot, lambda: "team Research Lab" in shown(bar), "the header names the team")
        app.platform_label = "elsewhere.example"
        await until(pilot, lambda: "elsewhere.example" in shown(bar), "the header names the platform")
        app.report_error("the platform did not answer")
        await until(pilot, lambda: "✗ unreachable" in shown(bar), "the header says unreachable")
        app.report_ok()
        await until(pilot, lambda: "● live" in shown(bar), "live again")


async def test_a_covered_screens_header_catches_up_when_it_comes_back():
    app = make_app()
    async with app.run_test(size=(120, 34)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, RunsScreen) and app.state.runs_loaded, "the runs list")
        runs = app.screen
        await pilot.press("v")
        await until(pilot, lambda: isinstance(app.screen, VolumesScreen), "the volumes screen")
        app.team_label = "Night Shift"  # the runs list is covered: its header is not drawn now
        await until(pilot, lambda: "team Night Shift" in shown(app.screen.query_one(StatusBar)), "the shown header")
        assert "Night Shift" not in shown(runs.query_one(StatusBar))
        await pilot.press("r")
        await until(
            pilot,
            lambda: app.screen is runs and "team Night Shift" in shown(runs.query_one(StatusBar)),
            "the runs list's header caught up",
        )


async def test_filter_sort_and_marks_redraw_the_runs_list():
    app = make_app()
    async with app.run_test(size=(160, 48)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, RunsScreen) and app.state.runs_loaded, "the runs list")
        screen = app.screen
        table = screen.query_one("#runs-table", DataTable)
        info = screen.query_one("#runs-info", Static)
        await until(pilot, lambda: len(table.rows) == 4, "four runs listed")

        screen.query_text = "r2unning"
        await until(pilot, lambda: [k.value for k in table.rows] == [RUNNING], "only the running run")
        await until(pilot, lambda: "filter “r2unning”: 1 shown" in shown(info), "the info line names the filter")
        screen.query_text = ""
        await until(pilot, lambda: len(table.rows) == 4, "every run again")

        screen.sort = ("name", True)
        await until(
            pilot, lambda: any(str(c.label).endswith("▼") for c in table.columns.values()), "the sorted column marked"
        )
        screen.sort = (None, False)
        await until(
            pilot, lambda: not any(str(c.label).endswith(("▼", "▲")) for c in table.columns.values()), "unsorted"
        )

        screen.marked = [COMPLETED]
        await until(pilot, lambda: "●" in str(table.get_cell(COMPLETED, "status")), "the marked run")

        screen.chosen_columns = frozenset({"status", "name"})
        await until(pilot, lambda: [str(k.value) for k in table.columns] == ["status", "name"], "two columns chosen")


async def test_selecting_a_volume_shows_its_sessions():
    app = make_app(start="volumes")
    async with app.run_test(size=(120, 34)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, VolumesScreen) and app.state.volumes_loaded, "the volumes")
        screen = app.screen
        title = screen.query_one("#sessions-title", Static)
        await until(
            pilot, lambda: screen.selected == "research" and "Sessions of research" in shown(title), "research selected"
        )
        screen.size_inputs = {"params": "7B", "keep_last": "2", "dataset": "1Gi"}
        helper = screen.query_one("#size-helper", Static)
        await until(pilot, lambda: "78.2 GiB per checkpoint × 2 kept" in shown(helper), "the size helper's answer")


async def test_the_components_table_is_redrawn_only_when_the_run_changes():
    from primetui.ui.monitor import ComponentsPane

    app = make_app(run_id=COMPLETED)
    async with app.run_test(size=(120, 34)) as pilot:
        await until(
            pilot, lambda: isinstance(app.screen, RunScreen) and app.screen.query(ComponentsPane), "the components tab"
        )
        await quiet(pilot, workers=True)
        pane = app.screen.query_one(ComponentsPane)
        table = pane.query_one(DataTable)
        clears: list[object] = []
        real = table.clear
        table.clear = lambda *a, **k: (clears.append(a), real(*a, **k))[1]  # type: ignore[method-assign]
        app.screen.query_one("#run-tabs").active = "tab-components"
        await until(pilot, lambda: pane.query_one(DataTable).region.height > 0, "the components tab shown")
        await quiet(pilot)
        clears.clear()  # drawn as it is first shown
        pane.on_run_update(pane.run.model_copy())  # each run poll brings the run again
        await quiet(pilot)
        assert clears == []
        pane.on_run_update(pane.run.model_copy(update={"status": "RUNNING"}))
        await until(pilot, lambda: clears, "the table redrawn for the new status")
        # Another tab shown: a new status waits for the components tab (no table rebuilt unseen).
        clears.clear()
        app.screen.query_one("#run-tabs").active = "tab-overview"
        await quiet(pilot)
        pane.on_run_update(pane.run.model_copy(update={"status": "STOPPED"}))
        await quiet(pilot)
        assert clears == []
        app.screen.query_one("#run-tabs").active = "tab-components"
        await until(pilot, lambda: clears, "the table drawn when its tab is shown")
        assert "stopped" in str(table.get_row_at(0))


async def test_arming_the_editors_close_shows_the_warning_and_disarming_takes_it_away(tmp_path):
    from editor_helpers import host, settle

    app = host(tmp_path, "max_steps = 1\n")
    async with app.run_test(size=(100, 24)) as pilot:
        editor = await settle(pilot)
        message = editor.query_one("#editor-message", Static)
        assert "esc again closes" not in shown(message)

        editor.close_armed = editor.text  # as the first esc with unsaved changes does

        await until(pilot, lambda: "esc again closes" in shown(message), "the unsaved-changes warning shown")
        editor.close_armed = None  # as an edit after the warning does
        await until(pilot, lambda: "esc again closes" not in shown(message), "the warning taken away")
        assert editor.note == ""
