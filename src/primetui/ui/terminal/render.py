"""Turn screen rows into Textual strips: one cached rich Style per cell attribute."""

from __future__ import annotations

from rich.color import Color
from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip

from primetui.shell.term.attrs import (
    BLINK,
    BOLD,
    DIM,
    HIDDEN,
    ITALIC,
    OVERLINE,
    REVERSE,
    STRIKE,
    TRUECOLOR,
    UL_DOUBLE,
    Attr,
    underline_style,
)
from primetui.shell.term.palette import XTERM, RGB
from primetui.shell.term.screen import Line, entry_runs


def _color(value: int, palette: tuple[RGB, ...] | None) -> Color | None:
    if value < 0:
        return None
    if value >= TRUECOLOR:
        c = value & 0xFFFFFF
        return Color.from_rgb((c >> 16) & 255, (c >> 8) & 255, c & 255)
    if value < 16 and palette is not None:
        return Color.from_rgb(*palette[value])
    return Color.from_ansi(value)


def attr_style(a: Attr, palette: tuple[RGB, ...] | None = XTERM) -> Style:
    """The rich Style of a cell attribute: colours 0-15 from ``palette`` (None: as ANSI codes, for
    the terminal's own palette), the rest of the xterm palette as is, flags as text styles.

    Rich draws single and double underlines and overlines; curly, dotted and dashed underlines
    (SGR 4:3-4:5) are drawn as single ones, and an underline colour (SGR 58) is not drawn: the
    screen model keeps both, and full-terminal mode (f12) shows them as sent.
    """
    fg, bg, flags = a
    ul = underline_style(flags)
    return Style(
        color=_color(fg, palette),
        bgcolor=_color(bg, palette),
        bold=bool(flags & BOLD) or None,
        dim=bool(flags & DIM) or None,
        italic=bool(flags & ITALIC) or None,
        underline=(bool(ul) and ul != UL_DOUBLE) or None,
        underline2=ul == UL_DOUBLE or None,
        overline=bool(flags & OVERLINE) or None,
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
        self.palette: tuple[RGB, ...] | None = XTERM
        self.cursor_style = Style(reverse=True)
        self.mark_style = Style(reverse=True)

    def set_base(self, base: Style, cursor: Style, mark: Style, palette: tuple[RGB, ...] | None = XTERM) -> None:
        if base != self._base or palette != self.palette:
            self._base = base
            self.palette = palette
            self._styles.clear()
        self.cursor_style, self.mark_style = cursor, mark

    def style(self, a: Attr) -> Style:
        found = self._styles.get(a)
        if found is None:
            if len(self._styles) > 4096:
                self._styles.clear()
            found = self._styles[a] = (self._base or Style()) + attr_style(a, self.palette)
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


def _overlay(
    strip: Strip, start: int, end: int, extra: Style, *, pad: bool = False, base: Style | None = None
) -> Strip:
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
