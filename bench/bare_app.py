"""The baseline of bench/idle.py: a bare Textual app (Header, DataTable, Footer) showing a few static rows."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets import DataTable, Footer, Header


class Bare(App):
    BINDINGS = [("q", "quit", "Quit")]

    def compose(self) -> ComposeResult:
        yield Header()
        yield DataTable()
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_columns("Status", "Run", "Steps", "Loss")
        for i in range(3):
            table.add_row("COMPLETED", f"bare-run-{i}", "3/3", "5.5902")


if __name__ == "__main__":
    Bare().run()
