"""The run screen's step cursor and anomalies (Pilot), and SVG snapshots of a run with flags."""

from __future__ import annotations

import pytest
from diagnose_data import ERROR_STEP, SPIKE_STEP, feed
from test_screens import COMPLETED, make_app, settle
from textual.widgets import DataTable, Static, TabbedContent

from primetui.ui.monitor import ChartsPane, LogView
from tests.ui.test_theme_drawn import theme_colour_at
from tests.waiting import quiet


async def open_flagged(pilot, app):
    await settle(
        pilot,
        lambda: (
            getattr(app.screen, "terminal_polls", 0) >= 1
            and app.screen.links is not None
            and app.screen.links.logs.stores["trainer"].end > 0
            and app.screen.links.feeder.table.last_step >= 10
        ),
        'getattr(app.screen, "terminal_polls", 0) >= 1 and app.screen.links is not None and '
        'app.screen.links.logs.stores["trainer"].end > 0 and app.screen.links.feeder.table.last_step >= 10',
    )
    feed(app.screen)
    await quiet(pilot, workers=True)
    return app.screen


def trainer_view(screen) -> LogView:
    return screen.links.logs.tabs["trainer"].view


def pointed_text(view: LogView) -> str:
    return view.source.text(view.global_index(view.pointer))


async def test_anomalies_are_listed_in_the_overview_and_enter_jumps_to_their_cause():
    app = make_app(run_id=COMPLETED)
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await open_flagged(pilot, app)
        found = [(a.kind, a.step) for a in screen.links.anomalies]
        assert sorted(found) == [("cuda", ERROR_STEP), ("loss_spike", SPIKE_STEP)]
        table = screen.query_one("#run-anomalies", DataTable)
        assert table.display and table.row_count == 2
        drawn, wanted = theme_colour_at(app, table.get_row_at(0)[0], "!", "error")
        assert drawn == wanted, f"the anomaly mark draws in {drawn}, not the theme's error colour {wanted}"
        charts = screen.query_one(ChartsPane)
        assert float(SPIKE_STEP) in charts.view.anomaly_steps  # "!" marks on the charts

        row = [a.kind for a in screen.links.anomalies].index("cuda")
        table.focus()
        table.move_cursor(row=row)
        await pilot.press("enter")
        await quiet(pilot, workers=True)
        assert screen.query_one("#run-tabs", TabbedContent).active == "tab-logs"
        assert charts.view.cursor == ERROR_STEP
        assert pointed_text(trainer_view(screen)) == "Traceback (most recent call last):"
        header = screen.query_one("#run-cursor", Static)
        assert header.display and f"step {ERROR_STEP}" in str(header.render())
        drawn, wanted = theme_colour_at(app, header.content, "! ", "error")
        assert drawn == wanted, f"the cursor's anomaly mark draws in {drawn}, not the theme's error colour {wanted}"

        screen.query_one("#run-tabs", TabbedContent).active = "tab-overview"
        await quiet(pilot, workers=True)
        table.focus()
        table.move_cursor(row=1 - row)
        await pilot.press("enter")
        await quiet(pilot, workers=True)
        assert screen.query_one("#run-tabs", TabbedContent).active == "tab-charts"
        assert charts.view.cursor == SPIKE_STEP
        assert f" SUCCESS Step {SPIKE_STEP} |" in pointed_text(trainer_view(screen))


async def test_the_chart_cursor_scrolls_the_logs_shows_values_and_finds_the_checkpoint():
    app = make_app(run_id=COMPLETED)
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await open_flagged(pilot, app)
        screen.query_one("#run-tabs", TabbedContent).active = "tab-charts"
        await quiet(pilot, workers=True)
        charts = screen.query_one(ChartsPane)
        charts.focus()
        await pilot.press("c")  # cursor on, mid-way
        await quiet(pilot, workers=True)
        start = charts.view.cursor
        await pilot.press("right")
        await quiet(pilot, workers=True)
        step = charts.view.cursor
        assert step == start + 1
        assert all(c.view.cursor == step for c in screen.links.charts)
        assert pointed_text(trainer_view(screen)).split("Step ")[1].startswith(f"{int(step)} |")
        header = str(screen.query_one("#run-cursor", Static).render())
        assert f"step {int(step)}" in header and "loss/mean" in header and "checkpoint @ 10" in header
        cks = screen.query_one("#run-checkpoints", DataTable)
        assert cks.coordinate_to_cell_key(cks.cursor_coordinate).row_key.value == "10"

        # Mouse: a click on the plot moves the cursor too.
        chart = next(iter(charts.charts.values()))
        await pilot.click(chart, offset=(chart.size.width - 3, 5))
        await quiet(pilot, workers=True)
        assert charts.view.cursor is not None and charts.view.cursor > step


