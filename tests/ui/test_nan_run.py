"""A real local run that diverges to NaN reads NaN everywhere: the runs list, the run screen and its
loss chart (a ``×`` at each NaN step), and compare.

The local trainer writes no ``loss/mean`` for a NaN step (JSON has no NaN), only ``loss/nan_count``:
with ``lr = 1e12`` the walkthrough's steps 1-2 are finite and steps 3-5 are NaN.
"""

from __future__ import annotations

import pytest
from dash_helpers import dispatch_walkthrough, make_app, screen_text, wait_status
from tests.ui.monitor_helpers import screen_text as terminal_text
from tests.waiting import until
from textual.widgets import DataTable, TabbedContent

from primetui.ui.screens.run import RunScreen

pytestmark = pytest.mark.timeout(120)


async def nan_run(lp) -> str:
    run_id = await dispatch_walkthrough(lp, max_steps=5, optim={"lr": 1e12})
    await wait_status(lp, run_id, {"COMPLETED"})
    return run_id


def row_text(table: DataTable, run_id: str) -> str:
    return " ".join(str(c) for c in table.get_row(run_id))


async def test_a_run_that_ended_nan_reads_nan_in_the_list_the_run_screen_and_its_chart(local_platform):
    run_id = await nan_run(local_platform)
    app = make_app(local_platform)
    async with app.run_test(size=(180, 48)) as pilot:
        table = app.screen.query_one("#runs-table", DataTable)
        await until(pilot, lambda: run_id in [k.value for k in table.rows], "the NaN run in the list")
        await until(pilot, lambda: "5/5" in row_text(table, run_id), "its steps from the metrics")
        await until(pilot, lambda: "NaN @5" in row_text(table, run_id), "NaN @5 in its row (not the last finite loss)")
        assert "27.26e+12" not in row_text(table, run_id)
        table.move_cursor(row=table.get_row_index(run_id))
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, RunScreen) and app.screen.run is not None, "the run screen")
        await until(pilot, lambda: "NaN @5" in screen_text(app), "NaN @5 on the run screen")
        await pilot.press("4")  # the Charts tab
        await until(
            pilot, lambda: app.screen.query_one("#run-tabs", TabbedContent).active == "tab-charts", "the Charts tab"
        )
        # the loss chart holds the 3 NaN steps as marked points: the count in its title, × at the foot
        await until(pilot, lambda: "⚠ 3 NaN/Inf" in terminal_text(app), "the chart's NaN count")
        assert "×" in terminal_text(app)


async def test_compare_of_a_nan_run_says_nan_in_its_summary_and_marks_its_chart(local_platform):
    from primetui.ui.screens.compare import CompareScreen

    nan_id = await nan_run(local_platform)
    ok_id = await dispatch_walkthrough(local_platform, max_steps=3)
    await wait_status(local_platform, ok_id, {"COMPLETED"})
    app = make_app(local_platform)
    async with app.run_test(size=(180, 48)) as pilot:
        app.push_screen(CompareScreen([nan_id, ok_id]))
        await until(pilot, lambda: isinstance(app.screen, CompareScreen), "the compare screen")
        summary = app.screen.query_one("#compare-summary", DataTable)
        await until(pilot, lambda: summary.row_count == 2, "both runs summarised")
        assert "NaN @5" in row_text(summary, nan_id), row_text(summary, nan_id)
        assert "NaN" not in row_text(summary, ok_id), row_text(summary, ok_id)
        await until(pilot, lambda: "⚠ 3 NaN/Inf" in terminal_text(app), "the overlay marks the NaN steps")
        assert "×" in terminal_text(app)
