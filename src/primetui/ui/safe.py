"""Outside text on screen: shown as text, never parsed as markup, never sent as a control.

Every string the platform, a volume, a config or a log supplies (run names, messages, model ids,
file names, env names) is drawn through one of these:

- :func:`plain`: a Rich ``Text`` of :func:`primetui.monitor_core.escapes.clean_block` (line breaks
  kept), so ``[bold]`` stays literal and ``ESC``/``BEL``/C1/bidi controls show as ``␛ ␇ �``;
- :class:`SafeTable`: a ``DataTable`` whose string cells go through :func:`plain` (Textual parses a
  plain ``str`` cell as markup);
- :class:`ControlFilter`: the last line filter of the app. After layout, it drops any control or
  bidi character still inside a rendered segment, so even a path that forgot :func:`plain` cannot
  write a control sequence to the terminal (the visible symbols come from :func:`plain`; this is
  the backstop, and it keeps cell widths unchanged since those characters occupy no cell).
"""

from __future__ import annotations

from typing import Any

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.content import Content
from textual.filter import LineFilter
from textual.widgets import DataTable

from primetui.monitor_core.escapes import UNSAFE, clean, clean_block

__all__ = ["ControlFilter", "SafeTable", "clean", "clean_block", "plain"]


def plain(value: Any, style: str = "") -> Any:
    """``value`` as literal, harmless text (a ``Text`` passes through, its controls made visible)."""
    if isinstance(value, Text):
        if value.plain.isprintable():
            return value
        out = value.copy()
        out.plain = clean_block(value.plain)  # same length unless a tab expanded: styles then end early, harmless
        return out
    if isinstance(value, Content) or hasattr(value, "__rich_console__") or hasattr(value, "__rich__"):
        return value  # already a renderable (a Group, a Table, Content): nothing in it is parsed as markup
    return Text(clean_block(clean(value) if not isinstance(value, str) else value), style=style, end="")


def _cell(value: Any) -> Any:
    return Text(clean(value), end="") if isinstance(value, str) else value  # one line: a newline shows as ␊


