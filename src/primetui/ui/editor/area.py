"""The TOML text area with inline diagnostics: a gutter marker and an underline on the exact span.

Textual's TextArea has no diagnostics API, so this uses its two documented hooks: ``get_line``
(restyle a line's Text: the underline) and ``render_line`` (post-process the Strip: the gutter
marker). ``set_diagnostics`` drops the lines whose diagnostics changed from the line cache so both
show at once. Colours come from the app theme's ``$error`` / ``$warning`` / ``$accent`` variables.
"""

from __future__ import annotations

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.geometry import Offset
from textual.strip import Strip
from textual.document._document import DocumentBase
from textual.document._wrapped_document import WrappedDocument
from textual.widgets import TextArea

from primetui.sft.diagnostics import Diagnostic
from primetui.ui.editor.bigdoc import adopt_document, adopt_wrap
from primetui.ui.editor.highlight import LazyHighlights
from primetui.ui.editor.keyorder import hand_on, run_bindings_first

MARKERS = {"error": "●", "warning": "▲", "hint": "·"}
# Highlighting is lazy (highlight.py), but tree-sitter still re-parses and Textual still walks the
# document per edit: above this many characters (~6,500 lines, ten times any real sft.toml) the
# text is shown plain.
HIGHLIGHT_LIMIT = 200_000
_RANK = {"error": 0, "warning": 1, "hint": 2}
_THEME_VAR = {"error": "error", "warning": "warning", "hint": "accent"}


def _underlines(items) -> list[tuple]:
    """What ``get_line`` draws of a line's diagnostics."""
    return [(d.level, d.span.line, d.span.col, d.span.end_line, d.span.end_col) for d in items]


