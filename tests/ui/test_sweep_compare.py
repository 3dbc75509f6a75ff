"""A sweep of 4 learning rates: 4 named runs in the list, the filter on its prefix, C compares them with
4 distinct curves (colour and glyph each), a legend and log-Y."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from dash_helpers import dispatch_lr_sweep, make_app
from textual.widgets import DataTable, Input, Static

from primetui.monitor_core.chartframe import RUN_GLYPHS
from tests.waiting import input_applied, quiet, until

pytestmark = [pytest.mark.slow, pytest.mark.timeout(240)]

LRS = ["1e-5", "3e-5", "1e-4", "1e-1"]
_SWEEPS: dict[str, list[tuple[str, str]]] = {}  # one sweep per platform, shared by the tests here


async def _sweep(lp, tmp_path: Path) -> list[tuple[str, str]]:
    """(run id, name) of the 4-point sweep, dispatched once per platform: neither test changes its runs, and a
    second sweep cost four more trainers (and put eight runs under the ``lrsweep-`` filter)."""
    if lp.base_url not in _SWEEPS:
        _SWEEPS[lp.base_url] = await dispatch_lr_sweep(lp, tmp_path, LRS, "lrsweep", max_steps=4)
    return _SWEEPS[lp.base_url]


async def test_a_four_lr_sweep_filters_by_prefix_and_compares_with_four_distinct_curves(local_platform, tmp_path):
    runs = await _sweep(local_platform, tmp_path)
    ids = [run_id for run_id, _ in runs]
    assert [name for _, name in runs] == [f"lrsweep-lr={lr}" for lr in LRS]
    app = make_app(local_platform)
    async with app.run_test(size=(160, 45)) as pilot:
        table = app.screen.query_one("#runs-table", DataTable)
        await until(pilot, lambda: set(ids) <= {k.value for k in table.rows}, "the sweep's runs listed")
        for run_id, name in runs:
            assert str(table.get_cell(run_id, "name")) == name
        await pilot.press("slash")
        box = app.screen.query_one("#runs-filter", Input)
        box.value = "lrsweep-"
        await pilot.press("enter")
        await until(pilot, lambda: sorted(k.value for k in table.rows) == sorted(ids), "only the sweep shown")
        await pilot.press("C")
        await until(
            pilot,
            lambda: getattr(app.screen, "data", None) is not None and "loss/mean" in app.screen.charts,
            "compare loaded",
        )
        screen = app.screen
        chart = screen.charts["loss/mean"]
        assert sorted(s.name for s in chart.series) == sorted(ids)
        assert len(set(chart.glyphs)) == 4 and set(chart.glyphs) <= set(RUN_GLYPHS)
        assert len({chart.series_style_key(n) for n in range(4)}) == 4
        plot = chart.plain_text()
        assert all(g in plot for g in chart.glyphs), plot  # each run's glyph is on its curve
        legend = str(screen.query_one("#compare-legend", Static).render())
        for _, name in runs:
            assert name in legend
        await pilot.press("y")
        await quiet(pilot)
        assert screen.view.log_y and "log" in chart.plain_text().splitlines()[0]
        await pilot.press("1")
        await until(pilot, lambda: len(screen.charts["loss/mean"].series) == 3, "run 1 hidden")
        assert "(hidden)" in str(screen.query_one("#compare-legend", Static).render())
        await pilot.press("1")
        await until(pilot, lambda: len(screen.charts["loss/mean"].series) == 4, "run 1 shown again")


async def test_config_columns_sort_and_clone(local_platform, tmp_path):
    from primetui.ui.screens.runs_table import ColumnsScreen

    runs = await _sweep(local_platform, tmp_path)
    ids = [run_id for run_id, _ in runs]
    app = make_app(local_platform)
    async with app.run_test(size=(160, 45)) as pilot:
        table = app.screen.query_one("#runs-table", DataTable)
        await until(pilot, lambda: set(ids) <= {k.value for k in table.rows}, "the sweep's runs listed")
        screen = app.screen
        screen.query_one("#runs-filter", Input).value = "lrsweep-"
        await until(pilot, lambda: len(table.rows) >= 4, "the sweep filtered")
        await pilot.press("o")
        await until(pilot, lambda: isinstance(app.screen, ColumnsScreen), "the column chooser")
        chooser = app.screen.query_one("#columns")
        chooser.select("lr")
        chooser.select("batch")
        await pilot.press("enter")
        await until(pilot, lambda: "lr" in screen.columns and "batch" in screen.columns, "lr and batch shown")
        assert {str(table.get_cell(run_id, "lr")) for run_id in ids} == {"1e-05", "3e-05", "0.0001", "0.1"}
        assert str(table.get_cell(ids[0], "batch")) == "8"
        for _ in range(len(screen.columns)):
            if screen.sort_key == "lr":
                break
            await pilot.press("s")
            await input_applied(pilot)  # the sort key read next is the one this press set
        assert screen.sort_key == "lr"
        order = [k.value for k in table.rows if k.value in ids]
        assert order == ids  # 1e-5 < 3e-5 < 1e-4 < 1e-1: the sweep's own order
        await pilot.press("S")
        await until(pilot, lambda: [k.value for k in table.rows if k.value in ids] == ids[::-1], "reversed")
        table.move_cursor(row=table.get_row_index(ids[2]))
        await pilot.press("k")
        await until(pilot, lambda: type(app.screen).__name__ == "EditorScreen", "the clone in the editor")
        editor = app.screen
        assert editor.path.name == "lrsweep-lr=1e-4.toml"
        cloned = tomllib.loads(editor.path.read_text())
        assert cloned["optim"]["lr"] == 1e-4 and "name" not in cloned
        editor.path.unlink()
