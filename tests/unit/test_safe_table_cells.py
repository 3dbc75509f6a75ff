"""SafeTable draws a one-line Text cell straight to segments (the runs list at 10,000 runs redraws a
page of cells on every key): what it draws is what Textual's own way draws, cell by cell, for
every style the table gives a cell (cursor, hover, zebra, focus) and every kind of cell."""

from __future__ import annotations

from rich.segment import Segment
from rich.text import Text
from textual.app import App, ComposeResult
from textual.widgets import Input

from primetui.ui.safe import SafeTable
from tests.waiting import until

ROWS = [
    ("a", Text("plain"), Text.assemble(("▇▆▅", "green"), " 1.234e-3"), "str [b]markup[/b]", 3.5),
    ("b", Text("styled", style="bold red"), Text("wide 漢字 cell"), Text("x" * 40), Text("tab\there")),
    ("c", Text(""), Text("right", justify="right"), Text("two\nlines"), Text("ok", style="italic")),
]


class Tables(App):
    def compose(self) -> ComposeResult:
        table = SafeTable(id="t", cursor_type="row", zebra_stripes=True)
        table.add_columns("one", "two", "three", "four")
        yield table
        yield Input(id="other")  # where focus goes when the table gives it up


def chars(lines: list[list[Segment]]) -> list[list[tuple[str, object]]]:
    """Each line as (character, style) pairs: the same picture, however it is cut into segments."""
    return [[(ch, seg.style) for seg in line for ch in seg.text] for line in lines]


async def test_a_cell_drawn_straight_matches_textuals_way_for_every_style():
    app = Tables()
    async with app.run_test(size=(100, 12)) as pilot:
        table = app.query_one(SafeTable)
        for key, *cells in ROWS:
            table.add_row(*cells[:4], key=key)
        await until(pilot, lambda: table.row_count == len(ROWS) and not table._new_rows, "the rows measured")
        table.focus()
        await until(pilot, lambda: table.has_focus, "the table focused")
        fast = slow = 0
        for focused in (True, False):
            if not focused:
                app.query_one("#other", Input).focus()
                await until(pilot, lambda: not table.has_focus, "the table unfocused")
            for row in range(len(ROWS)):
                for column in range(4):
                    for cursor in (False, True):
                        for hover in (False, True):
                            mine, straight = table.drawn_cell(row, column, cursor, hover)
                            theirs, _ = table.drawn_cell(row, column, cursor, hover, textual_way=True)
                            assert chars(mine) == chars(theirs), (row, column, cursor, hover, focused)
                            fast += straight
                            slow += not straight
        assert fast and slow  # both ways were compared: the straight one and the cells it leaves to Textual
