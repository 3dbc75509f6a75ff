"""Snapshots of compare on a 4-run learning-rate sweep: 4 colours and 4 glyphs, a legend, log-Y."""

from __future__ import annotations

import pytest
from sweep_data import IDS, data
from test_screens import make_app

from primetui.ui.screens.compare import CompareScreen
from tests.waiting import quiet, until


class SweepCompare(CompareScreen):
    """The compare screen on the fixed sweep data (no platform reads)."""

    def fetch(self) -> None:
        self.data = data()
        self.done = True
        self.render_data()


@pytest.mark.parametrize("size", [(80, 24), (160, 45)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_sweep_compare_log_y(snap_compare, size):
    app = make_app()

    async def ready(pilot):
        await app.push_screen(SweepCompare(IDS))
        await until(pilot, lambda: app.screen.charts, "the sweep's charts")
        await pilot.press("y")
        await quiet(pilot)
        assert app.screen.view.log_y

    assert snap_compare(app, terminal_size=size, run_before=ready)


async def test_the_tokens_axis_reads_every_run_at_the_same_x():
    from primetui.monitor_core.chartframe import TOKENS

    app = make_app()
    async with app.run_test(size=(160, 45)) as pilot:
        await app.push_screen(SweepCompare(IDS))
        await until(pilot, lambda: app.screen.charts, "the sweep's charts")
        screen = app.screen
        await pilot.press("t", "t")
        await quiet(pilot)
        assert screen.view.x_mode == TOKENS
        chart = screen.charts["loss/mean"]
        by_name = {s.name: s for s in chart.series}
        assert by_name[IDS[0]].times[-1] == 80 * 2048 * 8 and by_name[IDS[3]].times[-1] == 80 * 2048 * 16
        assert "2.62M" in chart.plain_text().splitlines()[-1]  # the x axis, in tokens
        await pilot.press("c")
        screen.view.cursor = 40.0
        screen.render_head()
        head = str(screen.query_one("#compare-head").render())
        await quiet(pilot)
        assert "tokens (seq_len × batch × step)" in head
        # At 655k tokens the batch-16 run is at step 20: its value there, not at its own step 40.
        from sweep_data import _loss

        assert f"{_loss('1e-1', 20):.4g}"[:4] in head