class DiagnosticTextArea(TextArea):
    """A ``TextArea.code_editor`` that draws diagnostics (see the module docstring)."""

    DEFAULT_CSS = """
    DiagnosticTextArea { height: 1fr; border: none; padding: 0; }
    DiagnosticTextArea:focus { border: none; }
    """

    def __init__(self, text: str = "", highlight: bool = True, **kwargs) -> None:
        super().__init__(
            text,
            language="toml" if highlight else None,
            soft_wrap=False,
            tab_behavior="indent",
            show_line_numbers=True,
            **kwargs,
        )
        self.diagnostics: list[Diagnostic] = []
        self._by_line: dict[int, list[Diagnostic]] = {}
        self._styles: dict[str, Style] = {}
        self._styles_theme: str | None = None

    @property
    def wrapped_document(self) -> WrappedDocument:
        return self._wrapped

    @wrapped_document.setter
    def wrapped_document(self, value: WrappedDocument) -> None:
        # TextArea builds a new one for every document; keep it fast on big files (bigdoc.py).
        adopt_wrap(value)
        self._wrapped = value

    @property
    def document(self) -> DocumentBase:
        return self._document

    @document.setter
    def document(self, value: DocumentBase) -> None:
        adopt_document(value)
        self._document = value

    # -- highlighting: a block at a time where drawn, forgetting only what an edit touched --------
    _highlighted: object = None  # the document the highlights belong to
    _highlighted_gutter = -1

    @property
    def highlights(self) -> LazyHighlights | None:
        """The lazy highlight map (which blocks are highlighted, how many queries ran); None before
        the first highlight. Read-only."""
        highlights = self._highlights
        return highlights if isinstance(highlights, LazyHighlights) else None

    def _build_highlight_map(self) -> None:
        """Replaces Textual's (query the whole document, forget every rendered line) after each
        edit: see highlight.py."""
        highlights = self._highlights
        if not isinstance(highlights, LazyHighlights):
            highlights = self._highlights = LazyHighlights(self)
        document = self.document
        edits = getattr(document, "edits", None)
        gutter = self.gutter_width
        if document is not self._highlighted or not edits or self.soft_wrap or gutter != self._highlighted_gutter:
            # a new document or language, or rows that all moved or rewrapped: start over
            highlights.reset()
            self._line_cache.clear()
            if edits:
                edits.clear()
            self._highlighted, self._highlighted_gutter = document, gutter
            return
        rows: set[int] = set()
        from_row: int | None = None
        for top, old_bottom, new_bottom, added, changed in edits:
            rows.update(range(top - 1, max(old_bottom, new_bottom) + 2))  # the edit and its neighbours
            for first, last in changed:
                rows.update(range(first, last + 1))
            if added:
                from_row = top if from_row is None else min(from_row, top)
        edits.clear()
        highlights.forget(rows, from_row)
        self.forget_rows(rows, from_row)

    def forget_rows(self, rows: set[int], from_row: int | None = None) -> None:
        """Drop the rendered lines of these document rows (and of every row from ``from_row`` on)
        from TextArea's line cache; the others are still right (soft wrap is off: a row is a line)."""
        cache = self._line_cache
        for key in list(cache.keys()):
            y = key[2]  # TextArea's key: (size, scroll_x, absolute_y, ...)
            if y in rows or (from_row is not None and y >= from_row):
                cache.discard(key)

    def _refresh_size(self) -> None:
        shown = self.region.width
        width = max(self.virtual_size.width, shown)
        super()._refresh_size()
        if max(self.virtual_size.width, shown) != width:
            self._line_cache.clear()  # every line is padded to the widest one (or to the widget)

    def _recompute_cursor_offset(self) -> None:
        # Carried fix for Textual issue #6686 (upstream PR #6687, open; Textual 8.2.8 still has the
        # bug): undoing a paste restores the shorter text before the selection, and when that drops
        # the scrollbar, TextArea scrolls to a cursor row that no longer exists (ValueError: the
        # document line index is out of bounds; the app ended). Clamp only the location this visual
        # offset is computed from; the selection itself is put back by the undo right after. Drop
        # this override when Textual ships the fix.
        self._cursor_offset = self.wrapped_document.location_to_offset(self.clamp_visitable(self.cursor_location))

    async def _on_key(self, event: events.Key) -> None:
        # keys of one burst in the order typed (keyorder.py: Textual #6605, carried PR #6631)
        if hand_on(self, event):
            return
        typed = event.is_printable or event.key in ("enter", "tab")
        if not self.read_only and await run_bindings_first(self, event, typed):
            return
        await super()._on_key(event)

    def check_consume_key(self, key: str, character: str | None = None) -> bool:
        # tab is the screen's `editor.indent` binding (a selection is indented, never replaced)
        return False if key == "tab" else super().check_consume_key(key, character)

    @property
    def highlighting(self) -> bool:
        return self.language is not None

    def set_highlighting(self, on: bool) -> None:
        """TOML highlighting on or off (Textual rebuilds its highlight map on every edit: O(file))."""
        want = "toml" if on else None
        if self.language != want:
            self.language = want

    # -- diagnostics ---------------------------------------------------------------------------
    def set_diagnostics(self, diagnostics: list[Diagnostic]) -> None:
        self.diagnostics = list(diagnostics)
        by_line: dict[int, list[Diagnostic]] = {}
        for d in self.diagnostics:
            for line in range(d.span.line, d.span.end_line + 1):
                by_line.setdefault(line, []).append(d)
        for items in by_line.values():
            items.sort(key=lambda d: _RANK[d.level])
        before, self._by_line = self._by_line, by_line
        # redraw only the lines whose underlines changed (a whole-screen redraw after every check
        # of a big file would land between some key and its echo)
        changed = {
            line
            for line in before.keys() | by_line.keys()
            if _underlines(before.get(line, ())) != _underlines(by_line.get(line, ()))
        }
        if self.soft_wrap:
            self._line_cache.clear()
        else:
            self.forget_rows(changed)
        self.refresh()

    def diagnostics_at_line(self, line: int) -> list[Diagnostic]:
        return self._by_line.get(line, [])

    def _level_style(self, level: str) -> Style:
        theme = self.app.theme
        if theme != self._styles_theme:
            variables = self.app.get_css_variables()
            self._styles = {}
            for lvl, var in _THEME_VAR.items():
                colour = variables.get(var) or variables.get("foreground") or "default"
                self._styles[lvl] = Style(color=colour)
            self._styles_theme = theme
        return self._styles[level]

    # -- rendering hooks -------------------------------------------------------------------------
    def get_line(self, line_index: int) -> Text:
        line = super().get_line(line_index)
        for d in self._by_line.get(line_index, ()):
            start = d.span.col if d.span.line == line_index else 0
            end = d.span.end_col if d.span.end_line == line_index else len(line.plain)
            if end <= start:  # an empty span still marks one cell
                end = start + 1
            style = self._level_style(d.level) + Style(underline=True)
            if d.level == "hint":
                style = Style(underline=True, dim=True)
            line.stylize(style, start, min(end, max(len(line.plain), start + 1)))
        return line

    def render_line(self, y: int) -> Strip:
        strip = super().render_line(y)
        if not self._by_line or not self.show_line_numbers:
            return strip
        absolute_y = self.scroll_offset.y + y
        if not self.soft_wrap:
            # one visual row per line; WrappedDocument.height is O(lines), too slow per rendered row
            if absolute_y >= self.document.line_count:
                return strip
            row, col = absolute_y, 0
        else:
            if absolute_y >= self.wrapped_document.height:
                return strip
            row, col = self.wrapped_document.offset_to_location(Offset(0, absolute_y))
        items = self._by_line.get(row)
        if not items or col != 0:
            return strip
        gw = self.gutter_width
        if gw < 3 or strip.cell_length < gw:
            return strip
        level = items[0].level
        marker_at = gw - 2  # the first of the two margin cells after the line number
        left = strip.crop(0, marker_at)
        right = strip.crop(marker_at + 1, strip.cell_length)
        base = next((seg.style for seg in strip.crop(marker_at, marker_at + 1) if seg.style), None)
        style = (base + self._level_style(level)) if base else self._level_style(level)
        marker = Strip([Segment(MARKERS[level], style + Style(bold=True))], 1)
        return Strip.join([left, marker, right])
