"""A widget whose content is replaced twice with a layout of the screen in between takes its new
content's height (primetui.ui.layout_fix; the run screen's summary once stayed one row high)."""

from __future__ import annotations

import asyncio

from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.message import Message
from textual.widgets import Static

from primetui.ui import layout_fix
from tests.waiting import until

TEN_ROWS = "\n".join(f"row {i}" for i in range(10))


class Load(Message):
    """Show "loading", let the screen lay out, then show the run: all before the summary idles."""


class Summary(Static):
    async def on_load(self, _: Load) -> None:
        self.update("Loading run r1…")
        below = self.app.query_one("#below", Static)
        below.update("below\nand more")  # a sibling grows: the next layout re-arranges both
        while below.size.height != 2:  # that layout has run, measuring this one's loading line
            await asyncio.sleep(0.01)
        self.update(TEN_ROWS)


class Overview(App):
    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Summary("Loading run…", id="summary")
            yield Static("below", id="below")


async def test_content_replaced_around_a_layout_gets_its_new_height() -> None:
    layout_fix.install()  # as PrimeApp does before it starts
    app = Overview()
    async with app.run_test(size=(80, 30)) as pilot:
        summary = app.query_one("#summary", Summary)
        await until(pilot, lambda: summary.size.height == 1, "the first layout")
        summary.post_message(Load())
        await until(pilot, lambda: summary.size.height == 10, "the summary to take its ten rows")
