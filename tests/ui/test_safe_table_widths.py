"""A table refilled with wider cells shows them whole, even when a frame was drawn before it
measured them (what a busy compositor does between a refill and the table's next idle)."""

from __future__ import annotations

from monitor_helpers import screen_text
from tests.waiting import quiet, until
from textual.app import App, ComposeResult

from primetui.ui.safe import SafeTable


class TableApp(App):
    def compose(self) -> ComposeResult:
        yield SafeTable()

    def on_mount(self) -> None:
        table = self.query_one(SafeTable)
        table.add_column("Component", key="component")
        table.add_column("Detail", key="detail")
        table.add_row("trainer", "x")
        table.add_row("env servers", "short")


async def test_cells_wider_than_before_are_drawn_whole_after_an_early_frame() -> None:
    app = TableApp()
    async with app.run_test(size=(80, 10)) as pilot:
        table = app.query_one(SafeTable)
        await until(pilot, lambda: "env servers" in screen_text(app), "the first rows drawn")
        table.clear()
        table.add_row("trainer", "x")
        table.add_row("env:reverse-text", "a much longer detail")
        screen_text(app)  # a frame before the table's idle pass measures the new rows
        await quiet(pilot)
        await until(
            pilot,
            lambda: "env:reverse-text  a much longer detail" in screen_text(app),
            "the refilled row drawn whole",
            timeout=10,
        )