class SafeTable(DataTable):
    """A ``DataTable`` that never reads a string cell as markup and shows controls as symbols."""

    def add_row(self, *cells: Any, height: int | None = 1, key: Any = None, label: Any = None) -> Any:
        return super().add_row(
            *(_cell(c) for c in cells), height=height, key=key, label=None if label is None else _cell(label)
        )

    def update_cell(self, row_key: Any, column_key: Any, value: Any, *, update_width: bool = False) -> None:
        super().update_cell(row_key, column_key, _cell(value), update_width=update_width)

    def update_cell_at(self, coordinate: Any, value: Any, *, update_width: bool = False) -> None:
        super().update_cell_at(coordinate, _cell(value), update_width=update_width)

    def set_cell(self, row_key: Any, column_key: Any, value: Any) -> None:
        """Change one cell and repaint that cell alone (``update_cell`` repaints the whole table).

        A value wider than its column takes ``update_cell``'s way: the column widens, the table is drawn again.
        """
        from textual.widgets._data_table import ColumnKey, RowKey

        value = _cell(value)
        column = self.columns[ColumnKey(column_key)]
        if not isinstance(value, Text) or value.cell_len > column.content_width:
            super().update_cell(row_key, column_key, value, update_width=True)
            return
        row = RowKey(row_key)
        self._data[row][ColumnKey(column_key)] = value
        self._update_count += 1  # the row and line caches are keyed by it
        self.refresh_coordinate(self.get_cell_coordinate(row, ColumnKey(column_key)))

    def drawn_cell(
        self, row_index: int, column_index: int, cursor: bool = False, hover: bool = False, *, textual_way: bool = False
    ) -> tuple[list[list[Segment]], bool]:
        """A body cell as this table draws it, or as Textual's own way draws it (``textual_way``), with
        whether it took the straight one-line path: the two must show the same picture."""
        width = list(self.columns.values())[column_index].get_render_width(self)
        base = self._get_row_style(row_index, self.rich_style)
        self._cell_render_cache.clear()
        straight = self._one_line_cell(row_index, column_index, base, width, cursor, hover) is not None
        self._cell_render_cache.clear()
        if textual_way:
            lines = DataTable._render_cell(self, row_index, column_index, base, width, cursor, hover)
        else:
            lines = self._render_cell(row_index, column_index, base, width, cursor, hover)
        self._cell_render_cache.clear()
        return lines, straight

    def _render_cell(
        self,
        row_index: int,
        column_index: int,
        base_style: Style,
        width: int,
        cursor: bool = False,
        hover: bool = False,
    ) -> Any:
        # Textual draws a cell through Rich's Styled(Padding(cell)) and render_lines, and its cell
        # cache is keyed by the table's update count: every change of any cell (a new page, a
        # filter, a sort) draws every cell of the page again that way, most of a frame's time at
        # 10,000 runs. A one-line Text cell that fits its column is drawn here straight to the same
        # segments (tests/unit/test_safe_table_cells.py compares both ways); anything else
        # (the header, a label, a cell to wrap, cut or justify) takes Textual's way.
        lines = self._one_line_cell(row_index, column_index, base_style, width, cursor, hover)
        if lines is None:
            return super()._render_cell(row_index, column_index, base_style, width, cursor, hover)
        return lines

    _meta_styles: dict[tuple[int, int], Style] = {}
    """The click style of each (row, column) place drawn, shared by every table (a style is the same in each)."""

    def _one_line_cell(
        self, row_index: int, column_index: int, base_style: Style, width: int, cursor: bool, hover: bool
    ) -> list[list[Segment]] | None:
        if row_index < 0 or column_index < 0 or row_index < self.fixed_rows or column_index < self.fixed_columns:
            return None
        row_key = self._row_locations.get_key(row_index)
        column_key = self._column_locations.get_key(column_index)
        if row_key is None or column_key is None:
            return None
        row = self.rows.get(row_key)
        if row is None or row.height != 1:
            return None
        key = (
            row_key,
            column_key,
            base_style,
            cursor,
            hover,
            self._show_hover_cursor,
            self._update_count,
            self._pseudo_class_state,
        )
        cached = self._cell_render_cache.get(key)
        if cached is not None:
            return cached
        cell = self._get_row_renderables(row_index).cells[column_index]
        pad = self.cell_padding
        inner = width - 2 * pad
        options = self.app.console_options
        if (
            not isinstance(cell, Text)
            or inner < 0
            or cell.cell_len > inner
            or cell.justify not in (None, "default")
            or options.justify not in (None, "default")
            or "\n" in cell.plain
            or "\t" in cell.plain
        ):
            return None
        component_style, post_style = self._get_styles_to_render_cell(
            False,
            False,
            False,
            hover,
            cursor,
            self.show_cursor,
            self._show_hover_cursor,
            self.cursor_foreground_priority == "css",
            self.cursor_background_priority == "css",
        )
        meta = self._meta_styles.get((row_index, column_index))
        if meta is None:  # the row and column a click reads (a pickled dict: made once per place)
            if len(self._meta_styles) > 50_000:
                self._meta_styles.clear()  # places of every table drawn; a long table scrolled through stays bounded
            meta = self._meta_styles[row_index, column_index] = Style.from_meta(
                {"row": row_index, "column": column_index}
            )
        pre = base_style + meta + component_style
        post = self.app.console.get_style(post_style)
        blank = pre + post
        console = self.app.console
        # As Rich's Text draws itself: its own style becomes a span under the spans (a join of one line).
        body = Text("\n").join((cell,)).render(console, end="") if cell.style else cell.render(console, end="")
        lines = [[Segment(text, pre + style + post if style else blank) for text, style, _ in body if text]]
        spare = inner - cell.cell_len
        if pad:
            lines[0].insert(0, Segment(" " * pad, blank))
        if spare + pad:
            lines[0].append(Segment(" " * (spare + pad), blank))
        self._cell_render_cache[key] = lines
        return lines

    def _update_dimensions(self, new_rows: Any) -> None:
        # Textual (8.2) widens columns for rows added since the last idle, but its cell and line
        # caches are not keyed by column width: a frame drawn between a refill and that idle (a
        # busy compositor) kept cells cut to the old widths for good. A width that changed
        # drops them.
        before = [c.content_width for c in self.columns.values()]
        super()._update_dimensions(new_rows)
        if before != [c.content_width for c in self.columns.values()]:
            self._clear_caches()
            self.refresh()


class ControlFilter(LineFilter):
    """Drop any control character left in a rendered line (the app's own escapes are not in segments).

    What it drops is the neutraliser's own list (``escapes.UNSAFE``: C0, DEL, C1, line separators and every
    invisible format character). Rich measures all of these as zero cells, so dropping keeps the layout."""

    def apply(self, segments: list[Segment], background: Any) -> list[Segment]:
        search = UNSAFE.search
        if not any(search(text) for text, _, control in segments if not control):
            return segments
        return [
            seg if seg.control or not search(seg.text) else Segment(UNSAFE.sub("", seg.text), seg.style)
            for seg in segments
        ]
