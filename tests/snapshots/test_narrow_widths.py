"""Narrow terminals: the footer keeps Help (f1) and Quit (q), and the runs list drops columns strictly by
priority (never a narrow ETA where Steps and Loss were left out), at 50, 60 and 80 columns."""

from __future__ import annotations

import pytest
from textual.widgets import DataTable
from textual.widgets._footer import FooterKey

from primetui.viewmodel import run_columns
from test_screens import make_app, settle

WIDTHS = [50, 60, 80]
# The registry's default columns, most important first (the replay lists SFT runs only: no kind column).
PRIORITY = [c.key for c in sorted(run_columns.SCREEN, key=lambda c: c.priority) if c.default and c.key != "kind"]


def footer_keys(app) -> list[str]:  # noqa: ANN001
    """The footer keys a person sees: displayed, and inside the screen."""
    width = app.screen.size.width
    return [
        k.description or k.action
        for k in app.screen.query(FooterKey)
        if k.display and k.region.width and k.region.right <= width
    ]


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("start", ["runs", "volumes"])
async def test_the_footer_keeps_help_and_quit(width, start):
    app = make_app(start=start)
    async with app.run_test(size=(width, 24)) as pilot:
        await settle(
            pilot,
            lambda: app.state.runs_loaded if start == "runs" else app.state.volumes_loaded,
            f"the {start} screen loaded",
        )
        keys = footer_keys(app)
        assert "Help" in keys and "Quit" in keys, keys
        regions = [k.region for k in app.screen.query(FooterKey) if k.display and k.region.width]
        for a in regions:  # nothing drawn over another key (the palette key is docked right)
            assert all(a is b or not a.overlaps(b) for b in regions), regions


@pytest.mark.parametrize("width", WIDTHS)
async def test_runs_columns_follow_their_priority_at_every_width(width):
    app = make_app()
    async with app.run_test(size=(width, 24)) as pilot:
        await settle(
            pilot, lambda: app.state.runs_loaded and len(app.state.progress) >= 2, "the runs and their progress"
        )
        table = app.screen.query_one("#runs-table", DataTable)
        shown = [str(key.value) for key in table.columns]
        ranks = sorted(PRIORITY.index(k) for k in shown)
        assert ranks == list(range(len(shown))), f"at {width} columns {shown} skip a more important column"
        assert {"status", "name"} <= set(shown)
        if "eta" in shown:
            assert {"steps", "loss"} <= set(shown), shown
        total = sum(col.get_render_width(table) for col in table.columns.values())
        assert total <= table.size.width
