"""The compare screen (Pilot: marks, C, cursor, wall time) and its SVG snapshots."""

from __future__ import annotations

import pytest
from test_screens import COMPLETED, make_app, settle
from textual.widgets import DataTable, Static
from tests.ui.test_theme_drawn import theme_colour_at
from tests.ui.dash_helpers import notifications
from tests.waiting import input_applied, quiet

RUNNING = "r2unning0000000000000000"


async def open_compare(pilot, app):
    await settle(
        pilot,
        lambda: app.state.runs_loaded and len(app.state.progress) >= 2,
        "app.state.runs_loaded and len(app.state.progress) >= 2",
    )
    screen = app.screen
    table = screen.query_one("#runs-table", DataTable)
    for run_id in (RUNNING, COMPLETED):
        table.move_cursor(row=table.get_row_index(run_id))
        await pilot.press("space")
    await quiet(pilot, workers=True)
    assert screen.marked == [RUNNING, COMPLETED]
    status = str(table.get_cell(COMPLETED, "status"))
    assert "●" in status
    await pilot.press("C")
    await settle(
        pilot, lambda: getattr(app.screen, "data", None) is not None, 'getattr(app.screen, "data", None) is not None'
    )
    return app.screen


async def test_marking_two_runs_and_c_opens_the_compare_screen_with_a_shared_cursor():
    app = make_app()
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await open_compare(pilot, app)
        assert type(screen).__name__ == "CompareScreen"
        summary = screen.query_one("#compare-summary", DataTable)
        assert summary.row_count == 2
        runs = [
            dict(r, anomalies=[{"kind": "loss_spike", "step": 5}] if r["id"] == COMPLETED else r["anomalies"])
            for r in screen.data["runs"]
        ]
        screen.render_summary(runs)  # this scene's runs have no anomaly: give one a spike
        drawn, wanted = theme_colour_at(app, summary.get_cell(COMPLETED, "anomalies"), "! 1 loss_spike", "error")
        assert drawn == wanted, f"the compare summary's anomaly flag draws in {drawn}, not the theme's error {wanted}"
        screen.render_summary(screen.data["runs"])
        assert [s.name for s in screen.charts["loss/mean"].series] == [RUNNING, COMPLETED]
        await pilot.press("c")
        await pilot.press("right")
        await quiet(pilot, workers=True)
        cursor = screen.view.cursor
        assert cursor is not None
        head = str(screen.query_one("#compare-head", Static).render())
        assert f"step {int(cursor)}" in head and COMPLETED[:10] in head
        await pilot.press("t")
        await input_applied(pilot)
        assert screen.view.x_mode == "time"
        await pilot.press("escape")
        await input_applied(pilot)
        assert type(app.screen).__name__ == "RunsScreen"


async def test_at_80x24_the_compare_summary_shows_the_whole_final_loss():
    """Issue 41, finding 11: at 80 columns the summary cut its final loss ("Final l", the figure gone)."""
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_compare(pilot, app)
        summary = screen.query_one("#compare-summary", DataTable)
        widths = {str(key.value): col.get_render_width(summary) for key, col in summary.columns.items()}
        keys = list(widths)
        right_of_final = sum(widths[k] for k in keys[: keys.index("final") + 1])
        assert right_of_final <= summary.size.width, (widths, summary.size.width)
        assert float(str(summary.get_cell(RUNNING, "final"))) > 0  # a whole number, drawn in full
        label = str(summary.get_cell(RUNNING, "run"))
        assert RUNNING in label and label.endswith("…)")  # the long name gives way, with its mark


async def test_c_with_one_marked_run_says_what_to_do():
    app = make_app()
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot, lambda: app.state.runs_loaded, "app.state.runs_loaded")
        await pilot.press("space")
        await pilot.press("C")
        await quiet(pilot, workers=True)
        assert type(app.screen).__name__ == "RunsScreen"
        assert any("Mark one more run" in n for n in notifications(app))


@pytest.mark.parametrize("size", [(80, 24), (160, 48)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_compare_screen(snap_compare, size):
    app = make_app()

    async def ready(pilot):
        await open_compare(pilot, app)
        await pilot.press("c")
        app.clear_notifications()  # the "marked for compare" toasts are timed: keep them out of the picture
        await quiet(pilot, workers=True)

    assert snap_compare(app, terminal_size=size, run_before=ready)
