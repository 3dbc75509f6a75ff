"""The compare screen's legend: one entry per run, ``N glyph name``, in the run's colour, for any
number of runs; a hidden run is struck through.

Entries wrap whole onto as many lines as they need. ``L`` (or a click) puts a cursor on the legend:
``←`` ``→`` pick a run, ``space`` hides or shows it (runs past 9 have no digit key), ``a`` shows
every run, ``esc`` leaves. The screen owns which runs are hidden: the legend asks it by message.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rich.cells import cell_len
from rich.style import Style
from rich.text import Text
from textual.binding import Binding
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import Static

GAP = 3  # cells between two entries


@dataclass(frozen=True)
class Entry:
    """One run in the legend: its number (1-based), glyph, colour style, name, and whether it is hidden."""

    number: int
    glyph: str
    style: Any
    label: str
    hidden: bool


class CompareLegend(Static, can_focus=True):
    """Every compared run, numbered, with its glyph in its colour; a cursor to hide or show any of them."""

    DEFAULT_CSS = """
    CompareLegend { height: auto; padding: 0 1; }
    CompareLegend:focus { background: $boost; }
    """
    BINDINGS = [
        Binding("left,up", "move(-1)", "Previous run", id="compare.legend.previous"),
        Binding("right,down", "move(1)", "Next run", id="compare.legend.next"),
        Binding("space,enter", "toggle", "Hide/show", id="compare.legend.toggle"),
        Binding("a", "show_all", "Show all", id="compare.legend.show_all"),
        Binding("escape", "leave", "Leave legend", id="compare.legend.leave"),
    ]

    cursor: reactive[int] = reactive(0)
    """The entry the cursor is on (0-based), drawn when the legend has focus."""

    class Toggle(Message):
        """Hide or show run ``index`` (0-based)."""

        def __init__(self, index: int) -> None:
            super().__init__()
            self.index = index

    class ShowAll(Message):
        """Show every run."""

    def __init__(self, id: str | None = None) -> None:
        super().__init__("", id=id, markup=False)
        self.entries: list[Entry] = []
        self.hint = ""
        self._spans: list[tuple[int, int, int, int]] = []  # (line, first cell, end cell, entry index)

    def show(self, entries: list[Entry], hint: str) -> None:
        """Draw ``entries`` (and ``hint`` after them, dim)."""
        self.entries = entries
        self.hint = hint
        if self.cursor >= len(entries):
            self.cursor = max(len(entries) - 1, 0)
        self.refresh(layout=True)

    def entry_text(self, n: int) -> Text:
        e = self.entries[n]
        text = Text(no_wrap=True, overflow="ellipsis")
        text.append(f"{e.number} ", style="dim")
        text.append(e.glyph, style="dim" if e.hidden else e.style)
        text.append(" " + e.label + (" (hidden)" if e.hidden else ""), style="dim strike" if e.hidden else "")
        if self.has_focus and n == self.cursor:
            text.stylize(Style(reverse=True))
        return text

    def lines(self, width: int) -> list[Text]:
        """The entries packed whole onto lines of ``width`` cells (one too long for a line is cut with …)."""
        width = max(width, 8)
        lines: list[Text] = [Text()]
        spans: list[tuple[int, int, int, int]] = []
        pieces = [(n, self.entry_text(n)) for n in range(len(self.entries))]
        if self.hint:
            pieces.append((-1, Text(self.hint, style="dim")))
        for n, piece in pieces:
            line = lines[-1]
            size = cell_len(piece.plain)
            used = cell_len(line.plain)
            gap = GAP if used else 0
            if used and used + gap + size > width:
                lines.append(Text())
                line, used, gap = lines[-1], 0, 0
            if size > width - used - gap:
                piece.truncate(width - used - gap, overflow="ellipsis")
                size = cell_len(piece.plain)
            line.append(" " * gap)
            if n >= 0:
                spans.append((len(lines) - 1, used + gap, used + gap + size, n))
            line.append_text(piece)
        self._spans = spans
        return lines

    def render(self) -> Text:
        return Text("\n").join(self.lines(self.content_size.width or self.size.width))

    def get_content_height(self, container: Any, viewport: Any, width: int) -> int:
        return len(self.lines(width))

    def watch_cursor(self) -> None:
        self.refresh()

    def on_focus(self) -> None:
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()

    def action_move(self, delta: int) -> None:
        if self.entries:
            self.cursor = (self.cursor + delta) % len(self.entries)

    def action_toggle(self) -> None:  # type: ignore[override]  # the legend's own toggle, not DOMNode's attribute one
        if self.entries:
            self.post_message(self.Toggle(self.cursor))

    def action_show_all(self) -> None:
        self.post_message(self.ShowAll())

    def action_leave(self) -> None:
        """esc: the keys go back to what follows the legend (the charts and tables), the chart cursor's."""
        self.screen.focus_next()

    def on_click(self, event: Any) -> None:
        offset = event.get_content_offset(self)
        if offset is None:
            return
        for line, start, end, n in self._spans:
            if line == offset.y and start <= offset.x < end:
                self.cursor = n
                self.post_message(self.Toggle(n))
                return
