"""Snapshots of the compare legend on 12 runs (issue 41, finding 7): numbers 1..12, a (colour, glyph)
pair each, run 11 hidden from the legend's cursor (L, →, space)."""

from __future__ import annotations

import pytest
from sweep12_data import IDS, data
from test_screens import make_app

from primetui.ui.screens.compare import CompareScreen
from tests.waiting import quiet, until


class TwelveCompare(CompareScreen):
    """The compare screen on the fixed 12-run sweep (no platform reads)."""

    def fetch(self) -> None:
        self.data = data()
        self.done = True
        self.render_data()


@pytest.mark.parametrize("size", [(80, 24), (160, 48)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_compare_legend_of_twelve_runs_with_run_11_hidden(snap_compare, size):
    app = make_app()

    async def ready(pilot):
        await app.push_screen(TwelveCompare(IDS))
        await until(pilot, lambda: app.screen.charts, "the 12 runs' charts")
        await pilot.press("L", *["right"] * 10, "space")
        await until(pilot, lambda: IDS[10] in app.screen.hidden_runs, "run 11 hidden from the legend")
        await quiet(pilot)

    assert snap_compare(app, terminal_size=size, run_before=ready)


async def test_a_click_on_a_legend_entry_hides_that_run_and_esc_gives_the_keys_back_to_the_charts():
    app = make_app()
    async with app.run_test(size=(160, 48)) as pilot:
        await app.push_screen(TwelveCompare(IDS))
        await until(pilot, lambda: app.screen.charts, "the 12 runs' charts")
        screen = app.screen
        legend = screen.query_one("#compare-legend")
        lines = str(legend.render()).split("\n")
        row = next(n for n, line in enumerate(lines) if "12 ◇ lr-lr=5e-3" in line)
        await pilot.click("#compare-legend", offset=(1 + lines[row].index("12 ◇") + 3, row))  # 1: the padding
        await until(pilot, lambda: IDS[11] not in [s.name for s in screen.charts["loss/mean"].series], "run 12 hidden")
        assert app.focused is legend and "12 ◇ lr-lr=5e-3 (hidden)" in str(legend.render())
        await pilot.press("escape", "c", "right")
        await until(pilot, lambda: screen.view.cursor is not None, "the chart cursor on")
        at = screen.view.cursor
        await pilot.press("right")
        await until(pilot, lambda: screen.view.cursor != at, "→ moving the chart cursor, not the legend's")
        assert type(app.screen).__name__ == "TwelveCompare"  # esc left the legend, not the screen
