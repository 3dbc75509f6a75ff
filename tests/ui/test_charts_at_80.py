"""Charts at 80 columns (issue 18 #26): the grid follows the width, titles keep their values, and
a step axis has whole-number ticks."""

from __future__ import annotations

from primetui.monitor_core.chartframe import ChartView, compose
from primetui.monitor_core.metrics import MetricTable
from primetui.ui.monitor import ChartsPane
from tests.ui.monitor_helpers import PaneApp
from tests.ui.test_monitor_charts import RUN, rows
from tests.waiting import quiet


async def test_three_charts_at_80x24_use_at_most_two_columns_and_keep_their_titles():
    app = PaneApp(lambda: ChartsPane(None, RUN, follow=False, keys=["loss/mean", "loss/perplexity", "optim/grad_norm"]))
    async with app.run_test(size=(80, 18)) as pilot:  # the room the run screen leaves at 80x24
        pane = app.query_one(ChartsPane)
        pane.add_metrics(rows(50))
        await quiet(pilot)
        assert len(pane.charts) == 3
        assert pane.grid.styles.grid_size_columns <= 2
        for key, chart in pane.charts.items():
            assert chart.size.width >= 36, (key, chart.size.width)


def test_step_axis_ticks_are_whole_numbers():
    t = MetricTable()
    t.add_rows([{"step": i, "loss/mean": 1.0 / i} for i in range(1, 11)])
    text = ["".join(s for s, _ in row) for row in compose("loss/mean", [t.get("loss/mean")], ChartView(), 60, 10)]
    axis = text[-1]
    assert "5.5" not in axis and "." not in axis.replace("…", ""), axis
    assert axis.split()[-1] == "10" and axis.split()[0] == "└1"


async def test_six_eval_charts_at_80x24_keep_a_readable_height_and_scroll():
    from primetui.ui.monitor.charts_pane import CHART_MIN_HEIGHT

    keys = [f"eval/env{i}/reward/mean" for i in range(6)]
    data = [{"step": s, **{k: 0.1 * s + i for i, k in enumerate(keys)}} for s in range(1, 21)]
    app = PaneApp(lambda: ChartsPane(None, RUN, follow=False, keys=keys))
    async with app.run_test(size=(80, 18)) as pilot:  # the room the run screen leaves at 80x24
        pane = app.query_one(ChartsPane)
        pane.add_metrics(data)
        await quiet(pilot)
        assert len(pane.charts) == 6
        for key, chart in pane.charts.items():
            assert chart.outer_size.height >= CHART_MIN_HEIGHT, (key, chart.outer_size.height)
            assert "└" in chart.plain_text().splitlines()[-1]  # its x axis is drawn
        assert pane.grid.max_scroll_y > 0  # the rest is a scroll away
