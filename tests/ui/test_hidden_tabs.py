"""A run's tabs that are not shown do no drawing (issue 30), and catch up when shown."""

from __future__ import annotations

from textual.widgets import TextArea

from primetui.ui.monitor.chart import MetricChart
from primetui.ui.screens.run import RunScreen
from primetui.ui.widgets import displayed
from tests.ui.test_reactive_state import COMPLETED, make_app
from tests.waiting import quiet, until


async def test_a_chart_in_a_hidden_tab_asks_for_no_repaint_until_shown():
    app = make_app(run_id=COMPLETED)
    async with app.run_test(size=(120, 34)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, RunScreen) and app.screen.query(MetricChart), "the charts")
        await quiet(pilot, workers=True)
        chart = app.screen.query(MetricChart).first()
        assert not displayed(chart)  # the Overview is shown
        asked: list[object] = []
        real = chart.refresh
        chart.refresh = lambda *a, **k: (asked.append(a), real(*a, **k))[1]  # type: ignore[method-assign]
        chart.invalidate()  # what new points do
        assert asked == [] and not chart.composed  # recomposed when shown, not now
        app.screen.query_one("#run-tabs").active = "tab-charts"
        await until(pilot, lambda: displayed(chart) and chart.composed, "the chart drawn when shown")
        asked.clear()
        chart.invalidate()
        assert asked  # shown: it repaints


async def test_the_read_only_config_does_not_blink():
    app = make_app(run_id=COMPLETED)
    async with app.run_test(size=(120, 34)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, RunScreen), "the run")
        area = app.screen.query_one("#run-config", TextArea)
        assert area.read_only and not area.cursor_blink
        app.screen.query_one("#run-tabs").active = "tab-config"
        await quiet(pilot)
        assert area.blink_timer._active.is_set() is False  # paused: no repaint twice a second
