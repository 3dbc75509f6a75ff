"""Turn screen rows into Textual strips: one cached rich Style per cell attribute."""

from __future__ import annotations

from rich.color import Color
from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip

from primetui.shell.term.attrs import BLINK, BOLD, DIM, HIDDEN, ITALIC, REVERSE, STRIKE, TRUECOLOR, UNDERLINE, Attr
from primetui.shell.term.screen import Line, entry_runs


def _color(value: int) -> Color | None:
    if value < 0:
        return None
    if value >= TRUECOLOR:
        c = value & 0xFFFFFF
        return Color.from_rgb((c >> 16) & 255, (c >> 8) & 255, c & 255)
    return Color.from_ansi(value)


def attr_style(a: Attr) -> Style:
    """The rich Style of a cell attribute (colours from the xterm palette, flags as text styles)."""
    fg, bg, flags = a
    return Style(
        color=_color(fg),
        bgcolor=_color(bg),
        bold=bool(flags & BOLD) or None,
        dim=bool(flags & DIM) or None,
        italic=bool(flags & ITALIC) or None,
        underline=bool(flags & UNDERLINE) or None,
        blink=bool(flags & BLINK) or None,
        reverse=bool(flags & REVERSE) or None,
        conceal=bool(flags & HIDDEN) or None,
        strike=bool(flags & STRIKE) or None,
    )


class StripPainter:
    """Builds strips for rows, caching the combined (widget base + attribute) style per attribute."""

    def __init__(self) -> None:
        self._base: Style | None = None
        self._styles: dict[Attr, Style] = {}
        self.cursor_style = Style(reverse=True)
        self.mark_style = Style(reverse=True)

    def set_base(self, base: Style, cursor: Style, mark: Style) -> None:
        if base != self._base:
            self._base = base
            self._styles.clear()
        self.cursor_style, self.mark_style = cursor, mark

    def style(self, a: Attr) -> Style:
        found = self._styles.get(a)
        if found is None:
            if len(self._styles) > 4096:
                self._styles.clear()
            found = self._styles[a] = (self._base or Style()) + attr_style(a)
        return found

    def strip(
        self,
        entry: Line | str,
        width: int,
        *,
        cursor_x: int | None = None,
        marks: list[tuple[int, int]] | None = None,
    ) -> Strip:
        """One row as a strip of exactly ``width`` cells, with the cursor and highlighted spans drawn."""
        style = self.style
        segments = [Segment(text, style(a)) for text, a in entry_runs(entry) if text]
        strip = Strip(segments)
        if marks:
            for start, end in marks:
                strip = _overlay(strip, start, end, self.mark_style)
        if cursor_x is not None:
            strip = _overlay(strip, cursor_x, cursor_x + 1, self.cursor_style, pad=True, base=self._base)
        return strip.adjust_cell_length(width, self._base)


def _overlay(strip: Strip, start: int, end: int, extra: Style, *, pad: bool = False, base: Style | None = None) -> Strip:
    """Apply ``extra`` on cells [start, end) of a strip."""
    length = strip.cell_length
    if start >= length:
        if not pad:
            return strip
        strip = strip.adjust_cell_length(end, base)
        length = end
    end = min(end, length)
    cuts = strip.divide([start, end, length])
    if len(cuts) < 2:
        return strip
    left, middle = cuts[0], cuts[1]
    right = cuts[2] if len(cuts) > 2 else Strip([])
    middle = Strip([Segment(t, (s or Style()) + extra, c) for t, s, c in middle])
    return Strip.join([left, middle, right])
