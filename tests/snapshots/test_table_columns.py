"""Issue 18 #25: no table column is cut silently. At 80 and 140 columns every header shown is
whole, the least important columns are the ones left out, and the info line counts them."""

from __future__ import annotations

import pytest
from textual.widgets import DataTable, Static

from primetui.viewmodel import run_columns
from primetui.viewmodel.columns import fit, more_note
from test_screens import make_app, settle


def test_fit_keeps_the_important_columns_and_counts_the_rest():
    order = ["status", "name", "steps", "model", "volume"]
    widths = {"status": 11, "name": 20, "steps": 14, "model": 40, "volume": 8}
    shown, hidden = fit(order, ["status", "name", "steps", "volume", "model"], widths, 70)
    assert shown == ["status", "name", "steps", "volume"] and hidden == 1
    assert fit(order, order, widths, 5) == (["status"], 4)  # the first column always shows
    assert more_note(2) == "+2 columns →" and more_note(0) == ""


@pytest.mark.parametrize("width", [80, 140])
async def test_runs_table_headers_are_whole_and_hidden_columns_are_counted(width):
    app = make_app()
    async with app.run_test(size=(width, 30)) as pilot:
        await settle(
            pilot,
            lambda: app.state.runs_loaded and len(app.state.progress) >= 2,
            "app.state.runs_loaded and len(app.state.progress) >= 2",
        )
        table = app.screen.query_one("#runs-table", DataTable)
        total = sum(col.get_render_width(table) for col in table.columns.values())
        assert total <= table.size.width, f"{total} columns of cells in a {table.size.width}-wide table"
        info = str(app.screen.query_one("#runs-info", Static).render())
        # Every default column of the registry, less the kind (the replay lists SFT runs only).
        hidden = len(run_columns.screen_defaults() - {"kind"}) - len(table.columns)
        assert hidden > 0 and f"+{hidden} column" in info, info


@pytest.mark.parametrize("width", [60, 80])
async def test_volumes_and_sessions_tables_never_cut_a_header(width):
    app = make_app(start="volumes")
    async with app.run_test(size=(width, 30)) as pilot:
        await settle(
            pilot,
            lambda: app.state.volumes_loaded and app.state.sessions,
            "app.state.volumes_loaded and app.state.sessions",
        )
        for wid in ("#volumes-table", "#sessions-table"):
            table = app.screen.query_one(wid, DataTable)
            total = sum(col.get_render_width(table) for col in table.columns.values())
            assert total <= table.size.width, (wid, total, table.size.width)
        heads = [str(c.label) for c in app.screen.query_one("#sessions-table", DataTable).columns.values()]
        if width == 60:
            assert heads[-1].endswith("→"), heads
