"""The runs list's config columns (issue 41, finding 11): chosen ones come right after Loss, as
docs/dashboard.md says, and the columns and sort chosen are there again at the next start."""

from __future__ import annotations

import json

import pytest
from dash_helpers import make_app
from textual.widgets import DataTable

from primetui.config.prefs import Prefs
from primetui.ui.screens.runs_table import ColumnsScreen
from tests.waiting import input_applied, until

pytestmark = [pytest.mark.slow, pytest.mark.timeout(180)]


def headers(table: DataTable) -> list[str]:
    return [str(column.key.value) for column in table.columns.values()]


async def test_config_columns_follow_loss_and_columns_and_sort_outlive_a_restart(local_platform, tmp_path):
    prefs_file = tmp_path / "config.toml"
    app = make_app(local_platform, prefs=Prefs(), prefs_file=prefs_file)
    async with app.run_test(size=(160, 45)) as pilot:
        screen = app.screen
        table = screen.query_one("#runs-table", DataTable)
        await until(pilot, lambda: "loss" in headers(table), "the runs list's columns")
        await pilot.press("o")
        await until(pilot, lambda: isinstance(app.screen, ColumnsScreen), "the column chooser")
        app.screen.query_one("#columns").select("lr")
        await pilot.press("enter")
        await until(pilot, lambda: "lr" in headers(table), "the LR column")
        shown = headers(table)
        assert shown.index("lr") == shown.index("loss") + 1, shown  # was the last column, far right
        for _ in range(len(shown)):
            if screen.sort_key == "lr":
                break
            await pilot.press("s")
            await input_applied(pilot)  # the sort key read next is the one this press set
        await pilot.press("S")
        await until(pilot, lambda: screen.sort == ("lr", True), "sorted by LR, reversed")
    kept = json.loads((tmp_path / "views.json").read_text())
    assert [view["runs"] for view in kept.values()] == [
        {"columns": sorted(screen.chosen_columns), "sort": ["lr", True]}
    ]

    again = make_app(local_platform, prefs=Prefs(), prefs_file=prefs_file)
    async with again.run_test(size=(160, 45)) as pilot:
        screen = again.screen
        table = screen.query_one("#runs-table", DataTable)
        await until(pilot, lambda: "lr" in headers(table), "the LR column again after a restart")
        assert screen.sort == ("lr", True)
        labels = {str(column.key.value): str(column.label) for column in table.columns.values()}
        assert labels["lr"] == "LR ▼"
