"""Snapshots of compare on a 4-run learning-rate sweep: 4 colours and 4 glyphs, a legend, log-Y."""

from __future__ import annotations

import pytest
from sweep_data import IDS, data
from test_screens import make_app

from primetui.ui.screens.compare import CompareScreen


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
        for _ in range(200):
            if app.screen.charts:
                break
            await pilot.pause(0.02)
        await pilot.press("y")
        await pilot.pause(0.2)
        assert app.screen.view.log_y

    assert snap_compare(app, terminal_size=size, run_before=ready)