async def test_s_on_a_log_line_shows_its_step_on_the_charts():
    app = make_app(run_id=COMPLETED)
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await open_flagged(pilot, app)
        screen.query_one("#run-tabs", TabbedContent).active = "tab-logs"
        await quiet(pilot, workers=True)
        view = trainer_view(screen)
        store = view.source
        g = next(i for i in range(store.first, store.end) if store.text(i).startswith("Traceback"))
        view.focus()
        view.goto_line(g + 1)  # a line inside the traceback, below the "Step 13" line
        await pilot.press("s")
        await quiet(pilot, workers=True)
        assert screen.query_one("#run-tabs", TabbedContent).active == "tab-charts"
        assert screen.query_one(ChartsPane).view.cursor == ERROR_STEP


@pytest.mark.parametrize("size", [(80, 24), (160, 48)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_run_screen_with_flags(snap_compare, size):
    app = make_app(run_id=COMPLETED)

    async def ready(pilot):
        await open_flagged(pilot, app)

    assert snap_compare(app, terminal_size=size, run_before=ready)


@pytest.fixture
def utc(monkeypatch):
    """The cursor header shows wall time in the local zone: pin it for the snapshot."""
    import time

    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.mark.parametrize("size", [(160, 48)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_run_charts_with_flags_and_cursor(snap_compare, size, utc, monkeypatch):
    from primetui.ui.screens import run_links

    # The cause's note is part of the picture: held up past the capture, however slow the machine.
    monkeypatch.setattr(run_links, "CAUSE_NOTE_SECONDS", 3600.0)
    app = make_app(run_id=COMPLETED)

    async def ready(pilot):
        screen = await open_flagged(pilot, app)
        screen.jump_to_cause(next(a for a in screen.links.anomalies if a.kind == "loss_spike"))
        await quiet(pilot, workers=True)

    assert snap_compare(app, terminal_size=size, run_before=ready)


async def test_runs_list_flags_a_run_and_bang_opens_it_at_the_cause():
    from diagnose_data import rows

    app = make_app()
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(
            pilot,
            lambda: app.state.runs_loaded and COMPLETED in app.state.progress,
            "app.state.runs_loaded and COMPLETED in app.state.progress",
        )
        progress = app.state.progress[COMPLETED]
        progress.extend(rows(float(progress.rows[10]["time"])))
        runs = app.screen
        runs.render_rows()
        table = runs.query_one("#runs-table", DataTable)
        assert "!1" in str(table.get_cell(COMPLETED, "status"))
        for theme in ("primetui-dark", "primetui-light"):
            app.theme = theme
            runs.render_rows()
            drawn, wanted = theme_colour_at(app, table.get_cell(COMPLETED, "status"), "!1", "error")
            assert drawn == wanted, f"{theme}: the runs list's anomaly mark draws in {drawn}, not the error {wanted}"
        table.move_cursor(row=table.get_row_index(COMPLETED))
        await pilot.press("exclamation_mark")
        await settle(
            pilot,
            lambda: (
                getattr(app.screen, "terminal_polls", 0) >= 1
                and app.screen.links is not None
                and app.screen.links.logs.stores["trainer"].end > 0
                and app.screen.links.feeder.table.last_step >= 10
            ),
            'getattr(app.screen, "terminal_polls", 0) >= 1 and app.screen.links is not None and '
            'app.screen.links.logs.stores["trainer"].end > 0 and app.screen.links.feeder.table.last_step >= 10',
        )
        screen = app.screen
        assert screen.pending_jump
        feed(screen)
        await quiet(pilot, workers=True)
        first = screen.links.anomalies[0]
        assert not screen.pending_jump
        assert screen.query_one(ChartsPane).view.cursor == first.step
        assert screen.query_one("#run-tabs", TabbedContent).active in ("tab-logs", "tab-charts")
